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
mod activity;
mod invoke;
mod payload;
mod policy;
pub mod protocol;
mod records;
mod redact;
pub use activity::{ActivityEvent, ActivitySink};
pub use invoke::{
    HookLimits, Invocation, ShellHook, ShellHookSpec, ShellRuntime, run_shell_hooks,
};
pub use payload::{
    BuiltPayload, PAYLOAD_REF_ENV, PayloadError, PayloadInput, PayloadLimits, SpillFile,
    ToolPathSettings, affected_paths, build as build_payload, check_session_dir,
};
pub use policy::{PolicyOutcome, apply_failure_policy, apply_mode};
pub use protocol::{ProtocolDecision, ProtocolFailure};
pub use records::{
    HookRecord, InjectionRecord, InjectionStatus, Record, RecordStatus, RecordWriter,
};
pub use redact::{
    MIN_SECRET_LEN, REDACTED, SecretSet, is_credential_name, redact_json, redact_sensitive_text,
};
