//! Helpers shared by the `HookStack` fold tests (`stack_*.rs`).
//! Include with `#[path = "common/stack.rs"] mod stack;`.

#![allow(dead_code, reason = "each test binary uses a subset")]

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use hooks_runtime::{
    AgentHook, Change, Flow, Fold, FoldStep, HookContext, HookFuture, HookId, HookStack,
    Provenance, StepEvent, StepEventKind, ToolCall,
};
use serde_json::{Value, json};

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

/// `args` with `tag` appended to its `trail` array.
pub(crate) fn appended(value: &Value, tag: &str) -> Value {
    let mut value = value.clone();
    value["trail"]
        .as_array_mut()
        .expect("trail array")
        .push(json!(tag));
    value
}

/// On `before_tool`, the args with `tag` appended to their trail; otherwise
/// `Continue`.
pub(crate) fn args_tagged(event: StepEvent<'_>, tag: &str) -> Flow {
    match event {
        StepEvent::BeforeTool { args, .. } => Flow::RewriteArgs(appended(args, tag)),
        _ => Flow::Continue,
    }
}

/// On `after_tool`, the result with `tag` appended to its trail; otherwise
/// `Continue`.
pub(crate) fn result_tagged(event: StepEvent<'_>, tag: &str) -> Flow {
    match event {
        StepEvent::AfterTool { result, .. } => Flow::RewriteResult(appended(result, tag)),
        _ => Flow::Continue,
    }
}

pub(crate) fn prov(hook: &str, change: Change) -> Provenance {
    Provenance {
        hook: HookId::from(hook),
        change,
    }
}

pub(crate) fn call(args: &Value) -> ToolCall<'_> {
    ToolCall {
        tool_name: "bash",
        call_id: "call-1",
        args,
    }
}

/// Forwards to a stack through `fold_into` (a wrapper type), so the
/// wrapped stack folds its hooks into the outer stack's fold without being
/// flattened into it.
pub(crate) struct Forwarding(pub(crate) HookStack);

impl AgentHook for Forwarding {
    fn on_event<'a>(&'a self, ctx: &'a HookContext, event: StepEvent<'a>) -> HookFuture<'a> {
        self.0.on_event(ctx, event)
    }

    fn fold_into<'a>(&'a self, ctx: &'a HookContext, fold: &'a mut Fold<'_>) -> FoldStep<'a> {
        self.0.fold_into(ctx, fold)
    }
}
