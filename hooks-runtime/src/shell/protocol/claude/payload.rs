//! Claude Code's hook input read from the agent's side: the inverse of
//! [`stdin_payload`](super::stdin_payload), for an entry point that Claude
//! Code calls as its hook (`agent-hooks hook --agent claude`, a server
//! behind a `type: http` hook).
//!
//! The event names come from the one table,
//! [`CLAUDE_CODE_EVENTS`](hooks_plan::CLAUDE_CODE_EVENTS)
//! ([`Phase::from_claude_event`]); the fields per event are those
//! [`stdin_payload`](super::stdin_payload) writes (the module table of
//! [`super`]), read back:
//!
//! | `hook_event_name` | event | fields read |
//! | --- | --- | --- |
//! | `SessionStart` | `run_start` | `source`, `model` |
//! | `UserPromptSubmit` | `user_prompt` | `prompt` |
//! | `PreModelSwitch` | `before_model_select` | the selection: `from_model` → `from` (`null` when absent), `to_model` → `to`, every other field but the session identity (`source`, `requested_model`, `context_tokens`, `prompt_cache_warm`, `cache_ttl`, `estimated_cache_write_usd`, `pricing`, ...) as it is |
//! | `PostModelSwitch` | `after_model_select` | as PreModelSwitch |
//! | `PreToolUse` | `before_tool` | `tool_name`, `tool_use_id`, `tool_input` |
//! | `PermissionRequest` | `permission_request` | as PreToolUse, `permission_suggestions` |
//! | `PostToolUse` | `after_tool`, outcome `success` | as PreToolUse, `tool_response`, `duration_ms` |
//! | `PostToolUseFailure` | `after_tool`, outcome `error` (message and result: `error`) | as PreToolUse, `error`, `duration_ms` |
//! | `PostToolBatch` | `after_tool_batch` | `tool_calls` |
//! | `Stop` | `stop` | `last_assistant_message`, `stop_hook_active` (loop count 1 when true; a numeric `loop_count` wins), `background_tasks`, `session_crons` |
//! | `SubagentStop` | `subagent_stop` | as Stop, `agent_id`, `agent_type`, `agent_transcript_path` |
//! | `SubagentStart` | `subagent_start` | `agent_id`, `agent_type` |
//! | `Notification` | `notification` | `message`, `title`, `notification_type` |
//! | `PreCompact` | `before_compaction` | `trigger`, `custom_instructions` |
//! | `PostCompact` | `after_compaction` | `trigger`, `compact_summary` |
//! | `SessionEnd` | `run_end` (`reason`); `run_error` when `reason` is `error` and an `error` text is given | `reason`, `error` |
//!
//! The session identity (`session_id`, `transcript_path`, `cwd`,
//! `permission_mode`) goes into the [`HookContext`], whose run id is the
//! session id. Fields not listed are ignored (Claude Code adds fields over
//! time); a listed field of the wrong type is an error.

use hooks_plan::Phase;
use serde_json::{Map, Value};

use crate::{HookContext, OwnedEvent, ToolFailure, ToolOutcome};

/// Why a Claude Code hook input could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PayloadError {
    /// The input is not a JSON object.
    #[error("the hook input is not a JSON object")]
    NotAnObject,
    /// `hook_event_name` is missing or not a string.
    #[error("the hook input has no `hook_event_name` string")]
    NoEventName,
    /// The event has no phase here (`PermissionDenied`, `TaskCreated`,
    /// ...): nothing to decide. The event's name.
    #[error("Claude Code event `{0}` has no agent-hooks phase")]
    UnknownEvent(String),
    /// A field has the wrong type, or a required one is missing: its name
    /// and what was expected.
    #[error("field `{field}` of a `{event}` input: expected {expected}")]
    Field {
        /// The event's name.
        event: String,
        /// The field.
        field: &'static str,
        /// What it should be (`a string`, `an unsigned integer`, ...).
        expected: &'static str,
    },
}

/// The phase [`read_payload`] reads the Claude Code event `name` as:
/// [`Phase::from_claude_event`], and the extension names `protocol:
/// claude` gives the model events in its payloads (`BeforeCompletion`,
/// `AfterCompletion`; Gemini CLI's `BeforeModel` and `AfterModel` are read
/// as them). `None`: no phase here.
pub fn event_phase(name: &str) -> Option<Phase> {
    Phase::from_claude_event(name).or(match name {
        "BeforeCompletion" => Some(Phase::BeforeCompletion),
        "AfterCompletion" => Some(Phase::AfterCompletion),
        _ => None,
    })
}

/// Reads one Claude Code hook input (the JSON object Claude Code writes
/// to a command hook's stdin, or POSTs to an `http` hook) as our event
/// and the hook context of its session (see the module table).
///
/// # Errors
///
/// [`PayloadError`]: not an object, no event name, an event without a
/// phase here ([`PayloadError::UnknownEvent`]: the caller answers it with
/// no decision), a listed field of the wrong type or a missing
/// `tool_name` on a tool event.
pub fn read_payload(payload: &Value) -> Result<(OwnedEvent, HookContext), PayloadError> {
    let map = payload.as_object().ok_or(PayloadError::NotAnObject)?;
    let name = map
        .get("hook_event_name")
        .and_then(Value::as_str)
        .ok_or(PayloadError::NoEventName)?;
    let phase = event_phase(name).ok_or_else(|| PayloadError::UnknownEvent(name.into()))?;
    let f = Fields { map, event: name };
    let event = match phase {
        Phase::RunStart => OwnedEvent::RunStart {
            source: f.text("source")?,
            model: f.text("model")?,
        },
        Phase::UserPrompt => OwnedEvent::UserPrompt {
            prompt: f.text("prompt")?,
        },
        Phase::BeforeTool => OwnedEvent::BeforeTool {
            tool_name: f.tool_name()?,
            call_id: f.text("tool_use_id")?,
            args: f.object("tool_input")?,
        },
        Phase::PermissionRequest => OwnedEvent::PermissionRequest {
            tool_name: f.tool_name()?,
            call_id: f.text("tool_use_id")?,
            args: f.object("tool_input")?,
            suggestions: f.value("permission_suggestions"),
        },
        Phase::AfterTool => {
            let (result, outcome) = if name == "PostToolUseFailure" {
                let error = f.text("error")?;
                let outcome = ToolOutcome::Failed {
                    failure: ToolFailure::Error,
                    message: Some(error.clone()),
                };
                (Value::String(error), outcome)
            } else {
                (f.value("tool_response"), ToolOutcome::Success)
            };
            OwnedEvent::AfterTool {
                tool_name: f.tool_name()?,
                call_id: f.text("tool_use_id")?,
                args: f.value("tool_input"),
                original_args: None,
                result,
                outcome,
                duration_ms: f.number("duration_ms")?,
            }
        }
        Phase::AfterToolBatch => OwnedEvent::AfterToolBatch {
            calls: f.value("tool_calls"),
        },
        Phase::Stop => OwnedEvent::Stop {
            text: f.text("last_assistant_message")?,
            loop_count: f.loop_count()?,
            background_tasks: f.value("background_tasks"),
            session_crons: f.value("session_crons"),
        },
        Phase::SubagentStop => OwnedEvent::SubagentStop {
            agent_id: f.text("agent_id")?,
            agent_type: f.text("agent_type")?,
            text: f.text("last_assistant_message")?,
            loop_count: f.loop_count()?,
            agent_transcript_path: f.text("agent_transcript_path")?,
            background_tasks: f.value("background_tasks"),
            session_crons: f.value("session_crons"),
        },
        Phase::SubagentStart => OwnedEvent::SubagentStart {
            agent_id: f.text("agent_id")?,
            agent_type: f.text("agent_type")?,
        },
        Phase::Notification => OwnedEvent::Notification {
            notification_type: f.text("notification_type")?,
            title: f.text("title")?,
            message: f.text("message")?,
        },
        Phase::BeforeCompaction => OwnedEvent::BeforeCompaction {
            trigger: f.text_or("trigger", "auto")?,
            instructions: f.text("custom_instructions")?,
        },
        Phase::BeforeCompletion => OwnedEvent::BeforeCompletion {
            request: f.value("request"),
        },
        Phase::BeforeModelSelect => OwnedEvent::BeforeModelSelect {
            selection: f.selection()?,
        },
        Phase::AfterModelSelect => OwnedEvent::AfterModelSelect {
            selection: f.selection()?,
        },
        Phase::AfterCompletion => OwnedEvent::AfterCompletion {
            response: f.value("response"),
        },
        Phase::AfterCompaction => OwnedEvent::AfterCompaction {
            trigger: f.text_or("trigger", "auto")?,
            summary: f.text("compact_summary")?,
        },
        // `SessionEnd`: the first row of the table is `run_end`.
        _ => {
            let reason = f.text_or("reason", "other")?;
            let error = f.text("error")?;
            if reason == "error" && !error.is_empty() {
                OwnedEvent::RunError { error }
            } else {
                OwnedEvent::RunEnd {
                    output: String::new(),
                    reason,
                }
            }
        }
    };
    Ok((event, f.context()?))
}

/// The fields every Claude Code input carries about its session and
/// caller, not about the event: left out of a model switch's selection.
const IDENTITY_FIELDS: [&str; 10] = [
    "session_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "permission_mode",
    "prompt_id",
    "scratchpad_dir",
    "effort",
    "agent_id",
    "agent_type",
];

/// The fields of one input object, read with the event's name for errors.
struct Fields<'a> {
    map: &'a Map<String, Value>,
    event: &'a str,
}

impl Fields<'_> {
    fn wrong(&self, field: &'static str, expected: &'static str) -> PayloadError {
        PayloadError::Field {
            event: self.event.to_owned(),
            field,
            expected,
        }
    }

    /// A string field; absent or `null`: `""`.
    fn text(&self, field: &'static str) -> Result<String, PayloadError> {
        self.text_or(field, "")
    }

    /// A string field; absent or `null`: `default`.
    fn text_or(&self, field: &'static str, default: &str) -> Result<String, PayloadError> {
        match self.map.get(field) {
            None | Some(Value::Null) => Ok(default.to_owned()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(self.wrong(field, "a string")),
        }
    }

    /// A JSON object field (a tool's arguments): absent or of another
    /// type is an error, so a gate never decides on arguments it cannot
    /// read (a string where the object should be would match no pointer).
    fn object(&self, field: &'static str) -> Result<Value, PayloadError> {
        match self.map.get(field) {
            Some(Value::Object(map)) => Ok(Value::Object(map.clone())),
            _ => Err(self.wrong(field, "an object")),
        }
    }

    /// Any JSON value; absent: `null`.
    fn value(&self, field: &str) -> Value {
        self.map.get(field).cloned().unwrap_or(Value::Null)
    }

    /// An unsigned integer field; absent or `null`: `None`.
    fn number(&self, field: &'static str) -> Result<Option<u64>, PayloadError> {
        match self.map.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| self.wrong(field, "an unsigned integer")),
        }
    }

    /// `tool_name`, required.
    fn tool_name(&self) -> Result<String, PayloadError> {
        match self.map.get("tool_name") {
            Some(Value::String(s)) => Ok(s.clone()),
            _ => Err(self.wrong("tool_name", "a string")),
        }
    }

    /// A model switch's selection (the module table): `{from, to, ...}`;
    /// `to_model` is required, `from_model` a string or absent.
    fn selection(&self) -> Result<Value, PayloadError> {
        let to = match self.map.get("to_model") {
            Some(Value::String(s)) => s.clone(),
            _ => return Err(self.wrong("to_model", "a string")),
        };
        let from = match self.map.get("from_model") {
            None | Some(Value::Null) => Value::Null,
            Some(Value::String(s)) => Value::String(s.clone()),
            Some(_) => return Err(self.wrong("from_model", "a string")),
        };
        let mut selection = Map::new();
        selection.insert("from".into(), from);
        selection.insert("to".into(), Value::String(to));
        for (key, value) in self.map {
            if !IDENTITY_FIELDS.contains(&key.as_str()) && key != "from_model" && key != "to_model"
            {
                selection.insert(key.clone(), value.clone());
            }
        }
        Ok(Value::Object(selection))
    }

    /// The resumes so far: a numeric `loop_count` (what
    /// [`stdin_payload`](super::stdin_payload) writes beside Claude Code's
    /// fields), else 1 when `stop_hook_active` is true, else 0.
    fn loop_count(&self) -> Result<u32, PayloadError> {
        if let Some(n) = self.number("loop_count")? {
            return Ok(u32::try_from(n).unwrap_or(u32::MAX));
        }
        match self.map.get("stop_hook_active") {
            None | Some(Value::Null) => Ok(0),
            Some(Value::Bool(active)) => Ok(u32::from(*active)),
            Some(_) => Err(self.wrong("stop_hook_active", "a boolean")),
        }
    }

    /// The session's hook context: the run id and session id are
    /// `session_id`; the transcript path, cwd and permission mode are set
    /// when given (non-empty).
    fn context(&self) -> Result<HookContext, PayloadError> {
        let session = self.text("session_id")?;
        let mut ctx = HookContext::new(session.as_str()).with_session_id(session.as_str());
        let transcript = self.text("transcript_path")?;
        if !transcript.is_empty() {
            ctx = ctx.with_transcript_path(transcript);
        }
        let cwd = self.text("cwd")?;
        if !cwd.is_empty() {
            ctx = ctx.with_cwd(cwd);
        }
        let mode = self.text("permission_mode")?;
        if !mode.is_empty() {
            ctx = ctx.with_permission_mode(mode.as_str());
        }
        Ok(ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every event `stdin_payload` writes reads back as the same event
    /// and identity: the two directions state one table.
    #[test]
    fn the_payload_reads_back_as_the_event_it_was_built_from() {
        let events = [
            json!({"phase":"run_start","source":"resume","model":"m"}),
            json!({"phase":"user_prompt","prompt":"fix it"}),
            json!({"phase":"before_model_select","selection":{"from":"claude-haiku-4-5","to":"claude-opus-4-1","source":"user","context_tokens":1200}}),
            json!({"phase":"after_model_select","selection":{"from":null,"to":"claude-sonnet-4-5","source":"fallback"}}),
            json!({"phase":"before_tool","tool_name":"Bash","call_id":"t1","args":{"command":"ls"}}),
            json!({"phase":"permission_request","tool_name":"Bash","args":{"command":"ls"},"suggestions":[{"type":"addRules"}]}),
            json!({"phase":"after_tool","tool_name":"Bash","call_id":"t1","args":{},"result":{"stdout":"a"},"duration_ms":3}),
            json!({"phase":"after_tool_batch","calls":[{"tool_name":"Bash"}]}),
            json!({"phase":"stop","text":"done","loop_count":1,"background_tasks":[],"session_crons":[]}),
            json!({"phase":"subagent_stop","agent_id":"a","agent_type":"Explore","text":"t","loop_count":0,"agent_transcript_path":"/x"}),
            json!({"phase":"subagent_start","agent_id":"a","agent_type":"Explore"}),
            json!({"phase":"notification","notification_type":"idle_prompt","title":"t","message":"m"}),
            json!({"phase":"before_compaction","trigger":"manual","instructions":"keep"}),
            json!({"phase":"after_compaction","trigger":"auto","summary":"s"}),
            json!({"phase":"run_end","reason":"logout"}),
            json!({"phase":"run_error","error":"boom"}),
            json!({"phase":"before_completion","request":{"model":"m","messages":[]}}),
            json!({"phase":"after_completion","response":{"text":"hi"}}),
        ];
        let ctx = HookContext::new("s1")
            .with_session_id("s1")
            .with_transcript_path("/t.jsonl")
            .with_cwd("/p")
            .with_permission_mode("plan");
        for value in events {
            let event: OwnedEvent = serde_json::from_value(value).expect("event");
            let payload = super::super::stdin_payload(&event.as_step(), &ctx, "/w", None, None);
            let mut payload = payload.as_object().expect("object").clone();
            // `stdin_payload` leaves the tool values to its caller.
            let json = serde_json::to_value(&event).expect("serializes");
            if let Some(args) = json.get("args") {
                payload.insert("tool_input".into(), args.clone());
            }
            if let OwnedEvent::AfterTool { result, .. } = &event {
                payload.insert("tool_response".into(), result.clone());
            }
            let (back, back_ctx) = read_payload(&Value::Object(payload)).expect("reads");
            assert_eq!(back, event);
            assert_eq!(back_ctx.session_id(), "s1");
            assert_eq!(back_ctx.cwd(), ctx.cwd());
            assert_eq!(back_ctx.transcript_path(), ctx.transcript_path());
            assert_eq!(back_ctx.permission_mode(), "plan");
        }
    }

    #[test]
    fn a_failed_tool_and_the_stop_flag_read_as_outcome_and_loop_count() {
        let (event, _) = read_payload(&json!({
            "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
            "tool_input": {"command": "false"}, "tool_use_id": "t", "error": "exit 1",
            "is_interrupt": false
        }))
        .expect("reads");
        let OwnedEvent::AfterTool {
            outcome, result, ..
        } = event
        else {
            panic!("{event:?}")
        };
        assert_eq!(result, "exit 1");
        assert_eq!(
            outcome,
            ToolOutcome::Failed {
                failure: ToolFailure::Error,
                message: Some("exit 1".into())
            }
        );
        let (event, _) =
            read_payload(&json!({"hook_event_name": "Stop", "stop_hook_active": true}))
                .expect("reads");
        assert!(matches!(event, OwnedEvent::Stop { loop_count: 1, .. }));
    }

    #[test]
    fn bad_inputs_are_named_errors() {
        let err = |v: Value| read_payload(&v).expect_err("an error");
        assert_eq!(err(json!([])), PayloadError::NotAnObject);
        assert_eq!(err(json!({})), PayloadError::NoEventName);
        assert_eq!(
            err(json!({"hook_event_name": "TaskCreated"})),
            PayloadError::UnknownEvent("TaskCreated".into())
        );
        let err = read_payload(&json!({"hook_event_name": "PreToolUse"})).expect_err("no tool");
        assert!(err.to_string().contains("`tool_name`"), "{err}");
        let err = read_payload(&json!({"hook_event_name": "UserPromptSubmit", "prompt": 3}))
            .expect_err("wrong type");
        assert!(err.to_string().contains("`prompt`"), "{err}");
    }
}
