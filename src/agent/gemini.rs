//! The engine for Gemini CLI (Gemini CLI's hooks reference): its payloads
//! are read as the Claude Code payloads they correspond to, and the
//! [Claude Code answer](super::claude) is written back in Gemini CLI's
//! output fields. One table, [`EVENTS`] (the runtime's, which `protocol:
//! gemini` scripts are given payloads by), names the correspondence both
//! ways; the fields that differ are renamed where the payload is read.
//!
//! | Gemini CLI event | read as | what the answer can do |
//! | --- | --- | --- |
//! | `BeforeTool` | `PreToolUse` | `decision: "deny"` + `reason` (sent to the model); rewritten arguments as `hookSpecificOutput.tool_input` (merged over the model's, so a rewrite that removes a key is a deny naming the arguments); an ask is a deny (Gemini CLI has no ask) |
//! | `AfterTool` | `PostToolUse` (`PostToolUseFailure` when `tool_response.error` is set) | a rewritten result as `hookSpecificOutput.tool_output` (its `llmContent` when it has one); `additionalContext` |
//! | `BeforeAgent` | `UserPromptSubmit` | `decision: "deny"` drops the prompt; `additionalContext` |
//! | `AfterAgent` | `Stop` (`prompt_response` as the last assistant message) | `decision: "deny"` + `reason`: keep working with the reason as the next prompt |
//! | `SessionStart` | `SessionStart` | `additionalContext` |
//! | `SessionEnd`, `Notification`, `PreCompress` | `SessionEnd`, `Notification`, `PreCompact` | `systemMessage` only (Gemini CLI ignores their flow control) |
//! | `BeforeModel` | `before_completion` (`llm_request` as the request) | the hooks' request patch as `hookSpecificOutput.llm_request` overrides ([`hooks_runtime::gemini_cli::llm_request_override`]); a terminate as `decision: "deny"` (the turn is aborted) |
//! | `BeforeToolSelection` | `before_completion` | the patch's `tool_choice` / `active_tools` as `hookSpecificOutput.toolConfig` (nothing else: Gemini CLI reads no other field there) |
//! | `AfterModel` | `after_completion` (`llm_response` as the response) | `continue: false` when a hook ends the run |
//!
//! `continue: false`, `stopReason` and `systemMessage` keep their names.
//! Tools arrive under Gemini CLI's names (`run_shell_command`,
//! `write_file`, `replace`, `read_file`, `mcp__server__tool`).

use serde_json::{Map, Value, json};

use super::{Answer, Decision, Request, claude};
use hooks_runtime::Decided;

pub use hooks_runtime::gemini_cli::EVENTS;

/// The answer to `request` (read from a Gemini CLI payload) for
/// `decided`, in Gemini CLI's output fields (see the module table).
pub fn answer(request: &Request, decided: &Decided<Decision<'_>>) -> Answer {
    if let Decision::Completion(decision) = &decided.decision {
        return model_answer(request, decision, decided);
    }
    let original = match &request.event {
        hooks_runtime::OwnedEvent::BeforeTool { args, .. } => Some(args),
        _ => None,
    };
    from_claude(
        &request.event_name,
        claude::answer(request, decided),
        original,
    )
}

/// The answer when no decision could be made for `payload` (a Gemini CLI
/// payload): Claude Code's fail-closed answer to the payload it is read
/// as, in Gemini CLI's fields; `{}` for an event not read yet.
pub fn error_answer(payload: &[u8], error: &dyn std::fmt::Display) -> Answer {
    let text = payload.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(payload);
    let value: Option<Value> = serde_json::from_slice(text).ok();
    let Some(value) = value else {
        return claude::error_answer(payload, error);
    };
    if value
        .get("hook_event_name")
        .and_then(Value::as_str)
        .is_none()
    {
        return claude::error_answer(payload, error);
    }
    let Some(claude_payload) = hooks_runtime::gemini_cli::to_claude_payload(&value) else {
        return Answer::json(json!({}));
    };
    let name = claude_payload["hook_event_name"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let bytes = serde_json::to_vec(&claude_payload).unwrap_or_default();
    from_claude(&name, claude::error_answer(&bytes, error), None)
}

/// `answer` (Claude Code's, to the event `claude_event`) in Gemini CLI's
/// output fields; `original`: a `BeforeTool` call's arguments, to tell a
/// rewrite Gemini CLI's merge can express from one it cannot.
fn from_claude(claude_event: &str, answer: Answer, original: Option<&Value>) -> Answer {
    if answer.exit_code != 0 {
        return answer;
    }
    let Value::Object(mut top) = answer.json else {
        return answer;
    };
    let specific = match top.remove("hookSpecificOutput") {
        Some(Value::Object(specific)) => specific,
        _ => Map::new(),
    };
    let mut out = Map::new();
    for key in ["continue", "stopReason", "systemMessage"] {
        if let Some(value) = top.remove(key) {
            out.insert(key.into(), value);
        }
    }
    let mut notes = Vec::new();
    let mut gemini_specific = Map::new();
    match claude_event {
        "PreToolUse" => {
            let reason = specific
                .get("permissionDecisionReason")
                .and_then(Value::as_str)
                .unwrap_or_default();
            match specific.get("permissionDecision").and_then(Value::as_str) {
                Some("deny") => deny(&mut out, reason),
                Some("ask") => deny(
                    &mut out,
                    &format!(
                        "a person must approve this call, and Gemini CLI does not ask on a hook's word: {reason}"
                    ),
                ),
                _ => {}
            }
            if let Some(args) = specific.get("updatedInput") {
                let removes = original
                    .and_then(Value::as_object)
                    .zip(args.as_object())
                    .is_some_and(|(old, new)| old.keys().any(|k| !new.contains_key(k)));
                if removes || !args.is_object() {
                    deny(
                        &mut out,
                        &format!(
                            "the hooks allow this call only with rewritten arguments, which Gemini CLI cannot apply (it merges arguments, and these remove some); call the tool again with these arguments: {args}"
                        ),
                    );
                } else if out.get("decision").is_none() {
                    gemini_specific.insert("tool_input".into(), args.clone());
                }
            }
            if specific.contains_key("additionalContext") {
                notes.push("context for the model dropped: Gemini CLI takes no additionalContext on BeforeTool".to_owned());
            }
        }
        "PostToolUse" | "PostToolUseFailure" => {
            let result = specific
                .get("updatedToolOutput")
                .or_else(|| specific.get("updatedMCPToolOutput"));
            if let Some(result) = result {
                // Gemini CLI's results carry the model's text in
                // `llmContent`; `tool_output` replaces that text.
                let text = match result {
                    Value::String(text) => text.clone(),
                    other => match other.get("llmContent") {
                        Some(Value::String(text)) => text.clone(),
                        _ => other.to_string(),
                    },
                };
                gemini_specific.insert("tool_output".into(), text.into());
            }
        }
        "UserPromptSubmit" | "Stop"
            if top.get("decision").and_then(Value::as_str) == Some("block") =>
        {
            let reason = top
                .get("reason")
                .and_then(Value::as_str)
                .unwrap_or_default();
            deny(&mut out, reason);
        }
        "PreCompact" if top.get("decision").is_some() => {
            notes.push(
                "the hooks' block is not applied: Gemini CLI cannot block compression".to_owned(),
            );
        }
        _ => {}
    }
    if let Some(context) = specific.get("additionalContext")
        && claude_event != "PreToolUse"
    {
        gemini_specific.insert("additionalContext".into(), context.clone());
    }
    super::claude::add_messages(&mut out, &notes);
    if !gemini_specific.is_empty() {
        out.insert("hookSpecificOutput".into(), Value::Object(gemini_specific));
    }
    Answer::json(Value::Object(out))
}

/// The answer to a `BeforeModel` or `BeforeToolSelection` payload (see
/// the module table).
fn model_answer(
    request: &Request,
    decision: &hooks_runtime::CompletionDecision,
    decided: &Decided<Decision<'_>>,
) -> Answer {
    let selection = request.agent_event == "BeforeToolSelection";
    let llm_request = match &request.event {
        hooks_runtime::OwnedEvent::BeforeCompletion { request } => request,
        _ => &Value::Null,
    };
    let mut out = Map::new();
    let mut specific = Map::new();
    let mut notes: Vec<String> = decided
        .diagnostics
        .iter()
        .map(ToString::to_string)
        .collect();
    match decision {
        hooks_runtime::CompletionDecision::Send { patch } => {
            let over = hooks_runtime::gemini_cli::llm_request_override(patch, llm_request);
            match (over, selection) {
                (Some(Value::Object(mut over)), true) => {
                    if let Some(tools) = over.remove("toolConfig") {
                        specific.insert("toolConfig".into(), tools);
                    }
                    if !over.is_empty() {
                        notes.push("the hooks' request patch applies on BeforeModel; BeforeToolSelection takes only the tool choice".to_owned());
                    }
                }
                (Some(over), false) => {
                    specific.insert("llm_request".into(), over);
                }
                (_, _) => {}
            }
        }
        hooks_runtime::CompletionDecision::Terminate { reason } if selection => notes.push(format!(
            "the hooks ended the run, which Gemini CLI's BeforeToolSelection cannot do: {reason}"
        )),
        hooks_runtime::CompletionDecision::Terminate { reason } => deny(&mut out, reason),
    }
    if !specific.is_empty() {
        out.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    let mut answer = Answer::json(Value::Object(out));
    if !notes.is_empty() {
        if selection {
            // BeforeToolSelection reads no `systemMessage`.
            answer.stderr = super::redact(&notes.join("\n"));
        } else if let Value::Object(top) = &mut answer.json {
            super::claude::add_messages(top, &notes);
            answer = Answer::json(answer.json);
        }
    }
    answer
}

/// `decision: "deny"` with `reason` (redacted).
fn deny(out: &mut Map<String, Value>, reason: &str) {
    out.insert("decision".into(), "deny".into());
    out.insert("reason".into(), super::redact(reason).into());
}
