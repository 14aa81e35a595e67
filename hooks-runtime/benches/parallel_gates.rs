//! Three `before_tool` gates of about 300 ms each through a loaded table,
//! one by one and as a parallel group (`parallel: true`): the wall time of
//! one event.
//!
//! Run: `cargo bench -p hooks-runtime --bench parallel_gates`.

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented items"
)]

use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use hooks_runtime::{Dispatcher, Executor, HookContext, StepEvent, Table, TableRef};
use serde_json::json;

/// Three gates that sleep 300 ms and let the call through.
fn config(parallel: bool) -> String {
    let flag = if parallel { "    parallel: true\n" } else { "" };
    let mut out = String::from("version: 1\nhooks:\n");
    for id in ["a", "b", "c"] {
        out.push_str(&format!(
            "  - id: gate-{id}\n    phase: before_tool\n{flag}    run: {{ command: \"sleep 0.3\" }}\n"
        ));
    }
    out
}

fn gates(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let root = std::env::temp_dir();
    let args = json!({"command": "ls"});
    let event = StepEvent::BeforeTool {
        tool_name: "bash",
        call_id: "c1",
        args: &args,
    };
    let ctx = HookContext::new("bench");
    let mut group = c.benchmark_group("three_300ms_gates");
    group.sampling_mode(SamplingMode::Flat);
    for (name, parallel) in [("one_by_one", false), ("parallel", true)] {
        let table = Table::load_str(&config(parallel), "gates.yaml").expect("the config loads");
        let shell = Arc::new(table.shell_runtime(Executor::new(&root).expect("executor")));
        let dispatcher = Dispatcher::new(TableRef::Shared(Arc::new(table))).with_shell(shell);
        group.bench_function(name, |b| {
            b.iter(|| {
                let outcome = rt.block_on(dispatcher.fold(&ctx, event));
                assert_eq!(outcome.decision, None, "{outcome:?}");
            });
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    // Each event takes 0.3 to 0.9 s: ten of each, no more.
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10);
    targets = gates
}
criterion_main!(benches);
