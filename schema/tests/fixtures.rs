//! The fixture corpus at `tests/fixtures/config/`: every valid fixture loads
//! and the schema accepts it; every invalid fixture is rejected with located
//! diagnostics equal to its `.expected` snapshot; and the schema and the
//! loader agree (schema rejects => loader rejects; loader accepts => schema
//! accepts). Fixtures whose first line is `# semantic-only` are ones the
//! schema accepts and only the semantic layer rejects.
//!
//! Regenerate the snapshots with
//! `UPDATE_FIXTURES=1 cargo test -p hooks-schema --test fixtures` and review the diff.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers panic on a broken fixture, which fails the test"
)]

mod common;

use std::time::{Duration, Instant};

use common::repo_root;
use hooks_schema::{Layer, load_str, schema_accepts};

fn fixtures(kind: &str) -> Vec<(String, String)> {
    let dir = repo_root().join("tests/fixtures/config").join(kind);
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .map(|p| {
            let name = format!(
                "tests/fixtures/config/{kind}/{}",
                p.file_name().unwrap().to_string_lossy()
            );
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// The document as JSON, when it parses as plain YAML at all.
fn as_json(source: &str) -> Option<serde_json::Value> {
    hooks_schema::parse_document(source, "fixture").ok()
}

#[test]
fn valid_fixtures_load_and_the_schema_accepts_them() {
    let all = fixtures("valid");
    assert!(all.len() >= 5);
    for (name, source) in all {
        if let Err(d) = load_str(&source, &name) {
            panic!("{name} should load:\n{}", d.render(Some(&source)));
        }
        let json = as_json(&source).unwrap();
        assert!(
            schema_accepts(&json),
            "{name}: the schema rejects a valid fixture"
        );
    }
}

#[test]
fn invalid_fixtures_match_their_snapshots() {
    let all = fixtures("invalid");
    assert!(all.len() >= 40, "only {} invalid fixtures", all.len());
    let update = std::env::var_os("UPDATE_FIXTURES").is_some();
    let mut stale = Vec::new();
    for (name, source) in &all {
        let diags = match load_str(source, name) {
            Ok(_) => panic!("{name} should be rejected"),
            Err(d) => d,
        };
        // The first diagnostic line carries FILE:LINE:COL.
        let first = diags.first().render(Some(source));
        let first_line = first.lines().next().unwrap();
        let prefix = format!(
            "{name}:{}:{}: error[",
            diags.first().line,
            diags.first().column
        );
        assert!(first_line.starts_with(&prefix), "{name}: {first_line}");
        // No finding falls through to the generic schema message: the
        // walker reports everything the schema catches, in its own words.
        for d in diags.iter() {
            assert_ne!(d.code, "schema", "{name}: generic schema diagnostic: {d}");
            assert_ne!(d.code, "internal", "{name}: {d}");
        }
        let rendered = diags.render(Some(source)) + "\n";
        let expected_path = repo_root().join(name.replace(".yaml", ".expected"));
        if update {
            std::fs::write(&expected_path, &rendered).unwrap();
        } else if std::fs::read_to_string(&expected_path).unwrap_or_default() != rendered {
            stale.push(format!("--- {name}\n{rendered}"));
        }
    }
    assert!(
        stale.is_empty(),
        "diagnostics differ from the `.expected` snapshots (regenerate with \
         `UPDATE_FIXTURES=1 cargo test -p hooks-schema --test fixtures` and review):\n{}",
        stale.join("\n")
    );
}

#[test]
fn schema_and_loader_agree_on_every_fixture() {
    for kind in ["valid", "invalid"] {
        for (name, source) in fixtures(kind) {
            let loaded = load_str(&source, &name);
            let semantic_only = source.starts_with("# semantic-only");
            let Some(json) = as_json(&source) else {
                // Not a YAML document: neither layer can accept it.
                let d = loaded.expect_err(&name);
                assert_eq!(d.first().layer, Layer::Syntax, "{name}");
                continue;
            };
            let schema_ok = schema_accepts(&json);
            if !schema_ok {
                assert!(loaded.is_err(), "{name}: schema rejects, loader accepts");
            }
            if loaded.is_ok() {
                assert!(schema_ok, "{name}: loader accepts, schema rejects");
            }
            if kind == "invalid" {
                let diags = loaded.as_ref().expect_err(&name);
                if diags.first().layer == Layer::Syntax {
                    continue;
                }
                if semantic_only {
                    assert!(
                        schema_ok,
                        "{name} is labelled semantic-only but the schema rejects it"
                    );
                    assert!(
                        diags.iter().all(|d| d.layer == Layer::Semantic),
                        "{name}: semantic-only fixture with non-semantic findings:\n{diags}"
                    );
                } else {
                    assert!(
                        !schema_ok,
                        "{name}: only the semantic layer rejects it; label it `# semantic-only`"
                    );
                }
            }
        }
    }
}

#[test]
fn three_different_errors_are_all_reported() {
    let name = "tests/fixtures/config/invalid/three-errors.yaml";
    let source = std::fs::read_to_string(repo_root().join(name)).unwrap();
    let diags = load_str(&source, name).unwrap_err();
    let codes: Vec<&str> = diags.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["unknown-phase", "duplicate-id", "invalid-regex"]);
    let lines: Vec<usize> = diags.iter().map(|d| d.line).collect();
    assert_eq!(lines, [4, 6, 8]);
}

#[test]
fn a_ten_megabyte_file_is_rejected_fast() {
    let mut source = String::from("version: 1\nhooks:\n");
    let hook = "  - id: h\n    phase: before_tool\n    block: { reason: padding padding padding padding }\n";
    while source.len() < 10 * 1024 * 1024 {
        source.push_str(hook);
    }
    let start = Instant::now();
    let diags = load_str(&source, "big.yaml").unwrap_err();
    let elapsed = start.elapsed();
    assert_eq!(diags.len(), 1);
    assert_eq!(diags.first().code, "file-too-large");
    assert!(
        diags.first().message.contains("too large"),
        "{}",
        diags.first()
    );
    // Hang detection only; the check is a length comparison.
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
}

#[test]
fn an_alias_bomb_is_rejected_fast_with_a_clear_message() {
    let name = "tests/fixtures/config/invalid/syntax-alias-bomb.yaml";
    let source = std::fs::read_to_string(repo_root().join(name)).unwrap();
    let start = Instant::now();
    let diags = load_str(&source, name).unwrap_err();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "took {:?}",
        start.elapsed()
    );
    let d = diags.first();
    assert_eq!(d.layer, Layer::Syntax);
    assert!(d.message.contains("alias"), "{d}");
}

#[test]
fn load_file_reports_io_errors_as_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.yaml");
    let d = hooks_schema::load_file(&missing).unwrap_err();
    assert_eq!(d.first().layer, Layer::Io);
    assert!(
        d.first()
            .render(None)
            .contains("missing.yaml:1:1: error[io]: cannot read")
    );

    let bad = dir.path().join("latin1.yaml");
    std::fs::write(&bad, b"version: 1\nhooks: []\n# caf\xe9\n").unwrap();
    let d = hooks_schema::load_file(&bad).unwrap_err();
    assert_eq!((d.first().code.as_str(), d.first().line), ("not-utf8", 3));

    let good = dir.path().join("ok.yaml");
    std::fs::write(&good, "version: 1\nhooks: []\n").unwrap();
    assert!(hooks_schema::load_file(&good).unwrap().hooks.is_empty());
}

#[test]
fn an_oversized_file_is_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.yaml");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(10 * 1024 * 1024).unwrap();
    let d = hooks_schema::load_file(&path).unwrap_err();
    assert_eq!(d.first().code, "file-too-large");
    assert!(
        d.first().message.contains("10485760 bytes"),
        "{}",
        d.first()
    );
}

#[test]
fn tabs_are_only_an_error_where_they_indent() {
    // A tab separating a key from its value is legal YAML.
    assert!(load_str("version: 1\nhooks:\t[]\n", "sep.yaml").is_ok());
    // A tab inside a block scalar is content.
    let block = "version: 1\nhooks:\n  - id: a\n    phase: stop\n    terminate:\n      reason: |\n        line\n        \tindented with a tab\n";
    assert!(load_str(block, "block.yaml").is_ok());
}
