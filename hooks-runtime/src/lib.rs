//! `hooks-runtime`: the shared runtime of agent-hooks.
//!
//! Events, `Flow`, `HookStack`, the shared shell executor, payloads, output
//! protocols, records and redaction.

// --- events, flow, stack (issue 3) ---
mod context;
mod driver;
mod event;
mod flow;
mod hook;
mod patch;
mod stack;
pub use context::{HookContext, Scratchpad};
pub use driver::{
    AfterToolDecision, CompletionDecision, Decided, InvalidCallDecision, Observed,
    PromptDecision, StopDecision, ToolCall, ToolDecision,
};
pub use event::{StepEvent, StepEventKind, ToolFailure, ToolOutcome};
pub use flow::{ContextItem, Flow, FlowKind, Role};
pub use hook::{AgentHook, FnHook, HookFuture, HookId};
pub use patch::{PatchField, RequestPatch, ToolChoice};
pub use stack::{Change, Diagnostic, Fold, HookStack, Provenance, StackOutcome};

// --- shell executor (issue 4, executor) ---
mod shell;
pub use shell::{
    BASE_ENV, CancellationToken, Captured, CommandForm, EnvSpec, ExecFailure, ExecOutcome,
    ExecRequest, ExecStatus, Executor, FailureKind, NEVER_INHERITED, PreflightError,
};

// --- hook invocation: payloads, protocols, policies, records, redaction (issue 4) ---
