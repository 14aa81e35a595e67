//! Background hooks (`async: true`) in the one-event commands: `test`
//! waits for them and shows their records (their context, with no later
//! event, dropped with a record); `hook` answers, then lets them end
//! (within their timeouts) instead of killing them with the process.

use std::path::Path;

use serde_json::{Value, json};

#[path = "common/cli.rs"]
mod cli;

const CONFIG: &str = r#"
version: 1
hooks:
  - id: review
    phase: after_tool
    async: true
    run:
      command: "cat > /dev/null; sleep 0.3; echo reviewed > reviewed; echo '{\"context_items\":[{\"role\":\"user\",\"content\":\"review: fine\"}]}'"
"#;

/// The records of `report` of hook `id`, of kind `kind`.
fn records<'r>(report: &'r Value, kind: &str, id: &str) -> Vec<&'r Value> {
    report["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter(|r| r["record"] == kind && r["hook_id"] == id)
        .collect()
}

#[test]
fn test_waits_for_a_background_hook_and_shows_its_records() {
    let dir = cli::workspace(CONFIG);
    let event = json!({"phase": "after_tool", "tool_name": "write_file", "call_id": "c1",
        "args": {"path": "a.txt"}, "result": {"ok": true}, "outcome": "success"});
    let report = cli::test_event(dir.path(), &event);
    assert!(dir.path().join("reviewed").exists(), "{report}");
    let hook = records(&report, "hook", "review");
    assert_eq!(hook.len(), 1, "{report}");
    assert_eq!(hook[0]["async"], true, "{report}");
    assert_eq!(hook[0]["decision"], "inject_context", "{report}");
    let injection = records(&report, "context_injection", "review");
    assert_eq!(injection.len(), 1, "{report}");
    assert_eq!(injection[0]["status"], "dropped", "{report}");
    // The event itself got no context: the agent did not wait.
    assert_eq!(report["verdict"]["decision"], "continue", "{report}");
}

#[test]
fn the_hook_command_lets_a_background_hook_end_before_exiting() {
    let dir = cli::workspace(CONFIG);
    let state = dir.path().join(".state");
    let payload = json!({"hook_event_name": "PostToolUse", "session_id": "s1",
        "transcript_path": "", "cwd": dir.path(), "tool_name": "Write",
        "tool_input": {"file_path": "a.txt", "content": "x"},
        "tool_response": {"success": true}});
    let configs = [dir.path().join("hooks.yaml")];
    let out = cli::hook_claude(dir.path(), &state, &configs, payload.to_string().as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer = String::from_utf8_lossy(&out.stdout);
    assert!(!answer.contains("review: fine"), "not waited for: {answer}");
    assert!(
        Path::new(&dir.path().join("reviewed")).exists(),
        "ended, not killed"
    );
}
