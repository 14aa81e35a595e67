//! A dry-run dispatcher ([`Dispatcher::dry_run`]) never executes `run`
//! rules: each answers `Continue` and records that it did not run, while
//! the declarative rules after it fold and record as usual.

use std::sync::Arc;

use agent_hooks::shell::{Executor, RecordWriter, SecretSet};
use agent_hooks::{HookContext, HookStack, Table, ToolCall, ToolDecision};
use hooks_runtime::{Dispatcher, TableRef};
use serde_json::{Value, json};

const CONFIG: &str = r#"version: 1
hooks:
  - id: touch
    phase: before_tool
    run: { command: "touch ran" }
  - id: no-rm
    phase: before_tool
    when: { pointer: /command, matches: 'rm ' }
    block: { reason: "no rm" }
"#;

/// Folds `command` through the config in `dir`, dry or not; returns the
/// decision (`run`, or the skip reason) and the records written.
fn before_tool(dir: &std::path::Path, dry: bool, command: &str) -> (String, Vec<Value>) {
    let table = Arc::new(Table::load_str(CONFIG, "hooks.yaml").expect("valid config"));
    let records = dir.join("records.jsonl");
    let _ = std::fs::remove_file(&records);
    let shell = table
        .shell_runtime(Executor::new(dir).expect("executor"))
        .with_records(RecordWriter::open(&records, SecretSet::new()).expect("records"));
    let mut dispatcher = Dispatcher::new(TableRef::Shared(table)).with_shell(Arc::new(shell));
    if dry {
        dispatcher = dispatcher.dry_run();
    }
    assert_eq!(dispatcher.is_dry_run(), dry);
    let stack = HookStack::new().with("hooks.yaml", dispatcher);
    let args = json!({ "command": command });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio");
    let decision = rt.block_on(async {
        let ctx = HookContext::new("dry");
        let call = ToolCall {
            tool_name: "bash",
            call_id: "c1",
            args: &args,
        };
        match stack.before_tool(&ctx, call).await.decision {
            ToolDecision::Run { .. } => "run".to_owned(),
            ToolDecision::Skip { reason, .. } => format!("skip: {reason}"),
            ToolDecision::Ask { reason, .. } => format!("ask: {reason}"),
            ToolDecision::Terminate { reason } => format!("terminate: {reason}"),
        }
    });
    let written = std::fs::read_to_string(&records).unwrap_or_default();
    let lines = written
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON record"))
        .collect();
    (decision, lines)
}

#[test]
fn a_dry_run_records_run_rules_as_not_run_and_folds_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (decision, records) = before_tool(dir.path(), true, "rm -r x");
    assert_eq!(decision, "skip: no rm");
    assert!(!dir.path().join("ran").exists(), "the run rule did not run");
    let seen: Vec<(&str, &str)> = records
        .iter()
        .map(|r| {
            (
                r["hook_id"].as_str().unwrap(),
                r["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(seen, [("touch", "refused"), ("no-rm", "decision")]);
    assert_eq!(records[0]["message"], "not run (dry run)");

    let (decision, _) = before_tool(dir.path(), true, "ls");
    assert_eq!(decision, "run");
    assert!(!dir.path().join("ran").exists());
}

#[test]
fn without_dry_run_the_same_dispatcher_runs_the_rule() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (decision, records) = before_tool(dir.path(), false, "ls");
    assert_eq!(decision, "run");
    assert!(dir.path().join("ran").exists(), "the run rule ran");
    assert_eq!(records[0]["status"], "ok");
}
