//! `run` rules of a `hooks!` table go to the shared shell runtime when one is
//! bound, in declared order with the declarative rules: a shell rule sees
//! the arguments rewritten by the rules before it (here, through its stdin
//! payload), and a declarative decision before it means no process at all.

use std::sync::Arc;

use agent_hooks::report::Change;
use agent_hooks::shell::{Executor, RecordWriter, SecretSet, ShellRuntime};
use agent_hooks::{AgentHook, Flow, FlowKind, HookContext, StepEvent};
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

    // Where the policy continues (`warn` on an observe-only phase), the
    // missing runtime is still reported, never silent.
    let ctx = HookContext::new("t");
    let event = StepEvent::AfterAssistant { text: "done" };
    let outcome = poll(Observer::new().dispatcher().fold(&ctx, event));
    let unbound: Vec<String> = outcome
        .diagnostics
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(unbound.len(), 2, "{unbound:?}");
    assert!(
        unbound[0].starts_with("`run` rule `waits-for-second` did not run: no shell runtime"),
        "{unbound:?}"
    );
    assert!(unbound[1].contains("`second`"), "{unbound:?}");
    let contents: Vec<&str> = outcome.context.iter().map(|c| &*c.content).collect();
    assert_eq!(contents, ["declarative"]);
}

agent_hooks::hooks!(
    name = Audited,
    inline = r#"
version: 1
hooks:
  - id: would-block
    phase: before_tool
    include_tools: [bash]
    mode: audit
    block: { reason: "audited" }
  - id: would-rewrite
    phase: before_tool
    mode: audit
    rewrite: [{ op: remove, pointer: /x }]
"#
);

#[test]
fn audit_mode_rules_leave_what_they_would_have_done_in_provenance() {
    let args = json!({"x": 1});
    let event = StepEvent::BeforeTool {
        tool_name: "bash",
        call_id: "c",
        args: &args,
    };
    let ctx = HookContext::new("t");
    let outcome = poll(Audited::new().dispatcher().fold(&ctx, event));
    assert!(
        outcome.decision.is_none() && outcome.args.is_none(),
        "{outcome:?}"
    );
    let changes: Vec<(String, Change)> = outcome
        .provenance
        .iter()
        .map(|p| (p.hook.to_string(), p.change.clone()))
        .collect();
    assert_eq!(
        changes,
        [
            ("would-block".to_owned(), Change::Audited(FlowKind::Skip)),
            (
                "would-rewrite".to_owned(),
                Change::Audited(FlowKind::RewriteArgs)
            ),
        ]
    );
    assert_eq!(poll(Audited::new().on_event(&ctx, event)), Flow::Continue);
}

fn poll<F: std::future::Future>(future: F) -> F::Output {
    runtime().block_on(future)
}

agent_hooks::hooks!(
    name = Observer,
    inline = r#"
version: 1
limits:
  max_stop_resumes_per_turn: 1
  max_output_bytes: 2048
  max_context_bytes: 4096
  max_payload_bytes: 2048
  max_concurrent_hooks: 5
  max_concurrent_hooks_per_event: 3
  max_hook_memory_bytes: 268435456
hooks:
  # Declared first, but can only finish after `second` has started: run one
  # after the other, it gives up (exit 1, policy `warn`) and adds nothing.
  - id: waits-for-second
    phase: after_assistant
    run:
      command: >-
        i=0; while [ ! -f second.ready ]; do i=$((i+1)); [ "$i" -gt 100 ] && exit 1; sleep 0.05; done;
        echo '{"context_items":[{"role":"user","content":"first"}]}'
      timeout: 20s
  - id: note
    phase: after_assistant
    inject: { content: "declarative" }
  - id: second
    phase: after_assistant
    run:
      command: >-
        touch second.ready; echo '{"context_items":[{"role":"user","content":"second"}]}'
"#
);

#[test]
fn observe_only_shell_rules_run_concurrently_and_merge_in_declared_order() {
    let root = tempfile::tempdir().expect("workspace root");
    let records_path = root.path().join("records.jsonl");
    let records = RecordWriter::open(&records_path, SecretSet::new()).expect("records");
    let executor = Executor::new(root.path()).expect("executor");
    let shell = Arc::new(Observer::shell_runtime(executor).with_records(records));
    let hooks = Observer::new().with_shell(Arc::clone(&shell));
    let ctx = HookContext::new("observe");
    let event = StepEvent::AfterAssistant { text: "done" };
    let outcome = runtime().block_on(hooks.dispatcher().fold(&ctx, event));
    let contents: Vec<&str> = outcome.context.iter().map(|c| &*c.content).collect();
    assert_eq!(
        contents,
        ["first", "declarative", "second"],
        "{:?}",
        outcome.diagnostics
    );

    // The declarative rule is recorded beside the two shell rules.
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&records_path)
        .expect("records file")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let note: Vec<_> = lines
        .iter()
        .filter(|r| r["hook_id"] == "note" && r["record"] == "hook")
        .collect();
    assert_eq!(note.len(), 1, "{lines:?}");
    // Its injection is recorded as a shell hook's is.
    let injected = lines
        .iter()
        .filter(|r| r["hook_id"] == "note" && r["record"] == "context_injection")
        .count();
    assert_eq!(injected, 1, "{lines:?}");
    assert_eq!(note[0]["status"], "decision");
    assert_eq!(note[0]["decision"], "inject_context");
    assert_eq!(note[0]["elapsed_ms"], 0);
    for id in ["waits-for-second", "second"] {
        assert!(
            lines
                .iter()
                .any(|r| r["hook_id"] == id && r["status"] == "decision"),
            "{id}: {lines:?}"
        );
    }
}

#[test]
fn the_configs_limits_become_the_shell_runtimes() {
    let root = tempfile::tempdir().expect("workspace root");
    let executor = Executor::new(root.path()).expect("executor");
    let limits = *Observer::shell_runtime(executor).limits();
    assert_eq!(limits, Observer::table().hook_limits());
    assert_eq!(limits.payload.stdin_cap, 2048);
    assert_eq!(limits.stdout_cap, 2048);
    assert_eq!(limits.stderr_cap, 2048);
    assert_eq!(limits.max_context_bytes, 4096);
    assert_eq!(limits.max_concurrent_hooks, 5);
    assert_eq!(limits.max_concurrent_hooks_per_event, 3);
    assert_eq!(limits.memory_bytes, Some(256 << 20));
    // The stop cap is the driver's: a stack takes it from the configs in it.
    let stack = agent_hooks::HookStack::new().with("observer", Observer::new());
    assert_eq!(stack.stop_cap(), 1);
    // A config without `limits` gets the config language's defaults.
    let defaults = Gate::table().hook_limits();
    assert_eq!(defaults.stdout_cap, 1 << 20);
    assert_eq!(defaults.max_context_bytes, 64 << 10);
    assert_eq!(defaults.max_concurrent_hooks, 32);
    assert_eq!(defaults.max_concurrent_hooks_per_event, 8);
    assert_eq!(defaults.memory_bytes, None);
    let stack = agent_hooks::HookStack::new().with("gate", Gate::new());
    assert_eq!(stack.stop_cap(), 3);
    assert_eq!(stack.with_stop_cap(7).stop_cap(), 7);
}
