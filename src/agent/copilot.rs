//! The engine for GitHub Copilot: the Copilot CLI and cloud agent
//! (`.github/hooks/*.json`, Copilot CLI hooks reference) and VS Code's
//! agent hooks (VS Code hooks reference). A Copilot payload is read as the
//! Claude Code payload it corresponds to, and the [Claude Code
//! answer](super::claude) is written back in the format the payload came
//! in. One table, [`EVENTS`] (the runtime's, which `protocol: copilot`
//! scripts are given payloads by), names the correspondence both ways.
//!
//! # Two formats
//!
//! - **The CLI format**: the event configured under its camelCase name
//!   (`preToolUse`); fields in camelCase (`sessionId`, `toolName`,
//!   `toolArgs`, `toolResult`), and *no event name in the payload*, so the
//!   command names it: `hook --agent copilot --event preToolUse` (`init`
//!   writes it; a server takes `?event=preToolUse`). Answered in the CLI's
//!   flat fields (below).
//! - **The VS Code format**: the event under its PascalCase name
//!   (`PreToolUse`), named in the payload (VS Code's `hookEventName` and
//!   `sessionId`, or the Copilot CLI's VS Code-compatible
//!   `hook_event_name` and `session_id`), tool fields in snake_case as in
//!   Claude Code (`tool_result: {result_type, text_result_for_llm}` for a
//!   result). Answered exactly as Claude Code is: VS Code reads Claude
//!   Code's output fields.
//!
//! A payload that names its event is read by that name whatever `--event`
//! says; it is in the CLI format when the name is a camelCase one, or it
//! is the CLI's `notification` (`hook_event_name: "Notification"` beside
//! `sessionId`).
//!
//! # The CLI format's answers
//!
//! | event | what the answer can do |
//! | --- | --- |
//! | `preToolUse` | `permissionDecision: "deny"` or `"ask"` + `permissionDecisionReason`; rewritten arguments as `modifiedArgs` (no `allow`: the user's own permission flow still runs) |
//! | `permissionRequest` | `behavior: "allow"` / `"deny"` + `message`; `interrupt: true` when the run must end; rewritten arguments cannot be given there: a deny naming them |
//! | `agentStop`, `subagentStop` | `decision: "block"` + `reason`: keep working |
//! | `postToolUseFailure`, `subagentStart`, `notification` | `additionalContext` |
//! | every other event | nothing (the CLI processes no output there) |
//!
//! What the format cannot carry (a result rewrite, a prompt block, context
//! elsewhere, `continue: false` outside the gates, the hooks' diagnostics)
//! is said on stderr (the CLI logs a hook's stderr), never dropped silently.
//! A tool's arguments given as a JSON string (the cloud agent's
//! `toolArgs`) are read as the JSON they hold. `errorOccurred` is read as
//! a failed session end (`run_error`).

use serde_json::{Map, Value, json};

use super::{Answer, Decision, ReadError, Request, claude};
use hooks_runtime::Decided;

pub use hooks_runtime::copilot_cli::EVENTS;

/// The Claude Code payload `payload` is read as, and the agent's own
/// name of its event ([`hooks_runtime::copilot_cli::to_claude_payload`],
/// the table `protocol: copilot` scripts are given payloads by).
///
/// # Errors
///
/// [`ReadError::NoEvent`] when neither the payload nor `event` names the
/// event; [`ReadError::Payload`] for a payload that is no object or an
/// event not in [`EVENTS`].
pub fn to_claude(payload: &Value, event: Option<&str>) -> Result<(Value, String), ReadError> {
    hooks_runtime::copilot_cli::to_claude_payload(payload, event).map_err(|e| match e {
        hooks_runtime::claude_code::PayloadError::NoEventName => ReadError::NoEvent,
        other => ReadError::Payload(other),
    })
}

/// Whether `agent_event` (a [`Request::agent_event`]) is in the CLI
/// format: the CLI's names are camelCase.
fn is_cli(agent_event: &str) -> bool {
    agent_event.starts_with(|c: char| c.is_ascii_lowercase())
}

/// The answer to `request` (read from a Copilot payload) for `decided`:
/// Claude Code's for the VS Code-compatible format, the CLI's flat fields
/// for the CLI format (see the module table).
pub fn answer(request: &Request, decided: &Decided<Decision<'_>>) -> Answer {
    let answer = claude::answer(request, decided);
    if is_cli(&request.agent_event) {
        to_cli(&request.event_name, answer)
    } else {
        named(answer, &request.agent_event)
    }
}

/// A Claude Code answer whose `hookSpecificOutput` names `event`, the
/// input's own event (a `PostToolUse` read as a failure, an
/// `ErrorOccurred` read as a session end).
fn named(mut answer: Answer, event: &str) -> Answer {
    if let Some(specific) = answer
        .json
        .get_mut("hookSpecificOutput")
        .and_then(Value::as_object_mut)
        && specific.get("hookEventName").and_then(Value::as_str) != Some(event)
    {
        specific.insert("hookEventName".into(), event.into());
        answer = Answer::json(answer.json);
    }
    answer
}

/// The answer when no decision could be made for `payload`: Claude Code's
/// fail-closed answer to the payload it is read as, in the payload's
/// format. A payload whose event is not named, or unknown (a misspelled
/// `--event`), gets a deny of both gates when it carries a tool call (the
/// fail-closed choice); otherwise `{}` (unknown) or a blocking error (not
/// named), the reason on stderr.
pub fn error_answer(payload: &[u8], event: Option<&str>, error: &dyn std::fmt::Display) -> Answer {
    let text = payload.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(payload);
    let value: Option<Value> = serde_json::from_slice(text).ok();
    let read = value.as_ref().map(|v| to_claude(v, event));
    match read {
        Some(Ok((claude_payload, name))) => {
            let bytes = serde_json::to_vec(&claude_payload).unwrap_or_default();
            let answer = claude::error_answer(&bytes, error);
            let claude_name = claude_payload["hook_event_name"]
                .as_str()
                .unwrap_or_default();
            if is_cli(&name) {
                to_cli(claude_name, answer)
            } else {
                named(answer, &name)
            }
        }
        read => {
            let calls_tool = value
                .as_ref()
                .is_some_and(|v| v.get("toolName").is_some() || v.get("tool_name").is_some());
            let unknown = matches!(
                read,
                Some(Err(ReadError::Payload(
                    hooks_runtime::claude_code::PayloadError::UnknownEvent(_)
                )))
            );
            if unknown && !calls_tool {
                // No phase, nothing gated: said where the agent logs it.
                let mut answer = Answer::json(json!({}));
                answer.stderr = super::redact(&format!("agent-hooks: {error}: nothing decided"));
                return answer;
            }
            if !calls_tool {
                return Answer::blocking_error(&format!("agent-hooks: {error}"));
            }
            let message = super::redact(&format!("agent-hooks could not decide: {error}"));
            let mut answer = Answer::json(json!({
                "permissionDecision": "deny",
                "permissionDecisionReason": message,
                "behavior": "deny",
                "message": message,
            }));
            answer.stderr = message;
            answer
        }
    }
}

/// `answer` (Claude Code's, to `claude_event`) in the Copilot CLI's flat
/// output fields; what they cannot carry goes to stderr.
fn to_cli(claude_event: &str, answer: Answer) -> Answer {
    if answer.exit_code != 0 {
        return answer;
    }
    let Value::Object(mut top) = answer.json else {
        return answer;
    };
    let mut specific = match top.remove("hookSpecificOutput") {
        Some(Value::Object(specific)) => specific,
        _ => Map::new(),
    };
    specific.remove("hookEventName");
    let mut out = Map::new();
    let mut notes: Vec<String> = Vec::new();
    if let Some(Value::String(message)) = top.remove("systemMessage") {
        notes.push(message);
    }
    let terminate = top.remove("continue") == Some(Value::Bool(false));
    let stop_reason = top.remove("stopReason");
    let mut context = specific.remove("additionalContext");
    match claude_event {
        "PreToolUse" => {
            if let Some(decision @ ("deny" | "ask")) =
                specific.get("permissionDecision").and_then(Value::as_str)
            {
                out.insert("permissionDecision".into(), decision.into());
                let reason = specific
                    .remove("permissionDecisionReason")
                    .unwrap_or_else(|| "denied by agent-hooks".into());
                out.insert("permissionDecisionReason".into(), reason);
            }
            if let Some(args) = specific.remove("updatedInput") {
                out.insert("modifiedArgs".into(), args);
            }
            if context.take().is_some() {
                notes.push("context for the model dropped: the Copilot CLI takes no additionalContext on preToolUse".to_owned());
            }
        }
        "PermissionRequest" => {
            if let Some(Value::Object(mut decision)) = specific.remove("decision") {
                if let Some(args) = decision.remove("updatedInput") {
                    decision.insert("behavior".into(), "deny".into());
                    decision.insert(
                        "message".into(),
                        super::redact(&format!(
                            "the hooks allow this call only with rewritten arguments, which the Copilot CLI cannot apply here; call the tool again with these arguments: {args}"
                        ))
                        .into(),
                    );
                }
                out.extend(decision);
            }
        }
        "Stop" | "SubagentStop" => {
            for key in ["decision", "reason"] {
                if let Some(value) = top.remove(key) {
                    out.insert(key.into(), value);
                }
            }
        }
        "PostToolUseFailure" | "SubagentStart" | "Notification" => {
            if let Some(text) = context.take() {
                out.insert("additionalContext".into(), text);
            }
        }
        _ => {}
    }
    if let Some(text) = context {
        notes.push(format!(
            "context for the model dropped: the Copilot CLI takes no additionalContext here: {}",
            text.as_str().unwrap_or_default()
        ));
    }
    if top.get("decision").is_some() {
        notes.push(format!(
            "the hooks' block is not applied: the Copilot CLI does not block on this event: {}",
            top.get("reason")
                .and_then(Value::as_str)
                .unwrap_or_default()
        ));
    }
    for key in ["updatedToolOutput", "updatedMCPToolOutput"] {
        if specific.contains_key(key) {
            notes.push("the hooks' rewritten result is not applied: the Copilot CLI takes no result rewrite from a command hook".to_owned());
        }
    }
    if terminate && !matches!(claude_event, "PreToolUse" | "PermissionRequest") {
        notes.push(format!(
            "the hooks ended the run, which the Copilot CLI cannot do from this event: {}",
            stop_reason
                .as_ref()
                .and_then(Value::as_str)
                .unwrap_or_default()
        ));
    }
    let mut answer = Answer::json(Value::Object(out));
    if !notes.is_empty() {
        answer.stderr = super::redact(&notes.join("\n"));
    }
    answer
}
