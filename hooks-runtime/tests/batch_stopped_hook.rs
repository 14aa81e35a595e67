//! Eight shell hooks with a 1 s timeout on an observe-only event,
//! one of which stops itself with SIGSTOP. The batch resolves in time, the
//! stopped hook is `timed_out` under its `warn` policy, and the other seven
//! merge normally, in declared order.

#[path = "common/hooks.rs"]
mod hooks;
#[path = "common/proc.rs"]
mod proc;

use std::time::{Duration, Instant};

use hooks::{Fixture, sh};
use hooks_runtime::{Flow, HookContext, StepEvent, run_shell_hooks};
use hooks_schema::{FailurePolicy, Phase};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_hook_times_out_and_the_other_seven_merge_in_order() {
    let fx = Fixture::new();
    assert!(!Phase::AfterAssistant.is_mutating());
    let hooks: Vec<_> = (0..8)
        .map(|i| {
            let command = if i == 3 {
                "kill -STOP $$; echo never".to_owned()
            } else {
                // Later hooks finish first, so finish order != declared order.
                format!(
                    r#"sleep 0.{d}; echo '{{"context_items":[{{"role":"user","content":"hook {i}"}}]}}'"#,
                    d = 8 - i
                )
            };
            let mut spec = sh(&format!("h{i}"), Phase::AfterAssistant, &command);
            spec.timeout = Duration::from_secs(1);
            spec.failure_policy = FailurePolicy::Warn;
            fx.hook(spec)
        })
        .collect();
    let children_before = proc::own_children().len();
    let ctx = HookContext::new("run-stopped");
    let started = Instant::now();
    let out = run_shell_hooks(&hooks, &ctx, StepEvent::AfterAssistant { text: "done" }).await;
    let elapsed = started.elapsed();

    // Timeout 1 s + kill grace + reaping; generous guard against a hang only.
    assert!(elapsed < Duration::from_secs(5), "batch took {elapsed:?}");
    assert_eq!(out.len(), 8);
    for (i, inv) in out.iter().enumerate() {
        assert_eq!(inv.record.hook_id, format!("h{i}"));
        if i == 3 {
            assert_eq!(inv.flow, Flow::Continue, "warn policy continues");
            assert_eq!(inv.record.failure_kind, Some("timed_out"));
            assert!(!inv.diagnostics().is_empty(), "warn emits a diagnostic");
        } else {
            assert_eq!(inv.flow, Flow::inject(format!("hook {i}")));
            assert_eq!(inv.record.failure_kind, None);
        }
    }
    let left = proc::wait_children_at_most(children_before, Duration::from_secs(2));
    assert_eq!(left.len(), children_before, "every hook reaped: {left:?}");
}
