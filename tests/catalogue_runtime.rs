//! Rewrites checked against the tool catalogue at run time: a declarative
//! `rewrite` or a shell hook's `rewrite_args` that leaves the arguments
//! outside the tool's input schema is an `invalid_output` failure under
//! the hook's failure policy, with a record — never a malformed tool call.

use serde_json::{Value, json};

#[path = "common/cli.rs"]
mod cli;

const CONFIG: &str = r#"version: 1
catalogue:
  bash:
    input:
      type: object
      properties:
        command: { type: string }
        timeout: { type: integer }
      required: [command]
hooks:
  - id: drop-command
    phase: before_tool
    include_tools: [bash]
    when: { pointer: /command, equals: "drop" }
    rewrite: [{ op: remove, pointer: /command }]
  - id: stringly-timeout
    phase: before_tool
    include_tools: [bash]
    when: { pointer: /command, equals: "shell" }
    failure_policy: warn
    run:
      command: "echo '{\"rewrite_args\": {\"command\": \"ls\", \"timeout\": \"thirty\"}}'"
  - id: good-timeout
    phase: before_tool
    include_tools: [bash]
    when: { pointer: /command, equals: "good" }
    run:
      command: "echo '{\"rewrite_args\": {\"command\": \"ls\", \"timeout\": 30}}'"
"#;

fn run(event: &Value) -> Value {
    cli::test_event(cli::workspace(CONFIG).path(), event)
}

fn bash(command: &str) -> Value {
    json!({"phase": "before_tool", "tool": "bash", "args": {"command": command}})
}

fn failed_record<'a>(r: &'a Value, hook: &str) -> &'a Value {
    r["records"]
        .as_array()
        .expect("records")
        .iter()
        .find(|rec| rec["hook_id"] == hook)
        .unwrap_or_else(|| panic!("a record of {hook}: {r}"))
}

#[test]
fn the_config_checks() {
    cli::ok(cli::workspace(CONFIG).path(), &["check", "hooks.yaml"]);
}

#[test]
fn a_declarative_rewrite_that_breaks_the_schema_fails_closed_on_before_tool() {
    let r = run(&bash("drop"));
    // `before_tool`'s default policy is `block`: the call does not run.
    assert_eq!(r["verdict"]["decision"], "skip", "{r}");
    let rec = failed_record(&r, "drop-command");
    assert_eq!(rec["status"], "failed");
    assert_eq!(rec["failure_kind"], "invalid_output");
    let message = rec["message"].as_str().unwrap_or_default();
    assert!(message.contains("do not fit its input schema"), "{message}");
}

#[test]
fn a_shell_rewrite_that_breaks_the_schema_is_invalid_output_under_its_policy() {
    let r = run(&bash("shell"));
    // `warn`: the call runs with the arguments it had, the failure recorded.
    assert_eq!(r["verdict"]["decision"], "run", "{r}");
    assert!(r["outcome"]["args"].is_null(), "no rewrite applied: {r}");
    let rec = failed_record(&r, "stringly-timeout");
    assert_eq!(rec["status"], "failed");
    assert_eq!(rec["failure_kind"], "invalid_output");
    let message = rec["message"].as_str().unwrap_or_default();
    assert!(message.contains("/timeout"), "{message}");
}

#[test]
fn a_rewrite_that_fits_is_applied() {
    let r = run(&bash("good"));
    assert_eq!(r["verdict"]["decision"], "run", "{r}");
    assert_eq!(
        r["outcome"]["args"],
        json!({"command": "ls", "timeout": 30})
    );
}
