//! Secrets never reach records or diagnostics: in the
//! hook's environment, its command line and its stderr.

#[path = "common/hooks.rs"]
mod hooks;

use hooks::{Fixture, before_tool, sh};
use hooks_runtime::HookContext;
use hooks_schema::{FailurePolicy, Phase};
use serde_json::json;

const GITHUB_TOKEN: &str = "ghp_R4nd0mL00k1ngT0k3nV4lu3xyzABCDEF12";
const OPAQUE: &str = "opaque-credential-7f3a9c";
const CMDLINE_KEY: &str = "sk-live-0123456789abcdefghijKLMN";

#[tokio::test]
async fn secrets_from_env_command_line_and_stderr_never_reach_records_or_diagnostics() {
    let fx = Fixture::new();
    let ctx = HookContext::new("run-1");
    let args = json!({"command": "deploy"});
    let mut failing = Vec::new();
    // stderr prints every secret; the command line carries another one.
    let command = format!(
        "echo \"token=$GITHUB_TOKEN key=$DEPLOY_API_KEY opaque $DEPLOY_API_KEY {CMDLINE_KEY} Bearer abcdefghijklmnop\" >&2; exit 3"
    );
    for policy in [FailurePolicy::Warn, FailurePolicy::Block] {
        let mut spec = sh("deploy-guard", Phase::BeforeTool, &command);
        spec.process_mut().expect("a run hook").env.set = vec![
            ("GITHUB_TOKEN".to_owned(), GITHUB_TOKEN.to_owned()),
            ("DEPLOY_API_KEY".to_owned(), OPAQUE.to_owned()),
        ];
        spec.failure_policy = policy;
        let inv = fx
            .hook(spec)
            .invoke(&ctx, before_tool("bash", "c1", &args))
            .await;
        assert_eq!(inv.record.failure_kind, Some("nonzero_exit"));
        // The stderr line did reach the record, redacted.
        let msg = inv.record.message.clone().unwrap();
        assert!(
            msg.contains("exited with code 3") && msg.contains("[REDACTED]"),
            "{msg}"
        );
        failing.push(inv);
    }
    // A second hook with the secret in a `passed` variable, and exit 2.
    let mut spec = sh(
        "echo-deny",
        Phase::BeforeTool,
        "echo \"denied: $DEPLOY_API_KEY\" >&2; exit 2",
    );
    spec.process_mut().expect("a run hook").env.set =
        vec![("DEPLOY_API_KEY".to_owned(), OPAQUE.to_owned())];
    let inv = fx
        .hook(spec)
        .invoke(&ctx, before_tool("bash", "c1", &args))
        .await;
    assert_eq!(inv.record.decision, Some("skip"));

    let records = fx.records_text();
    assert_eq!(records.lines().count(), 3);
    failing.push(inv);
    // Each invocation's report: its message and its diagnostics.
    let reports: Vec<String> = failing.iter().map(|i| format!("{:?}", i.report)).collect();
    assert!(failing.iter().any(|i| !i.report.diagnostics.is_empty()));
    let everything = format!("{records}\n{}", reports.join("\n"));
    for secret in [GITHUB_TOKEN, OPAQUE, CMDLINE_KEY, "abcdefghijklmnop"] {
        assert!(
            !everything.contains(secret),
            "`{secret}` leaked into:\n{everything}"
        );
    }
    // No command text either.
    assert!(!everything.contains("echo \""), "{everything}");
}

#[tokio::test]
async fn redacted_payload_mode_masks_credentials_in_what_the_hook_reads() {
    let fx = Fixture::new();
    let args = json!({
        "command": format!("curl -H 'Authorization: Bearer {GITHUB_TOKEN}' https://x"),
        "api_key": "plain-value-123",
        "path": "src/main.rs",
    });
    let mut spec = sh("r", Phase::BeforeTool, "cat > seen.json");
    spec.payload = hooks_schema::PayloadMode::Redacted;
    let inv = fx.invoke(spec, before_tool("bash", "c1", &args)).await;
    assert_eq!(inv.flow, hooks_runtime::Flow::Continue);
    let seen: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fx.path("seen.json")).unwrap()).unwrap();
    assert_eq!(seen["mode"], "redacted");
    assert_eq!(seen["args"]["api_key"], "[REDACTED]");
    assert_eq!(seen["args"]["path"], "src/main.rs");
    let cmd = seen["args"]["command"].as_str().unwrap();
    assert!(
        !cmd.contains(GITHUB_TOKEN) && cmd.contains("Bearer [REDACTED]"),
        "{cmd}"
    );
}
