//! The native hook stdout output object.
//!
//! A shell hook of protocol `native` may print one JSON object of type
//! [`HookOutput`] on stdout. Empty stdout, or `{}`, means "no decision"
//! (`continue`). The generated JSON Schema ([`output_schema`]) is committed as
//! `schema/output.schema.json`.
//!
//! Which fields an event's phase accepts is checked by the runtime: a field
//! that does not apply to the phase is an `invalid_output` failure, never
//! silently ignored.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The stable `$id` of the output schema.
pub const OUTPUT_SCHEMA_ID: &str = "https://agent-hooks.invalid/schema/output-v1.json";

/// The JSON object a shell hook (protocol `native`) may print on stdout.
///
/// `decision` selects the flow; the rewrite fields, `patch` and
/// `context_items` change what happens next and go only with `continue` (or
/// no `decision`). At most one of `rewrite_args`, `rewrite_result`,
/// `rewrite_prompt`, `patch`, `context_items` and `model` may be present.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "agent-hooks hook output v1")]
pub struct HookOutput {
    /// What should happen next. Absent means `continue`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<OutputDecision>,
    /// Why: required with `block`, `terminate`, `resume` and `fail`; the text
    /// the model (block, resume) or the operator (terminate, fail) sees.
    /// Not allowed with other decisions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `before_tool`, `permission_request`: the tool's new arguments, replacing the old ones whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewrite_args: Option<serde_json::Value>,
    /// `after_tool` only: the tool's new model-visible result, replacing the old one whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewrite_result: Option<serde_json::Value>,
    /// `user_prompt` only: the new prompt text, replacing the old one whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewrite_prompt: Option<String>,
    /// `before_completion` only: changes to the completion request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<OutputPatch>,
    /// After-phases only (`after_tool`, `after_completion`, `after_reasoning`,
    /// `after_assistant`): context items to add to the conversation. Role
    /// `user` only; their total content size is capped by the config's limits.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context_items: Vec<OutputContextItem>,
    /// With `retry` (`invalid_tool_call` only): the feedback the model gets
    /// with the request to try again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
    /// With `repair` (`invalid_tool_call` only): the tool the call is meant for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// `run_start` only: environment variables (name to value) for the
    /// run's later tool calls, as Claude Code's `CLAUDE_ENV_FILE` sets them
    /// for its SessionStart hooks; the agent gets them in the decision.
    /// Names are `[A-Za-z_][A-Za-z0-9_]*`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub env: std::collections::BTreeMap<String, String>,
    /// `before_model_select` only: the model to switch to instead (later
    /// hooks see it as the selection's `to`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub model: Option<String>,
}

/// A hook's decision, selecting a flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputDecision {
    /// Go on (optionally with the rewrite, patch or context items given).
    Continue,
    /// `before_tool`, `permission_request`: the tool does not run (deny);
    /// `reason` is what the model sees. `user_prompt`: the prompt is
    /// dropped; `before_compaction`: no compaction; `before_model_select`:
    /// the agent keeps its current model.
    Block,
    /// End the run; `reason` says why.
    Terminate,
    /// `stop` only: the agent keeps working; `reason` is what it is told to do.
    /// Capped per turn by the config's limits.
    Resume,
    /// `invalid_tool_call` only: fail the invalid call; `reason` says why.
    Fail,
    /// `invalid_tool_call` only: ask the model to try again with `feedback`.
    Retry,
    /// `invalid_tool_call` only: route the call to the tool named `tool_name`.
    Repair,
    /// `before_tool`, `permission_request`: have the agent's approver decide;
    /// `reason` is what the approver is shown.
    Ask,
    /// `permission_request` only: grant the permission.
    Allow,
}

impl OutputDecision {
    /// The snake_case name used in output objects and records.
    pub const fn as_str(self) -> &'static str {
        match self {
            OutputDecision::Continue => "continue",
            OutputDecision::Block => "block",
            OutputDecision::Terminate => "terminate",
            OutputDecision::Resume => "resume",
            OutputDecision::Fail => "fail",
            OutputDecision::Retry => "retry",
            OutputDecision::Repair => "repair",
            OutputDecision::Ask => "ask",
            OutputDecision::Allow => "allow",
        }
    }
}

/// Changes a `before_completion` hook makes to the completion request.
/// Patches of several hooks merge field by field (docs/config.md's *How several
/// hooks combine*).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputPatch {
    /// The model the request goes to, replacing the request's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The new system preamble, replacing the old one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preamble: Option<String>,
    /// The sampling temperature, from 0.0 to 2.0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 2.0))]
    pub temperature: Option<f64>,
    /// The most tokens the model may generate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// The tool choice: `auto`, `none`, `required`, or the name of one tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<String>,
    /// The tools the model may call; narrows (intersects with) the current set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_tools: Option<Vec<String>>,
    /// Provider-specific request parameters, shallow-merged (later keys win).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_params: Option<serde_json::Map<String, serde_json::Value>>,
    /// The conversation history to send instead of the agent's, as the
    /// provider's message objects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<serde_json::Value>>,
    /// Extra `user`-role context items appended to the request, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_context: Vec<OutputContextItem>,
}

/// One context item a hook adds to the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputContextItem {
    /// Who the item speaks as: always `user` (hooks cannot speak as the
    /// system or the assistant).
    pub role: ContextRole,
    /// The item's text (UTF-8).
    pub content: String,
}

/// The role of a hook-provided context item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContextRole {
    /// A user-role message.
    User,
}

/// The JSON Schema (draft 2020-12) of [`HookOutput`], with `$id`
/// [`OUTPUT_SCHEMA_ID`]. Generated from the Rust types; the committed copy is
/// `schema/output.schema.json`.
pub fn output_schema() -> serde_json::Value {
    finish_schema(
        schemars::generate::SchemaSettings::draft2020_12()
            .into_generator()
            .into_root_schema_for::<HookOutput>(),
        OUTPUT_SCHEMA_ID,
    )
}

/// Puts `$id` right after `$schema` in a generated root schema.
#[doc(hidden)]
pub fn finish_schema(schema: schemars::Schema, id: &str) -> serde_json::Value {
    let mut value = schema.to_value();
    if let serde_json::Value::Object(map) = &mut value {
        let mut out = serde_json::Map::new();
        if let Some(s) = map.remove("$schema") {
            out.insert("$schema".to_owned(), s);
        }
        out.insert("$id".to_owned(), serde_json::Value::String(id.to_owned()));
        out.append(map);
        *map = out;
    }
    value
}
