//! Hook ids are unique across the configs pushed into one `HookStack`:
//! `HookStack::try_push` refuses a second config (loaded at run time or
//! compiled by `hooks!`) that defines an id already in the stack. A
//! `hooks!(stack = ...)` type compiles a stack file's configs and runs
//! them by layer.

use std::sync::Arc;

use agent_hooks::{HookStack, Table};
use hooks_runtime::{Dispatcher, DuplicateHookId, TableRef};

agent_hooks::hooks!(name = TeamHooks, "configs/stack/team.yaml");
agent_hooks::hooks!(name = Layered, stack = "configs/layers/stack.yaml");

fn loaded(file: &str) -> Dispatcher {
    let path = format!("{}/tests/configs/stack/{file}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).expect("the stack fixture is readable");
    let table = Table::load_str(&source, file).expect("the stack fixture is valid");
    Dispatcher::new(TableRef::Shared(Arc::new(table)))
}

#[test]
fn a_loaded_table_sharing_an_id_with_a_compiled_one_is_refused() {
    let mut stack = HookStack::new();
    stack
        .try_push("team", TeamHooks::new())
        .expect("the first config is pushed");
    let err = stack
        .try_push("project", loaded("project.yaml"))
        .map(|_| ())
        .expect_err("`guard` is defined twice");
    assert_eq!(err.id, "guard");
    assert_eq!(err.first, "tests/configs/stack/team.yaml");
    assert_eq!(err.second, "project.yaml");
    assert_eq!(
        err.to_string(),
        "hook id `guard` is defined in both `tests/configs/stack/team.yaml` and `project.yaml`, pushed into one stack"
    );
    // Nothing was pushed.
    assert_eq!(stack.len(), 1);
}

#[test]
fn two_loaded_tables_and_a_nested_stack_are_checked_too() {
    let stack = HookStack::new()
        .try_with("a", loaded("team.yaml"))
        .expect("the first config is pushed");
    let err: DuplicateHookId = stack
        .clone()
        .try_with("b", loaded("project.yaml"))
        .map(|_| ())
        .expect_err("`guard` is defined twice");
    assert_eq!(
        (err.first.as_str(), err.second.as_str()),
        ("team.yaml", "project.yaml")
    );
    let nested = HookStack::new().with("p", loaded("project.yaml"));
    assert!(stack.clone().try_with("nested", nested).is_err());
}

#[test]
fn configs_with_their_own_ids_stack() {
    let stack = HookStack::new()
        .try_with("team", TeamHooks::new())
        .and_then(|s| s.try_with("project", loaded("project-ok.yaml")))
        .expect("no id is shared");
    assert_eq!(stack.len(), 2);
}

/// The stack file lists the managed config first; the stack runs it last,
/// and its block replaces the project's (docs/fleet.md, *Layers*).
#[test]
fn a_hooks_stack_runs_its_configs_by_layer() {
    use agent_hooks::{Flow, HookContext, StepEvent};
    let sources: Vec<&str> = Layered::tables().iter().map(|t| t.source()).collect();
    assert_eq!(sources.len(), 2);
    assert!(sources[0].ends_with("managed.yaml"), "{sources:?}");
    let hooks = Layered::new();
    let ids: Vec<&str> = hooks.stack().ids().map(|id| id.as_str()).collect();
    assert!(
        ids[0].ends_with("project.yaml") && ids[1].ends_with("managed.yaml"),
        "{ids:?}"
    );
    let args = serde_json::json!({"command": "git push --force origin main"});
    let mut stack = HookStack::new();
    stack.push("layered", hooks);
    let outcome = block_on(stack.fold(
        &HookContext::new("t"),
        StepEvent::BeforeTool {
            tool_name: "bash",
            call_id: "c1",
            args: &args,
        },
    ));
    match outcome.decision {
        Some(Flow::Skip { reason }) => assert!(reason.contains("(managed)"), "{reason}"),
        other => panic!("expected the managed block, got {other:?}"),
    }
}

/// Runs an in-process fold on a current-thread runtime.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
        .block_on(future)
}
