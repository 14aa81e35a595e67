//! Failure kinds and failure policies of shell hooks.

#[path = "common/hooks.rs"]
mod hooks;

use hooks::{Fixture, before_tool, exec, sh};
use hooks_runtime::{FailureKind, Flow, FlowKind, HookContext, RecordStatus, StepEvent};
use hooks_schema::{FailurePolicy, Phase};
use serde_json::json;

/// Runs `spec` once on a `before_tool` event of `bash` running `git push`.
async fn on_git_push(
    fx: &Fixture,
    spec: hooks_runtime::ShellHookSpec,
) -> hooks_runtime::Invocation {
    let args = json!({"command": "git push"});
    fx.invoke(spec, before_tool("bash", "c1", &args)).await
}

#[tokio::test]
async fn a_missing_guard_under_block_skips_the_tool() {
    let fx = Fixture::new();
    for spec in [
        exec("guard", Phase::BeforeTool, &["/nonexistent/guard.sh"]),
        sh("guard", Phase::BeforeTool, "/nonexistent/guard.sh"),
    ] {
        let mut spec = spec;
        spec.failure_policy = FailurePolicy::Block;
        let inv = on_git_push(&fx, spec).await;
        assert_eq!(inv.flow.kind(), FlowKind::Skip, "{inv:?}");
        let Flow::Skip { reason } = &inv.flow else {
            unreachable!()
        };
        assert!(
            reason.contains("`guard`") && reason.contains("spawn_failed"),
            "{reason}"
        );
        assert_eq!(inv.record.status, RecordStatus::Failed);
        assert_eq!(inv.record.failure_kind, Some("spawn_failed"));
    }
    let records = fx.records();
    assert_eq!(records.len(), 2);
    for r in &records {
        assert_eq!(r["failure_kind"], "spawn_failed");
        assert_eq!(r["policy"], "block");
        assert_eq!(r["status"], "failed");
        assert_eq!(r["decision"], "skip");
        assert_eq!(r["tool"], "bash");
        assert_eq!(r["phase"], "before_tool");
        assert_eq!(r["target_ran"], false);
        assert!(r["elapsed_ms"].is_u64());
    }
}

#[tokio::test]
async fn a_missing_guard_under_warn_continues_with_a_diagnostic() {
    let fx = Fixture::new();
    let mut spec = exec("guard", Phase::BeforeTool, &["/nonexistent/guard.sh"]);
    spec.failure_policy = FailurePolicy::Warn;
    let inv = on_git_push(&fx, spec).await;
    assert_eq!(inv.flow, Flow::Continue);
    assert_eq!(inv.record.failure_kind, Some("spawn_failed"));
    assert_eq!(inv.diagnostics().len(), 1, "{:?}", inv.diagnostics());
    assert!(inv.diagnostics()[0].contains("hook `guard` failed on `before_tool` (spawn_failed"));
    assert!(inv.diagnostics()[0].contains("failure_policy `warn`"));
    assert_eq!(
        inv.report.failure.map(|f| (f.kind, f.policy)),
        Some((FailureKind::SpawnFailed, FailurePolicy::Warn))
    );
}

#[tokio::test]
async fn ignore_continues_silently_and_fail_terminates() {
    let fx = Fixture::new();
    let mut spec = sh("g", Phase::BeforeTool, "exit 1");
    spec.failure_policy = FailurePolicy::Ignore;
    let inv = on_git_push(&fx, spec).await;
    assert_eq!(inv.flow, Flow::Continue);
    assert!(inv.diagnostics().is_empty());
    assert_eq!(inv.record.failure_kind, Some("nonzero_exit"));
    let mut spec = sh("g", Phase::BeforeTool, "exit 1");
    spec.failure_policy = FailurePolicy::Fail;
    let inv = on_git_push(&fx, spec).await;
    assert_eq!(inv.flow.kind(), FlowKind::Terminate);
}

#[tokio::test]
async fn exit_2_is_an_explicit_deny_with_stderr_as_the_reason_whatever_the_policy() {
    let fx = Fixture::new();
    for policy in [
        FailurePolicy::Ignore,
        FailurePolicy::Warn,
        FailurePolicy::Block,
    ] {
        let mut spec = sh(
            "deny",
            Phase::BeforeTool,
            "echo 'pushing is not allowed on Fridays' >&2; echo '{\"ignored\":1}'; exit 2",
        );
        spec.failure_policy = policy;
        let inv = on_git_push(&fx, spec).await;
        assert_eq!(inv.flow, Flow::skip("pushing is not allowed on Fridays"));
        assert_eq!(inv.record.status, RecordStatus::Decision);
        assert_eq!(inv.record.failure_kind, None);
        assert!(inv.diagnostics().is_empty());
    }
}

#[tokio::test]
async fn a_sigsegv_is_signalled_never_success() {
    let fx = Fixture::new();
    for policy in [FailurePolicy::Warn, FailurePolicy::Block] {
        let mut spec = sh("crash", Phase::BeforeTool, "echo '{}'; kill -SEGV $$");
        spec.failure_policy = policy;
        let inv = on_git_push(&fx, spec).await;
        assert_eq!(inv.record.failure_kind, Some("signalled"));
        assert_eq!(inv.record.status, RecordStatus::Failed);
        match policy {
            FailurePolicy::Warn => assert_eq!(inv.flow, Flow::Continue),
            _ => assert_eq!(inv.flow.kind(), FlowKind::Skip),
        }
    }
    assert!(
        fx.records()
            .iter()
            .all(|r| r["failure_kind"] == "signalled")
    );
}

#[tokio::test]
async fn a_timeout_is_timed_out() {
    let fx = Fixture::new();
    let mut spec = sh("slow", Phase::AfterAssistant, "sleep 5");
    spec.timeout = std::time::Duration::from_millis(300);
    let ctx = HookContext::new("run-1");
    let started = std::time::Instant::now();
    let inv = fx
        .hook(spec)
        .invoke(&ctx, StepEvent::AfterAssistant { text: "done" })
        .await;
    assert!(started.elapsed() < std::time::Duration::from_secs(4));
    assert_eq!(inv.record.failure_kind, Some("timed_out"));
    assert_eq!(
        inv.flow,
        Flow::Continue,
        "after_assistant defaults to `warn`"
    );
    assert_eq!(inv.diagnostics().len(), 1);
}

#[tokio::test]
async fn misplaced_decisions_are_invalid_output() {
    let fx = Fixture::new();
    let ctx = HookContext::new("run-1");
    let event = StepEvent::AfterAssistant { text: "t" };
    let spec = sh(
        "m",
        Phase::AfterAssistant,
        r#"echo '{"rewrite_args":{"command":"ls"}}'"#,
    );
    let inv = fx.hook(spec).invoke(&ctx, event).await;
    assert_eq!(inv.record.failure_kind, Some("invalid_output"));
    let msg = inv.record.message.unwrap();
    assert!(
        msg.contains("`rewrite_args` is not allowed on `after_assistant`"),
        "{msg}"
    );
    let spec = sh("u", Phase::AfterAssistant, r#"echo '{"decison":"block"}'"#);
    let inv = fx.hook(spec).invoke(&ctx, event).await;
    assert_eq!(inv.record.failure_kind, Some("invalid_output"));
    assert!(
        inv.record
            .message
            .unwrap()
            .contains("unknown field `decison`")
    );
}

#[tokio::test]
async fn context_over_the_byte_cap_is_output_too_large_and_recorded() {
    let limits = hooks_runtime::HookLimits {
        max_context_bytes: 10,
        ..Default::default()
    };
    let fx = Fixture::with_limits(limits);
    let ctx = HookContext::new("run-1");
    let event = StepEvent::AfterAssistant { text: "t" };
    let ok = sh(
        "small",
        Phase::AfterAssistant,
        r#"echo '{"context_items":[{"role":"user","content":"0123456789"}]}'"#,
    );
    let inv = fx.hook(ok).invoke(&ctx, event).await;
    assert_eq!(inv.flow, Flow::inject("0123456789"));
    let big = sh(
        "big",
        Phase::AfterAssistant,
        r#"echo '{"context_items":[{"role":"user","content":"0123456789A"}]}'"#,
    );
    let inv = fx.hook(big).invoke(&ctx, event).await;
    assert_eq!(inv.flow, Flow::Continue);
    assert_eq!(inv.record.failure_kind, Some("output_too_large"));
    let records = fx.records();
    let injections: Vec<_> = records
        .iter()
        .filter(|r| r["record"] == "context_injection")
        .collect();
    assert_eq!(injections.len(), 2);
    assert_eq!(injections[0]["status"], "injected");
    assert_eq!(injections[0]["item_count"], 1);
    assert_eq!(injections[0]["byte_count"], 10);
    assert_eq!(injections[0]["max_bytes"], 10);
    assert!(
        injections[0]["injection_id"]
            .as_str()
            .unwrap()
            .starts_with("run-1/0/small/")
    );
    assert_eq!(injections[1]["status"], "too_large");
    assert_eq!(injections[1]["byte_count"], 11);
}

#[tokio::test]
async fn a_cancelled_session_fails_hooks_as_cancelled() {
    let cancel = hooks_runtime::CancellationToken::new();
    let token = cancel.clone();
    let fx = Fixture::build(hooks_runtime::HookLimits::default(), move |rt| {
        rt.with_cancel(token)
    });
    let ctx = HookContext::new("run-1");
    let hook = fx.hook(sh("long", Phase::AfterAssistant, "sleep 20"));
    let started = std::time::Instant::now();
    let (inv, ()) = tokio::join!(
        hook.invoke(&ctx, StepEvent::AfterAssistant { text: "" }),
        async {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            cancel.cancel();
        }
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(inv.record.failure_kind, Some("cancelled"));
    // Later hooks fail before spawning.
    let inv = fx
        .hook(sh("after", Phase::AfterAssistant, "touch ran.txt"))
        .invoke(&ctx, StepEvent::AfterAssistant { text: "" })
        .await;
    assert_eq!(inv.record.failure_kind, Some("cancelled"));
    assert!(!fx.path("ran.txt").exists());
}
