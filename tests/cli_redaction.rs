//! `agent-hooks check`, `test`, `explain` and `replay` never print a secret: hook
//! reasons, injected context, event arguments and `equals` values pass
//! through the runtime's redaction function before they reach stdout or
//! stderr, in human and JSON output alike.

use std::path::Path;
use std::process::{Command, Output};

const GHP: &str = "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const SK: &str = "sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD";

/// A temporary workspace with `hooks.yaml` and `event.json`.
fn workspace(config: &str, event: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("hooks.yaml"), config).expect("write config");
    std::fs::write(dir.path().join("event.json"), event).expect("write event");
    dir
}

fn agent_hooks(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run agent-hooks")
}

/// Asserts neither secret is in stdout or stderr and the marker is in stdout.
fn assert_redacted(what: &str, out: &Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for secret in [GHP, SK] {
        assert!(!stdout.contains(secret), "{what}: stdout leaks:\n{stdout}");
        assert!(!stderr.contains(secret), "{what}: stderr leaks:\n{stderr}");
    }
    assert!(
        stdout.contains("[REDACTED]"),
        "{what}: no marker:\n{stdout}"
    );
    assert_eq!(out.status.code(), Some(0), "{what}: {stderr}");
}

/// Runs `args` in human and JSON format and checks both.
fn both_formats(dir: &Path, args: &[&str]) {
    assert_redacted(&format!("{args:?}"), &agent_hooks(dir, args));
    let mut json = args.to_vec();
    json.extend(["--format", "json"]);
    let out = agent_hooks(dir, &json);
    assert_redacted(&format!("{json:?}"), &out);
    serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("valid JSON");
}

const BASH_EVENT: &str =
    r#"{"phase":"before_tool","tool":"bash","call_id":"c1","args":{"command":"ls"}}"#;

#[test]
fn an_exit_2_reason_on_stderr_is_redacted() {
    let config = format!(
        "version: 1\nhooks:\n  - id: deny\n    phase: before_tool\n    run:\n      command: \"echo 'no way: {GHP} {SK}' >&2; exit 2\"\n      timeout: 20s\n"
    );
    let dir = workspace(&config, BASH_EVENT);
    both_formats(dir.path(), &["test", "hooks.yaml", "--event", "event.json"]);
}

#[test]
fn a_native_block_reason_is_redacted() {
    let config = format!(
        "version: 1\nhooks:\n  - id: deny\n    phase: before_tool\n    run:\n      command: \"echo '{{\\\"decision\\\":\\\"block\\\",\\\"reason\\\":\\\"key {SK}\\\"}}'\"\n      timeout: 20s\n"
    );
    let dir = workspace(&config, BASH_EVENT);
    both_formats(dir.path(), &["test", "hooks.yaml", "--event", "event.json"]);
}

#[test]
fn injected_context_is_redacted() {
    let config = format!(
        "version: 1\nhooks:\n  - id: note\n    phase: after_tool\n    inject:\n      content: \"token {GHP} and {SK}\"\n"
    );
    let event = r#"{"phase":"after_tool","tool":"bash","call_id":"c1","args":{"command":"ls"},"result":"ok"}"#;
    let dir = workspace(&config, event);
    let out = agent_hooks(dir.path(), &["test", "hooks.yaml", "--event", "event.json"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("injected context"),
        "the item is printed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    both_formats(dir.path(), &["test", "hooks.yaml", "--event", "event.json"]);
}

#[test]
fn explain_redacts_event_values_and_equals_values() {
    let config = format!(
        "version: 1\nhooks:\n  - id: exact\n    phase: before_tool\n    when:\n      pointer: /command\n      equals: \"{SK}\"\n    block:\n      reason: nope\n"
    );
    let event = format!(
        r#"{{"phase":"before_tool","tool":"bash","call_id":"c1","args":{{"command":"{GHP}"}}}}"#
    );
    let dir = workspace(&config, &event);
    let out = agent_hooks(
        dir.path(),
        &["explain", "hooks.yaml", "--event", "event.json"],
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("no match"),
        "the rule fails on its `equals`: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    both_formats(
        dir.path(),
        &["explain", "hooks.yaml", "--event", "event.json"],
    );
}

#[test]
fn replay_redacts_paths_in_both_formats() {
    let config = format!(
        "version: 1\nhooks:\n  - id: deny\n    phase: before_tool\n    block:\n      reason: \"blocked {GHP}\"\n"
    );
    let dir = workspace(&config, BASH_EVENT);
    // Session files are named by whoever recorded them; the name is printed.
    let session = format!("session-{GHP}-{SK}.jsonl");
    std::fs::copy(dir.path().join("event.json"), dir.path().join(&session)).expect("copy");
    both_formats(dir.path(), &["replay", "hooks.yaml", &session]);
    both_formats(dir.path(), &["replay", "hooks.yaml", &session, "--exec"]);
}

#[test]
fn check_does_not_echo_a_literal_credential_from_the_config() {
    let config = format!(
        "version: 1\nhooks:\n  - id: gh\n    phase: before_tool\n    run:\n      command: \"true\"\n      env: {{ set: {{ \"bad name\": \"{GHP}\" }} }}\n"
    );
    let dir = workspace(&config, BASH_EVENT);
    for args in [
        &["check", "hooks.yaml"][..],
        &["check", "hooks.yaml", "--format", "json"][..],
    ] {
        let out = agent_hooks(dir.path(), args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stdout}{stderr}");
        assert!(
            stdout.contains("bad name"),
            "{args:?}: the finding is shown:\n{stdout}"
        );
        assert!(
            !stdout.contains(GHP) && !stderr.contains(GHP),
            "{args:?}: leaks:\n{stdout}{stderr}"
        );
    }
}
