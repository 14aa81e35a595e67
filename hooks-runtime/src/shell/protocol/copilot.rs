//! `protocol: copilot`: the GitHub Copilot CLI's hook protocol in its
//! camelCase format (Copilot CLI hooks reference), so hook scripts written
//! for the Copilot CLI run unmodified. Like [`super::gemini`] it is Claude
//! Code's protocol under another agent's names: one table, [`EVENTS`],
//! pairs each Copilot event (its CLI camelCase name and its VS
//! Code-compatible PascalCase one) with the Claude Code event it
//! corresponds to, and the hook engine reads a Copilot payload through the
//! same table ([`to_claude_payload`]). Scripts configured under the
//! PascalCase names read Claude Code's payload: they are `protocol:
//! claude` scripts.
//!
//! # Stdin
//!
//! Claude Code's input object with camelCase keys (`sessionId`, `cwd`,
//! `transcriptPath`, `toolName`, `toolArgs`, `customInstructions`, ...),
//! no event name (the CLI names the event by the key it is configured
//! under; `notification` keeps `hook_event_name: "Notification"` as the
//! CLI sends it), `timestamp` in Unix milliseconds, a tool's result as
//! `toolResult: {resultType: "success", textResultForLlm}`, a failed
//! tool's message as `error`, `agentName` for the agent type, and a
//! failed run (`run_error`) as `errorOccurred`'s `error: {message, name}`.
//!
//! # Stdout and exit code
//!
//! | Copilot CLI output | read as |
//! | --- | --- |
//! | `permissionDecision` + `permissionDecisionReason` (`preToolUse`) | the same in `hookSpecificOutput` |
//! | `modifiedArgs` (`preToolUse`) | `updatedInput` (with `permissionDecision: "allow"` unless denied or asked) |
//! | `behavior`, `message`, `interrupt` (`permissionRequest`) | `hookSpecificOutput.decision` |
//! | `decision: "block"` + `reason` (`agentStop`, `subagentStop`) | the same |
//! | `additionalContext` | `hookSpecificOutput.additionalContext` |
//!
//! Exit codes are the CLI's: a nonzero exit is a failure the hook's
//! failure policy handles (the CLI logs it and goes on: `warn`), except
//! exit 2 on `permissionRequest` (a deny, the stdout JSON's `message`
//! else stderr as the reason) and on `postToolUseFailure` (stderr is
//! recovery guidance: context).

use serde_json::{Map, Value};

use super::claude::{self, PayloadError};
use super::{ProtocolDecision, ProtocolFailure, frame_json, nonzero_exit};
use crate::{Captured, ContextItem, Flow, HookContext, StepEvent};

/// Copilot's events: the CLI's camelCase name, the VS Code-compatible
/// PascalCase name (where there is one), and the Claude Code event both
/// are read as: the one table the hook engine (`hook --agent copilot`),
/// `protocol: copilot`, `init --agent copilot` and `import copilot` read.
pub const EVENTS: [(&str, Option<&str>, &str); 13] = [
    ("sessionStart", Some("SessionStart"), "SessionStart"),
    ("sessionEnd", Some("SessionEnd"), "SessionEnd"),
    (
        "userPromptSubmitted",
        Some("UserPromptSubmit"),
        "UserPromptSubmit",
    ),
    ("preToolUse", Some("PreToolUse"), "PreToolUse"),
    ("permissionRequest", None, "PermissionRequest"),
    ("postToolUse", Some("PostToolUse"), "PostToolUse"),
    (
        "postToolUseFailure",
        Some("PostToolUseFailure"),
        "PostToolUseFailure",
    ),
    ("agentStop", Some("Stop"), "Stop"),
    ("subagentStart", Some("SubagentStart"), "SubagentStart"),
    ("subagentStop", Some("SubagentStop"), "SubagentStop"),
    ("errorOccurred", Some("ErrorOccurred"), "SessionEnd"),
    ("preCompact", Some("PreCompact"), "PreCompact"),
    ("notification", Some("Notification"), "Notification"),
];

/// `key` in snake_case (`toolArgs` → `tool_args`).
fn snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `key` in camelCase (`tool_args` → `toolArgs`).
fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                out.push(c.to_ascii_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}

/// The Claude Code payload a Copilot payload corresponds to, and the
/// event's name as the payload (or `event`, the caller's name for a CLI
/// payload, which names none) gave it: camelCase for the CLI format (a
/// camelCase name, or the CLI's `notification`: `hook_event_name` beside
/// `sessionId`), PascalCase for the VS Code format (VS Code's
/// `hookEventName` + `sessionId`, or `hook_event_name` + `session_id`). A
/// payload's own name wins over `event`.
///
/// # Errors
///
/// [`PayloadError::NotAnObject`]; [`PayloadError::NoEventName`] when
/// neither the payload nor `event` names the event;
/// [`PayloadError::UnknownEvent`] for a name not in [`EVENTS`].
pub fn to_claude_payload(
    payload: &Value,
    event: Option<&str>,
) -> Result<(Value, String), PayloadError> {
    let map = payload.as_object().ok_or(PayloadError::NotAnObject)?;
    let named = ["hook_event_name", "hookEventName"]
        .iter()
        .find_map(|k| map.get(*k).and_then(Value::as_str));
    let name = named.or(event).ok_or(PayloadError::NoEventName)?;
    let (camel_name, _, claude_name) = EVENTS
        .iter()
        .find(|(camel, pascal, _)| *camel == name || *pascal == Some(name))
        .ok_or_else(|| PayloadError::UnknownEvent(name.to_owned()))?;
    // The CLI's own names are camelCase; its `notification` names itself
    // `hook_event_name: "Notification"` beside `sessionId`. VS Code's
    // payloads name themselves `hookEventName` (or `hook_event_name` with
    // `session_id`, the CLI's VS Code-compatible mode).
    let cli = *camel_name == name
        || (map.contains_key("hook_event_name") && map.contains_key("sessionId"));
    let mut out = Map::new();
    for (key, value) in map {
        let key = snake(key);
        let key = match key.as_str() {
            "tool_args" => "tool_input",
            "tool_result" => "tool_response",
            "agent_name" => "agent_type",
            _ => &key,
        };
        out.insert(key.to_owned(), value.clone());
    }
    // The cloud agent sends `toolArgs` as a JSON string.
    if let Some(Value::String(text)) = out.get("tool_input")
        && let Ok(args) = serde_json::from_str::<Value>(text)
    {
        out.insert("tool_input".into(), args);
    }
    let mut claude = *claude_name;
    if claude == "PostToolUse" {
        let result = out.get("tool_response");
        let kind = result
            .and_then(|r| r.get("resultType").or_else(|| r.get("result_type")))
            .and_then(Value::as_str);
        if matches!(kind, Some("failure" | "denied" | "error")) {
            let text = result
                .and_then(|r| {
                    r.get("textResultForLlm")
                        .or_else(|| r.get("text_result_for_llm"))
                })
                .and_then(Value::as_str)
                .unwrap_or("the tool failed")
                .to_owned();
            claude = "PostToolUseFailure";
            out.insert("error".into(), text.into());
        }
    }
    if *camel_name == "errorOccurred" {
        let message = match out.get("error") {
            Some(Value::String(text)) => text.clone(),
            Some(error) => error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned),
            None => String::new(),
        };
        out.insert("error".into(), message.into());
        out.insert("reason".into(), "error".into());
    }
    out.insert("hook_event_name".into(), claude.into());
    let name = if cli { *camel_name } else { name };
    Ok((Value::Object(out), name.to_owned()))
}

/// The Copilot CLI's stdin object for `event` (see the module docs).
pub(crate) fn stdin_payload(
    event: &StepEvent<'_>,
    ctx: &HookContext,
    cwd: &str,
    args: Option<&Value>,
    result: Option<&Value>,
) -> Value {
    let claude_payload = claude::stdin_payload(event, ctx, cwd, args, result);
    let Value::Object(map) = claude_payload else {
        return claude_payload;
    };
    let claude_name = claude::hook_event_name(event);
    let mut out = Map::new();
    for (key, value) in map {
        let key = match key.as_str() {
            // Named by the key the hook is configured under.
            "hook_event_name" if claude_name != "Notification" => continue,
            "hook_event_name" | "notification_type" => key,
            "permission_mode" | "stop_hook_active" | "loop_count" | "is_interrupt" => continue,
            "tool_input" => "toolArgs".to_owned(),
            "tool_response" => "toolResult".to_owned(),
            "agent_type" => "agentName".to_owned(),
            other => camel(other),
        };
        out.insert(key, value);
    }
    if let Some(result) = out.remove("toolResult") {
        let text = match result {
            Value::String(text) => text,
            other => other.to_string(),
        };
        let mut wrapped = Map::new();
        wrapped.insert("resultType".into(), "success".into());
        wrapped.insert("textResultForLlm".into(), text.into());
        out.insert("toolResult".into(), Value::Object(wrapped));
    }
    if matches!(claude_name, "Stop" | "SubagentStop") {
        out.insert("stopReason".into(), "end_turn".into());
    }
    if let StepEvent::RunError { error } = event {
        out.remove("reason");
        let mut wrapped = Map::new();
        wrapped.insert("message".into(), (*error).into());
        wrapped.insert("name".into(), "Error".into());
        out.insert("error".into(), Value::Object(wrapped));
        out.insert("errorContext".into(), "system".into());
        out.insert("recoverable".into(), false.into());
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    out.insert("timestamp".into(), now.into());
    Value::Object(out)
}

/// Parses a Copilot CLI hook's exit code and output for `event` (see the
/// module docs).
///
/// # Errors
///
/// [`ProtocolFailure`]: `nonzero_exit` for an exit the CLI does not read,
/// else as [`claude::parse`].
pub(crate) fn parse(
    event: &StepEvent<'_>,
    exit_code: i32,
    stdout: &Captured,
    stderr: &Captured,
    hook_id: &str,
) -> Result<ProtocolDecision, ProtocolFailure> {
    let claude_name = claude::hook_event_name(event);
    match (exit_code, claude_name) {
        (0, _) => read_output(event, stdout, hook_id),
        (2, "PermissionRequest") => {
            let message = frame_json(&stdout.bytes)
                .ok()
                .flatten()
                .and_then(|out| {
                    out.get("message")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .unwrap_or_else(|| super::captured_text(stderr));
            Ok(ProtocolDecision::flow(Flow::skip(message)))
        }
        (2, "PostToolUseFailure") => {
            let text = super::captured_text(stderr);
            Ok(ProtocolDecision::default()
                .with_context(event.kind(), vec![ContextItem::user(text)]))
        }
        (code, _) => Err(nonzero_exit(code, stderr)),
    }
}

/// Reads a Copilot CLI hook's output document for `event` (stdout after
/// exit 0, an `http` hook's body): its fields read as the Claude Code
/// output they correspond to (module table).
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
/// Code output it corresponds to on `event` (the module table).
fn as_claude_output(event: &StepEvent<'_>, stdout: &Captured) -> Captured {
    claude::rewritten_output(event, stdout, |mut copilot| {
        let mut out = Map::new();
        let mut specific = Map::new();
        let take = |from: &mut Map<String, Value>, to: &mut Map<String, Value>, key: &str| {
            if let Some(value) = from.remove(key) {
                to.insert(key.into(), value);
            }
        };
        match claude::hook_event_name(event) {
            "PreToolUse" => {
                take(&mut copilot, &mut specific, "permissionDecision");
                take(&mut copilot, &mut specific, "permissionDecisionReason");
                if let Some(args) = copilot.remove("modifiedArgs") {
                    specific
                        .entry("permissionDecision")
                        .or_insert_with(|| "allow".into());
                    specific.insert("updatedInput".into(), args);
                }
            }
            "PermissionRequest" => {
                let mut decision = Map::new();
                for key in ["behavior", "message", "interrupt"] {
                    take(&mut copilot, &mut decision, key);
                }
                if !decision.is_empty() {
                    specific.insert("decision".into(), Value::Object(decision));
                }
            }
            "Stop" | "SubagentStop" => {
                take(&mut copilot, &mut out, "decision");
                take(&mut copilot, &mut out, "reason");
            }
            _ => {}
        }
        take(&mut copilot, &mut specific, "additionalContext");
        // What the CLI would not read either is left for Claude Code's
        // reader to note as unknown.
        out.extend(copilot);
        (out, specific)
    })
}
