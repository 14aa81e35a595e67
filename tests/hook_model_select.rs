//! `agent-hooks hook --agent claude` on Claude Code's model switch events
//! (`PreModelSwitch`, `PostModelSwitch`): a declarative block, a model the
//! hooks choose instead (which Claude Code cannot take from a hook: a deny
//! naming it), a `protocol: claude` script's deny, and context after a
//! switch; every answer one Claude Code accepts for its event
//! (`tests/schemas/claude/`). And `agent-hooks test` on the same config.

use serde_json::{Value, json};

#[path = "common/cli.rs"]
mod cli;

const CONFIG: &str = "tests/configs/agent/model-select.yaml";

fn payload(event: &str, extra: Value) -> Vec<u8> {
    let mut v = json!({"session_id": "s", "transcript_path": "/t", "cwd": "/p",
        "permission_mode": "default", "hook_event_name": event});
    let object = v.as_object_mut().expect("object");
    object.extend(extra.as_object().expect("object").clone());
    serde_json::to_vec(&v).expect("JSON")
}

/// The answer to a PreModelSwitch from `from` to `to` with `extra` fields,
/// checked against Claude Code's PreModelSwitch output schema.
fn pre(from: &str, to: &str, extra: Value) -> Value {
    let mut fields = json!({"from_model": from, "to_model": to});
    fields
        .as_object_mut()
        .expect("object")
        .extend(extra.as_object().expect("object").clone());
    let got = cli::hook_answer("claude", &[CONFIG], &payload("PreModelSwitch", fields));
    let schema = cli::output_schema("claude", "PreModelSwitch").expect("schema");
    cli::assert_valid(&schema, &got, to);
    got
}

fn deny(reason: &str) -> Value {
    json!({"hookSpecificOutput": {"hookEventName": "PreModelSwitch",
        "permissionDecision": "deny", "permissionDecisionReason": reason}})
}

#[test]
fn pre_model_switch_is_allowed_blocked_or_denied_as_the_config_says() {
    let haiku = "claude-haiku-4-5";
    // Nothing objects: `{}`, Claude Code switches.
    assert_eq!(
        pre(haiku, "claude-opus-4-1", json!({"source": "user"})),
        json!({})
    );
    // The declarative gate on the selection (`/to`, `/source`).
    assert_eq!(
        pre(haiku, "claude-opus-4-1", json!({"source": "sdk"})),
        deny("opus is for interactive sessions")
    );
    // The hooks chose another model: Claude Code takes none from a hook,
    // so the switch to the one asked for is denied, naming the choice.
    let got = pre(haiku, "claude-sonnet-4-5[1m]", json!({"source": "user"}));
    let reason = got["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .expect("a reason");
    assert_eq!(got["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(
        reason.contains("`claude-sonnet-4-5` instead of `claude-sonnet-4-5[1m]`"),
        "{reason}"
    );
    // A Claude Code script reading PreModelSwitch's cache estimate denies.
    assert_eq!(
        pre(
            haiku,
            "claude-sonnet-4-5",
            json!({"source": "user", "prompt_cache_warm": true, "context_tokens": 90000})
        ),
        deny("the prompt cache is warm: switch later")
    );
}

#[test]
fn post_model_switch_context_reaches_the_model() {
    let got = cli::hook_answer(
        "claude",
        &[CONFIG],
        &payload(
            "PostModelSwitch",
            json!({"from_model": "claude-haiku-4-5", "to_model": "claude-opus-4-1", "source": "fallback"}),
        ),
    );
    let schema = cli::output_schema("claude", "PostModelSwitch").expect("schema");
    cli::assert_valid(&schema, &got, "PostModelSwitch");
    assert_eq!(
        got,
        json!({"hookSpecificOutput": {"hookEventName": "PostModelSwitch",
            "additionalContext": "the model changed: re-read the plan"}})
    );
}

#[test]
fn a_bad_pre_model_switch_input_fails_closed() {
    // `to_model` missing: the event cannot be read, the switch is denied.
    let got = cli::hook_answer(
        "claude",
        &[CONFIG],
        &payload("PreModelSwitch", json!({"from_model": "claude-haiku-4-5"})),
    );
    assert_eq!(
        got["hookSpecificOutput"]["permissionDecision"], "deny",
        "{got}"
    );
}

#[test]
fn agent_hooks_test_prints_the_selected_model() {
    let config =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(CONFIG))
            .expect("config");
    let dir = cli::workspace(&config);
    let event = json!({"phase": "before_model_select",
        "selection": {"from": "claude-haiku-4-5", "to": "claude-sonnet-4-5[1m]", "source": "user"}});
    let report = cli::test_event(dir.path(), &event);
    assert_eq!(report["verdict"]["decision"], "select", "{report}");
    assert_eq!(report["outcome"]["model"], "claude-sonnet-4-5", "{report}");
}
