//! [`OwnedEvent`]: one event of an agent run that owns its data, in the
//! event JSON that the CLI (`agent-hooks test`, `replay`) reads and writes.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::event::{StepEvent, StepEventKind, ToolFailure, ToolOutcome};

/// One event of an agent run that owns its data: what an entry point reads
/// from a file, a transcript or a socket before handing the borrowed
/// [`StepEvent`] ([`OwnedEvent::as_step`]) to the hooks.
///
/// There is one variant per [`StepEvent`] variant, with the same fields,
/// except that `after_tool`'s `original_args` may be left out (`None`: the
/// same as `args`).
///
/// # JSON shape
///
/// One object; the `phase` key (a canonical phase,
/// [`Phase`](hooks_plan::Phase)) selects the other keys:
///
/// ```json
/// {"phase":"run_start"}
/// {"phase":"run_start","source":"resume","model":"claude-sonnet-4-5"}
/// {"phase":"user_prompt","prompt":"fix the tests"}
/// {"phase":"before_completion","request":{"messages":[]}}
/// {"phase":"before_model_select","selection":{"from":"claude-haiku-4-5","to":"claude-opus-4-1","source":"user"}}
/// {"phase":"after_completion","response":{}}
/// {"phase":"after_reasoning","reasoning":"..."}
/// {"phase":"after_assistant","text":"done"}
/// {"phase":"before_tool","tool_name":"bash","call_id":"c1","args":{"command":"ls"}}
/// {"phase":"after_tool","tool_name":"bash","call_id":"c1","args":{"command":"ls"},"result":{"output":"a\n"},"outcome":"success"}
/// {"phase":"invalid_tool_call","tool_name":"bsh","call_id":"c2","raw_args":"{","error":"unknown tool"}
/// {"phase":"permission_request","tool_name":"bash","args":{"command":"git push"}}
/// {"phase":"after_tool_batch","calls":[{"tool_name":"bash","tool_input":{"command":"ls"},"tool_use_id":"c1","tool_response":"a\n"}]}
/// {"phase":"stop","text":"done","loop_count":0}
/// {"phase":"notification","notification_type":"idle_prompt","title":"","message":"waiting for you"}
/// {"phase":"subagent_start","agent_id":"a1","agent_type":"Explore"}
/// {"phase":"subagent_stop","agent_id":"a1","agent_type":"Explore","text":"found it","loop_count":0}
/// {"phase":"before_compaction","trigger":"manual","instructions":"keep the plan"}
/// {"phase":"after_compaction","trigger":"manual","summary":"..."}
/// {"phase":"run_end","output":"done","reason":"other"}
/// {"phase":"run_error","error":"boom"}
/// ```
///
/// The tool's name is `tool_name`, as in the payload hooks receive; the
/// older spelling `tool` is read too (and written as `tool_name`).
/// `call_id` defaults to `""`; `args`, `result`, `request` and `response`
/// and `selection` default to `null`; text fields default to `""`. On `after_tool`,
/// `outcome` is `success` (default), `timeout`, `not_found`, `denied` or
/// `error`, and `original_args` (the arguments before any `before_tool`
/// rewrite) defaults to `args`. The streaming phases (`text_delta` with
/// `delta`; `tool_call_delta` with `tool_name`, `call_id`, `delta`;
/// `stream_finish` with `response`) are accepted too. `trigger` defaults to
/// `auto`, `suggestions` and `calls` to `null`, `run_end`'s `reason` to
/// `other`. What the agent may report beside (sent to `protocol: claude`
/// scripts when given, see [`StepEvent`]): `run_start`'s `source` and
/// `model`; `after_tool`'s `duration_ms`; `stop`'s and `subagent_stop`'s
/// `background_tasks` and `session_crons` (JSON values, default `null`),
/// and `subagent_stop`'s `agent_transcript_path`. Unknown keys are errors. `tool_name` is required on
/// `before_tool`, `permission_request` and `after_tool`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case", deny_unknown_fields)]
pub enum OwnedEvent {
    /// `run_start` ([`StepEvent::RunStart`]).
    RunStart {
        /// How the session started (`startup`, `resume`, `clear`,
        /// `compact`); `""` (default): not said.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        source: String,
        /// The model the session runs on; `""` (default): not said.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        model: String,
    },
    /// `user_prompt` ([`StepEvent::UserPrompt`]).
    UserPrompt {
        /// The prompt.
        #[serde(default)]
        prompt: String,
    },
    /// `before_completion` ([`StepEvent::BeforeCompletion`]).
    BeforeCompletion {
        /// The request (provider JSON form).
        #[serde(default)]
        request: Value,
    },
    /// `before_model_select` ([`StepEvent::BeforeModelSelect`]).
    BeforeModelSelect {
        /// The selection (`{from, to, source}` and what else the agent says).
        #[serde(default)]
        selection: Value,
    },
    /// `after_model_select` ([`StepEvent::AfterModelSelect`]).
    AfterModelSelect {
        /// The selection made.
        #[serde(default)]
        selection: Value,
    },
    /// `after_completion` ([`StepEvent::AfterCompletion`]).
    AfterCompletion {
        /// The response (provider JSON form).
        #[serde(default)]
        response: Value,
    },
    /// `text_delta` ([`StepEvent::TextDelta`]).
    TextDelta {
        /// The fragment.
        #[serde(default)]
        delta: String,
    },
    /// `tool_call_delta` ([`StepEvent::ToolCallDelta`]).
    ToolCallDelta {
        /// The tool's name (`tool` is read too).
        #[serde(default, alias = "tool")]
        tool_name: String,
        /// The call's id.
        #[serde(default)]
        call_id: String,
        /// The fragment of the arguments text.
        #[serde(default)]
        delta: String,
    },
    /// `stream_finish` ([`StepEvent::StreamFinish`]).
    StreamFinish {
        /// The assembled response.
        #[serde(default)]
        response: Value,
    },
    /// `after_reasoning` ([`StepEvent::AfterReasoning`]).
    AfterReasoning {
        /// The reasoning text.
        #[serde(default)]
        reasoning: String,
    },
    /// `after_assistant` ([`StepEvent::AfterAssistant`]).
    AfterAssistant {
        /// The assistant's text.
        #[serde(default)]
        text: String,
    },
    /// `before_tool` ([`StepEvent::BeforeTool`]).
    BeforeTool {
        /// The tool's name (`tool` is read too).
        #[serde(alias = "tool")]
        tool_name: String,
        /// The call's id.
        #[serde(default)]
        call_id: String,
        /// The arguments.
        #[serde(default)]
        args: Value,
    },
    /// `permission_request` ([`StepEvent::PermissionRequest`]).
    PermissionRequest {
        /// The tool's name (`tool` is read too).
        #[serde(alias = "tool")]
        tool_name: String,
        /// The call's id.
        #[serde(default)]
        call_id: String,
        /// The arguments.
        #[serde(default)]
        args: Value,
        /// The "always allow" options the agent would offer (`null`: none).
        #[serde(default)]
        suggestions: Value,
    },
    /// `after_tool` ([`StepEvent::AfterTool`]).
    AfterTool {
        /// The tool's name (`tool` is read too).
        #[serde(alias = "tool")]
        tool_name: String,
        /// The call's id.
        #[serde(default)]
        call_id: String,
        /// The arguments the tool ran with.
        #[serde(default)]
        args: Value,
        /// The arguments before any rewrite; `None` means `args`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        original_args: Option<Value>,
        /// The model-visible result.
        #[serde(default)]
        result: Value,
        /// How the tool ended, as one word: `success`, `timeout`,
        /// `not_found`, `denied` or `error` (a failure's message is not
        /// part of the JSON).
        #[serde(default = "success", with = "outcome_word")]
        outcome: ToolOutcome,
        /// How long the tool ran (milliseconds), when measured.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duration_ms: Option<u64>,
    },
    /// `after_tool_batch` ([`StepEvent::AfterToolBatch`]).
    AfterToolBatch {
        /// The calls: an array of `{tool_name, tool_input, tool_use_id,
        /// tool_response}`.
        #[serde(default)]
        calls: Value,
    },
    /// `invalid_tool_call` ([`StepEvent::InvalidToolCall`]).
    InvalidToolCall {
        /// The tool name the model used (`tool` is read too).
        #[serde(default, alias = "tool")]
        tool_name: String,
        /// The call's id.
        #[serde(default)]
        call_id: String,
        /// The raw arguments text.
        #[serde(default)]
        raw_args: String,
        /// Why the call is invalid.
        #[serde(default)]
        error: String,
    },
    /// `stop` ([`StepEvent::Stop`]).
    Stop {
        /// The assistant's last text.
        #[serde(default)]
        text: String,
        /// Resumes already granted in this turn.
        #[serde(default)]
        loop_count: u32,
        /// The background tasks still running (a JSON array; `null`: not
        /// said).
        #[serde(default, skip_serializing_if = "Value::is_null")]
        background_tasks: Value,
        /// The session's scheduled jobs (a JSON array; `null`: not said).
        #[serde(default, skip_serializing_if = "Value::is_null")]
        session_crons: Value,
    },
    /// `notification` ([`StepEvent::Notification`]).
    Notification {
        /// The kind, e.g. `permission_prompt`.
        #[serde(default)]
        notification_type: String,
        /// The title.
        #[serde(default)]
        title: String,
        /// The text.
        #[serde(default)]
        message: String,
    },
    /// `subagent_start` ([`StepEvent::SubagentStart`]).
    SubagentStart {
        /// The subagent's id.
        #[serde(default)]
        agent_id: String,
        /// Its type.
        #[serde(default)]
        agent_type: String,
    },
    /// `subagent_stop` ([`StepEvent::SubagentStop`]).
    SubagentStop {
        /// The subagent's id.
        #[serde(default)]
        agent_id: String,
        /// Its type.
        #[serde(default)]
        agent_type: String,
        /// Its last text.
        #[serde(default)]
        text: String,
        /// Resumes already granted to it.
        #[serde(default)]
        loop_count: u32,
        /// The path of its own transcript (`""`: not said).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        agent_transcript_path: String,
        /// As `stop`'s `background_tasks`.
        #[serde(default, skip_serializing_if = "Value::is_null")]
        background_tasks: Value,
        /// As `stop`'s `session_crons`.
        #[serde(default, skip_serializing_if = "Value::is_null")]
        session_crons: Value,
    },
    /// `before_compaction` ([`StepEvent::BeforeCompaction`]).
    BeforeCompaction {
        /// `manual` or `auto`.
        #[serde(default = "auto")]
        trigger: String,
        /// The user's instructions for the summary.
        #[serde(default)]
        instructions: String,
    },
    /// `after_compaction` ([`StepEvent::AfterCompaction`]).
    AfterCompaction {
        /// `manual` or `auto`.
        #[serde(default = "auto")]
        trigger: String,
        /// The summary.
        #[serde(default)]
        summary: String,
    },
    /// `run_end` ([`StepEvent::RunEnd`]).
    RunEnd {
        /// The run's output.
        #[serde(default)]
        output: String,
        /// Why the run ended (Claude Code's `SessionEnd` reasons); default
        /// `other`.
        #[serde(default = "other")]
        reason: String,
    },
    /// `run_error` ([`StepEvent::RunError`]).
    RunError {
        /// The error text.
        #[serde(default)]
        error: String,
    },
}

fn success() -> ToolOutcome {
    ToolOutcome::Success
}

fn auto() -> String {
    "auto".to_owned()
}

fn other() -> String {
    "other".to_owned()
}

/// `outcome` as one word ([`ToolOutcome::label`]).
mod outcome_word {
    use super::{ToolFailure, ToolOutcome};
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub(super) fn serialize<S: Serializer>(o: &ToolOutcome, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(o.label())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ToolOutcome, D::Error> {
        let word = String::deserialize(d)?;
        let failure = match word.as_str() {
            "success" => return Ok(ToolOutcome::Success),
            "timeout" => ToolFailure::Timeout,
            "not_found" => ToolFailure::NotFound,
            "denied" => ToolFailure::Denied,
            "error" => ToolFailure::Error,
            other => {
                return Err(D::Error::custom(format!(
                    "unknown outcome `{other}`, expected one of: `success`, `timeout`, `not_found`, `denied`, `error`"
                )));
            }
        };
        Ok(ToolOutcome::failed(failure))
    }
}

impl OwnedEvent {
    /// The event's phase.
    pub fn kind(&self) -> StepEventKind {
        self.as_step().kind()
    }

    /// The event as the runtime's borrowed [`StepEvent`]; does not
    /// allocate. `after_tool` without `original_args` uses `args` for both.
    pub fn as_step(&self) -> StepEvent<'_> {
        match self {
            OwnedEvent::RunStart { source, model } => StepEvent::RunStart { source, model },
            OwnedEvent::UserPrompt { prompt } => StepEvent::UserPrompt { prompt },
            OwnedEvent::BeforeCompletion { request } => StepEvent::BeforeCompletion { request },
            OwnedEvent::BeforeModelSelect { selection } => {
                StepEvent::BeforeModelSelect { selection }
            }
            OwnedEvent::AfterModelSelect { selection } => StepEvent::AfterModelSelect { selection },
            OwnedEvent::AfterCompletion { response } => StepEvent::AfterCompletion { response },
            OwnedEvent::TextDelta { delta } => StepEvent::TextDelta { delta },
            OwnedEvent::ToolCallDelta {
                tool_name,
                call_id,
                delta,
            } => StepEvent::ToolCallDelta {
                tool_name,
                call_id,
                delta,
            },
            OwnedEvent::StreamFinish { response } => StepEvent::StreamFinish { response },
            OwnedEvent::AfterReasoning { reasoning } => StepEvent::AfterReasoning { reasoning },
            OwnedEvent::AfterAssistant { text } => StepEvent::AfterAssistant { text },
            OwnedEvent::BeforeTool {
                tool_name,
                call_id,
                args,
            } => StepEvent::BeforeTool {
                tool_name,
                call_id,
                args,
            },
            OwnedEvent::PermissionRequest {
                tool_name,
                call_id,
                args,
                suggestions,
            } => StepEvent::PermissionRequest {
                tool_name,
                call_id,
                args,
                suggestions,
            },
            OwnedEvent::AfterTool {
                tool_name,
                call_id,
                args,
                original_args,
                result,
                outcome,
                duration_ms,
            } => StepEvent::AfterTool {
                tool_name,
                call_id,
                args,
                original_args: original_args.as_ref().unwrap_or(args),
                result,
                outcome,
                duration_ms: *duration_ms,
            },
            OwnedEvent::AfterToolBatch { calls } => StepEvent::AfterToolBatch { calls },
            OwnedEvent::InvalidToolCall {
                tool_name,
                call_id,
                raw_args,
                error,
            } => StepEvent::InvalidToolCall {
                tool_name,
                call_id,
                raw_args,
                error,
            },
            OwnedEvent::Stop {
                text,
                loop_count,
                background_tasks,
                session_crons,
            } => StepEvent::Stop {
                loop_count: *loop_count,
                text,
                background_tasks,
                session_crons,
            },
            OwnedEvent::Notification {
                notification_type,
                title,
                message,
            } => StepEvent::Notification {
                notification_type,
                title,
                message,
            },
            OwnedEvent::SubagentStart {
                agent_id,
                agent_type,
            } => StepEvent::SubagentStart {
                agent_id,
                agent_type,
            },
            OwnedEvent::SubagentStop {
                agent_id,
                agent_type,
                text,
                loop_count,
                agent_transcript_path,
                background_tasks,
                session_crons,
            } => StepEvent::SubagentStop {
                agent_id,
                agent_type,
                loop_count: *loop_count,
                text,
                agent_transcript_path,
                background_tasks,
                session_crons,
            },
            OwnedEvent::BeforeCompaction {
                trigger,
                instructions,
            } => StepEvent::BeforeCompaction {
                trigger,
                instructions,
            },
            OwnedEvent::AfterCompaction { trigger, summary } => {
                StepEvent::AfterCompaction { trigger, summary }
            }
            OwnedEvent::RunEnd { output, reason } => StepEvent::RunEnd { output, reason },
            OwnedEvent::RunError { error } => StepEvent::RunError { error },
        }
    }

    /// Parses one event from JSON text (a single object; a leading byte
    /// order mark is skipped).
    ///
    /// # Errors
    ///
    /// serde_json's error: not JSON, not an object, an unknown `phase` or
    /// key, a missing `tool_name` on `before_tool`, `permission_request`
    /// and `after_tool`, an unknown `outcome`.
    pub fn from_json(text: &str) -> Result<OwnedEvent, serde_json::Error> {
        serde_json::from_str(text.trim_start_matches('\u{feff}'))
    }
}

impl From<StepEvent<'_>> for OwnedEvent {
    /// Copies a borrowed event's data. An `after_tool` event whose
    /// `original_args` equal its `args` keeps `original_args` as `None`.
    fn from(event: StepEvent<'_>) -> Self {
        let s = str::to_owned;
        match event {
            StepEvent::RunStart { source, model } => OwnedEvent::RunStart {
                source: s(source),
                model: s(model),
            },
            StepEvent::UserPrompt { prompt } => OwnedEvent::UserPrompt { prompt: s(prompt) },
            StepEvent::BeforeCompletion { request } => OwnedEvent::BeforeCompletion {
                request: request.clone(),
            },
            StepEvent::AfterCompletion { response } => OwnedEvent::AfterCompletion {
                response: response.clone(),
            },
            StepEvent::BeforeModelSelect { selection } => OwnedEvent::BeforeModelSelect {
                selection: selection.clone(),
            },
            StepEvent::AfterModelSelect { selection } => OwnedEvent::AfterModelSelect {
                selection: selection.clone(),
            },
            StepEvent::TextDelta { delta } => OwnedEvent::TextDelta { delta: s(delta) },
            StepEvent::ToolCallDelta {
                tool_name,
                call_id,
                delta,
            } => OwnedEvent::ToolCallDelta {
                tool_name: s(tool_name),
                call_id: s(call_id),
                delta: s(delta),
            },
            StepEvent::StreamFinish { response } => OwnedEvent::StreamFinish {
                response: response.clone(),
            },
            StepEvent::AfterReasoning { reasoning } => OwnedEvent::AfterReasoning {
                reasoning: s(reasoning),
            },
            StepEvent::AfterAssistant { text } => OwnedEvent::AfterAssistant { text: s(text) },
            StepEvent::BeforeTool {
                tool_name,
                call_id,
                args,
            } => OwnedEvent::BeforeTool {
                tool_name: s(tool_name),
                call_id: s(call_id),
                args: args.clone(),
            },
            StepEvent::PermissionRequest {
                tool_name,
                call_id,
                args,
                suggestions,
            } => OwnedEvent::PermissionRequest {
                tool_name: s(tool_name),
                call_id: s(call_id),
                args: args.clone(),
                suggestions: suggestions.clone(),
            },
            StepEvent::AfterTool {
                tool_name,
                call_id,
                args,
                original_args,
                result,
                outcome,
                duration_ms,
            } => OwnedEvent::AfterTool {
                tool_name: s(tool_name),
                call_id: s(call_id),
                args: args.clone(),
                original_args: (original_args != args).then(|| original_args.clone()),
                result: result.clone(),
                outcome: outcome.clone(),
                duration_ms,
            },
            StepEvent::AfterToolBatch { calls } => OwnedEvent::AfterToolBatch {
                calls: calls.clone(),
            },
            StepEvent::InvalidToolCall {
                tool_name,
                call_id,
                raw_args,
                error,
            } => OwnedEvent::InvalidToolCall {
                tool_name: s(tool_name),
                call_id: s(call_id),
                raw_args: s(raw_args),
                error: s(error),
            },
            StepEvent::Stop {
                loop_count,
                text,
                background_tasks,
                session_crons,
            } => OwnedEvent::Stop {
                text: s(text),
                loop_count,
                background_tasks: background_tasks.clone(),
                session_crons: session_crons.clone(),
            },
            StepEvent::Notification {
                notification_type,
                title,
                message,
            } => OwnedEvent::Notification {
                notification_type: s(notification_type),
                title: s(title),
                message: s(message),
            },
            StepEvent::SubagentStart {
                agent_id,
                agent_type,
            } => OwnedEvent::SubagentStart {
                agent_id: s(agent_id),
                agent_type: s(agent_type),
            },
            StepEvent::SubagentStop {
                agent_id,
                agent_type,
                loop_count,
                text,
                agent_transcript_path,
                background_tasks,
                session_crons,
            } => OwnedEvent::SubagentStop {
                agent_id: s(agent_id),
                agent_type: s(agent_type),
                text: s(text),
                loop_count,
                agent_transcript_path: s(agent_transcript_path),
                background_tasks: background_tasks.clone(),
                session_crons: session_crons.clone(),
            },
            StepEvent::BeforeCompaction {
                trigger,
                instructions,
            } => OwnedEvent::BeforeCompaction {
                trigger: s(trigger),
                instructions: s(instructions),
            },
            StepEvent::AfterCompaction { trigger, summary } => OwnedEvent::AfterCompaction {
                trigger: s(trigger),
                summary: s(summary),
            },
            StepEvent::RunEnd { output, reason } => OwnedEvent::RunEnd {
                output: s(output),
                reason: s(reason),
            },
            StepEvent::RunError { error } => OwnedEvent::RunError { error: s(error) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_unknown_keys() {
        let line = r#"{"phase":"after_tool","tool_name":"bash","call_id":"c1","args":{"command":"ls"},"result":{"output":"x"},"outcome":"timeout"}"#;
        let event = OwnedEvent::from_json(line).unwrap();
        assert_eq!(event.kind(), StepEventKind::AfterTool);
        let back = serde_json::to_value(&event).unwrap();
        assert_eq!(back["outcome"], "timeout");
        assert_eq!(back["tool_name"], "bash");
        assert_eq!(OwnedEvent::from_json(&back.to_string()).unwrap(), event);
        assert_eq!(OwnedEvent::from(event.as_step()), event);
        let err = OwnedEvent::from_json(r#"{"phase":"stop","txt":"x"}"#).unwrap_err();
        assert!(err.to_string().contains("unknown field `txt`"), "{err}");
        let err =
            OwnedEvent::from_json(r#"{"phase":"after_tool","tool_name":"t","outcome":"meh"}"#)
                .unwrap_err();
        assert!(err.to_string().contains("unknown outcome `meh`"), "{err}");
        let err = OwnedEvent::from_json(r#"{"phase":"before_tool","args":{}}"#).unwrap_err();
        assert!(
            err.to_string().contains("missing field `tool_name`"),
            "{err}"
        );
    }

    /// What the agent reports beside an event (Claude Code's SessionStart
    /// `source`/`model`, PostToolUse `duration_ms`, Stop/SubagentStop
    /// `background_tasks`/`session_crons`, `agent_transcript_path`) is read
    /// from the event JSON and reaches the borrowed event; left out, it is
    /// not written back.
    #[test]
    fn what_the_agent_reports_beside_an_event_is_read() {
        let e = OwnedEvent::from_json(r#"{"phase":"run_start","source":"compact","model":"m1"}"#)
            .unwrap();
        assert_eq!(
            e.as_step(),
            StepEvent::RunStart {
                source: "compact",
                model: "m1"
            }
        );
        let e = OwnedEvent::from_json(
            r#"{"phase":"after_tool","tool_name":"bash","duration_ms":1520}"#,
        )
        .unwrap();
        assert!(matches!(
            e.as_step(),
            StepEvent::AfterTool {
                duration_ms: Some(1520),
                ..
            }
        ));
        let e = OwnedEvent::from_json(
            r#"{"phase":"subagent_stop","agent_id":"a1","agent_transcript_path":"/t/a1.jsonl","background_tasks":[1],"session_crons":[]}"#,
        )
        .unwrap();
        let StepEvent::SubagentStop {
            agent_transcript_path,
            background_tasks,
            session_crons,
            ..
        } = e.as_step()
        else {
            panic!("subagent_stop");
        };
        assert_eq!(agent_transcript_path, "/t/a1.jsonl");
        assert_eq!(*background_tasks, serde_json::json!([1]));
        assert_eq!(*session_crons, serde_json::json!([]));
        let e =
            OwnedEvent::from_json(r#"{"phase":"stop","background_tasks":[{"id":"b"}]}"#).unwrap();
        let back = serde_json::to_value(OwnedEvent::from(e.as_step())).unwrap();
        assert_eq!(back["background_tasks"], serde_json::json!([{"id": "b"}]));
        assert!(back.get("session_crons").is_none(), "{back}");
        let plain = serde_json::to_string(&OwnedEvent::from(StepEvent::RUN_START)).unwrap();
        assert_eq!(plain, r#"{"phase":"run_start"}"#);
    }

    #[test]
    fn the_older_tool_key_is_read_and_written_as_tool_name() {
        for phase in [
            "before_tool",
            "permission_request",
            "after_tool",
            "invalid_tool_call",
            "tool_call_delta",
        ] {
            let old =
                OwnedEvent::from_json(&format!(r#"{{"phase":"{phase}","tool":"bash"}}"#)).unwrap();
            let new =
                OwnedEvent::from_json(&format!(r#"{{"phase":"{phase}","tool_name":"bash"}}"#))
                    .unwrap();
            assert_eq!(old, new, "{phase}");
            assert_eq!(old.as_step().tool_name(), Some("bash"), "{phase}");
            let json = serde_json::to_value(&old).unwrap();
            assert_eq!(json["tool_name"], "bash", "{phase}");
            assert!(json.get("tool").is_none(), "{phase}: {json}");
        }
    }

    #[test]
    fn every_phase_reads_with_defaults() {
        for phase in hooks_plan::Phase::ALL {
            let text = match phase.as_str() {
                p @ ("before_tool" | "permission_request" | "after_tool") => {
                    format!(r#"{{"phase":"{p}","tool_name":"t"}}"#)
                }
                p => format!(r#"{{"phase":"{p}"}}"#),
            };
            let event = OwnedEvent::from_json(&text).unwrap();
            assert_eq!(event.kind(), phase);
            assert_eq!(OwnedEvent::from(event.as_step()), event, "{phase}");
        }
    }
}
