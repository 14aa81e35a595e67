//! The `AgentHook` trait, its allocation-free future type and hook ids.
//!
//! See [`HookFuture`] for why `on_event` returns it rather than `impl Future`.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::core::context::HookContext;
use crate::core::event::{StepEvent, StepEventKind};
use crate::core::flow::Flow;
use crate::core::outcome::StackOutcome;

/// A hook: code that sees the events of an agent run and answers each with a
/// [`Flow`].
///
/// Implement [`on_event`](AgentHook::on_event); override
/// [`observes`](AgentHook::observes) to decline high-frequency events
/// (text and tool-call deltas) so the stack does not even call you for them.
/// Hooks are shared between tasks (`Send + Sync`); keep per-run state in the
/// [`HookContext`] scratchpad rather than in `self`.
///
/// ```
/// use hooks_runtime::{AgentHook, Flow, HookContext, HookFuture, StepEvent, StepEventKind};
///
/// /// Refuses `rm -rf /` before the bash tool runs it.
/// struct NoRootWipe;
///
/// impl AgentHook for NoRootWipe {
///     fn on_event<'a>(&'a self, _ctx: &'a HookContext, event: StepEvent<'a>) -> HookFuture<'a> {
///         let flow = match event {
///             StepEvent::BeforeTool { tool_name: "bash", args, .. }
///                 if args["command"].as_str().is_some_and(|c| c.contains("rm -rf /")) =>
///             {
///                 Flow::skip("refusing to wipe the root file system")
///             }
///             _ => Flow::Continue,
///         };
///         HookFuture::ready(flow)
///     }
///
///     fn observes(&self, kind: StepEventKind) -> bool {
///         kind == StepEventKind::BeforeTool
///     }
/// }
/// ```
pub trait AgentHook: Send + Sync {
    /// Answers one event.
    ///
    /// Return [`HookFuture::ready`] when the answer is known without waiting
    /// (no allocation), [`HookFuture::boxed`] around an `async` block
    /// otherwise. The future may borrow `self`, `ctx` and the event.
    ///
    /// # Cancel safety
    ///
    /// The caller may drop the returned future before it completes (the run
    /// was cancelled or timed out); a hook must leave the scratchpad
    /// consistent at every `.await` and release what it holds on drop (a
    /// shell hook kills and reaps its process group).
    fn on_event<'a>(&'a self, ctx: &'a HookContext, event: StepEvent<'a>) -> HookFuture<'a>;

    /// Whether this hook wants events of `kind` at all. A stack does not call
    /// [`on_event`](AgentHook::on_event) for declined kinds (it counts as
    /// `Continue`). Default: every kind.
    fn observes(&self, kind: StepEventKind) -> bool {
        let _ = kind;
        true
    }

    /// For hooks made of several hooks (stacks, dispatch tables): answers
    /// with a whole folded [`StackOutcome`] instead of one [`Flow`]. A
    /// [`HookStack`](crate::HookStack) calls this first and, when it returns `Some`, absorbs
    /// the outcome ([`Fold::absorb`](crate::Fold::absorb)) rather than
    /// calling [`on_event`](AgentHook::on_event), so nothing is lost that
    /// one flow cannot say: rewrites kept before a `Skip`, a rewritten result
    /// together with injected context, provenance naming the inner hooks.
    ///
    /// The outcome must be a fold of `event` (as [`HookStack::fold`](crate::HookStack::fold) or a
    /// [`Fold`](crate::Fold) makes it). Default: `None` (use `on_event`).
    ///
    /// # Cancel safety
    ///
    /// As [`on_event`](AgentHook::on_event).
    fn fold_event<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: StepEvent<'a>,
    ) -> Option<OutcomeFuture<'a>> {
        let _ = (ctx, event);
        None
    }

    /// The plan of the hook config this hook dispatches, when it is one (a
    /// [`Dispatcher`](crate::Dispatcher), a type made by `hooks!`), so that
    /// [`HookStack::try_push`](crate::HookStack::try_push) can refuse hook
    /// ids that two configs share. Default: `None`.
    fn config_plan(&self) -> Option<&hooks_schema::plan::Plan> {
        None
    }

    /// `Some(self)` only for [`HookStack`](crate::HookStack), so that
    /// pushing a stack into a stack flattens it (see
    /// [`HookStack::push`](crate::HookStack::push)). Other hooks keep the
    /// default; the `Any` keeps this trait independent of the stack type.
    #[doc(hidden)]
    fn as_nested_stack(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

/// A smart pointer to a hook is that hook: every method forwards to the
/// pointee, overridden methods included.
macro_rules! forward_to_pointee {
    ($($pointer:ident),+) => {$(
        impl<H: AgentHook + ?Sized> AgentHook for $pointer<H> {
            fn on_event<'a>(&'a self, ctx: &'a HookContext, event: StepEvent<'a>) -> HookFuture<'a> {
                (**self).on_event(ctx, event)
            }

            fn fold_event<'a>(
                &'a self,
                ctx: &'a HookContext,
                event: StepEvent<'a>,
            ) -> Option<OutcomeFuture<'a>> {
                (**self).fold_event(ctx, event)
            }

            fn observes(&self, kind: StepEventKind) -> bool {
                (**self).observes(kind)
            }

            fn config_plan(&self) -> Option<&hooks_schema::plan::Plan> {
                (**self).config_plan()
            }

            fn as_nested_stack(&self) -> Option<&dyn std::any::Any> {
                (**self).as_nested_stack()
            }
        }
    )+};
}

forward_to_pointee!(Arc, Box);

/// What both hook futures hold: an answer known now, taken on the first
/// poll, or a boxed future computing it. The public type passes its name for
/// the panic and `Debug` texts.
#[allow(
    clippy::large_enum_variant,
    reason = "boxing the ready answer would allocate on the path meant to be allocation-free"
)]
enum Answer<'a, T> {
    Ready(Option<T>),
    Pending(Pin<Box<dyn Future<Output = T> + Send + 'a>>),
}

impl<T> Answer<'_, T> {
    fn poll(&mut self, cx: &mut Context<'_>, name: &str) -> Poll<T> {
        match self {
            Answer::Ready(answer) => match answer.take() {
                Some(answer) => Poll::Ready(answer),
                None => panic!("`{name}` polled after completion"),
            },
            Answer::Pending(future) => future.as_mut().poll(cx),
        }
    }
}

impl<T: fmt::Debug> Answer<'_, T> {
    /// `ready` and `pending` are the names to show for each state.
    fn fmt(&self, f: &mut fmt::Formatter<'_>, ready: &str, pending: &str) -> fmt::Result {
        match self {
            Answer::Ready(answer) => f.debug_tuple(ready).field(answer).finish(),
            Answer::Pending(_) => f.write_str(pending),
        }
    }
}

/// The future [`AgentHook::on_event`] returns: a [`Flow`] that is either
/// ready now (no allocation) or computed by a boxed future.
///
/// Awaiting it yields the flow. It is `Unpin`, so it can also be polled by
/// hand.
///
/// # Why not `async fn` or `impl Future`
///
/// A [`HookStack`](crate::HookStack) holds hooks of different types behind
/// `Arc<dyn AgentHook>`. An `async fn` (or `-> impl Future`) in a trait makes
/// the trait unusable as `dyn`, and the usual workaround (`async-trait`,
/// `Pin<Box<dyn Future>>` as the return type) heap-allocates a box on *every*
/// call — for every hook, on every event, including the text deltas that
/// stream by the hundred. The common case is an in-process hook that decides
/// synchronously (a matcher over the event), usually `Continue`.
///
/// So `on_event` returns a [`HookFuture`]: either an already-computed
/// [`Flow`] ([`HookFuture::ready`], no allocation) or a boxed future
/// ([`HookFuture::boxed`], one allocation) for hooks that really await
/// something (a shell command, a network call, a timer). Awaiting a ready
/// `HookFuture` completes on the first poll, so a stack of in-process hooks is
/// folded without allocating and without ever returning `Pending`.
///
/// # Panics
///
/// Polling it again after it returned `Poll::Ready` panics, as for most
/// futures.
#[must_use = "a hook's answer does nothing unless awaited"]
pub struct HookFuture<'a>(Answer<'a, Flow>);

impl<'a> HookFuture<'a> {
    /// An answer known now. Never allocates (beyond what `flow` holds).
    pub const fn ready(flow: Flow) -> Self {
        HookFuture(Answer::Ready(Some(flow)))
    }

    /// `Flow::Continue`, ready now.
    pub const fn cont() -> Self {
        HookFuture::ready(Flow::Continue)
    }

    /// An answer computed asynchronously: boxes `future` (one allocation).
    pub fn boxed(future: impl Future<Output = Flow> + Send + 'a) -> Self {
        HookFuture(Answer::Pending(Box::pin(future)))
    }

    /// Whether the answer is already known (made with [`HookFuture::ready`]).
    pub fn is_ready(&self) -> bool {
        matches!(self.0, Answer::Ready(Some(_)))
    }
}

impl From<Flow> for HookFuture<'_> {
    fn from(flow: Flow) -> Self {
        HookFuture::ready(flow)
    }
}

impl Future for HookFuture<'_> {
    type Output = Flow;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Flow> {
        self.get_mut().0.poll(cx, "HookFuture")
    }
}

impl fmt::Debug for HookFuture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f, "HookFuture::Ready", "HookFuture::Pending")
    }
}

/// The future [`AgentHook::fold_event`] returns: a folded [`StackOutcome`],
/// ready now or computed by a boxed future (the same design as
/// [`HookFuture`]).
///
/// # Panics
///
/// Polling it again after it returned `Poll::Ready` panics.
#[must_use = "a hook's answer does nothing unless awaited"]
pub struct OutcomeFuture<'a>(Answer<'a, StackOutcome>);

impl<'a> OutcomeFuture<'a> {
    /// An outcome known now (no allocation).
    pub const fn ready(outcome: StackOutcome) -> Self {
        OutcomeFuture(Answer::Ready(Some(outcome)))
    }

    /// An outcome computed asynchronously: boxes `future` (one allocation).
    pub fn boxed(future: impl Future<Output = StackOutcome> + Send + 'a) -> Self {
        OutcomeFuture(Answer::Pending(Box::pin(future)))
    }
}

impl Future for OutcomeFuture<'_> {
    type Output = StackOutcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<StackOutcome> {
        self.get_mut().0.poll(cx, "OutcomeFuture")
    }
}

impl fmt::Debug for OutcomeFuture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0
            .fmt(f, "OutcomeFuture::Ready", "OutcomeFuture::Pending")
    }
}

/// A hook made from a closure that decides synchronously:
/// `FnHook::new(|ctx, event| Flow::Continue)`. Never allocates per event.
///
/// Use [`FnHook::observing`] to limit the phases it is called for.
pub struct FnHook<F> {
    f: F,
    kinds: Option<&'static [StepEventKind]>,
}

impl<F> FnHook<F>
where
    F: Fn(&HookContext, StepEvent<'_>) -> Flow + Send + Sync,
{
    /// A hook calling `f` on every event.
    pub const fn new(f: F) -> Self {
        FnHook { f, kinds: None }
    }

    /// A hook calling `f` only on events of the listed phases.
    pub const fn observing(kinds: &'static [StepEventKind], f: F) -> Self {
        FnHook {
            f,
            kinds: Some(kinds),
        }
    }
}

impl<F> AgentHook for FnHook<F>
where
    F: Fn(&HookContext, StepEvent<'_>) -> Flow + Send + Sync,
{
    fn on_event<'a>(&'a self, ctx: &'a HookContext, event: StepEvent<'a>) -> HookFuture<'a> {
        HookFuture::ready((self.f)(ctx, event))
    }

    fn observes(&self, kind: StepEventKind) -> bool {
        self.kinds.is_none_or(|kinds| kinds.contains(&kind))
    }
}

impl<F> fmt::Debug for FnHook<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnHook")
            .field("kinds", &self.kinds)
            .finish_non_exhaustive()
    }
}
