//! Parallel groups: on a mutating phase, matching rules declared next to
//! each other with `parallel: true` start at once and fold in declared
//! order, with the outcome and the records of running them one by one.
//!
//! # Why the result is the sequential one
//!
//! - **The same event.** No member chains (changes what the next rule
//!   sees): `check` refuses `parallel` beside a `rewrite`, a member's
//!   rewrite answer is an `invalid_output` failure
//!   ([`FlowKind::chains`](hooks_plan::FlowKind::chains)), and no other
//!   flow changes [`Fold::event`]. So every member is matched and run on
//!   the event as the rules before the group left it, as it would be in
//!   turn.
//! - **The same fold.** Flows are applied in declared order as soon as
//!   every member before them is applied, never in finish order.
//! - **The same stop.** When a member's flow stops the fold (a `block`, a
//!   failure under `block`, a `terminate`), the members after it are
//!   dropped: their processes killed (as on any cancellation, see
//!   [`ShellHook::invoke`](crate::ShellHook::invoke)), their reports and
//!   provenance never made.
//! - **The same records.** A member's records (hook and injection lines)
//!   are rendered when it ends but written when it is folded
//!   (`invoke::Deferred`), so the records file holds the sequential run's
//!   lines in its order, and none of a member dropped after the decision,
//!   even one that had already ended.
//!
//! What differs, and cannot not: members after a decisive one did start
//! (their side effects may have happened, their `show_in_tui` activity
//! shows `Started` with no end, and their tracing spans exist), every
//! member's timeout counts from the group's start, and `elapsed_ms` is
//! each member's own time.

use std::future::Future;
use std::ops::ControlFlow;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use hooks_plan::Rule;

use super::pass::Pass;
use crate::core::context::HookContext;
use crate::core::fold::Fold;
use crate::shell::invoke::{self, Batch, ShellRuntime};

/// Whether `rule` joins a parallel group: `parallel: true` and an action
/// that does not chain (a plan built by the config's lowering has no
/// `parallel` rewrite; one built by hand runs its rewrite in turn), and
/// not a background rule (nothing waits for it: it is started in its turn).
pub(super) fn joins(rule: &Rule) -> bool {
    rule.parallel && !rule.background && !rule.action.kind().chains()
}

impl Pass<'_> {
    /// The parallel group that begins with matching rule `first` (a rule
    /// to await that [`joins`] one) on a mutating phase: it and the
    /// matching rules right
    /// after it that join one, started at once (`run`, `http` and `policy`
    /// rules through `rt`, at most the runtime's
    /// [`max_concurrent_hooks_per_event`](crate::HookLimits::max_concurrent_hooks_per_event)
    /// at a time; declarative ones in process, in their turn) and applied
    /// to `fold` in declared order. Returns the last step and the next
    /// matching rule after the group, if the fold goes on (module docs).
    ///
    /// # Cancel safety
    ///
    /// Dropping the future kills the members still running; the members
    /// applied so far stay applied, and nothing of the others is recorded.
    pub(super) async fn run_group(
        &mut self,
        rt: &Arc<ShellRuntime>,
        ctx: &HookContext,
        fold: &mut Fold<'_>,
        first: u32,
    ) -> (ControlFlow<()>, Option<u32>) {
        let table = self.table;
        // The event every member sees, kept apart from the fold the
        // members' flows are applied to.
        let rewritten = fold.rewritten();
        let event = rewritten.event(fold.unchained_event());
        let mut members = vec![first];
        let mut after = None;
        let judged = self.facts(&event);
        while let Some(i) = self.next_claimed(&judged) {
            if joins(&table.rules()[i as usize]) {
                members.push(i);
            } else {
                after = Some(i);
                break;
            }
        }
        // The paths dispatch resolved, while the arguments are the ones it
        // resolved (no member rewrites them).
        let resolved = self.resolved.take();
        let current = resolved
            .as_ref()
            .filter(|_| fold.rewrites() == self.rewrites);
        let slots = invoke::event_slots(rt.limits().max_concurrent_hooks_per_event);
        let batch = Batch {
            slots: Some(&slots),
            group: true,
            background: None,
        };
        let mut runs: Vec<Option<Pin<Box<_>>>> = members
            .iter()
            .map(|&i| {
                let i = i as usize;
                table
                    .hook_spec(i)
                    .is_some()
                    .then(|| Box::pin(table.invoke_rule_in(i, rt, batch, ctx, event, current)))
            })
            .collect();
        let mut ended: Vec<Option<_>> = members.iter().map(|_| None).collect();
        let mut next = 0;
        let step = std::future::poll_fn(|cx| {
            for (run, end) in runs.iter_mut().zip(ended.iter_mut()) {
                if let Some(future) = run
                    && let Poll::Ready(out) = future.as_mut().poll(cx)
                {
                    *end = Some(out);
                    *run = None;
                }
            }
            // Apply in declared order what has ended.
            while let Some(&i) = members.get(next) {
                let step = if table.hook_spec(i as usize).is_some() {
                    let Some(out) = ended[next].take() else {
                        return Poll::Pending;
                    };
                    match out {
                        Some((mut invocation, deferred)) => {
                            deferred.write(rt, &mut invocation);
                            invocation.fold_into(fold)
                        }
                        None => ControlFlow::Continue(()),
                    }
                } else {
                    self.in_process(fold, i)
                        .unwrap_or(ControlFlow::Continue(()))
                };
                next += 1;
                if step.is_break() {
                    return Poll::Ready(step);
                }
            }
            Poll::Ready(ControlFlow::Continue(()))
        })
        .await;
        // The members after a decision: killed, unrecorded.
        drop(runs);
        drop(ended);
        self.resolved = resolved;
        let after = if step.is_break() { None } else { after };
        (step, after)
    }
}
