//! Canary: secrets shaped like real credentials (a GitHub token, an
//! OpenAI-style key, an AWS access key id and secret key) and a declared
//! secret, planted in the hooks' environment (`env.set`), the tool
//! arguments, a hook's stderr, the command lines (`run.command`), the tool
//! output (`after_tool` results) and a hook's stdout, never appear in the
//! records file, the reports and diagnostics of a decision, the reasons and
//! context it carries, or the activity events. Driven through a loaded
//! table in a `HookStack`, as an agent runs a config.

use std::sync::{Arc, Mutex};

use hooks_runtime::{
    ActivityEvent, Dispatcher, Executor, HookContext, HookStack, RecordWriter, SecretSet, Table,
    TableRef, ToolCall, ToolDecision, ToolOutcome,
};
use serde_json::json;

/// `ghp_` and 36 characters.
const GHP: &str = "ghp_Zq8Xc0Vb7Nm2Lk4Jh6Gf1Ds3Ap5Oi9Uy0T";
/// An OpenAI project key shape.
const SK: &str = "sk-proj-Q2w3E4r5T6y7U8i9O0p1A2s3D4f5G6h7J8k9L0zXcV";
/// An AWS access key id (`AKIA` and 16 characters).
const AKIA: &str = "AKIAQWERTYUIOP123456";
/// An AWS secret access key: no shape, known by its variable's name.
const AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYCANARYKEY1";
/// A value the embedding agent declares secret.
const DECLARED: &str = "opaque-canary-pass-93f1c2";
/// A declared secret with a quote and a backslash, as real passwords have:
/// a hook that logs its payload as JSON prints it escaped.
const DECLARED_ESCAPED: &str = r#"opaque"canary\pass-93f1c2"#;

fn canaries() -> [&'static str; 5] {
    [GHP, SK, AKIA, AWS_SECRET, DECLARED]
}

/// The config: every hook gets the secrets in its environment and prints
/// them, with its payload (the tool's arguments and result), where its
/// protocol makes them a reason, a failure detail or a context item.
fn config() -> String {
    let env = format!(
        "env: {{ set: {{ GITHUB_TOKEN: '{GHP}', AWS_SECRET_ACCESS_KEY: '{AWS_SECRET}', OPENAI_API_KEY: '{SK}', DECLARED_VALUE: '{DECLARED}' }} }}"
    );
    let everything =
        r#"echo \"env $GITHUB_TOKEN $AWS_SECRET_ACCESS_KEY $OPENAI_API_KEY $DECLARED_VALUE\""#;
    format!(
        r#"version: 1
defaults: {{ failure_policy: warn }}
hooks:
  - id: crash-with-env
    phase: before_tool
    include_tools: [bash]
    show_in_tui: true
    run:
      command: "{everything} >&2; echo {AKIA} >&2; cat >&2; exit 3"
      {env}
  - id: invalid-with-secrets
    phase: before_tool
    include_tools: [bash]
    show_in_tui: true
    run:
      command: "cat >/dev/null; echo '{{\"{GHP}\": \"{SK}\", \"{AKIA}\": 1}}'"
      {env}
  - id: deny-with-stderr
    phase: before_tool
    include_tools: [bash]
    show_in_tui: true
    run:
      command: "cat >/dev/null; {everything} >&2; echo {AKIA} >&2; exit 2"
      {env}
  - id: echo-result
    phase: after_tool
    include_tools: [bash]
    show_in_tui: true
    run:
      command: "cat >&2; exit 1"
      {env}
  - id: result-as-context
    phase: after_tool
    include_tools: [bash]
    show_in_tui: true
    run:
      command: "python3 -c 'import json,sys; p=json.load(sys.stdin); print(json.dumps({{\"context_items\":[{{\"role\":\"user\",\"content\":json.dumps(p)}}]}}))'"
      {env}
  - id: claude-block-with-result
    phase: after_tool
    include_tools: [bash]
    show_in_tui: true
    run:
      command: "python3 -c 'import json,sys; p=json.load(sys.stdin); print(json.dumps({{\"decision\":\"block\",\"reason\":json.dumps(p[\"tool_response\"])}}))'"
      protocol: claude
      {env}
"#
    )
}

#[tokio::test]
async fn planted_secrets_reach_no_record_report_diagnostic_reason_or_activity() {
    for canary in canaries() {
        assert!(canary.len() >= hooks_runtime::MIN_SECRET_LEN, "{canary}");
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("root");
    std::fs::create_dir(root.join("session")).expect("session dir");
    let mut secrets = SecretSet::new();
    secrets.add(DECLARED);
    let records_path = root.join("session/records.jsonl");
    let events: Arc<Mutex<Vec<ActivityEvent>>> = Arc::default();
    let sink = Arc::clone(&events);
    let table = Table::load_str(&config(), "canary.yaml").expect("the canary config loads");
    let shell = table
        .shell_runtime(Executor::new(&root).expect("executor"))
        .with_records(RecordWriter::open(&records_path, secrets.clone()).expect("records"))
        .with_secrets(secrets)
        .with_activity(Arc::new(move |e: ActivityEvent| {
            sink.lock().expect("events").push(e);
        }))
        .with_session_dir(root.join("session"))
        .expect("session dir");
    let stack = HookStack::new().with(
        "config",
        Dispatcher::new(TableRef::Shared(Arc::new(table))).with_shell(Arc::new(shell)),
    );
    let ctx = HookContext::new("run-1");
    // The tool arguments carry every canary, in a command and in keys.
    let args = json!({
        "command": format!("curl -H 'Authorization: token {GHP}' https://api.example.invalid; export AWS_ACCESS_KEY_ID={AKIA}"),
        "env": {"OPENAI_API_KEY": SK, "aws_secret_access_key": AWS_SECRET, "password": DECLARED},
        "note": format!("the password is {DECLARED}"),
    });
    let call = ToolCall {
        tool_name: "bash",
        call_id: "c1",
        args: &args,
    };
    let before = stack.before_tool(&ctx, call).await;
    let mut sources: Vec<(String, String)> = Vec::new();
    match &before.decision {
        ToolDecision::Skip { reason, .. } => {
            sources.push(("before_tool: the skip reason".into(), reason.to_string()));
        }
        other => panic!("the exit-2 hook denies the call: {other:?}"),
    }
    // The tool output echoes every canary too.
    let result = json!({
        "output": format!("GITHUB_TOKEN={GHP}\nOPENAI_API_KEY={SK}\naws_access_key_id = {AKIA}\naws_secret_access_key = {AWS_SECRET}\npassword: {DECLARED}\n"),
        "exit_code": 0,
    });
    let after = stack
        .after_tool(&ctx, call, &args, &result, &ToolOutcome::Success)
        .await;
    // A result a hook rewrote is hook output; the original is the tool's own.
    if let std::borrow::Cow::Owned(result) = &after.decision.result {
        sources.push((
            "after_tool: the rewritten result".into(),
            result.to_string(),
        ));
    }
    if let Some(reason) = &after.decision.terminate {
        sources.push((
            "after_tool: the terminate reason".into(),
            reason.to_string(),
        ));
    }
    // Texts as an agent shows them (Display, not Debug, whose escaping
    // would hide a JSON-escaped secret from the search).
    for (phase, reports, diagnostics, context) in [
        (
            "before_tool",
            &before.reports,
            &before.diagnostics,
            &before.context,
        ),
        (
            "after_tool",
            &after.reports,
            &after.diagnostics,
            &after.context,
        ),
    ] {
        for r in reports.iter() {
            let id = &r.hook;
            if let Some(m) = &r.message {
                sources.push((format!("{phase}: report of `{id}`: message"), m.to_string()));
            }
            for d in &r.diagnostics {
                sources.push((
                    format!("{phase}: report of `{id}`: diagnostic"),
                    d.to_string(),
                ));
            }
        }
        for d in diagnostics {
            sources.push((format!("{phase}: decision diagnostic"), d.to_string()));
        }
        for item in context.iter() {
            sources.push((format!("{phase}: context item"), item.content.to_string()));
        }
    }
    let records = std::fs::read_to_string(&records_path).expect("records file");
    let activity = format!("{:?}", events.lock().expect("events"));

    // The hooks did run and fail the ways the test needs.
    assert_eq!(
        records
            .lines()
            .filter(|l| l.contains("\"record\":\"hook\""))
            .count(),
        6,
        "{records}"
    );
    for kind in ["nonzero_exit", "invalid_output"] {
        assert!(records.contains(kind), "no {kind} record:\n{records}");
    }
    assert!(records.contains("[REDACTED]"), "{records}");
    assert!(
        !after.context.is_empty() || records.contains("too_large"),
        "the payload came back as context: {after:?}"
    );
    assert_eq!(events.lock().expect("events").len(), 12, "{activity}");

    sources.push(("records file".to_owned(), records));
    sources.push(("activity events".to_owned(), activity));
    let leaks: Vec<String> = sources
        .iter()
        .flat_map(|(name, text)| leaks(name, text))
        .collect();
    assert!(leaks.is_empty(), "{}", leaks.join("\n\n"));
}

/// The longest piece of `canary` between characters JSON or Rust escape
/// (`"`, `\\`): it survives any number of escapings, so a secret printed
/// escaped (once by a hook's JSON, again by a quoted display) is still found.
fn core(canary: &str) -> &str {
    canary
        .split(['"', '\\'])
        .max_by_key(|piece| piece.len())
        .unwrap_or(canary)
}

/// Each canary found in `text`, with its surroundings.
fn leaks(what: &str, text: &str) -> Vec<String> {
    canaries()
        .into_iter()
        .filter_map(|c| leak_of(what, text, c))
        .collect()
}

/// `secret` (or the core of it) in `text`, with its surroundings.
fn leak_of(what: &str, text: &str, secret: &str) -> Option<String> {
    let at = text.find(core(secret))?;
    let start = text.floor_char_boundary(at.saturating_sub(160));
    let end = text.ceil_char_boundary((at + 160).min(text.len()));
    Some(format!(
        "{what}: `{secret}` leaked:\n…{}…",
        &text[start..end]
    ))
}

/// A declared secret with JSON-special characters, printed JSON-escaped by
/// a hook that logs its payload (`cat >&2`), must not reach the failure
/// detail or the diagnostics either.
///
/// Known leak: `redact_sensitive_text` (hooks-runtime/src/shell/redact.rs)
/// replaces each declared secret only where it occurs literally, so its
/// JSON-escaped form (`opaque\"canary\\pass-…`) in a hook's stderr or
/// stdout passes into the record message, the report, the diagnostics and
/// injected context.
#[tokio::test]
async fn a_declared_secret_a_hook_prints_json_escaped_is_redacted() {
    let mut secrets = SecretSet::new();
    secrets.add(DECLARED_ESCAPED);
    // The redaction function itself, on the JSON text of a payload.
    let json_text = json!({"note": DECLARED_ESCAPED}).to_string();
    let redacted = hooks_runtime::redact_sensitive_text(&json_text, &secrets);
    let direct = leak_of(
        "redact_sensitive_text of JSON text",
        &redacted,
        DECLARED_ESCAPED,
    );
    // And end to end: a hook that logs its payload and fails.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("root");
    let records_path = root.join("records.jsonl");
    let shell = hooks_runtime::ShellRuntime::new(Executor::new(&root).expect("executor"))
        .with_records(RecordWriter::open(&records_path, secrets.clone()).expect("records"))
        .with_secrets(secrets);
    let mut spec = hooks_runtime::ShellHookSpec::new(
        "log-payload",
        hooks_schema::Phase::BeforeTool,
        hooks_runtime::CommandForm::Shell("cat >&2; exit 1".into()),
    );
    spec.failure_policy = hooks_schema::FailurePolicy::Warn;
    let hook = hooks_runtime::ShellHook::new(spec, Arc::new(shell));
    let args = json!({"note": DECLARED_ESCAPED});
    let inv = hook
        .invoke(
            &HookContext::new("run-1"),
            hooks_runtime::StepEvent::BeforeTool {
                tool_name: "bash",
                call_id: "c1",
                args: &args,
            },
        )
        .await;
    assert_eq!(inv.record.failure_kind, Some("nonzero_exit"));
    let mut found: Vec<String> = direct.into_iter().collect();
    found.extend(leak_of(
        "record message",
        inv.record.message.as_deref().unwrap_or_default(),
        DECLARED_ESCAPED,
    ));
    for d in inv.diagnostics() {
        found.extend(leak_of("diagnostic", &d, DECLARED_ESCAPED));
    }
    found.extend(leak_of(
        "records file",
        &std::fs::read_to_string(&records_path).expect("records"),
        DECLARED_ESCAPED,
    ));
    assert!(found.is_empty(), "{}", found.join("\n\n"));
}
