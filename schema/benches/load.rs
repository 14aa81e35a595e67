//! Loading speed: a 1,000-hook config through all three layers, and the
//! configs whose patterns once made determinization blow up: 1,000
//! `*contains*` globs and 512 small regexes on one pointer, and a 1 MiB
//! config of the globs (`cargo bench -p hooks-schema --bench load`).
//! Target: well under 1 s each, the 1 MiB config under 5 s.

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented items"
)]

#[path = "../../benches/support/mod.rs"]
mod support;

use std::fmt::Write;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

/// A realistic config of `n` hooks cycling through every action, tool
/// filters, regex and glob predicates and `run` options.
fn config(n: usize) -> String {
    let mut s = String::from(
        "version: 1\ndefaults:\n  timeout: 5s\nlimits:\n  max_output_bytes: 65536\ntool_settings:\n  write_file:\n    path_pointers: [/path]\n    writes: true\nhooks:\n",
    );
    for i in 0..n {
        let body = match i % 6 {
            0 => "    phase: before_tool\n    include_tools: [bash, \"mcp__*\"]\n    when: { pointer: /command, matches: '\\brm\\s+-rf\\b' }\n    block: { reason: \"no rm -rf\" }\n".to_owned(),
            1 => "    phase: before_tool\n    exclude_tools: [{ regex: \"fs__(read|write)_.*\" }]\n    run:\n      command: sh hooks/guard.sh\n      env: { pass: [HOME], set: { MODE: strict } }\n      timeout: 2s\n".to_owned(),
            2 => "    phase: before_completion\n    patch: { temperature: 0.2, max_tokens: 1024, active_tools: [bash, read_file] }\n".to_owned(),
            3 => "    phase: after_tool\n    when:\n      all:\n        - { outcome: success }\n        - not: { pointer: /path, glob: \"*.md\" }\n    inject: { content: \"run the tests\" }\n".to_owned(),
            4 => "    phase: before_tool\n    include_tools: [read_file]\n    rewrite:\n      - { op: set, pointer: /max_bytes, value: 100000 }\n".to_owned(),
            _ => "    phase: stop\n    run: { argv: [sh, hooks/stop.sh], timeout: 1s }\n    failure_policy: warn\n".to_owned(),
        };
        write!(
            s,
            "  - id: hook-{i}\n    description: generated hook {i}\n{body}"
        )
        .unwrap_or(());
    }
    s
}

/// The lints' worst case: `n` unconditional `block`s on distinct tools (each
/// compared with every earlier one for `shadowed-rule`), each with a
/// contradiction-free `all` of eight leaves, every other one disabled.
fn lint_worst_case(n: usize) -> String {
    let mut s = String::from("version: 1\nhooks:\n");
    for i in 0..n {
        write!(
            s,
            "  - id: rule-{i}\n    phase: before_tool\n    include_tools: [tool_{i}, other_{i}]\n    block: {{ reason: \"no\" }}\n    enabled: {}\n  - id: cond-{i}\n    phase: before_tool\n    include_tools: [tool_{i}]\n    when: {{ all: [{}] }}\n    run: {{ command: \"true\" }}\n",
            i % 2 == 0,
            (0..8)
                .map(|k| format!("{{ pointer: /p{k}, equals: {k} }}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
        .unwrap_or(());
    }
    s
}

/// `n` rules `when: {pointer: /path, glob: '*secretN*'}` (`n` = 9,200 is
/// a config just under the 1 MiB limit).
fn contains_globs(n: usize) -> String {
    let mut s = String::from("version: 1\nhooks:\n");
    for i in 0..n {
        write!(
            s,
            "  - id: g{i}\n    phase: before_tool\n    when: {{ pointer: /path, glob: '*secret{i}*' }}\n    block: {{ reason: no }}\n"
        )
        .unwrap_or(());
    }
    s
}

/// `n` rules `when: {pointer: /command, matches: 'aN.{10}$'}`.
fn small_regexes(n: usize) -> String {
    let mut s = String::from("version: 1\nhooks:\n");
    for i in 0..n {
        write!(
            s,
            "  - id: r{i}\n    phase: before_tool\n    when: {{ pointer: /command, matches: 'a{i}.{{10}}$' }}\n    block: {{ reason: no }}\n"
        )
        .unwrap_or(());
    }
    s
}

fn pathological(c: &mut Criterion) {
    let mut group = c.benchmark_group("load");
    group.sample_size(10);
    let globs = contains_globs(1_000);
    let regexes = small_regexes(512);
    let mib = contains_globs(9_200);
    assert!(
        mib.len() > 1_000_000 && mib.len() <= 1 << 20,
        "{}",
        mib.len()
    );
    for (name, source) in [
        ("compile_str 1000 contains-globs", &globs),
        ("compile_str 512 small regexes", &regexes),
        ("compile_str 1 MiB of contains-globs", &mib),
    ] {
        assert!(
            hooks_schema::compile_str(source, "p.yaml").is_ok(),
            "{name}"
        );
        group.bench_function(name, |b| {
            b.iter(|| hooks_schema::compile_str(black_box(source), "p.yaml"))
        });
    }
    group.finish();
}

fn bench(c: &mut Criterion) {
    let source = config(1_000);
    // Warm the once-built schema validator outside the measurement, as a
    // long-lived process (CLI over many files, runtime loader) would.
    assert!(hooks_schema::load_str(&source, "bench.yaml").is_ok());
    let mut group = c.benchmark_group("load");
    group.bench_function("load_str 1000 hooks", |b| {
        b.iter(|| hooks_schema::load_str(black_box(&source), "bench.yaml"))
    });
    let worst = lint_worst_case(500);
    assert!(hooks_schema::compile_str(&worst, "worst.yaml").is_ok_and(|c| !c.warnings.is_empty()));
    group.bench_function("compile_str 1000 hooks, lint worst case", |b| {
        b.iter(|| hooks_schema::compile_str(black_box(&worst), "worst.yaml"))
    });
    group.bench_function("config_schema + validator build", |b| {
        b.iter(|| jsonschema::validator_for(&hooks_schema::config_schema()))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = support::quick();
    targets = bench, pathological
}
criterion_main!(benches);
