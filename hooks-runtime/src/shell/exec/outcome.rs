//! What a finished invocation reports: status, captured streams, timing.

use std::fmt;
use std::time::Duration;

use crate::core::event::{ToolFailure, ToolOutcome};
pub use crate::core::report::Captured;
use crate::core::report::{FailureKind, OutputSizes, StreamSize};

/// A failure of one invocation: its kind plus a short, human-readable detail.
///
/// `detail` never contains the command text or the process's output; it may
/// contain a path (e.g. the refused cwd) or an OS error message, so the hook
/// layer still passes it through redaction before recording it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExecFailure {
    /// Which named failure this is.
    pub kind: FailureKind,
    /// Lowercase, rustc-style description, e.g. ``timed out after 1000 ms``.
    pub detail: String,
    /// The terminating signal number for [`FailureKind::Signalled`]
    /// (e.g. `11` for SIGSEGV), otherwise `None`.
    pub signal: Option<i32>,
    /// The exit code when one is known (e.g. for [`FailureKind::NonzeroExit`]),
    /// otherwise `None`.
    pub exit_code: Option<i32>,
}

impl ExecFailure {
    /// A failure of `kind` with `detail` and no signal or exit code.
    pub fn new(kind: FailureKind, detail: impl Into<String>) -> Self {
        ExecFailure {
            kind,
            detail: detail.into(),
            signal: None,
            exit_code: None,
        }
    }

    /// Sets [`ExecFailure::signal`].
    #[must_use]
    pub fn with_signal(mut self, signal: i32) -> Self {
        self.signal = Some(signal);
        self
    }

    /// Sets [`ExecFailure::exit_code`].
    #[must_use]
    pub fn with_exit_code(mut self, code: i32) -> Self {
        self.exit_code = Some(code);
        self
    }
}

impl fmt::Display for ExecFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.detail)
    }
}

impl std::error::Error for ExecFailure {}

/// How an invocation ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExecStatus {
    /// The process exited by itself with this code (0..=255).
    ///
    /// Any code is reported here, including nonzero ones: the hook layer
    /// decides what a code means (native protocol: `0` = success, `2` = an
    /// explicit deny, anything else = a [`FailureKind::NonzeroExit`] failure).
    /// A shell-form command whose program does not exist is `Exited(127)`
    /// (the shell's "not found" code), not a spawn failure.
    Exited(i32),
    /// The invocation failed; see [`ExecFailure::kind`].
    Failed(ExecFailure),
}

impl ExecStatus {
    /// The exit code if the process exited by itself, otherwise `None`.
    pub fn exit_code(&self) -> Option<i32> {
        match self {
            ExecStatus::Exited(code) => Some(*code),
            ExecStatus::Failed(_) => None,
        }
    }

    /// The failure if there was one, otherwise `None`.
    pub fn failure(&self) -> Option<&ExecFailure> {
        match self {
            ExecStatus::Exited(_) => None,
            ExecStatus::Failed(failure) => Some(failure),
        }
    }

    /// True only for `Exited(0)`.
    pub fn is_success(&self) -> bool {
        matches!(self, ExecStatus::Exited(0))
    }
}

/// The result of [`Executor::run`](super::Executor::run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecOutcome {
    /// How the invocation ended.
    pub status: ExecStatus,
    /// Captured stdout (bounded by `ExecRequest::stdout_cap`).
    pub stdout: Captured,
    /// Captured stderr (bounded by `ExecRequest::stderr_cap`).
    pub stderr: Captured,
    /// Wall-clock time from the start of `run` until it returned, including
    /// preflight, termination and reaping.
    pub elapsed: Duration,
    /// The process id of the direct child, which is also its process group
    /// id; `None` when nothing was spawned.
    pub pid: Option<u32>,
}

impl From<&ExecOutcome> for ToolOutcome {
    /// The outcome of a tool that ran a command through the executor (an
    /// agent's bash tool): exit code 0 is [`ToolOutcome::Success`]; another
    /// exit code is a [`ToolFailure::Error`] with the message `exited with
    /// code N`; a [`FailureKind::TimedOut`] invocation is a
    /// [`ToolFailure::Timeout`], any other failure a [`ToolFailure::Error`],
    /// both with the failure (`timed_out: timed out after 300 ms`) as the
    /// message.
    fn from(outcome: &ExecOutcome) -> Self {
        match &outcome.status {
            ExecStatus::Exited(0) => ToolOutcome::Success,
            ExecStatus::Exited(code) => ToolOutcome::Failed {
                failure: ToolFailure::Error,
                message: Some(format!("exited with code {code}")),
            },
            ExecStatus::Failed(failure) => ToolOutcome::Failed {
                failure: match failure.kind {
                    FailureKind::TimedOut => ToolFailure::Timeout,
                    _ => ToolFailure::Error,
                },
                message: Some(failure.to_string()),
            },
        }
    }
}

impl From<&ExecOutcome> for OutputSizes {
    fn from(out: &ExecOutcome) -> Self {
        OutputSizes {
            stdout: StreamSize::from(&out.stdout),
            stderr: StreamSize::from(&out.stderr),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_kinds_serialize_as_their_names() {
        for kind in FailureKind::ALL {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
            assert_eq!(serde_json::from_str::<FailureKind>(&json).unwrap(), kind);
        }
        let names: Vec<&str> = FailureKind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "spawn_failed",
                "nonzero_exit",
                "signalled",
                "timed_out",
                "invalid_output",
                "output_too_large",
                "cancelled",
                "connection_failed",
                "http_status",
                "redirect_refused",
                "policy_failed",
                "script_changed",
                "not_allowed",
            ]
        );
    }

    #[test]
    fn status_accessors() {
        assert!(ExecStatus::Exited(0).is_success());
        assert!(!ExecStatus::Exited(2).is_success());
        assert_eq!(ExecStatus::Exited(2).exit_code(), Some(2));
        let failed = ExecStatus::Failed(
            ExecFailure::new(FailureKind::Signalled, "killed by signal 11").with_signal(11),
        );
        assert!(!failed.is_success());
        assert_eq!(failed.exit_code(), None);
        assert_eq!(failed.failure().unwrap().signal, Some(11));
        assert_eq!(
            failed.failure().unwrap().to_string(),
            "signalled: killed by signal 11"
        );
    }

    #[test]
    fn a_tool_outcome_says_why_the_command_failed() {
        let outcome = |status| ExecOutcome {
            status,
            stdout: Captured::default(),
            stderr: Captured::default(),
            elapsed: Duration::ZERO,
            pid: None,
        };
        let tool = |status| ToolOutcome::from(&outcome(status));
        assert_eq!(tool(ExecStatus::Exited(0)), ToolOutcome::Success);
        let exited = tool(ExecStatus::Exited(3));
        assert_eq!(exited.label(), "error");
        assert_eq!(exited.message(), Some("exited with code 3"));
        let timed_out = tool(ExecStatus::Failed(ExecFailure::new(
            FailureKind::TimedOut,
            "timed out after 300 ms",
        )));
        assert_eq!(timed_out.label(), "timeout");
        assert_eq!(
            timed_out.message(),
            Some("timed_out: timed out after 300 ms")
        );
        for kind in FailureKind::ALL
            .into_iter()
            .filter(|k| *k != FailureKind::TimedOut)
        {
            let failed = tool(ExecStatus::Failed(ExecFailure::new(kind, "x")));
            assert_eq!(failed.label(), "error", "{kind}");
        }
    }
}
