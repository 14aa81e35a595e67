//! `hooks-runtime`: the shared runtime of agent-hooks.
//!
//! Events, `Flow`, `HookStack`, the shared shell executor, payloads, output
//! protocols, records and redaction.

// --- events, flow, stack (issue 3) ---

// --- shell executor (issue 4, executor) ---

// --- hook invocation: payloads, protocols, policies, records, redaction (issue 4) ---
