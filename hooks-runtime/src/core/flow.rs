//! `Flow`: what one hook asks for after seeing an event; how a
//! [`HookStack`](crate::HookStack) folds the flows of several hooks is in the
//! crate docs and docs/config.md's *How several hooks combine*.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::patch::RequestPatch;

/// What one hook asks the agent to do after an event.
///
/// Which flows an event can honour, and how a [`HookStack`](crate::HookStack)
/// folds several hooks' flows, is listed on [`FlowKind::honoured_on`] and
/// [`HookStack`](crate::HookStack). A flow an event cannot honour is never
/// silently dropped: the stack fails closed (terminates the run with a
/// diagnostic naming the flow and the event).
///
/// Serialized with serde's default (external) tagging, snake_case:
/// `"continue"`, `{"skip": {"reason": "..."}}`, `{"rewrite_args": {...}}`.
///
/// # Allocation
///
/// Texts are [`Text`] (`Cow<'static, str>`) and context lists are
/// [`ContextList`]s (up to 2 items inline), so a flow built from `'static`
/// data (the reasons and context of a table compiled by `hooks!`) owns no
/// heap memory; a flow built at run time (a shell hook's output, `format!`)
/// owns its strings as before. Rewrites ([`Flow::RewriteArgs`],
/// [`Flow::RewriteResult`]) always own the new JSON value.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flow {
    /// No decision: let the agent proceed (and the next hook see the event).
    #[default]
    Continue,
    /// `before_completion`: patch the completion request (merged field by
    /// field with the other hooks' patches).
    PatchRequest(RequestPatch),
    /// `before_tool`: replace the tool's arguments; later hooks see the new value.
    RewriteArgs(Value),
    /// `after_tool`: replace the model-visible result; later hooks see the new value.
    RewriteResult(Value),
    /// `user_prompt`: replace the prompt; later hooks see the new text.
    RewritePrompt(Text),
    /// After-phases: add `user`-role context items for the model's next turn.
    InjectContext(ContextList),
    /// `before_tool`: do not run the tool; `user_prompt`: drop the prompt;
    /// `invalid_tool_call`: treat the call as skipped; `before_compaction`:
    /// do not compact; `before_model_select`: do not switch (keep the
    /// current model). The reason is what the model (or user) sees.
    Skip {
        /// Shown to the model in place of the tool's result.
        reason: Text,
    },
    /// End the run (honoured on every event).
    Terminate {
        /// Why, for the run's error and the records.
        reason: Text,
    },
    /// `stop`: keep working instead of stopping.
    Resume {
        /// Shown to the model as the reason to continue.
        reason: Text,
    },
    /// `invalid_tool_call`: fail the call (also what `Continue` means there).
    Fail,
    /// `invalid_tool_call`: ask the model to try again.
    Retry {
        /// Shown to the model.
        feedback: Text,
    },
    /// `invalid_tool_call`: run the call as a call of `tool_name`, with
    /// `args` in place of the model's arguments when given (serialized
    /// `{"repair": {"tool_name": "read_file", "args": {...}}}`, `args`
    /// omitted when `None`).
    Repair {
        /// The tool to run instead.
        tool_name: Text,
        /// The corrected arguments (a JSON object); `None` keeps the
        /// model's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        args: Option<Value>,
    },
    /// `before_tool`, `permission_request`: have the agent's approver
    /// decide on the call (a person, an approval service). Does not stop
    /// the fold: a later hook's `Skip` (deny) wins over it, and it wins
    /// over `Allow`.
    Ask {
        /// What the approver is shown.
        reason: Text,
    },
    /// `permission_request`: grant the permission without asking. Does not
    /// stop the fold: a later hook's `Ask` or `Skip` wins over it.
    Allow,
    /// `run_start`: environment variables (name to value) for the run's
    /// later tool calls, as Claude Code's `CLAUDE_ENV_FILE` sets them.
    /// Merged in declared order (a later hook's value of a name wins);
    /// the agent gets them in [`Decided::env`](crate::Decided::env).
    SetEnv(EnvVars),
    /// `before_model_select`: switch to this model instead (the name the
    /// agent knows it by); later hooks see it as the selection's `to`. A
    /// later hook's `Skip` (keep the current model) wins over it.
    SelectModel(Text),
}

/// Environment variables a hook sets: name to value, sorted by name.
pub type EnvVars = std::collections::BTreeMap<String, String>;

impl Flow {
    /// The flow's kind (its variant, without data).
    pub const fn kind(&self) -> FlowKind {
        match self {
            Flow::Continue => FlowKind::Continue,
            Flow::PatchRequest(_) => FlowKind::PatchRequest,
            Flow::RewriteArgs(_) => FlowKind::RewriteArgs,
            Flow::RewriteResult(_) => FlowKind::RewriteResult,
            Flow::RewritePrompt(_) => FlowKind::RewritePrompt,
            Flow::InjectContext(_) => FlowKind::InjectContext,
            Flow::Skip { .. } => FlowKind::Skip,
            Flow::Terminate { .. } => FlowKind::Terminate,
            Flow::Resume { .. } => FlowKind::Resume,
            Flow::Fail => FlowKind::Fail,
            Flow::Retry { .. } => FlowKind::Retry,
            Flow::Repair { .. } => FlowKind::Repair,
            Flow::Ask { .. } => FlowKind::Ask,
            Flow::Allow => FlowKind::Allow,
            Flow::SetEnv(_) => FlowKind::SetEnv,
            Flow::SelectModel(_) => FlowKind::SelectModel,
        }
    }

    /// Whether this is [`Flow::Continue`].
    pub const fn is_continue(&self) -> bool {
        matches!(self, Flow::Continue)
    }

    /// Whether this flow stops the fold where it is applied (docs/config.md,
    /// *How several hooks combine*): `Skip`, `Terminate`, `Resume`, `Fail`,
    /// `Retry` and `Repair`; the others let later hooks run.
    pub const fn stops(&self) -> bool {
        match self {
            Flow::Skip { .. }
            | Flow::Terminate { .. }
            | Flow::Resume { .. }
            | Flow::Fail
            | Flow::Retry { .. }
            | Flow::Repair { .. } => true,
            Flow::Continue
            | Flow::PatchRequest(_)
            | Flow::RewriteArgs(_)
            | Flow::RewriteResult(_)
            | Flow::RewritePrompt(_)
            | Flow::InjectContext(_)
            | Flow::Ask { .. }
            | Flow::Allow
            | Flow::SetEnv(_)
            | Flow::SelectModel(_) => false,
        }
    }

    /// Shorthand for [`Flow::Skip`].
    pub fn skip(reason: impl Into<Text>) -> Self {
        Flow::Skip {
            reason: reason.into(),
        }
    }

    /// Shorthand for [`Flow::Terminate`].
    pub fn terminate(reason: impl Into<Text>) -> Self {
        Flow::Terminate {
            reason: reason.into(),
        }
    }

    /// Shorthand for [`Flow::Resume`].
    pub fn resume(reason: impl Into<Text>) -> Self {
        Flow::Resume {
            reason: reason.into(),
        }
    }

    /// Shorthand for [`Flow::Ask`].
    pub fn ask(reason: impl Into<Text>) -> Self {
        Flow::Ask {
            reason: reason.into(),
        }
    }

    /// Shorthand for [`Flow::InjectContext`] with one `user` item.
    pub fn inject(content: impl Into<Text>) -> Self {
        Flow::InjectContext(smallvec::smallvec![ContextItem::user(content)])
    }
}

pub use hooks_plan::{ContextItem, Role, Text};

/// Context items in order: up to 2 inline (collecting items borrowed from
/// a static table costs no allocation), spilling to the heap beyond.
/// Dereferences to `[ContextItem]`; a `Vec<ContextItem>` converts with
/// `.into()`.
pub type ContextList = smallvec::SmallVec<[ContextItem; 2]>;

/// The variant of a [`Flow`], without its data; named in diagnostics.
///
/// Defined in `hooks-schema` beside the per-phase capability table, so that
/// which flows a phase honours ([`FlowKind::honoured_on`]) is stated once,
/// for the config checker and the runtime alike.
pub use hooks_plan::FlowKind;

#[cfg(test)]
mod tests {
    use super::*;
    use hooks_plan::Phase;

    #[test]
    fn context_items_accept_only_the_user_role() {
        let item: ContextItem =
            serde_json::from_str(r#"{"role":"user","content":"hi"}"#).expect("user item");
        assert_eq!(item, ContextItem::user("hi"));
        let err = serde_json::from_str::<ContextItem>(r#"{"role":"system","content":"x"}"#)
            .expect_err("system role rejected");
        assert!(
            err.to_string().contains("unknown variant `system`"),
            "{err}"
        );
    }

    #[test]
    fn flow_kinds_round_trip_their_names() {
        for kind in FlowKind::ALL {
            let json = serde_json::to_string(&kind).expect("serialize");
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
        }
        assert_eq!(Flow::skip("no").kind(), FlowKind::Skip);
        assert_eq!(Flow::default(), Flow::Continue);
    }

    #[test]
    fn continue_and_terminate_are_honoured_everywhere_and_nothing_else_is() {
        for phase in Phase::ALL {
            assert!(FlowKind::Continue.honoured_on(phase));
            assert!(FlowKind::Terminate.honoured_on(phase));
        }
        for phase in [
            Phase::Notification,
            Phase::AfterCompaction,
            Phase::TextDelta,
            Phase::RunEnd,
            Phase::RunError,
        ] {
            let honoured: Vec<_> = FlowKind::ALL
                .into_iter()
                .filter(|k| k.honoured_on(phase))
                .collect();
            assert_eq!(
                honoured,
                [FlowKind::Continue, FlowKind::Terminate],
                "{phase}"
            );
        }
        assert!(FlowKind::InjectContext.honoured_on(Phase::AfterTool));
        assert!(FlowKind::InjectContext.honoured_on(Phase::BeforeTool));
        assert!(!FlowKind::InjectContext.honoured_on(Phase::PermissionRequest));
        assert!(FlowKind::Ask.honoured_on(Phase::BeforeTool));
        assert!(!FlowKind::Allow.honoured_on(Phase::BeforeTool));
        assert!(FlowKind::Allow.honoured_on(Phase::PermissionRequest));
        assert!(FlowKind::Skip.honoured_on(Phase::UserPrompt));
        assert!(!FlowKind::Skip.honoured_on(Phase::AfterTool));
    }
}
