//! The engine's answers to OpenAI Codex: Codex reads Claude Code's hook
//! wire format (the same input fields plus `model` and `turn_id`, the same
//! output objects and exit codes; Codex's hooks reference), but enforces
//! less of it, and what it does not enforce fails open. So a Codex answer
//! is the [Claude Code answer](super::claude) with every field Codex would
//! ignore turned into one it enforces, or dropped with a note:
//!
//! | event | Claude Code answer | Codex answer |
//! | --- | --- | --- |
//! | `PreToolUse` | `permissionDecision: "ask"` | `deny`, the reason saying a person must approve (Codex does not ask on a hook's word) |
//! | | `allow` + `updatedInput` (arguments rewritten) | `deny`, the reason giving the rewritten arguments to call with instead (Codex does not apply `updatedInput`) |
//! | | `additionalContext` | dropped, with a note in `systemMessage` |
//! | `PermissionRequest` | `allow` + `updatedInput` | `deny`, the reason giving the rewritten arguments (Codex refuses `updatedInput` there) |
//! | | `interrupt` | dropped (the deny stays) |
//! | `PostToolUse` | `updatedToolOutput` / `updatedMCPToolOutput` (result rewritten) | `decision: "block"`, `reason`: the rewritten result (Codex replaces the tool's result with a blocking hook's reason) |
//! | every other event | as Claude Code | as Claude Code |
//!
//! `continue: false` is kept everywhere: Codex honours it on
//! `SessionStart`, `UserPromptSubmit`, `PostToolUse` and `Stop`; on
//! `PreToolUse` and `PermissionRequest` the deny beside it is what holds.
//! The reading side is Claude Code's
//! (`hooks_runtime::claude_code::read_payload`): Codex's tools arrive under
//! their own names (`Bash`, `apply_patch`, `mcp__server__tool`).

use serde_json::{Map, Value};

use super::{Answer, Decision, Request, claude};

/// Codex's hook events (OpenAI Codex hooks reference, `hooks.json`): all
/// Claude Code events under the same names, read through Claude Code's
/// table (`hooks_runtime::claude_code`); `agent-hooks init --agent codex`
/// routes each.
pub const EVENTS: [&str; 8] = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "Stop",
    "PreCompact",
    "PostCompact",
];
use hooks_runtime::Decided;

/// The answer to `request` for `decided`, in Codex's terms (see the
/// module table).
pub fn answer(request: &Request, decided: &Decided<Decision<'_>>) -> Answer {
    enforced(&request.event_name, claude::answer(request, decided))
}

/// `answer` with the fields Codex would not enforce on `event` replaced
/// by ones it does.
fn enforced(event: &str, answer: Answer) -> Answer {
    if answer.exit_code != 0 {
        return answer;
    }
    let Value::Object(mut top) = answer.json else {
        return answer;
    };
    let top = &mut top;
    let mut notes = Vec::new();
    match event {
        "PreToolUse" => pre_tool_use(top, &mut notes),
        "PermissionRequest" => permission_request(top),
        "PostToolUse" => post_tool_use(top),
        _ => {}
    }
    super::claude::add_messages(top, &notes);
    if top
        .get("hookSpecificOutput")
        .and_then(Value::as_object)
        .is_some_and(|specific| specific.len() == 1)
    {
        // Only `hookEventName` is left.
        top.remove("hookSpecificOutput");
    }
    Answer::json(Value::Object(std::mem::take(top)))
}

/// The `hookSpecificOutput` object of `top`, if any.
fn specific(top: &mut Map<String, Value>) -> Option<&mut Map<String, Value>> {
    top.get_mut("hookSpecificOutput")
        .and_then(Value::as_object_mut)
}

/// The deny reason for arguments the hooks rewrote.
fn rewritten_reason(args: &Value) -> String {
    format!(
        "the hooks allow this call only with rewritten arguments, which Codex cannot apply; call the tool again with these arguments: {args}"
    )
}

fn pre_tool_use(top: &mut Map<String, Value>, notes: &mut Vec<String>) {
    let Some(specific) = specific(top) else {
        return;
    };
    if specific.remove("additionalContext").is_some() {
        notes.push(
            "context for the model dropped: Codex applies no additionalContext on PreToolUse"
                .to_owned(),
        );
    }
    let reason = match specific.get("permissionDecision").and_then(Value::as_str) {
        Some("ask") => {
            let why = specific
                .get("permissionDecisionReason")
                .and_then(Value::as_str)
                .unwrap_or("the hooks ask for approval");
            Some(format!(
                "a person must approve this call, and Codex does not ask on a hook's word: {why}"
            ))
        }
        Some("allow") => specific.get("updatedInput").map(rewritten_reason),
        _ => None,
    };
    specific.remove("updatedInput");
    if let Some(reason) = reason {
        specific.insert("permissionDecision".into(), "deny".into());
        specific.insert(
            "permissionDecisionReason".into(),
            super::redact(&reason).into(),
        );
    }
}

fn permission_request(top: &mut Map<String, Value>) {
    let Some(decision) = specific(top)
        .and_then(|s| s.get_mut("decision"))
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    decision.remove("interrupt");
    if let Some(args) = decision.remove("updatedInput") {
        decision.insert("behavior".into(), "deny".into());
        decision.insert(
            "message".into(),
            super::redact(&rewritten_reason(&args)).into(),
        );
    }
}

fn post_tool_use(top: &mut Map<String, Value>) {
    let Some(specific) = specific(top) else {
        return;
    };
    let result = specific
        .remove("updatedToolOutput")
        .or_else(|| specific.remove("updatedMCPToolOutput"));
    if let Some(result) = result {
        let text = match result {
            Value::String(text) => text,
            other => other.to_string(),
        };
        top.insert("decision".into(), "block".into());
        top.insert("reason".into(), text.into());
    }
}
