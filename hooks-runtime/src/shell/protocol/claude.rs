//! `protocol: claude`: Claude Code's hook protocol, so existing Claude Code
//! hook scripts run unmodified (Claude Code hooks reference, "Hook input",
//! "Hook output", "Exit code 2 behavior").
//!
//! # Stdin
//!
//! [`stdin_payload`] builds Claude Code's input object: `session_id` (our run
//! id), `transcript_path` (empty: there is no Claude Code transcript), `cwd`,
//! `hook_event_name`, `permission_mode` (`"default"`), and per event
//! `tool_name`, `tool_input`, `tool_use_id`, `tool_response`, `prompt`,
//! `stop_hook_active`, `source`/`reason`. The environment variable
//! `CLAUDE_PROJECT_DIR` is set to the workspace root
//! ([`CLAUDE_PROJECT_DIR`](crate::CLAUDE_PROJECT_DIR)). Event names:
//!
//! | phase | `hook_event_name` |
//! | --- | --- |
//! | `run_start` | `SessionStart` (`source: "startup"`) |
//! | `user_prompt` | `UserPromptSubmit` |
//! | `before_tool` | `PreToolUse` |
//! | `after_tool` | `PostToolUse` (on the tool's success and error paths) |
//! | `stop` | `Stop` (`stop_hook_active` = loop count > 0) |
//! | `run_end`, `run_error` | `SessionEnd` (`reason: "other"` / `"error"`) |
//! | others | the phase in PascalCase (`AfterAssistant`, ...): an extension, no Claude Code event exists |
//!
//! # Stdout and exit code
//!
//! - Exit 2: Claude Code ignores stdout; stderr is the reason; the flow per
//!   [`exit2_flow`].
//! - Other nonzero exits: a `nonzero_exit` failure for the failure policy.
//! - Exit 0, stdout not starting with `{` (after a BOM and whitespace): plain
//!   text. On `UserPromptSubmit` Claude Code adds it as context: here the
//!   prompt is rewritten to the prompt, a blank line, and the text. On other
//!   events Claude Code only shows it in its transcript: here it is ignored.
//! - Exit 0, a JSON object (strict framing as in
//!   [`frame_json`]; unknown fields are `invalid_output`):
//!
//! | field | events | flow |
//! | --- | --- | --- |
//! | `continue: false` (+ `stopReason`) | all | `Terminate {stopReason}`; wins over everything else |
//! | `decision: "block"` + `reason` | PreToolUse | `Skip {reason}` (deprecated form of deny) |
//! | | PostToolUse | `InjectContext([reason])`: the model is told |
//! | | UserPromptSubmit | `Skip {reason}`: the prompt is dropped |
//! | | Stop | `Resume {reason}`: keep working |
//! | `decision: "approve"` | PreToolUse | `Continue` |
//! | `hookSpecificOutput.permissionDecision: "allow"` | PreToolUse | `Continue`, or `RewriteArgs(updatedInput)` |
//! | `permissionDecision: "deny"` | PreToolUse | `Skip {permissionDecisionReason}` |
//! | `permissionDecision: "ask"` / `"defer"` | PreToolUse | `Skip`: there is no human to ask here, so the call fails closed with a reason saying so |
//! | `hookSpecificOutput.updatedInput` | PreToolUse, with allow/ask | `RewriteArgs` |
//! | `hookSpecificOutput.additionalContext` | PostToolUse | `InjectContext` (after a block `reason`, if any) |
//! | | UserPromptSubmit | prompt rewritten: prompt, blank line, context |
//! | `systemMessage` | all | a diagnostic for the operator |
//! | `suppressOutput` | all | accepted, no effect (no transcript here) |
//!
//! `hookSpecificOutput.hookEventName` is required and must equal the event's
//! name. Anything on an event not listed for it (for example
//! `additionalContext` on SessionStart, whose context has nowhere to go
//! before the first turn, or `permissionDecision` on PostToolUse) is
//! `invalid_output`, never silently ignored.

use hooks_schema::Phase;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    ProtocolDecision, ProtocolFailure, exit2_flow, frame_json, nonzero_exit, too_large, trim_frame,
};
use crate::{Captured, ContextItem, Flow, StepEvent};

/// Claude Code's `hook_event_name` for `phase` (see the module table).
pub(crate) fn event_name(phase: Phase) -> &'static str {
    match phase {
        Phase::RunStart => "SessionStart",
        Phase::UserPrompt => "UserPromptSubmit",
        Phase::BeforeCompletion => "BeforeCompletion",
        Phase::AfterCompletion => "AfterCompletion",
        Phase::TextDelta => "TextDelta",
        Phase::ToolCallDelta => "ToolCallDelta",
        Phase::StreamFinish => "StreamFinish",
        Phase::AfterReasoning => "AfterReasoning",
        Phase::AfterAssistant => "AfterAssistant",
        Phase::BeforeTool => "PreToolUse",
        Phase::PermissionRequest => "PermissionRequest",
        Phase::AfterTool => "PostToolUse",
        Phase::AfterToolBatch => "PostToolBatch",
        Phase::InvalidToolCall => "InvalidToolCall",
        Phase::Stop => "Stop",
        Phase::Notification => "Notification",
        Phase::SubagentStart => "SubagentStart",
        Phase::SubagentStop => "SubagentStop",
        Phase::BeforeCompaction => "PreCompact",
        Phase::AfterCompaction => "PostCompact",
        Phase::RunEnd | Phase::RunError => "SessionEnd",
    }
}

/// Claude Code's stdin object for `event` (see the module table).
/// `args`/`result` are the (possibly redacted) values to send as
/// `tool_input`/`tool_response`; `run_id` becomes `session_id`.
pub(crate) fn stdin_payload(
    event: &StepEvent<'_>,
    run_id: &str,
    cwd: &str,
    args: Option<&Value>,
    result: Option<&Value>,
) -> Value {
    let phase = event.kind();
    let mut obj = json!({
        "session_id": run_id,
        "transcript_path": "",
        "cwd": cwd,
        "hook_event_name": event_name(phase),
        "permission_mode": "default",
    });
    let map = obj.as_object_mut();
    let Some(map) = map else { return obj };
    if let Some(name) = event.tool_name() {
        map.insert("tool_name".into(), name.into());
    }
    if let Some(id) = event.call_id() {
        map.insert("tool_use_id".into(), id.into());
    }
    if let Some(a) = args {
        map.insert("tool_input".into(), a.clone());
    }
    if let Some(r) = result {
        map.insert("tool_response".into(), r.clone());
    }
    match *event {
        StepEvent::RunStart => {
            map.insert("source".into(), "startup".into());
        }
        StepEvent::UserPrompt { prompt } => {
            map.insert("prompt".into(), prompt.into());
        }
        StepEvent::Stop { loop_count, .. } => {
            map.insert("stop_hook_active".into(), (loop_count > 0).into());
            map.insert("loop_count".into(), loop_count.into());
        }
        StepEvent::RunEnd { .. } => {
            map.insert("reason".into(), "other".into());
        }
        StepEvent::RunError { error } => {
            map.insert("reason".into(), "error".into());
            map.insert("error".into(), error.into());
        }
        _ => {}
    }
    obj
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Output {
    #[serde(rename = "continue")]
    cont: Option<bool>,
    stop_reason: Option<String>,
    suppress_output: Option<bool>,
    system_message: Option<String>,
    decision: Option<LegacyDecision>,
    reason: Option<String>,
    hook_specific_output: Option<Specific>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum LegacyDecision {
    Block,
    Approve,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Specific {
    hook_event_name: String,
    permission_decision: Option<Permission>,
    permission_decision_reason: Option<String>,
    updated_input: Option<Value>,
    additional_context: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Permission {
    Allow,
    Deny,
    Ask,
    Defer,
}

/// Parses a Claude Code hook's result for `event` into a [`ProtocolDecision`] flow
/// (see the module table).
///
/// # Errors
///
/// [`ProtocolFailure`]: `output_too_large` when stdout was cut at its cap
/// (exit 0 only), `nonzero_exit` for exit codes other than 0 and 2,
/// `invalid_output` for framing errors, unknown fields and fields on the
/// wrong event.
pub(crate) fn parse(
    event: &StepEvent<'_>,
    exit_code: i32,
    stdout: &Captured,
    stderr: &Captured,
    hook_id: &str,
) -> Result<ProtocolDecision, ProtocolFailure> {
    let phase = event.kind();
    match exit_code {
        0 => {}
        2 => return Ok(exit2_flow(phase, stderr, hook_id)),
        code => return Err(nonzero_exit(code, stderr)),
    }
    if stdout.truncated {
        return Err(too_large(stdout));
    }
    let (body, _) = trim_frame(&stdout.bytes);
    if body.is_empty() {
        return Ok(ProtocolDecision::default());
    }
    if body[0] != b'{' {
        // Plain text: context on UserPromptSubmit, transcript-only elsewhere.
        if let StepEvent::UserPrompt { prompt } = *event {
            let text = String::from_utf8_lossy(body);
            return Ok(ProtocolDecision {
                flow: Flow::RewritePrompt(format!("{prompt}\n\n{text}").into()),
                diagnostics: Vec::new(),
            });
        }
        return Ok(ProtocolDecision::default());
    }
    let Some(map) = frame_json(&stdout.bytes)? else {
        return Ok(ProtocolDecision::default());
    };
    let out: Output = serde_json::from_value(Value::Object(map)).map_err(|e| {
        ProtocolFailure::invalid(format!("invalid Claude Code hook output: {e}"), None)
    })?;
    to_flow(event, out, hook_id).map_err(|d| ProtocolFailure::invalid(d, None))
}

fn to_flow(event: &StepEvent<'_>, out: Output, hook_id: &str) -> Result<ProtocolDecision, String> {
    let phase = event.kind();
    let name = event_name(phase);
    let mut diagnostics = Vec::new();
    if let Some(msg) = out.system_message {
        diagnostics.push(format!("hook `{hook_id}`: {msg}"));
    }
    let _ = out.suppress_output;
    if out.stop_reason.is_some() && out.cont != Some(false) {
        return Err("`stopReason` goes only with `\"continue\": false`".to_owned());
    }
    if let Some(spec) = &out.hook_specific_output
        && spec.hook_event_name != name
    {
        return Err(format!(
            "`hookSpecificOutput.hookEventName` is `{}` but this is a `{name}` event",
            spec.hook_event_name
        ));
    }
    if out.cont == Some(false) {
        let reason = out
            .stop_reason
            .unwrap_or_else(|| format!("hook `{hook_id}` stopped the run (`\"continue\": false`)"));
        return Ok(ProtocolDecision {
            flow: Flow::terminate(reason),
            diagnostics,
        });
    }
    if out.reason.is_some() && out.decision.is_none() {
        return Err("`reason` goes only with `decision`".to_owned());
    }
    let spec = out.hook_specific_output;
    let flow = match phase {
        Phase::BeforeTool => {
            let mut flow = match (out.decision, out.reason) {
                (Some(LegacyDecision::Block), reason) => Some(Flow::skip(
                    reason.unwrap_or_else(|| format!("blocked by hook `{hook_id}`")),
                )),
                (Some(LegacyDecision::Approve), _) | (None, _) => None,
            };
            if let Some(spec) = spec {
                if spec.additional_context.is_some() {
                    return Err(not_on(
                        "additionalContext",
                        name,
                        "PostToolUse, UserPromptSubmit",
                    ));
                }
                if flow.is_some() && spec.permission_decision.is_some() {
                    return Err("give `hookSpecificOutput.permissionDecision` or the deprecated `decision`, not both".to_owned());
                }
                let reason = spec.permission_decision_reason;
                match spec.permission_decision {
                    Some(Permission::Deny) => {
                        if spec.updated_input.is_some() {
                            return Err(
                                "`updatedInput` cannot go with `permissionDecision: \"deny\"`"
                                    .to_owned(),
                            );
                        }
                        flow = Some(Flow::skip(
                            reason.unwrap_or_else(|| format!("denied by hook `{hook_id}`")),
                        ));
                    }
                    Some(Permission::Ask | Permission::Defer) => {
                        let why = reason.map(|r| format!(": {r}")).unwrap_or_default();
                        flow = Some(Flow::skip(format!(
                            "hook `{hook_id}` asked for a human's confirmation and there is no one to ask, so the call is refused{why}"
                        )));
                    }
                    Some(Permission::Allow) | None => {
                        if let Some(input) = spec.updated_input {
                            flow = Some(Flow::RewriteArgs(input));
                        }
                    }
                }
            }
            flow.unwrap_or(Flow::Continue)
        }
        Phase::AfterTool => {
            if out.decision == Some(LegacyDecision::Approve) {
                return Err(not_on("decision: \"approve\"", name, "PreToolUse"));
            }
            let mut items = Vec::new();
            if out.decision == Some(LegacyDecision::Block) {
                items.push(ContextItem::user(out.reason.unwrap_or_else(|| {
                    format!("hook `{hook_id}` flagged this tool result")
                })));
            }
            if let Some(spec) = spec {
                reject_permission(&spec, name)?;
                if let Some(ctx) = spec.additional_context {
                    items.push(ContextItem::user(ctx));
                }
            }
            if items.is_empty() {
                Flow::Continue
            } else {
                Flow::InjectContext(items.into())
            }
        }
        Phase::UserPrompt => {
            if out.decision == Some(LegacyDecision::Approve) {
                return Err(not_on("decision: \"approve\"", name, "PreToolUse"));
            }
            if out.decision == Some(LegacyDecision::Block) {
                if spec
                    .as_ref()
                    .is_some_and(|s| s.additional_context.is_some())
                {
                    return Err(
                        "`additionalContext` cannot go with `decision: \"block\"`".to_owned()
                    );
                }
                Flow::skip(
                    out.reason
                        .unwrap_or_else(|| format!("prompt blocked by hook `{hook_id}`")),
                )
            } else {
                let mut flow = Flow::Continue;
                if let Some(spec) = spec {
                    reject_permission(&spec, name)?;
                    if let (Some(ctx), StepEvent::UserPrompt { prompt }) =
                        (spec.additional_context, *event)
                    {
                        flow = Flow::RewritePrompt(format!("{prompt}\n\n{ctx}").into());
                    }
                }
                flow
            }
        }
        Phase::Stop => {
            if let Some(spec) = spec {
                reject_permission(&spec, name)?;
                if spec.additional_context.is_some() {
                    return Err(not_on(
                        "additionalContext",
                        name,
                        "PostToolUse, UserPromptSubmit",
                    ));
                }
            }
            match out.decision {
                Some(LegacyDecision::Block) => Flow::resume(
                    out.reason
                        .unwrap_or_else(|| format!("hook `{hook_id}` asked to keep working")),
                ),
                Some(LegacyDecision::Approve) => {
                    return Err(not_on("decision: \"approve\"", name, "PreToolUse"));
                }
                None => Flow::Continue,
            }
        }
        _ => {
            if out.decision.is_some() {
                return Err(not_on(
                    "decision",
                    name,
                    "PreToolUse, PostToolUse, UserPromptSubmit, Stop",
                ));
            }
            if let Some(spec) = spec {
                reject_permission(&spec, name)?;
                if spec.additional_context.is_some() {
                    return Err(not_on(
                        "additionalContext",
                        name,
                        "PostToolUse, UserPromptSubmit",
                    ));
                }
            }
            Flow::Continue
        }
    };
    Ok(ProtocolDecision { flow, diagnostics })
}

fn reject_permission(spec: &Specific, name: &str) -> Result<(), String> {
    if spec.permission_decision.is_some() {
        return Err(not_on("permissionDecision", name, "PreToolUse"));
    }
    if spec.permission_decision_reason.is_some() {
        return Err(not_on("permissionDecisionReason", name, "PreToolUse"));
    }
    if spec.updated_input.is_some() {
        return Err(not_on("updatedInput", name, "PreToolUse"));
    }
    Ok(())
}

fn not_on(field: &str, event: &str, allowed: &str) -> String {
    format!("`{field}` is not allowed on `{event}` events; it is honoured on: {allowed}")
}
