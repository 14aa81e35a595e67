//! Editor support (`docs/editors.md`): the diagnostics a real YAML language
//! server shows for hook configs through the committed schema — bad values
//! and unknown keys on their lines, the per-phase rules, none for the
//! reference config — and the ways of attaching the schema (a relative or
//! `file://` modeline, the `yaml.schemas` setting). How the server is run is
//! described in `lsp.rs`.

#[path = "common/lsp.rs"]
mod lsp;

use lsp::{
    MODELINE, Server, doc, example_uri, file_uri, lines_of, load_schema, normalize, position_of,
    repo_root, schema_path, settings, show, shown_description,
};
use serde_json::json;

#[test]
fn diagnostics_flag_a_bad_failure_policy_and_an_unknown_key_on_their_lines() {
    let text = doc(concat!(
        "  - id: check\n",
        "    phase: after_tool\n",
        "    failure_policy: blok\n",
        "    run:\n",
        "      command: \"true\"\n",
        "  - id: other\n",
        "    phase: run_end\n",
        "    colour: red\n",
        "    run:\n",
        "      command: \"true\"\n",
    ));
    let uri = example_uri("lsp-diagnostics.yaml");
    let mut server = Server::start();
    let diagnostics = server.open(&uri, &text);
    let blok = position_of(&text, "blok").0 as u64;
    let colour = position_of(&text, "colour").0 as u64;
    assert_eq!(
        lines_of(&diagnostics),
        vec![blok, colour],
        "expected diagnostics exactly on lines {blok} (`blok`) and {colour} (`colour`), got:\n{}",
        show(&diagnostics)
    );
    let on = |line: u64| -> Vec<&str> {
        diagnostics
            .iter()
            .filter(|d| d["range"]["start"]["line"] == json!(line))
            .filter_map(|d| d["message"].as_str())
            .collect()
    };
    assert!(
        on(blok)
            .iter()
            .any(|m| m.contains("ignore") && m.contains("warn") && m.contains("fail")),
        "the `blok` diagnostic should list the valid policies: {:?}",
        on(blok)
    );
    assert!(
        on(colour).iter().any(|m| m.contains("colour")),
        "the unknown-key diagnostic should name `colour`: {:?}",
        on(colour)
    );
}

#[test]
fn reference_config_has_no_diagnostics() {
    let path = repo_root().join("examples/hooks.yaml");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read `{}`: {e}", path.display()));
    assert!(
        text.lines().any(|l| l.trim() == MODELINE),
        "`examples/hooks.yaml` lacks the modeline `{MODELINE}`"
    );
    let uri = file_uri(&path);
    let mut server = Server::start();
    let diagnostics = server.open(&uri, &text);
    assert!(
        diagnostics.is_empty(),
        "`examples/hooks.yaml` flagged:\n{}",
        show(&diagnostics)
    );
    // No diagnostics must mean "valid", not "no schema": the schema is attached.
    let schema = load_schema();
    let expected = normalize(&shown_description(&schema, &schema["properties"]["hooks"]));
    // The top-level key, at the start of a line (the comments above mention `hooks:` too).
    let (line, _) = position_of(&text, "\nhooks:");
    let shown = normalize(&server.hover(&uri, (line + 1, 1)));
    assert!(
        shown.contains(&expected),
        "hover on `hooks` in `examples/hooks.yaml` shows {shown:?}, expected {expected:?}: is the modeline's schema attached?"
    );
}

#[test]
fn a_file_uri_modeline_works_too() {
    let modeline = format!(
        "# yaml-language-server: $schema={}",
        file_uri(&schema_path())
    );
    let text = format!(
        "{modeline}\nversion: 1\nhooks:\n  - id: check\n    phase: after_tool\n    failure_policy: blok\n    run:\n      command: \"true\"\n"
    );
    // Anywhere on disk: an absolute URI does not depend on the document's directory.
    let uri = file_uri(&std::env::temp_dir().join("agent-hooks-lsp-absolute.yaml"));
    let mut server = Server::start();
    let diagnostics = server.open(&uri, &text);
    let blok = position_of(&text, "blok").0 as u64;
    assert_eq!(
        lines_of(&diagnostics),
        vec![blok],
        "expected one diagnostic line, on `blok` (line {blok}), got:\n{}",
        show(&diagnostics)
    );
}

#[test]
fn the_yaml_schemas_setting_from_docs_editors_attaches_the_schema_without_a_modeline() {
    // The association `docs/editors.md` recommends, keyed by a path relative to
    // the workspace root as VS Code's `yaml.schemas` is.
    let mut with_association = settings();
    with_association["yaml"]["schemas"] =
        json!({ "./schema/hooks.schema.json": ["hooks.yaml", "*.hooks.yaml"] });
    let text = "version: 1\nhooks:\n  - id: check\n    phase: after_tool\n    failure_policy: blok\n    run:\n      command: \"true\"\n";
    let uri = file_uri(&repo_root().join("config/agent.hooks.yaml"));
    let mut server = Server::start_with(with_association);
    let diagnostics = server.open(&uri, text);
    let blok = position_of(text, "blok").0 as u64;
    assert_eq!(
        lines_of(&diagnostics),
        vec![blok],
        "expected one diagnostic line, on `blok` (line {blok}), got:\n{}",
        show(&diagnostics)
    );
}

#[test]
fn phase_rules_in_the_schema_flag_block_policy_after_tool_and_bare_number_timeouts() {
    let text = doc(concat!(
        "  - id: gate\n",
        "    phase: before_tool\n",
        "    failure_policy: block\n",
        "    run:\n",
        "      command: \"true\"\n",
        "      timeout: 5s\n",
        "  - id: late\n",
        "    phase: after_tool\n",
        "    failure_policy: block # fails closed only where a hook gates\n",
        "    run:\n",
        "      command: \"true\"\n",
        "      timeout: 5 # seconds? milliseconds?\n",
    ));
    let uri = example_uri("lsp-phase-rules.yaml");
    let mut server = Server::start();
    let diagnostics = server.open(&uri, &text);
    let late_block = position_of(&text, "block # fails").0 as u64;
    let bare = position_of(&text, "timeout: 5 #").0 as u64;
    assert_eq!(
        lines_of(&diagnostics),
        vec![late_block, bare],
        "expected diagnostics exactly on line {late_block} (`block` after_tool) and line {bare} (bare-number timeout), got:\n{}",
        show(&diagnostics)
    );
}

#[test]
fn an_empty_value_is_flagged_as_the_loader_rejects_it() {
    // `agent-hooks check` rejects `key:` with no value (YAML null) for every
    // optional key; the editor must not stay silent about it.
    let text = doc(concat!(
        "  - id: check\n",
        "    phase: after_tool\n",
        "    failure_policy:\n",
        "    run:\n",
        "      command: \"true\"\n",
        "      timeout:\n",
    ));
    let uri = example_uri("lsp-empty-values.yaml");
    let mut server = Server::start();
    let diagnostics = server.open(&uri, &text);
    let policy = position_of(&text, "failure_policy:").0 as u64;
    let timeout = position_of(&text, "timeout:").0 as u64;
    assert_eq!(
        lines_of(&diagnostics),
        vec![policy, timeout],
        "expected diagnostics exactly on line {policy} (`failure_policy:`) and line {timeout} (`timeout:`), got:\n{}",
        show(&diagnostics)
    );
}
