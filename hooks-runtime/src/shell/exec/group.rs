//! The spawned child and its process group: signals, reaping, and the
//! drop guard that makes `Executor::run` cancel-safe.

use std::io;
use std::process::ExitStatus;

use rustix::process::{Pid, Signal, kill_process_group};
use tokio::process::Child;

/// A spawned child that leads its own process group (`process_group(0)`, so
/// the group id is the child's pid).
///
/// Dropping it before [`Running::settle`] sends SIGKILL to the whole group
/// and hands the child to a background task that reaps it (or, outside a
/// runtime, to tokio's orphan reaping through `kill_on_drop`).
#[derive(Debug)]
pub(crate) struct Running {
    pgid: Option<Pid>,
    child: Option<Child>,
}

impl Running {
    /// Wraps a freshly spawned child; records its pid as the group id.
    pub(crate) fn new(child: Child) -> Self {
        let pgid = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(Pid::from_raw);
        Running {
            pgid,
            child: Some(child),
        }
    }

    /// The direct child's pid (its group id), as recorded at spawn.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pgid.map(|p| p.as_raw_nonzero().get().unsigned_abs())
    }

    /// Waits for the direct child to exit and reaps it (cancel-safe; once
    /// reaped, returns the same status again).
    pub(crate) async fn wait(&mut self) -> io::Result<ExitStatus> {
        match self.child.as_mut() {
            Some(child) => child.wait().await,
            None => Err(io::Error::other("the child was already released")),
        }
    }

    /// Whether the direct child has exited (reaping it if so), without
    /// waiting.
    pub(crate) fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        match self.child.as_mut() {
            Some(child) => child.try_wait(),
            None => Err(io::Error::other("the child was already released")),
        }
    }

    /// Sends `signal` to every process of the group. Errors (typically
    /// `ESRCH`: the group is already empty) are ignored.
    fn signal(&self, signal: Signal) {
        if let Some(pgid) = self.pgid {
            let _ = kill_process_group(pgid, signal);
        }
    }

    /// Asks the group to stop: SIGTERM, then SIGCONT so that a stopped
    /// (SIGSTOP) member can act on the SIGTERM.
    pub(crate) fn terminate(&self) {
        self.signal(Signal::TERM);
        self.signal(Signal::CONT);
    }

    /// SIGKILL to the whole group (works on stopped processes too).
    pub(crate) fn kill(&self) {
        self.signal(Signal::KILL);
    }

    /// The child was reaped and the group killed: disarm the drop guard.
    pub(crate) fn settle(mut self) {
        self.child = None;
        self.pgid = None;
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.pgid.is_none() && self.child.is_none() {
            return;
        }
        self.kill();
        // Outside a runtime `child` just drops: `kill_on_drop(true)` kills it
        // and tokio reaps it in the background.
        if let Some(mut child) = self.child.take()
            && let Ok(handle) = tokio::runtime::Handle::try_current()
        {
            handle.spawn(async move {
                let _ = child.wait().await;
            });
        }
    }
}
