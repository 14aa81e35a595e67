//! The canonical phases of an agent run and the enums hooks are configured with.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A point in an agent's run at which hooks are dispatched.
///
/// The names are this project's canonical phases; the table in docs/phases.md
/// maps them to rig's `StepEvent` variants and to Claude Code's hook events.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The run starts (Claude Code `SessionStart`).
    RunStart,
    /// The user submitted a prompt (Claude Code `UserPromptSubmit`); hooks may rewrite it.
    UserPrompt,
    /// A completion request is about to be sent to the model; hooks may patch it.
    BeforeCompletion,
    /// The agent is about to select or switch the model (Claude Code
    /// `PreModelSwitch`, rig `on_model_select`); hooks may block the switch
    /// or choose the model.
    BeforeModelSelect,
    /// The agent switched to another model (Claude Code `PostModelSwitch`);
    /// hooks may inject context.
    AfterModelSelect,
    /// The model answered a completion request.
    AfterCompletion,
    /// A streamed text fragment arrived (high frequency).
    TextDelta,
    /// A streamed tool-call fragment arrived (high frequency).
    ToolCallDelta,
    /// A streamed response finished.
    StreamFinish,
    /// The model finished a reasoning block.
    AfterReasoning,
    /// The model finished its turn (rig `ModelTurnFinished`).
    AfterAssistant,
    /// A tool is about to run (Claude Code `PreToolUse`); hooks may block it, ask for approval or rewrite its arguments.
    BeforeTool,
    /// A tool call needs approval before it runs (Claude Code `PermissionRequest`); hooks allow, deny or ask.
    PermissionRequest,
    /// A tool ran, successfully or not (Claude Code `PostToolUse` / `PostToolUseFailure`); hooks may rewrite its result or inject context.
    AfterTool,
    /// Every tool call of one model turn has resolved, before the next model call (Claude Code `PostToolBatch`).
    AfterToolBatch,
    /// The model called a tool that does not exist or with arguments that do not parse.
    InvalidToolCall,
    /// The agent is about to stop (Claude Code `Stop`); a hook may ask it to keep working.
    Stop,
    /// The agent sent a notification to its user (Claude Code `Notification`); observe-only.
    Notification,
    /// A subagent was spawned (Claude Code `SubagentStart`); hooks may add context for it.
    SubagentStart,
    /// A subagent is about to stop (Claude Code `SubagentStop`); a hook may ask it to keep working.
    SubagentStop,
    /// The conversation is about to be compacted (Claude Code `PreCompact`); a hook may prevent it.
    BeforeCompaction,
    /// The conversation was compacted (Claude Code `PostCompact`); observe-only.
    AfterCompaction,
    /// The run ended normally (Claude Code `SessionEnd`).
    RunEnd,
    /// The run ended with an error.
    RunError,
}

impl Phase {
    /// Every phase, in the order of a run (and of the phase table in docs/phases.md).
    pub const ALL: [Phase; 24] = [
        Phase::RunStart,
        Phase::UserPrompt,
        Phase::BeforeCompletion,
        Phase::BeforeModelSelect,
        Phase::AfterModelSelect,
        Phase::AfterCompletion,
        Phase::TextDelta,
        Phase::ToolCallDelta,
        Phase::StreamFinish,
        Phase::AfterReasoning,
        Phase::AfterAssistant,
        Phase::BeforeTool,
        Phase::PermissionRequest,
        Phase::AfterTool,
        Phase::AfterToolBatch,
        Phase::InvalidToolCall,
        Phase::Stop,
        Phase::Notification,
        Phase::SubagentStart,
        Phase::SubagentStop,
        Phase::BeforeCompaction,
        Phase::AfterCompaction,
        Phase::RunEnd,
        Phase::RunError,
    ];

    /// How many phases there are (the length of [`Phase::ALL`]).
    pub const COUNT: usize = Phase::ALL.len();

    /// The index of this phase in [`Phase::ALL`] (and in a plan's per-phase lists).
    pub const fn index(self) -> usize {
        // `ALL` lists the variants in declaration order (tested).
        self as usize
    }

    /// The snake_case name used in configs, payloads and records.
    pub const fn as_str(self) -> &'static str {
        match self {
            Phase::RunStart => "run_start",
            Phase::UserPrompt => "user_prompt",
            Phase::BeforeCompletion => "before_completion",
            Phase::BeforeModelSelect => "before_model_select",
            Phase::AfterModelSelect => "after_model_select",
            Phase::AfterCompletion => "after_completion",
            Phase::TextDelta => "text_delta",
            Phase::ToolCallDelta => "tool_call_delta",
            Phase::StreamFinish => "stream_finish",
            Phase::AfterReasoning => "after_reasoning",
            Phase::AfterAssistant => "after_assistant",
            Phase::BeforeTool => "before_tool",
            Phase::PermissionRequest => "permission_request",
            Phase::AfterTool => "after_tool",
            Phase::AfterToolBatch => "after_tool_batch",
            Phase::InvalidToolCall => "invalid_tool_call",
            Phase::Stop => "stop",
            Phase::Notification => "notification",
            Phase::SubagentStart => "subagent_start",
            Phase::SubagentStop => "subagent_stop",
            Phase::BeforeCompaction => "before_compaction",
            Phase::AfterCompaction => "after_compaction",
            Phase::RunEnd => "run_end",
            Phase::RunError => "run_error",
        }
    }

    /// The phase with this config name, if any.
    pub fn from_name(name: &str) -> Option<Phase> {
        Phase::ALL.into_iter().find(|p| p.as_str() == name)
    }

    /// Claude Code's hook event name for this phase (`before_tool` →
    /// `PreToolUse`): the first row of [`CLAUDE_CODE_EVENTS`] for it, `None`
    /// for the phases Claude Code has no event for. `after_tool` is
    /// `PostToolUse` (Claude Code's `PostToolUseFailure` is `after_tool` of
    /// a failed tool).
    pub fn claude_event(self) -> Option<&'static str> {
        CLAUDE_CODE_EVENTS
            .iter()
            .find(|(_, phase)| *phase == self)
            .map(|(name, _)| *name)
    }

    /// The phase of Claude Code's hook event `name` (`PreToolUse` →
    /// `before_tool`), from [`CLAUDE_CODE_EVENTS`]; `None` for events
    /// without one (`PermissionDenied`, `TaskCreated`, ...) and unknown names.
    pub fn from_claude_event(name: &str) -> Option<Phase> {
        CLAUDE_CODE_EVENTS
            .iter()
            .find(|(event, _)| *event == name)
            .map(|(_, phase)| *phase)
    }

    /// Whether events of this phase concern one tool call (`include_tools`,
    /// `exclude_tools` and `rewrite` are allowed only on these):
    /// [`Capabilities::tool`](crate::Capabilities::tool).
    pub const fn is_tool_phase(self) -> bool {
        self.capabilities().tool
    }

    /// Whether this phase comes after something happened (`inject` is
    /// allowed only on these): [`Capabilities::after`](crate::Capabilities::after).
    pub const fn is_after_phase(self) -> bool {
        self.capabilities().after
    }

    /// Whether hooks of this phase can change what happens next. Hooks of an
    /// observe-only phase may run concurrently; mutating phases run their
    /// hooks one after another ([`Capabilities::mutating`](crate::Capabilities::mutating)).
    pub const fn is_mutating(self) -> bool {
        self.capabilities().mutating
    }

    /// The failure policy a hook of this phase gets when it names none:
    /// `block` for the gates (`before_tool`, `permission_request`,
    /// `before_model_select`: fail closed where a hook gates), `warn`
    /// elsewhere ([`Capabilities::default_failure_policy`](crate::Capabilities::default_failure_policy)).
    pub const fn default_failure_policy(self) -> FailurePolicy {
        self.capabilities().default_failure_policy
    }
}

/// Claude Code's hook events that have a phase here, and that phase: the
/// one statement of the correspondence, which the `claude` protocol
/// (`hook_event_name`) and `agent-hooks import claude` both read
/// ([`Phase::claude_event`], [`Phase::from_claude_event`]).
///
/// A name may have several rows and a phase several names: the first row
/// of each wins. `PostToolUse` and `PostToolUseFailure` are both
/// `after_tool` (a tool that succeeded, one that failed); `SessionEnd` is
/// `run_end`, and also what `run_error` is called.
pub const CLAUDE_CODE_EVENTS: [(&str, Phase); 17] = [
    ("SessionStart", Phase::RunStart),
    ("UserPromptSubmit", Phase::UserPrompt),
    ("PreModelSwitch", Phase::BeforeModelSelect),
    ("PostModelSwitch", Phase::AfterModelSelect),
    ("PreToolUse", Phase::BeforeTool),
    ("PermissionRequest", Phase::PermissionRequest),
    ("PostToolUse", Phase::AfterTool),
    ("PostToolUseFailure", Phase::AfterTool),
    ("PostToolBatch", Phase::AfterToolBatch),
    ("Stop", Phase::Stop),
    ("Notification", Phase::Notification),
    ("SubagentStart", Phase::SubagentStart),
    ("SubagentStop", Phase::SubagentStop),
    ("PreCompact", Phase::BeforeCompaction),
    ("PostCompact", Phase::AfterCompaction),
    ("SessionEnd", Phase::RunEnd),
    ("SessionEnd", Phase::RunError),
];

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the runtime does when a hook *fails* (spawn failure, nonzero exit,
/// signal, timeout, invalid output, output too large, cancellation).
///
/// Explicit decisions (block, skip, terminate) are always honoured; the policy
/// applies only to failures.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum FailurePolicy {
    /// Continue as if the hook had returned no decision; record the failure.
    Ignore,
    /// Continue, record the failure and emit a visible diagnostic.
    Warn,
    /// Skip the tool call, or keep the current model (fail closed). Allowed
    /// only on the gates: `before_tool`, `permission_request` and
    /// `before_model_select`.
    Block,
    /// Terminate the run.
    Fail,
}

impl FailurePolicy {
    /// Every policy, in declaration order.
    pub const ALL: [FailurePolicy; 4] = [
        FailurePolicy::Ignore,
        FailurePolicy::Warn,
        FailurePolicy::Block,
        FailurePolicy::Fail,
    ];

    /// The snake_case name used in configs and records.
    pub const fn as_str(self) -> &'static str {
        match self {
            FailurePolicy::Ignore => "ignore",
            FailurePolicy::Warn => "warn",
            FailurePolicy::Block => "block",
            FailurePolicy::Fail => "fail",
        }
    }

    /// Whether a background hook (`async: true`) may have this policy:
    /// `ignore` or `warn`. `block` and `fail` act on the event the hook
    /// was started by, which the agent did not wait for.
    pub const fn is_background(self) -> bool {
        matches!(self, FailurePolicy::Ignore | FailurePolicy::Warn)
    }
}

/// Whether a hook's decision takes effect.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The hook's decision takes effect.
    #[default]
    Enforce,
    /// The hook decides and its would-be decision is recorded, but the run
    /// continues as if it had returned `Continue`.
    Audit,
}

/// How much of an event a shell hook receives on stdin.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PayloadMode {
    /// Everything in the event, binary data replaced by metadata.
    #[default]
    Full,
    /// Credential-like keys masked and sensitive values summarized.
    Redacted,
}

/// The stdin/stdout protocol a shell hook speaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    /// This project's payload envelope v1 on stdin and its output object on stdout.
    #[default]
    Native,
    /// Claude Code's hook protocol (`hook_event_name`, `tool_input`, `decision`,
    /// `hookSpecificOutput`, exit code 2 = block), so existing scripts run unmodified.
    Claude,
    /// OpenAI Codex's hook protocol: Claude Code's input and output, plus
    /// Codex's `turn_id` on stdin, for scripts written for Codex.
    Codex,
    /// Gemini CLI's hook protocol: Claude Code's under Gemini CLI's event
    /// names and fields (`BeforeTool`, `decision: "deny"`,
    /// `hookSpecificOutput.tool_input` merged over the arguments), for
    /// scripts written for Gemini CLI.
    Gemini,
    /// The GitHub Copilot CLI's camelCase hook protocol (`sessionId`,
    /// `toolArgs`, flat `permissionDecision` / `modifiedArgs`), for scripts
    /// configured under the CLI's camelCase event names.
    Copilot,
}

impl Protocol {
    /// Whether the protocol is Claude Code's or one built on it (Codex,
    /// Gemini CLI): its payload is Claude Code's input object (renamed)
    /// and its output is read as Claude Code's.
    pub const fn is_claude_family(self) -> bool {
        !matches!(self, Protocol::Native)
    }

    /// The variable that names the workspace root to a script of this
    /// protocol, as its agent sets it (`CLAUDE_PROJECT_DIR`,
    /// `GEMINI_PROJECT_DIR`); Codex and native scripts get none.
    pub const fn project_dir_vars(self) -> &'static [&'static str] {
        match self {
            Protocol::Claude => &["CLAUDE_PROJECT_DIR"],
            Protocol::Gemini => &["GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
            Protocol::Native | Protocol::Codex | Protocol::Copilot => &[],
        }
    }
}

/// Why a tool call did not succeed, as seen by `after_tool` hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    /// The tool ran and succeeded.
    Success,
    /// The tool ran out of time.
    Timeout,
    /// The tool, or what it was asked to act on, does not exist.
    NotFound,
    /// The tool call was refused (by a hook, a permission or the tool).
    Denied,
    /// Any other failure.
    Error,
}

impl OutcomeKind {
    /// The snake_case name used in configs (`when: {outcome: ...}`), event
    /// JSON and payloads: `success`, `timeout`, `not_found`, `denied`,
    /// `error`.
    pub const fn as_str(self) -> &'static str {
        match self {
            OutcomeKind::Success => "success",
            OutcomeKind::Timeout => "timeout",
            OutcomeKind::NotFound => "not_found",
            OutcomeKind::Denied => "denied",
            OutcomeKind::Error => "error",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{OutcomeKind, Phase};

    #[test]
    fn claude_event_names_go_both_ways() {
        assert_eq!(Phase::BeforeTool.claude_event(), Some("PreToolUse"));
        assert_eq!(Phase::AfterTool.claude_event(), Some("PostToolUse"));
        assert_eq!(Phase::RunError.claude_event(), Some("SessionEnd"));
        assert_eq!(Phase::TextDelta.claude_event(), None);
        assert_eq!(Phase::from_claude_event("SessionEnd"), Some(Phase::RunEnd));
        assert_eq!(
            Phase::from_claude_event("PostToolUseFailure"),
            Some(Phase::AfterTool)
        );
        assert_eq!(Phase::from_claude_event("TaskCreated"), None);
        assert_eq!(
            Phase::from_claude_event("PreModelSwitch"),
            Some(Phase::BeforeModelSelect)
        );
        assert_eq!(
            Phase::AfterModelSelect.claude_event(),
            Some("PostModelSwitch")
        );
    }

    #[test]
    fn outcome_names_are_the_serde_names() {
        use OutcomeKind as K;
        for kind in [K::Success, K::Timeout, K::NotFound, K::Denied, K::Error] {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
    }

    #[test]
    fn index_is_the_position_in_all() {
        for (i, phase) in Phase::ALL.iter().enumerate() {
            assert_eq!(phase.index(), i, "{phase}");
        }
    }
}
