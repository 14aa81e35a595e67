//! Unit tests on the generated tokens.

use std::path::Path;
use std::time::Instant;

use super::*;

fn expand_str(input: &str, base: &Path) -> String {
    let input: parse::Input = syn::parse_str(input).expect("input parses");
    expand::input(input, base).to_string()
}

#[test]
fn inline_config_expands_to_a_named_type_and_static_table() {
    let out = expand_str(
        r#"::rt::__private; name = Guard, inline = "version: 1\nhooks:\n  - id: no-rm\n    phase: before_tool\n    include_tools: [bash, 'mcp__*']\n    when: {pointer: /command, matches: 'rm\\s+-rf'}\n    block: {reason: no}\n""#,
        Path::new("."),
    );
    assert!(out.contains("pub struct Guard"), "{out}");
    assert!(out.contains("static __TABLE"), "{out}");
    assert!(
        out.contains(":: rt :: __private :: StaticDfa :: new"),
        "{out}"
    );
    assert!(out.contains("target_endian = \"little\""), "{out}");
    assert!(!out.contains("compile_error"), "{out}");
    // bash is an exact name; `mcp__*` and the regex are automata.
    assert!(out.contains("\"bash\""), "{out}");
    assert_eq!(out.matches("StaticDfa :: new").count(), 2, "{out}");
}

#[test]
fn every_diagnostic_becomes_an_error_and_the_type_is_still_emitted() {
    let out = expand_str(
        r#"::rt::__private; inline = "version: 1\nhooks:\n  - id: a\n    phase: befor_tool\n    block: {reason: x}\n  - id: a\n    phase: run_start\n    terminate: {reason: y}\n""#,
        Path::new("."),
    );
    assert!(out.contains("pub struct Hooks"), "{out}");
    assert!(out.contains("Table :: empty"), "{out}");
    assert!(out.matches("compile_error").count() >= 2, "{out}");
    assert!(out.contains("<inline>:4:"), "{out}");
}

#[test]
fn absolute_and_missing_paths_are_refused() {
    let out = expand_str(r#"::rt::__private; "/etc/hooks.yaml""#, Path::new("."));
    assert!(out.contains("absolute config path"), "{out}");
    assert!(!out.contains("include_bytes"), "{out}");
    let out = expand_str(r#"::rt::__private; "no-such-file.yaml""#, Path::new("."));
    assert!(
        out.contains("cannot read config `no-such-file.yaml`"),
        "{out}"
    );
}

#[test]
fn files_are_tracked_even_when_invalid() {
    let dir = std::env::temp_dir().join(format!("hooks-macros-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("bad.yaml"), "version: 1\nhooks: 3\n").expect("write");
    let out = expand_str(r#"::rt::__private; "bad.yaml""#, &dir);
    std::fs::remove_dir_all(&dir).expect("cleanup");
    assert!(out.contains("include_bytes"), "{out}");
    assert!(out.contains("compile_error"), "{out}");
}

#[test]
fn input_errors_are_reported() {
    for (input, want) in [
        (r#"::rt; colour = "x""#, "unknown key `colour`"),
        (r#"::rt; "a.yaml" extra"#, "unexpected tokens"),
        (r#"::rt; name = A, name = B, "a.yaml""#, "duplicate `name`"),
        (
            r#"::rt; concat!(env!("CARGO_MANIFEST_DIR"), "/a.yaml")"#,
            "`concat!(...)` cannot be expanded inside `hooks!`",
        ),
        (r#"::rt; path "a.yaml""#, "expected a config path literal"),
    ] {
        let err = match syn::parse_str::<parse::Input>(input) {
            Ok(_) => panic!("{input} parsed"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains(want), "{input}: {err}");
    }
}

/// A config of `n` rules mixing exact names, globs, regexes and predicates.
pub(crate) fn big_config(n: usize) -> String {
    let mut s = String::from("version: 1\nhooks:\n");
    for i in 0..n {
        let body = match i % 5 {
            0 => format!(
                "    phase: before_tool\n    include_tools: [tool_{i}]\n    block: {{reason: \"r{i}\"}}\n"
            ),
            1 => format!(
                "    phase: before_tool\n    include_tools: ['mcp__s{i}__*']\n    when: {{pointer: /command, matches: 'rm\\s+-rf{i}'}}\n    block: {{reason: \"r{i}\"}}\n"
            ),
            2 => format!(
                "    phase: after_tool\n    include_tools: [{{regex: 'fs_{i}_(read|write)'}}]\n    inject: {{content: \"c{i}\"}}\n"
            ),
            3 => format!(
                "    phase: before_tool\n    when: {{all: [{{pointer: /path, glob: '/tmp/{i}/*'}}, {{pointer: /n, equals: {i}}}]}}\n    rewrite: [{{op: set, pointer: /n, value: 0}}]\n"
            ),
            _ => format!(
                "    phase: before_completion\n    patch: {{max_tokens: {}}}\n",
                i + 1
            ),
        };
        s.push_str(&format!("  - id: rule-{i}\n{body}"));
    }
    s
}

/// Expansion time and generated size of a 1,000-rule config.
/// Prints the figures (`cargo test -p hooks-macros --release -- --nocapture
/// expansion`); the assertion only detects a hang. The figure depends on the
/// optimization of hooks-schema and regex-automata as built here: Cargo's
/// default `build-override` (opt-level 0) makes it ~7x slower than
/// `opt-level = 3` (docs/embedding.md, "Build time of `hooks!`").
#[test]
fn expansion_of_a_thousand_rules_is_measured() {
    let yaml = big_config(1000);
    let input = format!("::rt::__private; inline = {yaml:?}");
    let parsed: parse::Input = syn::parse_str(&input).expect("input parses");
    let start = Instant::now();
    let tokens = expand::input(parsed, Path::new("."));
    let elapsed = start.elapsed();
    let out = tokens.to_string();
    assert!(
        !out.contains("compile_error"),
        "{}",
        &out[..out.len().min(2000)]
    );
    let start_load = Instant::now();
    let config = hooks_schema::load_str(&yaml, "big.yaml").expect("valid");
    let load = start_load.elapsed();
    println!(
        "1000 rules: expansion {:?} (of which load+validate {:?}), generated code {} bytes, {} rules",
        elapsed,
        load,
        out.len(),
        config.hooks.len()
    );
    assert!(elapsed.as_secs() < 120, "expansion took {elapsed:?}");
}

#[test]
fn catalogue_files_are_tracked_even_when_invalid() {
    let dir = std::env::temp_dir().join(format!("hooks-macros-cat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(
        dir.join("hooks.yaml"),
        "version: 1\ncatalogue: tools.json\nhooks:\n  - { id: a, phase: before_tool, include_tools: [bsah], block: { reason: no } }\n",
    )
    .expect("write");
    std::fs::write(dir.join("tools.json"), r#"{"bash": {"input": true}}"#).expect("write");
    let out = expand_str(r#"::rt::__private; "hooks.yaml""#, &dir);
    std::fs::remove_dir_all(&dir).expect("cleanup");
    assert_eq!(out.matches("include_bytes").count(), 2, "{out}");
    assert!(out.contains("tools.json"), "{out}");
    assert!(out.contains("unknown tool `bsah`"), "{out}");
}

/// Field-less enums are quoted by their derived `Debug` name: it must be the
/// variant (the CamelCase of the serde name, for the enums that have one).
#[test]
fn field_less_enums_are_quoted_by_variant_name() {
    use hooks_schema::{FailurePolicy, HttpProtocol, Mode, OutcomeKind, Phase};
    use quote_plan::{Gen, Quote};

    fn check<T: Quote + serde::Serialize>(ty: &str, values: &[T]) {
        let p = quote::quote!(::rt::__private);
        for value in values {
            let quoted = value.quote(&mut Gen::new(&p)).to_string();
            let snake = match serde_json::to_value(value) {
                Ok(serde_json::Value::String(s)) => s,
                other => panic!("{ty}: {other:?}"),
            };
            let camel: String = snake
                .split('_')
                .map(|w| w[..1].to_uppercase() + &w[1..])
                .collect();
            assert_eq!(quoted, format!(":: rt :: __private :: {ty} :: {camel}"));
        }
    }
    check("Phase", &Phase::ALL);
    check("Mode", &[Mode::Enforce, Mode::Audit]);
    check(
        "FailurePolicy",
        &[FailurePolicy::Ignore, FailurePolicy::Fail],
    );
    check("HttpProtocol", &[HttpProtocol::Native, HttpProtocol::Opa]);
    check("OutcomeKind", &[OutcomeKind::NotFound, OutcomeKind::Error]);
}

/// A missing script's warning goes away once the script exists: while it
/// is missing, the expansion includes a stamp dated ahead (so Cargo
/// rebuilds the crate on every build), and once it exists, not.
#[test]
fn a_missing_script_keeps_the_crate_stale_until_it_exists() {
    let dir = std::env::temp_dir().join(format!("hooks-macros-watch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let script = dir.join("guard.sh");
    let input = format!(
        "::rt::__private; inline = \"version: 1\\nhooks:\\n  - id: guard\\n    phase: before_tool\\n    run: {{ argv: [sh, {}] }}\\n\"",
        script.display()
    );
    let out = expand_str(&input, &dir);
    assert!(out.contains("HOOKS_CONFIG_WARNING_0"), "{out}");
    let stamp = out
        .split('"')
        .find(|s| s.contains("agent-hooks-build-") && s.contains("missing-"))
        .unwrap_or_else(|| panic!("no stamp included: {out}"))
        .to_owned();
    let modified = std::fs::metadata(&stamp)
        .and_then(|m| m.modified())
        .expect("the stamp exists");
    let a_year = std::time::Duration::from_secs(365 * 24 * 60 * 60);
    assert!(modified > std::time::SystemTime::now() + a_year);

    std::fs::write(&script, "exit 0\n").expect("write script");
    let out = expand_str(&input, &dir);
    std::fs::remove_dir_all(&dir).expect("cleanup");
    assert!(!out.contains("HOOKS_CONFIG_WARNING_0"), "{out}");
    assert!(!out.contains("agent-hooks-build-"), "{out}");
}

/// A failing build shows the config's errors as errors, and neither its
/// notes (remarks `agent-hooks check` shows) nor its warnings as errors.
#[test]
fn an_invalid_config_fails_on_its_errors_alone() {
    let out = expand_str(
        r#"::rt::__private; inline = "version: 1\nhooks:\n  - id: a\n    phase: before_tool\n    enabled: false\n    block: {reason: x}\n  - id: p\n    phase: before_tool\n    policy: {rego: [no-such.rego], query: data.x.y}\n""#,
        Path::new("."),
    );
    assert!(out.contains("compile_error"), "{out}");
    assert!(!out.contains("unreferenced-disabled"), "{out}");
}
