//! The stop-resume cap is the driver's: `HookStack::stop` counts resumes per
//! user turn itself, whatever the agent passes and however often the model
//! turn changes; the payload's `loop_count` is that count; a stop at the
//! cap is `StopDecision::Capped` (never a plain `Stop`), and no stop hook is
//! consulted there.

#[path = "common/hooks.rs"]
mod hooks;

use std::sync::Arc;

use hooks::{Fixture, sh};
use hooks_runtime::{
    Diagnostic, Flow, FnHook, HookContext, HookLimits, HookStack, StepEvent, StopDecision,
};
use hooks_schema::Phase;

/// A shell stop hook that always resumes, with the payload's loop count
/// as its reason (`count N`).
const ECHO_COUNT: &str = r#"n=$(sed -n 's/.*"loop_count":\([0-9]*\).*/\1/p'); echo "{\"decision\":\"resume\",\"reason\":\"count $n\"}""#;

/// Stops like an agent that passes no count of its own and starts a new
/// model turn for every resume: the decisions, until one is not a resume.
async fn stop_until_it_stops(stack: &HookStack, ctx: &HookContext) -> Vec<StopDecision> {
    let mut decisions = Vec::new();
    for model_turn in 0.. {
        let decided = stack.stop(&ctx.for_turn(model_turn), 0, "done").await;
        let resumed = matches!(decided.decision, StopDecision::Resume { .. });
        decisions.push(decided.decision);
        if !resumed || model_turn > 10 {
            return decisions;
        }
    }
    decisions
}

fn resume(reason: &str) -> StopDecision {
    StopDecision::Resume {
        reason: reason.to_owned().into(),
    }
}

#[tokio::test]
async fn the_runtime_counts_resumes_and_the_payload_carries_its_count() {
    let fx = Fixture::with_limits(HookLimits::default());
    let stack = HookStack::new()
        .with("again", fx.hook(sh("again", Phase::Stop, ECHO_COUNT)))
        .with_stop_cap(3);
    let decisions = stop_until_it_stops(&stack, &HookContext::new("run-1")).await;
    assert_eq!(
        decisions,
        [
            resume("count 0"),
            resume("count 1"),
            resume("count 2"),
            StopDecision::Capped {
                reason: "the agent already resumed 3 time(s) in this user turn; the cap is 3: stopping without running the stop hooks".into(),
                cap: 3,
                resumes: 3
            },
        ]
    );
}

#[tokio::test]
async fn a_capped_stop_says_so_in_the_diagnostics_and_consults_no_hook() {
    let stack = HookStack::new()
        .with("quiet", FnHook::new(|_, _| Flow::Continue))
        .with("again", FnHook::new(|_, _| Flow::resume("more")))
        .with_stop_cap(1);
    let ctx = HookContext::new("run-1");
    assert_eq!(stack.stop(&ctx, 0, "done").await.decision, resume("more"));
    let capped = stack.stop(&ctx, 0, "done").await;
    assert_eq!(capped.decision.label(), "capped");
    let stop_capped = |d: &Diagnostic| matches!(d, Diagnostic::StopCapped { cap: 1, resumes: 1 });
    assert!(capped.diagnostics.iter().any(stop_capped));
    // No hook was consulted at the cap: none has a report.
    assert!(capped.reports.is_empty(), "{:?}", capped.reports);
}

#[tokio::test]
async fn a_new_user_turn_starts_a_new_count_and_subagents_count_apart() {
    let stack = HookStack::new()
        .with("again", FnHook::new(|_, _| Flow::resume("more")))
        .with_stop_cap(1);
    let ctx = HookContext::new("run-1");
    for _ in 0..3 {
        stack.user_prompt(&ctx, "next task").await;
        assert_eq!(stack.stop(&ctx, 0, "").await.decision, resume("more"));
        assert_eq!(stack.stop(&ctx, 0, "").await.decision.label(), "capped");
        // Each subagent has its own count, apart from the agent's.
        for agent in ["a1", "a2"] {
            let first = stack.subagent_stop(&ctx, agent, "Explore", 0, "").await;
            assert_eq!(first.decision, resume("more"), "{agent}");
            let second = stack.subagent_stop(&ctx, agent, "Explore", 0, "").await;
            assert_eq!(second.decision.label(), "capped", "{agent}");
        }
    }
}

#[tokio::test]
async fn a_larger_count_from_the_agent_is_honoured() {
    // An agent resuming a recorded session may know of earlier resumes.
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let stack = HookStack::new()
        .with(
            "again",
            FnHook::new(move |_, event| {
                if let StepEvent::Stop { loop_count, .. } = event {
                    log.lock().expect("log").push(loop_count);
                }
                Flow::resume("more")
            }),
        )
        .with_stop_cap(3);
    let ctx = HookContext::new("run-1");
    assert_eq!(stack.stop(&ctx, 2, "").await.decision, resume("more"));
    assert_eq!(stack.stop(&ctx, 0, "").await.decision.label(), "capped");
    // At the cap (3) the hook is not called again.
    assert_eq!(*seen.lock().expect("log"), [2]);
}
