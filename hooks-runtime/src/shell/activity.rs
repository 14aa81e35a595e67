//! Activity events for a UI (the hook key `show_in_tui`): a hook
//! started, succeeded or failed, with elapsed milliseconds. Emitted only for
//! hooks with `show_in_tui: true`.

use std::sync::Arc;

use hooks_plan::Phase;

/// One activity event of a shell hook.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ActivityEvent {
    /// The hook is about to run.
    Started {
        /// The hook's id.
        hook_id: Arc<str>,
        /// The event's phase.
        phase: Phase,
    },
    /// The hook ran and followed its protocol (whatever it decided).
    Succeeded {
        /// The hook's id.
        hook_id: Arc<str>,
        /// The event's phase.
        phase: Phase,
        /// Wall-clock time of the invocation in milliseconds.
        elapsed_ms: u64,
    },
    /// The hook failed.
    Failed {
        /// The hook's id.
        hook_id: Arc<str>,
        /// The event's phase.
        phase: Phase,
        /// Wall-clock time of the invocation in milliseconds.
        elapsed_ms: u64,
        /// The named failure kind, e.g. `timed_out`.
        failure_kind: &'static str,
    },
}

/// Receives activity events. Called on the task running the hook: keep it
/// quick and non-blocking (for example, send into a channel).
pub trait ActivitySink: Send + Sync {
    /// Handles one event.
    fn on_activity(&self, event: ActivityEvent);
}

impl ActivitySink for tokio::sync::mpsc::UnboundedSender<ActivityEvent> {
    fn on_activity(&self, event: ActivityEvent) {
        // A closed receiver means nobody is watching any more.
        let _ = self.send(event);
    }
}

impl<F: Fn(ActivityEvent) + Send + Sync> ActivitySink for F {
    fn on_activity(&self, event: ActivityEvent) {
        self(event);
    }
}
