//! Subcommands of the `agent-hooks` binary, one module each.

pub(crate) mod check;
pub(crate) mod drive;
pub(crate) mod explain;
pub(crate) mod import;
pub(crate) mod replay;
pub(crate) mod schema;
pub(crate) mod test;
pub(crate) mod trust;

use std::future::Future;
use std::time::Duration;

use hooks_runtime::{CancellationToken, SecretSet, redact_json, redact_sensitive_text};
use serde::Serialize;

/// Exit code: everything checked out.
pub(crate) const EXIT_OK: u8 = 0;
/// Exit code: the input has findings (diagnostics, blocked events).
pub(crate) const EXIT_FINDINGS: u8 = 1;
/// Exit code: usage or I/O error.
pub(crate) const EXIT_USAGE: u8 = 2;
/// Exit code after SIGINT (Ctrl-C): 128 + 2, the shell convention.
pub(crate) const EXIT_SIGINT: u8 = 130;
/// Exit code after SIGTERM: 128 + 15, the shell convention.
pub(crate) const EXIT_SIGTERM: u8 = 143;

/// How long an interrupted command waits for its running hooks to be
/// stopped through cancellation (SIGTERM, grace, SIGKILL to each hook's
/// process group) before it drops them (the executor's drop guard SIGKILLs
/// the group).
const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// Writes `text` and a newline to stdout. A closed stdout (`agent-hooks check
/// ... | head`) is not an error worth a panic: the write is dropped.
pub(crate) fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
}

/// Writes `text` to stdout like [`emit`], after passing it through the
/// project's one redaction function ([`redact_sensitive_text`]): hook
/// reasons, injected context, event arguments and `equals` values may hold
/// credentials, which are never printed.
pub(crate) fn emit_redacted(text: &str) {
    emit(&redact_sensitive_text(text, &SecretSet::new()));
}

/// Writes `value` as pretty JSON to stdout, after passing it through
/// [`redact_json`] (credential-like keys masked, every string redacted).
pub(crate) fn emit_json(value: &impl Serialize) {
    let value = serde_json::to_value(value).unwrap_or_default();
    let value = redact_json(&value, &SecretSet::new());
    emit(&serde_json::to_string_pretty(&value).unwrap_or_default());
}

/// Writes `text` and a newline to stderr, redacted like [`emit_redacted`]
/// (error messages may quote config or event text).
pub(crate) fn warn(text: &str) {
    eprintln!("{}", redact_sensitive_text(text, &SecretSet::new()));
}

/// Runs `work` on `runtime` until it finishes or the process receives
/// SIGINT or SIGTERM.
///
/// On a signal, `cancel` (the shell runtime's token) is cancelled, so
/// running hooks are stopped (SIGTERM, a grace, SIGKILL to their process
/// group) and later ones never spawn; `work` is given [`CANCEL_GRACE`] to
/// wind down, then dropped (dropping a running hook kills its group too).
/// The caller then removes its session directory (by dropping it) and exits
/// with the returned code.
///
/// # Errors
///
/// `Err(`[`EXIT_SIGINT`]`)` or `Err(`[`EXIT_SIGTERM`]`)` when interrupted;
/// `Err(`[`EXIT_USAGE`]`)` when the signal handlers cannot be installed.
pub(crate) fn run_interruptible<T>(
    runtime: &tokio::runtime::Runtime,
    cancel: &CancellationToken,
    work: impl Future<Output = T>,
) -> Result<T, u8> {
    use tokio::signal::unix::{SignalKind, signal};
    runtime.block_on(async {
        let (mut int, mut term) = match (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) {
            (Ok(int), Ok(term)) => (int, term),
            (Err(e), _) | (_, Err(e)) => {
                warn(&format!("error: cannot install signal handlers: {e}"));
                return Err(EXIT_USAGE);
            }
        };
        let mut work = std::pin::pin!(work);
        let code = tokio::select! {
            out = &mut work => return Ok(out),
            _ = int.recv() => EXIT_SIGINT,
            _ = term.recv() => EXIT_SIGTERM,
        };
        cancel.cancel();
        let _ = tokio::time::timeout(CANCEL_GRACE, work).await;
        Err(code)
    })
}

/// A current-thread tokio runtime for one command; on failure the error is
/// printed and the usage/I/O exit code returned.
pub(crate) fn current_thread_runtime() -> Result<tokio::runtime::Runtime, u8> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            warn(&format!("error: cannot start the async runtime: {e}"));
            EXIT_USAGE
        })
}
