//! `agent-hooks test` and `replay --exec` fold through the runtime: the
//! records and provenance of declarative and audit-mode rules, and the
//! config's `limits` (and the config language's defaults for them).

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

/// Runs `agent-hooks ARGS --format json` in `dir`; exit code 0 expected.
fn run_json(dir: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir)
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("run agent-hooks");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

/// A workspace with `hooks.yaml` and `event.json`.
fn workspace(config: &str, event: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("hooks.yaml"), config).expect("write config");
    std::fs::write(dir.path().join("event.json"), event).expect("write event");
    dir
}

fn test_json(dir: &Path) -> Value {
    run_json(dir, &["test", "hooks.yaml", "--event", "event.json"])
}

#[test]
fn declarative_and_audit_rules_write_records_and_audited_provenance() {
    let dir = workspace(
        r#"version: 1
hooks:
  - id: add-flag
    phase: before_tool
    rewrite: [{op: set, pointer: /flag, value: true}]
  - id: would-block
    phase: before_tool
    mode: audit
    block: { reason: "audited only" }
  - id: no-bash
    phase: before_tool
    when: { pointer: /flag, equals: true }
    block: { reason: "no bash" }
"#,
        r#"{"phase":"before_tool","tool":"bash","call_id":"c1","args":{"command":"ls"}}"#,
    );
    let r = test_json(dir.path());
    assert_eq!(
        r["verdict"],
        json!({"decision": "skip", "reason": "no bash"})
    );
    assert_eq!(r["outcome"]["args"], json!({"command": "ls", "flag": true}));
    assert_eq!(r["fired"], json!(["add-flag", "would-block", "no-bash"]));
    let records: Vec<(&str, &str)> = r["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|rec| {
            (
                rec["hook_id"].as_str().unwrap_or_default(),
                rec["status"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        records,
        [
            ("add-flag", "decision"),
            ("would-block", "audited"),
            ("no-bash", "decision")
        ],
        "one record per consulted rule: {}",
        r["records"]
    );
    assert_eq!(r["records"][1]["decision"], "skip");
    let provenance = r["outcome"]["provenance"].as_array().expect("provenance");
    let audited = provenance
        .iter()
        .find(|p| p["hook"] == "would-block")
        .unwrap_or_else(|| panic!("no provenance for the audit rule: {provenance:?}"));
    assert_eq!(audited["change"], json!({"audited": "skip"}));
}

#[test]
fn human_output_lists_the_records_of_declarative_rules() {
    let dir = workspace(
        "version: 1\nhooks:\n  - id: no-rm\n    phase: before_tool\n    block: { reason: \"no\" }\n",
        r#"{"phase":"before_tool","tool":"bash","args":{}}"#,
    );
    let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir.path())
        .args(["test", "hooks.yaml", "--event", "event.json"])
        .output()
        .expect("run agent-hooks");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("records: none"), "{text}");
    assert!(text.contains("\"hook_id\":\"no-rm\""), "{text}");
}

/// A `before_tool` hook printing a block decision padded with whitespace
/// (accepted around the JSON document) to `bytes` bytes; `warn` so that an
/// output failure lets the call run.
fn padded_block(limits: &str, bytes: usize) -> String {
    format!(
        r#"version: 1
{limits}hooks:
  - id: big-block
    phase: before_tool
    failure_policy: warn
    run:
      command: "printf '{{\"decision\":\"block\",\"reason\":\"big\"}}'; head -c {bytes} /dev/zero | tr '\\0' ' '"
"#
    )
}

#[test]
fn max_output_bytes_stops_a_large_output_from_deciding() {
    let event = r#"{"phase":"before_tool","tool":"bash","args":{}}"#;
    let capped = workspace(
        &padded_block("limits:\n  max_output_bytes: 1000\n", 5000),
        event,
    );
    let r = test_json(capped.path());
    assert_eq!(r["verdict"]["decision"], "run", "{r}");
    assert_eq!(r["records"][0]["failure_kind"], "output_too_large", "{r}");

    // The same output under the default cap (1 MiB) decides.
    let uncapped = workspace(&padded_block("", 5000), event);
    let r = test_json(uncapped.path());
    assert_eq!(r["verdict"]["decision"], "skip", "{r}");
}

#[test]
fn the_context_cap_defaults_to_the_config_languages_64_kib() {
    // 20,000 bytes of context: over the shell runtime's own default
    // (16 KiB), under the config language's (64 KiB).
    let dir = workspace(
        r#"version: 1
hooks:
  - id: long-note
    phase: after_tool
    run:
      command: "printf '{\"context_items\":[{\"role\":\"user\",\"content\":\"'; head -c 20000 /dev/zero | tr '\\0' a; printf '\"}]}'"
"#,
        r#"{"phase":"after_tool","tool":"bash","result":{"output":""}}"#,
    );
    let r = test_json(dir.path());
    let context = r["outcome"]["context"].as_array().expect("context");
    assert_eq!(context.len(), 1, "{r}");
    assert_eq!(context[0]["content"].as_str().map(str::len), Some(20000));
}

#[test]
fn replay_exec_caps_stop_resumes_per_user_turn() {
    let dir = workspace(
        r#"version: 1
limits:
  max_stop_resumes_per_turn: 1
hooks:
  - id: keep-going
    phase: stop
    run:
      command: "echo '{\"decision\":\"resume\",\"reason\":\"not done\"}'"
"#,
        "",
    );
    // Two user turns, with three and two stops in them.
    let stop = r#"{"phase":"stop","text":"done"}"#;
    let prompt = r#"{"phase":"user_prompt","prompt":"go"}"#;
    let session = [prompt, stop, stop, stop, prompt, stop, stop].join("\n");
    std::fs::write(dir.path().join("s.jsonl"), session).expect("write session");
    let s = run_json(dir.path(), &["replay", "hooks.yaml", "s.jsonl", "--exec"]);
    // The hook runs on the first stop of each turn only: at the cap (the
    // other three stops) it is not spawned.
    assert_eq!(s["executed"], 2, "{s}");
    assert_eq!(s["resumed"], 2, "one resume per user turn: {s}");

    // Without `--exec` nothing runs, nothing resumes.
    let s = run_json(dir.path(), &["replay", "hooks.yaml", "s.jsonl"]);
    assert_eq!(
        (s["would_run"].as_u64(), s["resumed"].as_u64()),
        (Some(5), Some(0))
    );
}
