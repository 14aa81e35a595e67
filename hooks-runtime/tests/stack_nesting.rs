//! What `HookStack` does with flows an event cannot honour (the stack fails
//! closed, naming the flow and the event) and with stacks inside stacks:
//! pushed (flattened), behind an opaque hook (one net flow) or forwarding
//! `fold_into` (folded into the outer stack's fold).

#[path = "common/stack.rs"]
mod stack;

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use hooks_runtime::{
    AfterToolDecision, AgentHook, Change, ContextItem, Diagnostic, Flow, FlowKind, FnHook, Fold,
    FoldStep, HookContext, HookFuture, HookId, HookStack, StepEvent, ToolDecision, ToolOutcome,
};
use hooks_schema::Phase;
use serde_json::json;
use stack::{Forwarding, Opaque, args_tagged, call, poll_ready, prov, result_tagged};

/// Sample events, one per phase.
fn with_events(f: &mut dyn FnMut(StepEvent<'_>)) {
    let value = json!({"trail": []});
    let outcome = ToolOutcome::Success;
    for phase in Phase::ALL {
        let event = match phase {
            Phase::RunStart => StepEvent::RUN_START,
            Phase::UserPrompt => StepEvent::UserPrompt { prompt: "p" },
            Phase::BeforeCompletion => StepEvent::BeforeCompletion { request: &value },
            Phase::BeforeModelSelect => StepEvent::BeforeModelSelect { selection: &value },
            Phase::AfterModelSelect => StepEvent::AfterModelSelect { selection: &value },
            Phase::AfterCompletion => StepEvent::AfterCompletion { response: &value },
            Phase::TextDelta => StepEvent::TextDelta { delta: "d" },
            Phase::ToolCallDelta => StepEvent::ToolCallDelta {
                tool_name: "bash",
                call_id: "c",
                delta: "{",
            },
            Phase::StreamFinish => StepEvent::StreamFinish { response: &value },
            Phase::AfterReasoning => StepEvent::AfterReasoning { reasoning: "r" },
            Phase::AfterAssistant => StepEvent::AfterAssistant { text: "t" },
            Phase::BeforeTool => StepEvent::BeforeTool {
                tool_name: "bash",
                call_id: "c",
                args: &value,
            },
            Phase::PermissionRequest => StepEvent::PermissionRequest {
                tool_name: "bash",
                call_id: "c",
                args: &value,
                suggestions: &value,
            },
            Phase::AfterToolBatch => StepEvent::AfterToolBatch { calls: &value },
            Phase::Notification => StepEvent::Notification {
                notification_type: "idle_prompt",
                title: "",
                message: "m",
            },
            Phase::SubagentStart => StepEvent::SubagentStart {
                agent_id: "a",
                agent_type: "Explore",
            },
            Phase::SubagentStop => StepEvent::SubagentStop {
                agent_id: "a",
                agent_type: "Explore",
                loop_count: 0,
                text: "t",
                agent_transcript_path: "",
                background_tasks: &serde_json::Value::Null,
                session_crons: &serde_json::Value::Null,
            },
            Phase::BeforeCompaction => StepEvent::BeforeCompaction {
                trigger: "auto",
                instructions: "",
            },
            Phase::AfterCompaction => StepEvent::AfterCompaction {
                trigger: "auto",
                summary: "s",
            },
            Phase::AfterTool => StepEvent::AfterTool {
                tool_name: "bash",
                call_id: "c",
                args: &value,
                original_args: &value,
                result: &value,
                outcome: &outcome,
                duration_ms: None,
            },
            Phase::InvalidToolCall => StepEvent::InvalidToolCall {
                tool_name: "bsh",
                call_id: "c",
                raw_args: "{",
                error: "e",
            },
            Phase::Stop => StepEvent::Stop {
                loop_count: 0,
                text: "t",
                background_tasks: &serde_json::Value::Null,
                session_crons: &serde_json::Value::Null,
            },
            Phase::RunEnd => StepEvent::RunEnd {
                output: "o",
                reason: "other",
            },
            Phase::RunError => StepEvent::RunError { error: "e" },
        };
        assert_eq!(event.kind(), phase);
        f(event);
    }
}

fn sample_flow(kind: FlowKind) -> Flow {
    match kind {
        FlowKind::Continue => Flow::Continue,
        FlowKind::PatchRequest => Flow::PatchRequest(hooks_runtime::RequestPatch {
            max_tokens: Some(1),
            ..Default::default()
        }),
        FlowKind::RewriteArgs => Flow::RewriteArgs(json!({"x": 1})),
        FlowKind::RewriteResult => Flow::RewriteResult(json!("r")),
        FlowKind::RewritePrompt => Flow::RewritePrompt("p2".into()),
        FlowKind::InjectContext => Flow::inject("c"),
        FlowKind::Skip => Flow::skip("s"),
        FlowKind::Terminate => Flow::terminate("t"),
        FlowKind::Resume => Flow::resume("r"),
        FlowKind::Fail => Flow::Fail,
        FlowKind::Retry => Flow::Retry {
            feedback: "f".into(),
        },
        FlowKind::Repair => Flow::Repair {
            tool_name: "bash".into(),
            args: None,
        },
        FlowKind::Ask => Flow::ask("a"),
        FlowKind::Allow => Flow::Allow,
        FlowKind::SetEnv => Flow::SetEnv([("A".to_owned(), "1".to_owned())].into()),
        FlowKind::SelectModel => Flow::SelectModel("m".into()),
    }
}

#[test]
fn every_flow_an_event_cannot_honour_fails_closed_naming_flow_and_event() {
    let mut checked = 0;
    with_events(&mut |event| {
        let phase = event.kind();
        for kind in FlowKind::ALL {
            let flow = sample_flow(kind);
            let late = Arc::new(Mutex::new(0));
            let late2 = Arc::clone(&late);
            let stack = HookStack::new()
                .with("culprit", FnHook::new(move |_, _| flow.clone()))
                .with(
                    "late",
                    FnHook::new(move |_, _| {
                        *late2.lock().expect("lock") += 1;
                        Flow::Continue
                    }),
                );
            let outcome = poll_ready(stack.fold(&HookContext::new("r"), event));
            if kind.honoured_on(phase) {
                assert!(
                    outcome.diagnostics.is_empty(),
                    "{kind} on {phase}: {:?}",
                    outcome.diagnostics
                );
                continue;
            }
            checked += 1;
            assert_eq!(
                *late.lock().expect("lock"),
                0,
                "{kind} on {phase} stops the stack"
            );
            let diagnostic = Diagnostic::Unhonoured {
                hook: HookId::from("culprit"),
                flow: kind,
                phase,
            };
            assert_eq!(outcome.diagnostics, std::slice::from_ref(&diagnostic));
            assert!(diagnostic.fails_closed());
            let reason = outcome.terminate_reason().expect("terminates");
            assert!(
                reason.contains(&format!("flow `{kind}`"))
                    && reason.contains(&format!("`{phase}` cannot honour")),
                "{reason}"
            );
            assert!(outcome.patch.is_empty() && outcome.context.is_empty());
        }
    });
    // Every phase x every kind, minus the honoured pairs.
    let honoured = Phase::ALL
        .into_iter()
        .flat_map(|p| FlowKind::ALL.into_iter().filter(move |k| k.honoured_on(p)))
        .count();
    assert_eq!(checked, Phase::COUNT * FlowKind::ALL.len() - honoured);
}

#[tokio::test]
async fn pushing_a_stack_flattens_it_under_its_hooks_ids() {
    let inner = HookStack::new()
        .with("x", FnHook::new(|_, _| Flow::Continue))
        .with("y", FnHook::new(|_, _| Flow::inject("from y")));
    let mut outer = HookStack::new();
    outer
        .push("first", FnHook::new(|_, _| Flow::inject("from first")))
        .push("ignored-group-id", inner.clone())
        .push_shared("shared-group", Arc::new(inner.clone()))
        .push("boxed-group", Box::new(inner));
    let ids: Vec<_> = outer.ids().map(HookId::to_string).collect();
    assert_eq!(ids, ["first", "x", "y", "x", "y", "x", "y"]);
    let ctx = HookContext::new("run");
    let decided = outer
        .observe(&ctx, StepEvent::AfterAssistant { text: "t" })
        .await;
    assert_eq!(decided.context.len(), 4);
    assert_eq!(decided.provenance[1].hook, "y");
}

#[tokio::test]
async fn a_stack_used_as_a_plain_hook_answers_with_its_net_flow() {
    let inner = HookStack::new()
        .with("one", FnHook::new(|_, e| args_tagged(e, "one")))
        .with("two", FnHook::new(|_, e| args_tagged(e, "two")));
    let outer = HookStack::new()
        .with("zero", FnHook::new(|_, e| args_tagged(e, "zero")))
        .with("group", Opaque(inner));
    assert_eq!(outer.len(), 2);
    let args = json!({"trail": []});
    let ctx = HookContext::new("run");
    let decided = outer.before_tool(&ctx, call(&args)).await;
    assert_eq!(
        decided.decision,
        ToolDecision::Run {
            args: Cow::Owned(json!({"trail": ["zero", "one", "two"]}))
        }
    );
    assert_eq!(
        decided.provenance.as_slice(),
        [
            prov("zero", Change::Rewrote(FlowKind::RewriteArgs)),
            prov("group", Change::Rewrote(FlowKind::RewriteArgs)),
        ],
        "provenance names the opaque group"
    );
}

#[tokio::test]
async fn observe_fails_closed_on_decisions_it_cannot_carry() {
    let ctx = HookContext::new("run");
    let args = json!({});
    let before_tool = StepEvent::BeforeTool {
        tool_name: "bash",
        call_id: "c",
        args: &args,
    };
    let stack = HookStack::new().with("rewriter", FnHook::new(|_, _| Flow::RewriteArgs(json!(1))));
    let decided = stack.observe(&ctx, before_tool).await;
    let reason = decided.decision.terminate.expect("fails closed");
    assert_eq!(
        reason,
        "flow `rewrite_args` on `before_tool` cannot be applied through `observe`; the run is \
         terminated (fail closed); use the event's own method"
    );
    let skipper = HookStack::new().with("skipper", FnHook::new(|_, _| Flow::skip("no")));
    let decided = skipper.observe(&ctx, before_tool).await;
    assert!(
        decided
            .decision
            .terminate
            .expect("fails closed")
            .contains("flow `skip`")
    );
}

#[tokio::test]
async fn a_forwarded_stack_keeps_what_one_flow_cannot_say() {
    let inner = HookStack::new()
        .with(
            "redact",
            FnHook::new(|_, event| result_tagged(event, "redacted")),
        )
        .with("note", FnHook::new(|_, _| Flow::inject("note")));
    let outer = HookStack::new().with("group", Forwarding(inner)).with(
        "after",
        FnHook::new(|_, event| result_tagged(event, "after")),
    );
    let args = json!({});
    let result = json!({"trail": []});
    let ctx = HookContext::new("run");
    let decided = outer
        .after_tool(&ctx, call(&args), &args, &result, &ToolOutcome::Success)
        .await;
    assert_eq!(
        decided.decision,
        AfterToolDecision {
            result: Cow::Owned(json!({"trail": ["redacted", "after"]})),
            terminate: None,
        },
        "the next hook sees the inner rewrite"
    );
    assert_eq!(
        decided.context.as_slice(),
        [ContextItem::user("note")],
        "rewrite and context both kept"
    );
    assert_eq!(
        decided.provenance.as_slice(),
        [
            prov("redact", Change::Rewrote(FlowKind::RewriteResult)),
            prov("note", Change::InjectedContext { items: 1 }),
            prov("after", Change::Rewrote(FlowKind::RewriteResult)),
        ],
        "provenance names the inner hooks"
    );

    let inner = HookStack::new()
        .with("one", FnHook::new(|_, e| args_tagged(e, "one")))
        .with("gate", FnHook::new(|_, _| Flow::skip("no")));
    let outer = HookStack::new().with("group", Forwarding(inner));
    let args = json!({"trail": []});
    let decided = outer.before_tool(&ctx, call(&args)).await;
    assert_eq!(
        decided.decision,
        ToolDecision::Skip {
            reason: "no".into(),
            args: Cow::Owned(json!({"trail": ["one"]}))
        },
        "the rewrite made before the inner skip is kept"
    );
}

/// Applies a fixed flow to the caller's fold under its own id, as a
/// dispatch table applies its rules' flows.
struct Applies(HookId, Flow);

impl AgentHook for Applies {
    fn on_event<'a>(&'a self, _: &'a HookContext, _: StepEvent<'a>) -> HookFuture<'a> {
        HookFuture::cont()
    }

    fn fold_into<'a>(&'a self, _: &'a HookContext, fold: &'a mut Fold<'_>) -> FoldStep<'a> {
        FoldStep::ready(fold.apply(&self.0, self.1.clone()))
    }
}

#[tokio::test]
async fn a_flow_applied_through_fold_into_that_the_event_cannot_honour_fails_closed() {
    let ctx = HookContext::new("run");
    let args = json!({});
    // A rewritten result offered on before_tool.
    let stack = HookStack::new().with(
        "table",
        Applies(HookId::from("rule"), Flow::RewriteResult(json!("r"))),
    );
    let decided = stack.before_tool(&ctx, call(&args)).await;
    let diagnostic = Diagnostic::Unhonoured {
        hook: HookId::from("rule"),
        flow: FlowKind::RewriteResult,
        phase: Phase::BeforeTool,
    };
    assert_eq!(decided.diagnostics, std::slice::from_ref(&diagnostic));
    assert_eq!(
        decided.decision,
        ToolDecision::Terminate {
            reason: diagnostic.to_string().into()
        }
    );
    // A flow the event honours is applied as is, under the rule's id.
    let stack = HookStack::new().with(
        "table",
        Applies(
            HookId::from("rule"),
            Flow::RewriteArgs(json!({"rewritten": true})),
        ),
    );
    let decided = stack.before_tool(&ctx, call(&args)).await;
    assert_eq!(
        decided.decision,
        ToolDecision::Run {
            args: Cow::Owned(json!({"rewritten": true}))
        }
    );
    assert_eq!(decided.provenance[0].hook, "rule");
}
