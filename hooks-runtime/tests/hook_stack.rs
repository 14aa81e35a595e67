//! Shell hooks are `AgentHook`s: they stack with in-process hooks in a
//! `HookStack`, which chains rewrites into later hooks' payloads.

#[path = "common/hooks.rs"]
mod hooks;

use hooks::{Fixture, before_tool, sh};
use hooks_runtime::{Flow, HookContext, HookStack};
use hooks_schema::Phase;
use serde_json::json;

#[tokio::test]
async fn a_rewrite_by_one_shell_hook_is_what_the_next_one_reads() {
    let fx = Fixture::new();
    let rewrite = fx.hook(sh(
        "dry-run",
        Phase::BeforeTool,
        r#"echo '{"rewrite_args":{"command":"terraform plan"}}'"#,
    ));
    let guard = fx.hook(sh(
        "guard",
        Phase::BeforeTool,
        r#"cat > seen.json; grep -q '"terraform plan"' seen.json && echo '{"decision":"block","reason":"plans need review"}'"#,
    ));
    let stack = HookStack::new()
        .with("dry-run", rewrite)
        .with("guard", guard);
    let args = json!({"command": "terraform apply"});
    let ctx = HookContext::new("run-1");
    let out = stack.fold(&ctx, before_tool("bash", "c", &args)).await;
    assert_eq!(out.decision, Some(Flow::skip("plans need review")));
    assert_eq!(out.args, Some(json!({"command": "terraform plan"})));
    let seen: hooks_schema::Payload =
        serde_json::from_str(&std::fs::read_to_string(fx.path("seen.json")).unwrap()).unwrap();
    assert_eq!(seen.args, Some(json!({"command": "terraform plan"})));
    assert_eq!(fx.records().len(), 2);
}
