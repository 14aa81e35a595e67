//! The tool-dispatch hook point: answered without a fold when the hooks
//! allow it, else folded in a boxed future.

use std::borrow::Cow;

use hooks_runtime::AgentHook as _;
use hooks_runtime::{StepEventKind as Phase, ToolCall, ToolDecision};
use rig_agent::agent as rig;
use rig_core::effect::EffectKind;
use rig_core::message::CallId;
use serde_json::Value;

use crate::state::RunState;
use crate::{RigHooks, args_json};

/// What `on_dispatch` answers, before it becomes rig's (400-byte) action
/// in [`Answer::into_action`], where the future returns: built in place
/// there, rig's action is not copied on its way out (perf: two 400-byte
/// copies were half of a quick dispatch).
pub(crate) enum Answer {
    Proceed,
    Skip(String),
    Cancel(String),
    /// A patch, built by the folded path: a rig constructor called where
    /// the future returns would write the action aside and copy it, for
    /// every answer (one allocation per rewritten call instead).
    Patch(Box<rig::DispatchAction>),
}

impl Answer {
    #[inline]
    fn into_action(self) -> rig::DispatchAction {
        match self {
            Answer::Proceed => rig::DispatchAction::proceed(),
            Answer::Skip(reason) => rig::DispatchAction::skip(reason),
            // A denial whose report cancels the run.
            Answer::Cancel(reason) => rig::DispatchAction::stop(reason),
            Answer::Patch(action) => *action,
        }
    }
}

/// What `on_dispatch` answers without a fold, or what the fold starts
/// from: the arguments as the hooks see them, and whether they read them.
enum Now {
    Answer(Answer),
    Fold { parsed: Value, reads: bool },
}

impl RigHooks {
    /// rig's `on_dispatch`: answers without a fold when the hooks allow it
    /// ([`HookStack::before_tool_now`](hooks_runtime::HookStack::before_tool_now);
    /// no `on_applied` callback); otherwise folds in a boxed future (the
    /// fold's future is large: moving it would cost the quick answers).
    pub(crate) async fn dispatch(
        &self,
        ctx: &rig::HookContext,
        event: rig::DispatchEvent<'_>,
    ) -> rig::DispatchAction {
        let answer = match self.dispatch_now(ctx, &event) {
            Now::Answer(answer) => answer,
            Now::Fold { parsed, reads } => {
                Box::pin(self.dispatch_folded(ctx, event, (parsed, reads))).await
            }
        };
        answer.into_action()
    }

    /// `on_dispatch` when it needs no fold ([`HookStack::before_tool_now`]).
    fn dispatch_now(&self, ctx: &rig::HookContext, event: &rig::DispatchEvent<'_>) -> Now {
        let EffectKind::ToolCall { name, args } = event.kind else {
            return Now::Answer(Answer::Proceed);
        };
        // Hooks that read no arguments see `null` (and rewrite nothing).
        let reads = self.stack.reads_payload(Phase::BeforeTool);
        let parsed = reads.then(|| args_json(args));
        // Whether a hook observes the call is asked only when the quick
        // answer is not known (with none, the stack answers `Continue`).
        let fold = |parsed: Option<Value>| {
            if self.stack.observes(Phase::BeforeTool) {
                let parsed = parsed.unwrap_or(Value::Null);
                Now::Fold { parsed, reads }
            } else {
                Now::Answer(Answer::Proceed)
            }
        };
        if self.applied.is_some() {
            return fold(parsed);
        }
        let call_id = event.call_id.map_or(Cow::Borrowed(""), CallId::wire);
        let call = ToolCall {
            tool_name: name,
            call_id: &call_id,
            args: parsed.as_ref().unwrap_or(&Value::Null),
        };
        // Decided without a fold: no run state, no report to show.
        let answer = match self.stack.before_tool_now(call) {
            Some(
                decision @ ToolDecision::Run {
                    args: Cow::Borrowed(_),
                },
            ) => {
                // It owns nothing: no call to its drop glue.
                std::mem::forget(decision);
                return Now::Answer(Answer::Proceed);
            }
            Some(ToolDecision::Skip { reason, .. }) => Answer::Skip(reason.into()),
            Some(ToolDecision::Terminate { reason }) => Answer::Cancel(reason.into()),
            _ => return fold(parsed),
        };
        self.mark_denied(ctx, event);
        Now::Answer(answer)
    }

    /// `on_dispatch` through the fold ([`HookStack::before_tool`]):
    /// `parsed` the call's arguments as the hooks see them, `reads`
    /// whether they read them.
    async fn dispatch_folded(
        &self,
        ctx: &rig::HookContext,
        event: rig::DispatchEvent<'_>,
        (parsed, reads): (Value, bool),
    ) -> Answer {
        let EffectKind::ToolCall { name, args } = event.kind else {
            return Answer::Proceed;
        };
        let call_id = event.call_id.map_or(Cow::Borrowed(""), CallId::wire);
        let call = ToolCall {
            tool_name: name,
            call_id: &call_id,
            args: &parsed,
        };
        let run = RunState::of(ctx);
        let turn = run.turn(ctx);
        let decided = self.stack.before_tool(&turn, call).await;
        run.push_context(&decided.context);
        // The arguments the model sent, when the hooks did not read them.
        let mut sent = None;
        let (final_args, label): (Result<Option<Value>, Answer>, Cow<'_, str>) = match &decided
            .decision
        {
            ToolDecision::Run {
                args: Cow::Borrowed(_),
            } => (Ok(None), Cow::Borrowed("proceed")),
            ToolDecision::Run {
                args: Cow::Owned(rewritten),
            } => (
                Ok(Some(rewritten.clone())),
                Cow::Owned(format!("patch args: {rewritten}")),
            ),
            ToolDecision::Skip { reason, .. } => (
                Err(Answer::Skip(reason.to_string())),
                Cow::Owned(format!("deny: {reason}")),
            ),
            ToolDecision::Terminate { reason } => (
                Err(Answer::Cancel(reason.to_string())),
                Cow::Owned(format!("stop: {reason}")),
            ),
            ToolDecision::Ask {
                reason,
                args: asked,
            } => {
                // `permission_request` hooks and the approver see the
                // call's arguments, read or not by `before_tool`.
                let original = if reads {
                    &parsed
                } else {
                    sent.insert(args_json(args))
                };
                let asked = if reads {
                    asked.clone().into_owned()
                } else {
                    original.clone()
                };
                // Boxed: the ask's fold would sit beside `decided` in
                // this future, which every folded dispatch moves.
                let (result, label) =
                    Box::pin(self.ask(&run, &turn, name, &call_id, original, asked, reason)).await;
                (result, Cow::Owned(label))
            }
        };
        self.report(Phase::BeforeTool, Some(name), &label, &decided);
        drop(decided);
        let original = sent.unwrap_or(parsed);
        match final_args {
            Ok(None) => Answer::Proceed,
            Ok(Some(rewritten)) => {
                if rewritten != original && self.stack.observes(Phase::AfterTool) {
                    run.remember_original(event.id, original);
                }
                Answer::Patch(Box::new(rig::DispatchAction::rewrite_tool_args(
                    event.kind, rewritten,
                )))
            }
            Err(denied) => {
                self.mark_denied(ctx, &event);
                denied
            }
        }
    }

    /// Remembers that the tool dispatch `event` was denied, for
    /// `on_outcome` (no `after_tool` follows a denied call), when the stack
    /// has `after_tool` hooks.
    fn mark_denied(&self, ctx: &rig::HookContext, event: &rig::DispatchEvent<'_>) {
        if self.stack.observes(Phase::AfterTool) {
            RunState::of(ctx).mark_denied(event.id);
        }
    }
}
