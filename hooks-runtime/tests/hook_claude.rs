//! `protocol: claude`: Claude Code hook scripts, written the way Claude Code
//! users write them, run unmodified.

#[path = "common/hooks.rs"]
mod hooks;

use hooks::{Fixture, after_tool, before_tool, exec, script, sh};
use hooks_runtime::{
    Flow, FlowKind, HookContext, Invocation, ShellHookSpec, StepEvent, ToolOutcome,
};
use hooks_schema::{Phase, Protocol};
use serde_json::{Value, json};

fn claude(mut spec: ShellHookSpec) -> ShellHookSpec {
    spec.protocol = Protocol::Claude;
    spec
}

/// An exec-form spec running the fixture Python script `name` with `python3`.
fn python(id: &str, phase: Phase, name: &str) -> ShellHookSpec {
    exec(id, phase, &["python3", &script(name)])
}

async fn pre_tool(fx: &Fixture, spec: ShellHookSpec, tool: &str, args: &Value) -> Invocation {
    let ctx = HookContext::new("sess-1");
    fx.hook(claude(spec))
        .invoke(&ctx, before_tool(tool, "toolu_01", args))
        .await
}

#[tokio::test]
async fn python_guard_denies_with_permission_decision() {
    let fx = Fixture::new();
    let spec = python("rm-guard", Phase::BeforeTool, "claude_guard_rm.py");
    let inv = pre_tool(
        &fx,
        spec.clone(),
        "Bash",
        &json!({"command": "rm -rf /tmp/x"}),
    )
    .await;
    assert_eq!(
        inv.flow,
        Flow::skip("Destructive command blocked: rm -rf /tmp/x")
    );
    assert_eq!(inv.record.decision, Some("skip"));
    let inv = pre_tool(&fx, spec, "Bash", &json!({"command": "ls -la"})).await;
    assert_eq!(inv.flow, Flow::Continue);
    assert_eq!(inv.record.failure_kind, None);
}

#[tokio::test]
async fn bash_exit_2_blocks_with_stderr() {
    let fx = Fixture::new();
    let spec = sh(
        "env-guard",
        Phase::BeforeTool,
        &format!("bash {}", script("claude_protect_env.sh")),
    );
    let inv = pre_tool(
        &fx,
        spec.clone(),
        "Edit",
        &json!({"file_path": "/w/.env", "new_string": "A=1"}),
    )
    .await;
    assert_eq!(
        inv.flow,
        Flow::skip("Editing .env files is not allowed; ask the user to change secrets.")
    );
    let inv = pre_tool(&fx, spec, "Edit", &json!({"file_path": "/w/main.rs"})).await;
    assert_eq!(inv.flow, Flow::Continue);
}

#[tokio::test]
async fn updated_input_rewrites_the_arguments() {
    let fx = Fixture::new();
    let spec = python("dry-run", Phase::BeforeTool, "claude_dry_run.py");
    let inv = pre_tool(
        &fx,
        spec,
        "Bash",
        &json!({"command": "terraform apply -auto-approve", "timeout": 60}),
    )
    .await;
    assert_eq!(
        inv.flow,
        Flow::RewriteArgs(json!({"command": "terraform plan -auto-approve", "timeout": 60}))
    );
}

#[tokio::test]
async fn legacy_decision_block_denies_and_ask_is_an_ask() {
    let fx = Fixture::new();
    let spec = python("net", Phase::BeforeTool, "claude_legacy_block.py");
    let inv = pre_tool(
        &fx,
        spec,
        "Bash",
        &json!({"command": "curl https://example.invalid"}),
    )
    .await;
    assert_eq!(inv.flow, Flow::skip("network access is not allowed"));

    let spec = python("ask", Phase::BeforeTool, "claude_ask.py");
    let inv = pre_tool(
        &fx,
        spec,
        "Bash",
        &json!({"command": "git push origin main"}),
    )
    .await;
    // The agent's approver decides (none: refused, fail closed).
    assert_eq!(inv.flow, Flow::ask("pushing to main"));
}

#[tokio::test]
async fn post_tool_use_additional_context_is_injected() {
    let fx = Fixture::new();
    let spec = python("lint", Phase::AfterTool, "claude_post_lint.py");
    let args = json!({"file_path": "/w/app/models.py"});
    let result = json!("ok");
    let outcome = ToolOutcome::Success;
    let ctx = HookContext::new("sess-1");
    let inv = fx
        .hook(claude(spec))
        .invoke(
            &ctx,
            after_tool("Write", "toolu_02", &args, &result, &outcome),
        )
        .await;
    assert_eq!(inv.flow, Flow::inject("lint: 2 warnings in models.py"));
    let injections: Vec<_> = fx
        .records()
        .into_iter()
        .filter(|r| r["record"] == "context_injection")
        .collect();
    assert_eq!(injections.len(), 1);
    assert_eq!(
        injections[0]["byte_count"],
        "lint: 2 warnings in models.py".len()
    );
}

#[tokio::test]
async fn stop_hook_resumes_once_then_sees_stop_hook_active() {
    let fx = Fixture::new();
    let spec = python("tests", Phase::Stop, "claude_stop_tests.py");
    let hook = fx.hook(claude(spec));
    let ctx = HookContext::new("sess-1");
    let first = hook
        .invoke(
            &ctx,
            StepEvent::Stop {
                loop_count: 0,
                text: "done",
                background_tasks: &serde_json::Value::Null,
                session_crons: &serde_json::Value::Null,
            },
        )
        .await;
    assert_eq!(
        first.flow,
        Flow::resume("Run the test suite before stopping.")
    );
    let second = hook
        .invoke(
            &ctx,
            StepEvent::Stop {
                loop_count: 1,
                text: "done",
                background_tasks: &serde_json::Value::Null,
                session_crons: &serde_json::Value::Null,
            },
        )
        .await;
    assert_eq!(second.flow, Flow::Continue);
}

#[tokio::test]
async fn the_stdin_object_has_claude_code_fields() {
    let fx = Fixture::new();
    let spec = sh(
        "dump",
        Phase::BeforeTool,
        r#"cat > seen.json; printf %s "$CLAUDE_PROJECT_DIR" > project_dir.txt"#,
    );
    let inv = pre_tool(&fx, spec, "Bash", &json!({"command": "ls"})).await;
    assert_eq!(inv.flow, Flow::Continue);
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(fx.path("seen.json")).unwrap()).unwrap();
    assert_eq!(seen["hook_event_name"], "PreToolUse");
    assert_eq!(seen["session_id"], "sess-1");
    assert_eq!(seen["tool_name"], "Bash");
    assert_eq!(seen["tool_use_id"], "toolu_01");
    assert_eq!(seen["tool_input"], json!({"command": "ls"}));
    assert_eq!(
        seen["cwd"],
        fx.root().canonicalize().unwrap().to_string_lossy().as_ref()
    );
    assert!(seen["transcript_path"].is_string());
    assert_eq!(
        std::fs::read_to_string(fx.path("project_dir.txt")).unwrap(),
        fx.root().canonicalize().unwrap().to_string_lossy()
    );
}

#[tokio::test]
async fn fields_for_the_wrong_event_are_invalid_output() {
    let fx = Fixture::new();
    let cases = [
        (
            r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"x"}}"#,
            "`hookSpecificOutput.hookEventName` is `PostToolUse` but this is a `PreToolUse` event",
        ),
        (
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedToolOutput":"x"}}"#,
            "`updatedToolOutput` is not allowed on `PreToolUse` events",
        ),
        (r#"{"continue":"no"}"#, "invalid type"),
        (r#"{"decision":"deny"}"#, "unknown variant `deny`"),
    ];
    for (output, want) in cases {
        let spec = sh("bad", Phase::BeforeTool, &format!("echo '{output}'"));
        let inv = pre_tool(&fx, spec, "Bash", &json!({"command": "ls"})).await;
        assert_eq!(inv.record.failure_kind, Some("invalid_output"), "{output}");
        assert_eq!(inv.flow.kind(), FlowKind::Skip, "before_tool fails closed");
        let msg = inv.record.message.unwrap();
        assert!(msg.contains(want), "{output}: {msg}");
    }
}

#[tokio::test]
async fn continue_false_terminates_and_plain_text_is_ignored() {
    let fx = Fixture::new();
    let spec = sh(
        "halt",
        Phase::BeforeTool,
        r#"echo '{"continue": false, "stopReason": "budget exhausted", "systemMessage": "bye"}'"#,
    );
    let inv = pre_tool(&fx, spec, "Bash", &json!({"command": "ls"})).await;
    assert_eq!(inv.flow, Flow::terminate("budget exhausted"));
    assert_eq!(inv.diagnostics(), vec!["hook `halt`: bye".to_owned()]);
    let spec = sh("chatty", Phase::BeforeTool, "echo 'checking command...'");
    let inv = pre_tool(&fx, spec, "Bash", &json!({"command": "ls"})).await;
    assert_eq!(inv.flow, Flow::Continue);
    assert_eq!(inv.record.failure_kind, None);
}

#[tokio::test]
async fn user_prompt_submit_context_and_blocks() {
    let fx = Fixture::new();
    let ctx = HookContext::new("sess-1");
    let event = StepEvent::UserPrompt {
        prompt: "fix the bug",
    };
    // Plain stdout on UserPromptSubmit is context (Claude Code adds it).
    let spec = sh("date", Phase::UserPrompt, "echo 'Current branch: main'");
    let inv = fx.hook(claude(spec)).invoke(&ctx, event).await;
    assert_eq!(
        inv.flow,
        Flow::RewritePrompt("fix the bug\n\nCurrent branch: main".into())
    );
    let spec = sh(
        "ctx",
        Phase::UserPrompt,
        r#"echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"Sprint ends Friday."}}'"#,
    );
    let inv = fx.hook(claude(spec)).invoke(&ctx, event).await;
    assert_eq!(
        inv.flow,
        Flow::RewritePrompt("fix the bug\n\nSprint ends Friday.".into())
    );
    let spec = sh(
        "block",
        Phase::UserPrompt,
        r#"echo '{"decision":"block","reason":"prompt contains a secret"}'"#,
    );
    let inv = fx.hook(claude(spec)).invoke(&ctx, event).await;
    assert_eq!(inv.flow, Flow::skip("prompt contains a secret"));
    // The prompt reaches the script as `prompt`.
    let spec = sh("seen", Phase::UserPrompt, "cat > prompt.json");
    fx.hook(claude(spec)).invoke(&ctx, event).await;
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(fx.path("prompt.json")).unwrap()).unwrap();
    assert_eq!(seen["hook_event_name"], "UserPromptSubmit");
    assert_eq!(seen["prompt"], "fix the bug");
}

#[tokio::test]
async fn post_tool_use_decision_block_tells_the_model() {
    let fx = Fixture::new();
    let args = json!({"command": "npm test"});
    let result = json!({"stdout": "3 failing"});
    let outcome = ToolOutcome::Success;
    let ctx = HookContext::new("sess-1");
    let spec = sh(
        "tests-failed",
        Phase::AfterTool,
        r#"echo '{"decision":"block","reason":"3 tests fail: fix them before continuing","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"see test/log.txt"}}'"#,
    );
    let inv = fx
        .hook(claude(spec))
        .invoke(
            &ctx,
            after_tool("Bash", "toolu_03", &args, &result, &outcome),
        )
        .await;
    assert_eq!(
        inv.flow,
        Flow::InjectContext(smallvec::smallvec![
            hooks_runtime::ContextItem::user("3 tests fail: fix them before continuing"),
            hooks_runtime::ContextItem::user("see test/log.txt"),
        ])
    );
}
