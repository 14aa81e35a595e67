//! What to run: the command form, its environment, its limits.

use std::path::PathBuf;
use std::time::Duration;

/// How the command is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandForm {
    /// Shell form: run as `/bin/sh -c -- <text>`. No `-l`, no `-i`: no profile
    /// or rc file is sourced (and `ENV`/`BASH_ENV` are never passed).
    Shell(String),
    /// Exec form: `argv[0]` is the program (looked up in the child's `PATH`
    /// when it has no `/`), the rest are its arguments; no shell is involved.
    /// An empty vector is refused as [`FailureKind::SpawnFailed`](crate::FailureKind::SpawnFailed).
    Exec(Vec<String>),
}

/// The child's environment on top of the executor's base allowlist
/// ([`BASE_ENV`](super::BASE_ENV)).
///
/// The child never inherits the parent's environment wholesale: it gets the
/// base names that are set in the parent, then the names in `pass` that are
/// set in the parent, then the `set` pairs (later entries override earlier
/// ones). `BASH_ENV` and `ENV` are dropped from `pass` and `set` alike:
/// they make a shell source a file before running the command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvSpec {
    /// Names copied from the parent's environment when set there.
    pub pass: Vec<String>,
    /// Pairs set in the child's environment, overriding inherited values.
    pub set: Vec<(String, String)>,
}

/// One request to the [`Executor`](super::Executor).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecRequest {
    /// What to run.
    pub form: CommandForm,
    /// Working directory: absolute, or relative to the executor's workspace
    /// root; `None` means the workspace root. It is canonicalized (symlinks
    /// resolved) and must lie inside the workspace root.
    pub cwd: Option<PathBuf>,
    /// Environment additions on top of the base allowlist.
    pub env: EnvSpec,
    /// Deadline for the whole invocation, measured on the parent's clock from
    /// the start of `run`. Termination (SIGTERM, the executor's kill grace,
    /// SIGKILL) happens after it.
    pub timeout: Duration,
    /// The payload for stdin. `Some(p)`: `p` followed by one `"\n"` is written
    /// to the child's stdin concurrently with reading its output, then stdin
    /// is closed. `None`: stdin is `/dev/null`.
    pub stdin: Option<Vec<u8>>,
    /// Bytes of stdout kept; the rest is read, counted and dropped.
    pub stdout_cap: usize,
    /// Bytes of stderr kept; the rest is read, counted and dropped.
    pub stderr_cap: usize,
    /// The process's data memory cap in bytes (`RLIMIT_DATA`: heap and
    /// private writable mappings), or `None` for none. It is set by a
    /// `/bin/sh` wrapper (`ulimit -d`) that then `exec`s the command, so it
    /// holds from the command's first instruction and for every process
    /// the command starts; an allocation over it fails (a process usually
    /// ends with a nonzero exit or `SIGABRT` / `SIGSEGV`). Rounded up to a
    /// whole KiB. With it, an exec-form program runs as its resolved path
    /// (`argv[0]` is that path).
    pub memory_limit: Option<u64>,
}

impl ExecRequest {
    /// Default per-stream cap: the config language's default
    /// `max_output_bytes`, 1 MiB (1_048_576 bytes).
    pub const DEFAULT_CAP: usize = hooks_plan::Limits::DEFAULT.max_output_bytes as usize;
    /// Default timeout: the config language's default timeout of a `run`
    /// action ([`DEFAULT_TIMEOUT_MS`](hooks_plan::DEFAULT_TIMEOUT_MS), 30 s).
    pub const DEFAULT_TIMEOUT: Duration =
        std::time::Duration::from_millis(hooks_plan::DEFAULT_TIMEOUT_MS);

    /// A request for `form` with no cwd (the workspace root), no extra
    /// environment, no stdin, [`DEFAULT_TIMEOUT`](Self::DEFAULT_TIMEOUT) and
    /// [`DEFAULT_CAP`](Self::DEFAULT_CAP) for both streams, no memory cap.
    pub fn new(form: CommandForm) -> Self {
        ExecRequest {
            form,
            cwd: None,
            env: EnvSpec::default(),
            timeout: Self::DEFAULT_TIMEOUT,
            stdin: None,
            stdout_cap: Self::DEFAULT_CAP,
            stderr_cap: Self::DEFAULT_CAP,
            memory_limit: None,
        }
    }

    /// A shell-form request (`/bin/sh -c command`), see [`ExecRequest::new`].
    pub fn shell(command: impl Into<String>) -> Self {
        Self::new(CommandForm::Shell(command.into()))
    }

    /// An exec-form request, see [`ExecRequest::new`].
    pub fn exec<I, S>(argv: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::new(CommandForm::Exec(
            argv.into_iter().map(Into::into).collect(),
        ))
    }
}
