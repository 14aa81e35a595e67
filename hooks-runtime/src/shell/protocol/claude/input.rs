//! The stdin object of `protocol: claude` (the module table of
//! [`super`]): Claude Code's input for each event.

use hooks_plan::Phase;
use serde_json::{Map, Value};

use crate::{HookContext, StepEvent, ToolOutcome};

/// Claude Code's `hook_event_name` for `phase`
/// ([`Phase::claude_event`]; an `after_tool` event of a failed tool is
/// `PostToolUseFailure`, see [`hook_event_name`]). A phase Claude Code has
/// no event for is named in the same style: `before_completion` →
/// `BeforeCompletion`.
pub(crate) fn event_name(phase: Phase) -> &'static str {
    if let Some(name) = phase.claude_event() {
        return name;
    }
    match phase {
        Phase::BeforeCompletion => "BeforeCompletion",
        Phase::AfterCompletion => "AfterCompletion",
        Phase::TextDelta => "TextDelta",
        Phase::ToolCallDelta => "ToolCallDelta",
        Phase::StreamFinish => "StreamFinish",
        Phase::AfterReasoning => "AfterReasoning",
        Phase::AfterAssistant => "AfterAssistant",
        Phase::InvalidToolCall => "InvalidToolCall",
        // Every other phase has a Claude Code event.
        other => other.as_str(),
    }
}

/// Claude Code's `hook_event_name` for `event`: the name of its
/// phase ([`Phase::claude_event`], else the phase in PascalCase), except `PostToolUseFailure` for an `after_tool` event whose
/// outcome failed.
pub fn hook_event_name(event: &StepEvent<'_>) -> &'static str {
    match event {
        StepEvent::AfterTool {
            outcome: ToolOutcome::Failed { .. },
            ..
        } => "PostToolUseFailure",
        _ => event_name(event.kind()),
    }
}

/// Claude Code's stdin object for `event` (see the module table).
/// `args`/`result` are the (possibly redacted) values to send as
/// `tool_input`/`tool_response`; `ctx` gives the session identity; `cwd` is
/// the hook's working directory, sent when the agent set none.
pub(crate) fn stdin_payload(
    event: &StepEvent<'_>,
    ctx: &HookContext,
    cwd: &str,
    args: Option<&Value>,
    result: Option<&Value>,
) -> Value {
    let transcript = ctx
        .transcript_path()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let cwd = ctx
        .cwd()
        .map_or_else(|| cwd.to_owned(), |c| c.to_string_lossy().into_owned());
    let mut map = Map::new();
    map.insert("session_id".into(), ctx.session_id().into());
    map.insert("transcript_path".into(), transcript.into());
    map.insert("cwd".into(), cwd.into());
    map.insert("hook_event_name".into(), hook_event_name(event).into());
    map.insert("permission_mode".into(), ctx.permission_mode().into());
    if let Some(name) = event.tool_name() {
        map.insert("tool_name".into(), name.into());
    }
    // Claude Code sends no `tool_use_id` on PermissionRequest: an agent
    // without a call id there passes `""`, which is left out.
    if let Some(id) = event.call_id().filter(|id| !id.is_empty()) {
        map.insert("tool_use_id".into(), id.into());
    }
    if let Some(a) = args {
        map.insert("tool_input".into(), a.clone());
    }
    match *event {
        StepEvent::AfterTool {
            outcome: ToolOutcome::Failed { message, .. },
            ..
        } => {
            let error = message
                .clone()
                .unwrap_or_else(|| result.map(result_text).unwrap_or_default());
            map.insert("error".into(), error.into());
            map.insert("is_interrupt".into(), false.into());
        }
        _ => {
            if let Some(r) = result {
                map.insert("tool_response".into(), r.clone());
            }
        }
    }
    if let StepEvent::AfterTool {
        duration_ms: Some(ms),
        ..
    } = *event
    {
        map.insert("duration_ms".into(), ms.into());
    }
    match *event {
        StepEvent::RunStart { source, model } => {
            let source = if source.is_empty() { "startup" } else { source };
            map.insert("source".into(), source.into());
            if !model.is_empty() {
                map.insert("model".into(), model.into());
            }
        }
        StepEvent::UserPrompt { prompt } => {
            map.insert("prompt".into(), prompt.into());
        }
        StepEvent::Stop {
            loop_count,
            text,
            background_tasks,
            session_crons,
        } => {
            map.insert("stop_hook_active".into(), (loop_count > 0).into());
            map.insert("loop_count".into(), loop_count.into());
            map.insert("last_assistant_message".into(), text.into());
            insert_given(&mut map, "background_tasks", background_tasks);
            insert_given(&mut map, "session_crons", session_crons);
        }
        StepEvent::RunEnd { reason, .. } => {
            let reason = if reason.is_empty() { "other" } else { reason };
            map.insert("reason".into(), reason.into());
        }
        StepEvent::PermissionRequest { suggestions, .. } if !suggestions.is_null() => {
            map.insert("permission_suggestions".into(), suggestions.clone());
        }
        StepEvent::AfterToolBatch { calls } => {
            map.insert("tool_calls".into(), calls.clone());
        }
        StepEvent::Notification {
            notification_type,
            title,
            message,
        } => {
            map.insert("message".into(), message.into());
            map.insert("title".into(), title.into());
            map.insert("notification_type".into(), notification_type.into());
        }
        StepEvent::SubagentStart {
            agent_id,
            agent_type,
        } => {
            map.insert("agent_id".into(), agent_id.into());
            map.insert("agent_type".into(), agent_type.into());
        }
        StepEvent::SubagentStop {
            agent_id,
            agent_type,
            loop_count,
            text,
            agent_transcript_path,
            background_tasks,
            session_crons,
        } => {
            map.insert("stop_hook_active".into(), (loop_count > 0).into());
            map.insert("agent_id".into(), agent_id.into());
            map.insert("agent_type".into(), agent_type.into());
            if !agent_transcript_path.is_empty() {
                map.insert("agent_transcript_path".into(), agent_transcript_path.into());
            }
            map.insert("last_assistant_message".into(), text.into());
            insert_given(&mut map, "background_tasks", background_tasks);
            insert_given(&mut map, "session_crons", session_crons);
        }
        StepEvent::BeforeCompaction {
            trigger,
            instructions,
        } => {
            map.insert("trigger".into(), trigger.into());
            map.insert("custom_instructions".into(), instructions.into());
        }
        StepEvent::AfterCompaction { trigger, summary } => {
            map.insert("trigger".into(), trigger.into());
            map.insert("compact_summary".into(), summary.into());
        }
        StepEvent::RunError { error } => {
            map.insert("reason".into(), "error".into());
            map.insert("error".into(), error.into());
        }
        StepEvent::BeforeModelSelect { selection } | StepEvent::AfterModelSelect { selection } => {
            insert_selection(&mut map, selection);
        }
        // Extensions (Claude Code has no model events): the request and
        // the response in the agent's provider JSON form.
        StepEvent::BeforeCompletion { request } => {
            map.insert("request".into(), request.clone());
        }
        StepEvent::AfterCompletion { response } => {
            map.insert("response".into(), response.clone());
        }
        _ => {}
    }
    Value::Object(map)
}

/// PreModelSwitch's and PostModelSwitch's fields from a model selection
/// (`{from, to, source, ...}`): `from_model` and `to_model` (`from` and
/// `to`; `from_model` left out when `null`), then every other key as it is
/// (`source`, `requested_model`, Claude Code's cache estimate, ...).
fn insert_selection(map: &mut Map<String, Value>, selection: &Value) {
    let field = |key: &str| selection.get(key).filter(|v| !v.is_null());
    if let Some(from) = field("from") {
        map.insert("from_model".into(), from.clone());
    }
    if let Some(to) = field("to") {
        map.insert("to_model".into(), to.clone());
    }
    for (key, value) in selection.as_object().into_iter().flatten() {
        if key != "from" && key != "to" && !map.contains_key(key) {
            map.insert(key.clone(), value.clone());
        }
    }
}

/// Inserts `value` under `key` unless it is `null` (the agent did not say).
fn insert_given(map: &mut Map<String, Value>, key: &str, value: &Value) {
    if !value.is_null() {
        map.insert(key.into(), value.clone());
    }
}

/// The text of a failed tool's result, for `PostToolUseFailure`'s `error`:
/// a string as is, an object's `error` or `output` string, else the JSON.
fn result_text(result: &Value) -> String {
    match result {
        Value::String(s) => s.clone(),
        Value::Object(o) => ["error", "output", "stderr"]
            .iter()
            .find_map(|k| o.get(*k).and_then(Value::as_str))
            .map_or_else(|| result.to_string(), str::to_owned),
        other => other.to_string(),
    }
}
