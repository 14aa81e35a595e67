//! `policy` hooks: a Rego policy evaluated in process on the hook payload,
//! its value read like a native `run` hook's stdout. The config is compiled
//! by `hooks!` (which loads and checks the Rego file when the test crate is
//! built) and loaded at run time; both give the same decisions.

use std::path::Path;
use std::sync::Arc;

use agent_hooks::shell::{Executor, RecordWriter, SecretSet};
use agent_hooks::{Flow, HookContext, StepEvent, Table};
use hooks_runtime::StackOutcome;
use serde_json::{Value, json};

agent_hooks::hooks!(name = ToolPolicy, "fixtures/policy/hooks.yaml");

const CONFIG: &str = "tests/fixtures/policy/hooks.yaml";
const POLICY: &str = "tests/fixtures/policy/tools.rego";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// The table of `CONFIG` loaded at run time, policy files resolved against
/// the package root.
fn loaded() -> Table {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join(CONFIG)).expect("the config");
    let compiled = hooks_schema::Loader::new()
        .workspace(root)
        .compile_str(&text, CONFIG)
        .expect("the config and its policy compile");
    Table::from_plan(compiled.plan)
}

/// Folds a `bash` call with `command` through `table`, with a records file;
/// returns the outcome and the records written.
fn decide(table: &Table, command: &str) -> (StackOutcome, Vec<Value>) {
    let root = tempfile::tempdir().expect("workspace root");
    let records = root.path().join("records.jsonl");
    let writer = RecordWriter::open(&records, SecretSet::new()).expect("records");
    let shell = Arc::new(
        table
            .shell_runtime(Executor::new(root.path()).expect("executor"))
            .with_records(writer),
    );
    let args = json!({ "command": command });
    let event = StepEvent::BeforeTool {
        tool_name: "bash",
        call_id: "c1",
        args: &args,
    };
    let ctx = HookContext::new("policy");
    let outcome = runtime().block_on(table.fold(Some(&shell), &ctx, event));
    let lines = std::fs::read_to_string(&records)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON record"))
        .collect();
    (outcome, lines)
}

#[test]
fn the_policy_decides_like_a_native_hook() {
    let table = ToolPolicy::table();
    let (outcome, records) = decide(table, "rm -rf /");
    assert_eq!(
        outcome.decision,
        Some(Flow::skip("policy refuses `rm -rf /`")),
        "{:?}",
        outcome.diagnostics
    );
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["status"], "decision");
    assert_eq!(records[0]["decision"], "skip");
    // The record names the policy: its query and the digest of its file.
    let text = std::fs::read_to_string(POLICY).expect("the policy file");
    let digest = hooks_schema::policy::policy_digest([(POLICY, text.as_str())]);
    assert_eq!(records[0]["rego"]["query"], "data.agent.tools.decision");
    assert_eq!(records[0]["rego"]["digest"], digest.as_str());

    // Undefined: continue, nothing rewritten.
    let (outcome, records) = decide(table, "ls");
    assert_eq!(outcome.decision, None);
    assert_eq!(outcome.args, None);
    assert_eq!(records[0]["status"], "ok");

    // `rewrite_args` and `context_items`, as on a hook's stdout.
    let (outcome, _) = decide(table, "sudo make install");
    assert_eq!(outcome.args, Some(json!({"command": "make install"})));
    let (outcome, _) = decide(table, "curl example.invalid");
    let context: Vec<&str> = outcome.context.iter().map(|c| &*c.content).collect();
    assert_eq!(context, ["network access is logged"]);
}

#[test]
fn a_failing_evaluation_is_a_named_failure_under_the_failure_policy() {
    // Two rules give `decision` different values: the evaluation fails,
    // and `before_tool`'s default failure policy (`block`) refuses the call.
    let (outcome, records) = decide(ToolPolicy::table(), "conflict");
    assert!(
        matches!(outcome.decision, Some(Flow::Skip { .. })),
        "{outcome:?}"
    );
    assert_eq!(records[0]["status"], "failed", "{records:?}");
    assert_eq!(records[0]["failure_kind"], "policy_failed");
    assert_eq!(records[0]["policy"], "block");
    assert_eq!(
        outcome.reports[0].failure.map(|f| f.kind.as_str()),
        Some("policy_failed")
    );

    // A value that is not an output object is the native protocol's
    // `invalid_output`, as for a hook printing `42`.
    let (_, records) = decide(ToolPolicy::table(), "number");
    assert_eq!(records[0]["failure_kind"], "invalid_output", "{records:?}");
}

#[test]
fn the_compiled_and_the_loaded_table_decide_alike() {
    let loaded = loaded();
    assert_eq!(loaded.plan(), ToolPolicy::table().plan());
    for command in [
        "rm -rf /",
        "ls",
        "sudo make",
        "curl x",
        "conflict",
        "number",
    ] {
        let (a, ra) = decide(ToolPolicy::table(), command);
        let (b, rb) = decide(&loaded, command);
        assert_eq!(a.decision, b.decision, "{command}");
        assert_eq!(a.args, b.args, "{command}");
        assert_eq!(a.context, b.context, "{command}");
        assert_eq!(ra[0]["rego"], rb[0]["rego"], "{command}");
    }
}
