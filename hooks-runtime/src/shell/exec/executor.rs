//! The executor: preflight, spawn, concurrent stdin/stdout/stderr, deadline,
//! termination, reaping.

use std::ffi::OsStr;
use std::future::Future;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::pin::pin;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin, Command};
use tokio::time::{Instant, sleep_until, timeout};
use tokio_util::sync::CancellationToken;

use super::command::{CommandForm, ExecRequest};
use super::env::build_env;
use super::group::Running;
use super::outcome::{Captured, ExecFailure, ExecOutcome, ExecStatus};
use super::preflight::{PreflightError, canonical_root, check_form, resolve_cwd};
use super::prepared::Prepared;
use super::read::{BoundedCapture, drain_into};
use crate::core::report::FailureKind;

/// How long to wait for the direct child to be reaped after SIGKILL before
/// leaving it to a background reaper (a process in uninterruptible sleep
/// cannot die until its system call returns).
const REAP_LIMIT: Duration = Duration::from_secs(5);

/// Runs commands for hooks and for an agent's own bash tool: one safety path
/// for both.
///
/// Every child:
/// - runs in the canonical cwd, which must lie inside the workspace root;
/// - gets an environment built from an allowlist
///   ([`BASE_ENV`](super::BASE_ENV) plus the request's
///   [`EnvSpec`](super::EnvSpec)), never `BASH_ENV` or `ENV`;
/// - leads its own process group; the whole group is killed when the
///   invocation ends, however it ends, so background processes started by a
///   hook (`sleep 30 &`) never outlive it;
/// - has its stdout and stderr read by bounded readers while its stdin is
///   written, so no pipe can deadlock it.
///
/// Cloning is cheap (the configuration is shared).
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// use hooks_runtime::{CancellationToken, ExecRequest, ExecStatus, Executor};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// let executor = Executor::new(std::env::temp_dir())?;
/// let mut req = ExecRequest::shell(r#"read -r line; printf '%s' "$line""#);
/// req.stdin = Some(br#"{"tool_name":"bash"}"#.to_vec());
/// req.timeout = Duration::from_secs(5);
/// let outcome = rt.block_on(executor.run(&req, &CancellationToken::new()));
/// assert_eq!(outcome.status, ExecStatus::Exited(0));
/// assert_eq!(outcome.stdout.bytes, br#"{"tool_name":"bash"}"#);
/// # Ok(())
/// # }
/// ```
///
/// # Known limitations
///
/// - Without `pre_exec` (unsafe code is forbidden in this workspace) the
///   executor cannot set Linux's parent-death signal: if the agent process
///   itself is killed with SIGKILL, a running hook is not killed with it.
///   Every other way out (dropping the `run` future, runtime shutdown, the
///   agent exiting through drop) kills the group.
/// - A process that leaves the group (`setsid`, a daemonizing double fork
///   into a new session) is out of reach: it is not killed, and the readers
///   stop waiting for its output after the drain grace.
/// - The group is killed by its id after the direct child was reaped; Linux
///   does not hand out a process id still in use as a group id, and ids are
///   allocated sequentially, so the id cannot name another group within the
///   drain grace in practice.
#[derive(Debug, Clone)]
pub struct Executor {
    root: Arc<Path>,
    kill_grace: Duration,
    drain_grace: Duration,
}

enum End {
    Exited(io::Result<ExitStatus>),
    TimedOut,
    Cancelled,
}

impl Executor {
    /// Default time between SIGTERM and SIGKILL on timeout or cancellation:
    /// 200 ms.
    pub const DEFAULT_KILL_GRACE: Duration = Duration::from_millis(200);
    /// Default time the pipe readers get after the direct child exits (for
    /// output still in the pipes): 100 ms.
    pub const DEFAULT_DRAIN_GRACE: Duration = Duration::from_millis(100);

    /// An executor confined to `workspace_root` (canonicalized here), with
    /// the default kill and drain graces.
    ///
    /// # Errors
    ///
    /// [`PreflightError::WorkspaceRoot`] when the root cannot be
    /// canonicalized (e.g. it does not exist),
    /// [`PreflightError::RootNotDirectory`] when it is not a directory.
    pub fn new(workspace_root: impl AsRef<Path>) -> Result<Self, PreflightError> {
        let root = canonical_root(workspace_root.as_ref())?;
        Ok(Executor {
            root: Arc::from(root),
            kill_grace: Self::DEFAULT_KILL_GRACE,
            drain_grace: Self::DEFAULT_DRAIN_GRACE,
        })
    }

    /// Sets the time between SIGTERM and SIGKILL to the group on timeout or
    /// cancellation.
    #[must_use]
    pub fn with_kill_grace(mut self, grace: Duration) -> Self {
        self.kill_grace = grace;
        self
    }

    /// Sets how long the pipe readers may keep reading after the direct
    /// child exited (a grandchild may hold the pipes open).
    #[must_use]
    pub fn with_drain_grace(mut self, grace: Duration) -> Self {
        self.drain_grace = grace;
        self
    }

    /// The canonical workspace root.
    pub fn workspace_root(&self) -> &Path {
        &self.root
    }

    /// The canonical workspace root, shared.
    pub(super) fn root(&self) -> &Arc<Path> {
        &self.root
    }

    /// The time between SIGTERM and SIGKILL.
    pub fn kill_grace(&self) -> Duration {
        self.kill_grace
    }

    /// The readers' grace after the direct child exits.
    pub fn drain_grace(&self) -> Duration {
        self.drain_grace
    }

    /// Runs `req` to completion, timeout or cancellation.
    ///
    /// Sequence: preflight (cwd, argv, environment names); spawn in a new
    /// process group (a stdin of up to `PIPE_BUF` with its newline, 4 KiB
    /// on Linux and 512 bytes elsewhere, is already in the child's stdin
    /// pipe then, with end-of-file behind it); write a larger stdin while
    /// reading stdout and stderr; race the
    /// direct child's exit against `req.timeout` (on the parent's clock) and
    /// `cancel`.
    /// - The child exits: the readers get the drain grace to finish, then the
    ///   group is sent SIGKILL (leftover background processes die) and the
    ///   readers stop. Status: [`ExecStatus::Exited`] with the code, or
    ///   [`FailureKind::Signalled`] when a signal killed it.
    /// - The deadline passes or `cancel` fires: SIGTERM and SIGCONT to the
    ///   group, up to the kill grace for the child to exit, SIGKILL to the
    ///   group, reap. Status: [`FailureKind::TimedOut`] or
    ///   [`FailureKind::Cancelled`], whatever the child did meanwhile. A
    ///   stopped child, a child ignoring SIGTERM or a grandchild holding the
    ///   pipes cannot extend this: the call returns within about
    ///   `timeout + kill_grace + drain_grace`.
    ///
    /// Writing stdin stops silently on any error: `EPIPE` from a child that
    /// exits without reading its stdin is expected and not a failure.
    ///
    /// # Errors
    ///
    /// None as a `Result`: every failure is in [`ExecOutcome::status`].
    /// Preflight refusals and OS spawn errors (program not found, cwd
    /// missing) are [`FailureKind::SpawnFailed`] with the reason in
    /// [`ExecFailure::detail`]; nothing is spawned then and
    /// [`ExecOutcome::pid`] is `None`. A `cancel` already fired at the start
    /// gives [`FailureKind::Cancelled`] without spawning.
    ///
    /// # Panics
    ///
    /// Never panics; must be polled inside a tokio runtime with the `time`
    /// and `process` drivers (any runtime built with `enable_all`). Do not
    /// use it under paused test time (`tokio::time::pause`): the deadline
    /// would pass as soon as the runtime idles while the child runs.
    ///
    /// # Cancel safety
    ///
    /// Dropping the returned future at any await point kills the child's
    /// whole process group with SIGKILL and hands the child to a background
    /// task that reaps it; no process of the invocation is left running and
    /// no zombie remains. The captured output is lost.
    pub fn run<'a>(
        &'a self,
        req: &'a ExecRequest,
        cancel: &'a CancellationToken,
    ) -> impl Future<Output = ExecOutcome> + Send + 'a {
        self.run_inner(req, cancel)
    }

    async fn run_inner(&self, req: &ExecRequest, cancel: &CancellationToken) -> ExecOutcome {
        let start = Instant::now();
        if cancel.is_cancelled() {
            return cancelled_before(start);
        }
        let launch = Launch {
            stdin: req.stdin.as_deref(),
            timeout: req.timeout,
            stdout_cap: req.stdout_cap,
            stderr_cap: req.stderr_cap,
        };
        let spawned = self
            .command(req)
            .map_err(|err| ExecFailure::new(FailureKind::SpawnFailed, err.to_string()))
            .and_then(|mut command| spawn(&mut command, launch.stdin));
        self.drive(spawned, launch, cancel, start).await
    }

    /// [`Executor::run`] of the request `shape` builds, spawned from the
    /// command `prepared` keeps for it (built on the first run, and again
    /// when what it was built from changed: see [`Prepared`]), with the
    /// stdin, deadline and caps of `launch`. The same preflight, spawn,
    /// deadline, cancellation and reaping as `run`.
    ///
    /// # Cancel safety
    ///
    /// As [`Executor::run`].
    pub(crate) async fn run_prepared(
        &self,
        prepared: &Prepared,
        shape: impl FnOnce() -> ExecRequest,
        launch: Launch<'_>,
        cancel: &CancellationToken,
    ) -> ExecOutcome {
        let start = Instant::now();
        if cancel.is_cancelled() {
            return cancelled_before(start);
        }
        let spawned = prepared.spawn(self, shape, launch.stdin);
        self.drive(spawned, launch, cancel, start).await
    }

    /// Drives a spawned child (or reports why it was not spawned) with the
    /// stdin its [`spawn`] left to write: that written while stdout and
    /// stderr are read, the race of its exit
    /// against the deadline and `cancel`, termination and reaping
    /// ([`Executor::run`]).
    async fn drive(
        &self,
        spawned: Result<(Child, Option<&[u8]>), ExecFailure>,
        launch: Launch<'_>,
        cancel: &CancellationToken,
        start: Instant,
    ) -> ExecOutcome {
        let (mut child, to_write) = match spawned {
            Ok(spawned) => spawned,
            Err(failure) => return failed_at(start, failure),
        };
        let pid = child.id();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let mut running = Running::new(child);
        let deadline = start
            .checked_add(launch.timeout)
            .unwrap_or_else(|| start + Duration::from_secs(100 * 365 * 24 * 3600));

        let mut out = BoundedCapture::new(launch.stdout_cap);
        let mut err = BoundedCapture::new(launch.stderr_cap);
        let (end, reaped) = {
            let io = async {
                let read_out = async {
                    if let Some(stdout) = stdout {
                        drain_into(stdout, &mut out).await;
                    }
                };
                let read_err = async {
                    if let Some(stderr) = stderr {
                        drain_into(stderr, &mut err).await;
                    }
                };
                tokio::join!(feed_stdin(stdin, to_write), read_out, read_err);
            };
            let mut io = pin!(io);
            let mut io_done = false;
            // Made once, not per wake-up: each would register again (the
            // timer in the runtime's wheel, the waiter in the token's list).
            let mut cancelled = pin!(cancel.cancelled());
            let mut expired = pin!(sleep_until(deadline));
            let end = loop {
                tokio::select! {
                    biased;
                    () = &mut cancelled => break End::Cancelled,
                    status = running.wait() => break End::Exited(status),
                    () = &mut expired => break End::TimedOut,
                    () = &mut io, if !io_done => io_done = true,
                }
            };
            let mut reaped = matches!(end, End::Exited(_));
            if reaped {
                if !io_done {
                    io_done = timeout(self.drain_grace, &mut io).await.is_ok();
                }
            } else {
                running.terminate();
                let mut grace = pin!(sleep_until(Instant::now() + self.kill_grace));
                loop {
                    tokio::select! {
                        biased;
                        status = running.wait() => {
                            reaped = status.is_ok();
                            break;
                        }
                        () = &mut grace => break,
                        () = &mut io, if !io_done => io_done = true,
                    }
                }
            }
            // Always: leftovers of the group (background jobs, a child that
            // ignored SIGTERM, a stopped child) die now.
            running.kill();
            if !reaped {
                reaped = matches!(timeout(REAP_LIMIT, running.wait()).await, Ok(Ok(_)));
            }
            if !io_done {
                // The group is dead, so its pipe ends are closed unless a
                // process escaped the group (setsid): read what is buffered,
                // then stop.
                let _ = timeout(self.drain_grace, &mut io).await;
            }
            (end, reaped)
        };
        if reaped {
            running.settle();
        } else {
            drop(running);
        }

        let status = match end {
            End::Exited(Ok(status)) => exit_status(status),
            End::Exited(Err(err)) => ExecStatus::Failed(ExecFailure::new(
                FailureKind::SpawnFailed,
                format!("cannot wait for the process: {err}"),
            )),
            End::TimedOut => ExecStatus::Failed(ExecFailure::new(
                FailureKind::TimedOut,
                format!("timed out after {} ms", launch.timeout.as_millis()),
            )),
            End::Cancelled => ExecStatus::Failed(ExecFailure::new(
                FailureKind::Cancelled,
                "cancelled while the process was running",
            )),
        };
        ExecOutcome {
            status,
            stdout: out.finish(),
            stderr: err.finish(),
            elapsed: start.elapsed(),
            pid,
        }
    }

    /// Preflight plus the `Command` to spawn.
    pub(crate) fn command(&self, req: &ExecRequest) -> Result<Command, PreflightError> {
        self.command_reading(req, |name| std::env::var_os(name))
            .map(|built| built.command)
    }

    /// [`Executor::command`] with the parent's environment read through
    /// `parent`, and what the command was built from besides `req`.
    pub(super) fn command_reading(
        &self,
        req: &ExecRequest,
        parent: impl FnMut(&str) -> Option<std::ffi::OsString>,
    ) -> Result<Built, PreflightError> {
        check_form(req)?;
        let cwd = resolve_cwd(&self.root, req.cwd.as_deref())?;
        let env = build_env(&req.env, parent)?;
        let path = env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone());
        let mut command = match (&req.form, req.memory_limit) {
            (CommandForm::Shell(text), None) => {
                let mut command = Command::new("/bin/sh");
                // `--`: a command text starting with `-` is not an option.
                command.arg("-c").arg("--").arg(text);
                command
            }
            (CommandForm::Shell(text), Some(bytes)) => {
                let mut command = memory_wrapper(bytes);
                command.arg("/bin/sh").arg("-c").arg("--").arg(text);
                command
            }
            (CommandForm::Exec(argv), limit) => {
                let Some((name, args)) = argv.split_first() else {
                    return Err(PreflightError::EmptyArgv);
                };
                let program = path.as_deref().and_then(|p| lookup_program(name, p, &cwd));
                let file = program.as_deref().unwrap_or(Path::new(name));
                let mut command = match limit {
                    None => {
                        let mut command = Command::new(file);
                        command.arg0(name);
                        command
                    }
                    Some(bytes) => {
                        let mut command = memory_wrapper(bytes);
                        command.arg(file);
                        command
                    }
                };
                command.args(args);
                command
            }
        };
        command
            .env_clear()
            .envs(env)
            .current_dir(&cwd)
            .stdin(if req.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        Ok(Built { command, cwd })
    }
}

/// The `/bin/sh` script that sets the data memory cap (`$1`, in KiB) and
/// `exec`s the rest of its arguments: the cap holds before the command's
/// first instruction (no window between spawn and limit), and a cap the
/// shell cannot set fails the run with exit code 126 before anything runs.
const MEMORY_WRAPPER: &str = "ulimit -d \"$1\" || exit 126\nshift\nexec \"$@\"";

/// `/bin/sh -c MEMORY_WRAPPER sh KIB`: add the command's argv to it
/// ([`ExecRequest::memory_limit`]).
fn memory_wrapper(bytes: u64) -> Command {
    let mut command = Command::new("/bin/sh");
    command
        .arg("-c")
        .arg(MEMORY_WRAPPER)
        .arg("sh")
        .arg(bytes.div_ceil(1024).to_string());
    command
}

/// A command [`Executor::command_reading`] built, with the canonical cwd.
pub(super) struct Built {
    pub(super) command: Command,
    pub(super) cwd: PathBuf,
}

/// The stdin, deadline and output caps of one run
/// ([`ExecRequest`]'s fields of the same names).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Launch<'a> {
    /// Written to stdin, then `"\n"`; `None`: nothing is written (the
    /// child's stdin is what its command was built with: `/dev/null` for a
    /// request without stdin, else a pipe closed at once).
    pub(crate) stdin: Option<&'a [u8]>,
    /// Deadline from the start of the run.
    pub(crate) timeout: Duration,
    /// Bytes of stdout kept.
    pub(crate) stdout_cap: usize,
    /// Bytes of stderr kept.
    pub(crate) stderr_cap: usize,
}

/// The largest stdin (payload and its `"\n"`, in bytes) written into the
/// pipe before the spawn: `PIPE_BUF`, which an empty pipe takes at once
/// without blocking (Linux gives a pipe at least one 4 KiB page even when
/// the user's pipe limit is reached, pipe(7); POSIX guarantees 512 bytes).
#[cfg(target_os = "linux")]
const PREFILL_MAX: usize = 4096;
#[cfg(not(target_os = "linux"))]
const PREFILL_MAX: usize = 512;

/// Spawns `command`; an OS error is a `spawn_failed` failure.
///
/// A `stdin` of up to [`PREFILL_MAX`] bytes with its `"\n"` is written into
/// a fresh pipe before the spawn and the pipe's write end closed: the child
/// finds the payload and then end-of-file, as when the parent writes after
/// the spawn, and the parent registers no stdin with the runtime and writes
/// nothing afterwards (two `epoll_ctl` and two `fcntl` fewer per run).
/// Returns the child and the stdin still to write ([`feed_stdin`]): `None`
/// when it was prefilled (or there is none). When the pipe cannot be made
/// the command's own stdin (piped) is used.
pub(super) fn spawn<'s>(
    command: &mut Command,
    stdin: Option<&'s [u8]>,
) -> Result<(Child, Option<&'s [u8]>), ExecFailure> {
    let prefilled = match stdin.and_then(prefilled_pipe) {
        Some(read) => {
            command.stdin(Stdio::from(read));
            true
        }
        None => false,
    };
    let spawned = command.spawn();
    if prefilled {
        // The kept command's stdin is a pipe made per spawn again (this
        // drops the parent's copy of the read end).
        command.stdin(Stdio::piped());
    }
    let left = if prefilled { None } else { stdin };
    spawned.map(|child| (child, left)).map_err(|err| {
        ExecFailure::new(
            FailureKind::SpawnFailed,
            format!("cannot start the process: {err}"),
        )
    })
}

/// The read end of a new close-on-exec pipe (`std::io::pipe`) holding
/// `payload` and `"\n"`, its write end closed; `None` when they are over
/// [`PREFILL_MAX`] or the pipe cannot be made or filled at once.
fn prefilled_pipe(payload: &[u8]) -> Option<io::PipeReader> {
    if payload.len() >= PREFILL_MAX {
        return None;
    }
    let (read, mut write) = io::pipe().ok()?;
    let parts = [io::IoSlice::new(payload), io::IoSlice::new(b"\n")];
    // At most `PIPE_BUF` bytes into an empty pipe: written whole at once.
    let written = io::Write::write_vectored(&mut write, &parts).ok()?;
    (written == payload.len() + 1).then_some(read)
}

/// The outcome of a run that failed before its process ran.
fn failed_at(start: Instant, failure: ExecFailure) -> ExecOutcome {
    ExecOutcome {
        status: ExecStatus::Failed(failure),
        stdout: Captured::default(),
        stderr: Captured::default(),
        elapsed: start.elapsed(),
        pid: None,
    }
}

/// The outcome of a run whose token was cancelled before it started.
fn cancelled_before(start: Instant) -> ExecOutcome {
    failed_at(
        start,
        ExecFailure::new(
            FailureKind::Cancelled,
            "cancelled before the process was started",
        ),
    )
}

/// The file a bare program name (no `/`) names in the child's `path`, the
/// way `execvp` looks it up: the first regular file with an execute bit in
/// the `:`-separated directories, in order (an empty entry and relative
/// entries are relative to the child's `cwd`); `None` when `program`
/// contains a `/` or no entry has it (the spawn then reports the error).
///
/// Resolving here is what keeps the spawn cheap: with a cleared
/// environment and a bare name, the standard library cannot use
/// `posix_spawnp` (it would search the parent's `PATH`) and falls back to
/// `fork` + `exec`, which copies the agent's page tables on every hook; an
/// absolute path keeps it on `posix_spawn` (`CLONE_VFORK`).
pub(super) fn lookup_program(program: &str, path: &OsStr, cwd: &Path) -> Option<PathBuf> {
    if program.contains('/') || program.is_empty() {
        return None;
    }
    std::env::split_paths(path)
        .map(|dir| cwd.join(dir).join(program))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Writes `payload` and one `"\n"`, then closes stdin. Any write error ends
/// the write silently (`EPIPE`: the child does not read its stdin).
async fn feed_stdin(stdin: Option<ChildStdin>, payload: Option<&[u8]>) {
    let (Some(mut stdin), Some(payload)) = (stdin, payload) else {
        return;
    };
    // Vectored writes of the payload and its newline: a payload the pipe
    // takes at once (up to 64 KiB) costs one syscall, not two.
    let mut parts = [io::IoSlice::new(payload), io::IoSlice::new(b"\n")];
    let mut left = &mut parts[..];
    while !left.is_empty() {
        let written = std::future::poll_fn(|cx| {
            tokio::io::AsyncWrite::poll_write_vectored(std::pin::Pin::new(&mut stdin), cx, left)
        })
        .await;
        match written {
            Ok(n) if n > 0 => io::IoSlice::advance_slices(&mut left, n),
            _ => return,
        }
    }
    let _ = stdin.shutdown().await;
}

fn exit_status(status: ExitStatus) -> ExecStatus {
    if let Some(code) = status.code() {
        return ExecStatus::Exited(code);
    }
    match status.signal() {
        Some(signal) => ExecStatus::Failed(
            ExecFailure::new(
                FailureKind::Signalled,
                format!("killed by signal {signal}{}", signal_name(signal)),
            )
            .with_signal(signal),
        ),
        None => ExecStatus::Failed(ExecFailure::new(
            FailureKind::Signalled,
            "ended without an exit code or a signal",
        )),
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        1 => " (`SIGHUP`)",
        2 => " (`SIGINT`)",
        3 => " (`SIGQUIT`)",
        4 => " (`SIGILL`)",
        6 => " (`SIGABRT`)",
        7 => " (`SIGBUS`)",
        8 => " (`SIGFPE`)",
        9 => " (`SIGKILL`)",
        11 => " (`SIGSEGV`)",
        13 => " (`SIGPIPE`)",
        14 => " (`SIGALRM`)",
        15 => " (`SIGTERM`)",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn write_program(path: &Path, body: &str, mode: u32) {
        std::fs::write(path, body).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    /// A payload that fits `PIPE_BUF` with its newline is in the pipe
    /// before the spawn (nothing is left to write); a larger one is not.
    #[tokio::test]
    async fn a_payload_up_to_pipe_buf_is_written_before_the_spawn() {
        for (len, prefilled) in [(0, true), (PREFILL_MAX - 1, true), (PREFILL_MAX, false)] {
            let payload = vec![b'x'; len];
            let mut command = Command::new("/bin/sh");
            command
                .args(["-c", "wc -c"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped());
            let (child, left) = spawn(&mut command, Some(&payload)).unwrap();
            assert_eq!(left.is_none(), prefilled, "{len} bytes");
            assert_eq!(child.stdin.is_none(), prefilled, "{len} bytes");
            // Closes a stdin still open (nothing written: end-of-file).
            let out = child.wait_with_output().await.unwrap();
            let count: usize = String::from_utf8(out.stdout)
                .unwrap()
                .trim()
                .parse()
                .unwrap();
            assert_eq!(count, if prefilled { len + 1 } else { 0 }, "{len} bytes");
        }
    }

    #[test]
    fn a_bare_name_is_looked_up_like_execvp() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(a.join("prog")).unwrap(); // a directory: skipped
        std::fs::create_dir(&b).unwrap();
        write_program(&b.join("prog"), "", 0o644); // not executable: skipped
        let c = dir.path().join("c");
        std::fs::create_dir(&c).unwrap();
        write_program(&c.join("prog"), "", 0o755);
        let path = std::env::join_paths([&a, &b, &c]).unwrap();
        assert_eq!(
            lookup_program("prog", &path, dir.path()),
            Some(c.join("prog"))
        );
        // Relative entries are relative to the child's cwd.
        assert_eq!(
            lookup_program("prog", OsStr::new("a:c"), dir.path()),
            Some(c.join("prog"))
        );
        assert_eq!(lookup_program("./prog", &path, dir.path()), None);
        assert_eq!(lookup_program("missing", &path, dir.path()), None);
    }

    #[tokio::test]
    async fn the_exec_form_finds_its_program_in_the_childs_path_and_keeps_argv0() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        write_program(&bin.join("only-here"), "#!/bin/sh\necho \"$1\"\n", 0o755);
        let executor = Executor::new(dir.path()).unwrap();
        let mut req = ExecRequest::exec(["only-here", "arg"]);
        req.timeout = Duration::from_secs(10);
        // Not in the parent's PATH: only the child's has it.
        req.env
            .set
            .push(("PATH".into(), format!("{}:/usr/bin:/bin", bin.display())));
        let out = executor.run(&req, &CancellationToken::new()).await;
        assert_eq!(out.status, ExecStatus::Exited(0), "{out:?}");
        assert_eq!(out.stdout.bytes, b"arg\n");

        // argv[0] stays the name the config gave.
        let mut req = ExecRequest::exec(["sh", "-c", "printf '%s' \"$0\""]);
        req.timeout = Duration::from_secs(10);
        let out = executor.run(&req, &CancellationToken::new()).await;
        assert_eq!(out.stdout.bytes, b"sh");

        let mut req = ExecRequest::exec(["no-such-program-anywhere"]);
        req.timeout = Duration::from_secs(10);
        let out = executor.run(&req, &CancellationToken::new()).await;
        let failure = out.status.failure().unwrap();
        assert_eq!(failure.kind, FailureKind::SpawnFailed);
    }
}
