//! `hooks-runtime`: the shared runtime of agent-hooks.
//!
//! Events, `Flow`, `HookStack`, the shared shell executor, payloads, output
//! protocols, records and redaction.
//!
//! # Events, flows and stacks
//!
//! An agent loop emits a [`StepEvent`] at each phase of a run (the canonical
//! phases of [`hooks_plan::Phase`], [`StepEventKind`]). Every hook — a Rust
//! [`AgentHook`], a rule of a compiled config, a shell command — answers
//! with a [`Flow`]. A [`HookStack`] runs hooks in declared order and folds
//! their flows per event: request patches merge field by field
//! ([`RequestPatch`]), rewrites chain, context accumulates, the first
//! decision wins elsewhere, and a flow the event cannot honour fails closed.
//! The driver methods ([`HookStack::before_tool`],
//! [`HookStack::after_tool`], [`HookStack::before_completion`],
//! [`HookStack::stop`], ...) return typed decisions, so an agent loop never
//! matches raw flows. Hooks share run-scoped state through the
//! [`HookContext`] scratchpad. Folding in-process hooks that continue
//! allocates nothing ([`HookFuture`] explains how).
//!
//! A custom hook that ends the run after 10 tool timeouts (counted in the
//! scratchpad; other failures such as `not_found` pass), in a stack with a
//! command guard and a hint injector:
//!
//! ```
//! use hooks_runtime::{
//!     AgentHook, Flow, FnHook, HookContext, HookFuture, HookStack, StepEvent, StepEventKind,
//!     ToolCall, ToolDecision, ToolFailure, ToolOutcome,
//! };
//! use serde_json::json;
//!
//! /// Ends the run once tools timed out `max` times.
//! struct TimeoutBudget {
//!     max: u32,
//! }
//!
//! /// The scratchpad entry: tool timeouts so far in this run.
//! #[derive(Default)]
//! struct Timeouts(u32);
//!
//! impl AgentHook for TimeoutBudget {
//!     fn on_event<'a>(&'a self, ctx: &'a HookContext, event: StepEvent<'a>) -> HookFuture<'a> {
//!         let StepEvent::AfterTool { outcome, .. } = event else {
//!             return HookFuture::cont();
//!         };
//!         if !matches!(outcome, ToolOutcome::Failed { failure: ToolFailure::Timeout, .. }) {
//!             return HookFuture::cont(); // success, not_found, denied, error: let through
//!         }
//!         let seen = ctx.update::<Timeouts, _>(|t| {
//!             t.0 += 1;
//!             t.0
//!         });
//!         HookFuture::ready(if seen >= self.max {
//!             Flow::terminate(format!("{seen} tool timeouts in this run"))
//!         } else {
//!             Flow::Continue
//!         })
//!     }
//!
//!     fn observes(&self, kind: StepEventKind) -> bool {
//!         kind == StepEventKind::AfterTool
//!     }
//! }
//!
//! let stack = HookStack::new()
//!     .with(
//!         "no-force-push",
//!         FnHook::observing(&[StepEventKind::BeforeTool], |_, event| match event {
//!             StepEvent::BeforeTool { args, .. }
//!                 if args["command"].as_str().is_some_and(|c| c.contains("push --force")) =>
//!             {
//!                 Flow::skip("force pushes are not allowed")
//!             }
//!             _ => Flow::Continue,
//!         }),
//!     )
//!     .with("timeout-budget", TimeoutBudget { max: 10 })
//!     .with(
//!         "failure-hint",
//!         FnHook::observing(&[StepEventKind::AfterTool], |_, event| match event {
//!             StepEvent::AfterTool { outcome, .. } if !outcome.is_success() => {
//!                 Flow::inject(format!("the tool failed ({:?}); try another way", outcome.kind()))
//!             }
//!             _ => Flow::Continue,
//!         }),
//!     );
//!
//! let runtime = tokio::runtime::Builder::new_current_thread().build()?;
//! runtime.block_on(async {
//!     let ctx = HookContext::new("run-1");
//!     let push = json!({"command": "git push --force"});
//!     let call = ToolCall { tool_name: "bash", call_id: "c0", args: &push };
//!     let decided = stack.before_tool(&ctx, call).await;
//!     assert!(matches!(decided.decision, ToolDecision::Skip { .. }));
//!
//!     let args = json!({"command": "cargo test"});
//!     let call = ToolCall { tool_name: "bash", call_id: "c1", args: &args };
//!     let result = json!({"error": "no such file"});
//!     let not_found = ToolOutcome::failed(ToolFailure::NotFound);
//!     let timeout = ToolOutcome::failed(ToolFailure::Timeout);
//!
//!     // `not_found` failures are let through (and not counted).
//!     for _ in 0..20 {
//!         let after = stack.after_tool(&ctx, call, &args, &result, &not_found).await;
//!         assert_eq!(after.decision.terminate, None);
//!         assert_eq!(after.context.len(), 1); // the hint
//!     }
//!     // Nine timeouts continue; the tenth ends the run.
//!     for _ in 0..9 {
//!         let after = stack.after_tool(&ctx, call, &args, &result, &timeout).await;
//!         assert_eq!(after.decision.terminate, None);
//!     }
//!     let after = stack.after_tool(&ctx, call, &args, &result, &timeout).await;
//!     assert_eq!(after.decision.terminate.as_deref(), Some("10 tool timeouts in this run"));
//!     // The hint hook comes after the budget in declared order: not consulted.
//!     assert!(after.context.is_empty());
//! });
//! # Ok::<(), std::io::Error>(())
//! ```

mod core;
pub mod dispatch;
mod http;
mod rego;
mod shell;
pub mod state;

// What an agent loop calls and applies: events in, typed decisions out,
// with a report per consulted hook.
pub use crate::core::approval::{Approval, ApprovalFuture, ApprovalRequest, Approver};
pub use crate::core::context::{HookContext, Scratchpad};
pub use crate::core::driver::{
    AfterToolDecision, CompactionDecision, CompletionDecision, Decided, InvalidCallDecision,
    ModelDecision, Observed, PermissionDecision, PromptDecision, StopDecision, ToolCall,
    ToolDecision,
};
pub use crate::core::event::{StepEvent, StepEventKind, ToolFailure, ToolOutcome, model_selection};
pub use crate::core::owned::OwnedEvent;
pub use crate::core::report::{
    FailureKind, HookFailure, HookReport, OutputSizes, ReportList, StreamSize, Verdict,
};
pub use crate::core::stack::{DuplicateHookId, HookStack};

// What a Rust hook answers with, and how answers merge.
pub use crate::core::diagnostic::Diagnostic;
pub use crate::core::flow::{ContextItem, ContextList, EnvVars, Flow, FlowKind, Role, Text};
pub use crate::core::fold::Fold;
pub use crate::core::hook::{AgentHook, FnHook, FoldStep, HookFuture};
pub use crate::core::id::HookId;
pub use crate::core::outcome::{Change, Provenance, ProvenanceList, StackOutcome};
pub use crate::core::patch::{HISTORY_KEYS, History, Params, PatchField, RequestPatch, ToolChoice};

// A config's rules as a hook: compiled in by `hooks!`, or loaded.
pub use crate::dispatch::{
    Dispatcher, RewriteMismatch, RewriteSchema, StackTables, Table, TableRef,
};
// Loading configs at run time, and trusting them (the `load` feature).
#[cfg(feature = "load")]
pub use crate::dispatch::{
    Fingerprint, LoadError, TRUST_STORE_ENV, TrustChange, TrustStore, TrustStoreError, Untrusted,
};

// The shared shell executor (also for an agent's own bash tool).
pub use crate::shell::exec::{
    BASE_ENV, CancellationToken, Captured, CommandForm, EnvSpec, ExecFailure, ExecOutcome,
    ExecRequest, ExecStatus, Executor, NEVER_INHERITED, PreflightError,
};

// Hooks outside the agent's code: the runtime `run`, `http` and `policy`
// rules execute through (one spec, one target enum), records, redaction.
pub use crate::http::HttpTarget;
#[cfg(feature = "http")]
pub use crate::http::install_tls_provider;
pub use crate::shell::activity::{ActivityEvent, ActivitySink};
pub use crate::shell::invoke::{
    CLAUDE_PROJECT_DIR, HookLimits, HookTarget, Invocation, ProcessTarget, ShellHook,
    ShellHookSpec, ShellRuntime, run_shell_hooks,
};
pub use crate::shell::payload::{PAYLOAD_REF_ENV, PayloadLimits, SessionDir, ToolPathSettings};

/// Claude Code's hook protocol read from the agent's side, for an entry
/// point Claude Code calls as its hook (a command hook, a server behind a
/// `type: http` hook): its input as our event and hook context
/// ([`read_payload`](claude_code::read_payload)), and the event name its
/// output's `hookSpecificOutput.hookEventName` must carry
/// ([`hook_event_name`](claude_code::hook_event_name)). The same table
/// of event names and fields as `protocol: claude` scripts, which receive
/// what [`read_payload`](claude_code::read_payload) reads.
pub mod claude_code {
    pub use crate::shell::protocol::claude::{
        PayloadError, event_phase, hook_event_name, read_payload,
    };
}

/// Gemini CLI's hook protocol read from the agent's side: its events and
/// the Claude Code events they correspond to ([`EVENTS`](gemini_cli::EVENTS),
/// the one table `protocol: gemini`, `hook --agent gemini` and `init`
/// read) and its payload as the Claude Code payload it corresponds to
/// ([`to_claude_payload`](gemini_cli::to_claude_payload)).
pub mod gemini_cli {
    pub use crate::shell::protocol::gemini::{EVENTS, llm_request_override, to_claude_payload};
}

/// GitHub Copilot's hook protocol read from the agent's side: its events
/// (the CLI's camelCase names, the VS Code-compatible PascalCase ones) and
/// the Claude Code events they correspond to ([`EVENTS`](copilot_cli::EVENTS),
/// the one table `protocol: copilot`, `hook --agent copilot`, `init` and
/// `import copilot` read) and its payload as the Claude Code payload it
/// corresponds to ([`to_claude_payload`](copilot_cli::to_claude_payload)).
pub mod copilot_cli {
    pub use crate::shell::protocol::copilot::{EVENTS, to_claude_payload};
}

// `policy` hooks: Rego policies evaluated in process.
#[cfg(feature = "policy")]
pub use crate::rego::answer_policy_request;
pub use crate::rego::{PolicyEvalError, RegoPolicy};
pub use crate::shell::records::{
    HookRecord, HttpExchange, InjectionRecord, InjectionStatus, PolicyIdentity, Record,
    RecordStatus, RecordWriter,
};
pub use crate::shell::redact::{
    MIN_SECRET_LEN, REDACTED, SecretSet, is_credential_name, redact_json, redact_sensitive_text,
};

/// Paths the code generated by `hooks!` refers to. Not a public API: it may
/// change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::dispatch::{Dispatcher, Table, TableRef, stack_shell_runtime};
    pub use crate::{
        AgentHook, Executor, Flow, Fold, FoldStep, HookContext, HookFuture, HookStack,
        ShellRuntime, StackOutcome, StepEvent, StepEventKind,
    };
    pub use hooks_plan::{
        ActionSpec, ContextItem, Dfa, History, HttpSpec, Json, List, Params, PermissionRule, Plan,
        PolicyModule, PolicySpec, Pred, ProgramSpec, RequestPatch, RewriteStep, Role, Rule,
        RunSpec, Scope, ScopeKind, Specifier, StaticDfa, Test, ToolChoice, ToolPaths, ToolSchema,
        ToolSet,
    };
    pub use hooks_plan::{Bits, Gate, Layer, LazySet, PatternGroup, PhaseIndex, Switches};
    pub use hooks_plan::{
        FailurePolicy, HttpProtocol, Limits, Mode, OutcomeKind, PayloadMode, Phase, Protocol,
    };
    pub use regex_automata::util::wire::AlignAs;

    /// Pipeline steps of a shell hook, for the runtime's own integration
    /// tests.
    pub mod payload {
        pub use crate::shell::payload::{
            BuiltPayload, PayloadError, PayloadInput, affected_paths, build as build_payload,
        };
    }
    pub use std::borrow::Cow;
    pub use std::sync::Arc;
}
