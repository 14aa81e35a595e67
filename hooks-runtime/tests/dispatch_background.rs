//! Background hooks (`async: true`): the agent does not wait for them;
//! what they return is context, delivered with a later event of the same
//! run whose phase takes context (at most `max_async_deliveries_per_turn`
//! per turn), or dropped with a record when the run ends; a decision is
//! refused; they are bounded (slots, queue) and cancelled at `run_end`;
//! each writes one record.
//!
//! "Does not wait" is shown by structure, not by the clock: each hook
//! waits for a `go` file the test creates only after the fold returned,
//! and gives up (after 5 s) otherwise, so a fold that waited would find
//! the hook's marker file already there.

#[path = "common/hooks.rs"]
mod hooks;

use std::sync::Arc;

use hooks::{Fixture, after_tool, before_tool};
use hooks_runtime::{
    Dispatcher, HookContext, HookLimits, HookStack, StackOutcome, StepEvent, Table, TableRef,
    ToolOutcome,
};
use serde_json::{Value, json};

/// A hook command, quoted for a YAML double-quoted scalar: waits (up to
/// 5 s) for the file `go`, writes `marker`, then prints `answer`.
fn waits_then(marker: &str, answer: &str) -> String {
    format!(
        "n=0; until [ -e go ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n+1)); done; echo done > {marker}; echo '{answer}'"
    )
    .replace('\\', "\\\\")
    .replace('"', "\\\"")
}

/// A dispatcher over `config` (named `team.yaml`) bound to `fx`'s runtime.
fn dispatcher(fx: &Fixture, config: &str) -> Dispatcher {
    let table = Arc::new(Table::load_str(config, "team.yaml").expect("the config loads"));
    Dispatcher::new(TableRef::Shared(table)).with_shell(Arc::clone(&fx.runtime))
}

/// The contents of `outcome`'s context items.
fn context(outcome: &StackOutcome) -> Vec<String> {
    outcome
        .context
        .iter()
        .map(|item| item.content.to_string())
        .collect()
}

/// The report message of hook `id` in `outcome`.
fn message(outcome: &StackOutcome, id: &str) -> Option<String> {
    outcome
        .reports
        .iter()
        .find(|r| r.hook.as_str() == id)
        .and_then(|r| r.message.as_deref().map(str::to_owned))
}

/// `fx`'s records of kind `kind` (`hook` or `context_injection`) of hook `id`.
fn records_of(fx: &Fixture, kind: &str, id: &str) -> Vec<Value> {
    fx.records()
        .into_iter()
        .filter(|r| r["record"] == kind && r["hook_id"] == id)
        .collect()
}

fn go(fx: &Fixture) {
    std::fs::write(fx.path("go"), "").expect("the go file");
}

const LINT: &str = r#"
version: 1
hooks:
  - id: lint
    phase: before_tool
    include_tools: [bash]
    async: true
    run: { command: "WAIT" }
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_does_not_wait_and_the_context_comes_with_a_later_event() {
    let fx = Fixture::new();
    let answer = r#"{"context_items":[{"role":"user","content":"lint: 2 warnings"}]}"#;
    let config = LINT.replace("WAIT", &waits_then("marker", answer));
    let hooks = dispatcher(&fx, &config);
    let ctx = HookContext::new("run-1");
    let args = json!({"command": "make"});

    let first = hooks.fold(&ctx, before_tool("bash", "c1", &args)).await;
    assert!(
        !fx.path("marker").exists(),
        "the fold returned before the hook ended"
    );
    assert_eq!(first.decision, None);
    assert!(context(&first).is_empty());
    assert_eq!(
        message(&first, "lint").as_deref(),
        Some("started in the background")
    );
    go(&fx);
    fx.runtime.wait_background("run-1").await;
    assert!(fx.path("marker").exists());
    let record = &records_of(&fx, "hook", "lint")[0];
    assert_eq!(record["status"], "decision", "{record}");
    assert_eq!(record["decision"], "inject_context", "{record}");
    assert_eq!(record["async"], true, "{record}");
    assert!(
        records_of(&fx, "context_injection", "lint").is_empty(),
        "not injected yet"
    );

    // `before_completion` takes no context: nothing is delivered there.
    let request = json!({"messages": []});
    let step = hooks
        .fold(&ctx, StepEvent::BeforeCompletion { request: &request })
        .await;
    assert!(context(&step).is_empty());

    // Another run's event does not get it either (a tool no rule
    // matches: nothing starts).
    let other = hooks
        .fold(&HookContext::new("run-2"), before_tool("read", "c9", &args))
        .await;
    assert!(context(&other).is_empty());

    // The next event of the run that takes context gets it, through a
    // stack, although the table has no rule for `after_tool`.
    let stack = HookStack::new().with("team", hooks.clone());
    let result = json!({"output": ""});
    let ok = ToolOutcome::Success;
    let later = stack
        .fold(&ctx, after_tool("bash", "c1", &args, &result, &ok))
        .await;
    assert_eq!(context(&later), ["lint: 2 warnings"]);
    assert!(
        later.provenance.iter().any(|p| p.hook.as_str() == "lint"),
        "{:?}",
        later.provenance
    );
    let injection = &records_of(&fx, "context_injection", "lint")[0];
    assert_eq!(injection["status"], "injected", "{injection}");
    assert_eq!(injection["phase"], "before_tool", "{injection}");
    assert_eq!(injection["delivered_on"], "after_tool", "{injection}");

    // Delivered once.
    let again = stack
        .fold(&ctx, after_tool("bash", "c2", &args, &result, &ok))
        .await;
    assert!(context(&again).is_empty());
    assert_eq!(records_of(&fx, "hook", "lint").len(), 1, "one record");
}

#[tokio::test]
async fn a_decision_from_a_background_hook_is_refused() {
    let fx = Fixture::new();
    let config = LINT.replace(
        "WAIT",
        r#"echo '{\"decision\":\"block\",\"reason\":\"no\"}'"#,
    );
    let hooks = dispatcher(&fx, &config);
    let ctx = HookContext::new("run-1");
    let args = json!({"command": "make"});
    let first = hooks.fold(&ctx, before_tool("bash", "c1", &args)).await;
    assert_eq!(first.decision, None, "the agent went on");
    fx.runtime.wait_background("run-1").await;
    let record = &records_of(&fx, "hook", "lint")[0];
    assert_eq!(record["status"], "failed", "{record}");
    assert_eq!(record["failure_kind"], "invalid_output", "{record}");
    assert_eq!(record["policy"], "warn", "{record}");
    let text = record["message"].as_str().unwrap_or_default();
    assert!(
        text.contains("`async: true` and cannot answer with skip"),
        "{text}"
    );
    let next = hooks.fold(&ctx, before_tool("bash", "c2", &args)).await;
    assert_eq!(next.decision, None);
    assert!(context(&next).is_empty());
}

const TWO: &str = r#"
version: 1
hooks:
  - id: quick
    phase: after_assistant
    async: true
    run: { command: "echo '{\"context_items\":[{\"role\":\"user\",\"content\":\"late\"}]}'" }
  - id: slow
    phase: after_assistant
    async: true
    run: { command: "echo $$ > slow.pid; exec sleep 30", timeout: 60s }
"#;

#[tokio::test]
async fn run_end_cancels_the_running_ones_and_drops_what_waits() {
    let fx = Fixture::new();
    let hooks = dispatcher(&fx, TWO);
    let ctx = HookContext::new("run-1");
    let step = hooks
        .fold(&ctx, StepEvent::AfterAssistant { text: "done" })
        .await;
    assert_eq!(step.decision, None);
    // The quick one ends; the slow one has started.
    for _ in 0..100 {
        if !records_of(&fx, "hook", "quick").is_empty() && fx.path("slow.pid").exists() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(records_of(&fx, "hook", "quick").len(), 1);

    let end = StepEvent::RunEnd {
        output: "",
        reason: "other",
    };
    hooks.fold(&ctx, end).await;
    // Returned once both ended, each with its record.
    let slow = records_of(&fx, "hook", "slow");
    assert_eq!(slow.len(), 1, "{slow:?}");
    assert_eq!(slow[0]["status"], "failed");
    assert_eq!(slow[0]["failure_kind"], "cancelled");
    let dropped = records_of(&fx, "context_injection", "quick");
    assert_eq!(dropped.len(), 1, "{dropped:?}");
    assert_eq!(dropped[0]["status"], "dropped");
    let pid = std::fs::read_to_string(fx.path("slow.pid")).expect("the pid file");
    let alive = std::process::Command::new("kill")
        .args(["-0", pid.trim()])
        .stderr(std::process::Stdio::null())
        .status()
        .expect("kill runs");
    assert!(!alive.success(), "the slow hook's process group was killed");
    // Nothing is left for the run.
    let next = hooks
        .fold(&ctx, StepEvent::AfterReasoning { reasoning: "r" })
        .await;
    assert!(context(&next).is_empty());
}

const THREE: &str = r#"
version: 1
hooks:
  - id: one
    phase: after_assistant
    async: true
    run: { command: "ONE" }
  - id: two
    phase: after_assistant
    async: true
    run: { command: "TWO" }
  - id: three
    phase: after_assistant
    async: true
    run: { command: "THREE" }
"#;

fn item(text: &str) -> String {
    format!(r#"{{"context_items":[{{"role":"user","content":"{text}"}}]}}"#)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bounded_in_flight_and_queued() {
    let fx = Fixture::with_limits(HookLimits {
        max_async_hooks: 1,
        max_async_queued: 1,
        ..HookLimits::default()
    });
    let config = THREE
        .replace("ONE", &waits_then("one.done", &item("from one")))
        .replace("TWO", &waits_then("two.done", &item("from two")))
        .replace("THREE", &waits_then("three.done", &item("from three")));
    let hooks = dispatcher(&fx, &config);
    let ctx = HookContext::new("run-1");
    let step = hooks
        .fold(&ctx, StepEvent::AfterAssistant { text: "done" })
        .await;
    assert_eq!(
        message(&step, "one").as_deref(),
        Some("started in the background")
    );
    assert_eq!(
        message(&step, "two").as_deref(),
        Some("queued to run in the background")
    );
    let refused = message(&step, "three").unwrap_or_default();
    assert!(
        refused.starts_with("not run: 1 background hooks run"),
        "{refused}"
    );
    let three = records_of(&fx, "hook", "three");
    assert_eq!(three.len(), 1);
    assert_eq!(three[0]["status"], "refused");
    assert_eq!(three[0]["async"], true);

    go(&fx);
    fx.runtime.wait_background("run-1").await;
    assert!(fx.path("one.done").exists() && fx.path("two.done").exists());
    assert!(!fx.path("three.done").exists(), "never run");
    // One result may wait for delivery: the second is dropped.
    let two = records_of(&fx, "context_injection", "two");
    assert_eq!(two.len(), 1, "{two:?}");
    assert_eq!(two[0]["status"], "dropped");
    let next = hooks
        .fold(&ctx, StepEvent::AfterReasoning { reasoning: "r" })
        .await;
    assert_eq!(context(&next), ["from one"]);
    fx.runtime.end_run("run-1").await;
}

#[tokio::test]
async fn at_most_so_many_deliveries_per_turn() {
    let fx = Fixture::with_limits(HookLimits {
        max_async_deliveries_per_turn: 1,
        ..HookLimits::default()
    });
    let config = THREE
        .replace("ONE", &waits_then("one.done", &item("from one")))
        .replace("TWO", &waits_then("two.done", &item("from two")))
        .replace("THREE", "true");
    let hooks = dispatcher(&fx, &config);
    let ctx = HookContext::new("run-1");
    // The event that starts them takes context: nothing has ended yet.
    let step = hooks
        .fold(&ctx, StepEvent::AfterAssistant { text: "done" })
        .await;
    assert!(context(&step).is_empty());
    go(&fx);
    fx.runtime.wait_background("run-1").await;
    let t0 = hooks
        .fold(&ctx, StepEvent::AfterReasoning { reasoning: "r" })
        .await;
    let first = context(&t0);
    assert_eq!(first.len(), 1, "{first:?}");
    let t0_again = hooks
        .fold(&ctx, StepEvent::AfterReasoning { reasoning: "r" })
        .await;
    assert!(context(&t0_again).is_empty(), "turn 0 had its delivery");
    let t1 = hooks
        .fold(
            &ctx.for_turn(1),
            StepEvent::AfterReasoning { reasoning: "r" },
        )
        .await;
    let second = context(&t1);
    assert_eq!(second.len(), 1, "{second:?}");
    let mut both = [first[0].clone(), second[0].clone()];
    both.sort();
    assert_eq!(both, ["from one", "from two"]);
    fx.runtime.end_run("run-1").await;
}

#[tokio::test]
async fn a_dry_run_never_starts_them() {
    // A dry run never starts them: the record says so.
    let fx = Fixture::new();
    let config = LINT.replace("WAIT", "true");
    let hooks = dispatcher(&fx, &config).dry_run();
    let args = json!({"command": "make"});
    let outcome = hooks
        .fold(&HookContext::new("run-1"), before_tool("bash", "c1", &args))
        .await;
    assert_eq!(outcome.decision, None);
    assert_eq!(records_of(&fx, "hook", "lint")[0]["status"], "refused");
}
