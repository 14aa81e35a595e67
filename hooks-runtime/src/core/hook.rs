//! The `AgentHook` trait, its allocation-free future type and
//! [`FoldStep`], a hook's part of its caller's fold.
//!
//! See [`HookFuture`] for why `on_event` returns it rather than `impl Future`.

use std::fmt;
use std::future::Future;
use std::ops::ControlFlow;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::core::context::HookContext;
use crate::core::event::{StepEvent, StepEventKind};
use crate::core::flow::Flow;
use crate::core::fold::Fold;
use crate::core::stack::HookStack;

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

    /// Whether this hook reads the payload of events of `kind`: what
    /// [`StepEvent`] carries beyond its phase and tool name (a request, a
    /// response, arguments, a result, a text). An adapter may skip
    /// building a payload no hook reads and pass an empty one (`null`, an
    /// empty text) instead: a hook that answers `false` must decide the
    /// same on it. Default: [`observes`](AgentHook::observes) (a hook
    /// written in Rust may read anything). A dispatch table answers from
    /// its rules (their `when` pointers and actions); a
    /// [`HookStack`](crate::HookStack), from its hooks.
    fn reads_payload(&self, kind: StepEventKind) -> bool {
        self.observes(kind)
    }

    /// This hook's flow for `event` when it is known at once, without the
    /// run's context and with nothing beyond the flow that a caller could
    /// read (no report, context, provenance, record or telemetry span):
    /// `Some(flow)`; `None` when the hook must be asked through
    /// [`on_event`](AgentHook::on_event) or
    /// [`fold_into`](AgentHook::fold_into). An adapter that needs only the
    /// decision (not the reports) may ask first and skip building the run's
    /// context when the answer is known
    /// ([`HookStack::before_tool_now`](crate::HookStack::before_tool_now)).
    /// A hook that answers `Some` must answer the same flow from
    /// `on_event`. Default: `None`. A dispatch table without a bound shell
    /// runtime answers when no rule matches (`Continue`) or when the first
    /// matching rule blocks or terminates in `mode: enforce` and no
    /// `tracing` subscriber enabling `info` is set; a [`HookStack`], when its
    /// hooks do.
    fn decide_now(&self, event: &StepEvent<'_>) -> Option<Flow> {
        let _ = event;
        None
    }

    /// Contributes this hook's answer to `fold`, the fold of the stack
    /// that consults it. The default answers with
    /// [`on_event`](AgentHook::on_event) on [`Fold::event`] (the event as
    /// the hooks before this one left it) and lets the caller apply the
    /// flow ([`FoldStep::flow`]). Hooks made of several hooks (a
    /// [`HookStack`](crate::HookStack), a dispatch table) override it to
    /// apply their parts' flows to `fold` themselves, one at a time, so one
    /// fold is passed down and nothing is folded twice: rewrites kept before
    /// a `Skip`, context beside a rewritten result, and provenance and
    /// reports naming the inner hooks all land in the caller's fold.
    ///
    /// The default hands the flow back instead of applying it because the
    /// hook's future borrows the event, which borrows `fold`: applying it
    /// here would need the future boxed even when it is ready.
    ///
    /// A hook that applies flows itself uses [`Fold::apply`] /
    /// [`Fold::apply_reported`] under its parts' ids and returns
    /// [`FoldStep::ready`] with what the last one returned (no allocation),
    /// or [`FoldStep::boxed`] around an `async` block when a part must be
    /// awaited; it must stop applying once one returns
    /// `ControlFlow::Break`.
    ///
    /// # Cancel safety
    ///
    /// As [`on_event`](AgentHook::on_event). Dropping a pending step leaves
    /// `fold` with the flows applied before it was dropped; a stack drops its
    /// fold with it, so nothing is applied.
    fn fold_into<'a>(&'a self, ctx: &'a HookContext, fold: &'a mut Fold<'_>) -> FoldStep<'a> {
        let fold: &'a Fold<'_> = fold;
        FoldStep::flow(self.on_event(ctx, fold.event()))
    }

    /// The plan of the hook config this hook dispatches, when it is one (a
    /// [`Dispatcher`](crate::Dispatcher), a type made by `hooks!`), so that
    /// [`HookStack::try_push`](crate::HookStack::try_push) can refuse hook
    /// ids that two configs share. Default: `None`.
    fn config_plan(&self) -> Option<&hooks_plan::Plan> {
        None
    }

    /// The hooks of this hook when it is a [`HookStack`](crate::HookStack),
    /// so that pushing a stack into a stack flattens it (see
    /// [`HookStack::push`](crate::HookStack::push)). Default: `None`.
    fn as_stack(&self) -> Option<&HookStack> {
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

            fn fold_into<'a>(&'a self, ctx: &'a HookContext, fold: &'a mut Fold<'_>) -> FoldStep<'a> {
                (**self).fold_into(ctx, fold)
            }

            fn observes(&self, kind: StepEventKind) -> bool {
                (**self).observes(kind)
            }

            fn reads_payload(&self, kind: StepEventKind) -> bool {
                (**self).reads_payload(kind)
            }

            fn decide_now(&self, event: &StepEvent<'_>) -> Option<Flow> {
                (**self).decide_now(event)
            }

            fn config_plan(&self) -> Option<&hooks_plan::Plan> {
                (**self).config_plan()
            }

            fn as_stack(&self) -> Option<&HookStack> {
                (**self).as_stack()
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

/// What [`AgentHook::fold_into`] returns: the hook's part of the caller's
/// fold, done now or still to do.
///
/// - [`FoldStep::ready`]: the hook applied its flows to the fold (no
///   allocation); the `ControlFlow` is what the last applied flow returned.
/// - [`FoldStep::boxed`]: a future that applies them (one allocation), for
///   a hook that awaits a part (a shell, http or policy rule, a hook that
///   awaits).
/// - [`FoldStep::flow`]: the hook answered with one flow (the default,
///   through [`AgentHook::on_event`]); the caller applies it under the
///   hook's id, with a report and a telemetry span.
///
/// A [`HookStack`](crate::HookStack) consumes it; code that folds hooks
/// itself pushes them into a stack.
///
/// # Cancel safety
///
/// A step may be dropped before it completes: the part being awaited is
/// dropped (a shell hook kills and reaps its process group), later parts
/// are not consulted, and the fold keeps what was applied before; drop the
/// fold too to apply nothing (as a stack does).
#[must_use = "a hook's part of the fold does nothing unless awaited"]
pub struct FoldStep<'a>(pub(crate) Step<'a>);

/// The states of a [`FoldStep`].
#[allow(
    clippy::large_enum_variant,
    reason = "boxing the ready flow would allocate on the path meant to be allocation-free"
)]
pub(crate) enum Step<'a> {
    /// Applied; the answer of the last applied flow.
    Ready(ControlFlow<()>),
    /// Applied when this completes.
    Pending(Pin<Box<dyn Future<Output = ControlFlow<()>> + Send + 'a>>),
    /// One flow, for the caller to apply.
    Flow(HookFuture<'a>),
}

impl<'a> FoldStep<'a> {
    /// The hook's flows are applied: `step` is what the last
    /// [`Fold::apply`] returned (`ControlFlow::Continue(())` when it
    /// applied none). No allocation.
    pub const fn ready(step: ControlFlow<()>) -> Self {
        FoldStep(Step::Ready(step))
    }

    /// The hook's flows are applied by `future`, which resolves to what the
    /// last [`Fold::apply`] returned: boxes `future` (one allocation).
    pub fn boxed(future: impl Future<Output = ControlFlow<()>> + Send + 'a) -> Self {
        FoldStep(Step::Pending(Box::pin(future)))
    }

    /// The hook answers with the flow `answer` resolves to; the caller
    /// applies it under the hook's id (what the default
    /// [`AgentHook::fold_into`] returns).
    pub fn flow(answer: HookFuture<'a>) -> Self {
        FoldStep(Step::Flow(answer))
    }

    /// Whether nothing is left to await (made with [`FoldStep::ready`], or
    /// [`FoldStep::flow`] with a ready answer).
    pub fn is_ready(&self) -> bool {
        match &self.0 {
            Step::Ready(_) => true,
            Step::Pending(_) => false,
            Step::Flow(answer) => answer.is_ready(),
        }
    }
}

impl fmt::Debug for FoldStep<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Step::Ready(step) => f.debug_tuple("FoldStep::Ready").field(step).finish(),
            Step::Pending(_) => f.write_str("FoldStep::Pending"),
            Step::Flow(answer) => f.debug_tuple("FoldStep::Flow").field(answer).finish(),
        }
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
