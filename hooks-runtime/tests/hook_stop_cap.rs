//! The stop-phase resume cap per turn, with a numeric loop count in the
//! payload.

#[path = "common/hooks.rs"]
mod hooks;

use hooks::{Fixture, script, sh};
use hooks_runtime::{Flow, HookContext, HookLimits, RecordStatus, StepEvent};
use hooks_schema::Phase;

/// Drives stop events like an agent loop would: resume while a hook asks to.
async fn stop_loop(
    hook: &hooks_runtime::ShellHook,
    ctx: &HookContext,
    agent_counts: bool,
) -> Vec<Flow> {
    let mut flows = Vec::new();
    let mut resumes = 0u32;
    loop {
        let loop_count = if agent_counts { resumes } else { 0 };
        let inv = hook
            .invoke(
                ctx,
                StepEvent::Stop {
                    loop_count,
                    text: "all done",
                },
            )
            .await;
        let flow = inv.flow.clone();
        flows.push(flow.clone());
        if !matches!(flow, Flow::Resume { .. }) {
            assert_eq!(inv.record.status, RecordStatus::Refused);
            // The refusal is the call's own: its verdict and one diagnostic.
            assert_eq!(
                inv.report.verdict,
                hooks_runtime::Verdict::Refused(hooks_runtime::FlowKind::Resume)
            );
            assert_eq!(inv.diagnostics().len(), 1, "{:?}", inv.diagnostics());
            return flows;
        }
        resumes += 1;
        assert!(resumes < 20, "the cap never hit");
    }
}

#[tokio::test]
async fn a_stop_hook_that_always_resumes_is_honoured_n_times_then_refused() {
    let fx = Fixture::with_limits(HookLimits {
        max_stop_resumes: 3,
        ..Default::default()
    });
    let log = fx.path("loops.txt");
    let spec = sh(
        "again",
        Phase::Stop,
        &format!("sh {} {}", script("native_resume.sh"), log.display()),
    );
    let hook = fx.hook(spec);
    let ctx = HookContext::new("run-1");
    for agent_counts in [true, false] {
        std::fs::write(&log, "").unwrap();
        let turn_ctx = ctx.for_turn(if agent_counts { 1 } else { 2 });
        let flows = stop_loop(&hook, &turn_ctx, agent_counts).await;
        assert_eq!(
            flows,
            vec![
                Flow::resume("keep going"),
                Flow::resume("keep going"),
                Flow::resume("keep going"),
                Flow::Continue,
            ],
            "agent_counts = {agent_counts}"
        );
        // The payload's loop_count increments, even when the agent does not count.
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "0\n1\n2\n3\n");
    }
    let refused: Vec<_> = fx
        .records()
        .into_iter()
        .filter(|r| r["status"] == "refused")
        .collect();
    assert_eq!(refused.len(), 2);
    assert!(
        refused[0]["message"]
            .as_str()
            .unwrap()
            .contains("cap of 3 per turn")
    );
}

#[tokio::test]
async fn a_new_turn_starts_a_new_count() {
    let fx = Fixture::with_limits(HookLimits {
        max_stop_resumes: 1,
        ..Default::default()
    });
    let spec = sh(
        "again",
        Phase::Stop,
        r#"echo '{"decision":"resume","reason":"more"}'"#,
    );
    let hook = fx.hook(spec);
    let ctx = HookContext::new("run-1");
    let stop = StepEvent::Stop {
        loop_count: 0,
        text: "",
    };
    for turn in 0..3 {
        let ctx = ctx.for_turn(turn);
        let first = hook.invoke(&ctx, stop).await;
        assert_eq!(first.flow, Flow::resume("more"), "turn {turn}");
        let second = hook.invoke(&ctx, stop).await;
        assert_eq!(second.flow, Flow::Continue, "turn {turn}");
    }
}
