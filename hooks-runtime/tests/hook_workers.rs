//! Persistent hook workers (`run: {worker: true}`): one process serves many
//! requests; every way a request can fail is a named failure under the
//! hook's policy, kills the worker's whole process group and writes one
//! record; the next request restarts the worker, up to the restart limit.
//!
//! The workers are small `sh` loops that answer with the `request_id` of
//! each request line (it comes first, so parameter expansion finds it) and
//! append their pid to `pids` when they start.

#[path = "common/hooks.rs"]
mod hooks;
#[path = "common/proc.rs"]
mod proc;

use std::time::{Duration, Instant};

use hooks::{Fixture, before_tool, sh};
use hooks_runtime::{FailureKind, Flow, HookContext, HookLimits, ShellHookSpec};
use hooks_schema::{FailurePolicy, Phase};
use serde_json::json;

/// The loop head of every worker: record the pid, then per request line set
/// `id` to its `request_id` and `n` to the request's number (1, 2, ...).
const LOOP: &str = r#"echo $$ >> pids; n=0; while IFS= read -r line; do n=$((n+1)); id=${line#*\"request_id\":}; id=${id%%[,\}]*}; "#;

/// A worker spec running `LOOP` then `body`, then `done`.
fn worker(id: &str, body: &str) -> ShellHookSpec {
    let mut spec = sh(id, Phase::BeforeTool, &format!("{LOOP}{body} done"));
    spec.process_mut().expect("a run hook").worker = Some(1);
    spec.failure_policy = FailurePolicy::Block;
    spec.timeout = Duration::from_secs(5);
    spec
}

/// Answers continue to every request.
const ANSWER: &str = r#"printf '{"request_id":%s}\n' "$id";"#;

/// The pids the workers of `fx` were started with, in order.
fn pids(fx: &Fixture) -> Vec<u32> {
    std::fs::read_to_string(fx.path("pids"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.parse().expect("a pid per line"))
        .collect()
}

/// Every process group a worker led is gone (no live member).
fn assert_groups_gone(fx: &Fixture) {
    for pid in pids(fx) {
        let left = proc::wait_group_gone(pid, Duration::from_secs(5));
        assert!(left.is_empty(), "worker group {pid} left {left:?}");
    }
}

/// The records' `failure_kind`s, in order (`None` for a success).
fn failure_kinds(fx: &Fixture) -> Vec<Option<String>> {
    fx.records()
        .iter()
        .map(|r| r["failure_kind"].as_str().map(str::to_owned))
        .collect()
}

/// Runs `n` requests through one hook; returns their invocations.
async fn requests(fx: &Fixture, spec: ShellHookSpec, n: usize) -> Vec<hooks_runtime::Invocation> {
    let hook = fx.hook(spec);
    let ctx = HookContext::new("run-1");
    let args = json!({"command": "ls"});
    let mut out = Vec::new();
    for _ in 0..n {
        out.push(hook.invoke(&ctx, before_tool("bash", "c1", &args)).await);
    }
    out
}

fn failure(inv: &hooks_runtime::Invocation) -> Option<FailureKind> {
    inv.report.failure.as_ref().map(|f| f.kind)
}

#[tokio::test]
async fn one_process_answers_every_request_and_shuts_down() {
    let fx = Fixture::new();
    let body = r#"if [ "$n" = 2 ]; then printf '{"request_id":%s,"decision":"block","reason":"second"}\n' "$id"; else printf '{"request_id":%s}\n' "$id"; fi;"#;
    let invs = requests(&fx, worker("w", body), 3).await;
    assert_eq!(invs[0].flow, Flow::Continue, "{invs:?}");
    assert_eq!(invs[1].flow, Flow::skip("second"));
    assert_eq!(invs[2].flow, Flow::Continue);
    assert_eq!(pids(&fx).len(), 1, "started once");
    assert_eq!(fx.records().len(), 3, "one record per request");
    assert_eq!(fx.runtime.open_workers(), 1);
    let pid = pids(&fx)[0];
    assert_eq!(
        proc::live_group_members(pid).len(),
        1,
        "alive between requests"
    );
    fx.runtime.shutdown_workers().await;
    assert_eq!(fx.runtime.open_workers(), 0);
    assert_groups_gone(&fx);
}

#[tokio::test]
async fn a_crash_mid_request_fails_it_and_the_next_request_restarts_the_worker() {
    let fx = Fixture::new();
    // The second request kills the worker while it handles it.
    let body = r#"if [ "$n" = 2 ]; then kill -9 $$; fi; printf '{"request_id":%s}\n' "$id";"#;
    let invs = requests(&fx, worker("crash", body), 3).await;
    assert_eq!(invs[0].flow, Flow::Continue);
    assert_eq!(
        failure(&invs[1]),
        Some(FailureKind::Signalled),
        "{:?}",
        invs[1]
    );
    // `block` policy on before_tool: the tool is skipped.
    assert!(
        matches!(invs[1].flow, Flow::Skip { .. }),
        "{:?}",
        invs[1].flow
    );
    assert!(
        invs[1]
            .record
            .message
            .as_deref()
            .unwrap_or("")
            .contains("signal 9")
    );
    assert_eq!(invs[2].flow, Flow::Continue, "restarted: {:?}", invs[2]);
    assert_eq!(pids(&fx).len(), 2);
    assert_eq!(
        failure_kinds(&fx),
        [None, Some("signalled".to_owned()), None]
    );
    drop(invs);
    fx.runtime.shutdown_workers().await;
    assert_groups_gone(&fx);
}

#[tokio::test]
async fn a_hang_past_the_deadline_times_out_and_kills_the_group() {
    let fx = Fixture::new();
    // The first request hangs in a child of the worker (same group); the
    // restarted worker answers.
    let body =
        r#"if [ ! -e hung ]; then : > hung; sleep 30; fi; printf '{"request_id":%s}\n' "$id";"#;
    let mut spec = worker("hang", body);
    spec.timeout = Duration::from_millis(300);
    let started = Instant::now();
    let invs = requests(&fx, spec, 2).await;
    assert_eq!(
        failure(&invs[0]),
        Some(FailureKind::TimedOut),
        "{:?}",
        invs[0]
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    let first = pids(&fx)[0];
    assert!(proc::wait_group_gone(first, Duration::from_secs(5)).is_empty());
    assert_eq!(invs[1].flow, Flow::Continue, "restarted: {:?}", invs[1]);
    assert_eq!(failure_kinds(&fx), [Some("timed_out".to_owned()), None]);
    fx.runtime.shutdown_workers().await;
    assert_groups_gone(&fx);
}

#[tokio::test]
async fn a_garbage_line_is_invalid_output() {
    let fx = Fixture::new();
    let mut spec = worker("garbage", r#"echo 'this is not json';"#);
    spec.failure_policy = FailurePolicy::Warn;
    let invs = requests(&fx, spec, 1).await;
    assert_eq!(
        failure(&invs[0]),
        Some(FailureKind::InvalidOutput),
        "{:?}",
        invs[0]
    );
    // `warn`: the tool runs, the failure is a diagnostic.
    assert_eq!(invs[0].flow, Flow::Continue);
    assert!(!invs[0].diagnostics().is_empty());
    assert_eq!(failure_kinds(&fx), [Some("invalid_output".to_owned())]);
    assert_groups_gone(&fx);
    assert_eq!(
        fx.runtime.open_workers(),
        1,
        "the pool stays, its process died"
    );
}

#[tokio::test]
async fn a_response_for_the_wrong_request_is_detected() {
    let fx = Fixture::new();
    let invs = requests(&fx, worker("wrong", r#"printf '{"request_id":999}\n';"#), 1).await;
    assert_eq!(
        failure(&invs[0]),
        Some(FailureKind::InvalidOutput),
        "{:?}",
        invs[0]
    );
    let message = invs[0].record.message.clone().unwrap_or_default();
    assert!(
        message.contains("request 999") && message.contains("request 1 was expected"),
        "{message}"
    );
    assert_groups_gone(&fx);
}

#[tokio::test]
async fn a_line_over_the_cap_is_output_too_large() {
    let fx = Fixture::with_limits(HookLimits {
        stdout_cap: 64,
        ..HookLimits::default()
    });
    let body = r#"printf '{"request_id":%s,"reason":"%0200d"}\n' "$id" 0;"#;
    let invs = requests(&fx, worker("big", body), 1).await;
    assert_eq!(
        failure(&invs[0]),
        Some(FailureKind::OutputTooLarge),
        "{:?}",
        invs[0]
    );
    assert_groups_gone(&fx);
}

#[tokio::test]
async fn a_worker_that_exits_at_start_is_restarted_up_to_the_limit() {
    let fx = Fixture::build(HookLimits::default(), |rt| rt.with_worker_restart_limit(2));
    let mut spec = sh("dead", Phase::BeforeTool, "echo $$ >> pids; exit 3");
    spec.process_mut().expect("a run hook").worker = Some(1);
    spec.failure_policy = FailurePolicy::Block;
    let invs = requests(&fx, spec, 4).await;
    for inv in &invs[..3] {
        assert_eq!(failure(inv), Some(FailureKind::NonzeroExit), "{inv:?}");
        assert!(
            inv.record
                .message
                .as_deref()
                .unwrap_or("")
                .contains("code 3")
        );
        assert!(matches!(inv.flow, Flow::Skip { .. }));
    }
    // The first start and two restarts; then no more starts.
    assert_eq!(
        failure(&invs[3]),
        Some(FailureKind::SpawnFailed),
        "{:?}",
        invs[3]
    );
    assert!(
        invs[3]
            .record
            .message
            .as_deref()
            .unwrap_or("")
            .contains("not restarting")
    );
    assert_eq!(pids(&fx).len(), 3);
    assert_eq!(fx.records().len(), 4, "one record per request");
    assert_groups_gone(&fx);
}

#[tokio::test]
async fn cancellation_while_busy_kills_the_worker_at_once() {
    let cancel = hooks_runtime::CancellationToken::new();
    let token = cancel.clone();
    let fx = Fixture::build(HookLimits::default(), move |rt| rt.with_cancel(token));
    let spec = worker("busy", "sleep 30;");
    let hook = fx.hook(spec);
    let ctx = HookContext::new("run-1");
    let args = json!({"command": "ls"});
    let request = hook.invoke(&ctx, before_tool("bash", "c1", &args));
    let canceller = async {
        // Cancel once the worker has started and is busy.
        while pids(&fx).is_empty() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        cancel.cancel();
    };
    let started = Instant::now();
    let (inv, ()) = tokio::join!(request, canceller);
    assert_eq!(failure(&inv), Some(FailureKind::Cancelled), "{inv:?}");
    assert!(started.elapsed() < Duration::from_secs(4));
    assert_eq!(failure_kinds(&fx), [Some("cancelled".to_owned())]);
    assert_groups_gone(&fx);
    // Later requests fail as cancelled without starting anything.
    let later = hook.invoke(&ctx, before_tool("bash", "c2", &args)).await;
    assert_eq!(failure(&later), Some(FailureKind::Cancelled));
    assert_eq!(pids(&fx).len(), 1);
}

#[tokio::test]
async fn an_idle_worker_dies_with_its_runtime_and_on_cancellation() {
    let cancel = hooks_runtime::CancellationToken::new();
    let token = cancel.clone();
    let fx = Fixture::build(HookLimits::default(), move |rt| rt.with_cancel(token));
    let invs = requests(&fx, worker("idle", ANSWER), 1).await;
    assert_eq!(invs[0].flow, Flow::Continue);
    let pid = pids(&fx)[0];
    assert_eq!(proc::live_group_members(pid).len(), 1);
    cancel.cancel();
    // The runtime's task kills it: let it run while waiting.
    let end = Instant::now() + Duration::from_secs(5);
    while !proc::live_group_members(pid).is_empty() && Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        proc::live_group_members(pid).is_empty(),
        "killed on cancellation"
    );

    let fx = Fixture::new();
    requests(&fx, worker("dropped", ANSWER), 1).await;
    let pid = pids(&fx)[0];
    let Fixture { dir, runtime } = fx;
    drop(runtime);
    assert!(proc::wait_group_gone(pid, Duration::from_secs(5)).is_empty());
    drop(dir);
}

#[tokio::test]
async fn a_pool_serves_requests_concurrently() {
    let fx = Fixture::new();
    let mut spec = worker("pool", &format!("sleep 0.3; {ANSWER}"));
    spec.process_mut().expect("a run hook").worker = Some(2);
    let hook = fx.hook(spec);
    let ctx = HookContext::new("run-1");
    let args = json!({"command": "ls"});
    let started = Instant::now();
    let (a, b) = tokio::join!(
        hook.invoke(&ctx, before_tool("bash", "c1", &args)),
        hook.invoke(&ctx, before_tool("bash", "c2", &args)),
    );
    assert_eq!((a.flow, b.flow), (Flow::Continue, Flow::Continue));
    assert!(
        started.elapsed() < Duration::from_millis(550),
        "two processes, not one after the other: {:?}",
        started.elapsed()
    );
    assert_eq!(pids(&fx).len(), 2);
    fx.runtime.shutdown_workers().await;
    assert_groups_gone(&fx);
}

/// The restart limit counts per window, not per lifetime: a worker that
/// crashes on every fifth request (each crash a window after the previous
/// restart: the worker sleeps past the window first) is restarted every
/// time, far past the limit, and serves every other request.
#[tokio::test]
async fn a_worker_failing_now_and_then_keeps_being_restarted() {
    const K: usize = 5;
    let fx = Fixture::build(HookLimits::default(), |rt| {
        rt.with_worker_restart_limit(1)
            .with_worker_restart_window(Duration::from_millis(100))
    });
    let body = format!(r#"if [ "$n" = {K} ]; then sleep 0.3; kill -9 $$; fi; {ANSWER}"#);
    let n = 4 * K + 2;
    let invs = requests(&fx, worker("flaky", &body), n).await;
    for (i, inv) in invs.iter().enumerate() {
        if (i + 1) % K == 0 {
            assert_eq!(failure(inv), Some(FailureKind::Signalled), "{i}: {inv:?}");
        } else {
            assert_eq!(inv.flow, Flow::Continue, "request {i}: {inv:?}");
        }
    }
    assert_eq!(pids(&fx).len(), 1 + (n - 1) / K, "one restart per crash");
    drop(invs);
    fx.runtime.shutdown_workers().await;
    assert_groups_gone(&fx);
}

/// A worker that exits (code 0) while idle is replaced before the next
/// request is sent: the request is served, no failure is recorded, and the
/// replacement does not use the restart budget (here 0).
#[tokio::test]
async fn a_worker_that_exits_while_idle_serves_the_next_request() {
    let fx = Fixture::build(HookLimits::default(), |rt| rt.with_worker_restart_limit(0));
    // Only the first process exits (after its first answer).
    let body = format!(r#"{ANSWER} if [ ! -e exited ]; then : > exited; exit 0; fi;"#);
    let hook = fx.hook(worker("idle-exit", &body));
    let ctx = HookContext::new("run-1");
    let args = json!({"command": "ls"});
    let first = hook.invoke(&ctx, before_tool("bash", "c1", &args)).await;
    assert_eq!(first.flow, Flow::Continue, "{first:?}");
    // Wait until the first process has exited (it answered, then ended).
    let first_pid = pids(&fx)[0];
    let left = proc::wait_group_gone(first_pid, Duration::from_secs(5));
    assert!(left.is_empty(), "the worker did not exit: {left:?}");
    for i in 0..3 {
        let inv = hook.invoke(&ctx, before_tool("bash", "c1", &args)).await;
        assert_eq!(inv.flow, Flow::Continue, "request {i}: {inv:?}");
        assert_eq!(failure(&inv), None, "request {i}: {inv:?}");
    }
    assert_eq!(
        pids(&fx).len(),
        2,
        "restarted once, before the second request"
    );
    assert_eq!(failure_kinds(&fx), [None, None, None, None]);
    fx.runtime.shutdown_workers().await;
    assert_groups_gone(&fx);
}

/// Whether a worker's script exists is checked before its process starts,
/// not before every request: a missing script fails the request as
/// `spawn_failed` naming it, starts nothing and costs no restart (here 0);
/// once it exists the worker starts, and a running worker keeps serving
/// after its file is removed (it does not open it again).
#[tokio::test]
async fn a_worker_whose_script_is_missing_starts_once_it_exists() {
    let fx = Fixture::build(HookLimits::default(), |rt| rt.with_worker_restart_limit(0));
    let mut spec = hooks::exec("missing", Phase::BeforeTool, &["sh", "w.sh"]);
    spec.process_mut().expect("a run hook").worker = Some(1);
    spec.failure_policy = FailurePolicy::Block;
    let hook = fx.hook(spec);
    let ctx = HookContext::new("run-1");
    let args = json!({"command": "ls"});
    let refused = hook.invoke(&ctx, before_tool("bash", "c1", &args)).await;
    assert_eq!(
        failure(&refused),
        Some(FailureKind::SpawnFailed),
        "{refused:?}"
    );
    let message = refused.record.message.as_deref().unwrap_or("");
    assert!(
        message.contains("`w.sh`") && message.contains("does not exist"),
        "{message}"
    );
    assert!(pids(&fx).is_empty(), "nothing started");
    std::fs::write(fx.path("w.sh"), format!("{LOOP}{ANSWER} done")).expect("script");
    for i in 0..2 {
        let inv = hook.invoke(&ctx, before_tool("bash", "c1", &args)).await;
        assert_eq!(failure(&inv), None, "request {i}: {inv:?}");
        std::fs::remove_file(fx.path("w.sh")).ok();
    }
    assert_eq!(pids(&fx).len(), 1, "one process served both");
    fx.runtime.shutdown_workers().await;
    assert_groups_gone(&fx);
}
