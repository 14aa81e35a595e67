//! Subcommands of the `agent-hooks` binary, one module each.

pub(crate) mod calls;
pub(crate) mod check;
pub(crate) mod drive;
pub(crate) mod expect;
pub(crate) mod explain;
pub(crate) mod hook;
pub(crate) mod import;
pub(crate) mod init;
pub(crate) mod replay;
pub(crate) mod report;
pub(crate) mod schema;
pub(crate) mod serve;
pub(crate) mod shadow;
pub(crate) mod test;
pub(crate) mod trust;

use std::future::Future;
use std::time::Duration;

use hooks_runtime::{SecretSet, redact_json, redact_sensitive_text};
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
/// Exit code after SIGHUP (the terminal or the session went away): 128 + 1,
/// the shell convention. A hang-up is handled like SIGTERM.
pub(crate) const EXIT_SIGHUP: u8 = 129;

/// How long an interrupted command waits, after a second signal, for its
/// hooks to be stopped through cancellation (SIGTERM, the executor's kill
/// grace, SIGKILL to each hook's process group) before it drops them (the
/// executor's drop guard SIGKILLs the group).
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

/// `Err(`[`EXIT_USAGE`]`)`, after a warning, when the file a command is to
/// write (`--report`, `--junit`) is one of the files it reads: a typo must
/// not replace a transcript or a config with a report. Paths are compared
/// once resolved (symbolic links, `.`/`..`); a file that does not exist
/// yet is none of the inputs.
pub(crate) fn refuse_overwrite(
    out: Option<&std::path::Path>,
    inputs: &[&std::path::Path],
) -> Result<(), u8> {
    let Some(out) = out else {
        return Ok(());
    };
    let Ok(resolved) = std::fs::canonicalize(out) else {
        return Ok(());
    };
    match inputs
        .iter()
        .find(|input| std::fs::canonicalize(input).is_ok_and(|i| i == resolved))
    {
        Some(input) => {
            warn(&format!(
                "error: `{}` is `{}`, which this command reads: choose another file to write",
                out.display(),
                input.display()
            ));
            Err(EXIT_USAGE)
        }
        None => Ok(()),
    }
}

/// Writes `text` and a newline to stderr, redacted like [`emit_redacted`]
/// (error messages may quote config or event text).
pub(crate) fn warn(text: &str) {
    eprintln!("{}", redact_sensitive_text(text, &SecretSet::new()));
}

/// The cancellation tokens of an interruptible command: `run` stops the
/// run's hooks on the first SIGINT or SIGTERM; `shutdown` stops the
/// shutdown hooks (`run_end`, `run_error`) on a second one.
#[derive(Debug, Clone)]
pub(crate) struct Cancels {
    /// The token of the shell runtime that runs every other phase.
    pub(crate) run: hooks_runtime::CancellationToken,
    /// The token of the shell runtime that runs `run_end` and `run_error`.
    pub(crate) shutdown: hooks_runtime::CancellationToken,
}

/// A command stopped by SIGINT, SIGTERM or SIGHUP: the exit code and what the work
/// returned after its hooks were cancelled (`None` when it had to be dropped).
#[derive(Debug)]
pub(crate) struct Interrupted<T> {
    /// [`EXIT_SIGINT`], [`EXIT_SIGTERM`] or [`EXIT_SIGHUP`].
    pub(crate) code: u8,
    /// The signal's name, `SIGINT`, `SIGTERM` or `SIGHUP`, for the report.
    pub(crate) signal: &'static str,
    /// The work's output: its records say `cancelled` for the hooks that
    /// were stopped.
    pub(crate) partial: Option<T>,
}

/// How [`run_interruptible`] ended.
#[derive(Debug)]
pub(crate) enum Ran<T> {
    /// The work finished without a signal.
    Done(T),
    /// A signal stopped it.
    Interrupted(Interrupted<T>),
}

/// The SIGINT, SIGTERM and SIGHUP streams of the CLI's commands; must be
/// called inside a tokio runtime.
///
/// # Errors
///
/// [`EXIT_USAGE`], after a warning, when a handler cannot be installed.
pub(crate) fn signals() -> Result<
    (
        tokio::signal::unix::Signal,
        tokio::signal::unix::Signal,
        tokio::signal::unix::Signal,
    ),
    u8,
> {
    use tokio::signal::unix::{SignalKind, signal};
    match (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) {
        (Ok(int), Ok(term), Ok(hup)) => Ok((int, term, hup)),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
            warn(&format!("error: cannot install signal handlers: {e}"));
            Err(EXIT_USAGE)
        }
    }
}

/// Runs `work` on `runtime` until it finishes or the process receives
/// SIGINT, SIGTERM or SIGHUP (a hang-up is handled like SIGTERM: without a
/// handler it would end the process at once and leave its hooks, each in
/// its own process group, running).
///
/// On a first signal, `cancels.run` is cancelled: the run's running hooks
/// are stopped (SIGTERM, the executor's kill grace, SIGKILL to their
/// process group; each writes its `cancelled` record) and later ones fail
/// as `cancelled` without spawning. `work` then runs to its end, so the
/// caller can print what it has: the shell runtime bounds that by the kill
/// grace for cancelled hooks, and shutdown hooks (`run_end`, `run_error`,
/// on the `cancels.shutdown` runtime) keep their declared timeout. A
/// second signal cancels `cancels.shutdown` too and gives `work`
/// [`CANCEL_GRACE`] before it is dropped (dropping a running hook kills
/// its group). The caller prints the partial result before it removes its
/// session directory, then exits with the code.
///
/// Returns [`Ran::Done`] with the output, or [`Ran::Interrupted`] when a
/// signal came.
///
/// # Errors
///
/// `Err(`[`EXIT_USAGE`]`)` when the signal handlers cannot be installed
/// (nothing ran).
pub(crate) fn run_interruptible<T>(
    runtime: &tokio::runtime::Runtime,
    cancels: Cancels,
    work: impl Future<Output = T>,
) -> Result<Ran<T>, u8> {
    runtime.block_on(async {
        let (mut int, mut term, mut hup) = signals()?;
        let mut work = std::pin::pin!(work);
        let (code, signal) = tokio::select! {
            out = &mut work => return Ok(Ran::Done(out)),
            _ = int.recv() => (EXIT_SIGINT, "SIGINT"),
            _ = term.recv() => (EXIT_SIGTERM, "SIGTERM"),
            _ = hup.recv() => (EXIT_SIGHUP, "SIGHUP"),
        };
        cancels.run.cancel();
        let partial = tokio::select! {
            out = &mut work => Some(out),
            _ = int.recv() => None,
            _ = term.recv() => None,
            _ = hup.recv() => None,
        };
        let partial = match partial {
            Some(out) => Some(out),
            None => {
                cancels.shutdown.cancel();
                tokio::time::timeout(CANCEL_GRACE, work).await.ok()
            }
        };
        Ok(Ran::Interrupted(Interrupted {
            code,
            signal,
            partial,
        }))
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

/// `agent-hooks policy-eval`: reads one policy request on stdin, prints
/// the query's value as JSON (nothing when undefined) and returns 0, or
/// prints the error on stderr and returns 1
/// ([`hooks_runtime::answer_policy_request`]).
pub(crate) fn policy_eval() -> u8 {
    use std::io::Read as _;
    let mut request = Vec::new();
    if let Err(e) = std::io::stdin().lock().read_to_end(&mut request) {
        eprintln!("cannot read the policy request: {e}");
        return 1;
    }
    let value = match hooks_runtime::answer_policy_request(&request) {
        Ok(value) => value,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    if let Some(value) = value
        && let Err(e) = serde_json::to_writer(std::io::stdout().lock(), &value)
    {
        eprintln!("cannot write the value: {e}");
        return 1;
    }
    0
}

/// The policy process of this binary's hook runtimes: this executable's
/// `policy-eval` ([`hooks_runtime::ShellRuntime::with_policy_process`];
/// used only under a memory cap). `None` when the executable's path is
/// unknown: policies then evaluate in process.
pub(crate) fn policy_process() -> Option<Vec<String>> {
    let exe = std::env::current_exe().ok()?;
    Some(vec![
        exe.to_string_lossy().into_owned(),
        "policy-eval".to_owned(),
    ])
}
