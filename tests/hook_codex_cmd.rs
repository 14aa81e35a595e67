//! `agent-hooks hook --agent codex`: Codex reads Claude Code's hook format
//! but enforces less of it, and what it does not enforce fails open. Every
//! answer must use only the fields Codex acts on (a JSON Schema per event,
//! written from Codex's hooks reference: `tests/schemas/codex/`), and a
//! decision Codex would not enforce as written (ask, rewritten arguments,
//! a rewritten result) must come out as one it does (src/agent/codex.rs).

#[path = "common/cli.rs"]
mod cli;
#[path = "common/real.rs"]
mod real;

use serde_json::{Value, json};

const CONFIG: &str = "tests/configs/agent/claude.yaml";

/// `payload` as Codex sends it: Claude Code's fields plus `model` and
/// `turn_id`.
fn codex(mut payload: Value) -> Value {
    payload["model"] = json!("gpt-5-codex");
    payload["turn_id"] = json!("019d036d-c7fa-72d2-b6fd-78878bfe34e4");
    payload
}

/// The answer of `hook --agent codex CONFIG` to `payload` (exit 0, one
/// JSON line), in a fresh workspace.
fn answer(payload: &Value) -> Value {
    cli::hook_answer("codex", &[CONFIG], payload.to_string().as_bytes())
}

/// Validates `answer` against Codex's schema of `event`.
fn assert_enforced(event: &str, answer: &Value, what: &str) {
    let schema =
        cli::output_schema("codex", event).unwrap_or_else(|| panic!("no schema for `{event}`"));
    cli::assert_valid(&schema, answer, what);
}

#[test]
fn every_real_payload_of_a_codex_event_gets_an_answer_codex_enforces() {
    let Some(dir) = real::dir("hook-scripts/payloads") else {
        return;
    };
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("payloads") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let payload: Value =
            serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("payload JSON");
        let Some(event) = payload["hook_event_name"].as_str().map(str::to_owned) else {
            continue;
        };
        if !cli::CODEX_EVENTS.contains(&event.as_str()) {
            continue;
        }
        let answer = answer(&codex(payload));
        assert_enforced(&event, &answer, &path.display().to_string());
        checked += 1;
    }
    assert!(checked >= 30, "{checked} payloads");
}

#[test]
fn what_codex_would_not_enforce_is_answered_as_what_it_does() {
    let base = |event: &str| {
        json!({"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
            "hook_event_name": event})
    };
    let bash = |command: &str| {
        let mut p = base("PreToolUse");
        p["tool_name"] = json!("Bash");
        p["tool_use_id"] = json!("call-1");
        p["tool_input"] = json!({"command": command});
        codex(p)
    };

    // A deny is Codex's own: kept; the context beside it is dropped with
    // a note (Codex applies none on PreToolUse).
    let push = answer(&bash("git push origin main"));
    assert_enforced("PreToolUse", &push, "push");
    assert_eq!(push["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(
        push["hookSpecificOutput"]["permissionDecisionReason"],
        "pushes, hard resets and branch switches are for a person"
    );

    // Ask fails open in Codex: answered as a deny that says why.
    let commit = answer(&bash("git commit -m wip"));
    assert_enforced("PreToolUse", &commit, "commit");
    assert_eq!(commit["hookSpecificOutput"]["permissionDecision"], "deny");
    let reason = commit["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .expect("a reason");
    assert!(
        reason.contains("a person must approve")
            && reason.contains("a person reviews every commit"),
        "{reason}"
    );

    // A call the hooks only let through rewritten: Codex would run the
    // original, so it is denied with the arguments to call with instead.
    let mut extract = base("PreToolUse");
    extract["tool_name"] = json!("mcp__tavily__tavily_extract");
    extract["tool_input"] = json!({"urls": ["https://example.com"]});
    let extract = answer(&codex(extract));
    assert_enforced("PreToolUse", &extract, "extract");
    assert_eq!(extract["hookSpecificOutput"]["permissionDecision"], "deny");
    let reason = extract["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .expect("a reason");
    assert!(reason.contains(r#""extract_depth":"advanced""#), "{reason}");

    // Context alone on PreToolUse: dropped, the note in systemMessage.
    let ls = answer(&bash("ls"));
    assert_enforced("PreToolUse", &ls, "ls");
    assert!(ls.get("hookSpecificOutput").is_none(), "{ls}");
    assert!(
        ls["systemMessage"]
            .as_str()
            .is_some_and(|m| m.contains("additionalContext")),
        "{ls}"
    );

    // A rewritten result: Codex replaces the result with a block's reason.
    let mut read = base("PostToolUse");
    read["tool_name"] = json!("Read");
    read["tool_input"] = json!({"file_path": "/tmp/a.txt"});
    read["tool_response"] = json!({"content": "hello"});
    let read = answer(&codex(read));
    assert_enforced("PostToolUse", &read, "read");
    assert_eq!(read["decision"], "block", "{read}");
    let reason: Value =
        serde_json::from_str(read["reason"].as_str().expect("a reason")).expect("the result");
    assert_eq!(reason["checked"], true, "{read}");
}
