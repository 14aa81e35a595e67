//! Records, audit mode and activity events.

#[path = "common/hooks.rs"]
mod hooks;

use std::sync::{Arc, Mutex};

use hooks::{Fixture, before_tool, sh};
use hooks_runtime::{
    ActivityEvent, Flow, HookContext, HookLimits, HookRecord, Record, RecordStatus, RecordWriter,
    SecretSet, StepEvent, run_shell_hooks,
};
use hooks_schema::{FailurePolicy, Mode, Phase};
use serde_json::json;

#[tokio::test]
async fn concurrent_invocations_write_whole_parseable_lines() {
    let fx = Fixture::new();
    // 24 hooks on an observe-only event, each with a long reason.
    let hooks: Vec<_> = (0..24)
        .map(|i| {
            let mut spec = sh(
                &format!("h{i}"),
                Phase::AfterAssistant,
                &format!("printf 'failure {i} %s\\n' \"$(head -c 4000 /dev/zero | tr '\\0' x)\" >&2; exit 1"),
            );
            spec.failure_policy = FailurePolicy::Ignore;
            fx.hook(spec)
        })
        .collect();
    let ctx = HookContext::new("run-1");
    let (a, b) = tokio::join!(
        run_shell_hooks(&hooks[..12], &ctx, StepEvent::AfterAssistant { text: "x" }),
        run_shell_hooks(&hooks[12..], &ctx, StepEvent::AfterAssistant { text: "x" }),
    );
    assert_eq!(a.len() + b.len(), 24);
    let records = fx.records();
    assert_eq!(records.len(), 24);
    let mut ids: Vec<String> = records
        .iter()
        .map(|r| r["hook_id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    let mut want: Vec<String> = (0..24).map(|i| format!("h{i}")).collect();
    want.sort();
    assert_eq!(ids, want);
    for r in &records {
        assert_eq!(r["failure_kind"], "nonzero_exit");
        assert_eq!(r["policy"], "ignore");
    }
}

#[test]
fn many_threads_never_interleave_lines() {
    // Lines longer than PIPE_BUF (4096 bytes), 8 writers at once.
    let dir = tempfile::tempdir().unwrap();
    let writer = RecordWriter::open(dir.path().join("r.jsonl"), SecretSet::new()).unwrap();
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let writer = writer.clone();
            std::thread::spawn(move || {
                for i in 0..100 {
                    let record = HookRecord {
                        record: "hook",
                        phase: Phase::AfterTool,
                        hook_id: format!("t{t}").into(),
                        tool: Some("bash".into()),
                        status: RecordStatus::Ok,
                        decision: None,
                        failure_kind: None,
                        policy: FailurePolicy::Warn,
                        mode: Mode::Enforce,
                        elapsed_ms: i,
                        target_ran: true,
                        message: Some(format!("{t}-{i}-{}", "m".repeat(5000))),
                        notes: Vec::new(),
                        output: None,
                        path_diagnostics: Vec::new(),
                        http: None,
                        rego: None,
                        background: false,
                    };
                    writer
                        .write(&Record::Hook(record), &SecretSet::new())
                        .unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let text = std::fs::read_to_string(dir.path().join("r.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 800);
    for line in lines {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let msg = v["message"].as_str().unwrap();
        assert!(msg.starts_with(&format!("{}-", &v["hook_id"].as_str().unwrap()[1..])));
    }
}

#[tokio::test]
async fn audit_mode_records_the_would_be_decision_and_continues() {
    let fx = Fixture::new();
    let args = json!({"command": "rm -rf /"});
    let ctx = HookContext::new("run-1");
    let event = before_tool("bash", "c", &args);
    let mut spec = sh(
        "audit-block",
        Phase::BeforeTool,
        r#"echo '{"decision":"block","reason":"dangerous"}'"#,
    );
    spec.mode = Mode::Audit;
    let inv = fx.hook(spec).invoke(&ctx, event).await;
    assert_eq!(inv.flow, Flow::Continue);
    assert_eq!(inv.record.status, RecordStatus::Audited);
    assert_eq!(inv.record.decision, Some("skip"));
    assert_eq!(inv.record.message.as_deref(), Some("dangerous"));

    // A failing hook in audit mode: the policy's would-be flow is recorded.
    let mut spec = sh("audit-fail", Phase::BeforeTool, "exit 7");
    spec.mode = Mode::Audit;
    spec.failure_policy = FailurePolicy::Block;
    let inv = fx.hook(spec).invoke(&ctx, event).await;
    assert_eq!(inv.flow, Flow::Continue);
    assert_eq!(inv.record.status, RecordStatus::Audited);
    assert_eq!(inv.record.failure_kind, Some("nonzero_exit"));
    assert_eq!(inv.record.decision, Some("skip"));

    let records = fx.records();
    assert_eq!(records[0]["status"], "audited");
    assert_eq!(records[0]["mode"], "audit");
    assert_eq!(records[0]["decision"], "skip");
    assert_eq!(records[1]["failure_kind"], "nonzero_exit");
}

#[tokio::test]
async fn activity_events_only_for_hooks_shown_in_the_tui() {
    let events: Arc<Mutex<Vec<ActivityEvent>>> = Arc::default();
    let sink = Arc::clone(&events);
    let fx = Fixture::build(HookLimits::default(), move |rt| {
        rt.with_activity(Arc::new(move |e: ActivityEvent| {
            sink.lock().unwrap().push(e)
        }))
    });
    let ctx = HookContext::new("run-1");
    let mut shown = sh("shown", Phase::AfterAssistant, "true");
    shown.show_in_tui = true;
    let mut failing = sh("shown-fail", Phase::AfterAssistant, "exit 1");
    failing.show_in_tui = true;
    let hidden = sh("hidden", Phase::AfterAssistant, "true");
    for spec in [shown, failing, hidden] {
        fx.hook(spec)
            .invoke(&ctx, StepEvent::AfterAssistant { text: "" })
            .await;
    }
    let events = events.lock().unwrap().clone();
    assert_eq!(events.len(), 4, "{events:?}");
    assert!(
        matches!(&events[0], ActivityEvent::Started { hook_id, phase: Phase::AfterAssistant } if &**hook_id == "shown")
    );
    assert!(
        matches!(&events[1], ActivityEvent::Succeeded { hook_id, .. } if &**hook_id == "shown")
    );
    assert!(
        matches!(&events[2], ActivityEvent::Started { hook_id, .. } if &**hook_id == "shown-fail")
    );
    assert!(matches!(
        &events[3],
        ActivityEvent::Failed { hook_id, failure_kind: "nonzero_exit", .. } if &**hook_id == "shown-fail"
    ));
}
