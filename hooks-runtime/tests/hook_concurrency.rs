//! Shell hooks of an observe-only event run concurrently and merge in
//! declared order; mutating events run their hooks one after another.

#[path = "common/hooks.rs"]
mod hooks;

use hooks::{Fixture, before_tool, sh};
use hooks_runtime::{Flow, HookContext, StepEvent, run_shell_hooks};
use hooks_schema::Phase;
use serde_json::json;

#[tokio::test]
async fn observe_only_hooks_run_concurrently_and_merge_in_declared_order() {
    let fx = Fixture::new();
    assert!(!Phase::AfterAssistant.is_mutating());
    // Declared first sleeps longest: they finish in reverse order.
    let sleeps = [("a", "1.6"), ("b", "1.2"), ("c", "0.8"), ("d", "0.4")];
    let hooks: Vec<_> = sleeps
        .iter()
        .map(|(id, secs)| {
            fx.hook(sh(
                id,
                Phase::AfterAssistant,
                &format!(
                    r#"sleep {secs}; echo {id} >> finished.txt; echo '{{"context_items":[{{"role":"user","content":"from {id}"}}]}}'"#
                ),
            ))
        })
        .collect();
    let ctx = HookContext::new("run-1");
    let started = std::time::Instant::now();
    let out = run_shell_hooks(&hooks, &ctx, StepEvent::AfterAssistant { text: "done" }).await;
    let elapsed = started.elapsed();
    let finished = std::fs::read_to_string(fx.path("finished.txt")).unwrap();
    assert_eq!(finished, "d\nc\nb\na\n", "finish order");
    let flows: Vec<Flow> = out.into_iter().map(|i| i.flow).collect();
    assert_eq!(
        flows,
        vec![
            Flow::inject("from a"),
            Flow::inject("from b"),
            Flow::inject("from c"),
            Flow::inject("from d"),
        ]
    );
    // Sequentially this would take 4 s; a generous hang guard only.
    assert!(elapsed < std::time::Duration::from_secs(10), "{elapsed:?}");
    let hook_records: Vec<String> = fx
        .records()
        .iter()
        .filter(|r| r["record"] == "hook")
        .map(|r| r["hook_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        hook_records,
        ["d", "c", "b", "a"],
        "records are written as hooks finish"
    );
}

#[tokio::test]
async fn mutating_hooks_run_one_after_another() {
    let fx = Fixture::new();
    assert!(Phase::BeforeTool.is_mutating());
    let hooks = vec![
        fx.hook(sh(
            "slow",
            Phase::BeforeTool,
            "sleep 0.4; echo slow >> order.txt",
        )),
        fx.hook(sh(
            "fast",
            Phase::BeforeTool,
            "echo fast >> order.txt; echo '{\"decision\":\"block\",\"reason\":\"no\"}'",
        )),
    ];
    let args = json!({"command": "ls"});
    let ctx = HookContext::new("run-1");
    let out = run_shell_hooks(&hooks, &ctx, before_tool("bash", "c", &args)).await;
    assert_eq!(
        std::fs::read_to_string(fx.path("order.txt")).unwrap(),
        "slow\nfast\n"
    );
    assert_eq!(out[0].flow, Flow::Continue);
    assert_eq!(out[1].flow, Flow::skip("no"));
}
