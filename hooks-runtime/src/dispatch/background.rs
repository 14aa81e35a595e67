//! A table's background rules (`async: true`): started in their turn
//! without the fold waiting ([`Pass::start_background`]), their context
//! delivered with a later event of the run ([`deliver`]), their run ended
//! at `run_end` / `run_error` ([`ending`]). The queue, the bounds and the
//! records are the shell runtime's (`shell/invoke/background.rs`).

use std::sync::Arc;

use hooks_plan::Phase;

use super::pass::Pass;
use crate::OwnedEvent;
use crate::core::context::HookContext;
use crate::core::event::StepEvent;
use crate::core::flow::{Flow, Text};
use crate::core::fold::Fold;
use crate::core::report::HookReport;
use crate::shell::invoke::{Background, Job, ShellRuntime, Start};

/// The report message of a background rule that started.
const STARTED: &str = "started in the background";
/// The report message of a background rule that waits for a slot.
const QUEUED: &str = "queued to run in the background";

impl Pass<'_> {
    /// Starts background rule `i` (a `run`, `http` or `policy` rule with
    /// `async: true`) on `event` through `rt`, for `ctx`'s run, without
    /// waiting: its flow is `Continue`, its report says whether it started,
    /// was queued or was refused (then with the message of its `refused`
    /// record). Its own record is written when it ends.
    pub(super) fn start_background(
        &mut self,
        rt: &Arc<ShellRuntime>,
        ctx: &HookContext,
        i: u32,
        event: &StepEvent<'_>,
    ) -> (Flow, HookReport) {
        let table = self.table;
        let index = i as usize;
        let mut report = HookReport::new(table.hook_ids()[index].clone());
        let Some(hook) = table.hook_shared(index) else {
            return (Flow::Continue, report);
        };
        let paths = table
            .tool_view(hook.0.phase, event.tool_name(), None)
            .paths
            .cloned();
        let job = Job {
            hook,
            paths,
            ctx: ctx.clone(),
            event: OwnedEvent::from(*event),
        };
        report.message = Some(match Background::start(rt, job) {
            Start::Running => Text::Borrowed(STARTED),
            Start::Queued => Text::Borrowed(QUEUED),
            Start::Refused(message) => Text::Owned(message),
        });
        (Flow::Continue, report)
    }
}

/// Delivers the background context waiting for `ctx`'s run into `fold`
/// through `shell` ([`ShellRuntime`]'s background: the phase must honour
/// `inject_context`, at most `limits.max_async_deliveries_per_turn` per
/// turn); whether something was applied. One load when nothing waits.
pub(super) fn deliver(
    shell: Option<&Arc<ShellRuntime>>,
    ctx: &HookContext,
    fold: &mut Fold<'_>,
) -> bool {
    shell.is_some_and(|rt| rt.background.deliver(rt, ctx, fold))
}

/// `shell`, when an event of `phase` ends a run and background hooks run
/// on it: the caller ends the event's run after its part of the fold
/// ([`ShellRuntime::end_run`]).
pub(super) fn ending(
    shell: Option<&Arc<ShellRuntime>>,
    phase: Phase,
) -> Option<&Arc<ShellRuntime>> {
    shell.filter(|rt| rt.background.ends_on(phase))
}
