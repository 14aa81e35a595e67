//! The caps a table enforces ([`Limits`]) and what an `http` hook speaks
//! ([`HttpProtocol`]): config values the runtime executes.

/// The timeout of a hook that sets none, in ms (30 s): `defaults.timeout`'s
/// default in a config, and the runtime's for a spec or an executor request
/// built without one.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Caps the runtime enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// How many times per user turn `stop` hooks may make the agent (and
    /// `subagent_stop` hooks each subagent) keep working; the runtime
    /// counts the resumes itself and, at the cap, stops with a `capped`
    /// decision. Default 3.
    #[serde(default = "Limits::default_stop_resumes")]
    #[schemars(range(max = 100))]
    pub max_stop_resumes_per_turn: u32,
    /// Cap on each of a shell hook's stdout and stderr, in bytes; the rest is
    /// drained and dropped and the result marked truncated. Default 1 MiB (1048576).
    #[serde(default = "Limits::default_output_bytes")]
    #[schemars(range(min = 1, max = 67_108_864))]
    pub max_output_bytes: u64,
    /// Cap on the context one hook invocation may inject, in bytes (UTF-8).
    /// Default 64 KiB (65536).
    #[serde(default = "Limits::default_context_bytes")]
    #[schemars(range(min = 1, max = 16_777_216))]
    pub max_context_bytes: u64,
    /// Cap on the stdin payload of a shell hook, in bytes; a larger payload
    /// spills to a payload-ref file. Default 1 MiB (1048576).
    #[serde(default = "Limits::default_payload_bytes")]
    #[schemars(range(min = 1024, max = 67_108_864))]
    pub max_payload_bytes: u64,
    /// How many `run`, `http` and `policy` hook invocations one runtime
    /// (one agent session) runs at once, over all events; more wait for a
    /// slot, their `timeout` counted from the event. Default 32.
    #[serde(default = "Limits::default_concurrent_hooks")]
    #[schemars(range(min = 1, max = 4096))]
    pub max_concurrent_hooks: u32,
    /// How many of the `run`, `http` and `policy` hooks of one event run at
    /// once (on observe-only phases, where they run concurrently; a
    /// mutating phase runs them one after another); more wait for a slot,
    /// their `timeout` counted from the event. Default 8.
    #[serde(default = "Limits::default_concurrent_hooks_per_event")]
    #[schemars(range(min = 1, max = 4096))]
    pub max_concurrent_hooks_per_event: u32,
    /// Cap on the data memory of each hook process (one-shot `run` hooks
    /// and workers), in bytes: set as the process's `RLIMIT_DATA` before
    /// its command starts, inherited by what it starts; an allocation over
    /// it fails. Default none (no cap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1_048_576))]
    pub max_hook_memory_bytes: Option<u64>,
    /// How many background hooks (`async: true`) one runtime runs at once;
    /// they have slots of their own, apart from `max_concurrent_hooks`, so
    /// they never hold up the hooks the agent waits for. More wait in the
    /// queue (`max_async_queued`). Default 32.
    #[serde(default = "Limits::default_async_hooks")]
    #[schemars(range(min = 1, max = 4096))]
    pub max_async_hooks: u32,
    /// How many background hooks may wait for one of those slots; one more
    /// is not run (a `refused` record). Also how many background results
    /// one run keeps waiting for delivery; one more is dropped (a
    /// `dropped` injection record). Default 64.
    #[serde(default = "Limits::default_async_queued")]
    #[schemars(range(max = 65_536))]
    pub max_async_queued: u32,
    /// How many background hooks' context one turn of a run receives; the
    /// rest wait for the next turn. Default 8.
    #[serde(default = "Limits::default_async_deliveries_per_turn")]
    #[schemars(range(min = 1, max = 4096))]
    pub max_async_deliveries_per_turn: u32,
}

impl Limits {
    /// The caps a config gets for every key it leaves out, and the runtime's
    /// defaults: 3 resumes per turn, 1 MiB of output per stream, 64 KiB of
    /// context per invocation, 1 MiB of stdin payload, 32 hooks running
    /// at once per runtime and 8 per event, no memory cap; 32 background
    /// hooks at once, 64 queued, 8 deliveries of their context per turn
    /// (Codex's bounds).
    pub const DEFAULT: Limits = Limits {
        max_stop_resumes_per_turn: 3,
        max_output_bytes: 1024 * 1024,
        max_context_bytes: 64 * 1024,
        max_payload_bytes: 1024 * 1024,
        max_concurrent_hooks: 32,
        max_concurrent_hooks_per_event: 8,
        max_hook_memory_bytes: None,
        max_async_hooks: 32,
        max_async_queued: 64,
        max_async_deliveries_per_turn: 8,
    };

    const fn default_stop_resumes() -> u32 {
        Limits::DEFAULT.max_stop_resumes_per_turn
    }
    const fn default_output_bytes() -> u64 {
        Limits::DEFAULT.max_output_bytes
    }
    const fn default_context_bytes() -> u64 {
        Limits::DEFAULT.max_context_bytes
    }
    const fn default_payload_bytes() -> u64 {
        Limits::DEFAULT.max_payload_bytes
    }
    const fn default_concurrent_hooks() -> u32 {
        Limits::DEFAULT.max_concurrent_hooks
    }
    const fn default_concurrent_hooks_per_event() -> u32 {
        Limits::DEFAULT.max_concurrent_hooks_per_event
    }
    const fn default_async_hooks() -> u32 {
        Limits::DEFAULT.max_async_hooks
    }
    const fn default_async_queued() -> u32 {
        Limits::DEFAULT.max_async_queued
    }
    const fn default_async_deliveries_per_turn() -> u32 {
        Limits::DEFAULT.max_async_deliveries_per_turn
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// What an `http` hook speaks: the request body it sends and how it reads
/// the answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HttpProtocol {
    /// The payload envelope v1 as the body; a 2xx body is read like a native
    /// hook's stdout (empty or `{}` = continue).
    #[default]
    Native,
    /// Claude Code's HTTP hooks: its hook input as the body; a 2xx body is
    /// read like a Claude Code hook's stdout. A non-2xx answer, a connection
    /// failure or a timeout does not block unless the failure policy says
    /// so (the default failure policy of these hooks is `warn`).
    Claude,
    /// OPA's REST data API: `{"input": <payload envelope>}` POSTed to the
    /// URL (`http://HOST:8181/v1/data/<path>`); the answer's `result` is read
    /// like a native hook's stdout object (undefined = continue), its
    /// `decision_id` goes into the record.
    Opa,
}

impl HttpProtocol {
    /// The name used in configs and messages.
    pub const fn as_str(self) -> &'static str {
        match self {
            HttpProtocol::Native => "native",
            HttpProtocol::Claude => "claude",
            HttpProtocol::Opa => "opa",
        }
    }
}

/// One piece of a header value: literal text or a `${NAME}` reference to a
/// variable of the hook's `env`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderPart<'a> {
    /// Text sent as written.
    Literal(&'a str),
    /// `${NAME}`: the value of environment variable `NAME`.
    Var(&'a str),
}

/// Why a header value template does not split ([`header_parts`]): a `${`
/// with no closing `}`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`${{` without a closing `}}`")]
pub struct HeaderTemplateError {
    /// The byte offset of the unclosed `${` in the value.
    pub offset: usize,
}

/// The pieces of header value `value`: `${NAME}` references and the text
/// between them (a `$` not followed by `{` is literal). `hooks!`, `check`
/// and the runtime split values with this one function.
///
/// # Errors
///
/// [`HeaderTemplateError`] when a `${` has no closing `}`.
pub fn header_parts(value: &str) -> Result<Vec<HeaderPart<'_>>, HeaderTemplateError> {
    let mut parts = Vec::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        if start > 0 {
            parts.push(HeaderPart::Literal(&rest[..start]));
        }
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(HeaderTemplateError {
                offset: value.len() - rest.len() + start,
            });
        };
        parts.push(HeaderPart::Var(&after[..end]));
        rest = &after[end + 1..];
    }
    if !rest.is_empty() {
        parts.push(HeaderPart::Literal(rest));
    }
    Ok(parts)
}
