//! `run` rules of a `hooks!` table go to the shared shell runtime when one is
//! bound, in declared order with the declarative rules: a shell rule sees
//! the arguments rewritten by the rules before it (here, through its stdin
//! payload), and a declarative decision before it means no process at all.

use std::sync::Arc;

use agent_hooks::runtime::{AgentHook, Executor, Flow, HookContext, ShellRuntime, StepEvent};
use serde_json::json;

agent_hooks::hooks!(
    name = Gate,
    inline = r#"
version: 1
hooks:
  - id: mark
    phase: before_tool
    include_tools: [bash]
    rewrite: [{ op: set, pointer: /checked, value: true }]
  - id: refuse-x
    phase: before_tool
    include_tools: [x]
    block: { reason: "x is refused" }
  - id: gate
    phase: before_tool
    run:
      command: "grep -q '\"checked\":true' && { echo 'checked and denied' >&2; exit 2; }; exit 0"
      timeout: 10s
"#
);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

#[test]
fn a_shell_rule_sees_earlier_rewrites_and_decides() {
    let root = tempfile::tempdir().expect("workspace root");
    let shell = Arc::new(ShellRuntime::new(
        Executor::new(root.path()).expect("executor"),
    ));
    let hooks = Gate::new().with_shell(shell);
    let ctx = HookContext::new("shell");
    let args = json!({"command": "ls"});
    let event = StepEvent::BeforeTool {
        tool_name: "bash",
        call_id: "c",
        args: &args,
    };
    let outcome = runtime().block_on(hooks.dispatcher().fold(&ctx, event));
    assert_eq!(outcome.decision, Some(Flow::skip("checked and denied")));
    assert_eq!(
        outcome.args,
        Some(json!({"command": "ls", "checked": true}))
    );
    let future = hooks.on_event(&ctx, event);
    assert!(!future.is_ready(), "a matching shell rule is awaited");
    assert_eq!(runtime().block_on(future), Flow::skip("checked and denied"));

    // Another tool: no rewrite, so the script exits 0 and the call proceeds.
    let other = StepEvent::BeforeTool {
        tool_name: "ls",
        call_id: "c",
        args: &args,
    };
    assert_eq!(
        runtime().block_on(hooks.on_event(&ctx, other)),
        Flow::Continue
    );
}

#[test]
fn a_declarative_decision_before_a_shell_rule_spawns_nothing() {
    let root = tempfile::tempdir().expect("workspace root");
    let shell = Arc::new(ShellRuntime::new(
        Executor::new(root.path()).expect("executor"),
    ));
    let hooks = Gate::new().with_shell(shell);
    let ctx = HookContext::new("shell");
    let args = json!({});
    let event = StepEvent::BeforeTool {
        tool_name: "x",
        call_id: "c",
        args: &args,
    };
    let future = hooks.on_event(&ctx, event);
    assert!(future.is_ready(), "the block decides before the shell rule");
    assert_eq!(runtime().block_on(future), Flow::skip("x is refused"));
}

#[test]
fn without_a_shell_runtime_a_run_rule_fails_under_its_policy() {
    // `gate` is a before_tool rule: its default failure policy is `block`.
    let args = json!({});
    let event = StepEvent::BeforeTool {
        tool_name: "y",
        call_id: "c",
        args: &args,
    };
    let flow = runtime().block_on(Gate::new().on_event(&HookContext::new("t"), event));
    match flow {
        Flow::Skip { reason } => assert!(reason.contains("no shell runtime"), "{reason}"),
        other => panic!("expected a skip, got {other:?}"),
    }
}
