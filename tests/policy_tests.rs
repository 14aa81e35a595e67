//! Policy tests (issue 29, item 4): `agent-hooks test CONFIG --expect
//! CASES` runs the reference config's cases through the runtime and exits
//! 0; changing one expected decision makes it exit 1 with a diff and a
//! JUnit failure; the same file runs from `cargo test` on a `hooks!` table
//! through `agent_hooks::policy_test::run`.

#[path = "common/cli.rs"]
mod cli;

use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;

use agent_hooks::HookStack;
use agent_hooks::policy_test::{self, Cases};
use agent_hooks::shell::{Executor, RecordWriter, SecretSet};

agent_hooks::hooks!(name = Example, "../examples/hooks.yaml");

const CASES: &str = "examples/hooks.test.yaml";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn expect(cases: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(root())
        .args(["test", "examples/hooks.yaml", "--expect"])
        .arg(cases)
        .args(extra)
        .output()
        .expect("run agent-hooks")
}

#[test]
fn the_reference_cases_pass() {
    let out = expect(Path::new(CASES), &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(": 9 passed, 0 failed"), "{stdout}");
}

/// The stack of examples/hooks.stack.yaml (managed, a team in shadow, the
/// project) passes its cases; with the managed layer's expected decision
/// changed, it fails.
#[test]
fn the_stack_cases_pass_and_a_changed_managed_decision_fails() {
    let run = |cases: &Path| {
        Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
            .current_dir(root())
            .args(["test", "--stack", "examples/hooks.stack.yaml", "--expect"])
            .arg(cases)
            .output()
            .expect("run agent-hooks")
    };
    let cases = Path::new("examples/hooks.stack.test.yaml");
    let out = run(cases);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(": 5 passed, 0 failed"), "{stdout}");
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(root().join(cases)).expect("cases");
    let changed = text.replacen("      decision: skip\n", "      decision: run\n", 1);
    assert_ne!(changed, text);
    let changed_cases = dir.path().join("changed.yaml");
    std::fs::write(&changed_cases, changed).expect("write");
    let out = run(&changed_cases);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("the managed layer refuses a force push the project would run ... FAILED"),
        "{stdout}"
    );
}

/// One expected decision changed: exit 1, a diff naming the case, the key,
/// what was expected and what came; the JUnit file counts one failure.
#[test]
fn a_changed_decision_fails_with_a_diff_and_a_junit_failure() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(root().join(CASES)).expect("cases");
    let changed = text.replacen("      decision: skip\n", "      decision: run\n", 1);
    assert_ne!(changed, text);
    let cases = dir.path().join("changed.yaml");
    std::fs::write(&cases, changed).expect("write");
    let junit = dir.path().join("junit.xml");
    let out = expect(&cases, &["--junit", junit.to_str().expect("UTF-8 path")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("case a recursive forced delete is refused ... FAILED"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  decision: expected run\n            got      skip\n"),
        "{stdout}"
    );
    assert!(stdout.contains(": 8 passed, 1 failed"), "{stdout}");
    let xml = std::fs::read_to_string(&junit).expect("junit written");
    assert!(
        xml.contains(r#"tests="9" failures="1" errors="0""#),
        "{xml}"
    );
    assert!(
        xml.contains("decision: expected run\n          got      skip"),
        "{xml}"
    );
}

/// Secrets in a case's event or name are redacted on stdout, in the JSON
/// report and in the JUnit file alike; control characters in a name are
/// escaped, so the XML stays well formed.
#[test]
fn secrets_and_control_characters_never_reach_a_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = dir.path().join("secret.yaml");
    std::fs::write(
        &cases,
        "cases:\n  - name: \"password=\\\"abc123456\\\" \\u0001 bell \\u202e rtl\"\n    event: { phase: before_tool, tool_name: read_file, call_id: c, args: { path: a, password: hunter2hunter2, token: plainvalue123 } }\n    expect: { fired: [] }\n",
    )
    .expect("write");
    let junit = dir.path().join("junit.xml");
    let junit_arg = junit.to_str().expect("UTF-8 path");
    for format in ["human", "json"] {
        let out = expect(&cases, &["--format", format, "--junit", junit_arg]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        let xml = std::fs::read_to_string(&junit).expect("junit written");
        for secret in ["hunter2hunter2", "plainvalue123", "abc123456"] {
            assert!(!stdout.contains(secret), "{format}: {stdout}");
            assert!(!xml.contains(secret), "{xml}");
        }
        assert!(!xml.contains('\u{1}'), "{xml}");
        // JSON keeps the name as data; the text and the XML show it escaped.
        assert!(!xml.contains('\u{202e}'), "{xml}");
        assert!(format == "json" || !stdout.contains('\u{202e}'), "{stdout}");
        if format == "json" {
            assert!(stdout.contains(r#""field": "fired""#), "{stdout}");
        }
    }
}

/// A case file that would fail every run is refused before anything
/// runs: no cases, an unknown decision, a pattern that does not compile.
#[test]
fn cases_that_cannot_be_checked_are_refused_up_front() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, text, said) in [
        ("empty", "cases: []\n", "no cases"),
        (
            "decision",
            "cases:\n  - name: x\n    event: { phase: run_start }\n    expect: { decision: blocked }\n",
            "unknown decision `blocked`",
        ),
        (
            "regex",
            "cases:\n  - name: x\n    event: { phase: run_start }\n    expect: { context: ['(unclosed'] }\n",
            "is not a regular expression",
        ),
    ] {
        let file = dir.path().join(format!("{name}.yaml"));
        std::fs::write(&file, text).expect("write");
        let out = expect(&file, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains(said), "{name}: {stderr}");
    }
}

/// A case file with an unknown key, or an event that is not one: exit 2
/// with the parser's located message; a bad event is an error of its case.
#[test]
fn bad_case_files_and_events_are_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let typo = dir.path().join("typo.yaml");
    std::fs::write(
        &typo,
        "cases:\n  - name: x\n    event: { phase: run_start }\n    expekt: { decision: continue }\n",
    )
    .expect("write");
    let out = expect(&typo, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("expekt") && stderr.contains("line 4"),
        "{stderr}"
    );
    let bad_event = dir.path().join("bad-event.yaml");
    std::fs::write(
        &bad_event,
        "cases:\n  - name: no phase\n    event: { tool_name: bash }\n",
    )
    .expect("write");
    let out = expect(&bad_event, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("error: the event cannot be read"),
        "{stdout}"
    );
}

/// The same cases on the `hooks!` table of the same config, from a test:
/// the library helper, with the records of a writer the test binds.
#[tokio::test]
async fn the_cases_run_on_a_hooks_table_from_cargo_test() {
    let dir = tempfile::tempdir().expect("tempdir");
    let records_path = dir.path().join("records.jsonl");
    let records = RecordWriter::open(&records_path, SecretSet::new()).expect("records");
    let executor = Executor::new(root()).expect("executor");
    let shell = Arc::new(Example::shell_runtime(executor).with_records(records));
    let stack = HookStack::new().with("hooks.yaml", Example::new().with_shell(shell));
    let cases = Cases::load(&root().join(CASES)).expect("cases load");
    let mut read = 0;
    let report = policy_test::run("hooks!", &stack, &cases, || {
        let text = std::fs::read_to_string(&records_path).unwrap_or_default();
        let new: Vec<serde_json::Value> = text[read..]
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        read = text.len();
        new
    })
    .await;
    assert!(report.passed(), "{report}");
    assert_eq!(report.results.len(), 9);
}

/// A background hook (`async: true`) ends with its own case, as with
/// `test --event`: its records are that case's, none reach the next one.
#[test]
fn a_background_hooks_records_belong_to_its_case() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("hooks.yaml"),
        "version: 1\nhooks:\n  - id: bg\n    phase: after_tool\n    async: true\n    run:\n      command: sleep 0.3; printf '{\"context_items\":[{\"role\":\"user\",\"content\":\"late\"}]}'\n",
    )
    .expect("config");
    std::fs::write(
        dir.path().join("cases.yaml"),
        "cases:\n  - name: its own case\n    event: { phase: after_tool, tool_name: bash, call_id: c1, args: { command: ls }, result: { output: '' }, outcome: success }\n    expect: { fired: [bg], records: { bg: [decision, dropped] } }\n  - name: the next case\n    event: { phase: run_start }\n    expect: { fired: [], records: { bg: [] } }\n",
    )
    .expect("cases");
    let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir.path())
        .args(["test", "hooks.yaml", "--expect", "cases.yaml"])
        .output()
        .expect("run agent-hooks");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
}
