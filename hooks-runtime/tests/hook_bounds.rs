//! Bounds on hooks (docs/security.md, "Bounds under hostile input"): how many hooks run at once, per
//! event and per runtime (the rest queue, their timeout counted from the
//! call), and the memory cap of each hook process (one-shot and workers).
//!
//! Concurrency is observed through marker files: each hook adds its own to
//! `live/` while it runs and appends how many it saw there; a hook removes
//! its marker before it exits, and its slot is given back only after that,
//! so no count can exceed the limit when the limit holds.

#[path = "common/hooks.rs"]
mod hooks;
#[path = "common/proc.rs"]
mod proc;

use std::time::{Duration, Instant};

use hooks::{Fixture, before_tool, exec, sh};
use hooks_runtime::{
    FailureKind, Flow, HookContext, HookLimits, Invocation, ShellHookSpec, StepEvent,
    run_shell_hooks,
};
use hooks_schema::{FailurePolicy, Phase};
use serde_json::json;

/// A hook of `after_assistant` that marks itself live for `secs` seconds
/// and appends the number of live hooks it saw to `counts`.
fn marker(id: &str, secs: &str) -> ShellHookSpec {
    sh(
        id,
        Phase::AfterAssistant,
        &format!(
            "mkdir -p live; : > live/{id}; ls live | wc -l >> counts; sleep {secs}; rm live/{id}"
        ),
    )
}

/// The counts the marker hooks of `fx` appended.
fn counts(fx: &Fixture) -> Vec<usize> {
    std::fs::read_to_string(fx.path("counts"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().parse().expect("a count per line"))
        .collect()
}

fn limits(per_runtime: usize, per_event: usize) -> HookLimits {
    HookLimits {
        max_concurrent_hooks: per_runtime,
        max_concurrent_hooks_per_event: per_event,
        ..HookLimits::default()
    }
}

fn failure(inv: &Invocation) -> Option<FailureKind> {
    inv.report.failure.as_ref().map(|f| f.kind)
}

const EVENT: StepEvent<'static> = StepEvent::AfterAssistant { text: "done" };

#[tokio::test]
async fn hooks_of_one_event_run_at_most_the_per_event_limit_at_once() {
    let fx = Fixture::with_limits(limits(32, 2));
    let hooks: Vec<_> = (0..6)
        .map(|i| fx.hook(marker(&format!("h{i}"), "0.3")))
        .collect();
    let ctx = HookContext::new("run-1");
    let started = Instant::now();
    let out = run_shell_hooks(&hooks, &ctx, EVENT).await;
    let elapsed = started.elapsed();
    assert!(out.iter().all(|i| failure(i).is_none()), "{out:#?}");
    let counts = counts(&fx);
    assert_eq!(counts.len(), 6, "every hook ran: {counts:?}");
    assert!(
        counts.iter().all(|&n| (1..=2).contains(&n)),
        "at most 2 at once: {counts:?}"
    );
    // Three rounds of 0.3 s at least; all six at once would take one.
    assert!(elapsed >= Duration::from_millis(850), "{elapsed:?}");
}

#[tokio::test]
async fn hooks_of_several_events_share_the_runtime_limit() {
    let fx = Fixture::with_limits(limits(2, 8));
    let batch = |tag: &str| -> Vec<_> {
        (0..3)
            .map(|i| fx.hook(marker(&format!("{tag}{i}"), "0.3")))
            .collect()
    };
    let (first, second) = (batch("a"), batch("b"));
    let ctx = HookContext::new("run-1");
    let (a, b) = tokio::join!(
        run_shell_hooks(&first, &ctx, EVENT),
        run_shell_hooks(&second, &ctx, EVENT)
    );
    assert!(a.iter().chain(&b).all(|i| failure(i).is_none()));
    let counts = counts(&fx);
    assert_eq!(counts.len(), 6, "{counts:?}");
    assert!(
        counts.iter().all(|&n| (1..=2).contains(&n)),
        "at most 2 at once over both events: {counts:?}"
    );
}

#[tokio::test]
async fn a_hook_queued_past_its_timeout_is_timed_out_unrun_with_a_record() {
    let fx = Fixture::with_limits(limits(32, 1));
    let slow = sh("slow", Phase::AfterAssistant, "sleep 1.5");
    let mut queued = sh("queued", Phase::AfterAssistant, ": > queued_ran");
    // Its timeout runs out while `slow` holds the event's one slot.
    queued.timeout = Duration::from_millis(400);
    queued.failure_policy = FailurePolicy::Warn;
    let hooks = [fx.hook(slow), fx.hook(queued)];
    let ctx = HookContext::new("run-1");
    let started = Instant::now();
    let out = run_shell_hooks(&hooks, &ctx, EVENT).await;
    assert_eq!(failure(&out[0]), None, "{:?}", out[0].report);
    assert_eq!(failure(&out[1]), Some(FailureKind::TimedOut));
    assert_eq!(out[1].flow, Flow::Continue, "warn: the event goes on");
    assert!(!fx.path("queued_ran").exists(), "the queued hook never ran");
    let queued_ms = out[1].report.elapsed.as_millis();
    assert!(
        (350..1400).contains(&queued_ms),
        "timed out about its timeout after the call, not after the slow hook: {queued_ms} ms"
    );
    assert!(started.elapsed() >= Duration::from_millis(1400));
    let records = fx.records();
    let record = records
        .iter()
        .find(|r| r["hook_id"] == "queued")
        .expect("the queued hook's record");
    assert_eq!(record["failure_kind"], "timed_out", "{record}");
    let message = record["message"].as_str().unwrap_or_default();
    assert!(message.contains("waited for a slot"), "{message}");
}

/// 64 MiB: room for `sh` and Python, not for 400 MiB.
const MEMORY: u64 = 64 << 20;

fn memory_limit() -> HookLimits {
    HookLimits {
        memory_bytes: Some(MEMORY),
        ..HookLimits::default()
    }
}

#[tokio::test]
async fn a_hook_over_the_memory_limit_fails_and_one_under_it_passes() {
    let fx = Fixture::with_limits(memory_limit());
    let args = json!({"command": "ls"});
    let event = before_tool("bash", "c1", &args);
    let mut big = exec(
        "big",
        Phase::BeforeTool,
        &["python3", "-c", "b = bytearray(400 << 20)"],
    );
    big.failure_policy = FailurePolicy::Block;
    let out = fx.invoke(big, event).await;
    assert_eq!(failure(&out), Some(FailureKind::NonzeroExit), "{out:#?}");
    assert!(
        matches!(out.flow, Flow::Skip { .. }),
        "block: {:?}",
        out.flow
    );
    let message = out.record.message.clone().unwrap_or_default();
    assert!(message.contains("max_hook_memory_bytes"), "{message}");
    // The shell form is capped too, and what it starts inherits the cap.
    let shell = sh(
        "big_sh",
        Phase::BeforeTool,
        "python3 -c 'b = bytearray(400 << 20)'",
    );
    let out = fx.invoke(shell, event).await;
    assert_eq!(failure(&out), Some(FailureKind::NonzeroExit), "{out:#?}");
    let small = sh(
        "small",
        Phase::BeforeTool,
        "python3 -c 'b = bytearray(8 << 20)'",
    );
    let out = fx.invoke(small, event).await;
    assert_eq!(failure(&out), None, "{out:#?}");
    assert_eq!(out.flow, Flow::Continue);
    // Without a cap the big one passes: the failure above is the cap's.
    let free = Fixture::new();
    let big = exec(
        "big",
        Phase::BeforeTool,
        &["python3", "-c", "b = bytearray(400 << 20)"],
    );
    assert_eq!(failure(&free.invoke(big, event).await), None);
}

/// A Python worker that keeps 20 MiB more per request and appends its pid
/// to `pids` when it starts.
const LEAKY_WORKER: &str = r#"
import json, os, sys
with open("pids", "a") as f:
    f.write(f"{os.getpid()}\n")
kept = []
for line in sys.stdin:
    request = json.loads(line)
    kept.append(bytearray(20 << 20))
    print(json.dumps({"request_id": request["request_id"]}), flush=True)
"#;

#[tokio::test]
async fn a_worker_over_the_memory_limit_is_restarted_with_a_record() {
    let fx = Fixture::with_limits(memory_limit());
    let mut spec = exec("leaky", Phase::BeforeTool, &["python3", "-c", LEAKY_WORKER]);
    spec.process_mut().expect("a run hook").worker = Some(1);
    spec.failure_policy = FailurePolicy::Warn;
    let hook = fx.hook(spec);
    let ctx = HookContext::new("run-1");
    let args = json!({"command": "ls"});
    let mut out = Vec::new();
    for i in 0..8 {
        let call = format!("c{i}");
        out.push(hook.invoke(&ctx, before_tool("bash", &call, &args)).await);
    }
    fx.runtime.shutdown_workers().await;
    let kinds: Vec<_> = out.iter().map(failure).collect();
    let first = kinds
        .iter()
        .position(Option::is_some)
        .unwrap_or_else(|| panic!("a request hit the cap: {kinds:?}"));
    assert_eq!(kinds[first], Some(FailureKind::NonzeroExit), "{kinds:?}");
    assert!(
        (1..4).contains(&first),
        "the cap is hit after a few requests: {kinds:?}"
    );
    assert_eq!(
        kinds[first + 1],
        None,
        "the next request goes to a new process"
    );
    let records = fx.records();
    let message = records[first]["message"].as_str().unwrap_or_default();
    assert_eq!(records[first]["failure_kind"], "nonzero_exit");
    assert!(
        message.contains("max_hook_memory_bytes") && message.contains("restarted"),
        "{message}"
    );
    let pids: Vec<u32> = std::fs::read_to_string(fx.path("pids"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.parse().expect("a pid per line"))
        .collect();
    assert!(pids.len() >= 2, "restarted: {pids:?}");
    for pid in pids {
        let left = proc::wait_group_gone(pid, Duration::from_secs(5));
        assert!(left.is_empty(), "worker group {pid} left {left:?}");
    }
}

#[tokio::test]
async fn a_configs_per_event_limit_bounds_its_tables_observe_only_pass() {
    use std::fmt::Write as _;
    let mut config =
        String::from("version: 1\nlimits:\n  max_concurrent_hooks_per_event: 2\nhooks:\n");
    for i in 0..6 {
        let command = format!(
            "mkdir -p live; : > live/r{i}; ls live | wc -l >> counts; sleep 0.3; rm live/r{i}"
        );
        write!(
            config,
            "  - id: r{i}\n    phase: after_assistant\n    run: {{ command: '{command}' }}\n"
        )
        .expect("a string takes writes");
    }
    let table = hooks_runtime::Table::load_str(&config, "bounds.yaml").expect("the config loads");
    let fx = Fixture::build(table.hook_limits(), |rt| rt);
    assert_eq!(fx.runtime.limits().max_concurrent_hooks_per_event, 2);
    let dispatcher =
        hooks_runtime::Dispatcher::new(hooks_runtime::TableRef::Shared(std::sync::Arc::new(table)))
            .with_shell(std::sync::Arc::clone(&fx.runtime));
    let outcome = dispatcher.fold(&HookContext::new("run-1"), EVENT).await;
    assert_eq!(outcome.reports.len(), 6, "{outcome:#?}");
    assert!(
        outcome.reports.iter().all(|r| r.failure.is_none()),
        "{outcome:#?}"
    );
    let counts = counts(&fx);
    assert_eq!(counts.len(), 6, "{counts:?}");
    assert!(
        counts.iter().all(|&n| (1..=2).contains(&n)),
        "at most 2 at once: {counts:?}"
    );
}

#[tokio::test]
async fn three_hundred_hooks_of_one_event_run_at_most_the_default_at_once() {
    let fx = Fixture::new();
    let per_event = HookLimits::default().max_concurrent_hooks_per_event;
    let hooks: Vec<_> = (0..300)
        .map(|i| {
            let mut spec = marker(&format!("h{i}"), "0");
            // Queued behind the others: room for a slow machine.
            spec.timeout = Duration::from_secs(120);
            fx.hook(spec)
        })
        .collect();
    let ctx = HookContext::new("run-1");
    let started = Instant::now();
    let out = run_shell_hooks(&hooks, &ctx, EVENT).await;
    let elapsed = started.elapsed();
    let failed: Vec<_> = out.iter().filter_map(failure).collect();
    assert!(failed.is_empty(), "no spawn failure: {failed:?}");
    let counts = counts(&fx);
    assert_eq!(counts.len(), 300);
    let most = counts.iter().copied().max().unwrap_or_default();
    assert!((1..=per_event).contains(&most), "most at once: {most}");
    eprintln!("300 hooks: at most {most} at once, {elapsed:?}");
}
