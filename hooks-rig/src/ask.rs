//! A `before_tool` hook's `ask`: `permission_request` hooks, then the
//! agent's approver.

use hooks_runtime::{PermissionDecision, StepEventKind as Phase, ToolCall};
use serde_json::Value;

use crate::RigHooks;
use crate::dispatch::Answer;
use crate::state::RunState;

impl RigHooks {
    /// A `before_tool` hook asked: `permission_request` hooks answer first,
    /// then the approver (none: denied). Returns the rewritten arguments to
    /// run with, or the answer that keeps the tool from running.
    #[allow(
        clippy::too_many_arguments,
        reason = "one call site, all borrowed parts of one event"
    )]
    pub(crate) async fn ask(
        &self,
        run: &RunState,
        turn: &hooks_runtime::HookContext,
        name: &str,
        call_id: &str,
        original: &Value,
        asked: Value,
        reason: &str,
    ) -> (Result<Option<Value>, Answer>, String) {
        let call = ToolCall {
            tool_name: name,
            call_id,
            args: &asked,
        };
        let mut decided = self
            .stack
            .permission_request(turn, call, &Value::Null)
            .await;
        run.push_context(&decided.context);
        if let PermissionDecision::Ask { reason: None, args } = decided.decision {
            // No permission hook decided: the approver sees the asking hook's reason.
            decided.decision = PermissionDecision::Ask {
                reason: Some(hooks_runtime::Text::from(reason.to_owned())),
                args,
            };
        }
        let approver = self.approver.as_deref();
        let decided = decided.resolve(turn, call, approver).await;
        let result = match &decided.decision {
            PermissionDecision::Allow { args } => {
                let args = args.clone().into_owned();
                let label = format!("ask → allow, proceed with {args}");
                (Ok((&args != original).then_some(args)), label)
            }
            PermissionDecision::Deny { reason }
            | PermissionDecision::Ask {
                reason: Some(reason),
                ..
            } => (
                Err(Answer::Skip(reason.to_string())),
                format!("ask → deny: {reason}"),
            ),
            PermissionDecision::Ask { reason: None, .. } => (
                Err(Answer::Skip(reason.to_owned())),
                format!("ask → deny: {reason}"),
            ),
            PermissionDecision::Terminate { reason } => (
                Err(Answer::Cancel(reason.to_string())),
                format!("ask → stop: {reason}"),
            ),
        };
        self.report(Phase::PermissionRequest, Some(name), &result.1, &decided);
        result
    }
}
