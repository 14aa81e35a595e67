//! A `policy` hook's evaluation has the hook's timeout as its deadline: a
//! policy over its budget is `timed_out` under the hook's failure policy,
//! and evaluating it does not hold the async runtime, so the other hooks
//! of the event keep their own deadlines.

#![cfg(feature = "policy")]

#[path = "common/hooks.rs"]
mod hooks;

use std::time::{Duration, Instant};

use hooks::{Fixture, before_tool, sh};
use hooks_runtime::{
    FailureKind, Flow, HookContext, RegoPolicy, ShellHookSpec, StepEvent, run_shell_hooks,
};
use hooks_schema::Phase;
use serde_json::json;

/// A policy whose value takes N² steps: seconds to minutes at this `n`.
const QUADRATIC: &str = "package slow\n\
    n := 3000\n\
    decision := {\"decision\": \"block\", \"reason\": sprintf(\"%d pairs\", [count([1 | some i in numbers.range(1, n); some j in numbers.range(1, n)])])}\n";

fn slow_policy(id: &str, phase: Phase, timeout: Duration) -> ShellHookSpec {
    let policy = RegoPolicy::new("data.slow.decision", [("slow.rego", QUADRATIC)]);
    let mut spec = ShellHookSpec::policy(id, phase, policy);
    spec.timeout = timeout;
    spec
}

#[tokio::test]
async fn a_policy_over_its_timeout_is_timed_out_under_the_failure_policy() {
    let fx = Fixture::new();
    let spec = slow_policy("slow", Phase::BeforeTool, Duration::from_millis(300));
    let args = json!({"command": "ls"});
    let started = Instant::now();
    let inv = fx.invoke(spec, before_tool("bash", "c1", &args)).await;
    let spent = started.elapsed();
    let failure = inv.report.failure.as_ref().expect("a failure");
    assert_eq!(failure.kind, FailureKind::TimedOut, "{inv:?}");
    // `block` is `before_tool`'s default failure policy.
    assert!(matches!(inv.flow, Flow::Skip { .. }), "{inv:?}");
    assert_eq!(inv.record.failure_kind, Some("timed_out"));
    // Generous: the deadline is 300 ms; unbounded, this policy runs for
    // tens of seconds.
    assert!(spent < Duration::from_secs(5), "{spent:?}");
}

#[tokio::test]
async fn a_policy_over_its_timeout_holds_no_other_hook_past_its_own() {
    let fx = Fixture::new();
    let policy = fx.hook(slow_policy("slow", Phase::RunStart, Duration::from_secs(3)));
    let mut sleeper = sh("sleeper", Phase::RunStart, "sleep 5");
    sleeper.timeout = Duration::from_millis(200);
    let sleeper = fx.hook(sleeper);
    let ctx = HookContext::new("run-1");
    // A current-thread runtime (`tokio::test`): a policy evaluated on it
    // would keep the sleeper's deadline from firing until it ends.
    let ran = run_shell_hooks(&[policy, sleeper], &ctx, StepEvent::RUN_START).await;
    let (policy, sleeper) = (&ran[0], &ran[1]);
    let kind = |inv: &hooks_runtime::Invocation| inv.report.failure.as_ref().map(|f| f.kind);
    assert_eq!(kind(policy), Some(FailureKind::TimedOut), "{policy:?}");
    assert_eq!(kind(sleeper), Some(FailureKind::TimedOut), "{sleeper:?}");
    // The sleeper ended at its own 200 ms deadline (and its kill grace),
    // not at the policy's 3 s.
    assert!(
        sleeper.report.elapsed < Duration::from_millis(2_000),
        "{:?}",
        sleeper.report.elapsed
    );
    assert!(
        policy.report.elapsed < Duration::from_secs(8),
        "{:?}",
        policy.report.elapsed
    );
}
