//! Helpers shared by the `HookStack` fold tests (`stack_*.rs`).
//! Include with `#[path = "common/stack.rs"] mod stack;`.

#![allow(dead_code, reason = "each test binary uses a subset")]

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use hooks_runtime::{AgentHook, HookContext, HookFuture, HookStack, StepEvent, StepEventKind};

/// Polls an in-process fold once: it completes on the first poll (no
/// runtime needed), so `Pending` panics.
pub(crate) fn poll_ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("an in-process fold returned `Pending`"),
    }
}

/// Hides that the wrapped stack is a stack (it forwards only `on_event` and
/// `observes`), so it is folded through its net flow.
pub(crate) struct Opaque(pub(crate) HookStack);

impl AgentHook for Opaque {
    fn on_event<'a>(&'a self, ctx: &'a HookContext, event: StepEvent<'a>) -> HookFuture<'a> {
        self.0.on_event(ctx, event)
    }

    fn observes(&self, kind: StepEventKind) -> bool {
        self.0.observes(kind)
    }
}
