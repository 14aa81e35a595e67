//! The name of each typed decision, as `test`, `replay` and policy tests
//! print and compare it: one table, read by every command.

use hooks_runtime::{
    CompactionDecision, CompletionDecision, InvalidCallDecision, ModelDecision, PermissionDecision,
    PromptDecision, StopDecision, ToolDecision,
};

use super::Decision;

/// Every name [`Decision::verdict`] gives, for a file that names one
/// (policy tests check theirs against it).
pub const DECISION_NAMES: &[&str] = &[
    "run",
    "skip",
    "ask",
    "allow",
    "deny",
    "submit",
    "drop",
    "stop",
    "resume",
    "capped",
    "select",
    "block",
    "fail",
    "retry",
    "repair",
    "compact",
    "terminate",
    "continue",
];

impl Decision<'_> {
    /// The decision's name and its reason (or feedback, repaired tool,
    /// chosen model), if it has one: `run`, `skip`, `ask`, `terminate`
    /// (before_tool); `allow`, `deny`, `ask` (permission_request);
    /// `submit`, `drop` (user_prompt); `stop`, `resume`, `capped` (stop,
    /// subagent_stop); `select`, `block` (before_model_select); `fail`,
    /// `retry`, `repair`, `skip` (invalid_tool_call); `compact`, `skip`
    /// (before_compaction); `continue` elsewhere, and `terminate` wherever
    /// the run ends.
    pub fn verdict(&self) -> (&'static str, Option<&str>) {
        match self {
            Decision::Prompt(PromptDecision::Send { .. }) => ("submit", None),
            Decision::Prompt(PromptDecision::Skip { reason }) => ("drop", Some(reason)),
            Decision::Completion(CompletionDecision::Send { .. }) => ("continue", None),
            Decision::Tool(ToolDecision::Run { .. }) => ("run", None),
            Decision::Tool(ToolDecision::Skip { reason, .. }) => ("skip", Some(reason)),
            Decision::Tool(ToolDecision::Ask { reason, .. }) => ("ask", Some(reason)),
            Decision::Permission(PermissionDecision::Allow { .. }) => ("allow", None),
            Decision::Permission(PermissionDecision::Deny { reason }) => ("deny", Some(reason)),
            Decision::Permission(PermissionDecision::Ask { reason, .. }) => {
                ("ask", reason.as_deref())
            }
            Decision::AfterTool(decision) => match &decision.terminate {
                Some(reason) => ("terminate", Some(reason)),
                None => ("continue", None),
            },
            Decision::InvalidCall(InvalidCallDecision::Fail) => ("fail", None),
            Decision::InvalidCall(InvalidCallDecision::Retry { feedback }) => {
                ("retry", Some(feedback))
            }
            Decision::InvalidCall(InvalidCallDecision::Repair { tool_name, .. }) => {
                ("repair", Some(tool_name))
            }
            Decision::InvalidCall(InvalidCallDecision::Skip { reason }) => ("skip", Some(reason)),
            Decision::Stop(StopDecision::Stop) => ("stop", None),
            Decision::Stop(StopDecision::Resume { reason }) => ("resume", Some(reason)),
            Decision::Stop(StopDecision::Capped { reason, .. }) => ("capped", Some(reason)),
            Decision::Stop(StopDecision::Terminate { reason }) => ("terminate", Some(reason)),
            Decision::Compaction(CompactionDecision::Compact) => ("compact", None),
            Decision::Compaction(CompactionDecision::Skip { reason }) => ("skip", Some(reason)),
            Decision::Model(ModelDecision::Select { model }) => ("select", Some(model)),
            Decision::Model(ModelDecision::Block { reason }) => ("block", Some(reason)),
            Decision::Observed(decision) => match &decision.terminate {
                Some(reason) => ("terminate", Some(reason)),
                None => ("continue", None),
            },
            Decision::Prompt(PromptDecision::Terminate { reason })
            | Decision::Completion(CompletionDecision::Terminate { reason })
            | Decision::Tool(ToolDecision::Terminate { reason })
            | Decision::Permission(PermissionDecision::Terminate { reason })
            | Decision::InvalidCall(InvalidCallDecision::Terminate { reason })
            | Decision::Compaction(CompactionDecision::Terminate { reason })
            | Decision::Model(ModelDecision::Terminate { reason }) => ("terminate", Some(reason)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use hooks_runtime::{Observed, ToolDecision};

    use super::{DECISION_NAMES, Decision};

    /// The names in [`DECISION_NAMES`] are the ones `verdict` gives (a
    /// sample of every shape: a name added to one and not the other fails).
    #[test]
    fn the_names_list_holds_the_verdicts() {
        let args = serde_json::json!({});
        let decisions = [
            Decision::Tool(ToolDecision::Run {
                args: Cow::Borrowed(&args),
            }),
            Decision::Observed(Observed::default()),
        ];
        for decision in &decisions {
            assert!(DECISION_NAMES.contains(&decision.verdict().0));
        }
        let unique: std::collections::BTreeSet<_> = DECISION_NAMES.iter().collect();
        assert_eq!(unique.len(), DECISION_NAMES.len());
    }
}
