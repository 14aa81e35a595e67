//! Dispatch through a `hooks!` table: an event no rule matches, an event a
//! declarative rule blocks, and a phase without rules (one check); the
//! same events folded by a `HookStack` holding the table.
//!
//! Run with `cargo bench -p agent-hooks-benches --bench dispatch`.

#[path = "support/measure.rs"]
mod measure;
#[path = "support/mod.rs"]
mod support;

use std::hint::black_box;

use agent_hooks::{AgentHook, Flow, HookContext, HookStack, StepEvent, Table};
use criterion::{Criterion, criterion_group, criterion_main};
use measure::poll_ready;
use serde_json::json;

agent_hooks::hooks!(name = Full, "../tests/configs/full.yaml");

fn bench(c: &mut Criterion) {
    let hooks = Full::new();
    let path = std::path::Path::new("tests/configs/full.yaml");
    let source = std::fs::read_to_string(path).expect("the config reads");
    let loaded = Table::load_str(&source, "tests/configs/full.yaml").expect("the config loads");
    let ctx = HookContext::new("bench");
    let quiet = json!({"command": "cargo build"});
    let wipe = json!({"command": "rm -rf /"});
    let tool = |args| StepEvent::BeforeTool {
        tool_name: "bash",
        call_id: "c",
        args,
    };
    c.bench_function("static/before_tool/no_match", |b| {
        b.iter(|| {
            assert_eq!(
                poll_ready(hooks.on_event(&ctx, black_box(tool(&quiet)))),
                Flow::Continue
            )
        });
    });
    c.bench_function("loaded/before_tool/no_match", |b| {
        b.iter(|| {
            assert_eq!(
                poll_ready(loaded.on_event(&ctx, black_box(tool(&quiet)))),
                Flow::Continue
            )
        });
    });
    c.bench_function("static/before_tool/block", |b| {
        b.iter(|| poll_ready(hooks.on_event(&ctx, black_box(tool(&wipe)))));
    });
    c.bench_function("static/text_delta/no_rules", |b| {
        b.iter(|| poll_ready(hooks.on_event(&ctx, black_box(StepEvent::TextDelta { delta: "x" }))));
    });
    // Through a stack (how agents call a table): the stack's fold and the
    // table's rules, one fold passed down.
    let stack = HookStack::new().with("full", Full::new());
    c.bench_function("stack/before_tool/no_match", |b| {
        b.iter(|| poll_ready(stack.fold(&ctx, black_box(tool(&quiet)))));
    });
    c.bench_function("stack/before_tool/block", |b| {
        b.iter(|| poll_ready(stack.fold(&ctx, black_box(tool(&wipe)))));
    });
    c.bench_function("static/select/block", |b| {
        b.iter(|| Full::table().matching(black_box(tool(&wipe))).count());
    });
}

criterion_group! {
    name = benches;
    config = support::quick();
    targets = bench
}
criterion_main!(benches);
