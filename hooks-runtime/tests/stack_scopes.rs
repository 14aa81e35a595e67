//! Scoped and one-shot hooks: a `scope: {subagent: T}` hook matches only
//! between a `subagent_start` of type `T` and its `subagent_stop` (both
//! included), a `scope: {skill: N}` hook from the successful `Skill` call
//! that loads `N` to the next user prompt or the end of the run, and a
//! `once` hook runs once per session: per run without a session store,
//! across contexts (processes) and concurrent events with one.

use std::sync::Arc;
use std::time::Duration;

use hooks_runtime::state::{MemoryStore, SessionStore};
use hooks_runtime::{
    Dispatcher, HookContext, HookStack, StackOutcome, StepEvent, Table, TableRef, ToolFailure,
    ToolOutcome,
};
use serde_json::{Value, json};

const CONFIG: &str = r#"
version: 1
hooks:
  - id: reviewer-no-push
    phase: before_tool
    include_tools: [Bash]
    scope: { subagent: reviewer }
    block: { reason: "reviewers do not push" }
  - id: reviewer-hello
    phase: subagent_start
    scope: { subagent: reviewer }
    inject: { content: "you review, you do not write" }
  - id: reviewer-bye
    phase: subagent_stop
    scope: { subagent: reviewer }
    mode: audit
    terminate: { reason: "reviewer stopping" }
  - id: pdf-only-read
    phase: before_tool
    include_tools: [Write]
    scope: { skill: pdf }
    block: { reason: "the pdf skill only reads" }
  - id: first-read
    phase: before_tool
    include_tools: [Read]
    once: true
    block: { reason: "read the README first" }
"#;

fn stack(store: Option<Arc<dyn SessionStore>>) -> HookStack {
    let table = Table::load_str(CONFIG, "scopes.yaml").expect("loads");
    let stack = HookStack::new().with(
        "scopes.yaml",
        Dispatcher::new(TableRef::Shared(Arc::new(table))),
    );
    match store {
        Some(store) => stack.with_session_store(store),
        None => stack,
    }
}

/// The ids of the rules that answered `outcome`, in order.
fn fired(outcome: &StackOutcome) -> Vec<String> {
    outcome
        .reports
        .iter()
        .map(|r| r.hook.as_str().to_owned())
        .collect()
}

async fn tool(stack: &HookStack, ctx: &HookContext, name: &str) -> Vec<String> {
    let args = json!({"command": "git push", "file_path": "a.pdf"});
    let event = StepEvent::BeforeTool {
        tool_name: name,
        call_id: "c",
        args: &args,
    };
    fired(&stack.fold(ctx, event).await)
}

async fn start(stack: &HookStack, ctx: &HookContext, id: &str, ty: &str) -> Vec<String> {
    let event = StepEvent::SubagentStart {
        agent_id: id,
        agent_type: ty,
    };
    fired(&stack.fold(ctx, event).await)
}

async fn stop(stack: &HookStack, ctx: &HookContext, id: &str, ty: &str) -> Vec<String> {
    let event = StepEvent::SubagentStop {
        agent_id: id,
        agent_type: ty,
        loop_count: 0,
        text: "done",
        agent_transcript_path: "",
        background_tasks: &Value::Null,
        session_crons: &Value::Null,
    };
    fired(&stack.fold(ctx, event).await)
}

async fn skill(stack: &HookStack, ctx: &HookContext, name: &str, outcome: &ToolOutcome) {
    let args = json!({"skill": name});
    let event = StepEvent::AfterTool {
        tool_name: "Skill",
        call_id: "s",
        args: &args,
        original_args: &args,
        result: &json!("loaded"),
        outcome,
        duration_ms: None,
    };
    stack.fold(ctx, event).await;
}

async fn prompt(stack: &HookStack, ctx: &HookContext) {
    stack
        .fold(ctx, StepEvent::UserPrompt { prompt: "next" })
        .await;
}

#[tokio::test]
async fn a_subagent_scope_holds_from_its_start_to_its_stop() {
    let stack = stack(None);
    let ctx = HookContext::new("run");
    assert!(tool(&stack, &ctx, "Bash").await.is_empty());
    // Another type does not open the scope.
    assert!(start(&stack, &ctx, "e1", "Explore").await.is_empty());
    assert!(tool(&stack, &ctx, "Bash").await.is_empty());
    // Its own start is in scope.
    assert_eq!(
        start(&stack, &ctx, "r1", "reviewer").await,
        ["reviewer-hello"]
    );
    assert_eq!(tool(&stack, &ctx, "Bash").await, ["reviewer-no-push"]);
    // Explore stopping leaves the reviewer running.
    assert!(stop(&stack, &ctx, "e1", "Explore").await.is_empty());
    assert_eq!(tool(&stack, &ctx, "Bash").await, ["reviewer-no-push"]);
    // Its own stop is in scope; after it, nothing.
    assert_eq!(stop(&stack, &ctx, "r1", "reviewer").await, ["reviewer-bye"]);
    assert!(tool(&stack, &ctx, "Bash").await.is_empty());
    // Two reviewers: the scope holds until the last one stops.
    start(&stack, &ctx, "r2", "reviewer").await;
    start(&stack, &ctx, "r3", "reviewer").await;
    stop(&stack, &ctx, "r2", "reviewer").await;
    assert_eq!(tool(&stack, &ctx, "Bash").await, ["reviewer-no-push"]);
    stop(&stack, &ctx, "r3", "reviewer").await;
    assert!(tool(&stack, &ctx, "Bash").await.is_empty());
}

#[tokio::test]
async fn a_skill_scope_holds_from_its_load_to_the_next_prompt() {
    let stack = stack(None);
    let ctx = HookContext::new("run");
    assert!(tool(&stack, &ctx, "Write").await.is_empty());
    // A failed load and another skill do not open it.
    let failed = ToolOutcome::failed(ToolFailure::NotFound);
    skill(&stack, &ctx, "pdf", &failed).await;
    skill(&stack, &ctx, "docx", &ToolOutcome::Success).await;
    assert!(tool(&stack, &ctx, "Write").await.is_empty());
    skill(&stack, &ctx, "pdf", &ToolOutcome::Success).await;
    assert_eq!(tool(&stack, &ctx, "Write").await, ["pdf-only-read"]);
    assert_eq!(tool(&stack, &ctx, "Write").await, ["pdf-only-read"]);
    prompt(&stack, &ctx).await;
    assert!(tool(&stack, &ctx, "Write").await.is_empty());
    // The end of the run ends every scope.
    skill(&stack, &ctx, "pdf", &ToolOutcome::Success).await;
    start(&stack, &ctx, "r1", "reviewer").await;
    stack
        .fold(
            &ctx,
            StepEvent::RunEnd {
                output: "",
                reason: "completed",
            },
        )
        .await;
    assert!(tool(&stack, &ctx, "Write").await.is_empty());
    assert!(tool(&stack, &ctx, "Bash").await.is_empty());
}

#[tokio::test]
async fn a_once_hook_runs_once_per_run_without_a_store() {
    let stack = stack(None);
    let ctx = HookContext::new("run");
    assert_eq!(tool(&stack, &ctx, "Read").await, ["first-read"]);
    assert!(tool(&stack, &ctx, "Read").await.is_empty());
    // A turn of the same run shares the scratchpad; a new run does not.
    assert!(tool(&stack, &ctx.for_turn(3), "Read").await.is_empty());
    assert_eq!(
        tool(&stack, &HookContext::new("run-2"), "Read").await,
        ["first-read"]
    );
}

/// One context per event, as one `agent-hooks hook` process per event:
/// the store carries the scopes and the spent `once` hook.
#[tokio::test]
async fn scopes_and_once_hooks_hold_across_processes_through_the_store() {
    let store: Arc<dyn SessionStore> = Arc::new(MemoryStore::new(Duration::from_secs(60)));
    let process = || HookContext::new("proc").with_session_id("session-1");
    let stack = stack(Some(Arc::clone(&store)));
    assert_eq!(tool(&stack, &process(), "Read").await, ["first-read"]);
    assert!(tool(&stack, &process(), "Read").await.is_empty());
    assert_eq!(
        start(&stack, &process(), "r1", "reviewer").await,
        ["reviewer-hello"]
    );
    skill(&stack, &process(), "pdf", &ToolOutcome::Success).await;
    assert_eq!(tool(&stack, &process(), "Bash").await, ["reviewer-no-push"]);
    assert_eq!(tool(&stack, &process(), "Write").await, ["pdf-only-read"]);
    assert_eq!(
        stop(&stack, &process(), "r1", "reviewer").await,
        ["reviewer-bye"]
    );
    assert!(tool(&stack, &process(), "Bash").await.is_empty());
    prompt(&stack, &process()).await;
    assert!(tool(&stack, &process(), "Write").await.is_empty());
    // Another session has its own.
    let other = HookContext::new("proc").with_session_id("session-2");
    assert_eq!(tool(&stack, &other, "Read").await, ["first-read"]);
}

/// Sixteen concurrent first events of one session, each its own stack
/// and context: the `once` hook runs in exactly one.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_events_run_a_once_hook_exactly_once() {
    let store: Arc<dyn SessionStore> = Arc::new(MemoryStore::new(Duration::from_secs(60)));
    let mut tasks = Vec::new();
    for _ in 0..16 {
        let store = Arc::clone(&store);
        tasks.push(tokio::spawn(async move {
            let stack = stack(Some(store));
            let ctx = HookContext::new("proc").with_session_id("s");
            tool(&stack, &ctx, "Read").await.len()
        }));
    }
    let mut ran = 0;
    for task in tasks {
        ran += task.await.expect("task");
    }
    assert_eq!(ran, 1);
}

const REWRITE_THEN_ONCE: [&str; 2] = [
    r#"
version: 1
hooks:
  - id: block-rm
    phase: before_tool
    include_tools: [Bash]
    when: { pointer: /command, matches: "^rm" }
    block: { reason: "no rm" }
  - id: long-listing
    phase: before_tool
    include_tools: [Bash]
    when: { pointer: /command, equals: ls }
    rewrite:
      - { op: set, pointer: /command, value: "ls -la" }
"#,
    r#"
version: 1
hooks:
  - id: once-plain-ls
    phase: before_tool
    include_tools: [Bash]
    when: { pointer: /command, equals: ls }
    once: true
    mode: audit
    terminate: { reason: "plain ls" }
  - id: once-long-ls
    phase: before_tool
    include_tools: [Bash]
    when: { pointer: /command, equals: "ls -la" }
    once: true
    mode: audit
    terminate: { reason: "long ls" }
"#,
];

fn two_tables(store: Option<Arc<dyn SessionStore>>) -> HookStack {
    let mut stack = HookStack::new();
    for (i, yaml) in REWRITE_THEN_ONCE.iter().enumerate() {
        let table = Table::load_str(yaml, &format!("t{i}.yaml")).expect("loads");
        stack = stack.with(
            format!("t{i}.yaml"),
            Dispatcher::new(TableRef::Shared(Arc::new(table))),
        );
    }
    match store {
        Some(store) => stack.with_session_store(store),
        None => stack,
    }
}

async fn bash(stack: &HookStack, ctx: &HookContext, command: &str) -> Vec<String> {
    let args = json!({ "command": command });
    let event = StepEvent::BeforeTool {
        tool_name: "Bash",
        call_id: "c",
        args: &args,
    };
    fired(&stack.fold(ctx, event).await)
}

/// A `once` hook is spent only when dispatch reaches it: not by an event an
/// earlier hook ended, nor by one its `when` fails on after a rewrite; it
/// is judged on the event as the tables before it rewrote it.
#[tokio::test]
async fn a_once_hook_is_spent_only_when_it_is_reached() {
    let store: Arc<dyn SessionStore> = Arc::new(MemoryStore::new(Duration::from_secs(60)));
    for store in [None, Some(store)] {
        let stack = two_tables(store.clone());
        let ctx = || HookContext::new("run").with_session_id("s");
        let run = ctx();
        let ctx = |fresh: bool| if fresh { ctx() } else { run.clone() };
        let fresh = store.is_some();
        // `rm` is blocked before the `once` hooks are reached.
        assert_eq!(bash(&stack, &ctx(fresh), "rm x").await, ["block-rm"]);
        // `ls` becomes `ls -la` before the second table judges it.
        assert_eq!(
            bash(&stack, &ctx(fresh), "ls").await,
            ["long-listing", "once-long-ls"]
        );
        assert_eq!(bash(&stack, &ctx(fresh), "ls").await, ["long-listing"]);
        // `once-plain-ls` was never reached: not spent.
        assert_eq!(
            bash(&stack, &ctx(fresh), "ls -la").await,
            Vec::<String>::new()
        );
    }
}

/// Ten concurrent first `ls` calls of one session, each its own process
/// (stack and context): the `once` hook that matches only the rewritten
/// call runs exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_once_hook_on_a_rewritten_event_runs_once_across_processes() {
    let store: Arc<dyn SessionStore> = Arc::new(MemoryStore::new(Duration::from_secs(60)));
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let store = Arc::clone(&store);
        tasks.push(tokio::spawn(async move {
            let stack = two_tables(Some(store));
            let ctx = HookContext::new("proc").with_session_id("s");
            bash(&stack, &ctx, "ls").await
        }));
    }
    let mut ran = 0;
    for task in tasks {
        let fired = task.await.expect("task");
        ran += fired.iter().filter(|id| *id == "once-long-ls").count();
    }
    assert_eq!(ran, 1);
}

/// A store that fails: a gate is refused without running its hooks (the
/// scoped ones could not be told apart), other phases run on the
/// process's own marks; both say why.
#[tokio::test]
async fn a_failing_store_closes_the_gates() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let blocker = dir.path().join("not-a-dir");
    std::fs::write(&blocker, "x").expect("write");
    let store: Arc<dyn SessionStore> = Arc::new(hooks_runtime::state::FileStore::new(
        blocker.join("sessions"),
        Duration::from_secs(60),
    ));
    let stack = stack(Some(store));
    let ctx = HookContext::new("proc").with_session_id("s");
    let args = json!({"command": "ls"});
    let call = StepEvent::BeforeTool {
        tool_name: "Bash",
        call_id: "c",
        args: &args,
    };
    let outcome = stack.fold(&ctx, call).await;
    assert!(outcome.reports.is_empty(), "{:?}", outcome.reports);
    let Some(hooks_runtime::Flow::Skip { reason }) = &outcome.decision else {
        panic!("{:?}", outcome.decision)
    };
    assert!(reason.contains("fail closed"), "{reason}");
    assert_eq!(outcome.diagnostics.len(), 1);
    // Not a gate: the hooks run, on this process's marks.
    let started = stack
        .fold(
            &ctx,
            StepEvent::SubagentStart {
                agent_id: "r1",
                agent_type: "reviewer",
            },
        )
        .await;
    assert_eq!(fired(&started), ["reviewer-hello"]);
    assert!(started.diagnostics[0].to_string().contains("own were used"));
}
