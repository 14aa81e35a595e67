//! The threads policies are evaluated on: [`spawn`] runs a job on an idle
//! one, or starts one. With the `policy` feature only.
//!
//! Plain threads, not tokio's blocking pool: a runtime being dropped waits
//! for its blocking tasks, and one builtin call the engine's timer cannot
//! stop (`numbers.range(1, 1e8)`) would hold the agent's shutdown for as
//! long as it runs. These threads are detached: the process exits
//! without them.

use std::sync::mpsc::{Sender, channel};
use std::sync::{Mutex, PoisonError};

/// One evaluation, its result sent by the job itself.
type Job = Box<dyn FnOnce() + Send>;

/// Most threads kept waiting for a job; past it a thread ends after its job.
const MAX_IDLE: usize = 4;

/// The name of the threads (`agent-hooks-pol` in `ps`, cut at 15 bytes).
pub(crate) const THREAD_NAME: &str = "agent-hooks-policy";

/// The idle threads, each waiting on its own channel.
static IDLE: Mutex<Vec<Sender<Job>>> = Mutex::new(Vec::new());

/// Runs `job` on an idle evaluation thread, or on a new one.
///
/// # Errors
///
/// The OS's error when a thread is needed and cannot be started.
pub(crate) fn spawn(job: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    let mut job: Job = Box::new(job);
    loop {
        let idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let Some(thread) = idle else { break };
        match thread.send(job) {
            Ok(()) => return Ok(()),
            // That thread ended (a job panicked): try the next.
            Err(returned) => job = returned.0,
        }
    }
    let (send, jobs) = channel::<Job>();
    std::thread::Builder::new()
        .name(THREAD_NAME.to_owned())
        .spawn(move || {
            job();
            loop {
                {
                    let mut idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner);
                    if idle.len() >= MAX_IDLE {
                        return;
                    }
                    idle.push(send.clone());
                }
                match jobs.recv() {
                    Ok(job) => job(),
                    Err(_) => return,
                }
            }
        })
        .map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_are_reused_and_named() {
        let name = |()| {
            let (send, got) = channel();
            spawn(move || {
                let _ = send.send(std::thread::current().name().map(str::to_owned));
            })
            .expect("a thread");
            got.recv().expect("the job ran")
        };
        assert_eq!(name(()).as_deref(), Some(THREAD_NAME));
        // Sequential jobs leave a thread idle for the next.
        for _ in 0..20 {
            name(());
        }
        let idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner).len();
        assert!((1..=MAX_IDLE).contains(&idle), "{idle}");
    }
}
