//! A secret straddling the cut-off of a message built from hook output is
//! redacted whole: the runtime redacts the whole captured text first and
//! cuts it after, so no prefix of a token (`ghp_abcdefghijklmno`, too short
//! for its shape) survives in records, diagnostics or the flow's reason.

#[path = "common/hooks.rs"]
mod hooks;

use hooks::{Fixture, before_tool, sh};
use hooks_runtime::{Flow, Invocation};
use hooks_schema::{FailurePolicy, Phase};
use serde_json::json;

/// The token's body; the shell joins it to `ghp_` so the command text never
/// holds the whole token.
const BODY: &str = "abcdefghijklmnopqrstuvwxyz0123456789";

/// A command printing `pad` × `x`, a space and the token on stderr, then
/// exiting with `code`.
fn command(pad: usize, code: i32) -> String {
    format!(
        "P=$(printf '%{pad}s' '' | tr ' ' x); T=ghp_; printf '%s %s%s\\n' \"$P\" \"$T\" {BODY} >&2; exit {code}"
    )
}

fn reason(flow: &Flow) -> Option<&str> {
    match flow {
        Flow::Skip { reason } | Flow::Terminate { reason } | Flow::Resume { reason } => {
            Some(reason)
        }
        _ => None,
    }
}

fn assert_clean(what: &str, pad: usize, text: &str) {
    assert!(!text.contains("ghp_"), "{what}, padding {pad}: {text}");
    assert!(
        !text.contains("abcdefghij"),
        "{what}, padding {pad}: {text}"
    );
}

fn check(inv: &Invocation, pad: usize) {
    let message = inv.record.message.as_deref().expect("a message");
    assert!(message.contains("xxxxxxxx"), "padding {pad}: {message}");
    assert_clean("record message", pad, message);
    for d in &inv.diagnostics() {
        assert_clean("diagnostic", pad, d);
    }
    if let Some(message) = &inv.report.message {
        assert_clean("report message", pad, message);
    }
    let reason = reason(&inv.flow).expect("a reason");
    assert!(reason.contains("xxxxxxxx"), "padding {pad}: {reason}");
    assert_clean("flow reason", pad, reason);
}

#[tokio::test]
async fn nonzero_exit_detail_is_redacted_before_it_is_cut() {
    let fx = Fixture::new();
    let args = json!({"command": "ls"});
    let mut runs = 0;
    for pad in (150..260).step_by(7) {
        for policy in [FailurePolicy::Warn, FailurePolicy::Block] {
            let mut spec = sh("straddle", Phase::BeforeTool, &command(pad, 1));
            spec.failure_policy = policy;
            let inv = fx.invoke(spec, before_tool("bash", "c1", &args)).await;
            assert_eq!(inv.record.failure_kind, Some("nonzero_exit"), "{pad}");
            if policy == FailurePolicy::Warn {
                assert_eq!(inv.flow, Flow::Continue);
                let message = inv.record.message.as_deref().expect("a message");
                assert_clean("record message", pad, message);
                assert!(!inv.diagnostics().is_empty(), "warn is visible");
                for d in &inv.diagnostics() {
                    assert!(d.contains("xxxxxxxx"), "{d}");
                    assert_clean("diagnostic", pad, d);
                }
            } else {
                check(&inv, pad);
            }
            runs += 1;
        }
    }
    assert_clean("records file", 0, &fx.records_text());
    assert_eq!(fx.records().len(), runs);
}

#[tokio::test]
async fn exit_2_reason_is_redacted_before_it_is_cut() {
    let fx = Fixture::new();
    let args = json!({"command": "ls"});
    let mut runs = 0;
    for pad in (150..260).step_by(7) {
        let inv = fx
            .invoke(
                sh("straddle", Phase::BeforeTool, &command(pad, 2)),
                before_tool("bash", "c1", &args),
            )
            .await;
        assert_eq!(inv.record.decision, Some("skip"), "{pad}");
        check(&inv, pad);
        // The reason the model sees is whole, with the token redacted.
        let reason = reason(&inv.flow).expect("a reason");
        assert!(reason.ends_with("[REDACTED]"), "{pad}: {reason}");
        runs += 1;
    }
    // Where exit 2 cannot deny, the reason becomes a diagnostic.
    let inv = fx
        .invoke(
            sh("straddle", Phase::RunStart, &command(190, 2)),
            hooks_runtime::StepEvent::RUN_START,
        )
        .await;
    assert!(!inv.diagnostics().is_empty());
    for d in &inv.diagnostics() {
        assert_clean("diagnostic", 190, d);
    }
    runs += 1;
    assert_clean("records file", 0, &fx.records_text());
    assert_eq!(fx.records().len(), runs);
}
