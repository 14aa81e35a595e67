//! A table's records and provenance agree with its decisions: an
//! audit-mode `run` hook leaves an `audited` provenance entry as an
//! audit-mode declarative rule does; a declarative `inject` writes a
//! `context_injection` record as a shell injection does; a stop hook is
//! not spawned once the resume cap is reached; provenance names the config
//! each hook comes from.

#[path = "common/hooks.rs"]
mod hooks;

use std::sync::Arc;

use hooks::Fixture;
use hooks_runtime::{
    Change, Dispatcher, FlowKind, HookContext, HookStack, StopDecision, Table, TableRef, ToolCall,
    ToolOutcome,
};
use serde_json::{Value, json};

fn stack(fx: &Fixture, config: &str) -> HookStack {
    let table = Arc::new(Table::load_str(config, "team.yaml").expect("the config loads"));
    let rules = Dispatcher::new(TableRef::Shared(table)).with_shell(Arc::clone(&fx.runtime));
    HookStack::new().with("config", rules)
}

fn records_of(fx: &Fixture, hook: &str) -> Vec<Value> {
    fx.records()
        .into_iter()
        .filter(|r| r["hook_id"] == hook)
        .collect()
}

#[tokio::test]
async fn an_audit_mode_run_hook_leaves_an_audited_provenance_entry() {
    let fx = Fixture::new();
    let stack = stack(
        &fx,
        r#"
version: 1
hooks:
  - id: trial-rule
    phase: before_tool
    block: { reason: "would be refused" }
    mode: audit
  - id: trial-script
    phase: before_tool
    run: { command: "echo '{\"decision\": \"block\", \"reason\": \"no\"}'" }
    mode: audit
"#,
    );
    let args = json!({"command": "ls"});
    let call = ToolCall {
        tool_name: "bash",
        call_id: "c1",
        args: &args,
    };
    let decided = stack.before_tool(&HookContext::new("r"), call).await;
    assert_eq!(decided.decision.label(), "run");
    let audited: Vec<(&str, &Change)> = decided
        .provenance
        .iter()
        .map(|p| (p.hook.as_str(), &p.change))
        .collect();
    assert_eq!(
        audited,
        [
            ("trial-rule", &Change::Audited(FlowKind::Skip)),
            ("trial-script", &Change::Audited(FlowKind::Skip)),
        ],
        "the record says `audited`, so does the provenance"
    );
    let record = &records_of(&fx, "trial-script")[0];
    assert_eq!(record["status"], "audited");

    // Provenance names the config each hook comes from (its layer).
    for p in &decided.provenance {
        assert_eq!(p.hook.source(), Some("team.yaml"), "{p:?}");
    }
    let shown = serde_json::to_value(&decided.provenance[1]).expect("serializes");
    assert_eq!(shown["hook"], "trial-script");
    assert_eq!(shown["source"], "team.yaml");
}

#[tokio::test]
async fn a_declarative_inject_writes_a_context_injection_record() {
    let fx = Fixture::new();
    let stack = stack(
        &fx,
        r#"
version: 1
hooks:
  - id: remind
    phase: after_tool
    inject: { content: "run the tests before committing" }
  - id: remind-later
    phase: after_tool
    inject: { content: "not yet" }
    mode: audit
"#,
    );
    let args = json!({"command": "git add ."});
    let result = json!({"output": ""});
    let call = ToolCall {
        tool_name: "bash",
        call_id: "c1",
        args: &args,
    };
    let ctx = HookContext::new("run-9").for_turn(2);
    let decided = stack
        .after_tool(&ctx, call, &args, &result, &ToolOutcome::Success)
        .await;
    assert_eq!(decided.context.len(), 1);
    let injections: Vec<Value> = fx
        .records()
        .into_iter()
        .filter(|r| r["record"] == "context_injection")
        .collect();
    assert_eq!(injections.len(), 2, "{injections:#?}");
    let (enforced, audited) = (&injections[0], &injections[1]);
    assert_eq!(enforced["hook_id"], "remind");
    assert_eq!(enforced["status"], "injected");
    assert_eq!(enforced["item_count"], 1);
    assert_eq!(
        enforced["byte_count"],
        "run the tests before committing".len()
    );
    assert!(
        enforced["injection_id"]
            .as_str()
            .is_some_and(|id| id.starts_with("run-9/2/remind/")),
        "{enforced}"
    );
    assert_eq!(audited["hook_id"], "remind-later");
    assert_eq!(audited["status"], "audited");
}

#[tokio::test]
async fn the_stop_hook_is_not_spawned_once_the_resume_cap_is_reached() {
    let fx = Fixture::new();
    let stack = stack(
        &fx,
        r#"
version: 1
limits: { max_stop_resumes_per_turn: 1 }
hooks:
  - id: keep-going
    phase: stop
    run: { command: "echo ran >> spawned.txt; echo '{\"decision\": \"resume\", \"reason\": \"again\"}'" }
"#,
    );
    let ctx = HookContext::new("r");
    let first = stack.stop(&ctx, 0, "done").await;
    assert!(
        matches!(first.decision, StopDecision::Resume { .. }),
        "{:?}",
        first.decision
    );
    let second = stack.stop(&ctx, 0, "done").await;
    let StopDecision::Capped { cap, resumes, .. } = second.decision else {
        panic!("expected capped, got {:?}", second.decision);
    };
    assert_eq!((cap, resumes), (1, 1));
    let spawned = std::fs::read_to_string(fx.path("spawned.txt")).expect("the hook ran once");
    assert_eq!(spawned.lines().count(), 1, "not spawned at the cap");
    assert!(second.reports.is_empty(), "{:?}", second.reports);
    // Only the stop that ran has a record, and it is the resume that was
    // granted: no record says `resume` for the capped stop.
    let records = records_of(&fx, "keep-going");
    assert_eq!(records.len(), 1, "{records:#?}");
    assert_eq!(records[0]["decision"], "resume");
    assert!(
        second
            .diagnostics
            .iter()
            .any(|d| d.to_string().contains("the cap is 1")),
        "{:?}",
        second.diagnostics
    );
}
