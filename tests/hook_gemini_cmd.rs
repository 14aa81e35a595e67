//! `agent-hooks hook --agent gemini`: Gemini CLI's payloads (every event,
//! written here from Gemini CLI's hooks reference) through a config that
//! blocks, asks, rewrites, replaces a result, injects context and keeps
//! the agent working. Each answer must use only the output fields Gemini
//! CLI's reference gives its event (`tests/schemas/gemini/`) and carry the
//! config's decision in them (src/agent/gemini.rs).

#[path = "common/cli.rs"]
mod cli;

use serde_json::{Value, json};

const CONFIG: &str = "tests/configs/agent/gemini.yaml";

/// A Gemini CLI payload of `event` with `fields`.
fn payload(event: &str, fields: Value) -> Value {
    let mut p = json!({"session_id": "g1", "transcript_path": "/tmp/g1.json",
        "cwd": "/tmp", "hook_event_name": event, "timestamp": "2026-12-06T02:00:00Z"});
    if let (Some(p), Value::Object(fields)) = (p.as_object_mut(), fields) {
        p.extend(fields);
    }
    p
}

/// The answer of `hook --agent gemini CONFIG` (exit 0, one JSON line),
/// checked against the event's schema when there is one.
fn answer(payload: &Value) -> Value {
    let answer = cli::hook_answer("gemini", &[CONFIG], payload.to_string().as_bytes());
    let event = payload["hook_event_name"].as_str().expect("an event");
    if let Some(schema) = cli::output_schema("gemini", event) {
        cli::assert_valid(&schema, &answer, &payload.to_string());
    }
    answer
}

fn shell(command: &str) -> Value {
    payload(
        "BeforeTool",
        json!({"tool_name": "run_shell_command", "tool_input": {"command": command}}),
    )
}

#[test]
fn before_tool_denies_asks_as_a_deny_and_merges_rewrites() {
    let push = answer(&shell("git push --force origin main"));
    assert_eq!(push["decision"], "deny", "{push}");
    assert_eq!(push["reason"], "force pushes are for a person");

    let commit = answer(&shell("git commit -m wip"));
    assert_eq!(commit["decision"], "deny", "{commit}");
    let reason = commit["reason"].as_str().expect("a reason");
    assert!(
        reason.contains("a person must approve")
            && reason.contains("a person reviews every commit"),
        "{reason}"
    );

    // A rewrite that adds a key: Gemini CLI merges it over the arguments.
    let deploy = answer(&shell("deploy web"));
    assert!(deploy.get("decision").is_none(), "{deploy}");
    assert_eq!(
        deploy["hookSpecificOutput"]["tool_input"],
        json!({"command": "deploy web", "dir_path": "staging"})
    );

    // A rewrite that removes a key cannot be merged: a deny that names the
    // arguments to call with.
    let write = answer(&payload(
        "BeforeTool",
        json!({"tool_name": "write_file", "tool_input":
            {"file_path": "/tmp/a", "content": "x", "description": "notes"}}),
    ));
    assert_eq!(write["decision"], "deny", "{write}");
    let reason = write["reason"].as_str().expect("a reason");
    assert!(
        reason.contains(r#""file_path":"/tmp/a""#) && !reason.contains("notes"),
        "{reason}"
    );

    assert_eq!(answer(&shell("ls")), json!({}));
}

#[test]
fn after_tool_replaces_the_result_and_adds_context() {
    let env = answer(&payload(
        "AfterTool",
        json!({"tool_name": "read_file", "tool_input": {"file_path": ".env"},
            "tool_response": {"llmContent": "TOKEN=abc", "returnDisplay": "read .env"}}),
    ));
    assert_eq!(
        env["hookSpecificOutput"]["tool_output"], "[hidden by agent-hooks]",
        "{env}"
    );
    let failed = answer(&payload(
        "AfterTool",
        json!({"tool_name": "run_shell_command", "tool_input": {"command": "make"},
            "tool_response": {"llmContent": "", "error": "exit status 2"}}),
    ));
    assert_eq!(
        failed["hookSpecificOutput"]["additionalContext"],
        "the tool failed: read the error before retrying",
        "{failed}"
    );
}

#[test]
fn agent_and_session_events_answer_in_gemini_cli_fields() {
    let key = answer(&payload(
        "BeforeAgent",
        json!({"prompt": "use api_key=123"}),
    ));
    assert_eq!(key["decision"], "deny", "{key}");
    assert_eq!(key["reason"], "no API keys in prompts");
    let hello = answer(&payload("BeforeAgent", json!({"prompt": "hello"})));
    assert_eq!(
        hello["hookSpecificOutput"]["additionalContext"], "answer briefly",
        "{hello}"
    );

    let stop = |active: bool| {
        answer(&payload(
            "AfterAgent",
            json!({"prompt": "fix it", "prompt_response": "done", "stop_hook_active": active}),
        ))
    };
    let first = stop(false);
    assert_eq!(first["decision"], "deny", "{first}");
    assert_eq!(first["reason"], "run the tests before stopping");
    assert_eq!(stop(true), json!({}));

    let start = answer(&payload("SessionStart", json!({"source": "startup"})));
    assert_eq!(
        start["hookSpecificOutput"]["additionalContext"],
        "project rules: small commits, tests first",
        "{start}"
    );
    assert_eq!(
        answer(&payload("SessionEnd", json!({"reason": "exit"}))),
        json!({})
    );
    assert_eq!(
        answer(&payload(
            "Notification",
            json!({"notification_type": "ToolPermission", "message": "run ls?", "details": {}})
        )),
        json!({})
    );
    assert_eq!(
        answer(&payload("PreCompress", json!({"trigger": "auto"}))),
        json!({})
    );
}

#[test]
fn model_events_patch_the_request_and_end_the_run() {
    let llm_request = json!({"model": "gemini-2.5-pro",
        "messages": [{"role": "user", "content": "draft a plan"}],
        "config": {"temperature": 1.0}});
    let before = answer(&payload("BeforeModel", json!({"llm_request": llm_request})));
    assert_eq!(
        before["hookSpecificOutput"]["llm_request"],
        json!({"model": "gemini-2.5-flash", "config": {"temperature": 0.2},
            "toolConfig": {"mode": "NONE"}}),
        "{before}"
    );
    // Another model: no rule matches, nothing to override.
    let other = json!({"model": "gemini-2.5-flash", "messages": [], "config": {}});
    assert_eq!(
        answer(&payload("BeforeModel", json!({"llm_request": other}))),
        json!({})
    );
    // BeforeToolSelection takes the tool choice alone.
    let selection = answer(&payload(
        "BeforeToolSelection",
        json!({"llm_request": llm_request}),
    ));
    assert_eq!(
        selection,
        json!({"hookSpecificOutput": {"toolConfig": {"mode": "NONE"}}})
    );
    let leak = json!({"candidates": [{"content": {"role": "model",
        "parts": ["-----BEGIN PRIVATE KEY-----"]}, "finishReason": "STOP"}]});
    let after = answer(&payload(
        "AfterModel",
        json!({"llm_request": llm_request, "llm_response": leak}),
    ));
    assert_eq!(after["continue"], false, "{after}");
    assert_eq!(after["stopReason"], "the model printed a private key");
}

#[test]
fn a_broken_config_is_said_on_model_events_too() {
    let workspace = tempfile::tempdir().expect("workspace");
    let config = workspace.path().join("broken.yaml");
    std::fs::write(&config, "version: 1\nhooks:\n  - { id: a, phase: nope }\n").expect("config");
    let state = workspace.path().join(".state");
    let payload = payload(
        "BeforeModel",
        json!({"llm_request": {"model": "m", "messages": [], "config": {}}}),
    );
    let answer = cli::hook_json(
        "gemini",
        workspace.path(),
        &state,
        &[config],
        payload.to_string().as_bytes(),
    );
    assert!(
        answer["systemMessage"]
            .as_str()
            .is_some_and(|m| m.contains("broken.yaml")),
        "{answer}"
    );
}
