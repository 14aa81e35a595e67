//! `hooks!` expansion time and generated size at 10, 100 and 1,000 rules:
//! the macro's own expansion (load, validate, lower, quote) run outside the
//! compiler, on the generated policies of the workspace's
//! `benches/policies/` (`mixed_<n>.yaml`: exact tools, tool globs, tool
//! regexes and `when` regexes in turn). Prints the generated code's size
//! (bytes of tokens, and of embedded DFAs) before timing.
//!
//! Run with `cargo bench -p hooks-macros --bench expansion`.

#![allow(dead_code, reason = "the macro's modules, compiled into a bench")]

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

#[path = "../src/expand.rs"]
mod expand;
#[path = "../src/load.rs"]
mod load;
#[path = "../src/parse.rs"]
mod parse;
#[path = "../src/quote_plan.rs"]
mod quote_plan;
#[path = "../src/watch.rs"]
mod watch;

fn expand(file: &str, base: &Path) -> proc_macro2::TokenStream {
    let input: parse::Input =
        syn::parse_str(&format!("::rt::__private; {file:?}")).expect("the input parses");
    expand::input(input, base)
}

fn bench(c: &mut Criterion) {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../benches/policies");
    let mut group = c.benchmark_group("expansion");
    for n in [10, 100, 1_000] {
        let file = format!("mixed_{n}.yaml");
        let out = expand(&file, &base).to_string();
        assert!(
            !out.contains("compile_error"),
            "{}",
            &out[..out.len().min(2000)]
        );
        let dfa_bytes: usize = out
            .split("AlignAs { _align : [] , bytes : * b\"")
            .skip(1)
            .step_by(2)
            .map(|s| s.find("\" }").unwrap_or(0))
            .sum();
        println!(
            "generated size mixed n={n}: {} bytes of tokens, {} DFAs, ~{} bytes of DFA literals (little-endian)",
            out.len(),
            out.matches("StaticDfa :: new").count(),
            dfa_bytes
        );
        group.bench_function(BenchmarkId::new("mixed", n), |b| {
            b.iter(|| expand(black_box(&file), &base))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(2))
        .sample_size(10);
    targets = bench
}
criterion_main!(benches);
