//! The concurrency bounds of an invocation: a slot of its event
//! ([`HookLimits::max_concurrent_hooks_per_event`](super::HookLimits::max_concurrent_hooks_per_event))
//! and one of its runtime
//! ([`HookLimits::max_concurrent_hooks`](super::HookLimits::max_concurrent_hooks)),
//! held while its target (process, worker request, HTTP exchange, policy
//! evaluation) runs: [`Call::take_slots`].

use tokio::sync::{Semaphore, SemaphorePermit};

use super::call::{Call, Outcome};
use crate::FailureKind;

/// The slots of one event's hooks, shared by the invocations of one batch
/// ([`run_shell_hooks`](super::run_shell_hooks), a table's observe-only
/// pass): [`HookLimits::max_concurrent_hooks_per_event`](super::HookLimits::max_concurrent_hooks_per_event)
/// permits (at least one).
pub(crate) fn event_slots(per_event: usize) -> Semaphore {
    Semaphore::new(per_event.max(1))
}

/// The permits an invocation holds while its target runs (a background
/// invocation holds its background slot instead of the runtime's,
/// `background.rs`).
pub(super) struct Slots<'a> {
    _event: Option<SemaphorePermit<'a>>,
    _runtime: Option<SemaphorePermit<'a>>,
}

impl<'a> Call<'a> {
    /// Waits for a slot of the event (`event`, when the invocation is one
    /// of a batch) and then one of the runtime (not for a background
    /// invocation, which holds a background slot), in that order (a hook
    /// queued behind its own event's hooks holds no runtime slot), within
    /// the hook's deadline: its timeout counted from the call, not from
    /// when it got the slots. Slots are handed out first come, first
    /// served.
    ///
    /// # Errors
    ///
    /// The outcome in place of running the target: `timed_out` when the
    /// deadline passed while waiting (the hook did not run), `cancelled`
    /// when the session was cancelled.
    ///
    /// Cancel safety: dropping the future gives up the place in the queue
    /// and any slot taken.
    pub(super) async fn take_slots(
        &self,
        event: Option<&'a Semaphore>,
    ) -> Result<Slots<'a>, Outcome> {
        let rt = self.rt;
        let wait = async {
            let event = match event {
                Some(slots) => slots.acquire().await.ok(),
                None => None,
            };
            let runtime = match self.background {
                true => None,
                false => Some(rt.slots.acquire().await.ok()?),
            };
            Some(Slots {
                _event: event,
                _runtime: runtime,
            })
        };
        let limits = &rt.limits;
        tokio::select! {
            biased;
            () = self.cancel.cancelled() => Err(Outcome::Failed(
                FailureKind::Cancelled,
                "cancelled while waiting for a slot to run in".to_owned(),
            )),
            slots = tokio::time::timeout_at(self.deadline, wait) => match slots {
                Ok(Some(slots)) => Ok(slots),
                // The semaphores are never closed.
                Ok(None) | Err(_) => Err(Outcome::Failed(
                    FailureKind::TimedOut,
                    format!(
                        "not run: its timeout of {} ms passed while it waited for a slot \
                         (`limits.max_concurrent_hooks` {}, `limits.max_concurrent_hooks_per_event` {})",
                        self.spec.timeout.as_millis(),
                        limits.max_concurrent_hooks,
                        limits.max_concurrent_hooks_per_event,
                    ),
                )),
            },
        }
    }
}
