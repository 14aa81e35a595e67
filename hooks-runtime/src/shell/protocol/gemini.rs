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
//! | `hookSpecificOutput.tool_output` on `AfterTool` | the tool's result replaced by it, after a success or a failure |
//! | `decision: "deny"` + `reason` on `AfterTool` | the tool's result replaced by `reason` (the real output hidden) |
//! | `hookSpecificOutput.additionalContext`, `continue`, `stopReason`, `systemMessage`, `suppressOutput` | the same |

use hooks_plan::{History, Params, RequestPatch, Text, ToolChoice};
use serde_json::{Map, Value};

use super::claude;
use super::{ProtocolDecision, ProtocolFailure, frame_json};
use crate::{Captured, ContextItem, Flow, HookContext, StepEvent};

/// Gemini CLI's events and the Claude Code events they correspond to: the
/// one table the hook engine (`hook --agent gemini`), `protocol: gemini`
/// and `agent-hooks init --agent gemini` read.
/// The model events correspond to the extension names `protocol: claude`
/// gives `before_completion` and `after_completion` (Claude Code has no
/// model events); the first row of a Claude Code name is the one a script
/// is given.
pub const EVENTS: [(&str, &str); 11] = [
    ("BeforeTool", "PreToolUse"),
    ("AfterTool", "PostToolUse"),
    ("BeforeAgent", "UserPromptSubmit"),
    ("AfterAgent", "Stop"),
    ("SessionStart", "SessionStart"),
    ("SessionEnd", "SessionEnd"),
    ("Notification", "Notification"),
    ("PreCompress", "PreCompact"),
    ("BeforeModel", "BeforeCompletion"),
    ("BeforeToolSelection", "BeforeCompletion"),
    ("AfterModel", "AfterCompletion"),
];

/// Gemini CLI's payload fields that Claude Code's payload names otherwise
/// (each appears on one event only: `AfterAgent`, the model events), read
/// one way by [`to_claude_payload`] and written the other way for
/// `protocol: gemini` scripts.
const FIELDS: [(&str, &str); 3] = [
    ("prompt_response", "last_assistant_message"),
    ("llm_request", "request"),
    ("llm_response", "response"),
];

/// Renames the keys of `map` from one side of [`FIELDS`] to the other
/// (`to_claude`: Gemini CLI's to Claude Code's).
fn rename_fields(map: &mut Map<String, Value>, to_claude: bool) {
    for (gemini, claude) in FIELDS {
        let (from, to) = if to_claude {
            (gemini, claude)
        } else {
            (claude, gemini)
        };
        if let Some(value) = map.remove(from) {
            map.insert(to.into(), value);
        }
    }
}

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
        // Gemini CLI documents `source`; some builds send `trigger`.
        "SessionStart" => {
            if let Some(trigger) = map.remove("trigger") {
                map.entry("source").or_insert(trigger);
            }
        }
        _ => {}
    }
    rename_fields(&mut map, true);
    map.insert("hook_event_name".into(), claude.into());
    Some(Value::Object(map))
}

/// The `hookSpecificOutput.llm_request` override (Gemini CLI's
/// `BeforeModel`) that applies `patch` to `request` (the event's
/// `llm_request`): `temperature` and `max_tokens` as `config.temperature`
/// and `config.maxOutputTokens`, `additional_params` as `model` (its
/// `model` key) and `config` keys, `tool_choice` and `active_tools` as
/// `toolConfig` (`auto` → `AUTO`, `none` → `NONE`, `required` → `ANY`, a
/// tool → `ANY` with that tool allowed), `preamble`, `history` and
/// `extra_context` as the whole `messages` list (the system message
/// replaced, the history cut or replaced, context appended as `user`
/// messages). `None` when the patch changes nothing Gemini CLI can apply.
pub fn llm_request_override(patch: &RequestPatch, request: &Value) -> Option<Value> {
    let mut out = Map::new();
    let mut config = Map::new();
    if let Some(t) = patch.temperature {
        config.insert("temperature".into(), t.into());
    }
    if let Some(n) = patch.max_tokens {
        config.insert("maxOutputTokens".into(), n.into());
    }
    for (key, value) in patch.additional_params.iter() {
        if key == "model" {
            out.insert("model".into(), value.to_value());
        } else {
            config.insert(key.to_owned(), value.to_value());
        }
    }
    if !config.is_empty() {
        out.insert("config".into(), Value::Object(config));
    }
    let mut tools = Map::new();
    match &patch.tool_choice {
        Some(ToolChoice::Auto) => {
            tools.insert("mode".into(), "AUTO".into());
        }
        Some(ToolChoice::None) => {
            tools.insert("mode".into(), "NONE".into());
        }
        Some(ToolChoice::Required) => {
            tools.insert("mode".into(), "ANY".into());
        }
        Some(ToolChoice::Tool(tool)) => {
            tools.insert("mode".into(), "ANY".into());
            tools.insert("allowedFunctionNames".into(), vec![tool.to_string()].into());
        }
        None => {}
    }
    if let Some(active) = &patch.active_tools
        && !tools.contains_key("allowedFunctionNames")
    {
        let names: Vec<Value> = active.iter().map(|t| t.to_string().into()).collect();
        tools.insert("allowedFunctionNames".into(), names.into());
    }
    if !tools.is_empty() {
        out.insert("toolConfig".into(), Value::Object(tools));
    }
    if patch.preamble.is_some() || patch.history.is_some() || !patch.extra_context.is_empty() {
        let mut messages = request
            .get("messages")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if let Some(history) = &patch.history {
            history.apply(&mut messages);
        }
        if let Some(preamble) = &patch.preamble {
            messages.retain(|m| m.get("role").and_then(Value::as_str) != Some("system"));
            let mut system = Map::new();
            system.insert("role".into(), "system".into());
            system.insert("content".into(), preamble.to_string().into());
            messages.insert(0, Value::Object(system));
        }
        for item in patch.extra_context.iter() {
            let mut user = Map::new();
            user.insert("role".into(), "user".into());
            user.insert("content".into(), item.content.to_string().into());
            messages.push(Value::Object(user));
        }
        out.insert("messages".into(), Value::Array(messages));
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// The request patch a `hookSpecificOutput.llm_request` override (and
/// `BeforeToolSelection`'s `toolConfig`) asks for: the inverse of
/// [`llm_request_override`] (`messages` replace the history).
fn patch_from_override(over: Option<&Value>, tool_config: Option<&Value>) -> RequestPatch {
    let mut patch = RequestPatch::default();
    let mut params = Params::new();
    if let Some(over) = over.and_then(Value::as_object) {
        if let Some(model) = over.get("model") {
            params.insert("model", model.clone());
        }
        if let Some(config) = over.get("config").and_then(Value::as_object) {
            for (key, value) in config {
                match key.as_str() {
                    "temperature" => patch.temperature = value.as_f64(),
                    "maxOutputTokens" => patch.max_tokens = value.as_u64(),
                    _ => params.insert(key.clone(), value.clone()),
                }
            }
        }
        if let Some(Value::Array(messages)) = over.get("messages") {
            patch.history = Some(History::Replace(messages.clone()));
        }
    }
    let tools = tool_config.or_else(|| over.and_then(|o| o.get("toolConfig")));
    if let Some(tools) = tools.and_then(Value::as_object) {
        let allowed: Option<Vec<Text>> = tools
            .get("allowedFunctionNames")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|n| Text::from(n.to_owned()))
                    .collect()
            });
        patch.tool_choice = match tools.get("mode").and_then(Value::as_str) {
            Some("NONE") => Some(ToolChoice::None),
            Some("ANY") => Some(ToolChoice::Required),
            Some("AUTO") => Some(ToolChoice::Auto),
            _ => None,
        };
        if let Some(allowed) = allowed {
            patch.active_tools = Some(allowed.into());
        }
    }
    patch.additional_params = params;
    patch
}

/// The decision of a Gemini CLI output object that Claude Code's reader
/// cannot express: a model hook's ([`model_decision`]) or an `AfterTool`
/// hook's ([`after_tool_decision`]); `None` for the other events (read as
/// Claude Code output).
fn direct_decision(
    event: &StepEvent<'_>,
    map: &Map<String, Value>,
    hook_id: &str,
) -> Option<ProtocolDecision> {
    model_decision(event, map, hook_id).or_else(|| after_tool_decision(event, map))
}

/// The decision of an `AfterTool` hook's output object, for a tool that
/// succeeded or failed alike (Gemini CLI has one event for both, where
/// Claude Code takes no result rewrite after a failure):
/// `hookSpecificOutput.tool_output` replaces the result, `decision:
/// "deny"` replaces it with `reason` (the real output hidden),
/// `additionalContext` is context, `continue: false` ends the run.
fn after_tool_decision(
    event: &StepEvent<'_>,
    map: &Map<String, Value>,
) -> Option<ProtocolDecision> {
    let StepEvent::AfterTool { .. } = event else {
        return None;
    };
    let specific = map.get("hookSpecificOutput").and_then(Value::as_object);
    let get = |key: &str| specific.and_then(|s| s.get(key));
    let text = |key: &str| map.get(key).and_then(Value::as_str).map(str::to_owned);
    let denied = matches!(
        map.get("decision").and_then(Value::as_str),
        Some("deny" | "block")
    );
    let mut decision = if map.get("continue") == Some(&Value::Bool(false)) {
        let reason = text("stopReason")
            .or_else(|| text("reason"))
            .unwrap_or_else(|| "a Gemini CLI hook stopped the run".to_owned());
        ProtocolDecision::flow(Flow::terminate(reason))
    } else if let Some(output) = get("tool_output") {
        ProtocolDecision::flow(Flow::RewriteResult(output.clone()))
    } else if denied {
        let reason = text("reason").unwrap_or_default();
        ProtocolDecision::flow(Flow::RewriteResult(Value::String(reason)))
    } else {
        ProtocolDecision::default()
    };
    if let Some(Value::String(context)) = get("additionalContext") {
        decision = decision.with_context(event.kind(), vec![ContextItem::user(context.clone())]);
    }
    if let Some(Value::String(message)) = map.get("systemMessage") {
        decision.diagnostics.push(message.clone());
    }
    Some(decision)
}

/// The decision of a Gemini CLI model hook's output object (`BeforeModel`,
/// `BeforeToolSelection`, `AfterModel`), or `None` for other events.
fn model_decision(
    event: &StepEvent<'_>,
    map: &Map<String, Value>,
    hook_id: &str,
) -> Option<ProtocolDecision> {
    let before = match event {
        StepEvent::BeforeCompletion { .. } => true,
        StepEvent::AfterCompletion { .. } => false,
        _ => return None,
    };
    let reason = || {
        map.get("reason")
            .or_else(|| map.get("stopReason"))
            .and_then(Value::as_str)
            .map_or_else(
                || format!("hook `{hook_id}` blocked the model call"),
                str::to_owned,
            )
    };
    let mut decision = if map.get("continue") == Some(&Value::Bool(false))
        || matches!(
            map.get("decision").and_then(Value::as_str),
            Some("deny" | "block")
        ) {
        // Gemini CLI aborts the turn; the nearest flow ends the run.
        ProtocolDecision::flow(Flow::terminate(reason()))
    } else {
        ProtocolDecision::default()
    };
    let specific = map.get("hookSpecificOutput").and_then(Value::as_object);
    let get = |key: &str| specific.and_then(|s| s.get(key));
    if before && decision.flow.is_continue() {
        let patch = patch_from_override(get("llm_request"), get("toolConfig"));
        if !patch.is_empty() {
            decision.flow = Flow::PatchRequest(patch);
        }
    }
    if get("llm_response").is_some() {
        decision.diagnostics.push(format!(
            "hook `{hook_id}`: `llm_response` ignored: agent-hooks cannot replace a model response"
        ));
    }
    if let Some(Value::String(message)) = map.get("systemMessage") {
        decision.diagnostics.push(message.clone());
    }
    Some(decision)
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
    rename_fields(map, false);
    let claude_name = claude::hook_event_name(event);
    if claude_name == "PostToolUseFailure" {
        map.remove("is_interrupt");
        let error = map.remove("error").unwrap_or_default();
        let mut response = Map::new();
        response.insert("error".into(), error);
        map.insert("tool_response".into(), Value::Object(response));
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
    if exit_code == 0 {
        return read_output(event, stdout, hook_id);
    }
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
    if !body.truncated
        && let Ok(Some(map)) = frame_json(&body.bytes)
        && let Some(decision) = direct_decision(event, &map, hook_id)
    {
        return Ok(decision);
    }
    claude::read_output(event, &as_claude_output(event, body), hook_id)
}

/// `stdout` with its JSON object (if it is one) rewritten into the Claude
/// Code output it corresponds to on `event` (the module table).
fn as_claude_output(event: &StepEvent<'_>, stdout: &Captured) -> Captured {
    claude::rewritten_output(event, stdout, |mut gemini| {
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
            ("PreToolUse", Some(verdict @ ("deny" | "block" | "ask"))) => {
                let verdict = if verdict == "ask" { "ask" } else { "deny" };
                claude_specific.insert("permissionDecision".into(), verdict.into());
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
        if let Some(context) = specific.remove("additionalContext") {
            claude_specific.insert("additionalContext".into(), context);
        }
        // What Gemini CLI would not read either is left for Claude Code's
        // reader to note as unknown.
        out.extend(gemini);
        claude_specific.extend(specific);
        (out, claude_specific)
    })
}
