//! A config with a catalogue and 1,000 rules checks fast, and the checks
//! scale (every rule exercises a catalogue check: a tool name, a pointer, a
//! literal or a rewrite value).

#![allow(
    clippy::unwrap_used,
    reason = "test helpers panic on a broken fixture, which fails the test"
)]

use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// A valid config of `n` rules against a three-tool catalogue.
fn generated(n: usize) -> String {
    let mut out = String::from(
        "version: 1\ncatalogue:\n  bash:\n    input:\n      type: object\n      properties:\n        command: { type: string }\n        timeout: { type: integer, minimum: 1 }\n      required: [command]\n      additionalProperties: false\n    result:\n      type: object\n      properties: { output: { type: string }, exit_code: { type: integer } }\n      additionalProperties: false\n  read_file:\n    input: { type: object, properties: { path: { type: string }, max_bytes: { type: integer } }, additionalProperties: false }\n  write_file:\n    input: { type: object, properties: { path: { type: string }, content: { type: string } }, additionalProperties: false }\nhooks:\n",
    );
    for i in 0..n {
        let rule = match i % 4 {
            0 => format!(
                "  - {{ id: r{i}, phase: before_tool, include_tools: [bash], when: {{ pointer: /command, matches: 'x{i}' }}, block: {{ reason: no }} }}\n"
            ),
            1 => format!(
                "  - {{ id: r{i}, phase: before_tool, include_tools: [bash], when: {{ pointer: /command, equals: 'c{i}' }}, rewrite: [{{ op: set, pointer: /timeout, value: {} }}] }}\n",
                i + 1
            ),
            2 => format!(
                "  - {{ id: r{i}, phase: after_tool, include_tools: [bash], when: {{ pointer: /exit_code, equals: {i} }}, inject: {{ content: c }} }}\n"
            ),
            _ => format!(
                "  - {{ id: r{i}, phase: before_tool, include_tools: ['*_file'], when: {{ pointer: /path, glob: '*.{i}' }}, block: {{ reason: no }} }}\n"
            ),
        };
        out.write_str(&rule).unwrap();
    }
    out
}

#[test]
fn a_thousand_rules_with_a_catalogue_check_fast() {
    let source = generated(1000);
    let start = Instant::now();
    let compiled = hooks_schema::compile_str(&source, "generated.yaml")
        .unwrap_or_else(|d| panic!("{}", d.render(Some(&source))));
    let elapsed = start.elapsed();
    assert_eq!(compiled.plan.rules.len(), 1000);
    assert!(compiled.catalogue.is_some());
    let without = source.replacen("catalogue:", "x_catalogue:", 1);
    let without = {
        // The same rules with no catalogue: what the catalogue checks add.
        let start = without.find("x_catalogue:").unwrap();
        let end = without.find("hooks:").unwrap();
        format!("{}{}", &without[..start], &without[end..])
    };
    let base = Instant::now();
    hooks_schema::compile_str(&without, "generated.yaml").unwrap();
    let base = base.elapsed();
    eprintln!(
        "1,000 rules with a catalogue: checked and compiled in {elapsed:?} ({base:?} without the catalogue)"
    );
    // Generous for an unoptimised build on a shared machine; the release
    // figure is in docs/catalogue.md.
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}

#[test]
fn the_generated_config_is_checked_against_the_catalogue() {
    // The same config with one typo fails: the checks did run on it.
    let source = generated(40).replace(
        "pointer: /exit_code, equals: 38",
        "pointer: /exit_cod, equals: 38",
    );
    let err = hooks_schema::compile_str(&source, "generated.yaml").unwrap_err();
    assert_eq!(err.len(), 1, "{err}");
    assert_eq!(err.first().code, "unknown-pointer");
}
