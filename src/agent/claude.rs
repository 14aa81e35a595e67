//! The engine's answers in Claude Code's hook output format (Claude Code
//! hooks reference, "Hook output", "Decision control"): the inverse of
//! what `protocol: claude` reads from a script
//! (`hooks-runtime`'s `shell/protocol/claude`), so a decision survives the
//! round trip. Every answer is an exit-0 JSON object (see the
//! [engine](super)'s "JSON first").
//!
//! | event | decision | output |
//! | --- | --- | --- |
//! | any | the run must end (`terminate`) | `continue: false`, `stopReason` (and, on PreToolUse / PermissionRequest, also a deny) |
//! | `PreToolUse` | run, arguments unchanged | `{}`: Claude Code's own permission flow decides |
//! | | run with rewritten arguments | `permissionDecision: "allow"` + `updatedInput` (Claude Code applies `updatedInput` only with `allow` or `ask`; its permission rules' deny and ask still apply) |
//! | | skip | `permissionDecision: "deny"` + `permissionDecisionReason` |
//! | | ask | `permissionDecision: "ask"` + `permissionDecisionReason` (+ `updatedInput` when rewritten) |
//! | `PermissionRequest` | allow | `decision: {behavior: "allow"}` (+ `updatedInput` when rewritten) |
//! | | deny | `decision: {behavior: "deny", message}` |
//! | | ask, or no hook decided | no `decision`: Claude Code shows its dialog (a hook's reason goes to `systemMessage`) |
//! | `PostToolUse` | result rewritten | `updatedMCPToolOutput` for `mcp__` tools, `updatedToolOutput` otherwise |
//! | `UserPromptSubmit` | skip | `decision: "block"` + `reason` |
//! | | prompt rewritten | `additionalContext`: what hooks appended (`prompt`, blank line, text: as `protocol: claude` reads it back), else the whole rewritten prompt with a note (Claude Code cannot replace a prompt) |
//! | `Stop`, `SubagentStop` | resume (keep working) | `decision: "block"` + `reason` |
//! | | capped, stop | `{}` (a cap's diagnostic in `systemMessage`) |
//! | `PreCompact` | skip | `decision: "block"` + `reason` |
//! | `PreModelSwitch` | select the requested model (`to_model`) | `{}`: the switch goes ahead |
//! | | block | `permissionDecision: "deny"` + `permissionDecisionReason`: the model is not switched |
//! | | select another model | `permissionDecision: "deny"` with a reason naming the hooks' model: Claude Code takes no model from a hook, and denying keeps the requested model from being used (fail closed) |
//! | context items | on `SessionStart`, `SubagentStart`, `UserPromptSubmit`, `PreToolUse`, `PostToolUse`, `PostToolUseFailure`, `PostToolBatch`, `PostModelSwitch` | `hookSpecificOutput.additionalContext`, items joined by blank lines; elsewhere dropped with a note |
//! | diagnostics | any | `systemMessage` (shown to the user), one per line |
//!
//! `hookSpecificOutput` always carries `hookEventName`, the input's event
//! name. Reasons, context and messages are redacted; rewritten tool
//! input and output are passed as the hooks wrote them.

use std::borrow::Cow;

use hooks_runtime::{
    CompactionDecision, CompletionDecision, Decided, ModelDecision, OwnedEvent, PermissionDecision,
    PromptDecision, StopDecision, ToolDecision,
};
use hooks_schema::Phase;
use serde_json::{Map, Value, json};

use super::{Answer, Decision, Request, redact};

/// Claude Code's events whose `hookSpecificOutput` takes
/// `additionalContext`.
pub const CONTEXT_EVENTS: [&str; 8] = [
    "SessionStart",
    "SubagentStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "PostModelSwitch",
];

/// An output object being built.
struct Output<'a> {
    event_name: &'a str,
    top: Map<String, Value>,
    specific: Map<String, Value>,
    messages: Vec<String>,
}

impl<'a> Output<'a> {
    fn new(event_name: &'a str) -> Self {
        Output {
            event_name,
            top: Map::new(),
            specific: Map::new(),
            messages: Vec::new(),
        }
    }

    fn top(&mut self, key: &str, value: impl Into<Value>) {
        self.top.insert(key.to_owned(), value.into());
    }

    fn specific(&mut self, key: &str, value: impl Into<Value>) {
        self.specific.insert(key.to_owned(), value.into());
    }

    /// `continue: false` with `reason` as `stopReason`.
    fn terminate(&mut self, reason: &str) {
        self.top("continue", false);
        self.top("stopReason", redact(reason));
    }

    /// `decision: "block"` with `reason`.
    fn block(&mut self, reason: &str) {
        self.top("decision", "block");
        self.top("reason", redact(reason));
    }

    /// PreToolUse's and PreModelSwitch's `permissionDecision` with its
    /// reason.
    fn permission(&mut self, decision: &str, reason: Option<&str>) {
        self.specific("permissionDecision", decision);
        if let Some(reason) = reason {
            self.specific("permissionDecisionReason", redact(reason));
        }
    }

    /// `additionalContext`, where the event takes it.
    fn context(&mut self, texts: &[&str]) {
        if texts.is_empty() {
            return;
        }
        if CONTEXT_EVENTS.contains(&self.event_name) {
            self.specific("additionalContext", redact(&texts.join("\n\n")));
        } else {
            self.messages.push(format!(
                "{} context item(s) dropped: Claude Code's `{}` takes no additionalContext",
                texts.len(),
                self.event_name
            ));
        }
    }

    fn finish(mut self) -> Answer {
        if !self.messages.is_empty() {
            let text = redact(&self.messages.join("\n"));
            self.top("systemMessage", text);
        }
        if !self.specific.is_empty() {
            let mut specific = Map::new();
            specific.insert("hookEventName".into(), self.event_name.into());
            specific.extend(self.specific);
            self.top
                .insert("hookSpecificOutput".into(), Value::Object(specific));
        }
        Answer::json(Value::Object(self.top))
    }
}

/// Appends `notes` to the answer object `top`'s `systemMessage` (shown to
/// the user), one per line, redacted: what an adapted answer
/// ([`super::codex`], [`super::gemini`]) says it dropped or changed.
pub(crate) fn add_messages(top: &mut Map<String, Value>, notes: &[String]) {
    if notes.is_empty() {
        return;
    }
    let text = match top.get("systemMessage").and_then(Value::as_str) {
        Some(before) => format!("{before}\n{}", notes.join("\n")),
        None => notes.join("\n"),
    };
    top.insert("systemMessage".into(), redact(&text).into());
}

/// `Some` of a value the hooks rewrote, `None` when it is the input.
// The `Cow` itself is the answer: owned means rewritten.
#[allow(clippy::ptr_arg)]
fn rewritten<'v>(value: &'v Cow<'_, Value>) -> Option<&'v Value> {
    match value {
        Cow::Owned(v) => Some(v),
        Cow::Borrowed(_) => None,
    }
}

/// The answer to `request` for `decided`, in Claude Code's output format
/// (see the module table).
pub fn answer(request: &Request, decided: &Decided<Decision<'_>>) -> Answer {
    let mut out = Output::new(&request.event_name);
    let texts: Vec<&str> = decided.context.iter().map(|c| &*c.content).collect();
    out.messages
        .extend(decided.diagnostics.iter().map(ToString::to_string));
    match &decided.decision {
        Decision::Tool(d) => match d {
            ToolDecision::Run { args } => {
                if let Some(args) = rewritten(args) {
                    out.permission("allow", None);
                    out.specific("updatedInput", args.clone());
                }
            }
            ToolDecision::Skip { reason, .. } => out.permission("deny", Some(reason)),
            ToolDecision::Ask { reason, args } => {
                out.permission("ask", Some(reason));
                if let Some(args) = rewritten(args) {
                    out.specific("updatedInput", args.clone());
                }
            }
            ToolDecision::Terminate { reason } => {
                out.terminate(reason);
                out.permission("deny", Some(reason));
            }
        },
        Decision::Permission(d) => match d {
            PermissionDecision::Allow { args } => {
                let mut decision = json!({"behavior": "allow"});
                if let Some(args) = rewritten(args) {
                    decision["updatedInput"] = args.clone();
                }
                out.specific("decision", decision);
            }
            PermissionDecision::Deny { reason } => {
                out.specific(
                    "decision",
                    json!({"behavior": "deny", "message": redact(reason)}),
                );
            }
            PermissionDecision::Ask { reason, args } => {
                if let Some(reason) = reason {
                    out.messages.push(format!("approval asked: {reason}"));
                }
                if rewritten(args).is_some() {
                    out.messages.push(
                        "the hooks' rewritten arguments are not applied: Claude Code takes `updatedInput` on PermissionRequest only with an allow".to_owned(),
                    );
                }
            }
            PermissionDecision::Terminate { reason } => {
                out.terminate(reason);
                out.specific(
                    "decision",
                    json!({"behavior": "deny", "message": redact(reason), "interrupt": true}),
                );
            }
        },
        Decision::AfterTool(d) => {
            if let Some(reason) = &d.terminate {
                out.terminate(reason);
            }
            if let Some(result) = rewritten(&d.result) {
                match &request.event {
                    _ if request.event_name == "PostToolUseFailure" => out.messages.push(
                        "the hooks' rewritten result is not applied: Claude Code takes no output rewrite on PostToolUseFailure".to_owned(),
                    ),
                    OwnedEvent::AfterTool { tool_name, .. } if tool_name.starts_with("mcp__") => {
                        out.specific("updatedMCPToolOutput", result.clone());
                    }
                    _ => out.specific("updatedToolOutput", result.clone()),
                }
            }
        }
        Decision::Prompt(d) => match d {
            PromptDecision::Send { prompt } => {
                if let (Cow::Owned(new), OwnedEvent::UserPrompt { prompt: old }) =
                    (prompt, &request.event)
                {
                    prompt_context(&mut out, old, new);
                }
            }
            PromptDecision::Skip { reason } => out.block(reason),
            PromptDecision::Terminate { reason } => out.terminate(reason),
        },
        Decision::Stop(d) => match d {
            StopDecision::Stop | StopDecision::Capped { .. } => {}
            StopDecision::Resume { reason } => out.block(reason),
            StopDecision::Terminate { reason } => out.terminate(reason),
        },
        Decision::Compaction(d) => match d {
            CompactionDecision::Compact => {}
            CompactionDecision::Skip { reason } => out.block(reason),
            CompactionDecision::Terminate { reason } => out.terminate(reason),
        },
        Decision::Model(d) => match d {
            ModelDecision::Select { model } => {
                let requested = request.event.as_step().selected_model();
                if requested.is_some_and(|to| to != model.as_ref()) {
                    let reason = format!(
                        "the hooks chose model `{model}` instead of `{}`; Claude Code takes no model from a hook, so the switch is denied (switch to `{model}` instead)",
                        requested.unwrap_or_default()
                    );
                    out.permission("deny", Some(&reason));
                }
            }
            ModelDecision::Block { reason } => out.permission("deny", Some(reason)),
            ModelDecision::Terminate { reason } => {
                out.terminate(reason);
                out.permission("deny", Some(reason));
            }
        },
        Decision::Completion(CompletionDecision::Terminate { reason }) => out.terminate(reason),
        Decision::Observed(d) => {
            if let Some(reason) = &d.terminate {
                out.terminate(reason);
            }
        }
        Decision::Completion(_) | Decision::InvalidCall(_) => {}
    }
    out.context(&texts);
    out.finish()
}

/// A rewritten prompt as `additionalContext`: what the hooks appended
/// after a blank line (how `protocol: claude` reads `additionalContext`
/// back), else the whole new prompt with a note.
fn prompt_context(out: &mut Output<'_>, old: &str, new: &str) {
    let appended = new
        .strip_prefix(old)
        .and_then(|rest| rest.strip_prefix("\n\n"));
    match appended {
        Some(text) => out.specific("additionalContext", redact(text)),
        None => {
            out.specific(
                "additionalContext",
                redact(&format!("The hooks rewrote the user's prompt to:\n\n{new}")),
            );
            out.messages.push(
                "Claude Code cannot replace a prompt: the hooks' rewrite is given as context"
                    .to_owned(),
            );
        }
    }
}

/// The answer when no decision could be made for `payload` (`error`
/// says why): `{}` for an event without a phase here; exit 2 with
/// `error` on stderr when the input names no event (not JSON, no
/// `hook_event_name`); otherwise fail-closed JSON where the event gates
/// something (PreToolUse: deny; PermissionRequest: deny; UserPromptSubmit:
/// block; PreModelSwitch: deny) and `systemMessage` with `error` on every event.
pub fn error_answer(payload: &[u8], error: &dyn std::fmt::Display) -> Answer {
    let text = payload.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(payload);
    let value: Option<Value> = serde_json::from_slice(text).ok();
    let Some(name) = value
        .as_ref()
        .and_then(|v| v.get("hook_event_name"))
        .and_then(Value::as_str)
    else {
        return Answer::blocking_error(&format!("agent-hooks: {error}"));
    };
    let Some(phase) = hooks_runtime::claude_code::event_phase(name) else {
        // An event with no phase here (a newer agent's, or a misspelled
        // name): nothing to decide, said where the agent logs it.
        let mut answer = Answer::json(Value::Object(Map::new()));
        answer.stderr = redact(&format!(
            "agent-hooks: event `{name}` has no phase here: nothing decided"
        ));
        return answer;
    };
    let message = format!("agent-hooks could not decide this `{name}` event: {error}");
    let mut out = Output::new(name);
    match phase {
        Phase::BeforeTool => out.permission("deny", Some(&message)),
        Phase::PermissionRequest => out.specific(
            "decision",
            json!({"behavior": "deny", "message": redact(&message)}),
        ),
        Phase::UserPrompt => out.block(&message),
        Phase::BeforeModelSelect => out.permission("deny", Some(&message)),
        _ => {}
    }
    out.messages.push(message);
    out.finish()
}
