//! Zero allocation on the common path: folding a stack of
//! 100 in-process hooks that all return `Continue` performs no heap
//! allocation, on every event kind.
//!
//! This file is its own test binary, so the counting global allocator that
//! `allocation-counter` registers serves only these tests (its counters are
//! per thread, so parallel tests do not disturb each other). The futures are
//! driven with a no-op waker: the ready path never returns `Pending`, and a
//! runtime would allocate on its own.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use hooks_runtime::{
    AgentHook, Flow, FnHook, HookContext, HookFuture, HookStack, StepEvent, StepEventKind,
    ToolCall, ToolOutcome,
};
use serde_json::json;

// `allocation-counter` registers the counting `#[global_allocator]`; the
// workspace forbids `unsafe_code`, so we do not write our own.

/// Polls `future` to completion with a no-op waker; panics if it ever pends
/// (the in-process path must complete on the first poll).
fn poll_ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    match future.as_mut().poll(&mut cx) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("an in-process fold returned `Pending`"),
    }
}

/// Counts the heap allocations (and reallocations) `f` makes on this thread.
fn allocations_in<R>(f: impl FnOnce() -> R) -> (u64, R) {
    let mut result = None;
    let info = allocation_counter::measure(|| result = Some(f()));
    (
        info.count_total,
        result.expect("`measure` runs the closure"),
    )
}

/// An in-process hook that looks at the event and continues.
struct Inspecting;

impl AgentHook for Inspecting {
    fn on_event<'a>(&'a self, ctx: &'a HookContext, event: StepEvent<'a>) -> HookFuture<'a> {
        let flow = match event {
            StepEvent::BeforeTool { args, .. } if args.get("never").is_some() => {
                Flow::skip("unreachable in this test")
            }
            _ if ctx.turn() > 1_000 => Flow::terminate("unreachable in this test"),
            _ => Flow::Continue,
        };
        HookFuture::ready(flow)
    }
}

/// 100 in-process hooks of three kinds, all answering `Continue`.
fn flat_100() -> HookStack {
    let mut stack = HookStack::new();
    for i in 0..100 {
        match i % 3 {
            0 => stack.push(format!("inspect-{i}"), Inspecting),
            1 => stack.push(format!("fn-{i}"), FnHook::new(|_, _| Flow::Continue)),
            // Declines most kinds, so the fold also exercises `observes`.
            _ => stack.push(
                format!("tools-{i}"),
                FnHook::observing(
                    &[StepEventKind::BeforeTool, StepEventKind::AfterTool],
                    |_, _| Flow::Continue,
                ),
            ),
        };
    }
    assert_eq!(stack.len(), 100);
    stack
}

fn events<'a>(
    args: &'a serde_json::Value,
    result: &'a serde_json::Value,
    request: &'a serde_json::Value,
    outcome: &'a ToolOutcome,
) -> [StepEvent<'a>; hooks_schema::Phase::COUNT] {
    [
        StepEvent::RUN_START,
        StepEvent::UserPrompt { prompt: "hello" },
        StepEvent::BeforeCompletion { request },
        StepEvent::BeforeModelSelect { selection: request },
        StepEvent::AfterModelSelect { selection: request },
        StepEvent::AfterCompletion { response: request },
        StepEvent::TextDelta { delta: "tok" },
        StepEvent::ToolCallDelta {
            tool_name: "bash",
            call_id: "c1",
            delta: "{\"co",
        },
        StepEvent::StreamFinish { response: request },
        StepEvent::AfterReasoning { reasoning: "think" },
        StepEvent::AfterAssistant { text: "done" },
        StepEvent::BeforeTool {
            tool_name: "bash",
            call_id: "c1",
            args,
        },
        StepEvent::PermissionRequest {
            tool_name: "bash",
            call_id: "c1",
            args,
            suggestions: request,
        },
        StepEvent::AfterTool {
            tool_name: "bash",
            call_id: "c1",
            args,
            original_args: args,
            result,
            outcome,
            duration_ms: None,
        },
        StepEvent::AfterToolBatch { calls: result },
        StepEvent::InvalidToolCall {
            tool_name: "bsh",
            call_id: "c2",
            raw_args: "{",
            error: "unknown tool `bsh`",
        },
        StepEvent::Stop {
            loop_count: 0,
            text: "done",
            background_tasks: &serde_json::Value::Null,
            session_crons: &serde_json::Value::Null,
        },
        StepEvent::Notification {
            notification_type: "idle_prompt",
            title: "",
            message: "waiting",
        },
        StepEvent::SubagentStart {
            agent_id: "a1",
            agent_type: "Explore",
        },
        StepEvent::SubagentStop {
            agent_id: "a1",
            agent_type: "Explore",
            loop_count: 0,
            text: "done",
            agent_transcript_path: "",
            background_tasks: &serde_json::Value::Null,
            session_crons: &serde_json::Value::Null,
        },
        StepEvent::BeforeCompaction {
            trigger: "auto",
            instructions: "",
        },
        StepEvent::AfterCompaction {
            trigger: "auto",
            summary: "summary",
        },
        StepEvent::RunEnd {
            output: "done",
            reason: "other",
        },
        StepEvent::RunError { error: "boom" },
    ]
}

/// Folds every event kind `rounds` times; returns (allocations, folds that were `Continue`).
fn measure_folds(stack: &HookStack, rounds: usize) -> (u64, usize) {
    let ctx = HookContext::new("alloc-test");
    let args = json!({"command": "ls -la", "timeout_ms": 500});
    let result = json!({"stdout": "a\nb\n", "exit_code": 0});
    let request = json!({"model": "m", "messages": []});
    let outcome = ToolOutcome::Success;
    let events = events(&args, &result, &request, &outcome);
    let kinds: Vec<_> = events.iter().map(StepEvent::kind).collect();
    assert_eq!(kinds, hooks_schema::Phase::ALL, "one event per phase");
    allocations_in(|| {
        let mut continued = 0usize;
        for _ in 0..rounds {
            for event in events {
                let outcome = poll_ready(stack.fold(&ctx, event));
                continued += usize::from(outcome.is_continue());
            }
        }
        continued
    })
}

#[test]
fn folding_100_continue_hooks_does_not_allocate() {
    let stack = flat_100();
    let (count, continued) = measure_folds(&stack, 50);
    assert_eq!(
        continued,
        50 * hooks_schema::Phase::COUNT,
        "every fold must be `Continue`"
    );
    assert_eq!(
        count, 0,
        "folding 100 `Continue` hooks allocated {count} times"
    );
}

#[test]
fn nested_stacks_flatten_and_do_not_allocate_either() {
    let mut inner = HookStack::new();
    for i in 0..10 {
        inner.push(format!("inner-{i}"), FnHook::new(|_, _| Flow::Continue));
    }
    let mut outer = HookStack::new();
    outer.push("inner", inner).push("rest", flat_100());
    assert_eq!(outer.len(), 110);
    let (count, continued) = measure_folds(&outer, 20);
    assert_eq!(continued, 20 * hooks_schema::Phase::COUNT);
    assert_eq!(
        count, 0,
        "folding nested `Continue` stacks allocated {count} times"
    );
}

#[test]
fn the_driver_continue_path_does_not_allocate() {
    let stack = flat_100();
    let ctx = HookContext::new("alloc-test");
    let args = json!({"command": "ls -la"});
    let result = json!({"stdout": "a"});
    let outcome = ToolOutcome::Success;
    // The driver methods keep the borrowed values on the Continue path too.
    let call = ToolCall {
        tool_name: "bash",
        call_id: "c1",
        args: &args,
    };
    let (count, _) = allocations_in(|| {
        for _ in 0..20 {
            let decided = poll_ready(stack.before_tool(&ctx, call));
            assert!(matches!(
                decided.decision,
                hooks_runtime::ToolDecision::Run {
                    args: std::borrow::Cow::Borrowed(_)
                }
            ));
            let after = poll_ready(stack.after_tool(&ctx, call, &args, &result, &outcome));
            assert!(after.decision.terminate.is_none());
            let stop = poll_ready(stack.stop(&ctx, 0, "done"));
            assert_eq!(stop.decision, hooks_runtime::StopDecision::Stop);
            let prompt = poll_ready(stack.user_prompt(&ctx, "hi"));
            assert!(prompt.diagnostics.is_empty());
            let request = &args;
            let completion = poll_ready(stack.before_completion(&ctx, request));
            assert!(matches!(
                completion.decision,
                hooks_runtime::CompletionDecision::Send { ref patch } if patch.is_empty()
            ));
            let invalid = poll_ready(stack.invalid_tool_call(&ctx, "bsh", "c2", "{", "unknown"));
            assert_eq!(invalid.decision, hooks_runtime::InvalidCallDecision::Fail);
            let observed = poll_ready(stack.observe(&ctx, StepEvent::TextDelta { delta: "x" }));
            assert!(observed.decision.terminate.is_none());
        }
    });
    assert_eq!(
        count, 0,
        "the driver's Continue path allocated {count} times"
    );
}

#[test]
fn the_counter_sees_allocations() {
    // Guards the test above against a counter that never counts.
    let (count, boxed) = allocations_in(|| Box::new(7u64));
    assert_eq!(*boxed, 7);
    assert!(count >= 1);
}
