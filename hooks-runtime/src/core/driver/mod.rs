//! The driver-facing API: one method per kind of event an agent loop emits,
//! each returning a typed decision to apply, so agent authors never match raw
//! [`Flow`] values.
//!
//! Every method folds the stack ([`HookStack::fold`]) and converts the
//! result. They share [`HookStack::fold`]'s cancel safety: dropping the
//! future stops the fold, drops the hook being awaited and applies nothing.
//! None of them fails: a hook's failure is its own failure policy's business
//! (shell hooks), and a flow an event cannot honour already became a
//! `Terminate` decision with a diagnostic.

use std::borrow::Cow;

use hooks_plan::Phase;
use serde_json::Value;

use crate::core::context::HookContext;
use crate::core::diagnostic::Diagnostic;
use crate::core::event::{StepEvent, ToolOutcome};
use crate::core::flow::{ContextList, EnvVars, Flow, Text};
use crate::core::fold::Fold;
use crate::core::hook::AgentHook as _;
use crate::core::outcome::{ProvenanceList, StackOutcome};
use crate::core::patch::RequestPatch;
use crate::core::report::ReportList;
use crate::core::stack::HookStack;

mod model;
mod stop;

pub use model::ModelDecision;
pub use stop::StopDecision;

/// A decision plus the context, provenance, diagnostics and per-hook
/// reports of the fold behind it:
/// what the driver methods of [`HookStack`] ([`HookStack::user_prompt`],
/// [`HookStack::before_completion`], [`HookStack::before_tool`],
/// [`HookStack::permission_request`], [`HookStack::after_tool`],
/// [`HookStack::invalid_tool_call`], [`HookStack::stop`],
/// [`HookStack::subagent_stop`], [`HookStack::before_compaction`],
/// [`HookStack::before_model_select`], [`HookStack::observe`]) return, so an agent loop applies a typed
/// decision and never matches raw [`Flow`] values.
///
/// None of those methods fails (see [`HookStack`]'s `# Errors`), and all
/// share [`HookStack::fold`]'s cancel safety.
#[derive(Debug, Clone, PartialEq)]
pub struct Decided<D> {
    /// What the agent loop must do.
    pub decision: D,
    /// Context items the hooks injected, in order, on phases that honour
    /// `inject_context` (`run_start`, `subagent_start`: before the first
    /// prompt; `before_tool`, `after_tool`, `after_tool_batch`: beside the
    /// tool results; other after-phases: for the model's next turn). Empty
    /// elsewhere. The agent adds them whatever the decision.
    pub context: ContextList,
    /// `run_start`: environment variables (name to value) the hooks set
    /// for the run's later tool calls (Claude Code's `CLAUDE_ENV_FILE`, the
    /// native `env` field); the agent sets them in its tools'
    /// environment whatever the decision. Empty elsewhere. Values are
    /// never recorded; they may be secrets.
    pub env: EnvVars,
    /// Which hook set or rewrote what, in order.
    pub provenance: ProvenanceList,
    /// Conflicts, fail-closed reasons and the consulted hooks' own
    /// diagnostics, in order.
    pub diagnostics: Vec<Diagnostic>,
    /// One report per consulted hook, in order: its id, verdict, failure
    /// (kind and policy), elapsed time, message and the diagnostics of
    /// that call ([`HookReport`](crate::HookReport)).
    pub reports: ReportList,
}

impl<D> Decided<D> {
    fn new(decision: D, mut outcome: StackOutcome) -> Self {
        Decided {
            decision,
            context: std::mem::take(&mut outcome.context),
            env: std::mem::take(&mut outcome.env),
            provenance: outcome.provenance,
            diagnostics: outcome.diagnostics,
            reports: outcome.reports,
        }
    }
}

/// A tool call as the model issued it, for [`HookStack::before_tool`] and
/// [`HookStack::after_tool`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToolCall<'a> {
    /// The tool's name.
    pub tool_name: &'a str,
    /// The call's id.
    pub call_id: &'a str,
    /// The arguments.
    pub args: &'a Value,
}

/// What to do with a submitted user prompt.
#[derive(Debug, Clone, PartialEq)]
pub enum PromptDecision<'a> {
    /// Send this prompt (borrowed when no hook rewrote it).
    Send {
        /// The prompt to send.
        prompt: Cow<'a, str>,
    },
    /// Drop the prompt; show `reason` to the user.
    Skip {
        /// Why.
        reason: Text,
    },
    /// End the run.
    Terminate {
        /// Why.
        reason: Text,
    },
}

/// What to do with a completion request.
#[derive(Debug, Clone, PartialEq)]
pub enum CompletionDecision {
    /// Apply `patch` (empty when no hook patched) and send the request.
    Send {
        /// The merged patch.
        patch: RequestPatch,
    },
    /// End the run instead of sending.
    Terminate {
        /// Why.
        reason: Text,
    },
}

/// What to do with a tool call.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolDecision<'a> {
    /// Run the tool with `args` (borrowed when no hook rewrote them).
    Run {
        /// The arguments to run with.
        args: Cow<'a, Value>,
    },
    /// Do not run the tool; give the model `reason` as the result.
    Skip {
        /// What the model sees.
        reason: Text,
        /// The arguments as rewritten before the skip (for records).
        args: Cow<'a, Value>,
    },
    /// A hook asked for approval: resolve it with an approver
    /// ([`Decided::resolve`]); without one the call must not run.
    Ask {
        /// What the approver is shown.
        reason: Text,
        /// The arguments as rewritten before the ask.
        args: Cow<'a, Value>,
    },
    /// End the run.
    Terminate {
        /// Why.
        reason: Text,
    },
}

/// What to do with a permission request ([`HookStack::permission_request`]).
#[derive(Debug, Clone, PartialEq)]
pub enum PermissionDecision<'a> {
    /// Granted: run the tool with `args`.
    Allow {
        /// The arguments to run with (borrowed when no hook rewrote them).
        args: Cow<'a, Value>,
    },
    /// Denied: do not run the tool; give the model `reason` as the result.
    Deny {
        /// What the model sees.
        reason: Text,
    },
    /// A hook asked for approval, or no hook decided (`reason` is `None`):
    /// the agent's approver decides ([`Decided::resolve`]); without one the
    /// request is denied.
    Ask {
        /// What the approver is shown, when a hook asked.
        reason: Option<Text>,
        /// The arguments as rewritten by the hooks.
        args: Cow<'a, Value>,
    },
    /// End the run.
    Terminate {
        /// Why.
        reason: Text,
    },
}

/// What to do before the conversation is compacted
/// ([`HookStack::before_compaction`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompactionDecision {
    /// Compact as planned.
    Compact,
    /// Do not compact; show `reason` to the user.
    Skip {
        /// Why.
        reason: Text,
    },
    /// End the run.
    Terminate {
        /// Why.
        reason: Text,
    },
}

/// What to do after a tool ran (the injected context is
/// [`Decided::context`]).
#[derive(Debug, Clone, PartialEq)]
pub struct AfterToolDecision<'a> {
    /// The model-visible result (borrowed when no hook rewrote it).
    pub result: Cow<'a, Value>,
    /// `Some(reason)` when the run must end.
    pub terminate: Option<Text>,
}

/// What to do with an invalid tool call. When every hook continues, the call
/// fails (fail fast by default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InvalidCallDecision {
    /// Fail the call (report the error to the model as the agent normally does).
    Fail,
    /// Ask the model to try again with this feedback.
    Retry {
        /// Shown to the model.
        feedback: Text,
    },
    /// Run the call as a call of this tool, with these arguments when
    /// given (`None`: the model's, parsed as the tool expects).
    Repair {
        /// The tool to run instead.
        tool_name: Text,
        /// The corrected arguments (a JSON object), or `None`.
        args: Option<Value>,
    },
    /// Do not run the call: answer it with this reason as its result, as
    /// a `before_tool` block does (rig's `InvalidToolCallAction::Skip`).
    Skip {
        /// Shown to the model as the call's result.
        reason: Text,
    },
    /// End the run.
    Terminate {
        /// Why.
        reason: Text,
    },
}

/// What to do after an observed event (any phase without its own method;
/// the injected context is [`Decided::context`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Observed {
    /// `Some(reason)` when the run must end.
    pub terminate: Option<Text>,
}

impl PromptDecision<'_> {
    /// The decision's name: `send`, `skip` or `terminate`.
    pub const fn label(&self) -> &'static str {
        match self {
            PromptDecision::Send { .. } => "send",
            PromptDecision::Skip { .. } => "skip",
            PromptDecision::Terminate { .. } => "terminate",
        }
    }
}

impl CompletionDecision {
    /// The decision's name: `send` or `terminate`.
    pub const fn label(&self) -> &'static str {
        match self {
            CompletionDecision::Send { .. } => "send",
            CompletionDecision::Terminate { .. } => "terminate",
        }
    }
}

impl<'a> ToolDecision<'a> {
    /// The decision for a fold's decision (`Continue`: no hook stopped it)
    /// and the arguments as the hooks left them; a flow `before_tool` does
    /// not honour terminates, naming it.
    #[inline]
    fn of(decision: Flow, args: Cow<'a, Value>) -> Self {
        match decision {
            Flow::Continue => {
                // `Continue` owns nothing: no call to `Flow`'s drop glue.
                std::mem::forget(decision);
                ToolDecision::Run { args }
            }
            Flow::Skip { reason } => ToolDecision::Skip { reason, args },
            Flow::Ask { reason } => ToolDecision::Ask { reason, args },
            Flow::Terminate { reason } => ToolDecision::Terminate { reason },
            other => ToolDecision::Terminate {
                reason: unexpected(other, Phase::BeforeTool),
            },
        }
    }

    /// The decision's name: `run`, `skip`, `ask` or `terminate`.
    pub const fn label(&self) -> &'static str {
        match self {
            ToolDecision::Run { .. } => "run",
            ToolDecision::Skip { .. } => "skip",
            ToolDecision::Ask { .. } => "ask",
            ToolDecision::Terminate { .. } => "terminate",
        }
    }
}

impl PermissionDecision<'_> {
    /// The decision's name: `allow`, `deny`, `ask` or `terminate`.
    pub const fn label(&self) -> &'static str {
        match self {
            PermissionDecision::Allow { .. } => "allow",
            PermissionDecision::Deny { .. } => "deny",
            PermissionDecision::Ask { .. } => "ask",
            PermissionDecision::Terminate { .. } => "terminate",
        }
    }
}

impl CompactionDecision {
    /// The decision's name: `compact`, `skip` or `terminate`.
    pub const fn label(&self) -> &'static str {
        match self {
            CompactionDecision::Compact => "compact",
            CompactionDecision::Skip { .. } => "skip",
            CompactionDecision::Terminate { .. } => "terminate",
        }
    }
}

impl AfterToolDecision<'_> {
    /// The decision's name: `terminate` when the run must end, else
    /// `continue`.
    pub const fn label(&self) -> &'static str {
        if self.terminate.is_some() {
            "terminate"
        } else {
            "continue"
        }
    }
}

impl InvalidCallDecision {
    /// The decision's name: `fail`, `retry`, `repair` or `terminate`.
    pub const fn label(&self) -> &'static str {
        match self {
            InvalidCallDecision::Fail => "fail",
            InvalidCallDecision::Retry { .. } => "retry",
            InvalidCallDecision::Repair { .. } => "repair",
            InvalidCallDecision::Skip { .. } => "skip",
            InvalidCallDecision::Terminate { .. } => "terminate",
        }
    }
}

impl Observed {
    /// The decision's name: `terminate` when the run must end, else
    /// `continue`.
    pub const fn label(&self) -> &'static str {
        if self.terminate.is_some() {
            "terminate"
        } else {
            "continue"
        }
    }
}

impl HookStack {
    /// Folds a `user_prompt` event. A new user turn starts: the stop-resume
    /// counts of the agent and its subagents go back to 0 (in the session
    /// store, when the stack has one: [`HookStack::with_session_store`]; a
    /// store that fails adds a [`Diagnostic::SessionStore`] and the prompt
    /// is folded as usual).
    ///
    /// # Cancel safety
    ///
    /// As [`HookStack::fold`].
    pub async fn user_prompt<'a>(
        &self,
        ctx: &HookContext,
        prompt: &'a str,
    ) -> Decided<PromptDecision<'a>> {
        let reset = self.reset_stop_resumes(ctx).await;
        let mut outcome = self.fold(ctx, StepEvent::UserPrompt { prompt }).await;
        outcome.diagnostics.extend(reset);
        let decision = match outcome.decision.take() {
            Some(Flow::Skip { reason }) => PromptDecision::Skip { reason },
            Some(Flow::Terminate { reason }) => PromptDecision::Terminate { reason },
            Some(other) => PromptDecision::Terminate {
                reason: unexpected(other, Phase::UserPrompt),
            },
            None => PromptDecision::Send {
                prompt: match outcome.prompt.take() {
                    Some(rewritten) => rewritten,
                    None => Cow::Borrowed(prompt),
                },
            },
        };
        Decided::new(decision, outcome)
    }

    /// Folds a `before_completion` event for `request` (provider JSON form).
    ///
    /// # Cancel safety
    ///
    /// As [`HookStack::fold`].
    pub async fn before_completion(
        &self,
        ctx: &HookContext,
        request: &Value,
    ) -> Decided<CompletionDecision> {
        let mut outcome = self
            .fold(ctx, StepEvent::BeforeCompletion { request })
            .await;
        let decision = match outcome.decision.take() {
            Some(Flow::Terminate { reason }) => CompletionDecision::Terminate { reason },
            Some(other) => CompletionDecision::Terminate {
                reason: unexpected(other, Phase::BeforeCompletion),
            },
            None => CompletionDecision::Send {
                patch: std::mem::take(&mut outcome.patch),
            },
        };
        Decided::new(decision, outcome)
    }

    /// Folds a `before_tool` event for `call`.
    ///
    /// # Cancel safety
    ///
    /// As [`HookStack::fold`].
    pub async fn before_tool<'a>(
        &self,
        ctx: &HookContext,
        call: ToolCall<'a>,
    ) -> Decided<ToolDecision<'a>> {
        let event = StepEvent::BeforeTool {
            tool_name: call.tool_name,
            call_id: call.call_id,
            args: call.args,
        };
        let mut outcome = self.fold(ctx, event).await;
        let args = match outcome.args.take() {
            Some(rewritten) => Cow::Owned(rewritten),
            None => Cow::Borrowed(call.args),
        };
        let decision = ToolDecision::of(outcome.decision.take().unwrap_or_default(), args);
        Decided::new(decision, outcome)
    }

    /// The decision of [`HookStack::before_tool`] for `call` when the
    /// stack decides without a fold ([`AgentHook::decide_now`](crate::AgentHook::decide_now)): no hook
    /// needs the run's context and none answers with more than a flow. The
    /// deciding hook's report and provenance entry are not built (nor any
    /// span: with a `tracing` subscriber enabling `info` set the answer is `None`), so a
    /// caller that shows reports folds. Only `Run` with the model's
    /// arguments, `Skip` and `Terminate` come from here: a rewrite or an
    /// ask always goes through the fold. `None`: call
    /// [`HookStack::before_tool`] (docs/embedding.md says when the answer
    /// is `None`).
    #[inline]
    pub fn before_tool_now<'a>(&self, call: ToolCall<'a>) -> Option<ToolDecision<'a>> {
        let event = StepEvent::BeforeTool {
            tool_name: call.tool_name,
            call_id: call.call_id,
            args: call.args,
        };
        self.decide_now(&event)
            .map(|flow| ToolDecision::of(flow, Cow::Borrowed(call.args)))
    }

    /// Folds an `after_tool` event: `call` carries the arguments the tool
    /// ran with, `original_args` those the model sent (before `before_tool`
    /// rewrites; pass `call.args` again when nothing was rewritten).
    ///
    /// # Cancel safety
    ///
    /// As [`HookStack::fold`].
    pub async fn after_tool<'a>(
        &self,
        ctx: &HookContext,
        call: ToolCall<'_>,
        original_args: &Value,
        result: &'a Value,
        outcome: &ToolOutcome,
    ) -> Decided<AfterToolDecision<'a>> {
        let event = StepEvent::AfterTool {
            tool_name: call.tool_name,
            call_id: call.call_id,
            args: call.args,
            original_args,
            result,
            outcome,
            duration_ms: None,
        };
        self.after_tool_fold(ctx, event, result).await
    }

    /// Folds an `after_tool` event the agent built itself, with what it
    /// reports beside the call (the tool's `duration_ms`); otherwise as
    /// [`HookStack::after_tool`]. Any other event is not folded: the
    /// decision terminates, naming it (fail closed), and the result is
    /// `null`.
    ///
    /// # Cancel safety
    ///
    /// As [`HookStack::fold`].
    pub async fn after_tool_event<'a>(
        &self,
        ctx: &HookContext,
        event: StepEvent<'a>,
    ) -> Decided<AfterToolDecision<'a>> {
        let StepEvent::AfterTool { result, .. } = event else {
            let decision = AfterToolDecision {
                result: Cow::Owned(Value::Null),
                terminate: Some(not_this(event, "after_tool_event", "an `after_tool`")),
            };
            return Decided::new(decision, Fold::new(event).finish());
        };
        self.after_tool_fold(ctx, event, result).await
    }

    /// The fold of an `after_tool` `event` whose result is `result`.
    async fn after_tool_fold<'a>(
        &self,
        ctx: &HookContext,
        event: StepEvent<'_>,
        result: &'a Value,
    ) -> Decided<AfterToolDecision<'a>> {
        let mut folded = self.fold(ctx, event).await;
        let terminate = match folded.decision.take() {
            Some(Flow::Terminate { reason }) => Some(reason),
            Some(other) => Some(unexpected(other, Phase::AfterTool)),
            None => None,
        };
        let decision = AfterToolDecision {
            result: match folded.result.take() {
                Some(rewritten) => Cow::Owned(rewritten),
                None => Cow::Borrowed(result),
            },
            terminate,
        };
        Decided::new(decision, folded)
    }

    /// Folds an `invalid_tool_call` event. When every hook continues, the
    /// decision is [`InvalidCallDecision::Fail`].
    ///
    /// # Cancel safety
    ///
    /// As [`HookStack::fold`].
    pub async fn invalid_tool_call(
        &self,
        ctx: &HookContext,
        tool_name: &str,
        call_id: &str,
        raw_args: &str,
        error: &str,
    ) -> Decided<InvalidCallDecision> {
        let event = StepEvent::InvalidToolCall {
            tool_name,
            call_id,
            raw_args,
            error,
        };
        let mut outcome = self.fold(ctx, event).await;
        let decision = match outcome.decision.take() {
            None | Some(Flow::Fail) => InvalidCallDecision::Fail,
            Some(Flow::Retry { feedback }) => InvalidCallDecision::Retry { feedback },
            Some(Flow::Repair { tool_name, args }) => {
                InvalidCallDecision::Repair { tool_name, args }
            }
            Some(Flow::Skip { reason }) => InvalidCallDecision::Skip { reason },
            Some(Flow::Terminate { reason }) => InvalidCallDecision::Terminate { reason },
            Some(other) => InvalidCallDecision::Terminate {
                reason: unexpected(other, Phase::InvalidToolCall),
            },
        };
        Decided::new(decision, outcome)
    }

    /// Folds a `permission_request` event for `call` (the agent is about
    /// to ask for approval); `suggestions` are the "always allow" options
    /// it would offer (`Value::Null` when none). When no hook decides, the
    /// decision is [`PermissionDecision::Ask`] without a reason: the
    /// agent's approver decides, as it would without hooks.
    ///
    /// # Cancel safety
    ///
    /// As [`HookStack::fold`].
    pub async fn permission_request<'a>(
        &self,
        ctx: &HookContext,
        call: ToolCall<'a>,
        suggestions: &Value,
    ) -> Decided<PermissionDecision<'a>> {
        let event = StepEvent::PermissionRequest {
            tool_name: call.tool_name,
            call_id: call.call_id,
            args: call.args,
            suggestions,
        };
        let mut outcome = self.fold(ctx, event).await;
        let args = match outcome.args.take() {
            Some(rewritten) => Cow::Owned(rewritten),
            None => Cow::Borrowed(call.args),
        };
        let decision = match outcome.decision.take() {
            None => PermissionDecision::Ask { reason: None, args },
            Some(Flow::Allow) => PermissionDecision::Allow { args },
            Some(Flow::Ask { reason }) => PermissionDecision::Ask {
                reason: Some(reason),
                args,
            },
            Some(Flow::Skip { reason }) => PermissionDecision::Deny { reason },
            Some(Flow::Terminate { reason }) => PermissionDecision::Terminate { reason },
            Some(other) => PermissionDecision::Terminate {
                reason: unexpected(other, Phase::PermissionRequest),
            },
        };
        Decided::new(decision, outcome)
    }

    /// Folds a `before_compaction` event (`trigger`: `manual` or `auto`;
    /// `instructions`: the user's, empty for `auto`).
    ///
    /// # Cancel safety
    ///
    /// As [`HookStack::fold`].
    pub async fn before_compaction(
        &self,
        ctx: &HookContext,
        trigger: &str,
        instructions: &str,
    ) -> Decided<CompactionDecision> {
        let event = StepEvent::BeforeCompaction {
            trigger,
            instructions,
        };
        let mut outcome = self.fold(ctx, event).await;
        let decision = match outcome.decision.take() {
            None => CompactionDecision::Compact,
            Some(Flow::Skip { reason }) => CompactionDecision::Skip { reason },
            Some(Flow::Terminate { reason }) => CompactionDecision::Terminate { reason },
            Some(other) => CompactionDecision::Terminate {
                reason: unexpected(other, Phase::BeforeCompaction),
            },
        };
        Decided::new(decision, outcome)
    }

    /// Folds any other event (`run_start`, `after_model_select`,
    /// `after_completion`, deltas,
    /// `stream_finish`, `after_reasoning`, `after_assistant`,
    /// `after_tool_batch`, `notification`, `subagent_start`,
    /// `after_compaction`, `run_end`, `run_error`): hooks may only inject
    /// context (where the phase honours it) or terminate.
    ///
    /// Events with a dedicated method should go through it; given one here,
    /// a decision [`Observed`] cannot carry (a rewrite, a patch, a skip, ...)
    /// fails closed as `terminate`, never silently dropped, and an
    /// `invalid_tool_call` on which every hook continued does not terminate.
    ///
    /// # Cancel safety
    ///
    /// As [`HookStack::fold`].
    pub async fn observe(&self, ctx: &HookContext, event: StepEvent<'_>) -> Decided<Observed> {
        let mut outcome = self.fold(ctx, event).await;
        let terminate = match outcome.decision.take() {
            None => None,
            Some(Flow::Terminate { reason }) => Some(reason),
            Some(other) => Some(not_observable(other.kind().as_str(), event)),
        };
        let terminate = terminate.or_else(|| {
            let dropped = if !outcome.patch.is_empty() {
                Some("patch_request")
            } else if outcome.args.is_some() {
                Some("rewrite_args")
            } else if outcome.result.is_some() {
                Some("rewrite_result")
            } else if outcome.prompt.is_some() {
                Some("rewrite_prompt")
            } else if outcome.model.is_some() {
                Some("select_model")
            } else {
                None
            };
            dropped.map(|flow| not_observable(flow, event))
        });
        let decision = Observed { terminate };
        Decided::new(decision, outcome)
    }
}

/// The reason a driver method `method`, which takes `wanted` event, gives
/// for `event` of another phase.
fn not_this(event: StepEvent<'_>, method: &str, wanted: &str) -> Text {
    format!(
        "`HookStack::{method}` takes {wanted} event, not `{}`",
        event.kind()
    )
    .into()
}

fn not_observable(flow: &str, event: StepEvent<'_>) -> Text {
    format!(
        "flow `{flow}` on `{}` cannot be applied through `observe`; the run is terminated (fail closed); use the event's own method",
        event.kind()
    )
    .into()
}

/// The reason for a decision the fold cannot produce on `phase`:
/// [`Fold::apply`](crate::Fold::apply) lets only flows the phase honours stop
/// the stack, so this is unreachable unless the fold has a bug; even then the
/// driver fails closed rather than panicking in an agent's loop. Takes the
/// flow by value, so that the callers' matches drop no flow themselves (a
/// call to `Flow`'s drop glue on every decision).
#[cold]
fn unexpected(flow: Flow, phase: Phase) -> Text {
    format!(
        "the fold produced flow `{}`, which `{phase}` cannot honour; the run is terminated (fail closed)",
        flow.kind()
    )
    .into()
}
