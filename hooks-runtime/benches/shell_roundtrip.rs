//! Round trip of `true` through `Executor::run` next to a bare
//! `tokio::process::Command::new("true").output()`, measured in one run.
//!
//! Run: `cargo bench -p hooks-runtime --bench shell_roundtrip`.

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented items"
)]

#[path = "../../benches/support/mod.rs"]
mod support;

use criterion::{Criterion, criterion_group, criterion_main};
use hooks_runtime::{CancellationToken, ExecRequest, Executor};

fn roundtrip(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let root = std::env::temp_dir();
    let executor = Executor::new(&root).expect("executor");
    let request = ExecRequest::exec(["true"]);
    let cancel = CancellationToken::new();

    let mut group = c.benchmark_group("true_roundtrip");
    group.bench_function("executor_run", |b| {
        b.iter(|| {
            let outcome = rt.block_on(executor.run(&request, &cancel));
            assert!(outcome.status.is_success());
        });
    });
    group.bench_function("bare_tokio_command", |b| {
        b.iter(|| {
            // `output()` spawns when called: call it inside the runtime.
            let output = rt
                .block_on(async { tokio::process::Command::new("true").output().await })
                .expect("spawn true");
            assert!(output.status.success());
        });
    });
    // The executor's spawn configuration without its logic (preflight,
    // deadline, group kill): separates spawn cost from executor overhead.
    let path = std::env::var_os("PATH").unwrap_or_default();
    group.bench_function("tokio_command_same_setup", |b| {
        b.iter(|| {
            let output = rt
                .block_on(async {
                    tokio::process::Command::new("true")
                        .env_clear()
                        .env("PATH", &path)
                        .current_dir(&root)
                        .process_group(0)
                        .kill_on_drop(true)
                        .output()
                        .await
                })
                .expect("spawn true");
            assert!(output.status.success());
        });
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = support::quick();
    targets = roundtrip
}
criterion_main!(benches);
