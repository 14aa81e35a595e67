//! The session-wide half of shell hooks: [`ShellRuntime`] (executor,
//! records, activity sink, session directory, limits, secrets,
//! cancellation) and its [`HookLimits`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::background::Background;
use crate::shell::activity::ActivitySink;
use crate::shell::exec::worker::{RestartBudget, WorkerPool};
use crate::shell::payload::{self, PayloadError, PayloadLimits};
use crate::shell::records::RecordWriter;
use crate::shell::redact::SecretSet;
use crate::{CancellationToken, CommandForm, Executor, ProcessTarget};
use tokio::sync::Semaphore;

/// Limits of a session's shell hooks (the config's `limits`, converted
/// with `From<&Limits>`; the default is the config language's
/// [`Limits::DEFAULT`](hooks_plan::Limits::DEFAULT)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookLimits {
    /// Payload size limits (stdin cap, spill cap).
    pub payload: PayloadLimits,
    /// Bytes of a hook's stdout kept (default 1 MiB); more is
    /// `output_too_large`.
    pub stdout_cap: usize,
    /// Bytes of a hook's stderr kept (default 1 MiB); more is dropped.
    /// When stderr is cut, its last partial word is dropped too before it
    /// becomes a reason or a failure detail: the cut may fall inside a
    /// secret, whose prefix redaction could not recognise (see
    /// protocol).
    pub stderr_cap: usize,
    /// Most bytes of context one hook may inject at once (sum of the items'
    /// UTF-8 lengths; default 64 KiB); more is `output_too_large`.
    pub max_context_bytes: usize,
    /// How many invocations of `run`, `http` and `policy` hooks the runtime
    /// runs at once, over all events (default 32, at least 1); more wait
    /// for a slot, their timeout counted from when they were called.
    pub max_concurrent_hooks: usize,
    /// How many of the hooks of one event run at once (default 8, at least
    /// 1); more wait for a slot, as above.
    pub max_concurrent_hooks_per_event: usize,
    /// The `RLIMIT_DATA` of every hook process, in bytes (default `None`:
    /// no cap); see [`ExecRequest::memory_limit`](crate::ExecRequest::memory_limit).
    pub memory_bytes: Option<u64>,
    /// How many background hooks (`async: true`) the runtime runs at once
    /// (default 32, at least 1), in slots of their own: they never take
    /// one of [`HookLimits::max_concurrent_hooks`]. A background hook's
    /// timeout counts from when it got its slot.
    pub max_async_hooks: usize,
    /// How many background hooks may wait for a slot (default 64); one
    /// more is not run and writes a `refused` record. Also how many
    /// background results of one run may wait for delivery; one more is
    /// dropped (a `dropped` injection record).
    pub max_async_queued: usize,
    /// How many background hooks' context one turn of a run receives
    /// (default 8, at least 1); the rest wait for the next turn.
    pub max_async_deliveries_per_turn: usize,
}

impl From<&hooks_plan::Limits> for HookLimits {
    /// `max_payload_bytes` caps the stdin payload, `max_output_bytes` caps
    /// stdout and stderr each, `max_context_bytes` caps one invocation's
    /// injected context, the two concurrency limits and the memory cap
    /// carry over, and so do the three bounds of background hooks
    /// (`max_stop_resumes_per_turn` is the driver's:
    /// [`HookStack::stop_cap`](crate::HookStack::stop_cap)). The payload spill cap keeps its default (16 MiB). Values beyond `usize`
    /// saturate.
    fn from(limits: &hooks_plan::Limits) -> Self {
        let bytes = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        HookLimits {
            payload: PayloadLimits {
                stdin_cap: bytes(limits.max_payload_bytes),
                ..PayloadLimits::default()
            },
            stdout_cap: bytes(limits.max_output_bytes),
            stderr_cap: bytes(limits.max_output_bytes),
            max_context_bytes: bytes(limits.max_context_bytes),
            max_concurrent_hooks: bytes(limits.max_concurrent_hooks.into()),
            max_concurrent_hooks_per_event: bytes(limits.max_concurrent_hooks_per_event.into()),
            memory_bytes: limits.max_hook_memory_bytes,
            max_async_hooks: bytes(limits.max_async_hooks.into()),
            max_async_queued: bytes(limits.max_async_queued.into()),
            max_async_deliveries_per_turn: bytes(limits.max_async_deliveries_per_turn.into()),
        }
    }
}

impl Default for HookLimits {
    /// The config language's defaults ([`Limits::DEFAULT`](hooks_plan::Limits::DEFAULT)):
    /// 1 MiB payload, 1 MiB each of stdout and stderr, 64 KiB of context,
    /// 32 hooks at once per runtime and 8 per event, no memory cap; 32
    /// background hooks at once, 64 queued, 8 deliveries per turn.
    fn default() -> Self {
        HookLimits::from(&hooks_plan::Limits::DEFAULT)
    }
}

/// The session-wide part of shell hooks: executor, records, activity sink,
/// session directory, limits, declared secrets and cancellation. Share it
/// with `Arc`; runs sharing it share nothing else (each invocation's
/// diagnostics are in its own [`Invocation::report`](super::Invocation::report)).
pub struct ShellRuntime {
    // Read by the invocation steps (the sibling modules).
    pub(super) executor: Executor,
    pub(super) records: Option<RecordWriter>,
    pub(super) activity: Option<Arc<dyn ActivitySink>>,
    pub(super) session_dir: Option<PathBuf>,
    pub(super) limits: HookLimits,
    pub(super) secrets: SecretSet,
    pub(super) cancel: CancellationToken,
    /// The runtime's slots: [`HookLimits::max_concurrent_hooks`] permits.
    pub(super) slots: Semaphore,
    /// Its background hooks: their slots, queue, undelivered context and
    /// runs ([`Background`]).
    pub(crate) background: Background,
    /// The worker pools started so far, by hook id.
    workers: Mutex<HashMap<Arc<str>, Arc<WorkerPool>>>,
    worker_restart_limit: u32,
    worker_restart_window: Duration,
    /// Where `policy` hooks evaluate under a memory cap, if anywhere but
    /// in process ([`ShellRuntime::with_policy_process`]).
    pub(super) policy_process: Option<ProcessTarget>,
    /// The managed layer's switches `http` hooks are held to, if any
    /// ([`ShellRuntime::with_switches`]).
    pub(super) switches: Option<Arc<hooks_plan::Switches>>,
}

impl std::fmt::Debug for ShellRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShellRuntime")
            .field("root", &self.executor.workspace_root())
            .field("session_dir", &self.session_dir)
            .field("limits", &self.limits)
            .field("worker_restart_limit", &self.worker_restart_limit)
            .field("worker_restart_window", &self.worker_restart_window)
            .field("switches", &self.switches)
            .finish_non_exhaustive()
    }
}

impl ShellRuntime {
    /// A runtime around `executor` with no records file, no activity sink,
    /// no session directory (oversized payloads are elided without a ref),
    /// default limits, no declared secrets, no managed switches (every URL
    /// and header variable allowed) and a fresh cancellation token.
    pub fn new(executor: Executor) -> Self {
        ShellRuntime {
            executor,
            records: None,
            activity: None,
            session_dir: None,
            limits: HookLimits::default(),
            secrets: SecretSet::new(),
            cancel: CancellationToken::new(),
            slots: Semaphore::new(HookLimits::default().max_concurrent_hooks),
            background: Background::new(&HookLimits::default()),
            workers: Mutex::new(HashMap::new()),
            worker_restart_limit: Self::DEFAULT_WORKER_RESTART_LIMIT,
            worker_restart_window: Self::DEFAULT_WORKER_RESTART_WINDOW,
            policy_process: None,
            switches: None,
        }
    }

    /// How many times the processes of one worker pool may be restarted
    /// after failures (timeout, crash, invalid output, a nonzero exit while
    /// idle) within any [`DEFAULT_WORKER_RESTART_WINDOW`](Self::DEFAULT_WORKER_RESTART_WINDOW)
    /// before its requests fail as `spawn_failed` without starting
    /// anything: 3. Once the oldest of those restarts is a window old, the
    /// pool restarts again. A process that exited with code 0 while idle
    /// is replaced without counting.
    pub const DEFAULT_WORKER_RESTART_LIMIT: u32 = 3;

    /// The window the restart limit counts over: one minute.
    pub const DEFAULT_WORKER_RESTART_WINDOW: Duration = Duration::from_secs(60);

    /// Evaluates `policy` hooks in a child process running `argv` (an
    /// `agent-hooks policy-eval` command: the request on its stdin, the
    /// query's value on its stdout, see
    /// [`answer_policy_request`](crate::answer_policy_request)) when
    /// the runtime has a memory cap ([`HookLimits::memory_bytes`]): the
    /// process runs under that cap like a `run` hook and is killed at the
    /// hook's deadline, so a policy that builds a huge value fails as the
    /// process it ran in, under the hook's failure policy, instead of
    /// growing the agent. Without a memory cap, or without this, policies
    /// evaluate in process on a thread of their own (docs/security.md,
    /// *Policy evaluation is bounded*). The `agent-hooks` binary sets it to
    /// itself.
    #[must_use]
    pub fn with_policy_process(mut self, argv: Vec<String>) -> Self {
        self.policy_process = Some(ProcessTarget::new(CommandForm::Exec(argv)));
        self
    }

    /// Sets how many restarts a worker pool gets per window
    /// ([`DEFAULT_WORKER_RESTART_LIMIT`](Self::DEFAULT_WORKER_RESTART_LIMIT)).
    #[must_use]
    pub fn with_worker_restart_limit(mut self, limit: u32) -> Self {
        self.worker_restart_limit = limit;
        self
    }

    /// Sets the window the restart limit counts over
    /// ([`DEFAULT_WORKER_RESTART_WINDOW`](Self::DEFAULT_WORKER_RESTART_WINDOW)).
    #[must_use]
    pub fn with_worker_restart_window(mut self, window: Duration) -> Self {
        self.worker_restart_window = window;
        self
    }

    /// The pool of worker hook `id`, created (no process started) with
    /// `launch` and `size` processes on first use.
    pub(crate) fn worker_pool(
        &self,
        id: &Arc<str>,
        size: u32,
        launch: impl FnOnce() -> crate::ExecRequest,
    ) -> Arc<WorkerPool> {
        let mut pools = self.workers.lock().unwrap_or_else(PoisonError::into_inner);
        let pool = pools.entry(Arc::clone(id)).or_insert_with(|| {
            WorkerPool::new(
                Arc::clone(id),
                launch(),
                size,
                RestartBudget::new(self.worker_restart_limit, self.worker_restart_window),
                &self.cancel,
            )
        });
        Arc::clone(pool)
    }

    /// How many worker pools are open (started lazily, on a worker hook's
    /// first event, and closed by [`ShellRuntime::shutdown_workers`]).
    pub fn open_workers(&self) -> usize {
        self.workers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Shuts every worker pool down (at `run_end`; a
    /// [`Dispatcher`](crate::Dispatcher) does it after folding `run_end` or
    /// `run_error`): waits for requests in flight, closes each process's
    /// stdin, gives it 200 ms to exit, kills its process group and reaps
    /// it. A later event of a worker hook starts a new pool. Cancelling the
    /// runtime's token kills the processes at once, and dropping the
    /// runtime kills their groups too.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future leaves the pools not yet reached to the drop
    /// guards (their groups are killed when the runtime is dropped).
    pub async fn shutdown_workers(&self) {
        let pools: Vec<Arc<WorkerPool>> = self
            .workers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain()
            .map(|(_, pool)| pool)
            .collect();
        for pool in pools {
            pool.shutdown().await;
        }
    }

    /// Writes a record per invocation to `records`.
    #[must_use]
    pub fn with_records(mut self, records: RecordWriter) -> Self {
        self.records = Some(records);
        self
    }

    /// Sends activity events of `show_in_tui` hooks to `sink`.
    #[must_use]
    pub fn with_activity(mut self, sink: Arc<dyn ActivitySink>) -> Self {
        self.activity = Some(sink);
        self
    }

    /// Sets the session directory payload-ref files go to: inside the
    /// executor's workspace root, or outside it when private to the user
    /// (not a symlink, owned by the effective user, mode `0700` or
    /// narrower), as [`SessionDir::create`](crate::SessionDir::create)
    /// makes one. Outside is better: hooks that inspect the workspace
    /// (`git status`) then do not see it.
    ///
    /// # Errors
    ///
    /// [`PayloadError::SessionDirOutsideRoot`] when `dir` is a symlink
    /// resolving outside the root; [`PayloadError::SessionDirNotPrivate`]
    /// when it lies outside the root and is not private;
    /// [`PayloadError::Spill`] when it cannot be resolved.
    pub fn with_session_dir(mut self, dir: impl AsRef<Path>) -> Result<Self, PayloadError> {
        let dir = payload::check_session_dir(dir.as_ref(), self.executor.workspace_root())?;
        self.session_dir = Some(dir);
        Ok(self)
    }

    /// Sets the limits (the runtime's slots, background slots included, are
    /// counted afresh: call it before sharing the runtime).
    #[must_use]
    pub fn with_limits(mut self, limits: HookLimits) -> Self {
        self.slots = Semaphore::new(limits.max_concurrent_hooks.max(1));
        self.background = Background::new(&limits);
        self.limits = limits;
        self
    }

    /// Holds every `http` hook this runtime runs to the managed layer's
    /// `switches`, whatever table the hook comes from (loaded before the
    /// switches, built by `hooks!` or in code), checked before each
    /// request:
    ///
    /// - the hook's URL, as written, must match
    ///   [`Switches::allowed_http_urls`](hooks_plan::Switches::allowed_http_urls)
    ///   ([`Switches::url_allowed`](hooks_plan::Switches::url_allowed));
    /// - with `follow_redirects: true`, so must every redirect target, in
    ///   its parsed form (lower-case host, no default port), before it is
    ///   followed;
    /// - every variable of the hook's `env` list (the variables its
    ///   headers may read) must be in
    ///   [`Switches::allowed_header_env`](hooks_plan::Switches::allowed_header_env).
    ///
    /// A refused hook sends nothing to the refused URL and fails as
    /// [`FailureKind::NotAllowed`](crate::FailureKind::NotAllowed) under its
    /// failure policy (its record names the URL, without its query, or
    /// the variable). The switches' other fields (`disable_all_hooks`,
    /// `managed_hooks_only`) are the loader's and are not read here.
    /// Without this (the default), every URL and variable is allowed.
    #[must_use]
    pub fn with_switches(mut self, switches: Arc<hooks_plan::Switches>) -> Self {
        self.switches = Some(switches);
        self
    }

    /// The managed layer's switches `http` hooks are held to, when set
    /// ([`ShellRuntime::with_switches`]).
    pub fn switches(&self) -> Option<&hooks_plan::Switches> {
        self.switches.as_deref()
    }

    /// Declares secret values to redact from every record and diagnostic.
    #[must_use]
    pub fn with_secrets(mut self, secrets: SecretSet) -> Self {
        self.secrets = secrets;
        self
    }

    /// Uses `cancel` for every invocation: cancelling it stops running hooks
    /// (their process groups are terminated) and fails later ones as
    /// `cancelled` before they spawn.
    #[must_use]
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// The executor.
    pub fn executor(&self) -> &Executor {
        &self.executor
    }

    /// The limits.
    pub fn limits(&self) -> &HookLimits {
        &self.limits
    }

    /// The declared secrets (redacted from everything the runtime writes).
    pub fn secrets(&self) -> &SecretSet {
        &self.secrets
    }

    /// The activity sink, when one is set ([`ShellRuntime::with_activity`]).
    pub(crate) fn activity(&self) -> Option<&dyn ActivitySink> {
        self.activity.as_deref()
    }

    /// The records writer, when records are on: query it for lost records
    /// ([`RecordWriter::failed_writes`], [`RecordWriter::last_error`]).
    pub fn records(&self) -> Option<&RecordWriter> {
        self.records.as_ref()
    }

    /// The cancellation token of the session.
    pub fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Ends the background hooks (`async: true`) of run `run_id`, as a
    /// [`Dispatcher`](crate::Dispatcher) does after folding that run's
    /// `run_end` or `run_error`: the running ones are cancelled (their
    /// process groups terminated, each writing a `failed` record with
    /// failure kind `cancelled`), the queued ones are not started (the same
    /// record), and the context that waited for delivery is dropped, one
    /// `dropped` injection record each. Returns once every one of them has
    /// ended and written its record. Nothing happens for a run without
    /// background hooks. A later background hook of the same run id starts
    /// afresh.
    ///
    /// Call it yourself when the run ends on another runtime than the one
    /// its background hooks run on (the CLI runs `run_end` on a shutdown
    /// runtime of its own).
    ///
    /// # Cancel safety
    ///
    /// Cancellation happens before the first await: dropping the future
    /// only stops waiting for the hooks to end (they end on their own,
    /// writing their records).
    pub async fn end_run(&self, run_id: &str) {
        self.background.end_run(self, run_id).await;
    }

    /// Waits until no background hook (`async: true`) of run `run_id` is
    /// running or queued (each ends within its timeout); what they
    /// returned stays queued for delivery. For one-shot entry points (the
    /// CLI's `test`) that show a background hook's record before the run
    /// ends.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future only stops waiting.
    pub async fn wait_background(&self, run_id: &str) {
        self.background.wait(run_id).await;
    }
}
