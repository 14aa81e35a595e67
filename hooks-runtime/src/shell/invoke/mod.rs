//! Hooks outside the agent's code: one invocation is payload → target →
//! protocol → policy → record → [`Flow`].
//!
//! A [`ShellHook`] is a [`ShellHookSpec`] (what the config says about one
//! `run`, `http` or `policy` hook: what every target shares, and its
//! [`HookTarget`]) bound to a shared [`ShellRuntime`] (the executor,
//! records writer, activity sink, session directory, limits and
//! cancellation of a session). It implements [`AgentHook`], so it stacks
//! with in-process hooks in a [`HookStack`](crate::HookStack);
//! [`run_shell_hooks`] runs several of one event directly — concurrently on
//! observe-only phases. A dispatch table builds its rules' specs once and
//! invokes them without a `ShellHook`.
//!
//! [`ShellHook::invoke`] is a pipeline of named steps on one `Call`:
//! `call` (begin, activity, record, report), `execute` (script check,
//! payload, then the target: a process read by its exit code, stdout and
//! stderr, or a policy read by its value), `http` (an HTTP exchange, its
//! body read as the output document), `decide` (context cap, failure
//! policy, mode); `redact_flow` redacts what the output asked for. The
//! stop-resume cap is the driver's ([`HookStack::stop`](crate::HookStack::stop)):
//! it counts per user turn for every kind of hook.

mod background;
mod batch;
mod cache;
mod call;
mod decide;
mod env_file;
mod execute;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "policy")]
mod policy;
mod redact_flow;
mod runtime;
mod slots;
mod spec;
mod validate;

use std::ops::ControlFlow;
use std::sync::Arc;

pub(crate) use self::background::{Background, Job, Start};
pub(crate) use self::batch::join_in_order;
pub use self::batch::run_shell_hooks;
pub(crate) use self::cache::{HookCache, Pin};
pub(crate) use self::decide::{MESSAGE_MAX_CHARS, next_injection};
pub use self::runtime::{HookLimits, ShellRuntime};
pub(crate) use self::slots::event_slots;
pub use self::spec::{CLAUDE_PROJECT_DIR, HookTarget, ProcessTarget, ShellHookSpec};
pub use self::validate::{RewriteMismatch, RewriteSchema};
use crate::core::fold::Fold;
use crate::core::report::HookReport;
use crate::core::telemetry;
use crate::shell::payload::{Json, ToolPathSettings};
use crate::shell::records::HookRecord;
use crate::{
    AgentHook, ContextList, Flow, FoldStep, HookContext, HookFuture, StepEvent, StepEventKind,
};
use call::{Call, Outcome};
use spec::HookTarget as Target;
use tracing::Instrument;

/// A hook's spec and the cache of its invocations, shared: what a dispatch
/// table builds once per `run`, `http` or `policy` rule, and what a
/// background invocation of the rule owns.
pub(crate) type SharedHook = Arc<(ShellHookSpec, HookCache)>;

/// The result of one shell hook invocation.
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    /// The flow to act on (`Continue` in audit mode).
    pub flow: Flow,
    /// Context items to add before acting on `flow`, when the hook's output
    /// asked for both (Claude Code's `additionalContext` beside an allow
    /// with `updatedInput`, a deny or a result rewrite); empty otherwise,
    /// and in audit mode. When the output asked only for context, `flow`
    /// is the `InjectContext` and this is empty.
    pub context: ContextList,
    /// New tool arguments to apply before acting on `flow` (as a
    /// `RewriteArgs`), when the output granted a call with a new input
    /// (Claude Code's PermissionRequest `decision.behavior: "allow"` with
    /// `updatedInput`: `flow` is then `Allow`); `None` otherwise, and in
    /// audit mode.
    pub args: Option<serde_json::Value>,
    /// Environment variables to set before acting on `flow` (as a
    /// `SetEnv`; `run_start` only: the native `env` field, a Claude Code
    /// script's `CLAUDE_ENV_FILE`); empty otherwise, and in audit mode.
    pub env: crate::EnvVars,
    /// The record written for it.
    pub record: HookRecord,
    /// What the invocation decided, its failure (kind and policy), elapsed
    /// time, message and its (redacted) diagnostics
    /// ([`Diagnostic::Hook`](crate::Diagnostic::Hook)), for the operator.
    pub report: HookReport,
}

impl Invocation {
    /// Applies the invocation to `fold`: its context items
    /// ([`Invocation::context`]) first, then its new arguments
    /// ([`Invocation::args`]), its environment variables
    /// ([`Invocation::env`]), then its flow with its report.
    /// Returns `ControlFlow::Break` when the fold is stopped (by this
    /// invocation or an earlier one).
    pub fn fold_into(self, fold: &mut Fold<'_>) -> ControlFlow<()> {
        let hook = &self.report.hook;
        let context = (!self.context.is_empty()).then(|| Flow::InjectContext(self.context));
        let args = self.args.map(Flow::RewriteArgs);
        let env = (!self.env.is_empty()).then(|| Flow::SetEnv(self.env));
        for part in [context, args, env].into_iter().flatten() {
            // One report per invocation, with its flow: a part that
            // stops the fold leaves the flow ignored.
            if fold.apply_part(hook, part).is_break() {
                break;
            }
        }
        fold.apply_reported(self.report, self.flow)
    }

    /// The invocation's diagnostics ([`HookReport::diagnostics`]) as the
    /// (redacted) texts shown to an operator, in order.
    pub fn diagnostics(&self) -> Vec<String> {
        self.report
            .diagnostics
            .iter()
            .map(ToString::to_string)
            .collect()
    }
}

/// A shell hook bound to its session's runtime.
#[derive(Debug, Clone)]
pub struct ShellHook {
    spec: ShellHookSpec,
    runtime: Arc<ShellRuntime>,
    cache: HookCache,
}

impl ShellHook {
    /// Binds `spec` to `runtime`.
    pub fn new(spec: ShellHookSpec, runtime: Arc<ShellRuntime>) -> Self {
        ShellHook {
            spec,
            runtime,
            cache: HookCache::default(),
        }
    }

    /// The spec.
    pub fn spec(&self) -> &ShellHookSpec {
        &self.spec
    }

    /// Runs the hook once for `event` (a `policy` hook evaluates its Rego
    /// policy in place of the command, in process or, under a memory cap,
    /// in the runtime's policy process, see [`RegoPolicy`](crate::RegoPolicy)
    /// and [`ShellRuntime::with_policy_process`]): checks that the scripts the
    /// command names exist (else a `spawn_failed` failure, see
    /// [`hooks_plan::script`]), builds the payload (a writing tool
    /// with an affected path outside the workspace root, or one left
    /// unchecked, is refused there: the hook is not run and answers `skip`,
    /// see [`hooks_plan::PathDiagnosticKind`]), runs the command (a
    /// policy's evaluation has the spec's timeout as its deadline),
    /// parses its output per the protocol, applies the failure policy to
    /// failures and the mode to the result, enforces the context byte cap,
    /// writes the record (and an injection record) and emits activity
    /// events.
    ///
    /// Events of another phase than the spec's return `Continue` without
    /// running anything or writing a record.
    ///
    /// The target runs in one of the runtime's slots
    /// ([`HookLimits::max_concurrent_hooks`]); the spec's timeout counts
    /// from this call, waiting for the slot included (a hook still waiting
    /// at its deadline is `timed_out` without running). A process runs
    /// under the runtime's memory cap, if any ([`HookLimits::memory_bytes`]).
    ///
    /// # Cancel safety
    ///
    /// Dropping the future kills the hook's process group (see
    /// [`Executor::run`](crate::Executor::run)); the payload-ref file, if
    /// any, is removed; no record is written.
    pub async fn invoke(&self, ctx: &HookContext, event: StepEvent<'_>) -> Invocation {
        self.invoke_in(None, ctx, event).await
    }

    /// [`ShellHook::invoke`] as one of a batch of `event`'s hooks sharing
    /// the event's slots `slots` ([`run_shell_hooks`]).
    pub(crate) async fn invoke_in(
        &self,
        slots: Option<&tokio::sync::Semaphore>,
        ctx: &HookContext,
        event: StepEvent<'_>,
    ) -> Invocation {
        let tools = ToolView {
            paths: self.spec.tool_paths.as_ref(),
            rewrite: self.spec.rewrite_schema.as_ref(),
            resolved: None,
        };
        let rt = &self.runtime;
        let batch = Batch {
            slots,
            ..Batch::default()
        };
        invoke(&self.spec, &self.cache, rt, tools, batch, ctx, event)
            .await
            .0
    }

    /// The runtime the hook is bound to.
    pub(crate) fn runtime(&self) -> &ShellRuntime {
        &self.runtime
    }
}

/// What an invocation reads about the event's tool besides its spec: the
/// tool's path settings and the catalogue schema its rewrites must fit. A
/// [`ShellHook`] takes them from its spec; a dispatch table looks them up
/// per event, for the event's tool.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ToolView<'a> {
    /// The tool's path settings (affected paths).
    pub(crate) paths: Option<&'a ToolPathSettings>,
    /// The schema a rewrite of the tool's arguments or result must fit.
    pub(crate) rewrite: Option<&'a RewriteSchema>,
    /// The event's affected paths as dispatch resolved them, when the
    /// arguments are still the ones it resolved.
    pub(crate) resolved: Option<&'a crate::shell::payload::Resolved>,
}

/// How one invocation takes part in its event's hooks.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Batch<'a> {
    /// The event's slots when the invocation is one of a concurrent batch
    /// (`slots.rs`).
    pub(crate) slots: Option<&'a tokio::sync::Semaphore>,
    /// A member of a parallel group of a mutating phase (a table's rules
    /// with `parallel: true`, started at once and folded in declared
    /// order): an answer that chains ([`FlowKind::chains`](hooks_plan::FlowKind::chains),
    /// or new arguments beside a grant) is an `invalid_output` failure,
    /// and the records are rendered but not written: the caller writes
    /// them ([`Deferred::write`]) when it folds the invocation, in declared
    /// order, or drops them with an invocation a decision before it made
    /// moot.
    pub(crate) group: bool,
    /// A background invocation (`async: true`), cancelled by this token
    /// (its run's) instead of the runtime's: it holds no runtime slot
    /// (the background has slots of its own, `background.rs`), an answer
    /// that is not context ([`FlowKind::background`](hooks_plan::FlowKind::background))
    /// is an `invalid_output` failure, and its `injected` record is held
    /// ([`Deferred::injection`]) until the context is delivered.
    pub(crate) background: Option<&'a crate::CancellationToken>,
}

/// What an invocation leaves for its caller to write: the record lines of
/// a parallel group's member ([`Batch::group`]), rendered (redacted with
/// the hook's secrets), and the held injection record of a background
/// invocation ([`Batch::background`]); empty (and unallocated) for any
/// other invocation.
#[derive(Debug, Default)]
pub(crate) struct Deferred {
    pub(crate) lines: Vec<String>,
    pub(crate) injection: Option<Box<crate::shell::records::InjectionRecord>>,
}

impl Deferred {
    /// Writes the lines, in order and with one write, to `rt`'s records
    /// file; lines that cannot be written become a (redacted) diagnostic of
    /// `invocation`'s report, as a record the invocation writes itself does.
    pub(crate) fn write(self, rt: &ShellRuntime, invocation: &mut Invocation) {
        let Some(writer) = &rt.records else {
            return;
        };
        if self.lines.is_empty() {
            return;
        }
        // One write for the invocation's lines.
        let count = self.lines.len() as u64;
        let lines = self.lines.concat();
        if let Err(err) = writer.write_lines(&lines, count) {
            let message = writer.lost_records_message(&err);
            let message = crate::shell::redact::redact_sensitive_text(&message, &rt.secrets);
            invocation
                .report
                .diagnostics
                .push(crate::core::diagnostic::Diagnostic::Hook {
                    hook: invocation.report.hook.clone(),
                    message: message.into_owned(),
                });
        }
    }
}

/// [`ShellHook::invoke`] of `spec` on `runtime`, with `tools` for the
/// event's tool: what a dispatch table calls with the spec (and the
/// `cache` beside it) it built once for a rule. `batch`: how it takes part
/// in the event's hooks; the records of a group member come back unwritten
/// (the [`Deferred`] lines; empty otherwise).
///
/// # Cancel safety
///
/// As [`ShellHook::invoke`].
pub(crate) async fn invoke(
    spec: &ShellHookSpec,
    cache: &HookCache,
    runtime: &ShellRuntime,
    tools: ToolView<'_>,
    batch: Batch<'_>,
    ctx: &HookContext,
    event: StepEvent<'_>,
) -> (Invocation, Deferred) {
    let call = Call::begin(spec, cache, runtime, tools, batch, ctx, &event);
    if event.kind() != spec.phase {
        return (call.not_observed(), Deferred::default());
    }
    let action = spec.target.action_name();
    let config = spec.config.as_deref().unwrap_or_default();
    let layer = spec.layer.as_deref().unwrap_or_default();
    let span = telemetry::hook_span((config, layer), event.kind(), &spec.id, action);
    let (invocation, deferred) = run(call, event, batch.slots).instrument(span.clone()).await;
    // The record's message is redacted with the hook's secrets.
    let message = invocation.record.message.as_deref();
    telemetry::finish(&span, &invocation.report, invocation.flow.kind(), message);
    (invocation, deferred)
}

/// [`invoke`] on an event of the spec's phase, in its span: payload, then
/// the target (a process, an HTTP exchange, a policy), each read by the
/// protocol from what it produced, then the failure policy, the mode and
/// the record.
///
/// The target runs holding a slot of the event (`slots`) and of the
/// runtime, within the hook's deadline ([`Call::take_slots`]).
async fn run<'a>(
    mut call: Call<'a>,
    event: StepEvent<'_>,
    slots: Option<&'a tokio::sync::Semaphore>,
) -> (Invocation, Deferred) {
    call.emit_started();
    let taken = match call.check_script() {
        Err((kind, detail)) => Err(Outcome::Failed(kind, detail)),
        Ok(()) => call.take_slots(slots).await,
    };
    let outcome = match taken {
        Err(outcome) => outcome,
        Ok(_slots) => {
            // The payload is rendered for its target: JSON text for a
            // process and an HTTP body, a value for a policy.
            let outcome = match &call.spec.target {
                Target::Process(process) => match call.build_payload(&event, &Json) {
                    Ok(built) => {
                        let out = call.spawn(process, built).await;
                        let mut outcome = call.read_exit(&event, process, out);
                        if let Outcome::Decided(decision) = &mut outcome {
                            decision.env.append(&mut call.env_set);
                            decision.notes.append(&mut call.env_notes);
                        }
                        outcome
                    }
                    Err(outcome) => *outcome,
                },
                #[cfg(feature = "http")]
                Target::Http(target) => match call.build_payload(&event, &Json) {
                    Ok(built) => {
                        let answer = call.post(target, built).await;
                        call.read_answer(&event, target, answer)
                    }
                    Err(outcome) => *outcome,
                },
                #[cfg(not(feature = "http"))]
                Target::Http(_) => Outcome::Failed(
                    crate::FailureKind::SpawnFailed,
                    crate::http::FEATURE_OFF.to_owned(),
                ),
                #[cfg(feature = "policy")]
                Target::Policy(policy) => match call.policy_process() {
                    Some(process) => match call.build_payload(&event, &Json) {
                        Ok(built) => call.evaluate_in_child(policy, process, built).await,
                        Err(outcome) => *outcome,
                    },
                    None => match call.build_payload(&event, &crate::rego::Input) {
                        Ok(built) => call.evaluate(policy, built).await,
                        Err(outcome) => *outcome,
                    },
                },
                #[cfg(not(feature = "policy"))]
                Target::Policy(_) => Outcome::Failed(
                    crate::FailureKind::PolicyFailed,
                    crate::PolicyEvalError::FeatureOff.to_string(),
                ),
            };
            let outcome = call.refuse_chaining(call.note_memory_limit(outcome));
            call.check_rewrite(call.refuse_decision(outcome))
        }
    };
    let outcome = call.cap_context(outcome);
    let settled = call.apply_failure_policy(outcome);
    let (settled, verdict) = call.apply_mode(settled);
    call.finish(settled, verdict)
}

impl AgentHook for ShellHook {
    /// Runs [`ShellHook::invoke`] and returns its flow (one allocation: the
    /// boxed future). One flow only: context items the output asked for
    /// beside another flow ([`Invocation::context`]) are dropped here; a
    /// [`HookStack`](crate::HookStack) calls [`AgentHook::fold_into`],
    /// which keeps them.
    fn on_event<'a>(&'a self, ctx: &'a HookContext, event: StepEvent<'a>) -> HookFuture<'a> {
        HookFuture::boxed(async move { self.invoke(ctx, event).await.flow })
    }

    /// Runs [`ShellHook::invoke`] and applies its context items
    /// ([`Invocation::context`], first) and its flow with its report to the
    /// caller's fold ([`Invocation::fold_into`]), so a stack keeps both, and
    /// the invocation's failure, timing and diagnostics (one allocation: the
    /// boxed future).
    fn fold_into<'a>(&'a self, ctx: &'a HookContext, fold: &'a mut Fold<'_>) -> FoldStep<'a> {
        FoldStep::boxed(async move {
            let invocation = self.invoke(ctx, fold.event()).await;
            invocation.fold_into(fold)
        })
    }

    /// Only the spec's phase.
    fn observes(&self, kind: StepEventKind) -> bool {
        kind == self.spec.phase
    }
}
