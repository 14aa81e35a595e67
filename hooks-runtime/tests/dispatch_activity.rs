//! `show_in_tui` on declarative rules: a table's in-process rules emit the
//! same activity events as `run` hooks (started, then succeeded with 0 ms),
//! only for the rules that ask for it, with or without a records file.

use std::sync::{Arc, Mutex};

use hooks_runtime::{
    ActivityEvent, Dispatcher, Executor, HookContext, HookStack, ShellRuntime, Table, TableRef,
    ToolCall,
};
use hooks_schema::Phase;
use serde_json::json;

const CONFIG: &str = "version: 1
hooks:
  - id: shown-block
    phase: before_tool
    include_tools: [bash]
    block: { reason: no shell today }
    show_in_tui: true
  - id: hidden-rewrite
    phase: before_tool
    include_tools: [read_file]
    rewrite: [{ op: set, pointer: /max_bytes, value: 10 }]
  - id: shown-rewrite
    phase: before_tool
    include_tools: [read_file]
    rewrite: [{ op: remove, pointer: /encoding }]
    show_in_tui: true
";

#[tokio::test]
async fn declarative_rules_shown_in_the_tui_emit_activity() {
    let dir = tempfile::tempdir().expect("tempdir");
    let events: Arc<Mutex<Vec<ActivityEvent>>> = Arc::default();
    let sink = Arc::clone(&events);
    let shell = Arc::new(
        ShellRuntime::new(Executor::new(dir.path()).expect("root")).with_activity(Arc::new(
            move |e: ActivityEvent| sink.lock().expect("events").push(e),
        )),
    );
    let table = Table::load_str(CONFIG, "activity.yaml").expect("the config loads");
    let stack = HookStack::new().with(
        "config",
        Dispatcher::new(TableRef::Shared(Arc::new(table))).with_shell(shell),
    );
    let ctx = HookContext::new("run-1");
    for (tool, args) in [
        ("bash", json!({"command": "ls"})),
        ("read_file", json!({"path": "a"})),
    ] {
        let call = ToolCall {
            tool_name: tool,
            call_id: "c1",
            args: &args,
        };
        stack.before_tool(&ctx, call).await;
    }
    let seen: Vec<String> = events
        .lock()
        .expect("events")
        .iter()
        .map(|e| match e {
            ActivityEvent::Started { hook_id, phase } => format!("started {hook_id} {phase}"),
            ActivityEvent::Succeeded {
                hook_id,
                phase,
                elapsed_ms,
            } => format!("succeeded {hook_id} {phase} {elapsed_ms}"),
            other => format!("{other:?}"),
        })
        .collect();
    let phase = Phase::BeforeTool;
    assert_eq!(
        seen,
        [
            format!("started shown-block {phase}"),
            format!("succeeded shown-block {phase} 0"),
            format!("started shown-rewrite {phase}"),
            format!("succeeded shown-rewrite {phase} 0"),
        ]
    );
}
