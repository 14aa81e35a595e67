//! `hooks-runtime`: the shared runtime of agent-hooks.
//!
//! Events, `Flow`, `HookStack`, the shared shell executor, payloads, output
//! protocols, records and redaction.

// --- events, flow, stack (issue 3) ---

// --- shell executor (issue 4, executor) ---
mod shell;
pub use shell::{
    BASE_ENV, CancellationToken, Captured, CommandForm, EnvSpec, ExecFailure, ExecOutcome,
    ExecRequest, ExecStatus, Executor, FailureKind, NEVER_INHERITED, PreflightError,
};

// --- hook invocation: payloads, protocols, policies, records, redaction (issue 4) ---
