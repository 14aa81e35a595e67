//! `protocol: claude`: Claude Code's hook protocol, so existing Claude Code
//! hook scripts run unmodified (Claude Code hooks reference, "Hook input",
//! "Hook output", "Exit code 2 behavior").
//!
//! # Stdin
//!
//! [`stdin_payload`] builds Claude Code's input object: `session_id`,
//! `transcript_path`, `cwd` and `permission_mode` from the run's
//! [`HookContext`] (defaults: the run id, `""`, the hook's working directory,
//! `"default"`), `hook_event_name`, and per event `tool_name`, `tool_input`,
//! `tool_use_id` (left out when the event's call id is empty, as on
//! PermissionRequest), `tool_response`, `prompt`, `stop_hook_active`,
//! `source`/`reason`, and what the agent reports beside an event when it
//! does ([`StepEvent`]: SessionStart's `source` and `model`,
//! PostToolUse's and PostToolUseFailure's `duration_ms`, Stop's and
//! SubagentStop's `background_tasks` and `session_crons`, SubagentStop's
//! `agent_transcript_path`). The environment variable `CLAUDE_PROJECT_DIR` is set
//! to the workspace root ([`CLAUDE_PROJECT_DIR`](crate::CLAUDE_PROJECT_DIR)).
//! Event names:
//!
//! | phase | `hook_event_name` |
//! | --- | --- |
//! | `run_start` | `SessionStart` (`source`: the event's, else `"startup"`; `model` when given) |
//! | `user_prompt` | `UserPromptSubmit` |
//! | `before_model_select` | `PreModelSwitch` (`from_model`, `to_model`: the selection's `from` and `to`; its other keys, such as `source`, as they are) |
//! | `after_model_select` | `PostModelSwitch` (as PreModelSwitch) |
//! | `before_tool` | `PreToolUse` |
//! | `after_tool`, the tool succeeded | `PostToolUse` (`tool_response`) |
//! | `after_tool`, the tool failed | `PostToolUseFailure` (`error`: the outcome's message, else the result's text; `is_interrupt: false`; no `tool_response`) |
//! | `permission_request` | `PermissionRequest` (`tool_input`, `permission_suggestions`) |
//! | `after_tool_batch` | `PostToolBatch` (`tool_calls`) |
//! | `stop` | `Stop` (`stop_hook_active` = loop count > 0, `last_assistant_message`) |
//! | `subagent_start` | `SubagentStart` (`agent_id`, `agent_type`) |
//! | `subagent_stop` | `SubagentStop` (as Stop, plus `agent_id`, `agent_type`) |
//! | `notification` | `Notification` (`message`, `title`, `notification_type`) |
//! | `before_compaction` | `PreCompact` (`trigger`, `custom_instructions`) |
//! | `after_compaction` | `PostCompact` (`trigger`, `compact_summary`) |
//! | `run_end`, `run_error` | `SessionEnd` (`reason`: the event's, else `"other"`; `"error"`) |
//! | others | the phase in PascalCase (`AfterAssistant`, ...): an extension, no Claude Code event exists |
//!
//! # Stdout and exit code
//!
//! - Exit 2: Claude Code reads stdout's JSON on every exit code (since
//!   v2.1.214): `continue: false` there ends the run with `stopReason`;
//!   otherwise stderr is the reason, unless the JSON's blocking decision
//!   (`decision: "block"`, `permissionDecision: "deny"`) gives one, which
//!   then wins; the flow per [`exit2_flow`].
//! - Other nonzero exits: a `nonzero_exit` failure for the failure policy.
//! - Exit 0, stdout not starting with `{` (after a BOM and whitespace): plain
//!   text. On `UserPromptSubmit` Claude Code adds it as context: here the
//!   prompt is rewritten to the prompt, a blank line, and the text. On
//!   `SessionStart` it is context before the first prompt, on
//!   `PostModelSwitch` context for the next turn (`InjectContext`). On
//!   other events Claude Code only writes it to its
//!   debug log: here it is ignored. Stdout that starts with `{` but is not
//!   one JSON object (malformed, or followed by a log line) is plain text
//!   too, as Claude Code falls back to text when JSON parsing fails, with a
//!   note in the hook's record; never `invalid_output`.
//! - Exit 0, a JSON object (strict framing as in [`frame_json`]). Unknown
//!   fields, top-level or in `hookSpecificOutput`, are ignored as Claude
//!   Code ignores them, each with a note in the hook's record (`notes`); a
//!   known field with the wrong type is `invalid_output`, and so is a known
//!   field in the wrong place (`permissionDecision`, `updatedInput`,
//!   `additionalContext`, ... at the top level, where Claude Code does not
//!   read them; `continue`, `stopReason`, `systemMessage`, ... inside
//!   `hookSpecificOutput`), naming the field: what the author meant (often
//!   a deny) must not pass silently.
//!
//! | field | events | flow |
//! | --- | --- | --- |
//! | `continue: false` (+ `stopReason`) | all | `Terminate {stopReason}`; wins over everything else |
//! | `decision: "block"` + `reason` | PreToolUse | `Skip {reason}` (deprecated form of deny) |
//! | | PostToolUse, PostToolUseFailure | context `[reason]`: the model is told |
//! | | UserPromptSubmit | `Skip {reason}`: the prompt is dropped |
//! | | Stop | `Resume {reason}`: keep working |
//! | `decision: "approve"` | PreToolUse | `Continue` |
//! | `hookSpecificOutput.permissionDecision: "allow"` | PreToolUse | `Continue`, or `RewriteArgs(updatedInput)` |
//! | `permissionDecision: "deny"` | PreToolUse | `Skip {permissionDecisionReason}` |
//! | `permissionDecision: "ask"` / `"defer"` | PreToolUse | `Ask {permissionDecisionReason}`: the agent's approver decides (none: refused, fail closed) |
//! | `hookSpecificOutput.decision.behavior: "allow"` | PermissionRequest | `Allow`; with `decision.updatedInput`, `Allow` of the call with that input (the new arguments are applied before the allow) |
//! | `decision.behavior: "deny"` | PermissionRequest | `Skip {decision.message}`, `Terminate` with `decision.interrupt: true`; no decision object: `Continue` |
//! | `permissionDecision: "deny"`, or `decision: "block"` + `reason` | PreModelSwitch | `Skip {reason}`: the model is not switched |
//! | `permissionDecision: "ask"` / `"defer"` | PreModelSwitch | `Skip {reason}`: nobody approves model switches here, so the switch is refused (as a Claude Code session without a user to ask refuses it) |
//! | `permissionDecision: "allow"` | PreModelSwitch | `Continue` |
//! | `decision: "block"` + `reason` | SubagentStop | `Resume {reason}`, as Stop |
//! | | PreCompact | `Skip {reason}`: no compaction |
//! | | PostToolBatch | `Terminate {reason}`: the agent loop stops |
//! | `hookSpecificOutput.updatedInput` | PreToolUse, with allow/ask | `RewriteArgs` |
//! | `hookSpecificOutput.updatedToolOutput` (or `updatedMCPToolOutput`) | PostToolUse | `RewriteResult`: the model sees the new result |
//! | `hookSpecificOutput.additionalContext` | SessionStart, SubagentStart, PreToolUse, PostToolUse, PostToolUseFailure, PostToolBatch, PostModelSwitch, extension events | context (after a block `reason`, if any) |
//! | | UserPromptSubmit | prompt rewritten: prompt, blank line, context |
//! | | Stop, SubagentStop | `Resume {additionalContext}` (non-error feedback that keeps the agent working; after a block `reason`, if any) |
//! | `systemMessage` | all | a diagnostic for the operator |
//! | `stopReason` without `continue: false`, `suppressOutput` | all | accepted, no effect |
//!
//! One output can ask for several things: the decision's flow (allow with
//! `updatedInput`, a deny, a result rewrite) and context items beside it.
//! The shell hook applies both in its fold, context first
//! ([`Invocation::fold_into`](crate::Invocation::fold_into)); where the flow is
//! `Continue` the context is the flow (`InjectContext`). Context on a phase
//! that does not honour `inject_context` is dropped with a diagnostic.
//!
//! `hookSpecificOutput.hookEventName` is required and must equal the event's
//! name. A decision field on an event not listed for it (for example
//! `permissionDecision` on PostToolUse) is `invalid_output`, never silently
//! ignored.

use hooks_plan::Phase;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{
    ProtocolDecision, ProtocolFailure, exit2_flow, frame_json, nonzero_exit, too_large, trim_frame,
};
use crate::{Captured, ContextItem, Flow, StepEvent};

mod input;
mod payload;

pub use input::hook_event_name;
pub(crate) use input::stdin_payload;
pub use payload::{PayloadError, event_phase, read_payload};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Output {
    #[serde(rename = "continue")]
    cont: Option<bool>,
    stop_reason: Option<String>,
    suppress_output: Option<bool>,
    system_message: Option<String>,
    decision: Option<LegacyDecision>,
    reason: Option<String>,
    hook_specific_output: Option<Specific>,
    /// Fields Claude Code does not define (or this project does not use):
    /// ignored, each noted in the record.
    #[serde(flatten)]
    unknown: Map<String, Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum LegacyDecision {
    Block,
    Approve,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Specific {
    hook_event_name: String,
    permission_decision: Option<Permission>,
    permission_decision_reason: Option<String>,
    updated_input: Option<Value>,
    additional_context: Option<String>,
    updated_tool_output: Option<Value>,
    #[serde(rename = "updatedMCPToolOutput")]
    updated_mcp_tool_output: Option<Value>,
    /// PermissionRequest's answer.
    decision: Option<PermissionAnswer>,
    #[serde(flatten)]
    unknown: Map<String, Value>,
}

/// PermissionRequest's `hookSpecificOutput.decision`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PermissionAnswer {
    behavior: Behavior,
    updated_input: Option<Value>,
    message: Option<String>,
    #[serde(default)]
    interrupt: bool,
    #[serde(flatten)]
    unknown: Map<String, Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Behavior {
    Allow,
    Deny,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Permission {
    Allow,
    Deny,
    Ask,
    Defer,
}

/// Parses a Claude Code hook's result for `event` into a
/// [`ProtocolDecision`]: its flow, context items beside it and notes (see
/// the module table).
///
/// # Errors
///
/// [`ProtocolFailure`]: `output_too_large` when stdout was cut at its cap
/// (exit 0 only), `nonzero_exit` for exit codes other than 0 and 2,
/// `invalid_output` for framing errors, known fields of the wrong type and
/// decision fields on the wrong event.
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
        2 => {
            let out = exit2_output(stdout);
            if let Some(out) = &out
                && out.cont == Some(false)
            {
                return Ok(ProtocolDecision::flow(stop_flow(out, hook_id)));
            }
            return Ok(exit2_flow(
                phase,
                out.and_then(blocking_reason),
                stderr,
                hook_id,
            ));
        }
        code => return Err(nonzero_exit(code, stderr)),
    }
    read_output(event, stdout, hook_id)
}

/// Reads a Claude Code hook's output document for `event` (its stdout
/// after exit 0, or an `http` hook's response body): plain text, or one
/// JSON object (see the module table).
///
/// # Errors
///
/// [`ProtocolFailure`]: `output_too_large` when the output was cut at its
/// cap, `invalid_output` for framing errors, known fields of the wrong
/// type and decision fields on the wrong event.
pub(crate) fn read_output(
    event: &StepEvent<'_>,
    stdout: &Captured,
    hook_id: &str,
) -> Result<ProtocolDecision, ProtocolFailure> {
    if stdout.truncated {
        return Err(too_large(stdout));
    }
    let (body, _) = trim_frame(&stdout.bytes);
    if body.is_empty() {
        return Ok(ProtocolDecision::default());
    }
    if body[0] != b'{' {
        return Ok(plain_text(event, body));
    }
    let map = match frame_json(&stdout.bytes) {
        Ok(Some(map)) => map,
        Ok(None) => return Ok(ProtocolDecision::default()),
        // Claude Code parses stdout as JSON only when it is valid JSON;
        // anything else is plain text, whatever its first byte.
        Err(failure) => {
            let mut decision = plain_text(event, body);
            decision.notes.push(format!(
                "stdout starts with `{{` but is not one JSON object ({}): read as plain text",
                failure.detail
            ));
            return Ok(decision);
        }
    };
    let out: Output = serde_json::from_value(Value::Object(map)).map_err(|e| {
        ProtocolFailure::invalid(format!("invalid Claude Code hook output: {e}"), None)
    })?;
    to_decision(event, out, hook_id).map_err(|d| ProtocolFailure::invalid(d, None))
}

/// `output` (a hook's stdout or body in a protocol built on this one:
/// Gemini CLI's, the Copilot CLI's) with its JSON object rewritten into
/// the Claude Code output it corresponds to on `event`: `rewrite` turns
/// the object into the top-level fields and the `hookSpecificOutput`
/// fields (named `hookEventName` here). Plain text and a cut output pass
/// as they are, for [`read_output`] to judge.
pub(crate) fn rewritten_output(
    event: &StepEvent<'_>,
    output: &Captured,
    rewrite: impl FnOnce(Map<String, Value>) -> (Map<String, Value>, Map<String, Value>),
) -> Captured {
    if output.truncated {
        return output.clone();
    }
    let Ok(Some(map)) = frame_json(&output.bytes) else {
        return output.clone();
    };
    let (mut out, mut specific) = rewrite(map);
    if !specific.is_empty() {
        specific.insert("hookEventName".into(), hook_event_name(event).into());
        out.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    let bytes = serde_json::to_vec(&Value::Object(out)).unwrap_or_default();
    Captured {
        total_len: bytes.len() as u64,
        bytes,
        truncated: false,
    }
}

/// Plain-text stdout (`body`, framed) on `event`: context on
/// `UserPromptSubmit` (appended to the prompt) and `SessionStart`, nothing
/// elsewhere (Claude Code writes it to its debug log).
fn plain_text(event: &StepEvent<'_>, body: &[u8]) -> ProtocolDecision {
    let text = String::from_utf8_lossy(body);
    match *event {
        StepEvent::UserPrompt { prompt } => {
            ProtocolDecision::flow(Flow::RewritePrompt(format!("{prompt}\n\n{text}").into()))
        }
        StepEvent::RunStart { .. } | StepEvent::AfterModelSelect { .. } => {
            ProtocolDecision::default()
                .with_context(event.kind(), vec![ContextItem::user(text.into_owned())])
        }
        _ => ProtocolDecision::default(),
    }
}

/// The output object of an exit-2 hook's stdout, when it holds one that
/// Claude Code would read (it reads stdout's JSON on every exit code).
fn exit2_output(stdout: &Captured) -> Option<Output> {
    let map = frame_json(&stdout.bytes).ok().flatten()?;
    serde_json::from_value(Value::Object(map)).ok()
}

/// `continue: false`'s flow: `Terminate` with `stopReason`, or a text
/// naming the hook.
fn stop_flow(out: &Output, hook_id: &str) -> Flow {
    let reason = out
        .stop_reason
        .clone()
        .unwrap_or_else(|| format!("hook `{hook_id}` stopped the run (`\"continue\": false`)"));
    Flow::terminate(reason)
}

/// The reason of the blocking decision in an exit-2 hook's output object,
/// when it makes one (`decision: "block"` + `reason`,
/// `permissionDecision: "deny"` + `permissionDecisionReason`).
fn blocking_reason(out: Output) -> Option<String> {
    let spec = out.hook_specific_output;
    match (out.decision, out.reason) {
        (Some(LegacyDecision::Block), Some(reason)) => Some(reason),
        _ => spec
            .filter(|s| s.permission_decision == Some(Permission::Deny))
            .and_then(|s| s.permission_decision_reason),
    }
}

fn to_decision(
    event: &StepEvent<'_>,
    out: Output,
    hook_id: &str,
) -> Result<ProtocolDecision, String> {
    let phase = event.kind();
    let name = hook_event_name(event);
    misplaced(&out)?;
    let mut diagnostics = Vec::new();
    let mut notes: Vec<String> = out
        .unknown
        .keys()
        .map(|k| format!("unknown output field `{k}` ignored"))
        .collect();
    if let Some(spec) = &out.hook_specific_output {
        notes.extend(
            spec.unknown
                .keys()
                .map(|k| format!("unknown output field `hookSpecificOutput.{k}` ignored")),
        );
    }
    if let Some(msg) = &out.system_message {
        diagnostics.push(format!("hook `{hook_id}`: {msg}"));
    }
    let _ = out.suppress_output;
    if let Some(spec) = &out.hook_specific_output
        && spec.hook_event_name != name
    {
        return Err(format!(
            "`hookSpecificOutput.hookEventName` is `{}` but this is a `{name}` event",
            spec.hook_event_name
        ));
    }
    if out.cont == Some(false) {
        return Ok(ProtocolDecision {
            flow: stop_flow(&out, hook_id),
            diagnostics,
            notes,
            ..ProtocolDecision::default()
        });
    }
    if out.stop_reason.is_some() {
        notes.push("`stopReason` without `\"continue\": false` ignored".to_owned());
    }
    if out.reason.is_some() && out.decision.is_none() {
        notes.push("`reason` without `decision` ignored".to_owned());
    }
    let spec = out.hook_specific_output;
    let mut context = Vec::new();
    let mut args = None;
    let flow = match phase {
        Phase::BeforeTool => {
            let mut flow = match (out.decision, out.reason) {
                (Some(LegacyDecision::Block), reason) => Some(Flow::skip(
                    reason.unwrap_or_else(|| format!("blocked by hook `{hook_id}`")),
                )),
                (Some(LegacyDecision::Approve), _) | (None, _) => None,
            };
            if let Some(spec) = spec {
                reject_tool_output(&spec, name)?;
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
                        flow = Some(Flow::ask(reason.unwrap_or_else(|| {
                            format!("hook `{hook_id}` asks for approval of this call")
                        })));
                    }
                    Some(Permission::Allow) | None => {
                        if let Some(input) = spec.updated_input {
                            flow = Some(Flow::RewriteArgs(input));
                        }
                    }
                }
                if spec.permission_decision != Some(Permission::Defer) {
                    context.extend(spec.additional_context.map(ContextItem::user));
                }
            }
            flow.unwrap_or(Flow::Continue)
        }
        Phase::AfterTool => {
            if out.decision == Some(LegacyDecision::Approve) {
                return Err(not_on("decision: \"approve\"", name, "PreToolUse"));
            }
            if out.decision == Some(LegacyDecision::Block) {
                context.push(ContextItem::user(out.reason.unwrap_or_else(|| {
                    format!("hook `{hook_id}` flagged this tool result")
                })));
            }
            let mut flow = Flow::Continue;
            if let Some(spec) = spec {
                reject_permission(&spec, name)?;
                context.extend(spec.additional_context.map(ContextItem::user));
                let rewrite = spec.updated_tool_output.or(spec.updated_mcp_tool_output);
                match (rewrite, name) {
                    (Some(_), "PostToolUseFailure") => {
                        return Err(not_on("updatedToolOutput", name, "PostToolUse"));
                    }
                    (Some(result), _) => flow = Flow::RewriteResult(result),
                    (None, _) => {}
                }
            }
            flow
        }
        Phase::UserPrompt => {
            if out.decision == Some(LegacyDecision::Approve) {
                return Err(not_on("decision: \"approve\"", name, "PreToolUse"));
            }
            if let Some(spec) = &spec {
                reject_permission(spec, name)?;
                reject_tool_output(spec, name)?;
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
                match (spec.and_then(|s| s.additional_context), *event) {
                    (Some(ctx), StepEvent::UserPrompt { prompt }) => {
                        Flow::RewritePrompt(format!("{prompt}\n\n{ctx}").into())
                    }
                    _ => Flow::Continue,
                }
            }
        }
        Phase::PermissionRequest => {
            if out.decision.is_some() {
                return Err(not_on(
                    "decision: \"block\"",
                    name,
                    "PostToolUse, UserPromptSubmit, Stop, PreCompact, PostToolBatch",
                ));
            }
            let mut flow = Flow::Continue;
            if let Some(spec) = spec {
                reject_permission(&spec, name)?;
                reject_tool_output(&spec, name)?;
                context.extend(spec.additional_context.map(ContextItem::user));
                if let Some(answer) = spec.decision {
                    notes.extend(answer.unknown.keys().map(|k| {
                        format!("unknown output field `hookSpecificOutput.decision.{k}` ignored")
                    }));
                    let message = answer
                        .message
                        .unwrap_or_else(|| format!("permission denied by hook `{hook_id}`"));
                    flow = match (answer.behavior, answer.updated_input) {
                        (Behavior::Allow, Some(input)) => {
                            args = Some(input);
                            Flow::Allow
                        }
                        (Behavior::Allow, None) => Flow::Allow,
                        (Behavior::Deny, _) if answer.interrupt => Flow::terminate(message),
                        (Behavior::Deny, _) => Flow::skip(message),
                    };
                }
            }
            flow
        }
        Phase::BeforeModelSelect => model_switch(out.decision, out.reason, spec, name, hook_id)?,
        Phase::BeforeCompaction | Phase::AfterToolBatch => {
            if out.decision == Some(LegacyDecision::Approve) {
                return Err(not_on("decision: \"approve\"", name, "PreToolUse"));
            }
            if let Some(spec) = spec {
                reject_permission(&spec, name)?;
                reject_tool_output(&spec, name)?;
                context.extend(spec.additional_context.map(ContextItem::user));
            }
            match (out.decision, phase) {
                (Some(_), Phase::BeforeCompaction) => Flow::skip(
                    out.reason
                        .unwrap_or_else(|| format!("compaction blocked by hook `{hook_id}`")),
                ),
                (Some(_), _) => Flow::terminate(
                    out.reason
                        .unwrap_or_else(|| format!("hook `{hook_id}` stopped the agent loop")),
                ),
                (None, _) => Flow::Continue,
            }
        }
        Phase::Stop | Phase::SubagentStop => {
            let mut feedback = Vec::new();
            match out.decision {
                Some(LegacyDecision::Block) => feedback.push(
                    out.reason
                        .unwrap_or_else(|| format!("hook `{hook_id}` asked to keep working")),
                ),
                Some(LegacyDecision::Approve) => {
                    return Err(not_on("decision: \"approve\"", name, "PreToolUse"));
                }
                None => {}
            }
            if let Some(spec) = spec {
                reject_permission(&spec, name)?;
                reject_tool_output(&spec, name)?;
                feedback.extend(spec.additional_context);
            }
            if feedback.is_empty() {
                Flow::Continue
            } else {
                Flow::resume(feedback.join("\n\n"))
            }
        }
        _ => {
            if out.decision.is_some() {
                return Err(not_on(
                    "decision",
                    name,
                    "PreToolUse, PostToolUse, PostToolUseFailure, UserPromptSubmit, Stop",
                ));
            }
            if let Some(spec) = spec {
                reject_permission(&spec, name)?;
                reject_tool_output(&spec, name)?;
                context.extend(spec.additional_context.map(ContextItem::user));
            }
            Flow::Continue
        }
    };
    let decision = ProtocolDecision {
        flow,
        args,
        diagnostics,
        notes,
        ..ProtocolDecision::default()
    };
    Ok(decision.with_context(phase, context))
}

/// PreModelSwitch's answer (the module table): a deny, an ask (refused:
/// nobody approves model switches here) or a block keeps the current
/// model; an allow or no answer lets the switch happen.
fn model_switch(
    decision: Option<LegacyDecision>,
    reason: Option<String>,
    spec: Option<Specific>,
    name: &str,
    hook_id: &str,
) -> Result<Flow, String> {
    if decision == Some(LegacyDecision::Approve) {
        return Err(not_on("decision: \"approve\"", name, "PreToolUse"));
    }
    let mut flow = decision.map(|_| {
        Flow::skip(reason.unwrap_or_else(|| format!("model switch blocked by hook `{hook_id}`")))
    });
    if let Some(spec) = spec {
        reject_tool_output(&spec, name)?;
        if spec.updated_input.is_some() {
            return Err(not_on("updatedInput", name, "PreToolUse"));
        }
        if flow.is_some() && spec.permission_decision.is_some() {
            return Err(
                "give `hookSpecificOutput.permissionDecision` or `decision`, not both".to_owned(),
            );
        }
        let reason = spec.permission_decision_reason;
        match spec.permission_decision {
            Some(Permission::Deny) => {
                flow = Some(Flow::skip(reason.unwrap_or_else(|| {
                    format!("model switch denied by hook `{hook_id}`")
                })));
            }
            Some(Permission::Ask | Permission::Defer) => {
                let why = reason.unwrap_or_else(|| format!("hook `{hook_id}` asks for approval"));
                flow = Some(Flow::skip(format!(
                    "{why} (nobody approves model switches here: the switch is refused)"
                )));
            }
            Some(Permission::Allow) | None => {}
        }
    }
    Ok(flow.unwrap_or(Flow::Continue))
}

/// The fields Claude Code reads only inside `hookSpecificOutput`.
const SPECIFIC_FIELDS: [&str; 7] = [
    "hookEventName",
    "permissionDecision",
    "permissionDecisionReason",
    "updatedInput",
    "additionalContext",
    "updatedToolOutput",
    "updatedMCPToolOutput",
];

/// The fields Claude Code reads only at the top level of the output.
const TOP_LEVEL_FIELDS: [&str; 5] = [
    "continue",
    "stopReason",
    "suppressOutput",
    "systemMessage",
    "reason",
];

/// A known field in the wrong place (`permissionDecision` at the top
/// level, `continue` inside `hookSpecificOutput`): Claude Code would not
/// read it, so what the script's author meant (often a deny) would pass
/// silently. Genuinely unknown fields are not judged here.
fn misplaced(out: &Output) -> Result<(), String> {
    if let Some(key) = out
        .unknown
        .keys()
        .find(|k| SPECIFIC_FIELDS.contains(&k.as_str()))
    {
        return Err(format!(
            "`{key}` belongs inside `hookSpecificOutput`; at the top level Claude Code does not read it"
        ));
    }
    if let Some(spec) = &out.hook_specific_output
        && let Some(key) = spec
            .unknown
            .keys()
            .find(|k| TOP_LEVEL_FIELDS.contains(&k.as_str()))
    {
        return Err(format!(
            "`hookSpecificOutput.{key}` belongs at the top level of the output; inside `hookSpecificOutput` Claude Code does not read it"
        ));
    }
    Ok(())
}

fn reject_permission(spec: &Specific, name: &str) -> Result<(), String> {
    if spec.permission_decision.is_some() {
        return Err(not_on(
            "permissionDecision",
            name,
            "PreToolUse, PreModelSwitch",
        ));
    }
    if spec.permission_decision_reason.is_some() {
        return Err(not_on(
            "permissionDecisionReason",
            name,
            "PreToolUse, PreModelSwitch",
        ));
    }
    if spec.updated_input.is_some() {
        return Err(not_on("updatedInput", name, "PreToolUse"));
    }
    Ok(())
}

fn reject_tool_output(spec: &Specific, name: &str) -> Result<(), String> {
    if spec.updated_tool_output.is_some() || spec.updated_mcp_tool_output.is_some() {
        return Err(not_on("updatedToolOutput", name, "PostToolUse"));
    }
    Ok(())
}

fn not_on(field: &str, event: &str, allowed: &str) -> String {
    format!("`{field}` is not allowed on `{event}` events; it is honoured on: {allowed}")
}
