//! Typed reports: what each hook consulted on one event decided, how it
//! failed, how long it took and what it had to say ([`HookReport`]).
//!
//! A fold ([`Fold`](crate::Fold)) makes one report per consulted hook, in
//! the order the hooks were consulted; a stack or dispatch table nested in a
//! stack contributes its own hooks' reports in place. Every driver decision
//! ([`Decided`](crate::Decided)) and every [`StackOutcome`](crate::StackOutcome)
//! carries them, so an agent loop or a UI shows what happened without
//! reading the records file or re-running any matcher.

use std::fmt;
use std::time::Duration;

use hooks_plan::FailurePolicy;
use serde::{Deserialize, Serialize, Serializer};
use smallvec::SmallVec;

use crate::core::diagnostic::Diagnostic;
use crate::core::flow::{FlowKind, Text};
use crate::core::id::HookId;

/// The reports of one fold, one per consulted hook, in order: up to 16
/// inline (like [`ProvenanceList`](crate::ProvenanceList)), spilling to the
/// heap beyond. Dereferences to `[HookReport]`.
pub type ReportList = SmallVec<[HookReport; 16]>;

/// What one hook did on one event.
///
/// Equality ignores [`elapsed`](HookReport::elapsed), so that two folds of
/// the same hooks compare equal whatever their timing.
///
/// A hook is *consulted* when the fold called it: a Rust hook whose
/// [`observes`](crate::AgentHook::observes) accepted the event, a rule of a
/// dispatch table that matched it. Every consulted rule and shell hook is
/// reported, and every Rust hook that answered something else than
/// `Continue`: a Rust hook that continued changed nothing and has no
/// failure kind, and leaving it out keeps folding a stack of such hooks
/// allocation-free however long it is.
/// Hooks after a stopping decision are not consulted and have no report (on
/// observe-only phases a table runs its matching `run` rules concurrently;
/// those that answered after the fold stopped are reported as
/// [`Verdict::Ignored`]).
#[derive(Debug, Clone, Serialize)]
pub struct HookReport {
    /// The hook's id (a rule's `id`, or the name a Rust hook was pushed
    /// under).
    pub hook: HookId,
    /// What it decided.
    pub verdict: Verdict,
    /// How it failed, when it did (shell hooks; a `run` rule without a
    /// shell runtime counts as [`FailureKind::SpawnFailed`]). The verdict is
    /// what the failure policy made of the failure.
    pub failure: Option<HookFailure>,
    /// Wall-clock time of the call: a shell hook from payload to record,
    /// an in-process hook or rule its evaluation. Serialized as
    /// `elapsed_ms`, a float.
    #[serde(rename = "elapsed_ms", serialize_with = "millis")]
    pub elapsed: Duration,
    /// What the hook gave as its decision's text (a block's or terminate's
    /// reason, a resume's reason), a failure's detail, or why the runtime
    /// refused the flow; redacted and cut like a record's `message`.
    pub message: Option<Text>,
    /// The diagnostics of this call, in order (each is also in the fold's
    /// diagnostics): a shell hook's own ([`Diagnostic::Hook`]: a failure
    /// under `warn`, an elided payload, a lost record, a refused resume), a
    /// missing shell runtime, a flow the event cannot honour, a patch field
    /// this hook overwrote.
    pub diagnostics: Vec<Diagnostic>,
    /// How many bytes a shell hook's process wrote to stdout and stderr and
    /// whether either capture was cut at its cap; `None` when no process ran
    /// (an in-process hook, a declarative rule, a hook refused before
    /// spawning). The same sizes are in the hook's record. Left out of the
    /// JSON when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<OutputSizes>,
}

/// One captured output stream, bounded by a byte cap: a process's stdout
/// or stderr (the executor's), or an `http` hook's response body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captured {
    /// The first bytes of the stream, at most the cap (bytes).
    pub bytes: Vec<u8>,
    /// The true number of bytes written to the stream (bytes), including
    /// those past the cap that were read and dropped.
    pub total_len: u64,
    /// True when `total_len` exceeds `bytes.len()`: bytes were dropped.
    pub truncated: bool,
}

/// What a shell hook's process wrote to one output stream (stdout or
/// stderr), in a [`HookReport`] and a record.
///
/// JSON shape: `{"bytes":52428800,"truncated":true}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
pub struct StreamSize {
    /// The true number of bytes the process wrote to the stream (bytes),
    /// including those past the capture cap, which were read and dropped.
    pub bytes: u64,
    /// Whether the capture was cut at its cap (`bytes` is over it): the
    /// protocol saw only the first bytes.
    pub truncated: bool,
}

impl From<&Captured> for StreamSize {
    fn from(captured: &Captured) -> Self {
        StreamSize {
            bytes: captured.total_len,
            truncated: captured.truncated,
        }
    }
}

/// The sizes of a shell hook's two output streams.
///
/// JSON shape: `{"stdout":{"bytes":12,"truncated":false},
/// "stderr":{"bytes":52428800,"truncated":true}}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
pub struct OutputSizes {
    /// The process's stdout.
    pub stdout: StreamSize,
    /// The process's stderr.
    pub stderr: StreamSize,
}

impl OutputSizes {
    /// Whether either stream was cut at its cap.
    pub const fn truncated(&self) -> bool {
        self.stdout.truncated || self.stderr.truncated
    }
}

impl HookReport {
    /// A report of `hook` answering `Continue`: no failure, zero elapsed
    /// time, no message, no diagnostics. Does not allocate.
    pub fn new(hook: HookId) -> Self {
        HookReport {
            hook,
            verdict: Verdict::Continue,
            failure: None,
            elapsed: Duration::ZERO,
            message: None,
            diagnostics: Vec::new(),
            output: None,
        }
    }
}

impl PartialEq for HookReport {
    fn eq(&self, other: &Self) -> bool {
        let HookReport {
            hook,
            verdict,
            failure,
            elapsed: _,
            message,
            diagnostics,
            output,
        } = self;
        *hook == other.hook
            && *verdict == other.verdict
            && *failure == other.failure
            && *message == other.message
            && *diagnostics == other.diagnostics
            && *output == other.output
    }
}

fn millis<S: Serializer>(elapsed: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(elapsed.as_secs_f64() * 1000.0)
}

/// How a hook failed, in a [`HookReport`]: the failure's kind and the
/// failure policy that was applied to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct HookFailure {
    /// What went wrong.
    pub kind: FailureKind,
    /// What the failure amounted to (`ignore`, `warn`, `block`, `fail`).
    pub policy: FailurePolicy,
}

impl fmt::Display for HookFailure {
    /// `timed_out (policy `warn`)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (policy `{}`)", self.kind, self.policy.as_str())
    }
}

/// What a consulted hook decided, in a [`HookReport`].
///
/// `Display` gives the label a transcript shows: `continue`, the flow's
/// name (`skip`, `rewrite_args`, ...), ``audited: would `skip` ``,
/// ``refused `resume` ``, ``ignored `terminate` ``.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "verdict", content = "flow", rename_all = "snake_case")]
pub enum Verdict {
    /// Answered `Continue` (changed nothing).
    Continue,
    /// Answered with a flow of this kind, which the fold applied.
    Applied(FlowKind),
    /// Ran in `mode: audit` and would have answered with a flow of this
    /// kind; nothing was applied.
    Audited(FlowKind),
    /// Answered with a flow of this kind that the runtime refused: a
    /// `resume` over the stop-resume cap (the agent stops), or a flow the
    /// event cannot honour (the run is terminated, fail closed).
    Refused(FlowKind),
    /// Answered with a flow of this kind after an earlier hook had already
    /// stopped the fold (concurrent `run` rules of an observe-only phase);
    /// not applied.
    Ignored(FlowKind),
}

impl Verdict {
    /// The flow the hook answered with (or would have, in audit mode);
    /// [`FlowKind::Continue`] for [`Verdict::Continue`].
    pub const fn flow(self) -> FlowKind {
        match self {
            Verdict::Continue => FlowKind::Continue,
            Verdict::Applied(kind)
            | Verdict::Audited(kind)
            | Verdict::Refused(kind)
            | Verdict::Ignored(kind) => kind,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Continue => f.write_str("continue"),
            Verdict::Applied(kind) => write!(f, "{kind}"),
            Verdict::Audited(kind) => write!(f, "audited: would `{kind}`"),
            Verdict::Refused(kind) => write!(f, "refused `{kind}`"),
            Verdict::Ignored(kind) => write!(f, "ignored `{kind}`"),
        }
    }
}

/// The named failure kinds of a hook invocation (shell hooks and the
/// shared shell executor).
///
/// This is the one list of failure kinds for the whole runtime: the executor
/// produces [`SpawnFailed`](Self::SpawnFailed), [`Signalled`](Self::Signalled),
/// [`TimedOut`](Self::TimedOut) and [`Cancelled`](Self::Cancelled); the hook
/// layer produces [`NonzeroExit`](Self::NonzeroExit) (the executor reports a
/// nonzero exit as [`ExecStatus::Exited`](crate::ExecStatus::Exited) and lets the hook layer decide),
/// [`InvalidOutput`](Self::InvalidOutput) and
/// [`OutputTooLarge`](Self::OutputTooLarge).
///
/// Serializes (and deserializes) as the snake_case name returned by
/// [`FailureKind::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FailureKind {
    /// The process could not be started: preflight refused the request (cwd
    /// outside the workspace root, empty `argv`, ...) or the OS refused the
    /// spawn (program not found, not executable, cwd missing).
    SpawnFailed,
    /// The process exited with a code the protocol does not treat as a
    /// decision (set by the hook layer, never by the executor).
    NonzeroExit,
    /// The process was killed by a signal it did not receive from us
    /// (e.g. SIGSEGV); the signal number is in [`ExecFailure::signal`](crate::ExecFailure::signal).
    Signalled,
    /// The deadline passed; the process group was terminated.
    TimedOut,
    /// The hook's output did not follow the output protocol (set by the hook
    /// layer).
    InvalidOutput,
    /// The hook's output exceeded a cap the protocol cannot accept truncated
    /// (set by the hook layer).
    OutputTooLarge,
    /// The caller cancelled the invocation; the process group was terminated.
    Cancelled,
    /// An `http` hook's request failed below HTTP: no connection (refused,
    /// unresolvable host, TLS handshake), or the connection closed before
    /// the response body was complete.
    ConnectionFailed,
    /// An `http` hook's server answered with a status the protocol does not
    /// read as a decision: not 2xx, or a redirect that is not followed.
    HttpStatus,
    /// An `http` hook's server redirected it where it may not follow
    /// (with `follow_redirects: true`): from `https` to `http`, to another
    /// scheme, or past the tenth redirect.
    RedirectRefused,
    /// A `policy` hook's Rego evaluation failed (a runtime error of the
    /// policy, such as a rule with conflicting values or a builtin error).
    PolicyFailed,
    /// A file a `run` hook of a trusted config runs (its script, a file
    /// the script sources) no longer has the bytes it was trusted with:
    /// the hook was not run (checked before every spawn).
    ScriptChanged,
    /// An `http` hook would call a URL, or follow a redirect to one, or
    /// read an environment variable into a header, that the managed
    /// layer's switches do not allow
    /// ([`ShellRuntime::with_switches`](crate::ShellRuntime::with_switches)):
    /// nothing was sent to that URL (a refused redirect's first request
    /// was sent, its target never is).
    NotAllowed,
}

impl FailureKind {
    /// All kinds, in declaration order (the order docs/config.md's *Shell hooks*
    /// lists them).
    pub const ALL: [FailureKind; 13] = [
        FailureKind::SpawnFailed,
        FailureKind::NonzeroExit,
        FailureKind::Signalled,
        FailureKind::TimedOut,
        FailureKind::InvalidOutput,
        FailureKind::OutputTooLarge,
        FailureKind::Cancelled,
        FailureKind::ConnectionFailed,
        FailureKind::HttpStatus,
        FailureKind::RedirectRefused,
        FailureKind::PolicyFailed,
        FailureKind::ScriptChanged,
        FailureKind::NotAllowed,
    ];

    /// The snake_case name used in records and diagnostics, e.g. `timed_out`.
    pub const fn as_str(self) -> &'static str {
        match self {
            FailureKind::SpawnFailed => "spawn_failed",
            FailureKind::NonzeroExit => "nonzero_exit",
            FailureKind::Signalled => "signalled",
            FailureKind::TimedOut => "timed_out",
            FailureKind::InvalidOutput => "invalid_output",
            FailureKind::OutputTooLarge => "output_too_large",
            FailureKind::Cancelled => "cancelled",
            FailureKind::ConnectionFailed => "connection_failed",
            FailureKind::HttpStatus => "http_status",
            FailureKind::RedirectRefused => "redirect_refused",
            FailureKind::PolicyFailed => "policy_failed",
            FailureKind::ScriptChanged => "script_changed",
            FailureKind::NotAllowed => "not_allowed",
        }
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
