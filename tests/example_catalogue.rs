//! `examples/tools.catalogue.json` is generated from the example agent's
//! tool types (`examples/coding_agent/args.rs`), and `examples/hooks.yaml`
//! is checked against it.
//!
//! Regenerate with `UPDATE_CATALOGUE=1 cargo test --test example_catalogue`.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers panic on a broken fixture, which fails the test"
)]

#[path = "../examples/coding_agent/args.rs"]
mod args;

use std::path::Path;

use hooks_schema::{Catalogue, Loader};

const CATALOGUE: &str = "examples/tools.catalogue.json";

#[test]
fn the_example_catalogue_is_generated_from_the_tool_types() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(CATALOGUE);
    let generated = serde_json::to_string_pretty(&args::catalogue().to_json()).unwrap() + "\n";
    if std::env::var_os("UPDATE_CATALOGUE").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{CATALOGUE} is stale: regenerate with `UPDATE_CATALOGUE=1 cargo test --test example_catalogue`"
    );
}

#[test]
fn the_example_config_is_checked_against_its_catalogue() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = root.join("examples/hooks.yaml");
    let compiled = hooks_schema::compile_file(&config).unwrap();
    let catalogue = compiled.catalogue.unwrap();
    assert_eq!(
        catalogue.names().collect::<Vec<_>>(),
        ["bash", "read_file", "write_file"]
    );
    // The same config with a typo'd pointer fails against the catalogue.
    let source = std::fs::read_to_string(&config)
        .unwrap()
        .replace("pointer: /max_bytes, exists", "pointer: /max_byte, exists");
    let mut loader = Loader::new().base_dir(root.join("examples"));
    let err = loader.compile_str(&source, "hooks.yaml").unwrap_err();
    assert!(
        err.iter().any(|d| d.code == "unknown-pointer"
            && d.render(None).contains("did you mean `/max_bytes`?")),
        "{err}"
    );
    assert_eq!(
        loader.files_read(),
        [root.join("examples").join("tools.catalogue.json")]
    );
}

#[test]
fn a_catalogue_from_code_checks_a_config_with_none() {
    let source = "version: 1\nhooks:\n  - id: t\n    phase: before_tool\n    include_tools: [bash]\n    rewrite: [{ op: set, pointer: /timeout_ms, value: \"thirty\" }]\n";
    let mut loader = Loader::new().catalogue(args::catalogue());
    let err = loader.compile_str(source, "h.yaml").unwrap_err();
    assert_eq!(err.first().code, "invalid-rewrite-value", "{err}");
    assert_eq!((err.first().line, err.first().column), (6, 55));
    // A tool described both in code and in the config is an error.
    let both = "version: 1\ncatalogue: { bash: { input: true } }\nhooks: []\n".to_owned();
    let err = Loader::new()
        .catalogue(Catalogue::new().with_schemas("bash", serde_json::json!(true), None))
        .compile_str(&both, "h.yaml")
        .unwrap_err();
    assert_eq!(err.first().code, "duplicate-tool", "{err}");
}
