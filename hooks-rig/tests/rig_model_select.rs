//! Model selection through a real rig agent with two models on its bus
//! (its own, and one routed as `opus`): `before_model_select` hooks choose
//! or keep the model rig calls (`on_model_select`), a `before_completion`
//! patch's `model` selects too, and `after_model_select` context reaches
//! the request of the switched call. Each test fails without the adapter's
//! model selection.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use hooks_rig::RigHooks;
use hooks_runtime::{Dispatcher, HookStack, Table, TableRef};
use rig_agent::AgentBuilder;
use rig_core::test_utils::{MockCompletionModel, MockTurn};

fn hooks(yaml: &str) -> RigHooks {
    let table = Table::load_str(yaml, "test.yaml").expect("config loads");
    let dispatcher = Dispatcher::new(TableRef::Shared(Arc::new(table)));
    RigHooks::new(HookStack::new().with("test.yaml", dispatcher))
}

/// Runs one prompt on an agent whose own model is `own` and whose bus
/// routes `opus` to `opus`; the run's output or error.
async fn run(
    hooks: RigHooks,
    own: &MockCompletionModel,
    opus: &MockCompletionModel,
) -> Result<String, String> {
    let agent = AgentBuilder::new(own.clone())
        .model_route("opus", opus.clone())
        .add_hook(hooks)
        .build();
    agent
        .prompt("go")
        .await
        .map(|r| r.output())
        .map_err(|e| e.to_string())
}

fn models() -> (MockCompletionModel, MockCompletionModel) {
    (
        MockCompletionModel::from_turns([MockTurn::text("own")]),
        MockCompletionModel::from_turns([MockTurn::text("opus")]),
    )
}

#[tokio::test]
async fn a_select_model_hook_sends_the_call_to_the_chosen_model() {
    let yaml = r#"
version: 1
hooks:
  - id: route
    phase: before_model_select
    select_model: { model: opus }
"#;
    let (own, opus) = models();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let hooks = hooks(yaml).on_applied(move |a| {
        log.lock()
            .unwrap()
            .push(format!("{}: {}", a.phase, a.action));
    });
    assert_eq!(run(hooks, &own, &opus).await.as_deref(), Ok("opus"));
    assert_eq!(opus.requests().len(), 1);
    assert!(
        own.requests().is_empty(),
        "the agent's own model was called"
    );
    assert_eq!(*seen.lock().unwrap(), ["before_model_select: select: opus"]);
}

#[tokio::test]
async fn a_patch_selects_the_model_and_a_block_keeps_the_current_one() {
    let patch = r#"
version: 1
hooks:
  - id: big-model
    phase: before_completion
    patch: { model: opus }
"#;
    let (own, opus) = models();
    assert_eq!(run(hooks(patch), &own, &opus).await.as_deref(), Ok("opus"));
    assert!(own.requests().is_empty());

    // A gate on the selection's `to` blocks the switch the patch asked
    // for: the call stays on the agent's own model.
    let gated = format!(
        "{patch}  - id: no-opus
    phase: before_model_select
    when: {{ pointer: /to, equals: opus }}
    block: {{ reason: \"opus is too expensive\" }}
"
    );
    let (own, opus) = models();
    assert_eq!(run(hooks(&gated), &own, &opus).await.as_deref(), Ok("own"));
    assert!(opus.requests().is_empty(), "the blocked switch happened");
}

#[tokio::test]
async fn after_model_select_context_reaches_the_switched_call() {
    let yaml = r#"
version: 1
hooks:
  - id: route
    phase: before_model_select
    select_model: { model: opus }
  - id: note
    phase: after_model_select
    when: { pointer: /to, equals: opus }
    inject: { content: "SWITCHED TO OPUS" }
"#;
    let (own, opus) = models();
    run(hooks(yaml), &own, &opus).await.unwrap();
    let requests = opus.requests();
    let request = format!(
        "{} {}",
        serde_json::to_string(&requests[0].chat_history).unwrap(),
        serde_json::to_string(&requests[0].documents).unwrap()
    );
    assert!(request.contains("SWITCHED TO OPUS"), "{request}");
}

#[tokio::test]
async fn a_terminating_selection_hook_stops_the_run_before_any_call() {
    let yaml = r#"
version: 1
hooks:
  - id: stop
    phase: before_model_select
    terminate: { reason: "no model today" }
"#;
    let (own, opus) = models();
    let err = run(hooks(yaml), &own, &opus).await.unwrap_err();
    assert!(err.contains("no model today"), "{err}");
    assert!(own.requests().is_empty() && opus.requests().is_empty());
}
