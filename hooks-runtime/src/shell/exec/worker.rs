//! Persistent hook workers: a pool of long-lived processes, one JSON
//! request per line on stdin, one JSON response per line on stdout.
//!
//! Framing: each request is the hook's payload (the same JSON object a
//! one-shot hook reads) with one more top-level field, `request_id` (a
//! positive integer, unique within the pool), on one line. The response is
//! the protocol's output object on one line with the same `request_id`
//! echoed back; the runtime removes it and reads the rest as a one-shot
//! hook's stdout with exit code 0. A response without the id, or with
//! another one, is an `invalid_output` failure: the worker is out of step.
//!
//! A worker's stderr goes to `/dev/null`; its stdin is its request stream
//! (closing it is the request to exit).

use std::collections::VecDeque;
use std::io;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::{Mutex, MutexGuard};
use tokio::time::{Instant, sleep_until, timeout};
use tokio_util::sync::CancellationToken;

use super::command::ExecRequest;
use super::executor::Executor;
use super::group::Running;
use super::outcome::{Captured, ExecFailure, ExecOutcome, ExecStatus};
use crate::core::report::FailureKind;

/// The field a request carries and its response echoes.
pub(crate) const REQUEST_ID: &str = "request_id";

/// How long a worker gets after its stdin is closed (shutdown) or after it
/// closed its stdout (crash) before its group is killed.
const EXIT_GRACE: Duration = Duration::from_millis(200);

/// How long to wait for a killed worker to be reaped before leaving it to
/// the background reaper.
const REAP_LIMIT: Duration = Duration::from_secs(5);

/// A pool of worker processes of one hook: started lazily, one request at a
/// time per process, restarted after a failure up to a limit per time
/// window ([`RestartBudget`]).
#[derive(Debug)]
pub(crate) struct WorkerPool {
    hook_id: Arc<str>,
    /// The command, cwd and environment every process starts with (its
    /// `stdin`, timeout and caps are unused).
    launch: ExecRequest,
    slots: Box<[Mutex<Slot>]>,
    next_slot: AtomicUsize,
    next_request: AtomicU64,
    restarts: std::sync::Mutex<RestartBudget>,
    /// Cancelled by the session's cancellation (it is a child token) and
    /// when the pool shuts down or is dropped.
    closed: CancellationToken,
}

/// How many restarts after failures a pool may make per window: at most
/// `limit` within any `window` (a sliding window over the times of the
/// restarts made), so a worker failing now and then keeps being restarted
/// and one that fails at every start stops being restarted at once.
#[derive(Debug)]
pub(crate) struct RestartBudget {
    limit: u32,
    window: Duration,
    /// When the restarts of the last `window` were made, oldest first.
    made: VecDeque<Instant>,
}

impl RestartBudget {
    /// `limit` restarts per `window`.
    pub(crate) fn new(limit: u32, window: Duration) -> Self {
        RestartBudget {
            limit,
            window,
            made: VecDeque::new(),
        }
    }

    /// Takes one restart from the budget at `now`; false when `limit` were
    /// made within the last `window`.
    fn take(&mut self, now: Instant) -> bool {
        while self
            .made
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) >= self.window)
        {
            self.made.pop_front();
        }
        if self.made.len() >= self.limit as usize {
            return false;
        }
        self.made.push_back(now);
        true
    }
}

#[derive(Debug, Default)]
struct Slot {
    process: Option<Process>,
    /// Whether a process was ever started in this slot (a later start is a
    /// restart).
    started: bool,
}

#[derive(Debug)]
struct Process {
    running: Running,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

/// What one exchange came to, before the process is kept or stopped.
enum Exchange {
    Line(Vec<u8>),
    Failed(ExecFailure),
}

impl WorkerPool {
    /// A pool of `size` (at least 1) processes of `launch` for hook
    /// `hook_id`, none started; `session` cancels it. Spawns the task that
    /// stops every process when `session` is cancelled.
    pub(crate) fn new(
        hook_id: Arc<str>,
        launch: ExecRequest,
        size: u32,
        restarts: RestartBudget,
        session: &CancellationToken,
    ) -> Arc<WorkerPool> {
        let slots = (0..size.max(1))
            .map(|_| Mutex::new(Slot::default()))
            .collect();
        let pool = Arc::new(WorkerPool {
            hook_id,
            launch,
            slots,
            next_slot: AtomicUsize::new(0),
            next_request: AtomicU64::new(1),
            restarts: std::sync::Mutex::new(restarts),
            closed: session.child_token(),
        });
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let weak = Arc::downgrade(&pool);
            let closed = pool.closed.clone();
            handle.spawn(async move {
                closed.cancelled().await;
                // Gone already: its processes died with it (drop guard).
                if let Some(pool) = weak.upgrade() {
                    pool.stop_all(false).await;
                }
            });
        }
        pool
    }

    /// Sends `payload` (a JSON object, as the payload builder writes it) to
    /// a free process of the pool (waiting for one, starting it if needed)
    /// and reads its one-line response, within `deadline` on the runtime's
    /// clock (waiting for a free process counts) and `cap` bytes.
    ///
    /// The outcome looks like a one-shot run's: `Exited(0)` with the
    /// response object, `request_id` removed, as stdout; or a failure:
    /// `spawn_failed` (cannot start: `missing`, called before each start
    /// and only then, gave the reason, or the spawn failed; restart budget
    /// spent), `timed_out`,
    /// `cancelled`, `signalled` / `nonzero_exit` (the process ended before
    /// answering), `output_too_large` (a line over `cap`), `invalid_output`
    /// (not one JSON object, or another request's id). After any failure
    /// but a start failure the process's group is killed and reaped; the
    /// next request starts a new process. A process found exited while idle
    /// is reaped and replaced before the request is sent: at no cost to the
    /// request, and, when it exited with code 0, at no cost to the restart
    /// budget either.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future mid-request kills the process's group (its
    /// stream would be out of step) through the drop guard.
    pub(crate) async fn request(
        &self,
        executor: &Executor,
        payload: &[u8],
        deadline: Instant,
        cap: usize,
        missing: &(dyn Fn() -> Option<String> + Sync),
    ) -> ExecOutcome {
        let start = Instant::now();
        let outcome = |status: ExecStatus, stdout: Captured, pid: Option<u32>| ExecOutcome {
            status,
            stdout,
            stderr: Captured::default(),
            elapsed: start.elapsed(),
            pid,
        };
        let failed =
            |failure: ExecFailure| outcome(ExecStatus::Failed(failure), Captured::default(), None);
        let mut slot = match self.free_slot(deadline).await {
            Ok(slot) => slot,
            Err(failure) => return failed(failure),
        };
        let mut charge = true;
        let mut process = slot.process.take();
        if let Some(mut idle) = process.take() {
            match idle.running.try_wait() {
                // Still running: it takes the request.
                Ok(None) => process = Some(idle),
                exited => {
                    charge = !matches!(exited, Ok(Some(status)) if status.success());
                    idle.stop(Duration::ZERO).await;
                }
            }
        }
        let process = match process {
            Some(process) => process,
            None => match self.start(executor, &mut slot, charge, missing) {
                Ok(process) => process,
                Err(failure) => return failed(failure),
            },
        };
        let id = self.next_request.fetch_add(1, Ordering::Relaxed);
        let mut process = process;
        let pid = process.running.pid();
        let line = request_line(payload, id);
        let exchange = tokio::select! {
            biased;
            () = self.closed.cancelled() => Exchange::Failed(ExecFailure::new(
                FailureKind::Cancelled,
                format!("cancelled while worker `{}` handled request {id}", self.hook_id),
            )),
            () = sleep_until(deadline) => Exchange::Failed(ExecFailure::new(
                FailureKind::TimedOut,
                format!(
                    "worker `{}` did not answer request {id} within {} ms",
                    self.hook_id,
                    deadline.saturating_duration_since(start).as_millis()
                ),
            )),
            exchange = process.exchange(&line, cap, id) => exchange,
        };
        let line = match exchange {
            Exchange::Line(line) => line,
            Exchange::Failed(failure) => {
                process.stop(Duration::ZERO).await;
                return outcome(ExecStatus::Failed(failure), Captured::default(), pid);
            }
        };
        match response(&line, id) {
            Ok(bytes) => {
                slot.process = Some(process);
                let stdout = Captured {
                    total_len: bytes.len() as u64,
                    bytes,
                    truncated: false,
                };
                outcome(ExecStatus::Exited(0), stdout, pid)
            }
            Err(detail) => {
                process.stop(Duration::ZERO).await;
                let detail = format!("worker `{}`: {detail}", self.hook_id);
                outcome(
                    ExecStatus::Failed(ExecFailure::new(FailureKind::InvalidOutput, detail)),
                    Captured::default(),
                    pid,
                )
            }
        }
    }

    /// A free slot: the first one not busy, else the next one in turn
    /// (requests queue in order on its lock), until `deadline` or the
    /// pool's closing.
    async fn free_slot(&self, deadline: Instant) -> Result<MutexGuard<'_, Slot>, ExecFailure> {
        if self.closed.is_cancelled() {
            return Err(self.closed_failure());
        }
        if let Some(slot) = self.slots.iter().find_map(|s| s.try_lock().ok()) {
            return Ok(slot);
        }
        let turn = self.next_slot.fetch_add(1, Ordering::Relaxed) % self.slots.len();
        tokio::select! {
            biased;
            () = self.closed.cancelled() => Err(self.closed_failure()),
            () = sleep_until(deadline) => Err(ExecFailure::new(
                FailureKind::TimedOut,
                format!("no process of worker `{}` became free in time", self.hook_id),
            )),
            slot = self.slots[turn].lock() => Ok(slot),
        }
    }

    fn closed_failure(&self) -> ExecFailure {
        ExecFailure::new(
            FailureKind::Cancelled,
            format!("worker `{}` was shut down", self.hook_id),
        )
    }

    /// Starts a process in `slot`, unless `missing` says why it cannot
    /// (then nothing is charged): a restart counts against the budget when
    /// `charge` (it replaces a process that failed).
    fn start(
        &self,
        executor: &Executor,
        slot: &mut Slot,
        charge: bool,
        missing: &(dyn Fn() -> Option<String> + Sync),
    ) -> Result<Process, ExecFailure> {
        if let Some(detail) = missing() {
            return Err(ExecFailure::new(FailureKind::SpawnFailed, detail));
        }
        if slot.started && charge {
            let mut budget = self.restarts.lock().unwrap_or_else(PoisonError::into_inner);
            if !budget.take(Instant::now()) {
                return Err(ExecFailure::new(
                    FailureKind::SpawnFailed,
                    format!(
                        "worker `{}` was restarted {} times within {} s after failures; not restarting it until that window has passed",
                        self.hook_id,
                        budget.limit,
                        budget.window.as_secs_f64()
                    ),
                ));
            }
        }
        slot.started = true;
        let mut command = executor
            .command(&self.launch)
            .map_err(|err| ExecFailure::new(FailureKind::SpawnFailed, err.to_string()))?;
        command.stdin(Stdio::piped()).stderr(Stdio::null());
        let mut child = command.spawn().map_err(|err| {
            ExecFailure::new(
                FailureKind::SpawnFailed,
                format!("cannot start worker `{}`: {err}", self.hook_id),
            )
        })?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let running = Running::new(child);
        let Some(stdout) = stdout else {
            return Err(ExecFailure::new(
                FailureKind::SpawnFailed,
                "the worker's stdout is not a pipe",
            ));
        };
        Ok(Process {
            running,
            stdin,
            stdout: BufReader::new(stdout),
        })
    }

    /// Stops every process: closes its stdin and gives it [`EXIT_GRACE`]
    /// when `graceful`, then kills its group and reaps it. Waits for
    /// requests in flight to end first (each has its deadline).
    async fn stop_all(&self, graceful: bool) {
        let grace = if graceful { EXIT_GRACE } else { Duration::ZERO };
        for slot in &self.slots {
            let process = slot.lock().await.process.take();
            if let Some(process) = process {
                process.stop(grace).await;
            }
        }
    }

    /// Shuts the pool down: later requests fail as `cancelled`; every
    /// process gets its stdin closed and [`EXIT_GRACE`] to exit, then its
    /// group is killed and reaped.
    pub(crate) async fn shutdown(&self) {
        self.closed.cancel();
        self.stop_all(true).await;
    }
}

impl Drop for WorkerPool {
    /// Wakes the cancellation task; the processes' drop guards kill their
    /// groups.
    fn drop(&mut self) {
        self.closed.cancel();
    }
}

impl Process {
    /// Writes `line`, reads one response line of at most `cap` bytes
    /// (newline excluded). The process ending first (its stdout at EOF, or
    /// the write failing) is a failure named after how it ended.
    async fn exchange(&mut self, line: &[u8], cap: usize, id: u64) -> Exchange {
        let written = match self.stdin.as_mut() {
            Some(stdin) => stdin.write_all(line).await.and(stdin.flush().await),
            None => Err(io::Error::from(io::ErrorKind::BrokenPipe)),
        };
        let mut buf = Vec::new();
        let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
        let read = match written {
            Ok(()) => {
                (&mut self.stdout)
                    .take(limit)
                    .read_until(b'\n', &mut buf)
                    .await
            }
            Err(err) => Err(err),
        };
        match read {
            Ok(_) if buf.last() == Some(&b'\n') => {
                buf.pop();
                Exchange::Line(buf)
            }
            Ok(_) if buf.len() > cap => Exchange::Failed(ExecFailure::new(
                FailureKind::OutputTooLarge,
                format!("the response to request {id} is over the cap of {cap} bytes"),
            )),
            // EOF (maybe after a partial line) or a broken pipe: the worker
            // ended, or is about to.
            Ok(_) | Err(_) => Exchange::Failed(self.ended(id).await),
        }
    }

    /// The failure of a process that stopped talking: how it ended, if it
    /// did within [`EXIT_GRACE`].
    async fn ended(&mut self, id: u64) -> ExecFailure {
        let before = format!("before answering request {id}");
        match timeout(EXIT_GRACE, self.running.wait()).await {
            Ok(Ok(status)) => exit_failure(status, &before),
            _ => ExecFailure::new(
                FailureKind::InvalidOutput,
                format!("the worker closed its stdout {before}"),
            ),
        }
    }

    /// Closes stdin, waits up to `grace` for the process to exit, kills its
    /// group, reaps it (up to [`REAP_LIMIT`], else in the background).
    async fn stop(mut self, grace: Duration) {
        drop(self.stdin.take());
        let mut reaped = !grace.is_zero() && timeout(grace, self.running.wait()).await.is_ok();
        self.running.kill();
        if !reaped {
            reaped = matches!(timeout(REAP_LIMIT, self.running.wait()).await, Ok(Ok(_)));
        }
        if reaped {
            self.running.settle();
        }
    }
}

/// The failure of a worker that exited `before` answering.
fn exit_failure(status: ExitStatus, before: &str) -> ExecFailure {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => ExecFailure::new(
            FailureKind::NonzeroExit,
            format!("the worker exited with code {code} {before}"),
        )
        .with_exit_code(code),
        (None, Some(signal)) => ExecFailure::new(
            FailureKind::Signalled,
            format!("the worker was killed by signal {signal} {before}"),
        )
        .with_signal(signal),
        (None, None) => {
            ExecFailure::new(FailureKind::Signalled, format!("the worker ended {before}"))
        }
    }
}

/// `payload` (a serialized JSON object) with `"request_id": id` as its first
/// field, and a newline. The payload builder writes compact JSON, so the
/// line holds no other newline.
fn request_line(payload: &[u8], id: u64) -> Vec<u8> {
    let head = format!("{{\"{REQUEST_ID}\":{id}");
    let mut line = Vec::with_capacity(head.len() + payload.len() + 2);
    line.extend_from_slice(head.as_bytes());
    // Everything after the payload's opening brace: `}` alone, or the
    // fields, which need a separating comma.
    let rest = payload.trim_ascii().strip_prefix(b"{").unwrap_or(b"}");
    if rest.trim_ascii_start().first() != Some(&b'}') {
        line.push(b',');
    }
    line.extend_from_slice(rest);
    line.push(b'\n');
    line
}

/// The response `line` to request `id` without its `request_id`, as the
/// protocol reads it; the reason it is not one.
fn response(line: &[u8], id: u64) -> Result<Vec<u8>, String> {
    let mut map: Map<String, Value> = serde_json::from_slice(line).map_err(|err| {
        format!("the response to request {id} is not one JSON object on one line: {err}")
    })?;
    match map.shift_remove(REQUEST_ID) {
        Some(Value::Number(n)) if n.as_u64() == Some(id) => {}
        Some(other) => {
            return Err(format!(
                "a response for request {other} arrived where request {id} was expected"
            ));
        }
        None => {
            return Err(format!(
                "the response to request {id} has no `{REQUEST_ID}`"
            ));
        }
    }
    serde_json::to_vec(&map).map_err(|err| err.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_the_payload_with_its_id_first() {
        let line = request_line(br#"{"phase":"before_tool","x":1}"#, 7);
        assert_eq!(
            line,
            b"{\"request_id\":7,\"phase\":\"before_tool\",\"x\":1}\n"
        );
        let value: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(value["request_id"], 7);
        assert_eq!(request_line(b"{}", 1), b"{\"request_id\":1}\n");
    }

    #[test]
    fn a_response_must_echo_its_request_id() {
        assert_eq!(
            response(br#"{"request_id":3,"decision":"block","reason":"no"}"#, 3).unwrap(),
            br#"{"decision":"block","reason":"no"}"#
        );
        let wrong = response(br#"{"request_id":2}"#, 3).unwrap_err();
        assert!(
            wrong.contains("request 2") && wrong.contains("request 3"),
            "{wrong}"
        );
        assert!(response(b"{}", 3).unwrap_err().contains("no `request_id`"));
        assert!(
            response(b"not json", 3)
                .unwrap_err()
                .contains("not one JSON object")
        );
        assert!(response(b"[1]", 3).is_err());
    }
}
