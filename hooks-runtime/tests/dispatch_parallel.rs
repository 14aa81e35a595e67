//! Parallel gates: matching `parallel: true` rules of a mutating phase start
//! at once, and the fold, the provenance and the records are the ones of
//! running them one by one (a decision in the middle included: the rules
//! after it are killed and leave no record). A `parallel` hook's rewrite
//! answer is a failure under its failure policy.

#[path = "common/hooks.rs"]
mod hooks;

use std::sync::Arc;
use std::time::Duration;

use hooks::{Fixture, before_tool};
use hooks_runtime::{
    Dispatcher, FailureKind, Flow, HookContext, StackOutcome, StepEvent, Table, TableRef,
};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Folds `event` through `config` (named `team.yaml`) with `fx`'s runtime.
async fn fold(fx: &Fixture, config: &str, event: StepEvent<'_>) -> StackOutcome {
    let table = Arc::new(Table::load_str(config, "team.yaml").expect("the config loads"));
    let dispatcher = Dispatcher::new(TableRef::Shared(table)).with_shell(Arc::clone(&fx.runtime));
    let mut outcome = dispatcher.fold(&HookContext::new("run-1"), event).await;
    // Timing is the one thing that differs between two runs.
    for report in &mut outcome.reports {
        report.elapsed = Duration::ZERO;
    }
    outcome
}

/// `config` without its `parallel: true` lines: the same hooks, one by one.
fn sequential(config: &str) -> String {
    config
        .lines()
        .filter(|l| l.trim() != "parallel: true")
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The records of `fx`, without what differs from run to run: the elapsed
/// time and the process-wide counter ending an injection id.
fn records(fx: &Fixture) -> Vec<Value> {
    fx.records()
        .into_iter()
        .map(|mut r| {
            let r = r.as_object_mut().expect("a record is an object");
            r.remove("elapsed_ms");
            if let Some(Value::String(id)) = r.get_mut("injection_id") {
                let kept = id.rsplit_once('/').map_or(id.as_str(), |(k, _)| k);
                *id = kept.to_owned();
            }
            Value::Object(r.clone())
        })
        .collect()
}

/// The lines of `fx`'s file `name`.
fn lines(fx: &Fixture, name: &str) -> Vec<String> {
    std::fs::read_to_string(fx.path(name))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Three gates that each take about 300 ms and, before ending, wait (up to
/// 5 s) until all three have started: run one by one, each would wait in
/// vain and the marks would alternate.
const THREE_GATES: &str = r#"
version: 1
hooks:
  - id: gate-a
    phase: before_tool
    parallel: true
    run: { command: "echo start >> marks; sleep 0.3; n=0; until [ $(grep -c start marks) -ge 3 ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n+1)); done; echo end >> marks" }
  - id: gate-b
    phase: before_tool
    parallel: true
    run: { command: "echo start >> marks; sleep 0.3; n=0; until [ $(grep -c start marks) -ge 3 ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n+1)); done; echo end >> marks" }
  - id: gate-c
    phase: before_tool
    parallel: true
    run: { command: "echo start >> marks; sleep 0.3; n=0; until [ $(grep -c start marks) -ge 3 ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n+1)); done; echo end >> marks" }
"#;

#[tokio::test]
async fn parallel_gates_all_start_before_any_ends() {
    let fx = Fixture::new();
    let args = json!({"command": "ls"});
    let outcome = fold(&fx, THREE_GATES, before_tool("bash", "c1", &args)).await;
    assert_eq!(outcome.decision, None, "{outcome:?}");
    assert_eq!(
        lines(&fx, "marks"),
        ["start", "start", "start", "end", "end", "end"],
        "the three gates ran at once"
    );
    let ids: Vec<Value> = fx.records().iter().map(|r| r["hook_id"].clone()).collect();
    assert_eq!(
        ids,
        ["gate-a", "gate-b", "gate-c"],
        "records in declared order"
    );
}

#[tokio::test]
async fn without_parallel_the_same_gates_run_one_by_one() {
    let fx = Fixture::new();
    let args = json!({"command": "ls"});
    // Each gate's wait is cut short after a second here.
    let config = sequential(THREE_GATES).replace("$n -ge 50", "$n -ge 10");
    let outcome = fold(&fx, &config, before_tool("bash", "c1", &args)).await;
    assert_eq!(outcome.decision, None, "{outcome:?}");
    assert_eq!(
        lines(&fx, "marks"),
        ["start", "end", "start", "end", "start", "end"]
    );
}

/// Before the group, a rewrite (the group sees its value); in the group, a
/// slow context injection (it waits, up to 2 s, until the gate that never
/// ends has started), a declarative injection, a gate that denies at once,
/// a gate that would never end and a quick injection; after the group, a
/// gate that is never reached.
const MIXED: &str = r#"
version: 1
hooks:
  - id: cap-timeout
    phase: before_tool
    rewrite:
      - { op: set, pointer: /timeout, value: 60 }
  - id: slow-context
    phase: before_tool
    parallel: true
    run: { command: "n=0; until [ -e never-ends.pid ] || [ $n -ge 20 ]; do sleep 0.1; n=$((n+1)); done; echo '{\"context_items\": [{\"role\": \"user\", \"content\": \"from slow-context\"}]}'" }
  - id: note
    phase: before_tool
    parallel: true
    inject: { content: "from note" }
  - id: deny-long-timeouts
    phase: before_tool
    parallel: true
    run: { command: "grep -q '\"timeout\":60' && { echo 'timeout too long' >&2; exit 2; }; exit 0" }
  - id: never-ends
    phase: before_tool
    parallel: true
    run:
      command: "echo $$ > never-ends.pid; while true; do sleep 0.05; done"
      timeout: 20s
  - id: quick-context
    phase: before_tool
    parallel: true
    run: { command: "echo quick >> ran; echo '{\"context_items\": [{\"role\": \"user\", \"content\": \"from quick-context\"}]}'" }
  - id: last
    phase: before_tool
    run: { command: "echo last >> ran" }
"#;

/// Whether process `pid` is gone or a zombie (killed, not yet reaped).
fn dead(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

#[tokio::test]
async fn a_decision_in_the_middle_gives_the_sequential_outcome_and_records() {
    let args = json!({"command": "ls"});
    let seq = Fixture::new();
    let one_by_one = fold(&seq, &sequential(MIXED), before_tool("bash", "c1", &args)).await;
    let par = Fixture::new();
    let at_once = fold(&par, MIXED, before_tool("bash", "c1", &args)).await;

    assert_eq!(
        one_by_one.decision,
        Some(Flow::skip("timeout too long")),
        "the gate saw the rewritten arguments"
    );
    let context: Vec<&str> = one_by_one.context.iter().map(|c| &*c.content).collect();
    assert_eq!(context, ["from slow-context", "from note"]);
    // Decision, rewritten arguments, context, provenance, reports (but for
    // their elapsed time) and diagnostics: all equal.
    assert_eq!(at_once, one_by_one);
    // The records, line by line in the same order: none of `never-ends`
    // (killed), `quick-context` (ended, dropped) or `last` (never reached).
    assert_eq!(records(&par), records(&seq));
    let ids: Vec<Value> = seq.records().iter().map(|r| r["hook_id"].clone()).collect();
    assert_eq!(
        ids,
        [
            "slow-context",
            "slow-context",
            "deny-long-timeouts",
            "cap-timeout",
            "note",
            "note"
        ],
        "run hooks' records (an injection record before its hook record), then the declarative rules'"
    );

    // What only the parallel run did: it started the members after the
    // decision, and killed the one still running.
    assert!(!seq.path("never-ends.pid").exists());
    assert!(lines(&seq, "ran").is_empty());
    let pid = std::fs::read_to_string(par.path("never-ends.pid")).expect("it started");
    let pid = pid.trim();
    let mut waited = 0;
    while !dead(pid) && waited < 100 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        waited += 1;
    }
    assert!(dead(pid), "process {pid} of `never-ends` was killed");
    assert!(!lines(&par, "ran").contains(&"last".to_owned()));
}

#[tokio::test]
async fn a_parallel_hooks_rewrite_answer_is_a_failure_under_its_policy() {
    let rewrite = r#"echo '{\"rewrite_args\": {\"command\": \"ls -la\"}}'"#;
    let config = format!(
        r#"
version: 1
hooks:
  - id: widen
    phase: before_tool
    parallel: true
    failure_policy: warn
    run: {{ command: "{rewrite}" }}
  - id: gate
    phase: before_tool
    parallel: true
    run: {{ command: "exit 0" }}
"#
    );
    let args = json!({"command": "ls"});
    let fx = Fixture::new();
    let outcome = fold(&fx, &config, before_tool("bash", "c1", &args)).await;
    assert_eq!(outcome.decision, None);
    assert_eq!(outcome.args, None, "not rewritten");
    let failure = outcome.reports[0].failure.expect("a failure");
    assert_eq!(failure.kind, FailureKind::InvalidOutput);
    let record = &fx.records()[0];
    assert_eq!(record["status"], "failed");
    assert_eq!(record["failure_kind"], "invalid_output");
    let message = record["message"].as_str().expect("a message");
    assert!(
        message.contains("`parallel: true` and cannot answer with rewrite_args"),
        "{message}"
    );

    // Under the default policy of `before_tool` (block) the call is skipped;
    // without `parallel` the rewrite applies.
    let blocking = config.replace("    failure_policy: warn\n", "");
    let fx = Fixture::new();
    let outcome = fold(&fx, &blocking, before_tool("bash", "c1", &args)).await;
    assert!(
        matches!(outcome.decision, Some(Flow::Skip { .. })),
        "{outcome:?}"
    );
    let fx = Fixture::new();
    let outcome = fold(
        &fx,
        &sequential(&blocking),
        before_tool("bash", "c1", &args),
    )
    .await;
    assert_eq!(outcome.args, Some(json!({"command": "ls -la"})));
}

/// What a generated gate does: a `run` hook's answer (after a delay), or
/// a declarative rule.
#[derive(Debug, Clone)]
enum Gate {
    Continue,
    Deny,
    Context,
    Fail,
    Block,
    Inject,
}

/// The action of gate `id`.
fn gate_action(gate: &Gate, id: usize, delay_ms: u64) -> String {
    let answer = match gate {
        Gate::Continue => "exit 0".to_owned(),
        Gate::Deny => format!("echo 'denied by {id}' >&2; exit 2"),
        Gate::Context => format!(
            r#"echo '{{\"context_items\": [{{\"role\": \"user\", \"content\": \"from {id}\"}}]}}'"#
        ),
        Gate::Fail => "exit 3".to_owned(),
        Gate::Block => return format!("block: {{ reason: \"blocked by {id}\" }}"),
        Gate::Inject => return format!("inject: {{ content: \"from rule {id}\" }}"),
    };
    format!("run: {{ command: \"sleep 0.0{delay_ms:02}; {answer}\" }}")
}

fn config(gates: &[(Gate, u64, bool, bool)]) -> String {
    let mut out = String::from("version: 1\nhooks:\n");
    for (i, (gate, delay, parallel, warn)) in gates.iter().enumerate() {
        out.push_str(&format!(
            "  - id: g{i}\n    phase: before_tool\n    {}\n",
            gate_action(gate, i, *delay)
        ));
        if *parallel {
            out.push_str("    parallel: true\n");
        }
        if *warn {
            out.push_str("    failure_policy: warn\n");
        }
    }
    out
}

fn gates() -> impl Strategy<Value = Vec<(Gate, u64, bool, bool)>> {
    let gate = prop_oneof![
        3 => Just(Gate::Continue),
        1 => Just(Gate::Deny),
        2 => Just(Gate::Context),
        1 => Just(Gate::Fail),
        1 => Just(Gate::Block),
        1 => Just(Gate::Inject),
    ];
    prop::collection::vec((gate, 0u64..60, any::<bool>(), any::<bool>()), 1..6)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Any mix of parallel and sequential gates (`run` hooks that continue,
    /// deny, add context or fail under `warn` or `block`, finishing in any
    /// order; declarative `block` and `inject` rules) folds and records as
    /// the same gates run one by one.
    #[test]
    fn parallel_and_sequential_runs_agree(gates in gates()) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        let config = config(&gates);
        let args = json!({"command": "ls"});
        let (seq, par) = (Fixture::new(), Fixture::new());
        let one_by_one = rt.block_on(fold(&seq, &sequential(&config), before_tool("bash", "c1", &args)));
        let at_once = rt.block_on(fold(&par, &config, before_tool("bash", "c1", &args)));
        prop_assert_eq!(at_once, one_by_one, "{}", config);
        prop_assert_eq!(records(&par), records(&seq), "{}", config);
    }
}
