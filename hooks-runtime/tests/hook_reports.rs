//! Typed reports: every decision carries, per consulted hook, its verdict,
//! failure (kind and policy), elapsed time, message and the diagnostics of
//! that call; runs sharing one shell runtime keep their diagnostics apart;
//! a nested stack's reports compose in place.

#[path = "common/hooks.rs"]
mod hooks;
#[path = "common/stack.rs"]
mod stack;

use std::sync::Arc;
use std::time::Duration;

use hooks::{Fixture, sh};
use hooks_runtime::{
    AgentHook, Diagnostic, Dispatcher, FailureKind, Flow, FlowKind, FnHook, HookContext,
    HookReport, HookStack, StepEvent, StepEventKind, Table, ToolCall, ToolDecision, Verdict,
};
use hooks_schema::{FailurePolicy, Phase};
use serde_json::{Value, json};
use stack::Forwarding;

/// A config whose `before_tool` rules are an audit-mode block, a hook that
/// fails under `warn`, one that times out under `block`, and a block that
/// is never reached.
const CONFIG: &str = r#"
version: 1
hooks:
  - id: trial-block
    phase: before_tool
    block: { reason: "would be refused" }
    mode: audit
  - id: flaky
    phase: before_tool
    run: { command: "echo flaky broke >&2; exit 3" }
    failure_policy: warn
  - id: slow
    phase: before_tool
    run: { command: "sleep 5", timeout: 200ms }
    failure_policy: block
  - id: never-reached
    phase: before_tool
    block: { reason: "not consulted" }
"#;

fn ids(reports: &[HookReport]) -> Vec<&str> {
    reports.iter().map(|r| r.hook.as_str()).collect()
}

fn texts(diagnostics: &[Diagnostic]) -> Vec<String> {
    diagnostics.iter().map(ToString::to_string).collect()
}

#[tokio::test]
async fn reports_name_each_consulted_hook_in_order_with_verdict_failure_and_policy() {
    let fx = Fixture::new();
    let table = Arc::new(Table::load_str(CONFIG, "reports.yaml").expect("the config loads"));
    let rules =
        Dispatcher::new(hooks_runtime::TableRef::Shared(table)).with_shell(Arc::clone(&fx.runtime));
    let stack = HookStack::new()
        .with(
            "quiet",
            FnHook::observing(&[StepEventKind::BeforeTool], |_, _| Flow::Continue),
        )
        .with(
            "cap-args",
            FnHook::observing(&[StepEventKind::BeforeTool], |_, event| match event {
                StepEvent::BeforeTool { args, .. } => {
                    let mut args = args.clone();
                    args["max"] = json!(1);
                    Flow::RewriteArgs(args)
                }
                _ => Flow::Continue,
            }),
        )
        .with("config", rules);
    let ctx = HookContext::new("run-1");
    let args = json!({"command": "ls"});
    let call = ToolCall {
        tool_name: "bash",
        call_id: "c1",
        args: &args,
    };
    let decided = stack.before_tool(&ctx, call).await;

    assert_eq!(decided.decision.label(), "skip");
    assert!(matches!(decided.decision, ToolDecision::Skip { .. }));
    // A Rust hook that continued is not reported; every rule consulted is,
    // in declared order; the rule after the timed-out one is not consulted.
    assert_eq!(
        ids(&decided.reports),
        ["cap-args", "trial-block", "flaky", "slow"],
        "{:#?}",
        decided.reports
    );
    let [rewrite, audited, flaky, slow] = &decided.reports[..] else {
        unreachable!("four reports");
    };
    assert_eq!(rewrite.verdict, Verdict::Applied(FlowKind::RewriteArgs));
    assert_eq!(rewrite.failure, None);
    assert_eq!(audited.verdict, Verdict::Audited(FlowKind::Skip));
    assert_eq!(audited.verdict.to_string(), "audited: would `skip`");
    assert_eq!(audited.failure, None);
    assert_eq!(audited.message, None, "an audited block gives no reason");

    // `warn`: the failure is reported, the call continues, the diagnostic
    // is the call's own (and the fold's).
    assert_eq!(flaky.verdict, Verdict::Continue);
    let failure = flaky.failure.expect("flaky failed");
    assert_eq!(
        (failure.kind, failure.policy),
        (FailureKind::NonzeroExit, FailurePolicy::Warn)
    );
    assert_eq!(failure.to_string(), "nonzero_exit (policy `warn`)");
    let flaky_diagnostics = texts(&flaky.diagnostics);
    assert_eq!(flaky_diagnostics.len(), 1, "{flaky_diagnostics:?}");
    assert!(
        flaky_diagnostics[0].contains("hook `flaky` failed on `before_tool` (nonzero_exit"),
        "{flaky_diagnostics:?}"
    );
    assert!(
        flaky
            .message
            .as_deref()
            .is_some_and(|m| m.contains("flaky broke")),
        "{flaky:?}"
    );
    assert!(
        texts(&decided.diagnostics).contains(&flaky_diagnostics[0]),
        "{:?}",
        decided.diagnostics
    );

    // `block`: the timeout became the skip, measured on the parent's clock.
    assert_eq!(slow.verdict, Verdict::Applied(FlowKind::Skip));
    let failure = slow.failure.expect("slow timed out");
    assert_eq!(
        (failure.kind, failure.policy),
        (FailureKind::TimedOut, FailurePolicy::Block)
    );
    assert!(slow.elapsed >= Duration::from_millis(200), "{slow:?}");
    assert!(slow.elapsed < Duration::from_secs(5), "{slow:?}");

    // The records agree: one per consulted rule (declarative rules' are
    // written when the fold completes, after the shell hooks' own).
    let recorded: Vec<Value> = fx.records();
    let mut recorded: Vec<&str> = recorded
        .iter()
        .filter(|r| r["record"] == "hook")
        .map(|r| r["hook_id"].as_str().unwrap_or_default())
        .collect();
    recorded.sort_unstable();
    assert_eq!(recorded, ["flaky", "slow", "trial-block"]);
}

#[tokio::test]
async fn concurrent_runs_on_one_shell_runtime_keep_their_diagnostics_apart() {
    let fx = Fixture::new();
    // A hook failing under `warn` after `delay` seconds, with a message
    // naming it.
    let failing = |id: &str, delay: &str| {
        let mut spec = sh(
            id,
            Phase::BeforeTool,
            &format!("sleep {delay}; echo {id} broke >&2; exit 3"),
        );
        spec.failure_policy = FailurePolicy::Warn;
        fx.hook(spec)
    };
    // The left run fails early, then keeps running; the right run fails
    // (and finishes) while the left one is still running: a diagnostics
    // list shared by the runtime would hand the left run's early failure to
    // the right run.
    let left = HookStack::new()
        .with("left-early", failing("left-early", "0"))
        .with("left-late", failing("left-late", "0.6"));
    let right = HookStack::new().with("right", failing("right", "0.3"));
    let args = json!({"command": "ls"});
    let call = ToolCall {
        tool_name: "bash",
        call_id: "c1",
        args: &args,
    };
    let (left_ctx, right_ctx) = (HookContext::new("run-left"), HookContext::new("run-right"));
    let started = std::time::Instant::now();
    let (left, right) = tokio::join!(
        left.before_tool(&left_ctx, call),
        right.before_tool(&right_ctx, call)
    );
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "the runs overlapped"
    );
    let expected = [
        (&left, vec!["left-early", "left-late"], "right"),
        (&right, vec!["right"], "left"),
    ];
    for (decided, own, other) in expected {
        let diagnostics = texts(&decided.diagnostics);
        assert_eq!(diagnostics.len(), own.len(), "{own:?}: {diagnostics:?}");
        for (diagnostic, hook) in diagnostics.iter().zip(&own) {
            assert!(
                diagnostic.contains(&format!("hook `{hook}` failed")),
                "{own:?}: {diagnostics:?}"
            );
        }
        assert!(
            diagnostics.iter().all(|d| !d.contains(other)),
            "{own:?} sees {other}'s diagnostics: {diagnostics:?}"
        );
        assert_eq!(ids(&decided.reports), own);
        for report in &decided.reports {
            assert_eq!(report.diagnostics.len(), 1, "{report:?}");
        }
    }
}

fn tag(name: &'static str) -> FnHook<impl Fn(&HookContext, StepEvent<'_>) -> Flow + Send + Sync> {
    FnHook::new(move |_, event| match event {
        StepEvent::BeforeTool { args, .. } => {
            let mut args = args.clone();
            let mut tags = args.get("tags").cloned().unwrap_or_else(|| json!([]));
            tags.as_array_mut()
                .expect("tags are a list")
                .push(json!(name));
            args["tags"] = tags;
            Flow::RewriteArgs(args)
        }
        _ => Flow::Continue,
    })
}

#[tokio::test]
async fn a_nested_stack_reports_its_hooks_in_place() {
    let inner = || {
        HookStack::new()
            .with("in-a", tag("a"))
            .with("in-quiet", FnHook::new(|_, _| Flow::Continue))
            .with(
                "in-skip",
                FnHook::new(|_, _| Flow::skip("the inner stack says no")),
            )
    };
    let outer_with = |nested: Box<dyn AgentHook>| {
        let mut stack = HookStack::new();
        stack
            .push("first", tag("first"))
            .push_shared("nested", Arc::from(nested))
            .push("after", tag("after"));
        stack
    };
    let flattened = outer_with(Box::new(inner()));
    let wrapped = outer_with(Box::new(Forwarding(inner())));
    assert_eq!(flattened.len(), 5, "pushing a stack flattens it");
    assert_eq!(wrapped.len(), 3, "a forwarding wrapper is one entry");

    let ctx = HookContext::new("run-1");
    let args = json!({"command": "ls"});
    let call = ToolCall {
        tool_name: "bash",
        call_id: "c1",
        args: &args,
    };
    let flat = flattened.before_tool(&ctx, call).await;
    let nested = wrapped.before_tool(&ctx, call).await;
    for decided in [&flat, &nested] {
        assert_eq!(
            ids(&decided.reports),
            ["first", "in-a", "in-skip"],
            "the inner hooks in place, the outer one after the skip not consulted"
        );
        let verdicts: Vec<Verdict> = decided.reports.iter().map(|r| r.verdict).collect();
        assert_eq!(
            verdicts,
            [
                Verdict::Applied(FlowKind::RewriteArgs),
                Verdict::Applied(FlowKind::RewriteArgs),
                Verdict::Applied(FlowKind::Skip),
            ]
        );
        let ToolDecision::Skip { reason, args } = &decided.decision else {
            panic!("skipped: {:?}", decided.decision);
        };
        assert_eq!(reason, "the inner stack says no");
        assert_eq!(args["tags"], json!(["first", "a"]));
    }
    assert_eq!(flat.reports, nested.reports, "nesting changes no report");
}

#[tokio::test]
async fn a_declarative_rules_lost_record_is_a_diagnostic_of_its_report() {
    use std::os::unix::fs::FileTypeExt;
    let full = std::path::Path::new("/dev/full");
    if !std::fs::metadata(full).is_ok_and(|m| m.file_type().is_char_device()) {
        eprintln!("skipped: /dev/full is not the character device here");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let writer = hooks_runtime::RecordWriter::open(full, hooks_runtime::SecretSet::new())
        .expect("open /dev/full");
    let shell = Arc::new(
        hooks_runtime::ShellRuntime::new(hooks_runtime::Executor::new(dir.path()).expect("root"))
            .with_records(writer),
    );
    let table = Table::load_str(
        "version: 1\nhooks:\n  - id: no-ls\n    phase: before_tool\n    block: { reason: nope }\n",
        "lost.yaml",
    )
    .expect("the config loads");
    let stack = HookStack::new().with(
        "config",
        Dispatcher::new(hooks_runtime::TableRef::Shared(Arc::new(table))).with_shell(shell),
    );
    let args = json!({"command": "ls"});
    let call = ToolCall {
        tool_name: "bash",
        call_id: "c1",
        args: &args,
    };
    let decided = stack.before_tool(&HookContext::new("run-1"), call).await;
    assert_eq!(decided.decision.label(), "skip");
    let [report] = &decided.reports[..] else {
        panic!("one report: {:?}", decided.reports);
    };
    assert_eq!(report.hook, "no-ls");
    assert_eq!(report.message.as_deref(), Some("nope"));
    let lost = texts(&report.diagnostics);
    assert_eq!(lost.len(), 1, "{lost:?}");
    assert!(
        lost[0].contains("cannot write to the records file") && lost[0].contains("os error 28"),
        "{lost:?}"
    );
    assert_eq!(texts(&decided.diagnostics), lost);
}
