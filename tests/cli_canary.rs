//! Canary: `agent-hooks test` prints no secret, in human and JSON output,
//! whether it was planted in the hooks' environment (`env.set`, and
//! `env.pass` from the caller's environment), the event's tool arguments,
//! a hook's stderr, the command line (`run.command`) or the tool output
//! (an `after_tool` result the hooks echo back as a reason, a failure
//! detail and injected context). The records the command prints are
//! covered too.

use std::path::Path;
use std::process::{Command, Output};

/// `ghp_` and 36 characters.
const GHP: &str = "ghp_Zq8Xc0Vb7Nm2Lk4Jh6Gf1Ds3Ap5Oi9Uy0T";
/// An OpenAI project key shape.
const SK: &str = "sk-proj-Q2w3E4r5T6y7U8i9O0p1A2s3D4f5G6h7J8k9L0zXcV";
/// An AWS access key id.
const AKIA: &str = "AKIAQWERTYUIOP123456";
/// An AWS secret access key: no shape, known by its variable's name.
const AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYCANARYKEY1";
/// Passed from the caller's environment under a credential-like name.
const PASSED: &str = "opaque-canary-pass-93f1c2";
/// The same with a quote and a backslash, as real passwords have: a hook
/// that logs its payload as JSON prints it escaped.
const PASSED_ESCAPED: &str = r#"opaque"canary\pass-93f1c2"#;

fn config() -> String {
    let env = format!(
        "env: {{ pass: [DEPLOY_PASSWORD], set: {{ GITHUB_TOKEN: '{GHP}', AWS_SECRET_ACCESS_KEY: '{AWS_SECRET}', OPENAI_API_KEY: '{SK}' }} }}"
    );
    let everything =
        r#"echo \"env $GITHUB_TOKEN $AWS_SECRET_ACCESS_KEY $OPENAI_API_KEY $DEPLOY_PASSWORD\""#;
    format!(
        r#"version: 1
defaults: {{ failure_policy: warn }}
hooks:
  - id: crash-with-env
    phase: before_tool
    run:
      command: "{everything} >&2; echo {AKIA} >&2; cat >&2; exit 3"
      timeout: 20s
      {env}
  - id: deny-with-stderr
    phase: before_tool
    run:
      command: "cat >/dev/null; {everything} >&2; echo {AKIA} >&2; exit 2"
      timeout: 20s
      {env}
  - id: echo-result
    phase: after_tool
    run:
      command: "cat >&2; exit 1"
      timeout: 20s
      {env}
  - id: result-as-context
    phase: after_tool
    run:
      command: "python3 -c 'import json,sys; p=json.load(sys.stdin); print(json.dumps({{\"context_items\":[{{\"role\":\"user\",\"content\":json.dumps(p)}}]}}))'"
      timeout: 20s
      {env}
  - id: claude-block-with-result
    phase: after_tool
    run:
      command: "python3 -c 'import json,sys; p=json.load(sys.stdin); print(json.dumps({{\"decision\":\"block\",\"reason\":json.dumps(p[\"tool_response\"])}}))'"
      timeout: 20s
      protocol: claude
      {env}
"#
    )
}

/// A `before_tool` and an `after_tool` event carrying the canaries, with
/// `password` and an optional extra argument.
fn events(password: &str, extra_arg: Option<(&str, String)>) -> [(&'static str, String); 2] {
    let mut args = serde_json::json!({
        "command": format!("curl -H 'Authorization: token {GHP}' https://api.example.invalid; export AWS_ACCESS_KEY_ID={AKIA}"),
        "env": {"OPENAI_API_KEY": SK, "aws_secret_access_key": AWS_SECRET, "password": password},
    });
    if let Some((key, value)) = extra_arg {
        args[key] = value.into();
    }
    let result = format!(
        "GITHUB_TOKEN={GHP}\nOPENAI_API_KEY={SK}\naws_access_key_id = {AKIA}\naws_secret_access_key = {AWS_SECRET}\npassword: {password}\n"
    );
    [
        (
            "before.json",
            serde_json::json!({"phase": "before_tool", "tool": "bash", "call_id": "c1", "args": args})
                .to_string(),
        ),
        (
            "after.json",
            serde_json::json!({"phase": "after_tool", "tool": "bash", "call_id": "c1", "args": args, "result": {"output": result}})
                .to_string(),
        ),
    ]
}

fn agent_hooks(dir: &Path, password: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir)
        .env("DEPLOY_PASSWORD", password)
        .args(args)
        .output()
        .expect("run agent-hooks")
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

/// Each of `canaries` found in `text`, with its surroundings.
fn leaks(what: &str, text: &str, canaries: &[&str]) -> Vec<String> {
    canaries
        .iter()
        .filter_map(|c| {
            let at = text.find(core(c))?;
            let start = text.floor_char_boundary(at.saturating_sub(120));
            let end = text.ceil_char_boundary((at + 120).min(text.len()));
            Some(format!("{what}: `{c}` leaked:\n…{}…", &text[start..end]))
        })
        .collect()
}

/// Runs both events through `agent-hooks test` in both formats with the
/// caller's `DEPLOY_PASSWORD` set to `password`; returns the leaks found.
fn run_canaries(password: &str, extra_arg: Option<(&str, String)>) -> Vec<String> {
    let canaries = [GHP, SK, AKIA, AWS_SECRET, password];
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("hooks.yaml"), config()).expect("write config");
    let mut found = Vec::new();
    for (file, event) in events(password, extra_arg.clone()) {
        std::fs::write(dir.path().join(file), event).expect("write event");
        for format in ["human", "json"] {
            let out = agent_hooks(
                dir.path(),
                password,
                &["test", "hooks.yaml", "--event", file, "--format", format],
            );
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let what = format!("{file} {format}");
            assert_eq!(out.status.code(), Some(0), "{what}: {stdout}{stderr}");
            // The hooks ran and their records are printed.
            assert!(stdout.contains("[REDACTED]"), "{what}: {stdout}");
            assert!(
                stdout.contains("nonzero_exit"),
                "{what}: a failed hook's record is shown: {stdout}"
            );
            if format == "json" {
                serde_json::from_str::<serde_json::Value>(&stdout).expect("valid JSON");
            }
            found.extend(leaks(&format!("{what} stdout"), &stdout, &canaries));
            found.extend(leaks(&format!("{what} stderr"), &stderr, &canaries));
        }
    }
    found
}

#[test]
fn agent_hooks_test_prints_no_planted_secret_in_either_format() {
    let found = run_canaries(PASSED, None);
    assert!(found.is_empty(), "{}", found.join("\n\n"));
}

/// Known leak: a secret with JSON-special characters, which a hook prints
/// JSON-escaped (it logs its payload), is matched neither literally by
/// `redact_sensitive_text` (hooks-runtime/src/shell/redact.rs) nor whole by
/// its `name: value` rule, which stops at the escaped quote: the failure
/// detail, the diagnostic, the record and the injected context show it.
#[test]
fn a_secret_a_hook_prints_json_escaped_is_not_printed() {
    let note = format!("the deploy password is {PASSED_ESCAPED}");
    let found = run_canaries(PASSED_ESCAPED, Some(("note", note)));
    assert!(found.is_empty(), "{}", found.join("\n\n"));
}
