//! The events an agent loop emits, one variant per canonical phase
//! ([`Phase`]), and the structured outcome of a tool call.

use hooks_plan::{OutcomeKind, Phase};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The kind of a [`StepEvent`]: the canonical phase it belongs to.
///
/// This is [`hooks_plan::Phase`] itself, so configs, payloads, records and
/// the runtime share one vocabulary (`before_tool`, `after_tool`, ...).
pub type StepEventKind = Phase;

/// One event of an agent run, borrowed from the agent loop.
///
/// Every variant borrows its data for `'a`, so an event is `Copy` and cheap to
/// hand to every hook of a stack: building one never allocates. There is one
/// variant per phase of [`Phase::ALL`], in the same order; [`StepEvent::kind`]
/// gives the phase.
///
/// JSON values (`args`, `result`, `request`, `response`) are in the shape the
/// agent's model provider or tool uses; hooks address them with RFC 6901
/// pointers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StepEvent<'a> {
    /// The run starts (Claude Code `SessionStart`).
    RunStart {
        /// How the session started, as the agent reports it: Claude Code's
        /// `source`, `startup`, `resume`, `clear` or `compact` (passed
        /// through as given); `""` when the agent does not say, sent to
        /// `protocol: claude` scripts as `startup`.
        source: &'a str,
        /// The model the session runs on (Claude Code's `model`); `""`
        /// when the agent does not say (not sent).
        model: &'a str,
    },
    /// The user submitted a prompt (Claude Code `UserPromptSubmit`).
    /// Hooks may rewrite it ([`Flow::RewritePrompt`](crate::Flow::RewritePrompt))
    /// or refuse it ([`Flow::Skip`](crate::Flow::Skip)).
    UserPrompt {
        /// The prompt text, as rewritten by the hooks before this one.
        prompt: &'a str,
    },
    /// A completion request is about to be sent to the model. Hooks may patch
    /// it ([`Flow::PatchRequest`](crate::Flow::PatchRequest)).
    BeforeCompletion {
        /// The request as the agent is about to send it (provider JSON form).
        request: &'a Value,
    },
    /// The agent is about to select or switch the model (Claude Code
    /// `PreModelSwitch`; rig's `on_model_select`, before every model
    /// call). Hooks may keep the current model
    /// ([`Flow::Skip`](crate::Flow::Skip)) or choose another one
    /// ([`Flow::SelectModel`](crate::Flow::SelectModel)).
    BeforeModelSelect {
        /// The selection, as rewritten by the hooks before this one: a JSON
        /// object `{"from": ..., "to": ..., "source": ...}`: `from` the
        /// model in use (`null` when there is none yet), `to` the model the
        /// agent is switching to, `source` what asked for it (Claude Code's
        /// `source`, e.g. `user` or `sdk`; the rig adapter's `call`), plus
        /// whatever else the agent reports (Claude Code's cache estimate:
        /// `context_tokens`, `prompt_cache_warm`, `cache_ttl`,
        /// `estimated_cache_write_usd`, ...), passed through. What `when`
        /// pointers address (`/to`, `/from`, ...).
        selection: &'a Value,
    },
    /// The agent switched to another model (Claude Code `PostModelSwitch`;
    /// the rig adapter: the model of a call differs from the previous
    /// call's). Hooks may inject context.
    AfterModelSelect {
        /// The selection made, in [`StepEvent::BeforeModelSelect`]'s shape:
        /// `to` is the model now in use.
        selection: &'a Value,
    },
    /// The model answered a completion request.
    AfterCompletion {
        /// The model's response (provider JSON form).
        response: &'a Value,
    },
    /// A streamed text fragment arrived (high frequency: hooks usually
    /// decline it through [`AgentHook::observes`](crate::AgentHook::observes)).
    TextDelta {
        /// The fragment.
        delta: &'a str,
    },
    /// A streamed fragment of a tool call's arguments arrived (high frequency).
    ToolCallDelta {
        /// The tool's name, once known (empty before).
        tool_name: &'a str,
        /// The call's id.
        call_id: &'a str,
        /// The fragment of the JSON arguments text.
        delta: &'a str,
    },
    /// A streamed response finished.
    StreamFinish {
        /// The assembled response (provider JSON form).
        response: &'a Value,
    },
    /// The model finished a reasoning block.
    AfterReasoning {
        /// The reasoning text.
        reasoning: &'a str,
    },
    /// The model finished its turn (rig `ModelTurnFinished`).
    AfterAssistant {
        /// The assistant's text for the turn.
        text: &'a str,
    },
    /// A tool is about to run (Claude Code `PreToolUse`). Hooks may rewrite
    /// the arguments, skip the call or terminate the run.
    BeforeTool {
        /// The tool's name.
        tool_name: &'a str,
        /// The call's id, as the model gave it.
        call_id: &'a str,
        /// The arguments, as rewritten by the hooks before this one.
        args: &'a Value,
    },
    /// A tool call needs approval before it runs (Claude Code
    /// `PermissionRequest`): the agent's own permission rules did not settle
    /// it. Hooks allow it ([`Flow::Allow`](crate::Flow::Allow)), deny it
    /// ([`Flow::Skip`](crate::Flow::Skip)), ask the approver
    /// ([`Flow::Ask`](crate::Flow::Ask)) or rewrite the arguments.
    PermissionRequest {
        /// The tool's name.
        tool_name: &'a str,
        /// The call's id.
        call_id: &'a str,
        /// The arguments, as rewritten by the hooks before this one.
        args: &'a Value,
        /// The "always allow" options the agent would offer its user (Claude
        /// Code `permission_suggestions`; `null` when there are none).
        suggestions: &'a Value,
    },
    /// A tool ran, successfully or not (Claude Code `PostToolUse`). Hooks may
    /// rewrite the result, inject context or terminate the run.
    AfterTool {
        /// The tool's name.
        tool_name: &'a str,
        /// The call's id.
        call_id: &'a str,
        /// The arguments the tool actually ran with (after `before_tool` rewrites).
        args: &'a Value,
        /// The arguments as the model sent them, before any rewrite.
        original_args: &'a Value,
        /// The model-visible result, as rewritten by the hooks before this one.
        result: &'a Value,
        /// Why the tool succeeded or failed, without parsing `result`.
        outcome: &'a ToolOutcome,
        /// How long the tool ran, in milliseconds, when the agent measured
        /// it (Claude Code's `duration_ms`; not sent when `None`).
        duration_ms: Option<u64>,
    },
    /// Every tool call of one model turn has resolved, before the next model
    /// call (Claude Code `PostToolBatch`). Hooks may inject context or
    /// terminate the run.
    AfterToolBatch {
        /// The calls: a JSON array of `{tool_name, tool_input, tool_use_id,
        /// tool_response}` objects, in the order the model issued them.
        calls: &'a Value,
    },
    /// The model called a tool that does not exist, or with arguments that do
    /// not parse. Hooks choose to fail, retry with feedback or repair the
    /// name; when every hook continues, the call fails.
    InvalidToolCall {
        /// The tool name the model used.
        tool_name: &'a str,
        /// The call's id.
        call_id: &'a str,
        /// The raw arguments text the model sent.
        raw_args: &'a str,
        /// Why the call is invalid (human-readable).
        error: &'a str,
    },
    /// The agent is about to stop (Claude Code `Stop`); a hook may ask it to
    /// keep working ([`Flow::Resume`](crate::Flow::Resume)).
    Stop {
        /// How many times hooks already resumed the agent in this turn
        /// (0 on the first stop), so a hook can avoid endless loops.
        loop_count: u32,
        /// The assistant's last text.
        text: &'a str,
        /// The agent's background tasks still running (Claude Code's
        /// `background_tasks`, a JSON array, passed through as given);
        /// `Value::Null` when the agent does not say (not sent).
        background_tasks: &'a Value,
        /// The session's scheduled jobs (Claude Code's `session_crons`, a
        /// JSON array); `Value::Null` when the agent does not say (not
        /// sent).
        session_crons: &'a Value,
    },
    /// The agent sent a notification to its user (Claude Code
    /// `Notification`): observe-only.
    Notification {
        /// The kind, e.g. `permission_prompt`, `idle_prompt` (what `when` on
        /// pointer `""` tests).
        notification_type: &'a str,
        /// The title (empty when there is none).
        title: &'a str,
        /// The notification's text.
        message: &'a str,
    },
    /// A subagent was spawned (Claude Code `SubagentStart`); hooks may add
    /// context for the subagent's first turn.
    SubagentStart {
        /// The subagent's unique id.
        agent_id: &'a str,
        /// Its type or name (what `when` on pointer `""` tests).
        agent_type: &'a str,
    },
    /// A subagent is about to stop (Claude Code `SubagentStop`); a hook may
    /// keep it working ([`Flow::Resume`](crate::Flow::Resume)).
    SubagentStop {
        /// The subagent's unique id.
        agent_id: &'a str,
        /// Its type or name (what `when` on pointer `""` tests).
        agent_type: &'a str,
        /// How many times hooks already resumed this subagent.
        loop_count: u32,
        /// The subagent's last text.
        text: &'a str,
        /// The path of the subagent's own transcript (Claude Code's
        /// `agent_transcript_path`); `""` when the agent does not say (not
        /// sent).
        agent_transcript_path: &'a str,
        /// As [`StepEvent::Stop`]'s `background_tasks`.
        background_tasks: &'a Value,
        /// As [`StepEvent::Stop`]'s `session_crons`.
        session_crons: &'a Value,
    },
    /// The conversation is about to be compacted (Claude Code `PreCompact`);
    /// a hook may prevent it ([`Flow::Skip`](crate::Flow::Skip)).
    BeforeCompaction {
        /// `manual` or `auto` (what `when` on pointer `""` tests).
        trigger: &'a str,
        /// The user's instructions for the summary (empty for `auto`).
        instructions: &'a str,
    },
    /// The conversation was compacted (Claude Code `PostCompact`):
    /// observe-only.
    AfterCompaction {
        /// `manual` or `auto` (what `when` on pointer `""` tests).
        trigger: &'a str,
        /// The summary that replaced the conversation.
        summary: &'a str,
    },
    /// The run ended normally (Claude Code `SessionEnd`).
    RunEnd {
        /// The run's final output text.
        output: &'a str,
        /// Why the run ended, in Claude Code's `SessionEnd` terms where they
        /// apply (`other`, `clear`, `logout`, `prompt_input_exit`, ...).
        reason: &'a str,
    },
    /// The run ended with an error.
    RunError {
        /// The error, rendered as text.
        error: &'a str,
    },
}

impl StepEvent<'static> {
    /// A `run_start` event with nothing the agent reports about it
    /// (`source` and `model` empty).
    pub const RUN_START: StepEvent<'static> = StepEvent::RunStart {
        source: "",
        model: "",
    };
}

impl<'a> StepEvent<'a> {
    /// The phase of this event.
    pub const fn kind(&self) -> StepEventKind {
        match self {
            StepEvent::RunStart { .. } => Phase::RunStart,
            StepEvent::UserPrompt { .. } => Phase::UserPrompt,
            StepEvent::BeforeCompletion { .. } => Phase::BeforeCompletion,
            StepEvent::BeforeModelSelect { .. } => Phase::BeforeModelSelect,
            StepEvent::AfterModelSelect { .. } => Phase::AfterModelSelect,
            StepEvent::AfterCompletion { .. } => Phase::AfterCompletion,
            StepEvent::TextDelta { .. } => Phase::TextDelta,
            StepEvent::ToolCallDelta { .. } => Phase::ToolCallDelta,
            StepEvent::StreamFinish { .. } => Phase::StreamFinish,
            StepEvent::AfterReasoning { .. } => Phase::AfterReasoning,
            StepEvent::AfterAssistant { .. } => Phase::AfterAssistant,
            StepEvent::BeforeTool { .. } => Phase::BeforeTool,
            StepEvent::PermissionRequest { .. } => Phase::PermissionRequest,
            StepEvent::AfterTool { .. } => Phase::AfterTool,
            StepEvent::AfterToolBatch { .. } => Phase::AfterToolBatch,
            StepEvent::InvalidToolCall { .. } => Phase::InvalidToolCall,
            StepEvent::Stop { .. } => Phase::Stop,
            StepEvent::Notification { .. } => Phase::Notification,
            StepEvent::SubagentStart { .. } => Phase::SubagentStart,
            StepEvent::SubagentStop { .. } => Phase::SubagentStop,
            StepEvent::BeforeCompaction { .. } => Phase::BeforeCompaction,
            StepEvent::AfterCompaction { .. } => Phase::AfterCompaction,
            StepEvent::RunEnd { .. } => Phase::RunEnd,
            StepEvent::RunError { .. } => Phase::RunError,
        }
    }

    /// The tool name, on tool phases (`before_tool`, `permission_request`,
    /// `after_tool`, `invalid_tool_call`, `tool_call_delta`); `None` elsewhere.
    pub const fn tool_name(&self) -> Option<&'a str> {
        match *self {
            StepEvent::BeforeTool { tool_name, .. }
            | StepEvent::PermissionRequest { tool_name, .. }
            | StepEvent::AfterTool { tool_name, .. }
            | StepEvent::InvalidToolCall { tool_name, .. }
            | StepEvent::ToolCallDelta { tool_name, .. } => Some(tool_name),
            _ => None,
        }
    }

    /// The tool call's id, on the same phases as [`StepEvent::tool_name`].
    pub const fn call_id(&self) -> Option<&'a str> {
        match *self {
            StepEvent::BeforeTool { call_id, .. }
            | StepEvent::PermissionRequest { call_id, .. }
            | StepEvent::AfterTool { call_id, .. }
            | StepEvent::InvalidToolCall { call_id, .. }
            | StepEvent::ToolCallDelta { call_id, .. } => Some(call_id),
            _ => None,
        }
    }

    /// The event with its chained value replaced: the arguments of a
    /// `before_tool` or `permission_request` event, the result of an
    /// `after_tool` event, the selection of a `before_model_select` event.
    /// Other events are returned unchanged.
    pub(crate) fn with_value<'b>(self, value: &'b Value) -> StepEvent<'b>
    where
        'a: 'b,
    {
        match self {
            StepEvent::BeforeTool {
                tool_name, call_id, ..
            } => StepEvent::BeforeTool {
                tool_name,
                call_id,
                args: value,
            },
            StepEvent::PermissionRequest {
                tool_name,
                call_id,
                suggestions,
                ..
            } => StepEvent::PermissionRequest {
                tool_name,
                call_id,
                args: value,
                suggestions,
            },
            StepEvent::AfterTool {
                tool_name,
                call_id,
                args,
                original_args,
                outcome,
                duration_ms,
                ..
            } => StepEvent::AfterTool {
                tool_name,
                call_id,
                args,
                original_args,
                result: value,
                outcome,
                duration_ms,
            },
            StepEvent::BeforeModelSelect { .. } => {
                StepEvent::BeforeModelSelect { selection: value }
            }
            other => other,
        }
    }

    /// The model a `before_model_select` or `after_model_select` event's
    /// selection switches to (its `to`, when a string); `None` elsewhere.
    pub fn selected_model(&self) -> Option<&'a str> {
        match *self {
            StepEvent::BeforeModelSelect { selection }
            | StepEvent::AfterModelSelect { selection } => selection.get("to")?.as_str(),
            _ => None,
        }
    }

    /// The event with the prompt of a `user_prompt` event replaced; other
    /// events are returned unchanged.
    pub(crate) fn with_prompt<'b>(self, prompt: &'b str) -> StepEvent<'b>
    where
        'a: 'b,
    {
        match self {
            StepEvent::UserPrompt { .. } => StepEvent::UserPrompt { prompt },
            other => other,
        }
    }
}

/// The selection of a [`StepEvent::BeforeModelSelect`] or
/// [`StepEvent::AfterModelSelect`] event: `{"from": from, "to": to,
/// "source": source}`, `from` `null` when `None` (allocates the object).
pub fn model_selection(from: Option<&str>, to: &str, source: &str) -> Value {
    serde_json::json!({ "from": from, "to": to, "source": source })
}

/// `selection` with its `to` replaced by `model` (a selection that is not
/// an object becomes `{"to": model}`).
pub(crate) fn reselect(selection: &Value, model: &str) -> Value {
    let mut selection = match selection {
        Value::Object(_) => selection.clone(),
        _ => Value::Object(serde_json::Map::new()),
    };
    if let Some(object) = selection.as_object_mut() {
        object.insert("to".to_owned(), Value::from(model));
    }
    selection
}

/// Why a tool call failed, as carried by [`ToolOutcome::Failed`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolFailure {
    /// The tool ran out of time.
    Timeout,
    /// The tool, or what it was asked to act on, does not exist.
    NotFound,
    /// The call was refused (by a hook, a permission or the tool).
    Denied,
    /// Any other failure.
    Error,
}

impl ToolFailure {
    /// The matching [`OutcomeKind`] (never `success`).
    pub const fn outcome_kind(self) -> OutcomeKind {
        match self {
            ToolFailure::Timeout => OutcomeKind::Timeout,
            ToolFailure::NotFound => OutcomeKind::NotFound,
            ToolFailure::Denied => OutcomeKind::Denied,
            ToolFailure::Error => OutcomeKind::Error,
        }
    }
}

/// How a tool call ended, beside its model-visible result, so an `after_tool`
/// hook branches on *why* a tool failed without parsing text.
///
/// Serialized as `{"kind": "success"}` or
/// `{"kind": "failed", "failure": "timeout", "message": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ToolOutcome {
    /// The tool ran and succeeded.
    Success,
    /// The tool did not succeed.
    Failed {
        /// Why.
        failure: ToolFailure,
        /// A human-readable detail, if the tool gave one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
}

impl ToolOutcome {
    /// A failed outcome of `failure` kind without a message.
    pub const fn failed(failure: ToolFailure) -> Self {
        ToolOutcome::Failed {
            failure,
            message: None,
        }
    }

    /// The outcome's kind, as `when: {outcome: ...}` predicates name it.
    pub const fn kind(&self) -> OutcomeKind {
        match self {
            ToolOutcome::Success => OutcomeKind::Success,
            ToolOutcome::Failed { failure, .. } => failure.outcome_kind(),
        }
    }

    /// The outcome's name as `when: {outcome: ...}` predicates spell it:
    /// `success`, `timeout`, `not_found`, `denied` or `error`.
    pub const fn label(&self) -> &'static str {
        self.kind().as_str()
    }

    /// Whether the tool succeeded.
    pub const fn is_success(&self) -> bool {
        matches!(self, ToolOutcome::Success)
    }

    /// The failure message, if any.
    pub fn message(&self) -> Option<&str> {
        match self {
            ToolOutcome::Success => None,
            ToolOutcome::Failed { message, .. } => message.as_deref(),
        }
    }
}
