//! Model selection (`before_model_select`): hooks choose the model in
//! declared order, each seeing the choice of the hooks before it as the
//! selection's `to`; a block (keep the current model) wins over any
//! choice; declarative rules, a request patch's `model`, native output
//! and Claude Code's PreModelSwitch answers all reach the same decision.

#[path = "common/hooks.rs"]
mod hooks;
#[path = "common/stack.rs"]
mod stack;

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use hooks::{Fixture, sh};
use hooks_runtime::{
    Change, Dispatcher, Flow, FlowKind, FnHook, HookContext, HookStack, ModelDecision, StepEvent,
    Table, TableRef, model_selection,
};
use hooks_schema::{Phase, Protocol};
use serde_json::Value;
use stack::prov;

/// A stack whose hooks answer `flows` in order, recording the `to` each
/// one saw.
fn answering(flows: &[Flow], seen: &Arc<Mutex<Vec<String>>>) -> HookStack {
    let mut stack = HookStack::new();
    for (i, flow) in flows.iter().enumerate() {
        let (flow, seen) = (flow.clone(), Arc::clone(seen));
        stack = stack.with(
            format!("h{i}"),
            FnHook::new(move |_, event: StepEvent<'_>| {
                let to = event.selected_model().unwrap_or_default().to_owned();
                seen.lock().expect("lock").push(to);
                flow.clone()
            }),
        );
    }
    stack
}

fn opus() -> Value {
    model_selection(Some("claude-haiku-4-5"), "claude-opus-4-1", "user")
}

#[tokio::test]
async fn choices_fold_in_declared_order_and_each_hook_sees_the_one_before() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let flows = [
        Flow::SelectModel("claude-sonnet-4-5".into()),
        Flow::Continue,
        Flow::SelectModel("claude-haiku-4-5".into()),
    ];
    let selection = opus();
    let decided = answering(&flows, &seen)
        .before_model_select(&HookContext::new("run"), &selection)
        .await;
    assert_eq!(
        decided.decision,
        ModelDecision::Select {
            model: Cow::Owned("claude-haiku-4-5".into())
        }
    );
    assert_eq!(
        *seen.lock().expect("lock"),
        ["claude-opus-4-1", "claude-sonnet-4-5", "claude-sonnet-4-5"]
    );
    assert_eq!(
        decided.provenance.to_vec(),
        [
            prov("h0", Change::Rewrote(FlowKind::SelectModel)),
            prov("h2", Change::Rewrote(FlowKind::SelectModel)),
        ]
    );
    // No hook chose: the requested model, borrowed.
    let decided = answering(&[Flow::Continue], &seen)
        .before_model_select(&HookContext::new("run"), &selection)
        .await;
    assert_eq!(
        decided.decision,
        ModelDecision::Select {
            model: Cow::Borrowed("claude-opus-4-1")
        }
    );
}

#[tokio::test]
async fn a_block_wins_over_any_choice_in_either_order() {
    let selection = opus();
    let block = Flow::skip("stay on haiku");
    let pick = Flow::SelectModel("claude-sonnet-4-5".into());
    for flows in [[pick.clone(), block.clone()], [block.clone(), pick.clone()]] {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let decided = answering(&flows, &seen)
            .before_model_select(&HookContext::new("run"), &selection)
            .await;
        assert_eq!(
            decided.decision,
            ModelDecision::Block {
                reason: "stay on haiku".into()
            },
            "{flows:?}"
        );
        let consulted = seen.lock().expect("lock").len();
        let blocked_first = flows[0].kind() == FlowKind::Skip;
        assert_eq!(consulted, if blocked_first { 1 } else { 2 }, "{flows:?}");
    }
}

/// The config language: `select_model`, `block` with a `when` on the
/// selection's `to`, and `patch: {model}` on `before_completion`.
#[tokio::test]
async fn declarative_rules_choose_and_gate_the_model() {
    let yaml = r#"
version: 1
hooks:
  - id: cheaper
    phase: before_model_select
    when: { pointer: /to, matches: "opus" }
    select_model: { model: claude-sonnet-4-5 }
  - id: never-sonnet-from-user
    phase: before_model_select
    when:
      all:
        - { pointer: /to, equals: claude-sonnet-4-5 }
        - { pointer: /source, equals: sdk }
    block: { reason: "no sonnet over the SDK" }
  - id: route
    phase: before_completion
    patch: { model: claude-haiku-4-5 }
"#;
    let table = Table::load_str(yaml, "t.yaml").expect("loads");
    let stack = HookStack::new().with("t.yaml", Dispatcher::new(TableRef::Shared(Arc::new(table))));
    let ctx = HookContext::new("run");
    let user = opus();
    let decided = stack.before_model_select(&ctx, &user).await;
    assert_eq!(decided.decision.label(), "select");
    assert!(
        matches!(&decided.decision, ModelDecision::Select { model } if model == "claude-sonnet-4-5")
    );
    let sdk = model_selection(None, "claude-opus-4-1", "sdk");
    let decided = stack.before_model_select(&ctx, &sdk).await;
    assert_eq!(
        decided.decision,
        ModelDecision::Block {
            reason: "no sonnet over the SDK".into()
        }
    );
    let mut request = serde_json::json!({"model": "claude-opus-4-1", "messages": []});
    let decided = stack.before_completion(&ctx, &request.clone()).await;
    let hooks_runtime::CompletionDecision::Send { patch } = decided.decision else {
        panic!("{:?}", decided.decision)
    };
    assert!(patch.apply_model(&mut request));
    assert_eq!(request["model"], "claude-haiku-4-5");
}

/// A shell hook chooses with the native output's `model`; a Claude Code
/// PreModelSwitch script denies with `permissionDecision` or exit 2, and
/// its `ask` is refused (nobody approves model switches).
#[tokio::test]
async fn shell_hooks_choose_and_deny_in_both_protocols() {
    let fx = Fixture::new();
    let ctx = HookContext::new("sess-1");
    let selection = opus();
    let event = StepEvent::BeforeModelSelect {
        selection: &selection,
    };
    let native = sh(
        "pick",
        Phase::BeforeModelSelect,
        r#"printf '{"model":"claude-sonnet-4-5"}'"#,
    );
    let inv = fx.hook(native).invoke(&ctx, event).await;
    assert_eq!(inv.flow, Flow::SelectModel("claude-sonnet-4-5".into()));

    let claude = |id: &str, command: &str| {
        let mut spec = sh(id, Phase::BeforeModelSelect, command);
        spec.protocol = Protocol::Claude;
        spec
    };
    // The script reads Claude Code's PreModelSwitch input.
    let deny = claude(
        "deny",
        r#"input=$(cat); case "$input" in *'"hook_event_name":"PreModelSwitch"'*'"to_model":"claude-opus-4-1"'*) printf '{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"deny","permissionDecisionReason":"opus costs too much"}}';; esac"#,
    );
    let inv = fx.hook(deny).invoke(&ctx, event).await;
    assert_eq!(inv.flow, Flow::skip("opus costs too much"));
    let exit2 = claude("exit2", "echo 'no switching now' >&2; exit 2");
    let inv = fx.hook(exit2).invoke(&ctx, event).await;
    assert_eq!(inv.flow, Flow::skip("no switching now"));
    let ask = claude(
        "ask",
        r#"printf '{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"ask"}}'"#,
    );
    let inv = fx.hook(ask).invoke(&ctx, event).await;
    assert_eq!(inv.flow.kind(), FlowKind::Skip, "{:?}", inv.flow);
}
