//! Editor support (`docs/editors.md`) checked with a real YAML language server.
//!
//! Each test starts `yaml-language-server --stdio` (pinned by
//! `editor/package-lock.json`, installed with `npm ci --prefix editor`), speaks
//! LSP 3.17 to it over stdin/stdout (JSON-RPC 2.0 with `Content-Length`
//! framing), opens hook configs that carry the schema modeline
//! `# yaml-language-server: $schema=../schema/hooks.schema.json` and asserts
//! on what an editor would show: completion and hover here, diagnostics in
//! `lsp_diagnostics.rs` (the harness is `common/lsp.rs`).
//!
//! Expected values come from the code (`Phase::ALL`) and from the committed
//! schema (`schema/hooks.schema.json`), so a missing phase, a broken
//! description or a broken modeline path fails here.
//!
//! The server never reaches the network: the schema store is disabled and the
//! HTTP proxy points at a closed local port. Every wait has a deadline, and the
//! server is killed and reaped when a test ends, whether it passes or panics.

#[path = "common/lsp.rs"]
mod lsp;

use hooks_schema::{FailurePolicy, Phase};
use lsp::{
    Server, assert_documented, doc, enum_variants, example_uri, hook_property, labels, load_schema,
    normalize, position_of, property_beside, show, shown_description,
};

#[test]
fn completion_after_phase_offers_every_phase() {
    let text = doc("  - id: check\n    phase: \n    run:\n      command: \"true\"\n");
    let uri = example_uri("lsp-phase-completion.yaml");
    let mut server = Server::start();
    server.open(&uri, &text);
    let (line, character) = position_of(&text, "phase: ");
    let items = server.completion(&uri, (line, character + "phase: ".len()));
    let offered = labels(&items);
    let missing: Vec<&str> = Phase::ALL
        .iter()
        .map(|p| p.as_str())
        .filter(|p| !offered.iter().any(|l| l == p))
        .collect();
    assert!(
        missing.is_empty(),
        "completion after `phase: ` lacks {missing:?}; offered {offered:?}"
    );

    // Each phase comes with the description the schema gives it, so an editor
    // explains the choice.
    let schema = load_schema();
    assert_documented(
        &items,
        &enum_variants(&schema, hook_property(&schema, "phase")),
    );
}

#[test]
fn completion_after_failure_policy_offers_every_policy_with_its_description() {
    let text = doc(
        "  - id: check\n    phase: before_tool\n    failure_policy: \n    run:\n      command: \"true\"\n",
    );
    let uri = example_uri("lsp-policy-completion.yaml");
    let mut server = Server::start();
    server.open(&uri, &text);
    let (line, character) = position_of(&text, "failure_policy: ");
    let items = server.completion(&uri, (line, character + "failure_policy: ".len()));
    let schema = load_schema();
    let variants = enum_variants(&schema, hook_property(&schema, "failure_policy"));
    let names: Vec<&str> = variants.iter().map(|(n, _)| n.as_str()).collect();
    for policy in [
        FailurePolicy::Ignore,
        FailurePolicy::Warn,
        FailurePolicy::Block,
        FailurePolicy::Fail,
    ] {
        assert!(
            names.contains(&policy.as_str()),
            "the schema's `failure_policy` lacks `{policy:?}`: {names:?}"
        );
    }
    assert_documented(&items, &variants);
}

#[test]
fn completion_inside_a_hook_offers_its_keys() {
    let text = doc("  - id: check\n    phase: before_tool\n    \n");
    let uri = example_uri("lsp-key-completion.yaml");
    let mut server = Server::start();
    server.open(&uri, &text);
    let (line, _) = position_of(&text, "phase: before_tool");
    let offered = labels(&server.completion(&uri, (line + 1, 4)));
    let schema = load_schema();
    for key in [
        "failure_policy",
        "include_tools",
        "exclude_tools",
        "when",
        "run",
        "block",
        "mode",
        "enabled",
        "description",
    ] {
        hook_property(&schema, key); // the expectation itself comes from the schema
        assert!(
            offered.iter().any(|l| l == key),
            "completion inside a `before_tool` hook lacks `{key}`; offered {offered:?}"
        );
    }
    for present in ["id", "phase"] {
        assert!(
            !offered.iter().any(|l| l == present),
            "completion offers `{present}`, which the hook already has; offered {offered:?}"
        );
    }
}

#[test]
fn hover_on_failure_policy_shows_its_description() {
    // On a gating and on an observing phase: the per-phase rules of the schema
    // (`block` only on `before_tool`) must not hide the description.
    let text = doc(concat!(
        "  - id: gate\n",
        "    phase: before_tool\n",
        "    failure_policy: block\n",
        "    run:\n",
        "      command: \"true\"\n",
        "  - id: observe\n",
        "    phase: after_tool\n",
        "    failure_policy: warn\n",
        "    run:\n",
        "      command: \"true\"\n",
    ));
    let uri = example_uri("lsp-hover.yaml");
    let mut server = Server::start();
    let diagnostics = server.open(&uri, &text);
    assert!(
        diagnostics.is_empty(),
        "valid document flagged:\n{}",
        show(&diagnostics)
    );
    let schema = load_schema();
    let expected = normalize(&shown_description(
        &schema,
        hook_property(&schema, "failure_policy"),
    ));
    for value in ["block", "warn"] {
        let (line, character) = position_of(&text, &format!("failure_policy: {value}"));
        let shown = normalize(&server.hover(&uri, (line, character + 3)));
        assert!(
            shown.contains(&expected),
            "hover on `failure_policy` (set to `{value}`) shows {shown:?}, expected the schema's {expected:?}"
        );
    }
}

#[test]
fn hover_on_every_hook_and_run_key_shows_its_own_description() {
    let text = doc(concat!(
        "  - id: check\n",
        "    description: guard the shell\n",
        "    phase: before_tool\n",
        "    include_tools: [bash]\n",
        "    exclude_tools: [read_file]\n",
        "    when:\n",
        "      pointer: /command\n",
        "      matches: rm\n",
        "    failure_policy: warn\n",
        "    mode: audit\n",
        "    enabled: true\n",
        "    show_in_tui: true\n",
        "    parallel: true\n",
        "    async: true\n",
        "    run:\n",
        "      command: \"true\"\n",
        "      cwd: .\n",
        "      timeout: 5s\n",
        "      payload: redacted\n",
        "      protocol: claude\n",
    ));
    let uri = example_uri("lsp-hover-keys.yaml");
    let mut server = Server::start();
    let diagnostics = server.open(&uri, &text);
    assert!(
        diagnostics.is_empty(),
        "valid document flagged:\n{}",
        show(&diagnostics)
    );
    let schema = load_schema();
    let hook_keys = [
        "description",
        "phase",
        "include_tools",
        "exclude_tools",
        "when",
        "failure_policy",
        "mode",
        "enabled",
        "show_in_tui",
        "parallel",
        "async",
        "run",
    ];
    let run_keys = ["command", "cwd", "timeout", "payload", "protocol"];
    let mut wrong = Vec::new();
    for (sibling, keys) in [("phase", &hook_keys[..]), ("command", &run_keys[..])] {
        for key in keys {
            let expected = normalize(&shown_description(
                &schema,
                property_beside(&schema, sibling, key),
            ));
            let (line, character) = position_of(&text, &format!("{key}:"));
            let shown = normalize(&server.hover(&uri, (line, character + 1)));
            if !shown.contains(&expected) {
                wrong.push(format!("`{key}`: shows {shown:?}\n  expected {expected:?}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "hover on these keys does not show the key's own description:\n{}",
        wrong.join("\n")
    );
}
