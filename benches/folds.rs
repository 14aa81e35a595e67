//! `HookStack` folds of 1, 10 and 100 in-process hooks per event kind: hooks
//! that let the event through (`Continue`, the common case), and on
//! `after_tool` hooks that each inject a context item (merged by the fold).
//! Before timing, it prints the heap allocations per fold.
//!
//! Run with `cargo bench -p agent-hooks-benches --bench folds`.

#[path = "support/measure.rs"]
mod measure;
#[path = "support/mod.rs"]
mod support;

use std::hint::black_box;

use agent_hooks::{ContextItem, Flow, FnHook, HookContext, HookStack, StepEvent, ToolOutcome};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use measure::{allocations, poll_ready};
use serde_json::json;

const SIZES: [usize; 3] = [1, 10, 100];

fn stack(n: usize, flow: fn() -> Flow) -> HookStack {
    let mut stack = HookStack::new();
    for i in 0..n {
        stack.push(format!("hook-{i}"), FnHook::new(move |_, _| flow()));
    }
    stack
}

fn inject() -> Flow {
    Flow::InjectContext([ContextItem::user_static("note")].into_iter().collect())
}

fn bench(c: &mut Criterion) {
    let ctx = HookContext::new("bench");
    let args = json!({"command": "cargo build"});
    let result = json!({"stdout": "ok"});
    let request = json!({"messages": [{"role": "user", "content": "hi"}]});
    let outcome = ToolOutcome::Success;
    let events: [(&str, StepEvent<'_>); 6] = [
        (
            "before_tool",
            StepEvent::BeforeTool {
                tool_name: "bash",
                call_id: "c",
                args: &args,
            },
        ),
        (
            "after_tool",
            StepEvent::AfterTool {
                tool_name: "bash",
                call_id: "c",
                args: &args,
                original_args: &args,
                result: &result,
                outcome: &outcome,
                duration_ms: None,
            },
        ),
        ("user_prompt", StepEvent::UserPrompt { prompt: "hi" }),
        (
            "before_completion",
            StepEvent::BeforeCompletion { request: &request },
        ),
        ("text_delta", StepEvent::TextDelta { delta: "x" }),
        (
            "run_end",
            StepEvent::RunEnd {
                output: "done",
                reason: "other",
            },
        ),
    ];
    let mut group = c.benchmark_group("fold");
    for n in SIZES {
        let quiet = stack(n, || Flow::Continue);
        for (name, event) in events {
            println!(
                "allocations/fold {name}/continue n={n}: {}",
                allocations(1_000, || drop(black_box(poll_ready(
                    quiet.fold(&ctx, event)
                ))))
            );
            group.bench_function(BenchmarkId::new(format!("{name}/continue"), n), |b| {
                b.iter(|| poll_ready(quiet.fold(&ctx, black_box(event))))
            });
        }
        // `after_tool` honours injected context (`user_prompt` does not:
        // its fold would stop at the first hook, refused).
        let injecting = stack(n, inject);
        let after_tool = events[1].1;
        let folded = poll_ready(injecting.fold(&ctx, after_tool));
        assert_eq!(folded.context.len(), n, "every hook's item is merged");
        println!(
            "allocations/fold after_tool/inject n={n}: {}",
            allocations(1_000, || drop(black_box(poll_ready(
                injecting.fold(&ctx, after_tool)
            ))))
        );
        group.bench_function(BenchmarkId::new("after_tool/inject", n), |b| {
            b.iter(|| poll_ready(injecting.fold(&ctx, black_box(after_tool))))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = support::quick();
    targets = bench
}
criterion_main!(benches);
