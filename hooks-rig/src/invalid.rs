//! `on_invalid_tool_call`: a call rig could not dispatch, folded as our
//! `invalid_tool_call` (the crate docs' mapping).

use hooks_runtime::AgentHook as _;
use hooks_runtime::{InvalidCallDecision, StepEventKind as Phase};
use rig_agent::agent as rig;

use crate::RigHooks;
use crate::convert;
use crate::state::RunState;

impl RigHooks {
    /// What rig does with `event`: our hooks' decision, or `None` (rig's
    /// own policy) when none decided.
    pub(crate) async fn invalid_tool_call(
        &self,
        ctx: &rig::HookContext,
        event: &rig::InvalidToolCallContext,
    ) -> Option<rig::InvalidToolCallAction> {
        if !self.stack.observes(Phase::InvalidToolCall) {
            return None;
        }
        let run = RunState::of(ctx);
        let turn = run.turn(ctx);
        let call_id = event
            .tool_call_id
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        let raw = event.args.as_deref().unwrap_or_default();
        let error = convert::invalid_reason(&event.reason);
        let decided = self
            .stack
            .invalid_tool_call(&turn, &event.tool_name, &call_id, raw, &error)
            .await;
        run.push_context(&decided.context);
        let action = match &decided.decision {
            // Every hook continued: rig's own policy decides.
            InvalidCallDecision::Fail if decided.provenance.is_empty() => None,
            InvalidCallDecision::Fail => Some(rig::InvalidToolCallAction::Fail),
            InvalidCallDecision::Retry { feedback } => Some(rig::InvalidToolCallAction::Retry {
                feedback: feedback.to_string(),
            }),
            InvalidCallDecision::Repair {
                tool_name,
                args: None,
            } => Some(rig::InvalidToolCallAction::Repair {
                tool_name: tool_name.to_string(),
            }),
            // rig 0.44 repairs only a tool's name (and retries need a budget
            // the agent may not have): the call is skipped, its result
            // naming the corrected call for the model to make.
            InvalidCallDecision::Repair {
                tool_name,
                args: Some(args),
            } => Some(rig::InvalidToolCallAction::Skip {
                reason: format!(
                    "not run: call the tool `{tool_name}` with these arguments instead: {args}"
                ),
            }),
            InvalidCallDecision::Skip { reason } => Some(rig::InvalidToolCallAction::Skip {
                reason: reason.to_string(),
            }),
            InvalidCallDecision::Terminate { reason } => Some(rig::InvalidToolCallAction::Stop {
                reason: reason.to_string(),
            }),
        };
        let label = action
            .as_ref()
            .map_or_else(|| String::from("none"), |a| format!("{a:?}"));
        self.report(
            Phase::InvalidToolCall,
            Some(&event.tool_name),
            &label,
            &decided,
        );
        action
    }
}
