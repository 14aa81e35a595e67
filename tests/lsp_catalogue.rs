//! `agent-hooks schema --tools CATALOG` (docs/catalogue.md): the schema it
//! writes makes a real YAML language server offer the catalogue's tool names
//! and argument pointers in completion (the harness is `common/lsp.rs`; the
//! pinned server is installed with `npm ci --prefix editor`).

#[path = "common/lsp.rs"]
mod lsp;

use std::process::Command;

use lsp::{Server, file_uri, labels, position_of, repo_root};

/// The per-catalogue schema of the example's tools, written into a fresh
/// directory next to the config the test opens there.
fn schema_dir() -> tempfile::TempDir {
    let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .args(["schema", "config", "--tools"])
        .arg(repo_root().join("examples/tools.catalogue.json"))
        .output()
        .expect("agent-hooks runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("tools.schema.json"), &out.stdout).expect("writable");
    dir
}

const TEXT: &str = "# yaml-language-server: $schema=./tools.schema.json
version: 1
hooks:
  - id: guard
    phase: before_tool
    include_tools:
      - 
    when:
      pointer: 
      exists: true
    block: { reason: no }
  - id: narrow
    phase: before_completion
    patch:
      active_tools:
        - 
";

#[test]
fn completion_offers_the_catalogues_tools_and_pointers() {
    let dir = schema_dir();
    let uri = file_uri(&dir.path().join("hooks.yaml"));
    let mut server = Server::start();
    server.open(&uri, TEXT);
    let (line, _) = position_of(TEXT, "include_tools:");
    let tools = labels(&server.completion(&uri, (line + 1, 8)));
    for name in ["bash", "read_file", "write_file"] {
        assert!(
            tools.iter().any(|l| l == name),
            "completion in `include_tools` lacks `{name}`; offered {tools:?}"
        );
    }
    let (line, character) = position_of(TEXT, "pointer: ");
    let pointers = labels(&server.completion(&uri, (line, character + "pointer: ".len())));
    for pointer in ["/command", "/max_bytes", "/exit_code"] {
        assert!(
            pointers.iter().any(|l| l == pointer),
            "completion after `pointer: ` lacks `{pointer}`; offered {pointers:?}"
        );
    }
    let (line, _) = position_of(TEXT, "active_tools:");
    let active = labels(&server.completion(&uri, (line + 1, 10)));
    for name in ["bash", "read_file", "write_file"] {
        assert!(
            active.iter().any(|l| l == name),
            "completion in `active_tools` lacks `{name}`; offered {active:?}"
        );
    }
}

#[test]
fn the_generic_schema_is_printed_without_tools_and_tools_need_a_catalogue() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
            .args(args)
            .current_dir(repo_root())
            .output()
            .expect("agent-hooks runs")
    };
    let plain = run(&["schema", "config"]);
    let plain: serde_json::Value = serde_json::from_slice(&plain.stdout).expect("JSON");
    assert_eq!(plain, hooks_schema::config_schema());
    // A config with a `catalogue:` key is a catalogue too.
    let from_config = run(&["schema", "--tools", "examples/hooks.yaml"]);
    assert!(from_config.status.success());
    let from_json = run(&["schema", "--tools", "examples/tools.catalogue.json"]);
    assert_eq!(from_config.stdout, from_json.stdout);
    let wrong = run(&[
        "schema",
        "payload",
        "--tools",
        "examples/tools.catalogue.json",
    ]);
    assert_eq!(wrong.status.code(), Some(2));
    let no_catalogue = run(&["schema", "--tools", "tests/configs/full.yaml"]);
    assert_eq!(no_catalogue.status.code(), Some(2));
}
