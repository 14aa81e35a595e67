//! `hooks-rig`: agent-hooks inside a [rig](https://docs.rs/rig-agent) agent.
//!
//! [`RigHooks`] turns any of our hooks — the type `hooks!` generates, a
//! [`Dispatcher`](hooks_runtime::Dispatcher) over a loaded
//! [`Table`](hooks_runtime::Table), a [`HookStack`] mixing config rules and
//! Rust hooks — into one rig [`AgentHook`](rig_agent::agent::AgentHook).
//! Push it into an agent with `AgentBuilder::add_hook`. Users who do not use
//! rig do not depend on this crate.
//!
//! ```no_run
//! use std::path::Path;
//! use std::sync::Arc;
//!
//! use hooks_rig::RigHooks;
//! use hooks_runtime::{Dispatcher, HookStack, Table, TableRef, TrustStore};
//!
//! // A config loaded at run time must be trusted first (`agent-hooks trust`).
//! let trust = TrustStore::open(TrustStore::default_path().ok_or("no config dir")?)?;
//! let table = Table::load("hooks.yaml", Path::new("."), &trust)?;
//! let config = Dispatcher::new(TableRef::Shared(Arc::new(table)));
//! let hooks = RigHooks::new(HookStack::new().with("hooks.yaml", config));
//! // rig_agent::AgentBuilder::new(model).add_hook(hooks).build();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `run` rules need a shell runtime: bind one with
//! [`Dispatcher::with_shell`](hooks_runtime::Dispatcher::with_shell) (or the
//! generated type's `with_shell`), built by
//! [`Table::shell_runtime`](hooks_runtime::Table::shell_runtime) for the
//! config's limits (the stop-resume cap among them). `cargo run --example
//! rig_agent` in the workspace shows a whole agent.
//!
//! # Mapping
//!
//! Every rig hook point folds our phases through the stack's driver methods
//! ([`HookStack::before_tool`], [`HookStack::stop`], ...) and answers with
//! the rig action for the typed decision (a tool dispatch the hooks decide
//! without a fold takes [`HookStack::before_tool_now`]'s decision instead;
//! see *Cost per event*):
//!
//! | rig hook point | our phases | our decision → rig action |
//! | --- | --- | --- |
//! | `on_run_start` | `run_start`, then `user_prompt` | prompt rewrite → `RunStartAction::Rewrite`; skip, terminate → `Stop`; `run_start` context → the first request |
//! | `on_completion_call` | `before_completion` | request patch → `CompletionCallAction::Patch` (preamble, temperature, max tokens, tool choice, active tools, additional params, extra context as documents, history: `keep_last` or a replacement list; `model` → the selection below); context injected by earlier phases → extra context documents of this request; terminate → `Stop` |
//! | `on_completion_call`, then `on_model_select` | `before_model_select`, then (the model changes) `after_model_select` | a chosen model (`select_model`, or the patch's `model`) → `ModelSelectionAction::Select` of that label; block → `Select` of the model in use (the previous call's, else rig's default); terminate → `CompletionCallAction::Stop`; `after_model_select` context → this request |
//! | `on_dispatch` (tool call) | `before_tool`; on `ask`: `permission_request`, then the [`Approver`] | skip → `Deny` with the reason as the tool result the model sees; args rewrite → `Patch`; ask → allowed by a `permission_request` hook or the approver, else denied (fail closed, no approver: denied); terminate → `Deny` with a `Cancelled` report (the run stops) |
//! | `on_outcome` (tool call) | `after_tool` | result rewrite → `OutcomeAction::Replace`; terminate → `OutcomeAction::stop` |
//! | `on_outcome` (completion) | `after_completion` | terminate → `OutcomeAction::stop` |
//! | `on_model_turn_finished` | `after_reasoning`, `after_assistant`, then (tool-free turn) `stop` | resume → `ModelTurnAction::Retry` with the reason as feedback, under our stop-resume cap (`loop_count` = resumes so far in this run); terminate → `Stop` |
//! | `on_invalid_tool_call` | `invalid_tool_call` | `Fail`, `Retry { feedback }`, `Repair { tool_name }`, skip → `Skip { reason }`; a repair with corrected arguments → `Skip` whose reason (the call's result) names the tool and the arguments for the model to call (rig 0.44 repairs only a name, and a `Retry` needs a retry budget the agent may not have); terminate → `Stop`; no hook decided → `None` (rig's own policy) |
//! | `on_text_delta`, `on_tool_call_delta` | `text_delta`, `tool_call_delta` | terminate → `ObservationAction::Stop` |
//! | `on_run_settled` | `run_end` (reason `other`) or `run_error` | observe only (the run is over) |
//! | `observes` | the phases above | a rig hook point is observed only when the stack has hooks for one of its phases |
//!
//! Context a hook injects (`inject_context`) is delivered as extra context
//! documents of the next completion request (rig patches are per turn: the
//! context is not repeated in later requests).
//!
//! # Model selection
//!
//! rig selects the model of every model call in `on_model_select`, after
//! the completion-call hooks; that hook is synchronous and must not block,
//! so no shell or http hook can run in it. The adapter therefore folds
//! `before_model_select` at the end of `on_completion_call` (the same
//! step, just before) and only hands the decision to rig in
//! `on_model_select`. The selection the hooks see is `{"from", "to",
//! "source": "call"}`: `from` the model of the previous call (rig's
//! default before the first), `to` the model the call goes to unless a
//! hook chooses another (the patch's `model`, else rig's default). Labels
//! are rig's `ModelRef`s: a chosen model must be registered on the agent
//! (`AgentBuilder::model_route`), else rig fails the run. rig's default
//! model label is learned at its first selection; name it with
//! [`RigHooks::with_model`] for the first call's hooks to see it.
//! `after_model_select` fires when the call's model (as far as our hooks
//! chose it) differs from the previous call's. A rig hook registered after
//! ours can still select another model: the adapter's `from` is then what
//! it chose, not what ran.
//!
//! What rig has and we do not map (left to rig, never observed):
//! reasoning deltas
//! (`on_reasoning_delta`), and the dispatch of non-tool effects (embedding,
//! reranking, memory, retrieval, custom).
//!
//! What we have and rig does not raise: `permission_request` (rig has no
//! permission prompts: the adapter raises one only when a `before_tool`
//! hook asks), `after_tool_batch`, `stream_finish`, `notification`,
//! `subagent_start` / `subagent_stop` (a rig sub-agent is a tool: wrap its
//! agent in its own [`RigHooks`]), `before_compaction` / `after_compaction`
//! (rig does not compact). Hooks on those phases never fire inside rig.
//!
//! # Cost per event
//!
//! A rig hook point whose phases have no hook costs one check
//! ([`observes`](rig::AgentHook::observes) says `false`). Otherwise the
//! adapter builds only the payload some hook reads
//! ([`AgentHook::reads_payload`](hooks_runtime::AgentHook::reads_payload):
//! a config rule reads it when its `when` has a pointer or its action is
//! `run`, `http`, `policy` or `rewrite`; a Rust hook, whenever it observes
//! the phase); hooks that read none see `null`. A `before_completion`
//! request that is read is kept per run and only the messages appended
//! since the previous completion call are converted: its cost does not
//! grow with the conversation (but for a comparison of rig's messages with
//! those converted before, checking that the history only grew).
//!
//! A tool call the hooks decide without a fold
//! ([`HookStack::before_tool_now`](hooks_runtime::HookStack::before_tool_now):
//! every hook observing `before_tool` answers at once, as a table without
//! a shell runtime does when no rule matches or its first matching rule
//! blocks or terminates) costs no per-run state, no report and no boxed
//! future. With an [`RigHooks::on_applied`] callback the adapter always
//! folds, since the callback sees each hook's report.
//!
//! # Reporting
//!
//! [`RigHooks::on_applied`] registers a callback that sees, per folded
//! event, what the adapter told rig and each consulted hook's report (for a
//! transcript or metrics). Its text is redacted
//! ([`hooks_runtime::redact_sensitive_text`]).

mod ask;
mod convert;
mod dispatch;
mod invalid;
mod model;
mod state;

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use hooks_runtime::AgentHook as _;
use hooks_runtime::{
    Approver, ContextList, Decided, HookStack, Observed, ReportList, SecretSet, StepEvent,
    StepEventKind as Phase, StopDecision, ToolCall, redact_sensitive_text,
};
use rig_agent::agent as rig;
use rig_core::effect::{EffectKind, Outcome};
use rig_core::message::CallId;
use serde_json::Value;

use crate::convert::{ConvertError, prompt_text, tool_outcome, tool_result_json};
use crate::state::RunState;

/// What the adapter did for one folded event: given to the callback of
/// [`RigHooks::on_applied`].
#[derive(Debug, Clone, Copy)]
pub struct Applied<'a> {
    /// Our phase that was folded.
    pub phase: Phase,
    /// The tool, for tool phases.
    pub tool_name: Option<&'a str>,
    /// What the adapter told rig, e.g. `deny: <reason>`, `patch: temperature,
    /// max_tokens`, `retry: <feedback>`, `continue` (redacted text).
    pub action: &'a str,
    /// One report per consulted hook, in order.
    pub reports: &'a ReportList,
    /// The context the hooks injected (delivered with the next request).
    pub context: &'a ContextList,
}

type AppliedFn = dyn Fn(&Applied<'_>) + Send + Sync;

/// Our hooks as one rig [`AgentHook`](rig::AgentHook); see the crate docs
/// for the mapping.
///
/// Cheap to clone (the stack and the callbacks are shared). Per-run state
/// (our [`HookContext`](hooks_runtime::HookContext), pending context, the
/// stop-resume count) lives in the rig run's scratchpad, so one `RigHooks`
/// serves concurrent runs.
#[derive(Clone)]
pub struct RigHooks {
    stack: Arc<HookStack>,
    approver: Option<Arc<dyn Approver>>,
    applied: Option<Arc<AppliedFn>>,
    secrets: Arc<SecretSet>,
    default_model: Arc<model::DefaultModel>,
}

impl fmt::Debug for RigHooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RigHooks")
            .field("stack", &self.stack)
            .field("approver", &self.approver.is_some())
            .finish_non_exhaustive()
    }
}

impl RigHooks {
    /// The adapter over `stack`, without an approver (a hook's `ask` is
    /// denied unless a `permission_request` hook allows the call).
    pub fn new(stack: HookStack) -> Self {
        RigHooks {
            stack: Arc::new(stack),
            approver: None,
            applied: None,
            secrets: Arc::new(SecretSet::new()),
            default_model: Arc::default(),
        }
    }

    /// The adapter over one hook (a `hooks!` type, a
    /// [`Dispatcher`](hooks_runtime::Dispatcher), a Rust hook) under `id`.
    pub fn from_hook(
        id: impl Into<hooks_runtime::HookId>,
        hook: impl hooks_runtime::AgentHook + 'static,
    ) -> Self {
        RigHooks::new(HookStack::new().with(id, hook))
    }

    /// Resolves asks (`before_tool` `ask` no `permission_request` hook
    /// decided) with `approver`.
    #[must_use]
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// Calls `f` after each folded event with what the adapter did
    /// ([`Applied`]). `f` runs inside the rig hook: keep it quick.
    #[must_use]
    pub fn on_applied(mut self, f: impl Fn(&Applied<'_>) + Send + Sync + 'static) -> Self {
        self.applied = Some(Arc::new(f));
        self
    }

    /// Redacts `secrets` (besides credential-like text) from what
    /// [`RigHooks::on_applied`] callbacks see.
    #[must_use]
    pub fn with_secrets(mut self, secrets: SecretSet) -> Self {
        self.secrets = Arc::new(secrets);
        self
    }

    /// The stack the adapter folds.
    pub fn stack(&self) -> &HookStack {
        &self.stack
    }

    /// Whether any of our `phases` has a hook.
    fn any(&self, phases: &[Phase]) -> bool {
        phases.iter().any(|p| self.stack.observes(*p))
    }

    /// Tells the `on_applied` callback what the adapter did with `decided`.
    fn report<D>(&self, phase: Phase, tool_name: Option<&str>, action: &str, decided: &Decided<D>) {
        if let Some(f) = &self.applied {
            let action = redact_sensitive_text(action, &self.secrets);
            f(&Applied {
                phase,
                tool_name,
                action: &action,
                reports: &decided.reports,
                context: &decided.context,
            });
        }
    }

    /// Folds an observe-only event; keeps its context; the termination
    /// reason when a hook ended the run.
    async fn observe(
        &self,
        run: &RunState,
        turn: &hooks_runtime::HookContext,
        event: StepEvent<'_>,
    ) -> Option<String> {
        let phase = event.kind();
        if !self.stack.observes(phase) {
            return None;
        }
        let decided = self.stack.observe(turn, event).await;
        run.push_context(&decided.context);
        let Observed { terminate } = &decided.decision;
        let action = match terminate {
            Some(reason) => format!("stop: {reason}"),
            None => String::from("continue"),
        };
        self.report(phase, event.tool_name(), &action, &decided);
        terminate.as_ref().map(|r| r.to_string())
    }
}

/// The phases whose context the next completion request carries.
const CONTEXT_PHASES: [Phase; 9] = [
    Phase::RunStart,
    Phase::UserPrompt,
    Phase::BeforeTool,
    Phase::AfterCompletion,
    Phase::AfterReasoning,
    Phase::AfterAssistant,
    Phase::AfterTool,
    Phase::Stop,
    Phase::InvalidToolCall,
];

/// Our phases behind each rig hook point (see the crate docs' table).
fn phases_of(kind: rig::StepEventKind) -> &'static [Phase] {
    use rig::StepEventKind as K;
    match kind {
        K::RunStart => &[Phase::RunStart, Phase::UserPrompt],
        K::RunSettled => &[Phase::RunEnd, Phase::RunError],
        K::ToolDispatch => &[
            Phase::BeforeTool,
            Phase::PermissionRequest,
            Phase::AfterTool,
        ],
        K::CompletionDispatch => &[Phase::AfterCompletion],
        K::ModelTurnFinished => &[Phase::AfterReasoning, Phase::AfterAssistant, Phase::Stop],
        K::InvalidToolCall => &[Phase::InvalidToolCall],
        K::TextDelta => &[Phase::TextDelta],
        K::ToolCallDelta => &[Phase::ToolCallDelta],
        // Completion calls also deliver the context of the phases above.
        K::CompletionCall => &[
            Phase::BeforeCompletion,
            Phase::BeforeModelSelect,
            Phase::AfterModelSelect,
        ],
        _ => &[],
    }
}

/// A tool call's arguments as JSON (text that is not JSON as a string).
fn args_json(args: &str) -> Value {
    serde_json::from_str(args).unwrap_or_else(|_| Value::String(args.to_owned()))
}

impl rig::AgentHook for RigHooks {
    fn name(&self) -> Option<String> {
        Some(String::from("agent-hooks"))
    }

    async fn on_run_start(
        &self,
        ctx: &rig::HookContext,
        event: rig::RunStart<'_>,
    ) -> rig::RunStartAction {
        let run = RunState::of(ctx);
        let turn = run.turn(ctx);
        if let Some(reason) = self.observe(&run, &turn, StepEvent::RUN_START).await {
            return rig::RunStartAction::stop(reason);
        }
        if !self.stack.observes(Phase::UserPrompt) {
            return rig::RunStartAction::continue_run();
        }
        let text = prompt_text(event.prompt);
        let decided = self.stack.user_prompt(&turn, &text).await;
        run.push_context(&decided.context);
        let (action, label) = match &decided.decision {
            hooks_runtime::PromptDecision::Send { prompt } => match prompt {
                std::borrow::Cow::Owned(rewritten) => (
                    rig::RunStartAction::rewrite(rig_core::message::Message::user(
                        rewritten.clone(),
                    )),
                    format!("rewrite prompt: {rewritten}"),
                ),
                std::borrow::Cow::Borrowed(_) => (
                    rig::RunStartAction::continue_run(),
                    String::from("continue"),
                ),
            },
            hooks_runtime::PromptDecision::Skip { reason }
            | hooks_runtime::PromptDecision::Terminate { reason } => (
                rig::RunStartAction::stop(reason.to_string()),
                format!("stop: {reason}"),
            ),
        };
        self.report(Phase::UserPrompt, None, &label, &decided);
        action
    }

    async fn on_completion_call(
        &self,
        ctx: &rig::HookContext,
        event: rig::CompletionCallEvent<'_>,
    ) -> rig::CompletionCallAction {
        let run = RunState::of(ctx);
        let turn = run.turn(ctx);
        let mut patch = rig::RequestPatch::new();
        let mut label = String::new();
        let mut requested = None;
        if self.stack.observes(Phase::BeforeCompletion) {
            // Hooks that read no request see `null`; others the request,
            // converted only where it changed since the run's last call.
            let mut request = None;
            if self.stack.reads_payload(Phase::BeforeCompletion) {
                let mut kept = run.take_request();
                kept.update(event.prompt, event.history, event.turn);
                request = Some(kept);
            }
            let json = request
                .as_ref()
                .map_or(&Value::Null, convert::Request::json);
            let decided = self.stack.before_completion(&turn, json).await;
            if let Some(request) = request {
                run.keep_request(request);
            }
            match &decided.decision {
                hooks_runtime::CompletionDecision::Send { patch: ours } => {
                    match convert::request_patch(ours, event.history) {
                        Ok(converted) => {
                            if !ours.is_empty() {
                                let fields: Vec<_> = ours.fields().map(|f| f.as_str()).collect();
                                label = format!("patch: {}", fields.join(", "));
                            }
                            patch = converted;
                            requested = ours.model.as_deref().map(str::to_owned);
                        }
                        Err(ConvertError(why)) => {
                            let reason =
                                format!("hooks-rig: the request patch cannot apply: {why}");
                            self.report(
                                Phase::BeforeCompletion,
                                None,
                                &format!("stop: {reason}"),
                                &decided,
                            );
                            return rig::CompletionCallAction::stop(reason);
                        }
                    }
                }
                hooks_runtime::CompletionDecision::Terminate { reason } => {
                    self.report(
                        Phase::BeforeCompletion,
                        None,
                        &format!("stop: {reason}"),
                        &decided,
                    );
                    return rig::CompletionCallAction::stop(reason.to_string());
                }
            }
            if label.is_empty() {
                label.push_str("continue");
            }
            self.report(Phase::BeforeCompletion, None, &label, &decided);
        }
        if self.selects(requested.as_deref())
            && let Some(reason) = self.select_model(&run, &turn, requested.as_deref()).await
        {
            return rig::CompletionCallAction::stop(reason);
        }
        let pending = run.take_context();
        if !pending.is_empty() {
            patch = patch.extra_context(convert::documents(&pending, "hook-context"));
        }
        if patch.is_empty() {
            rig::CompletionCallAction::continue_run()
        } else {
            rig::CompletionCallAction::patch(patch)
        }
    }

    fn on_model_select(
        &self,
        ctx: &rig::HookContext,
        event: rig::ModelSelection<'_>,
    ) -> rig::ModelSelectionAction {
        self.model_action(&RunState::of(ctx), &event)
    }

    /// Answers without a fold when the hooks decide at once (no
    /// `on_applied` callback; see the crate docs, *Cost per event*),
    /// else folds (`dispatch.rs`). The future is `dispatch`'s own: a
    /// wrapping `async fn` would copy rig's 400-byte action once more.
    fn on_dispatch(
        &self,
        ctx: &rig::HookContext,
        event: rig::DispatchEvent<'_>,
    ) -> impl Future<Output = rig::DispatchAction> + Send {
        self.dispatch(ctx, event)
    }

    async fn on_outcome(
        &self,
        ctx: &rig::HookContext,
        event: rig::OutcomeEvent<'_>,
    ) -> rig::OutcomeAction {
        match (event.kind, event.outcome) {
            (EffectKind::ToolCall { name, args }, Ok(Outcome::ToolResult { result })) => {
                // Without `after_tool` hooks the dispatch kept nothing.
                if !self.stack.observes(Phase::AfterTool) {
                    return rig::OutcomeAction::proceed();
                }
                let run = RunState::of(ctx);
                let original = run.take_original(event.id);
                if run.take_denied(event.id) || result.is_skipped() {
                    return rig::OutcomeAction::proceed();
                }
                let turn = run.turn(ctx);
                // Hooks that read no payload see `null` arguments and result.
                let reads = self.stack.reads_payload(Phase::AfterTool);
                let ran = if reads { args_json(args) } else { Value::Null };
                let original = match original {
                    Some(original) if reads => original,
                    _ => ran.clone(),
                };
                let call_id = event.call_id.map_or(Cow::Borrowed(""), CallId::wire);
                let call = ToolCall {
                    tool_name: name,
                    call_id: &call_id,
                    args: &ran,
                };
                let value = if reads {
                    tool_result_json(result)
                } else {
                    Value::Null
                };
                let outcome = tool_outcome(result);
                let decided = self
                    .stack
                    .after_tool(&turn, call, &original, &value, &outcome)
                    .await;
                run.push_context(&decided.context);
                let (action, label) = if let Some(reason) = &decided.decision.terminate {
                    (
                        rig::OutcomeAction::stop(reason.to_string()),
                        format!("stop: {reason}"),
                    )
                } else if let Cow::Owned(rewritten) = &decided.decision.result {
                    (
                        rig::OutcomeAction::rewrite_tool_output(
                            &event,
                            convert::tool_output(rewritten),
                        ),
                        format!("replace result: {}", convert::brief(rewritten)),
                    )
                } else {
                    (rig::OutcomeAction::proceed(), String::from("proceed"))
                };
                self.report(Phase::AfterTool, Some(name), &label, &decided);
                action
            }
            (EffectKind::Completion { .. }, Ok(Outcome::Completion(response)))
                if self.stack.observes(Phase::AfterCompletion) =>
            {
                let run = RunState::of(ctx);
                let turn = run.turn(ctx);
                let response = if self.stack.reads_payload(Phase::AfterCompletion) {
                    convert::response_json(&response.choice)
                } else {
                    Value::Null
                };
                match self
                    .observe(
                        &run,
                        &turn,
                        StepEvent::AfterCompletion {
                            response: &response,
                        },
                    )
                    .await
                {
                    Some(reason) => rig::OutcomeAction::stop(reason),
                    None => rig::OutcomeAction::proceed(),
                }
            }
            _ => rig::OutcomeAction::proceed(),
        }
    }

    async fn on_model_turn_finished(
        &self,
        ctx: &rig::HookContext,
        event: rig::ModelTurnFinished<'_>,
    ) -> rig::ModelTurnAction {
        let run = RunState::of(ctx);
        let turn = run.turn(ctx);
        let (text, reasoning, has_calls) = convert::turn_content(event.content);
        if !reasoning.is_empty()
            && let Some(reason) = self
                .observe(
                    &run,
                    &turn,
                    StepEvent::AfterReasoning {
                        reasoning: &reasoning,
                    },
                )
                .await
        {
            return rig::ModelTurnAction::stop(reason);
        }
        if let Some(reason) = self
            .observe(&run, &turn, StepEvent::AfterAssistant { text: &text })
            .await
        {
            return rig::ModelTurnAction::stop(reason);
        }
        if has_calls || !self.stack.observes(Phase::Stop) {
            return rig::ModelTurnAction::continue_run();
        }
        let resumes = run.resumes();
        let decided = self.stack.stop(&turn, resumes, &text).await;
        run.push_context(&decided.context);
        let (action, label) = match &decided.decision {
            StopDecision::Resume { reason } => {
                run.count_resume();
                (
                    rig::ModelTurnAction::retry_with_feedback(reason.to_string()),
                    format!("retry ({}): {reason}", resumes + 1),
                )
            }
            StopDecision::Capped { cap, resumes, .. } => (
                rig::ModelTurnAction::continue_run(),
                format!(
                    "continue (capped: {resumes} resume(s), the cap is {cap}; the stop hooks were not run)"
                ),
            ),
            StopDecision::Stop => (
                rig::ModelTurnAction::continue_run(),
                String::from("continue"),
            ),
            StopDecision::Terminate { reason } => (
                rig::ModelTurnAction::stop(reason.to_string()),
                format!("stop: {reason}"),
            ),
        };
        self.report(Phase::Stop, None, &label, &decided);
        action
    }

    async fn on_invalid_tool_call(
        &self,
        ctx: &rig::HookContext,
        event: &rig::InvalidToolCallContext,
    ) -> Option<rig::InvalidToolCallAction> {
        self.invalid_tool_call(ctx, event).await
    }

    async fn on_text_delta(
        &self,
        ctx: &rig::HookContext,
        event: rig::TextDelta<'_>,
    ) -> rig::ObservationAction {
        let run = RunState::of(ctx);
        let turn = run.turn(ctx);
        match self
            .observe(&run, &turn, StepEvent::TextDelta { delta: event.delta })
            .await
        {
            Some(reason) => rig::ObservationAction::stop(reason),
            None => rig::ObservationAction::continue_run(),
        }
    }

    async fn on_tool_call_delta(
        &self,
        ctx: &rig::HookContext,
        event: rig::ToolCallDelta<'_>,
    ) -> rig::ObservationAction {
        let run = RunState::of(ctx);
        let turn = run.turn(ctx);
        let part = format!("{:?}", event.part);
        let delta = StepEvent::ToolCallDelta {
            tool_name: event.tool_name,
            call_id: &part,
            delta: event.delta,
        };
        match self.observe(&run, &turn, delta).await {
            Some(reason) => rig::ObservationAction::stop(reason),
            None => rig::ObservationAction::continue_run(),
        }
    }

    async fn on_run_settled(&self, ctx: &rig::HookContext, event: rig::RunSettled<'_>) {
        let run = RunState::of(ctx);
        let turn = run.turn(ctx);
        match event.outcome {
            rig::SettledOutcome::Response(response) => {
                let output = response.output();
                self.observe(
                    &run,
                    &turn,
                    StepEvent::RunEnd {
                        output: &output,
                        reason: "other",
                    },
                )
                .await;
            }
            rig::SettledOutcome::Error(error) => {
                self.observe(&run, &turn, StepEvent::RunError { error })
                    .await;
            }
        }
    }

    fn observes(&self, kind: rig::StepEventKind) -> bool {
        let context = kind == rig::StepEventKind::CompletionCall && self.any(&CONTEXT_PHASES);
        context || self.any(phases_of(kind))
    }
}
