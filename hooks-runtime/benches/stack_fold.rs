//! Timings of the `HookStack` fold: 100 in-process hooks that all continue
//! (the common path, allocation-free), a before_completion merge of patches,
//! and a before_tool rewrite chain. Run with
//! `cargo bench -p hooks-runtime --bench stack_fold`.

#[path = "../../benches/support/mod.rs"]
mod support;

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use criterion::{Criterion, criterion_group, criterion_main};
use hooks_runtime::{Flow, FnHook, HookContext, HookStack, RequestPatch, StepEvent};
use serde_json::json;

/// Polls an in-process fold, which completes on the first poll.
fn poll_ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("an in-process fold returned `Pending`"),
    }
}

fn continue_stack(n: usize) -> HookStack {
    let mut stack = HookStack::new();
    for i in 0..n {
        stack.push(format!("hook-{i}"), FnHook::new(|_, _| Flow::Continue));
    }
    stack
}

fn bench_fold(c: &mut Criterion) {
    let ctx = HookContext::new("bench");
    let args = json!({"command": "cargo test", "timeout_ms": 60000});
    let request = json!({"model": "m", "messages": []});
    let before_tool = StepEvent::BeforeTool {
        tool_name: "bash",
        call_id: "c1",
        args: &args,
    };

    let stack = continue_stack(100);
    c.bench_function("fold/100_continue/before_tool", |b| {
        b.iter(|| poll_ready(stack.fold(&ctx, black_box(before_tool))))
    });
    let delta = StepEvent::TextDelta { delta: "tok" };
    c.bench_function("fold/100_continue/text_delta", |b| {
        b.iter(|| poll_ready(stack.fold(&ctx, black_box(delta))))
    });

    let mut patching = HookStack::new();
    for i in 0..10u64 {
        patching.push(
            format!("patch-{i}"),
            FnHook::new(move |_, _| {
                let mut patch = RequestPatch {
                    max_tokens: Some(1000 + i),
                    active_tools: Some(
                        vec!["bash".into(), "read".into(), format!("t{i}").into()].into(),
                    ),
                    ..RequestPatch::default()
                };
                patch.additional_params.insert(format!("k{i}"), json!(i));
                Flow::PatchRequest(patch)
            }),
        );
    }
    let completion = StepEvent::BeforeCompletion { request: &request };
    c.bench_function("fold/10_patches/before_completion", |b| {
        b.iter(|| poll_ready(patching.fold(&ctx, black_box(completion))))
    });

    let mut rewriting = HookStack::new();
    for i in 0..10 {
        rewriting.push(
            format!("rewrite-{i}"),
            FnHook::new(move |_, event| match event {
                StepEvent::BeforeTool { args, .. } => {
                    let mut args = args.clone();
                    args[format!("k{i}")] = json!(i);
                    Flow::RewriteArgs(args)
                }
                _ => Flow::Continue,
            }),
        );
    }
    c.bench_function("fold/10_rewrites/before_tool", |b| {
        b.iter(|| poll_ready(rewriting.fold(&ctx, black_box(before_tool))))
    });
}

criterion_group! {
    name = benches;
    config = support::quick();
    targets = bench_fold
}
criterion_main!(benches);
