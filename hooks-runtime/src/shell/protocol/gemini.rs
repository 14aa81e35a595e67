//! `protocol: gemini`: Gemini CLI's hook protocol (Gemini CLI hooks
//! reference), so hook scripts written for Gemini CLI run unmodified. It
//! is Claude Code's protocol ([`super::claude`]) under Gemini CLI's names:
//! one table, [`EVENTS`], pairs each Gemini CLI event with the Claude
//! Code event it corresponds to, and the few fields that differ are
//! renamed in both directions here. The hook engine reads a Gemini CLI
//! payload through the same table ([`to_claude_payload`]).
//!
//! # Stdin
//!
//! Claude Code's input object for the event, with Gemini CLI's event name
//! and fields:
//!
//! | phase | `hook_event_name` | fields that differ from Claude Code's |
//! | --- | --- | --- |
//! | `before_tool` | `BeforeTool` | |
//! | `after_tool` | `AfterTool` | a failed tool: `tool_response: {error}` (no `error` field) |
//! | `user_prompt` | `BeforeAgent` | |
//! | `stop` | `AfterAgent` | `prompt_response` (the last assistant message) |
//! | `run_start`, `run_end`, `notification` | `SessionStart`, `SessionEnd`, `Notification` | |
//! | `before_compaction` | `PreCompress` | |
//! | others | Claude Code's name (Gemini CLI has no such event) | |
//!
//! `GEMINI_PROJECT_DIR` and its alias `CLAUDE_PROJECT_DIR` are set to the
//! workspace root, as Gemini CLI sets them.
//!
//! # Stdout and exit code
//!
//! Exit codes and framing are Claude Code's (exit 2: a deny with stderr as
//! the reason). A JSON object is read as the Claude Code output it
//! corresponds to:
//!
//! | Gemini CLI output | read as |
//! | --- | --- |
//! | `decision: "deny"` or `"block"` + `reason`, on `BeforeTool` | `permissionDecision: "deny"` + `permissionDecisionReason` |
//! | `decision: "ask"` on `BeforeTool` | `permissionDecision: "ask"` |
//! | `decision: "deny"` or `"block"` elsewhere | `decision: "block"` + `reason` (`BeforeAgent`: the prompt is dropped; `AfterAgent`: keep working) |
//! | `decision: "allow"` | nothing (the call goes on) |
//! | `hookSpecificOutput.tool_input` on `BeforeTool` | merged over the call's arguments: `updatedInput` with `permissionDecision: "allow"` (unless denied) |
//! | `hookSpecificOutput.tool_output` on `AfterTool` | `updatedToolOutput` (the tool's result becomes that text) |
//! | `hookSpecificOutput.additionalContext`, `continue`, `stopReason`, `systemMessage`, `suppressOutput` | the same |

use serde_json::{Map, Value};

use super::claude;
use super::{ProtocolDecision, ProtocolFailure, frame_json};
use crate::{Captured, HookContext, StepEvent};

/// Gemini CLI's events and the Claude Code events they correspond to: the
/// one table the hook engine (`hook --agent gemini`), `protocol: gemini`
/// and `agent-hooks init --agent gemini` read.
pub const EVENTS: [(&str, &str); 8] = [
    ("BeforeTool", "PreToolUse"),
    ("AfterTool", "PostToolUse"),
    ("BeforeAgent", "UserPromptSubmit"),
    ("AfterAgent", "Stop"),
    ("SessionStart", "SessionStart"),
    ("SessionEnd", "SessionEnd"),
    ("Notification", "Notification"),
    ("PreCompress", "PreCompact"),
];

/// The Claude Code payload a Gemini CLI payload corresponds to, or `None`
/// for an event not in [`EVENTS`] (no name, or one without a phase here:
/// answered with no decision). Gemini CLI's fields that Claude Code names
/// otherwise are renamed; the rest pass as they are.
pub fn to_claude_payload(payload: &Value) -> Option<Value> {
    let mut map = payload.as_object()?.clone();
    let name = map.get("hook_event_name").and_then(Value::as_str)?;
    let (_, claude) = EVENTS.iter().find(|(gemini, _)| *gemini == name)?;
    let mut claude = (*claude).to_owned();
    match name {
        "AfterTool" => {
            let error = map
                .get("tool_response")
                .and_then(|r| r.get("error"))
                .filter(|e| !e.is_null())
                .cloned();
            if let Some(error) = error {
                claude = "PostToolUseFailure".to_owned();
                let text = match error {
                    Value::String(text) => text,
                    other => other.to_string(),
                };
                map.insert("error".into(), text.into());
            }
        }
        "AfterAgent" => {
            if let Some(text) = map.remove("prompt_response") {
                map.insert("last_assistant_message".into(), text);
            }
        }
        // Gemini CLI documents `source`; some builds send `trigger`.
        "SessionStart" => {
            if let Some(trigger) = map.remove("trigger") {
                map.entry("source").or_insert(trigger);
            }
        }
        _ => {}
    }
    map.insert("hook_event_name".into(), claude.into());
    Some(Value::Object(map))
}

/// Gemini CLI's stdin object for `event` (see the module table): Claude
/// Code's, renamed.
pub(crate) fn stdin_payload(
    event: &StepEvent<'_>,
    ctx: &HookContext,
    cwd: &str,
    args: Option<&Value>,
    result: Option<&Value>,
) -> Value {
    let mut payload = claude::stdin_payload(event, ctx, cwd, args, result);
    let Some(map) = payload.as_object_mut() else {
        return payload;
    };
    let claude_name = claude::hook_event_name(event);
    if claude_name == "PostToolUseFailure" {
        map.remove("is_interrupt");
        let error = map.remove("error").unwrap_or_default();
        let mut response = Map::new();
        response.insert("error".into(), error);
        map.insert("tool_response".into(), Value::Object(response));
    }
    if let Some(text) = map.remove("last_assistant_message") {
        map.insert("prompt_response".into(), text);
    }
    let lookup = match claude_name {
        "PostToolUseFailure" => "PostToolUse",
        other => other,
    };
    if let Some((gemini, _)) = EVENTS.iter().find(|(_, claude)| *claude == lookup) {
        map.insert("hook_event_name".into(), (*gemini).into());
    }
    payload
}

/// Parses a Gemini CLI hook's exit code and output for `event`: its JSON
/// read as the Claude Code output it corresponds to (module table), then
/// as [`claude::parse`] reads that.
///
/// # Errors
///
/// As [`claude::parse`].
pub(crate) fn parse(
    event: &StepEvent<'_>,
    exit_code: i32,
    stdout: &Captured,
    stderr: &Captured,
    hook_id: &str,
) -> Result<ProtocolDecision, ProtocolFailure> {
    let stdout = as_claude_output(event, stdout);
    claude::parse(event, exit_code, &stdout, stderr, hook_id)
}

/// Reads a Gemini CLI hook's output document for `event` (an `http`
/// hook's body), as [`parse`] reads stdout after exit 0.
///
/// # Errors
///
/// As [`claude::read_output`].
pub(crate) fn read_output(
    event: &StepEvent<'_>,
    body: &Captured,
    hook_id: &str,
) -> Result<ProtocolDecision, ProtocolFailure> {
    claude::read_output(event, &as_claude_output(event, body), hook_id)
}

/// `stdout` with its JSON object (if it is one) rewritten into the Claude
/// Code output it corresponds to on `event`; anything else as it is.
fn as_claude_output(event: &StepEvent<'_>, stdout: &Captured) -> Captured {
    if stdout.truncated {
        return stdout.clone();
    }
    let Ok(Some(mut gemini)) = frame_json(&stdout.bytes) else {
        return stdout.clone();
    };
    let claude_event = claude::hook_event_name(event);
    let mut specific = match gemini.remove("hookSpecificOutput") {
        Some(Value::Object(specific)) => specific,
        _ => Map::new(),
    };
    let mut out = Map::new();
    for key in ["continue", "stopReason", "systemMessage", "suppressOutput"] {
        if let Some(value) = gemini.remove(key) {
            out.insert(key.into(), value);
        }
    }
    let mut claude_specific = Map::new();
    let decision = gemini.remove("decision");
    let reason = gemini.remove("reason");
    match (claude_event, decision.as_ref().and_then(Value::as_str)) {
        ("PreToolUse", Some("deny" | "block")) => {
            claude_specific.insert("permissionDecision".into(), "deny".into());
            if let Some(reason) = reason {
                claude_specific.insert("permissionDecisionReason".into(), reason);
            }
        }
        ("PreToolUse", Some("ask")) => {
            claude_specific.insert("permissionDecision".into(), "ask".into());
            if let Some(reason) = reason {
                claude_specific.insert("permissionDecisionReason".into(), reason);
            }
        }
        (_, Some("deny" | "block")) => {
            out.insert("decision".into(), "block".into());
            if let Some(reason) = reason {
                out.insert("reason".into(), reason);
            }
        }
        _ => {}
    }
    if let (StepEvent::BeforeTool { args, .. }, Some(Value::Object(merge))) =
        (event, specific.remove("tool_input"))
    {
        let mut merged = match args {
            Value::Object(map) => map.clone(),
            _ => Map::new(),
        };
        merged.extend(merge);
        claude_specific
            .entry("permissionDecision")
            .or_insert_with(|| "allow".into());
        claude_specific.insert("updatedInput".into(), Value::Object(merged));
    }
    if let Some(output) = specific.remove("tool_output")
        && matches!(claude_event, "PostToolUse" | "PostToolUseFailure")
    {
        claude_specific.insert("updatedToolOutput".into(), output);
    }
    if let Some(context) = specific.remove("additionalContext") {
        claude_specific.insert("additionalContext".into(), context);
    }
    // What Gemini CLI would not read either is left for Claude Code's
    // reader to note as unknown.
    out.extend(gemini);
    claude_specific.extend(specific);
    if !claude_specific.is_empty() {
        claude_specific.insert("hookEventName".into(), claude_event.into());
        out.insert("hookSpecificOutput".into(), Value::Object(claude_specific));
    }
    let bytes = serde_json::to_vec(&Value::Object(out)).unwrap_or_default();
    Captured {
        total_len: bytes.len() as u64,
        bytes,
        truncated: false,
    }
}
