//! The criterion settings every bench of the workspace shares, so that
//! `cargo bench` stays within 10 minutes on 2 cores (BENCHMARKS.md).
//! Included by path: `#[path = ".../benches/support/mod.rs"] mod support;`.

use std::time::Duration;

use criterion::Criterion;

/// Short runs: 0.2 s warm-up, 0.6 s of measurement, 20 samples. Pass
/// `--warm-up-time` / `--measurement-time` for steadier figures.
pub(crate) fn quick() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(600))
        .sample_size(20)
}
