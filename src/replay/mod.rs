//! Reading recorded sessions into events: Claude Code transcripts and our own
//! event JSONL.
//!
//! `agent-hooks test`, `explain` and `replay` feed these events to a config.
//!
//! # Our event format (JSONL)
//!
//! One JSON object per line; the `phase` key (a canonical phase,
//! [`Phase`](hooks_schema::Phase)) selects the other keys ([`Event`]):
//!
//! ```json
//! {"phase":"run_start"}
//! {"phase":"user_prompt","prompt":"fix the tests"}
//! {"phase":"before_completion","request":{"messages":[]}}
//! {"phase":"after_completion","response":{}}
//! {"phase":"after_reasoning","reasoning":"..."}
//! {"phase":"after_assistant","text":"done"}
//! {"phase":"before_tool","tool":"bash","call_id":"c1","args":{"command":"ls"}}
//! {"phase":"after_tool","tool":"bash","call_id":"c1","args":{"command":"ls"},"result":{"output":"a\n"},"outcome":"success"}
//! {"phase":"invalid_tool_call","tool":"bsh","call_id":"c2","raw_args":"{","error":"unknown tool"}
//! {"phase":"permission_request","tool":"bash","args":{"command":"git push"}}
//! {"phase":"after_tool_batch","calls":[{"tool_name":"bash","tool_input":{"command":"ls"},"tool_use_id":"c1","tool_response":"a\n"}]}
//! {"phase":"stop","text":"done","loop_count":0}
//! {"phase":"notification","notification_type":"idle_prompt","title":"","message":"waiting for you"}
//! {"phase":"subagent_start","agent_id":"a1","agent_type":"Explore"}
//! {"phase":"subagent_stop","agent_id":"a1","agent_type":"Explore","text":"found it","loop_count":0}
//! {"phase":"before_compaction","trigger":"manual","instructions":"keep the plan"}
//! {"phase":"after_compaction","trigger":"manual","summary":"..."}
//! {"phase":"run_end","output":"done","reason":"other"}
//! {"phase":"run_error","error":"boom"}
//! ```
//!
//! `call_id` defaults to `""`; `args`, `result`, `request` and `response`
//! default to `null`; text fields default to `""`. On `after_tool`,
//! `outcome` is `success` (default), `timeout`, `not_found`, `denied` or
//! `error`, and `original_args` (the arguments before any `before_tool`
//! rewrite) defaults to `args`. The streaming phases (`text_delta` with
//! `delta`; `tool_call_delta` with `tool`, `call_id`, `delta`;
//! `stream_finish` with `response`) are accepted too. `trigger` defaults to
//! `auto`, `suggestions` and `calls` to `null`, `run_end`'s `reason` to
//! `other`. Unknown keys are errors.
//!
//! Any event may also carry the agent's session identity ([`Identity`]):
//! `session_id`, `transcript_path`, `cwd`, `permission_mode` (strings); the
//! hooks' [`HookContext`](hooks_runtime::HookContext) gets them, and
//! `protocol: claude` scripts receive them as Claude Code would send them.
//!
//! # Claude Code transcripts
//!
//! A Claude Code session file (`~/.claude/projects/.../<session>.jsonl`)
//! holds one record per line; [`read_session`] recognizes them per line (a
//! line with a `phase` key is ours; a line with `type` is Claude Code's) and
//! turns
//!
//! - a `user` record whose `message.content` is a string, or holds `text`
//!   items, into `user_prompt` (the texts joined by newlines), unless the
//!   record is marked `isMeta` (text Claude Code itself added, such as stop
//!   hook feedback or command caveats: no `UserPromptSubmit` fires for it);
//! - every `tool_use` item of an `assistant` record into `before_tool` (tool
//!   `name`, call `id`, arguments `input`);
//! - every `tool_result` item of a `user` record into `after_tool` for the
//!   `tool_use` of the same id, with the arguments of that call, the
//!   model-visible result as `{"output": TEXT}` (the `content` string, or its
//!   `text` items joined by newlines; images and other items are left out)
//!   and outcome `error` when `is_error` is true, else `success`.
//!
//! The session identity of a transcript ([`Session::identity`]): the first
//! record's `sessionId`, `cwd` and `permissionMode`, and as the transcript
//! path the file [`read_session`] read.
//!
//! Other records (`progress`, `system`, `summary`, `queue-operation`,
//! `file-history-snapshot`, assistant `text` and `thinking` items) carry no
//! hookable event here and are counted as skipped. Lines that are not JSON,
//! and records of neither shape, become warnings, never errors.

use std::collections::HashMap;
use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

use hooks_runtime::{HookContext, StepEvent, ToolFailure, ToolOutcome};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One event of our JSONL format (see the [module docs](self)); `phase` is
/// the tag.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case", deny_unknown_fields)]
pub enum Event {
    /// `run_start`.
    RunStart,
    /// `user_prompt`.
    UserPrompt {
        /// The prompt.
        #[serde(default)]
        prompt: String,
    },
    /// `before_completion`.
    BeforeCompletion {
        /// The request (provider JSON form).
        #[serde(default)]
        request: Value,
    },
    /// `after_completion`.
    AfterCompletion {
        /// The response (provider JSON form).
        #[serde(default)]
        response: Value,
    },
    /// `text_delta`.
    TextDelta {
        /// The fragment.
        #[serde(default)]
        delta: String,
    },
    /// `tool_call_delta`.
    ToolCallDelta {
        /// The tool's name.
        #[serde(default)]
        tool: String,
        /// The call's id.
        #[serde(default)]
        call_id: String,
        /// The fragment of the arguments text.
        #[serde(default)]
        delta: String,
    },
    /// `stream_finish`.
    StreamFinish {
        /// The assembled response.
        #[serde(default)]
        response: Value,
    },
    /// `after_reasoning`.
    AfterReasoning {
        /// The reasoning text.
        #[serde(default)]
        reasoning: String,
    },
    /// `after_assistant`.
    AfterAssistant {
        /// The assistant's text.
        #[serde(default)]
        text: String,
    },
    /// `before_tool`.
    BeforeTool {
        /// The tool's name.
        tool: String,
        /// The call's id.
        #[serde(default)]
        call_id: String,
        /// The arguments.
        #[serde(default)]
        args: Value,
    },
    /// `permission_request`.
    PermissionRequest {
        /// The tool's name.
        tool: String,
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
    /// `after_tool`.
    AfterTool {
        /// The tool's name.
        tool: String,
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
        /// How the tool ended: `success`, `timeout`, `not_found`, `denied`
        /// or `error`.
        #[serde(default = "success", with = "outcome_name")]
        outcome: ToolOutcome,
    },
    /// `after_tool_batch`.
    AfterToolBatch {
        /// The calls: an array of `{tool_name, tool_input, tool_use_id,
        /// tool_response}`.
        #[serde(default)]
        calls: Value,
    },
    /// `invalid_tool_call`.
    InvalidToolCall {
        /// The tool name the model used.
        #[serde(default)]
        tool: String,
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
    /// `stop`.
    Stop {
        /// The assistant's last text.
        #[serde(default)]
        text: String,
        /// Resumes already granted in this turn.
        #[serde(default)]
        loop_count: u32,
    },
    /// `notification`.
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
    /// `subagent_start`.
    SubagentStart {
        /// The subagent's id.
        #[serde(default)]
        agent_id: String,
        /// Its type.
        #[serde(default)]
        agent_type: String,
    },
    /// `subagent_stop`.
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
    },
    /// `before_compaction`.
    BeforeCompaction {
        /// `manual` or `auto`.
        #[serde(default = "auto")]
        trigger: String,
        /// The user's instructions for the summary.
        #[serde(default)]
        instructions: String,
    },
    /// `after_compaction`.
    AfterCompaction {
        /// `manual` or `auto`.
        #[serde(default = "auto")]
        trigger: String,
        /// The summary.
        #[serde(default)]
        summary: String,
    },
    /// `run_end`.
    RunEnd {
        /// The run's output.
        #[serde(default)]
        output: String,
        /// Why the run ended (Claude Code's `SessionEnd` reasons); default
        /// `other`.
        #[serde(default = "other")]
        reason: String,
    },
    /// `run_error`.
    RunError {
        /// The error text.
        #[serde(default)]
        error: String,
    },
}

/// The config language's word for an outcome kind (`success`, `timeout`,
/// `not_found`, `denied`, `error`).
pub const fn outcome_word(kind: hooks_schema::OutcomeKind) -> &'static str {
    use hooks_schema::OutcomeKind as K;
    match kind {
        K::Success => "success",
        K::Timeout => "timeout",
        K::NotFound => "not_found",
        K::Denied => "denied",
        K::Error => "error",
    }
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

/// `outcome` as one word (`success`, `timeout`, `not_found`, `denied`, `error`).
mod outcome_name {
    use hooks_runtime::{ToolFailure, ToolOutcome};
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub(super) fn serialize<S: Serializer>(o: &ToolOutcome, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(super::outcome_word(o.kind()))
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

impl Event {
    /// The event as the runtime's borrowed [`StepEvent`]. `after_tool`
    /// without `original_args` uses `args` for both.
    pub fn step(&self) -> StepEvent<'_> {
        match self {
            Event::RunStart => StepEvent::RunStart,
            Event::UserPrompt { prompt } => StepEvent::UserPrompt { prompt },
            Event::BeforeCompletion { request } => StepEvent::BeforeCompletion { request },
            Event::AfterCompletion { response } => StepEvent::AfterCompletion { response },
            Event::TextDelta { delta } => StepEvent::TextDelta { delta },
            Event::ToolCallDelta {
                tool,
                call_id,
                delta,
            } => StepEvent::ToolCallDelta {
                tool_name: tool,
                call_id,
                delta,
            },
            Event::StreamFinish { response } => StepEvent::StreamFinish { response },
            Event::AfterReasoning { reasoning } => StepEvent::AfterReasoning { reasoning },
            Event::AfterAssistant { text } => StepEvent::AfterAssistant { text },
            Event::BeforeTool {
                tool,
                call_id,
                args,
            } => StepEvent::BeforeTool {
                tool_name: tool,
                call_id,
                args,
            },
            Event::PermissionRequest {
                tool,
                call_id,
                args,
                suggestions,
            } => StepEvent::PermissionRequest {
                tool_name: tool,
                call_id,
                args,
                suggestions,
            },
            Event::AfterToolBatch { calls } => StepEvent::AfterToolBatch { calls },
            Event::AfterTool {
                tool,
                call_id,
                args,
                original_args,
                result,
                outcome,
            } => StepEvent::AfterTool {
                tool_name: tool,
                call_id,
                args,
                original_args: original_args.as_ref().unwrap_or(args),
                result,
                outcome,
            },
            Event::InvalidToolCall {
                tool,
                call_id,
                raw_args,
                error,
            } => StepEvent::InvalidToolCall {
                tool_name: tool,
                call_id,
                raw_args,
                error,
            },
            Event::Stop { text, loop_count } => StepEvent::Stop {
                loop_count: *loop_count,
                text,
            },
            Event::Notification {
                notification_type,
                title,
                message,
            } => StepEvent::Notification {
                notification_type,
                title,
                message,
            },
            Event::SubagentStart {
                agent_id,
                agent_type,
            } => StepEvent::SubagentStart {
                agent_id,
                agent_type,
            },
            Event::SubagentStop {
                agent_id,
                agent_type,
                text,
                loop_count,
            } => StepEvent::SubagentStop {
                agent_id,
                agent_type,
                loop_count: *loop_count,
                text,
            },
            Event::BeforeCompaction {
                trigger,
                instructions,
            } => StepEvent::BeforeCompaction {
                trigger,
                instructions,
            },
            Event::AfterCompaction { trigger, summary } => {
                StepEvent::AfterCompaction { trigger, summary }
            }
            Event::RunEnd { output, reason } => StepEvent::RunEnd { output, reason },
            Event::RunError { error } => StepEvent::RunError { error },
        }
    }

    /// Parses one event of our format from JSON text (a single object).
    ///
    /// # Errors
    ///
    /// serde_json's error: not JSON, not an object, an unknown `phase` or
    /// key, a missing `tool` on tool phases, an unknown `outcome`.
    pub fn from_json(text: &str) -> Result<Event, serde_json::Error> {
        serde_json::from_str(text.trim_start_matches('\u{feff}'))
    }

    /// Parses one event line that may carry session identity keys beside
    /// the event's own: the event, and the identity.
    ///
    /// # Errors
    ///
    /// As [`Event::from_json`]; an identity key that is not a string.
    pub fn from_json_with_identity(text: &str) -> Result<(Event, Identity), serde_json::Error> {
        let mut value: Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))?;
        let identity = Identity::take_from(&mut value)?;
        Ok((serde_json::from_value(value)?, identity))
    }
}

/// The agent's session identity an event line or a transcript gives: what
/// [`HookContext`]'s `with_session_id`, `with_transcript_path`, `with_cwd`
/// and `with_permission_mode` set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Identity {
    /// The session id (`session_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The transcript path (`transcript_path`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<PathBuf>,
    /// The agent's working directory (`cwd`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// The permission mode (`permission_mode`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<String>,
}

impl Identity {
    /// The keys of an event line that belong to the identity.
    pub const KEYS: [&'static str; 4] = ["session_id", "transcript_path", "cwd", "permission_mode"];

    /// Removes the identity keys from the JSON object `value` and returns
    /// them (nothing when `value` is not an object).
    ///
    /// # Errors
    ///
    /// A key whose value is not a string.
    pub fn take_from(value: &mut Value) -> Result<Identity, serde_json::Error> {
        let mut taken = serde_json::Map::new();
        if let Some(map) = value.as_object_mut() {
            for key in Identity::KEYS {
                if let Some(v) = map.remove(key) {
                    taken.insert(key.to_owned(), v);
                }
            }
        }
        serde_json::from_value(Value::Object(taken))
    }

    /// Fills the fields `self` lacks from `other`.
    fn or(&mut self, other: Identity) {
        self.session_id = self.session_id.take().or(other.session_id);
        self.transcript_path = self.transcript_path.take().or(other.transcript_path);
        self.cwd = self.cwd.take().or(other.cwd);
        self.permission_mode = self.permission_mode.take().or(other.permission_mode);
    }

    /// `ctx` with the fields this identity sets.
    #[must_use]
    pub fn apply(&self, mut ctx: HookContext) -> HookContext {
        if let Some(id) = &self.session_id {
            ctx = ctx.with_session_id(id.as_str());
        }
        if let Some(path) = &self.transcript_path {
            ctx = ctx.with_transcript_path(path);
        }
        if let Some(cwd) = &self.cwd {
            ctx = ctx.with_cwd(cwd);
        }
        if let Some(mode) = &self.permission_mode {
            ctx = ctx.with_permission_mode(mode.as_str());
        }
        ctx
    }
}

/// Which formats a session file held.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Formats {
    /// Lines of our event format.
    pub events: usize,
    /// Claude Code transcript records (all types, hookable or not).
    pub claude: usize,
}

/// A session read into events.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Session {
    /// The events, in file order.
    pub events: Vec<Event>,
    /// Lines of each format.
    pub formats: Formats,
    /// Claude Code records that carry no hookable event.
    pub skipped: usize,
    /// One message per line that could not be used (`line N: why`).
    pub warnings: Vec<String>,
    /// The agent's session identity: from the first event line or record
    /// that gives each field (see the [module docs](self)).
    pub identity: Identity,
}

/// Reads a session file (our event JSONL, a Claude Code transcript, or a mix)
/// into events; see the [module docs](self) for the mapping.
///
/// # Errors
///
/// The I/O error of opening or reading `path` (including invalid UTF-8).
/// Unusable lines are [`Session::warnings`], not errors.
pub fn read_session(path: &Path) -> io::Result<Session> {
    let file = std::fs::File::open(path)?;
    let mut session = parse_session(io::BufReader::new(file))?;
    if session.formats.claude > 0 {
        session.identity.or(Identity {
            transcript_path: Some(std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())),
            ..Identity::default()
        });
    }
    Ok(session)
}

/// As [`read_session`], from any reader.
///
/// # Errors
///
/// The reader's I/O error.
pub fn parse_session(reader: impl BufRead) -> io::Result<Session> {
    let mut session = Session::default();
    let mut calls: HashMap<String, (String, Value)> = HashMap::new();
    for (index, line) in reader.lines().enumerate() {
        let line = line?;
        let n = index + 1;
        let text = line.trim().trim_start_matches('\u{feff}');
        if text.is_empty() {
            continue;
        }
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                session.warnings.push(format!("line {n}: not JSON: {e}"));
                continue;
            }
        };
        if value.get("phase").is_some() {
            let mut value = value;
            match Identity::take_from(&mut value) {
                Ok(identity) => session.identity.or(identity),
                Err(e) => session.warnings.push(format!("line {n}: {e}")),
            }
            match serde_json::from_value::<Event>(value) {
                Ok(event) => {
                    session.formats.events += 1;
                    session.events.push(event);
                }
                Err(e) => session.warnings.push(format!("line {n}: {e}")),
            }
        } else if let Some(kind) = value.get("type").and_then(Value::as_str) {
            session.formats.claude += 1;
            let text_of = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
            session.identity.or(Identity {
                session_id: text_of("sessionId"),
                transcript_path: None,
                cwd: text_of("cwd").map(PathBuf::from),
                permission_mode: text_of("permissionMode"),
            });
            let before = session.events.len();
            claude_record(kind, &value, &mut calls, &mut session, n);
            if session.events.len() == before {
                session.skipped += 1;
            }
        } else {
            session.warnings.push(format!(
                "line {n}: neither an event (no `phase` key) nor a Claude Code record (no `type` key)"
            ));
        }
    }
    Ok(session)
}

/// Converts one Claude Code record (see the module docs).
fn claude_record(
    kind: &str,
    record: &Value,
    calls: &mut HashMap<String, (String, Value)>,
    session: &mut Session,
    line: usize,
) {
    let content = &record["message"]["content"];
    match kind {
        "user" => {
            let meta = record["isMeta"] == true;
            if let Some(text) = content.as_str() {
                if meta {
                    return;
                }
                session.events.push(Event::UserPrompt {
                    prompt: text.to_owned(),
                });
                return;
            }
            let Some(items) = content.as_array() else {
                return;
            };
            let texts: Vec<&str> = items
                .iter()
                .filter(|i| i["type"] == "text")
                .filter_map(|i| i["text"].as_str())
                .collect();
            if !texts.is_empty() && !meta {
                session.events.push(Event::UserPrompt {
                    prompt: texts.join("\n"),
                });
            }
            for item in items.iter().filter(|i| i["type"] == "tool_result") {
                let id = item["tool_use_id"].as_str().unwrap_or_default();
                let Some((tool, args)) = calls.get(id) else {
                    session.warnings.push(format!(
                        "line {line}: `tool_result` for `{id}`, which no earlier `tool_use` announced"
                    ));
                    continue;
                };
                let outcome = if item["is_error"] == true {
                    ToolOutcome::failed(ToolFailure::Error)
                } else {
                    ToolOutcome::Success
                };
                session.events.push(Event::AfterTool {
                    tool: tool.clone(),
                    call_id: id.to_owned(),
                    args: args.clone(),
                    original_args: None,
                    result: serde_json::json!({ "output": result_text(&item["content"]) }),
                    outcome,
                });
            }
        }
        "assistant" => {
            for item in content.as_array().into_iter().flatten() {
                if item["type"] != "tool_use" {
                    continue;
                }
                let id = item["id"].as_str().unwrap_or_default().to_owned();
                let tool = item["name"].as_str().unwrap_or_default().to_owned();
                let args = item.get("input").cloned().unwrap_or(Value::Null);
                calls.insert(id.clone(), (tool.clone(), args.clone()));
                session.events.push(Event::BeforeTool {
                    tool,
                    call_id: id,
                    args,
                });
            }
        }
        _ => {}
    }
}

/// The model-visible text of a `tool_result` `content`: the string, or the
/// `text` items joined by newlines.
fn result_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|i| i["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_format_round_trips_and_rejects_unknown_keys() {
        let line = r#"{"phase":"after_tool","tool":"bash","call_id":"c1","args":{"command":"ls"},"result":{"output":"x"},"outcome":"timeout"}"#;
        let event = Event::from_json(line).unwrap();
        assert_eq!(event.step().kind(), hooks_runtime::StepEventKind::AfterTool);
        let back = serde_json::to_value(&event).unwrap();
        assert_eq!(back["outcome"], "timeout");
        assert_eq!(Event::from_json(&back.to_string()).unwrap(), event);
        let err = Event::from_json(r#"{"phase":"stop","txt":"x"}"#).unwrap_err();
        assert!(err.to_string().contains("unknown field `txt`"), "{err}");
        let err =
            Event::from_json(r#"{"phase":"after_tool","tool":"t","outcome":"meh"}"#).unwrap_err();
        assert!(err.to_string().contains("unknown outcome `meh`"), "{err}");
    }

    #[test]
    fn claude_records_become_prompts_and_tool_calls() {
        let text = concat!(
            r#"{"type":"user","message":{"role":"user","content":"hello"}}"#,
            "\n",
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#,
            "\n",
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"is_error":true}]}}"#,
            "\n",
            r#"{"type":"progress","data":{}}"#,
            "\nnot json\n",
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"zz","content":"?"}]}}"#,
            "\n",
            r#"{"type":"user","isMeta":true,"message":{"content":"Stop hook feedback: ..."}}"#,
            "\n"
        );
        let s = parse_session(text.as_bytes()).unwrap();
        assert_eq!(s.events.len(), 3);
        assert_eq!(
            s.events[0],
            Event::UserPrompt {
                prompt: "hello".into()
            }
        );
        assert!(matches!(&s.events[1], Event::BeforeTool { tool, args, .. }
            if tool == "Bash" && args["command"] == "ls"));
        match &s.events[2] {
            Event::AfterTool {
                args,
                result,
                outcome,
                ..
            } => {
                assert_eq!(args["command"], "ls");
                assert_eq!(result["output"], "a\nb");
                assert_eq!(outcome, &ToolOutcome::failed(ToolFailure::Error));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(s.formats.claude, 6);
        assert_eq!(
            s.skipped, 3,
            "progress, the orphan result, the meta message"
        );
        assert_eq!(s.warnings.len(), 2, "{:?}", s.warnings);
        assert!(s.warnings[0].starts_with("line 5: not JSON"));
        assert!(s.warnings[1].contains("`zz`"));
    }
}
