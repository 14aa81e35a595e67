//! Round trip of a `true` shell hook through the whole hook layer
//! (`ShellHook::invoke`: payload, executor, protocol, policy, record) next
//! to a bare `tokio::process::Command::new("true").output()`, in one run.
//!
//! Run: `cargo bench -p hooks-runtime --bench hook_roundtrip`.

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented items"
)]

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use hooks_runtime::{
    CommandForm, Executor, Flow, HookContext, RecordWriter, SecretSet, ShellHook, ShellHookSpec,
    ShellRuntime, StepEvent,
};
use hooks_schema::Phase;

fn roundtrip(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    let records = RecordWriter::open(dir.path().join("records.jsonl"), SecretSet::new())
        .expect("records file");
    let runtime = Arc::new(
        ShellRuntime::new(Executor::new(dir.path()).expect("executor")).with_records(records),
    );
    let hook = ShellHook::new(
        ShellHookSpec::new(
            "noop",
            Phase::BeforeTool,
            CommandForm::Exec(vec!["true".into()]),
        ),
        runtime,
    );
    let ctx = HookContext::new("bench");
    let args = serde_json::json!({"command": "ls -la", "timeout": 30});

    let mut group = c.benchmark_group("true_hook_roundtrip");
    group.bench_function("shell_hook_invoke", |b| {
        b.iter(|| {
            let inv = rt.block_on(hook.invoke(
                &ctx,
                StepEvent::BeforeTool {
                    tool_name: "bash",
                    call_id: "c1",
                    args: &args,
                },
            ));
            assert_eq!(inv.flow, Flow::Continue);
        });
    });
    group.bench_function("bare_tokio_command", |b| {
        b.iter(|| {
            let output = rt
                .block_on(async { tokio::process::Command::new("true").output().await })
                .expect("spawn true");
            assert!(output.status.success());
        });
    });
    group.finish();
}

criterion_group!(benches, roundtrip);
criterion_main!(benches);
