//! Several shell hooks of one event: [`run_shell_hooks`].

use super::{Invocation, ShellHook};
use crate::{HookContext, StepEvent};

/// Runs `hooks` for one event and returns their invocations in declared
/// order (the order of `hooks`), never in finish order.
///
/// On an observe-only phase
/// ([`Phase::is_mutating`](hooks_plan::Phase::is_mutating) is false) the
/// hooks run concurrently; on a mutating phase they run one after another,
/// each seeing the same event (chaining rewrites is the
/// [`HookStack`](crate::HookStack)'s job). Hooks of another phase return `Continue` without running.
///
/// At most the first hook's runtime's
/// [`max_concurrent_hooks_per_event`](super::HookLimits::max_concurrent_hooks_per_event)
/// run at once (and each runtime's
/// [`max_concurrent_hooks`](super::HookLimits::max_concurrent_hooks));
/// the others wait, their timeouts running from this call.
///
/// # Cancel safety
///
/// Dropping the future kills every running hook's process group.
pub async fn run_shell_hooks(
    hooks: &[ShellHook],
    ctx: &HookContext,
    event: StepEvent<'_>,
) -> Vec<Invocation> {
    if event.kind().is_mutating() {
        let mut out = Vec::with_capacity(hooks.len());
        for hook in hooks {
            out.push(hook.invoke(ctx, event).await);
        }
        out
    } else {
        let per_event = hooks
            .first()
            .map_or(1, |h| h.runtime().limits.max_concurrent_hooks_per_event);
        let slots = super::event_slots(per_event);
        let runs = hooks.iter().map(|h| h.invoke_in(Some(&slots), ctx, event));
        join_in_order(runs.collect()).await
    }
}

/// Polls all futures concurrently on the current task; results in input order.
pub(crate) async fn join_in_order<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<std::pin::Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut results: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (fut, slot) in futures.iter_mut().zip(results.iter_mut()) {
            if slot.is_none() {
                match fut.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => *slot = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    results.into_iter().flatten().collect()
}
