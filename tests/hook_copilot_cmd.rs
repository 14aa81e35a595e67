//! `agent-hooks hook --agent copilot`: GitHub Copilot's payloads, in the
//! Copilot CLI's camelCase format (every event, written here from the
//! Copilot CLI hooks reference; the event named by `--event`) and in the
//! VS Code-compatible format, through a config that blocks, asks,
//! rewrites, allows and refuses permissions, injects context and keeps
//! the agent working. Each CLI answer must use only the fields the
//! reference gives its event (`tests/schemas/copilot/`), each VS
//! Code-compatible answer Claude Code's (`tests/schemas/claude/`), and
//! carry the config's decision in them (src/agent/copilot.rs).

#[path = "common/cli.rs"]
mod cli;

use serde_json::{Value, json};

const CONFIG: &str = "tests/configs/agent/copilot.yaml";

/// A Copilot CLI payload (camelCase, no event name) with `fields`.
fn payload(fields: Value) -> Value {
    let mut p = json!({"sessionId": "c1", "timestamp": 1_765_000_000_000_u64, "cwd": "/tmp"});
    if let (Some(p), Value::Object(fields)) = (p.as_object_mut(), fields) {
        p.extend(fields);
    }
    p
}

/// The answer of `hook --agent copilot --event EVENT CONFIG` to a CLI
/// payload, checked against the event's schema.
fn answer(event: &str, payload: &Value) -> Value {
    let answer = cli::hook_answer_with(
        &["--agent", "copilot", "--event", event],
        &[CONFIG],
        payload.to_string().as_bytes(),
    );
    let schema = cli::output_schema("copilot", event).expect("a schema for every CLI event");
    cli::assert_valid(&schema, &answer, &format!("{event} {payload}"));
    answer
}

fn bash(command: &str) -> Value {
    payload(json!({"toolName": "bash", "toolArgs": {"command": command}}))
}

#[test]
fn pre_tool_use_denies_asks_and_modifies_arguments() {
    let push = answer("preToolUse", &bash("git push --force origin main"));
    assert_eq!(push["permissionDecision"], "deny", "{push}");
    assert_eq!(
        push["permissionDecisionReason"],
        "force pushes are for a person"
    );

    let commit = answer("preToolUse", &bash("git commit -m wip"));
    assert_eq!(commit["permissionDecision"], "ask", "{commit}");
    assert_eq!(
        commit["permissionDecisionReason"],
        "a person reviews every commit"
    );

    // A rewrite is `modifiedArgs`, with no `allow`: the user's permission
    // flow still runs.
    let deploy = answer("preToolUse", &bash("deploy web"));
    assert_eq!(
        deploy,
        json!({"modifiedArgs": {"command": "deploy web", "dry_run": true}})
    );

    // The cloud agent's arguments come as a JSON string.
    let text = payload(json!({"toolName": "bash",
        "toolArgs": r#"{"command":"git push --force"}"#}));
    assert_eq!(answer("preToolUse", &text)["permissionDecision"], "deny");

    // Context has no field here: dropped, and said on stderr.
    let out = cli::hook_fresh_with(
        &["--agent", "copilot", "--event", "preToolUse"],
        &[CONFIG],
        bash("ls -la").to_string().as_bytes(),
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "{}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("context for the model dropped"),
        "{out:?}"
    );
}

#[test]
fn permission_requests_allow_and_deny() {
    let log = answer("permissionRequest", &bash("git log -3"));
    assert_eq!(log, json!({"behavior": "allow"}));
    let rm = answer("permissionRequest", &bash("rm -rf build"));
    assert_eq!(rm["behavior"], "deny", "{rm}");
    assert_eq!(rm["message"], "removals are refused");
    assert_eq!(answer("permissionRequest", &bash("make")), json!({}));
}

#[test]
fn stops_keep_working_and_context_goes_where_the_cli_takes_it() {
    let stop = answer(
        "agentStop",
        &payload(json!({"transcriptPath": "/tmp/t.jsonl", "stopReason": "end_turn"})),
    );
    assert_eq!(
        stop,
        json!({"decision": "block", "reason": "run the tests before stopping"})
    );
    let sub = answer(
        "subagentStop",
        &payload(
            json!({"transcriptPath": "/tmp/t.jsonl", "agentName": "explore",
            "stopReason": "end_turn"}),
        ),
    );
    assert_eq!(sub["reason"], "check the call sites again", "{sub}");

    let failed = answer(
        "postToolUseFailure",
        &payload(json!({"toolName": "bash", "toolArgs": {"command": "make"},
            "error": "exit status 2"})),
    );
    assert_eq!(
        failed,
        json!({"additionalContext": "the tool failed: read the error before retrying"})
    );
    let start = answer(
        "subagentStart",
        &payload(json!({"transcriptPath": "/tmp/t.jsonl", "agentName": "explore"})),
    );
    assert_eq!(
        start,
        json!({"additionalContext": "subagents report in one paragraph"})
    );
    let note = answer(
        "notification",
        &payload(
            json!({"hook_event_name": "Notification", "message": "Shell completed",
            "notification_type": "shell_completed"}),
        ),
    );
    assert_eq!(note, json!({}));
}

#[test]
fn events_without_output_answer_nothing_and_say_what_was_dropped() {
    let cases = [
        (
            "sessionStart",
            json!({"source": "new", "initialPrompt": "hi"}),
        ),
        ("sessionEnd", json!({"reason": "complete"})),
        (
            "userPromptSubmitted",
            json!({"prompt": "here is api_key=123"}),
        ),
        (
            "postToolUse",
            json!({"toolName": "view", "toolArgs": {"path": ".env"},
                "toolResult": {"resultType": "success", "textResultForLlm": "TOKEN=abc"}}),
        ),
        (
            "errorOccurred",
            json!({"error": {"message": "boom", "name": "Error"},
                "errorContext": "system", "recoverable": false}),
        ),
        (
            "preCompact",
            json!({"transcriptPath": "/tmp/t.jsonl", "trigger": "manual", "customInstructions": ""}),
        ),
    ];
    for (event, fields) in cases {
        assert_eq!(answer(event, &payload(fields)), json!({}), "{event}");
    }
    // What the hooks decided but the CLI cannot apply is on stderr.
    let said = |event: &str, fields: Value| {
        let out = cli::hook_fresh_with(
            &["--agent", "copilot", "--event", event],
            &[CONFIG],
            payload(fields).to_string().as_bytes(),
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(
        said("sessionStart", json!({"source": "new"})).contains("project rules"),
        "the dropped context is named"
    );
    assert!(said("userPromptSubmitted", json!({"prompt": "api_key=1"})).contains("ended the run"));
    assert!(
        said(
            "postToolUse",
            json!({"toolName": "view", "toolArgs": {"path": ".env"},
                "toolResult": {"resultType": "success", "textResultForLlm": "TOKEN=abc"}})
        )
        .contains("rewritten result is not applied")
    );
}

#[test]
fn the_vs_code_compatible_format_is_answered_as_claude_code() {
    let vscode = |event: &str, fields: Value| {
        let mut p = json!({"hook_event_name": event, "session_id": "v1",
            "timestamp": "2026-12-06T04:00:00Z", "cwd": "/tmp"});
        if let (Some(p), Value::Object(fields)) = (p.as_object_mut(), fields) {
            p.extend(fields);
        }
        // `--event` names a camelCase event; the payload's own name wins.
        let answer = cli::hook_answer_with(
            &["--agent", "copilot", "--event", "sessionEnd"],
            &[CONFIG],
            p.to_string().as_bytes(),
        );
        if let Some(schema) = cli::output_schema("claude", event) {
            cli::assert_valid(&schema, &answer, &p.to_string());
        }
        answer
    };
    let push = vscode(
        "PreToolUse",
        json!({"tool_name": "bash", "tool_input": {"command": "git push --force"}}),
    );
    assert_eq!(
        push["hookSpecificOutput"]["permissionDecision"], "deny",
        "{push}"
    );
    let deploy = vscode(
        "PreToolUse",
        json!({"tool_name": "bash", "tool_input": {"command": "deploy api"}}),
    );
    assert_eq!(
        deploy["hookSpecificOutput"]["updatedInput"],
        json!({"command": "deploy api", "dry_run": true})
    );
    // A failed result (`result_type`) is read as a failure.
    let failed = vscode(
        "PostToolUse",
        json!({"tool_name": "bash", "tool_input": {"command": "make"},
            "tool_result": {"result_type": "failure", "text_result_for_llm": "exit 2"}}),
    );
    assert_eq!(
        failed["hookSpecificOutput"]["additionalContext"],
        "the tool failed: read the error before retrying",
        "{failed}"
    );
    let stop = vscode(
        "Stop",
        json!({"transcript_path": "/tmp/t.jsonl", "stop_reason": "end_turn"}),
    );
    assert_eq!(stop["decision"], "block", "{stop}");
}

#[test]
fn a_payload_without_an_event_name_is_refused_where_it_gates() {
    let out = cli::hook_fresh("copilot", &[CONFIG], bash("ls").to_string().as_bytes());
    assert_eq!(out.status.code(), Some(0));
    let answer: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(answer["permissionDecision"], "deny", "{answer}");
    assert_eq!(answer["behavior"], "deny", "{answer}");
    assert!(
        answer["message"]
            .as_str()
            .is_some_and(|m| m.contains("--event")),
        "{answer}"
    );
    // Without a tool call there is nothing to refuse: a blocking error.
    let out = cli::hook_fresh(
        "copilot",
        &[CONFIG],
        payload(json!({})).to_string().as_bytes(),
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn vs_code_names_its_event_in_camel_case_keys_and_is_answered_as_claude_code() {
    // VS Code's own common fields: `hookEventName`, `sessionId`.
    let payload = json!({"hookEventName": "PreToolUse", "sessionId": "v2",
        "timestamp": "2026-12-06T05:00:00Z", "cwd": "/tmp",
        "tool_name": "bash", "tool_input": {"command": "git push --force"}});
    let answer = cli::hook_answer("copilot", &[CONFIG], payload.to_string().as_bytes());
    let schema = cli::output_schema("claude", "PreToolUse").expect("schema");
    cli::assert_valid(&schema, &answer, &payload.to_string());
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
}

#[test]
fn a_misspelled_event_is_refused_where_a_tool_is_called() {
    let out = cli::hook_fresh_with(
        &["--agent", "copilot", "--event", "pretooluse"],
        &[CONFIG],
        bash("ls").to_string().as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0));
    let answer: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(answer["permissionDecision"], "deny", "{answer}");
    assert!(
        answer["permissionDecisionReason"]
            .as_str()
            .is_some_and(|r| r.contains("pretooluse")),
        "{answer}"
    );
    // Without a tool call: nothing gated, said on stderr.
    let out = cli::hook_fresh_with(
        &["--agent", "copilot", "--event", "bogus"],
        &[CONFIG],
        payload(json!({"prompt": "hi"})).to_string().as_bytes(),
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "{}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("bogus"));
}

#[test]
fn arguments_that_cannot_be_read_are_refused() {
    let text = payload(json!({"toolName": "bash", "toolArgs": "{\"command\": \"rm -rf"}));
    let answer = answer("preToolUse", &text);
    assert_eq!(answer["permissionDecision"], "deny", "{answer}");
}
