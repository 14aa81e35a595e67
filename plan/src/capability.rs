//! What each phase allows, stated once as data: [`CAPABILITIES`], one row
//! per [`Phase`].
//!
//! Every layer that must agree on "what may happen on this phase" reads this
//! table instead of restating it: the JSON Schema's per-phase `if`/`then`
//! rules, the checker's `action-not-allowed` / `tool-filter-on-non-tool-phase`
//! / `block-policy-not-allowed` / `outcome-not-allowed` diagnostics,
//! `Action::allowed_on` (in `hooks-schema`), the runtime's flow
//! honouring ([`FlowKind::honoured_on`]) and the native output protocol's
//! per-phase fields ([`FlowKind::native_output`]). Adding a phase, an action
//! or a flow means adding a row or a column here.
//!
//! | phase | actions besides `run`, `http`, `policy`, `terminate` | flows besides `continue`, `terminate` | tool filters | failure policy `block` | `when` pointers address | `outcome` |
//! | --- | --- | --- | --- | --- | --- | --- |
//! | `run_start` | `inject` | `inject_context` | no | no | nothing | no |
//! | `user_prompt` | — | `rewrite_prompt`, `skip` | no | no | the prompt (text) | no |
//! | `before_completion` | `patch` | `patch_request` | no | no | the request | no |
//! | `before_model_select` | `block`, `select_model` | `select_model`, `skip` | no | yes (the default) | the selection (`{from, to, source}`) | no |
//! | `after_model_select` | `inject` | `inject_context` | no | no | the selection (`{from, to, source}`) | no |
//! | `after_completion` | `inject` | `inject_context` | no | no | the response | no |
//! | `text_delta`, `tool_call_delta` | — | — | no | no | the delta (text) | no |
//! | `stream_finish` | — | — | no | no | the response | no |
//! | `after_reasoning`, `after_assistant` | `inject` | `inject_context` | no | no | the text | no |
//! | `before_tool` | `block`, `rewrite`, `ask`, `inject` | `rewrite_args`, `skip`, `ask`, `inject_context` | yes | yes (the default) | the arguments | no |
//! | `permission_request` | `block`, `rewrite`, `ask`, `allow` | `rewrite_args`, `skip`, `ask`, `allow` | yes | yes (the default) | the arguments | no |
//! | `after_tool` | `rewrite`, `inject` | `rewrite_result`, `inject_context` | yes | no | the result | yes |
//! | `after_tool_batch` | `inject` | `inject_context` | no | no | the batch's calls (JSON array) | no |
//! | `invalid_tool_call` | — | `fail`, `retry`, `repair` | no | no | the raw arguments (text) | no |
//! | `stop` | — | `resume` | no | no | the assistant's text | no |
//! | `notification` | — | — | no | no | the notification type (text) | no |
//! | `subagent_start` | `inject` | `inject_context` | no | no | the agent type (text) | no |
//! | `subagent_stop` | — | `resume` | no | no | the agent type (text) | no |
//! | `before_compaction` | — | `skip` | no | no | the trigger (`manual` / `auto`) | no |
//! | `after_compaction` | — | — | no | no | the trigger (`manual` / `auto`) | no |
//! | `run_end`, `run_error` | — | — | no | no | the output or error (text) | no |
//!
//! Hooks of every phase but `run_end` and `run_error` may run in the
//! background (`async: true`, [`Capabilities::background`]) when their
//! action allows it ([`ActionKind::background`]); what they return is
//! context ([`FlowKind::background`]), delivered with a later event of the
//! run whose phase honours `inject_context`.

use serde::{Deserialize, Serialize};

use crate::phase::{FailurePolicy, Phase};

/// The kind of a hook's action: the config key that selects it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// `run`: run a command and interpret its output.
    Run,
    /// `http`: POST the payload to a URL and interpret the response body.
    Http,
    /// `policy`: evaluate a Rego policy in process and interpret its value.
    Policy,
    /// `block`: do not run the tool.
    Block,
    /// `patch`: patch the completion request.
    Patch,
    /// `rewrite`: rewrite the tool's arguments or result.
    Rewrite,
    /// `inject`: add a `user`-role context item.
    Inject,
    /// `terminate`: end the run.
    Terminate,
    /// `ask`: have the agent's approver decide on the tool call.
    Ask,
    /// `allow`: grant a permission request.
    Allow,
    /// `select_model`: choose the model the agent switches to.
    SelectModel,
}

impl ActionKind {
    /// Every action, in the order used by messages.
    pub const ALL: [ActionKind; 11] = [
        ActionKind::Run,
        ActionKind::Http,
        ActionKind::Policy,
        ActionKind::Block,
        ActionKind::Patch,
        ActionKind::Rewrite,
        ActionKind::Inject,
        ActionKind::Terminate,
        ActionKind::Ask,
        ActionKind::Allow,
        ActionKind::SelectModel,
    ];

    /// The config key, e.g. `block`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ActionKind::Run => "run",
            ActionKind::Http => "http",
            ActionKind::Block => "block",
            ActionKind::Patch => "patch",
            ActionKind::Rewrite => "rewrite",
            ActionKind::Inject => "inject",
            ActionKind::Terminate => "terminate",
            ActionKind::Ask => "ask",
            ActionKind::Allow => "allow",
            ActionKind::Policy => "policy",
            ActionKind::SelectModel => "select_model",
        }
    }

    /// The action with this config key, if any.
    pub fn from_name(name: &str) -> Option<ActionKind> {
        ActionKind::ALL.into_iter().find(|a| a.as_str() == name)
    }

    /// Whether a hook of `phase` may have this action ([`Capabilities::actions`]).
    pub const fn allowed_on(self, phase: Phase) -> bool {
        phase.capabilities().actions.contains(self)
    }

    /// Whether the action changes what the next hook of the event sees
    /// (`rewrite`: the arguments or result; `select_model`: the selection's
    /// `to`; see [`FlowKind::chains`]). A
    /// hook with such an action cannot be `parallel: true`: the hooks after
    /// it must wait for its value.
    pub const fn chains(self) -> bool {
        matches!(self, ActionKind::Rewrite | ActionKind::SelectModel)
    }

    /// Whether a hook with this action may run in the background
    /// (`async: true`): `run`, `http` and `policy`, whose answer takes
    /// time and may be context for a later event. The others decide in
    /// process at once (nothing to wait for), and a decision (`block`,
    /// `rewrite`, `patch`, `ask`, `allow`, `terminate`) is moot once the
    /// agent has gone on without it.
    pub const fn background(self) -> bool {
        matches!(
            self,
            ActionKind::Run | ActionKind::Http | ActionKind::Policy
        )
    }
}

/// The variant of a runtime `Flow` (what one hook asks for after an event),
/// without its data; named in diagnostics, records and the native output
/// protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowKind {
    /// Let the agent proceed.
    Continue,
    /// Patch the completion request.
    PatchRequest,
    /// Replace the tool's arguments.
    RewriteArgs,
    /// Replace the tool's model-visible result.
    RewriteResult,
    /// Replace the user's prompt.
    RewritePrompt,
    /// Add `user`-role context items.
    InjectContext,
    /// Do not run the tool, or drop the prompt.
    Skip,
    /// End the run.
    Terminate,
    /// Keep working instead of stopping.
    Resume,
    /// Fail the invalid tool call.
    Fail,
    /// Ask the model to try the invalid call again.
    Retry,
    /// Run the invalid call as a call of another tool.
    Repair,
    /// Have the agent's approver decide (a person, an approval service).
    Ask,
    /// Grant the permission without asking.
    Allow,
    /// Set environment variables for the run's later tool calls.
    SetEnv,
    /// Use this model (instead of the one the agent was switching to).
    SelectModel,
}

impl FlowKind {
    /// Every kind, in declaration order.
    pub const ALL: [FlowKind; 16] = [
        FlowKind::Continue,
        FlowKind::PatchRequest,
        FlowKind::RewriteArgs,
        FlowKind::RewriteResult,
        FlowKind::RewritePrompt,
        FlowKind::InjectContext,
        FlowKind::Skip,
        FlowKind::Terminate,
        FlowKind::Resume,
        FlowKind::Fail,
        FlowKind::Retry,
        FlowKind::Repair,
        FlowKind::Ask,
        FlowKind::Allow,
        FlowKind::SetEnv,
        FlowKind::SelectModel,
    ];

    /// The snake_case name used in diagnostics, records and the native output protocol.
    pub const fn as_str(self) -> &'static str {
        match self {
            FlowKind::Continue => "continue",
            FlowKind::SetEnv => "set_env",
            FlowKind::PatchRequest => "patch_request",
            FlowKind::RewriteArgs => "rewrite_args",
            FlowKind::RewriteResult => "rewrite_result",
            FlowKind::RewritePrompt => "rewrite_prompt",
            FlowKind::InjectContext => "inject_context",
            FlowKind::Skip => "skip",
            FlowKind::Terminate => "terminate",
            FlowKind::Resume => "resume",
            FlowKind::Fail => "fail",
            FlowKind::Retry => "retry",
            FlowKind::Repair => "repair",
            FlowKind::Ask => "ask",
            FlowKind::Allow => "allow",
            FlowKind::SelectModel => "select_model",
        }
    }

    /// Whether a flow of this kind changes what the next hook of the event
    /// sees: a rewrite of the arguments, the result or the prompt, or a
    /// model choice (the hooks after it are judged on, and see, the new
    /// value). The
    /// other flows fold in declared order without feeding the hooks after
    /// them (a `patch_request` merges into the request the agent sends, not
    /// into the one the next hook sees), so hooks answering only with them
    /// can run concurrently and fold to the same result: what the
    /// `parallel` hook key relies on.
    pub const fn chains(self) -> bool {
        matches!(
            self,
            FlowKind::RewriteArgs
                | FlowKind::RewriteResult
                | FlowKind::RewritePrompt
                | FlowKind::SelectModel
        )
    }

    /// Whether a background hook (`async: true`) may answer with a flow of
    /// this kind: `continue`, or `inject_context`, which is delivered with a
    /// later event of the run ([`Capabilities::background`]). Any other
    /// answer is a decision the agent did not wait for: refused at run
    /// time as an `invalid_output` failure.
    pub const fn background(self) -> bool {
        matches!(self, FlowKind::Continue | FlowKind::InjectContext)
    }

    /// Whether an event of phase `phase` can honour a flow of this kind
    /// ([`Capabilities::flows`]; the table is in the
    /// [`capability`](crate::capability) module's documentation).
    ///
    /// `continue` and `terminate` are honoured everywhere (terminating on
    /// `run_end` / `run_error` ends nothing more, but is recorded).
    pub const fn honoured_on(self, phase: Phase) -> bool {
        phase.capabilities().flows.contains(self)
    }

    /// The native output protocol's field (or `decision`) that asks for this
    /// flow: `decision: block` for [`FlowKind::Skip`], `rewrite_args`,
    /// `context_items`, `patch`, ... (see `schema/output.schema.json`).
    pub const fn native_output(self) -> &'static str {
        match self {
            FlowKind::Continue => "decision: continue",
            FlowKind::Terminate => "decision: terminate",
            FlowKind::Skip => "decision: block",
            FlowKind::Resume => "decision: resume",
            FlowKind::Fail => "decision: fail",
            FlowKind::Retry => "decision: retry",
            FlowKind::Repair => "decision: repair",
            FlowKind::Ask => "decision: ask",
            FlowKind::Allow => "decision: allow",
            FlowKind::RewriteArgs => "rewrite_args",
            FlowKind::RewriteResult => "rewrite_result",
            FlowKind::RewritePrompt => "rewrite_prompt",
            FlowKind::PatchRequest => "patch",
            FlowKind::InjectContext => "context_items",
            FlowKind::SetEnv => "env",
            FlowKind::SelectModel => "model",
        }
    }
}

impl std::fmt::Display for FlowKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the pointers of a hook's `when` predicates address on a phase's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SubjectKind {
    /// Nothing: no pointer resolves (`run_start`).
    Nothing,
    /// A text (prompt, delta, reasoning, assistant text, raw arguments,
    /// output, error): only the empty pointer `""` resolves, to the text.
    Text,
    /// The tool call's arguments (JSON).
    Args,
    /// The tool's result (JSON).
    Result,
    /// The completion request (provider JSON form).
    Request,
    /// The model's response (JSON).
    Response,
    /// The calls of a tool batch: a JSON array of `{tool_name, tool_input,
    /// tool_use_id, tool_response}`.
    Batch,
    /// A model selection: a JSON object `{from, to, source}` (the model in
    /// use, the one the agent switches to, and why), plus what else the
    /// agent reports about it.
    Selection,
}

impl SubjectKind {
    /// The subject's name in messages and in a predicate's `subject` key
    /// (`args`, `result`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            SubjectKind::Nothing => "nothing",
            SubjectKind::Text => "text",
            SubjectKind::Args => "args",
            SubjectKind::Result => "result",
            SubjectKind::Request => "request",
            SubjectKind::Response => "response",
            SubjectKind::Batch => "batch",
            SubjectKind::Selection => "selection",
        }
    }
}

/// A set of [`ActionKind`]s (a bitset, usable in `const` context).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ActionSet(u16);

impl ActionSet {
    /// The set of `actions`.
    pub const fn of(actions: &[ActionKind]) -> ActionSet {
        let mut bits = 0u16;
        let mut i = 0;
        while i < actions.len() {
            bits |= 1 << actions[i] as u16;
            i += 1;
        }
        ActionSet(bits)
    }

    /// Whether `action` is in the set.
    pub const fn contains(self, action: ActionKind) -> bool {
        self.0 & (1 << action as u16) != 0
    }

    /// The actions in the set, in [`ActionKind::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = ActionKind> {
        ActionKind::ALL
            .into_iter()
            .filter(move |a| self.contains(*a))
    }
}

/// A set of [`FlowKind`]s (a bitset, usable in `const` context).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlowSet(u16);

impl FlowSet {
    /// The set of `flows`.
    pub const fn of(flows: &[FlowKind]) -> FlowSet {
        let mut bits = 0u16;
        let mut i = 0;
        while i < flows.len() {
            bits |= 1 << flows[i] as u16;
            i += 1;
        }
        FlowSet(bits)
    }

    /// Whether `flow` is in the set.
    pub const fn contains(self, flow: FlowKind) -> bool {
        self.0 & (1 << flow as u16) != 0
    }

    /// The flows in the set, in [`FlowKind::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = FlowKind> {
        FlowKind::ALL.into_iter().filter(move |f| self.contains(*f))
    }
}

/// What one phase allows: one row of [`CAPABILITIES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Capabilities {
    /// The phase this row describes.
    pub phase: Phase,
    /// The actions a hook of this phase may have.
    pub actions: ActionSet,
    /// The flows an event of this phase honours; a hook asking for another
    /// one makes the runtime fail closed.
    pub flows: FlowSet,
    /// Whether an event concerns one tool call: `include_tools` and
    /// `exclude_tools` apply.
    pub tool: bool,
    /// Whether the phase comes after something happened (the payload's
    /// target has run).
    pub after: bool,
    /// Whether hooks can change what happens next (they then run one after
    /// another; hooks of an observe-only phase may run concurrently).
    pub mutating: bool,
    /// The failure policy a hook gets when neither it nor `defaults` names one.
    pub default_failure_policy: FailurePolicy,
    /// Whether failure policy `block` (skip the tool call, keep the current
    /// model) is allowed.
    pub block_policy: bool,
    /// What `when` pointers address.
    pub subject: SubjectKind,
    /// Whether `when` may test the tool's `outcome`.
    pub outcome: bool,
    /// Whether a hook of this phase may run in the background
    /// (`async: true`): everywhere but where the run ends with the event
    /// (`run_end`, `run_error`), since the run's background hooks are
    /// cancelled there and no later event could receive their context.
    /// What a background hook returns is delivered with a later event of
    /// the same run whose phase honours `inject_context`.
    pub background: bool,
}

impl Capabilities {
    /// Whether a hook of this phase may name `policy` as its failure policy.
    pub const fn allows_failure_policy(&self, policy: FailurePolicy) -> bool {
        !matches!(policy, FailurePolicy::Block) || self.block_policy
    }

    /// What `when` can address on this phase's events: the default
    /// subject first, then, where the event carries them beside it, the
    /// tool call's arguments (`subject: args` on `after_tool`).
    pub fn subjects(&self) -> impl Iterator<Item = SubjectKind> {
        let args = self.tool && self.subject != SubjectKind::Args;
        std::iter::once(self.subject).chain(args.then_some(SubjectKind::Args))
    }

    /// The native output protocol's fields (and decisions) that apply on
    /// this phase, e.g. `decision: block`, `rewrite_args` on `before_tool`.
    pub fn native_outputs(&self) -> impl Iterator<Item = &'static str> {
        self.flows.iter().map(FlowKind::native_output)
    }
}

use ActionKind as A;
use FlowKind as F;

/// What every phase allows (`run`, `http`, `policy`, `terminate`) or honours (`continue`, `terminate`).
const EVERYWHERE_ACTIONS: [ActionKind; 4] = [A::Run, A::Http, A::Policy, A::Terminate];

/// A row of an observe-only phase whose `when` pointers address `subject`;
/// the rows below change what differs.
const fn observe(phase: Phase, subject: SubjectKind) -> Capabilities {
    Capabilities {
        phase,
        actions: ActionSet::of(&EVERYWHERE_ACTIONS),
        flows: FlowSet::of(&[F::Continue, F::Terminate]),
        tool: false,
        after: false,
        mutating: false,
        default_failure_policy: FailurePolicy::Warn,
        block_policy: false,
        subject,
        outcome: false,
        background: true,
    }
}

/// A row of an after-phase: hooks may `inject` context.
const fn after(phase: Phase, subject: SubjectKind) -> Capabilities {
    Capabilities {
        actions: ActionSet::of(&[A::Run, A::Http, A::Policy, A::Inject, A::Terminate]),
        flows: FlowSet::of(&[F::Continue, F::InjectContext, F::Terminate]),
        after: true,
        ..observe(phase, subject)
    }
}

/// `row` whose hooks may also `inject` context (before anything happened:
/// context for the first prompt, or beside the tool result).
const fn with_context(row: Capabilities) -> Capabilities {
    Capabilities {
        actions: ActionSet::of(&[A::Run, A::Http, A::Policy, A::Inject, A::Terminate]),
        flows: FlowSet::of(&[F::Continue, F::InjectContext, F::Terminate]),
        ..row
    }
}

/// A row of a phase that gates one tool call before it runs: tool filters
/// apply, hooks run one after another and fail closed (`block`) by default.
const fn gate(phase: Phase) -> Capabilities {
    Capabilities {
        tool: true,
        mutating: true,
        default_failure_policy: FailurePolicy::Block,
        block_policy: true,
        ..observe(phase, SubjectKind::Args)
    }
}

/// A row of a phase where an agent is about to stop: a hook may `resume` it.
const fn resumable(phase: Phase) -> Capabilities {
    Capabilities {
        flows: FlowSet::of(&[F::Continue, F::Terminate, F::Resume]),
        mutating: true,
        ..observe(phase, SubjectKind::Text)
    }
}

/// What each phase allows, indexed by phase in [`Phase::ALL`] order (see
/// [`Phase::capabilities`]).
pub const CAPABILITIES: [Capabilities; 24] = [
    Capabilities {
        flows: FlowSet::of(&[F::Continue, F::InjectContext, F::Terminate, F::SetEnv]),
        ..with_context(observe(Phase::RunStart, SubjectKind::Nothing))
    },
    Capabilities {
        flows: FlowSet::of(&[F::Continue, F::RewritePrompt, F::Skip, F::Terminate]),
        mutating: true,
        ..observe(Phase::UserPrompt, SubjectKind::Text)
    },
    Capabilities {
        actions: ActionSet::of(&[A::Run, A::Http, A::Policy, A::Patch, A::Terminate]),
        flows: FlowSet::of(&[F::Continue, F::PatchRequest, F::Terminate]),
        mutating: true,
        ..observe(Phase::BeforeCompletion, SubjectKind::Request)
    },
    // A gate on the model, not on a tool call: fail closed (a failing hook
    // keeps the current model, as a timed-out `PreModelSwitch` hook does).
    Capabilities {
        actions: ActionSet::of(&[
            A::Run,
            A::Http,
            A::Policy,
            A::Block,
            A::Terminate,
            A::SelectModel,
        ]),
        flows: FlowSet::of(&[F::Continue, F::Skip, F::Terminate, F::SelectModel]),
        mutating: true,
        default_failure_policy: FailurePolicy::Block,
        block_policy: true,
        ..observe(Phase::BeforeModelSelect, SubjectKind::Selection)
    },
    after(Phase::AfterModelSelect, SubjectKind::Selection),
    after(Phase::AfterCompletion, SubjectKind::Response),
    observe(Phase::TextDelta, SubjectKind::Text),
    observe(Phase::ToolCallDelta, SubjectKind::Text),
    observe(Phase::StreamFinish, SubjectKind::Response),
    after(Phase::AfterReasoning, SubjectKind::Text),
    after(Phase::AfterAssistant, SubjectKind::Text),
    Capabilities {
        actions: ActionSet::of(&[
            A::Run,
            A::Http,
            A::Policy,
            A::Block,
            A::Rewrite,
            A::Inject,
            A::Terminate,
            A::Ask,
        ]),
        flows: FlowSet::of(&[
            F::Continue,
            F::RewriteArgs,
            F::InjectContext,
            F::Skip,
            F::Terminate,
            F::Ask,
        ]),
        ..gate(Phase::BeforeTool)
    },
    Capabilities {
        actions: ActionSet::of(&[
            A::Run,
            A::Http,
            A::Policy,
            A::Block,
            A::Rewrite,
            A::Terminate,
            A::Ask,
            A::Allow,
        ]),
        flows: FlowSet::of(&[
            F::Continue,
            F::RewriteArgs,
            F::Skip,
            F::Terminate,
            F::Ask,
            F::Allow,
        ]),
        ..gate(Phase::PermissionRequest)
    },
    Capabilities {
        actions: ActionSet::of(&[
            A::Run,
            A::Http,
            A::Policy,
            A::Rewrite,
            A::Inject,
            A::Terminate,
        ]),
        flows: FlowSet::of(&[
            F::Continue,
            F::RewriteResult,
            F::InjectContext,
            F::Terminate,
        ]),
        tool: true,
        mutating: true,
        outcome: true,
        ..after(Phase::AfterTool, SubjectKind::Result)
    },
    after(Phase::AfterToolBatch, SubjectKind::Batch),
    Capabilities {
        flows: FlowSet::of(&[
            F::Continue,
            F::Terminate,
            F::Fail,
            F::Retry,
            F::Repair,
            F::Skip,
        ]),
        mutating: true,
        ..observe(Phase::InvalidToolCall, SubjectKind::Text)
    },
    resumable(Phase::Stop),
    observe(Phase::Notification, SubjectKind::Text),
    with_context(observe(Phase::SubagentStart, SubjectKind::Text)),
    resumable(Phase::SubagentStop),
    Capabilities {
        flows: FlowSet::of(&[F::Continue, F::Skip, F::Terminate]),
        mutating: true,
        ..observe(Phase::BeforeCompaction, SubjectKind::Text)
    },
    observe(Phase::AfterCompaction, SubjectKind::Text),
    ends_run(Phase::RunEnd),
    ends_run(Phase::RunError),
];

/// A row of a phase whose event ends the run: observe-only, and no
/// background hooks (they are cancelled there).
const fn ends_run(phase: Phase) -> Capabilities {
    Capabilities {
        background: false,
        ..observe(phase, SubjectKind::Text)
    }
}

impl Phase {
    /// What this phase allows: its row of [`CAPABILITIES`].
    pub const fn capabilities(self) -> &'static Capabilities {
        &CAPABILITIES[self as usize]
    }
}

/// The phases on which `f` holds, in [`Phase::ALL`] order.
#[doc(hidden)]
pub fn phases_where(f: impl Fn(&Capabilities) -> bool) -> Vec<Phase> {
    Phase::ALL
        .into_iter()
        .filter(|p| f(p.capabilities()))
        .collect()
}

/// The phases on which `f` holds in words, for messages: "`before_tool`",
/// "tool phases (`before_tool`, `after_tool`)", "after-phases (...)".
#[doc(hidden)]
pub fn describe_phases(f: impl Fn(&Capabilities) -> bool) -> String {
    let phases = phases_where(&f);
    let list = phases
        .iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if phases.len() == 1 {
        list
    } else if phases == phases_where(|c| c.tool) {
        format!("tool phases ({list})")
    } else if phases == phases_where(|c| c.after) {
        format!("after-phases ({list})")
    } else {
        list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_indexed_by_phase() {
        for (i, phase) in Phase::ALL.into_iter().enumerate() {
            assert_eq!(CAPABILITIES[i].phase, phase);
            assert_eq!(phase.capabilities().phase, phase);
        }
    }

    #[test]
    fn every_phase_allows_run_and_terminate_and_honours_continue_and_terminate() {
        for caps in &CAPABILITIES {
            for a in EVERYWHERE_ACTIONS {
                assert!(caps.actions.contains(a), "{}: {a:?}", caps.phase);
            }
            assert!(caps.flows.contains(F::Continue) && caps.flows.contains(F::Terminate));
            assert!(caps.allows_failure_policy(FailurePolicy::Warn));
        }
    }

    #[test]
    fn each_action_and_its_flow_go_together() {
        // An action's effect must be a flow the phase honours.
        for caps in &CAPABILITIES {
            let f = |k| caps.flows.contains(k);
            // `block` skips a tool call, or keeps the current model.
            assert_eq!(
                caps.actions.contains(A::Block),
                f(F::Skip) && (caps.tool || caps.subject == SubjectKind::Selection)
            );
            assert_eq!(caps.actions.contains(A::SelectModel), f(F::SelectModel));
            assert_eq!(caps.actions.contains(A::Patch), f(F::PatchRequest));
            assert_eq!(caps.actions.contains(A::Inject), f(F::InjectContext));
            assert_eq!(caps.actions.contains(A::Ask), f(F::Ask));
            assert_eq!(caps.actions.contains(A::Allow), f(F::Allow));
            assert_eq!(
                caps.actions.contains(A::Rewrite),
                f(F::RewriteArgs) || f(F::RewriteResult)
            );
            assert_eq!(
                caps.tool,
                matches!(caps.subject, SubjectKind::Args | SubjectKind::Result)
            );
            assert_eq!(caps.outcome, caps.tool && caps.after);
            assert_eq!(
                caps.block_policy,
                caps.default_failure_policy == FailurePolicy::Block
            );
        }
    }

    #[test]
    fn phase_sets_are_described_in_words() {
        assert_eq!(
            describe_phases(|c| c.block_policy),
            "`before_model_select`, `before_tool`, `permission_request`"
        );
        assert_eq!(
            describe_phases(|c| c.tool),
            "tool phases (`before_tool`, `permission_request`, `after_tool`)"
        );
        assert_eq!(
            describe_phases(|c| c.after),
            "after-phases (`after_model_select`, `after_completion`, `after_reasoning`, `after_assistant`, `after_tool`, `after_tool_batch`)"
        );
    }

    #[test]
    fn set_iteration_keeps_declaration_order() {
        let names: Vec<_> = Phase::BeforeTool.capabilities().native_outputs().collect();
        assert_eq!(
            names,
            [
                "decision: continue",
                "rewrite_args",
                "context_items",
                "decision: block",
                "decision: terminate",
                "decision: ask"
            ]
        );
        let actions: Vec<_> = Phase::AfterTool.capabilities().actions.iter().collect();
        assert_eq!(
            actions,
            [
                A::Run,
                A::Http,
                A::Policy,
                A::Rewrite,
                A::Inject,
                A::Terminate
            ]
        );
    }
}
