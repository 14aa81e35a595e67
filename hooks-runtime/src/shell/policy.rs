//! Failure policies and audit mode.
//!
//! A failure policy applies to *failures* only (the named
//! [`FailureKind`](crate::FailureKind)s); an explicit decision of a hook is
//! always honoured. `mode: audit` turns any outcome, decision or failure,
//! into `Continue` after recording what would have happened.

use hooks_plan::{FailurePolicy, Mode, Phase};

use crate::{Flow, FlowKind};

/// What a failure amounts to under a policy.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PolicyOutcome {
    /// The flow the failure becomes.
    pub flow: Flow,
    /// A visible diagnostic (`warn`, and the fail-closed fallbacks); `None`
    /// for `ignore`.
    pub diagnostic: Option<String>,
}

/// Applies `policy` to a failure of hook `hook_id` on `phase`, described by
/// `failure` (already redacted: it may reach the model as a skip reason).
///
/// - `ignore` → `Continue`, no diagnostic (the record still says it failed);
/// - `warn` → `Continue` plus a diagnostic;
/// - `block` → `Skip` on phases that honour it (`before_tool`, `user_prompt`);
///   on other phases the config check forbids `block`, and should one get
///   through, it fails closed as `Terminate` with a diagnostic;
/// - `fail` → `Terminate`.
pub(crate) fn apply_failure_policy(
    policy: FailurePolicy,
    phase: Phase,
    hook_id: &str,
    failure: &str,
) -> PolicyOutcome {
    match policy {
        FailurePolicy::Ignore => PolicyOutcome {
            flow: Flow::Continue,
            diagnostic: None,
        },
        FailurePolicy::Warn => PolicyOutcome {
            flow: Flow::Continue,
            diagnostic: Some(format!(
                "hook `{hook_id}` failed on `{phase}` ({failure}); continuing (failure_policy `warn`)"
            )),
        },
        FailurePolicy::Block if FlowKind::Skip.honoured_on(phase) => PolicyOutcome {
            flow: Flow::skip(format!(
                "blocked because hook `{hook_id}` failed ({failure}) and its failure_policy is `block`"
            )),
            diagnostic: Some(format!(
                "hook `{hook_id}` failed on `{phase}` ({failure}); blocked (failure_policy `block`)"
            )),
        },
        FailurePolicy::Block | FailurePolicy::Fail => {
            let reason = format!(
                "hook `{hook_id}` failed on `{phase}` ({failure}) and its failure_policy is `{}`",
                policy.as_str()
            );
            PolicyOutcome {
                flow: Flow::terminate(reason.clone()),
                diagnostic: Some(format!("{reason}; the run is terminated")),
            }
        }
    }
}

/// Applies `mode` to the flow a hook's result amounted to: `enforce` keeps
/// it; `audit` returns `Continue` and the would-be flow (for the record).
pub(crate) fn apply_mode(mode: Mode, flow: Flow) -> (Flow, Option<Flow>) {
    match mode {
        Mode::Enforce => (flow, None),
        Mode::Audit => (Flow::Continue, Some(flow)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_map_failures() {
        let o = apply_failure_policy(FailurePolicy::Ignore, Phase::BeforeTool, "g", "timed_out");
        assert_eq!(o.flow, Flow::Continue);
        assert!(o.diagnostic.is_none());
        let o = apply_failure_policy(FailurePolicy::Warn, Phase::AfterTool, "g", "timed_out");
        assert_eq!(o.flow, Flow::Continue);
        assert!(o.diagnostic.unwrap().contains("`warn`"));
        let o = apply_failure_policy(FailurePolicy::Block, Phase::BeforeTool, "g", "spawn_failed");
        assert_eq!(o.flow.kind(), FlowKind::Skip);
        let o = apply_failure_policy(FailurePolicy::Block, Phase::AfterTool, "g", "x");
        assert_eq!(o.flow.kind(), FlowKind::Terminate);
        let o = apply_failure_policy(FailurePolicy::Fail, Phase::RunStart, "g", "x");
        assert_eq!(o.flow.kind(), FlowKind::Terminate);
    }

    #[test]
    fn audit_continues_and_keeps_the_would_be_flow() {
        let (flow, would) = apply_mode(Mode::Audit, Flow::skip("no"));
        assert_eq!(flow, Flow::Continue);
        assert_eq!(would, Some(Flow::skip("no")));
        assert_eq!(apply_mode(Mode::Enforce, Flow::Fail), (Flow::Fail, None));
    }
}
