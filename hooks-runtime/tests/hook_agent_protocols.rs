//! `protocol: gemini`, `protocol: codex` and `protocol: copilot`: scripts
//! written for Gemini CLI, Codex and the Copilot CLI run unmodified. A Gemini CLI script receives Gemini
//! CLI's payload (its event names and fields, `GEMINI_PROJECT_DIR`) and
//! its output fields decide as they do in Gemini CLI (Gemini CLI hooks
//! reference: `decision: "deny"` + `reason`, `hookSpecificOutput.tool_input`
//! merged over the arguments, `tool_output`, `additionalContext`, exit 2);
//! a Codex script receives Claude Code's payload with Codex's `turn_id`;
//! a Copilot CLI script receives the CLI's camelCase payload and its flat
//! output fields and exit codes decide as in the CLI (Copilot CLI hooks
//! reference).

#[path = "common/hooks.rs"]
mod hooks;

use hooks::{Fixture, after_tool, before_tool, sh};
use hooks_runtime::{
    FailureKind, Flow, HookContext, ShellHookSpec, StepEvent, ToolFailure, ToolOutcome,
};
use hooks_schema::{Phase, Protocol};
use serde_json::{Value, json};

fn with(protocol: Protocol, mut spec: ShellHookSpec) -> ShellHookSpec {
    spec.protocol = protocol;
    spec
}

/// A hook that saves its stdin to `seen.json` and prints `output`.
fn saving(phase: Phase, output: &str) -> ShellHookSpec {
    let command = format!(
        "cat > seen.json; printf '%s' \"$GEMINI_PROJECT_DIR\" > dir.txt; printf '%s' '{output}'"
    );
    with(Protocol::Gemini, sh("g", phase, &command))
}

fn seen(fx: &Fixture) -> Value {
    let text = std::fs::read_to_string(fx.path("seen.json")).expect("the script wrote seen.json");
    serde_json::from_str(&text).expect("seen.json is JSON")
}

#[tokio::test]
async fn before_tool_is_gemini_clis_before_tool() {
    let fx = Fixture::new();
    let args = json!({"command": "rm -rf build", "dir_path": "."});
    let call = || before_tool("run_shell_command", "c1", &args);
    let ctx = HookContext::new("run-1");

    let deny = saving(
        Phase::BeforeTool,
        r#"{"decision":"deny","reason":"no removals"}"#,
    );
    let inv = fx.hook(deny).invoke(&ctx, call()).await;
    assert_eq!(inv.flow, Flow::skip("no removals"), "{:?}", inv.record);
    let payload = seen(&fx);
    assert_eq!(payload["hook_event_name"], "BeforeTool");
    assert_eq!(payload["tool_name"], "run_shell_command");
    assert_eq!(payload["tool_input"], args);
    let dir = std::fs::read_to_string(fx.path("dir.txt")).expect("dir.txt");
    assert_eq!(std::path::Path::new(&dir), fx.root(), "GEMINI_PROJECT_DIR");

    // `tool_input` is merged over the model's arguments.
    let merge = saving(
        Phase::BeforeTool,
        r#"{"hookSpecificOutput":{"tool_input":{"dir_path":"/tmp/sandbox"}}}"#,
    );
    let inv = fx.hook(merge).invoke(&ctx, call()).await;
    assert_eq!(
        inv.flow,
        Flow::RewriteArgs(json!({"command": "rm -rf build", "dir_path": "/tmp/sandbox"})),
        "{:?}",
        inv.record
    );

    // Exit 2 blocks with stderr as the reason, as in Gemini CLI.
    let exit2 = with(
        Protocol::Gemini,
        sh(
            "g",
            Phase::BeforeTool,
            "echo 'blocked by policy' >&2; exit 2",
        ),
    );
    let inv = fx.hook(exit2).invoke(&ctx, call()).await;
    assert_eq!(inv.flow, Flow::skip("blocked by policy"));

    // `allow` lets the call go on unchanged.
    let allow = saving(Phase::BeforeTool, r#"{"decision":"allow"}"#);
    assert_eq!(
        fx.hook(allow).invoke(&ctx, call()).await.flow,
        Flow::Continue
    );
}

#[tokio::test]
async fn after_tool_agent_and_prompt_events_keep_gemini_clis_meaning() {
    let fx = Fixture::new();
    let ctx = HookContext::new("run-1");
    let args = json!({"file_path": ".env"});
    let result = json!({"llmContent": "TOKEN=abc"});
    let ok = ToolOutcome::Success;
    let hide = saving(
        Phase::AfterTool,
        r#"{"hookSpecificOutput":{"tool_output":"[hidden]"}}"#,
    );
    let inv = fx
        .hook(hide)
        .invoke(&ctx, after_tool("read_file", "c1", &args, &result, &ok))
        .await;
    assert_eq!(
        inv.flow,
        Flow::RewriteResult(json!("[hidden]")),
        "{:?}",
        inv.record
    );
    assert_eq!(seen(&fx)["hook_event_name"], "AfterTool");

    // A failed tool: `AfterTool` with `tool_response.error`, context back.
    let failed = ToolOutcome::Failed {
        failure: ToolFailure::Error,
        message: Some("exit status 2".into()),
    };
    let context = saving(
        Phase::AfterTool,
        r#"{"hookSpecificOutput":{"additionalContext":"read the error"}}"#,
    );
    let inv = fx
        .hook(context)
        .invoke(
            &ctx,
            after_tool("run_shell_command", "c2", &args, &result, &failed),
        )
        .await;
    assert_eq!(inv.flow, Flow::inject("read the error"), "{:?}", inv.record);
    let payload = seen(&fx);
    assert_eq!(payload["hook_event_name"], "AfterTool");
    assert_eq!(payload["tool_response"], json!({"error": "exit status 2"}));
    assert!(payload.get("error").is_none(), "{payload}");

    // AfterAgent: `prompt_response`; a deny keeps the agent working.
    let stop = StepEvent::Stop {
        text: "done",
        loop_count: 0,
        background_tasks: &Value::Null,
        session_crons: &Value::Null,
    };
    let keep = saving(
        Phase::Stop,
        r#"{"decision":"deny","reason":"run the tests"}"#,
    );
    let inv = fx.hook(keep).invoke(&ctx, stop).await;
    assert_eq!(inv.flow, Flow::resume("run the tests"), "{:?}", inv.record);
    let payload = seen(&fx);
    assert_eq!(payload["hook_event_name"], "AfterAgent");
    assert_eq!(payload["prompt_response"], "done");

    // BeforeAgent: a deny drops the prompt.
    let prompt = StepEvent::UserPrompt {
        prompt: "api_key=1",
    };
    let drop = saving(
        Phase::UserPrompt,
        r#"{"decision":"deny","reason":"no keys"}"#,
    );
    let inv = fx.hook(drop).invoke(&ctx, prompt).await;
    assert_eq!(inv.flow, Flow::skip("no keys"), "{:?}", inv.record);
    assert_eq!(seen(&fx)["hook_event_name"], "BeforeAgent");
}

#[tokio::test]
async fn a_codex_script_reads_claude_codes_payload_with_the_turn() {
    let fx = Fixture::new();
    let args = json!({"command": "git push --force"});
    let spec = with(
        Protocol::Codex,
        sh(
            "c",
            Phase::BeforeTool,
            r#"cat > seen.json; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no force pushes"}}'"#,
        ),
    );
    let inv = fx
        .hook(spec)
        .invoke(&HookContext::new("run-7"), before_tool("Bash", "c1", &args))
        .await;
    assert_eq!(inv.flow, Flow::skip("no force pushes"), "{:?}", inv.record);
    let payload = seen(&fx);
    assert_eq!(payload["hook_event_name"], "PreToolUse");
    assert_eq!(payload["tool_input"], args);
    assert!(
        payload["turn_id"]
            .as_str()
            .is_some_and(|t| t.starts_with("run-7")),
        "{payload}"
    );
}

/// A Copilot CLI hook that saves its stdin to `seen.json`, prints
/// `output` and exits with `code`.
fn copilot(phase: Phase, output: &str, code: i32) -> ShellHookSpec {
    let mut spec = sh(
        "p",
        phase,
        &format!("cat > seen.json; printf '%s' '{output}'; echo 'why' >&2; exit {code}"),
    );
    spec.protocol = Protocol::Copilot;
    spec.failure_policy = hooks_schema::FailurePolicy::Warn;
    spec
}

#[tokio::test]
async fn a_copilot_cli_script_reads_camel_case_and_answers_flat() {
    let fx = Fixture::new();
    let ctx = HookContext::new("run-9");
    let args = json!({"command": "rm -rf build"});
    let call = || before_tool("bash", "c1", &args);

    let deny = copilot(
        Phase::BeforeTool,
        r#"{"permissionDecision":"deny","permissionDecisionReason":"no removals"}"#,
        0,
    );
    let inv = fx.hook(deny).invoke(&ctx, call()).await;
    assert_eq!(inv.flow, Flow::skip("no removals"), "{:?}", inv.record);
    let payload = seen(&fx);
    assert_eq!(payload["toolName"], "bash");
    assert_eq!(payload["toolArgs"], args);
    assert_eq!(payload["sessionId"], "run-9");
    assert!(payload["timestamp"].as_u64().is_some(), "{payload}");
    assert!(payload.get("hook_event_name").is_none(), "{payload}");

    let modify = copilot(Phase::BeforeTool, r#"{"modifiedArgs":{"command":"ls"}}"#, 0);
    let inv = fx.hook(modify).invoke(&ctx, call()).await;
    assert_eq!(
        inv.flow,
        Flow::RewriteArgs(json!({"command": "ls"})),
        "{:?}",
        inv.record
    );

    // The CLI logs a nonzero exit and goes on: a failure for the policy
    // (`warn` here), never a deny.
    let exit2 = copilot(Phase::BeforeTool, "", 2);
    let inv = fx.hook(exit2).invoke(&ctx, call()).await;
    assert_eq!(inv.flow, Flow::Continue);
    assert_eq!(
        inv.report.failure.map(|f| f.kind),
        Some(FailureKind::NonzeroExit)
    );

    // permissionRequest: `behavior`, and exit 2 is a deny.
    let request = || StepEvent::PermissionRequest {
        tool_name: "bash",
        call_id: "",
        args: &args,
        suggestions: &Value::Null,
    };
    let refuse = copilot(
        Phase::PermissionRequest,
        r#"{"behavior":"deny","message":"not here"}"#,
        0,
    );
    let inv = fx.hook(refuse).invoke(&ctx, request()).await;
    assert_eq!(inv.flow, Flow::skip("not here"), "{:?}", inv.record);
    let exit2 = copilot(Phase::PermissionRequest, "", 2);
    let inv = fx.hook(exit2).invoke(&ctx, request()).await;
    assert_eq!(inv.flow, Flow::skip("why"), "{:?}", inv.record);

    // agentStop: `decision: "block"` keeps the agent working.
    let stop = StepEvent::Stop {
        text: "done",
        loop_count: 0,
        background_tasks: &Value::Null,
        session_crons: &Value::Null,
    };
    let keep = copilot(
        Phase::Stop,
        r#"{"decision":"block","reason":"tests first"}"#,
        0,
    );
    let inv = fx.hook(keep).invoke(&ctx, stop).await;
    assert_eq!(inv.flow, Flow::resume("tests first"), "{:?}", inv.record);
    assert_eq!(seen(&fx)["stopReason"], "end_turn");

    // postToolUse: the result as `toolResult`; postToolUseFailure: exit 2's
    // stderr is recovery guidance.
    let result = json!("Makefile\nsrc");
    let ok = ToolOutcome::Success;
    let watch = copilot(Phase::AfterTool, "", 0);
    let inv = fx
        .hook(watch)
        .invoke(&ctx, after_tool("bash", "c1", &args, &result, &ok))
        .await;
    assert_eq!(inv.flow, Flow::Continue);
    assert_eq!(
        seen(&fx)["toolResult"],
        json!({"resultType": "success", "textResultForLlm": "Makefile\nsrc"})
    );
    let failed = ToolOutcome::Failed {
        failure: ToolFailure::Error,
        message: Some("exit status 2".into()),
    };
    let guide = copilot(Phase::AfterTool, "", 2);
    let inv = fx
        .hook(guide)
        .invoke(&ctx, after_tool("bash", "c1", &args, &result, &failed))
        .await;
    assert_eq!(inv.flow, Flow::inject("why"), "{:?}", inv.record);
    assert_eq!(seen(&fx)["error"], "exit status 2");
}

#[tokio::test]
async fn a_gemini_model_hook_patches_the_request() {
    let fx = Fixture::new();
    let ctx = HookContext::new("run-1");
    let request = json!({"model": "gemini-2.5-pro", "messages": [], "config": {}});
    let over = saving(
        Phase::BeforeCompletion,
        r#"{"hookSpecificOutput":{"llm_request":{"model":"gemini-2.5-flash","config":{"temperature":0.1}},"toolConfig":{"mode":"NONE"}}}"#,
    );
    let inv = fx
        .hook(over)
        .invoke(&ctx, StepEvent::BeforeCompletion { request: &request })
        .await;
    let Flow::PatchRequest(patch) = &inv.flow else {
        panic!("a patch: {:?}", inv.record);
    };
    assert_eq!(patch.temperature, Some(0.1));
    assert_eq!(
        patch.additional_params.get("model").map(|m| m.to_value()),
        Some(json!("gemini-2.5-flash"))
    );
    assert_eq!(patch.tool_choice, Some(hooks_plan::ToolChoice::None));
    let payload = seen(&fx);
    assert_eq!(payload["hook_event_name"], "BeforeModel");
    assert_eq!(payload["llm_request"], request);

    // `decision: "deny"` aborts the turn: the run ends.
    let deny = saving(
        Phase::BeforeCompletion,
        r#"{"decision":"deny","reason":"over budget"}"#,
    );
    let inv = fx
        .hook(deny)
        .invoke(&ctx, StepEvent::BeforeCompletion { request: &request })
        .await;
    assert_eq!(inv.flow, Flow::terminate("over budget"));

    let response = json!({"candidates": []});
    let watch = saving(Phase::AfterCompletion, "{}");
    let inv = fx
        .hook(watch)
        .invoke(
            &ctx,
            StepEvent::AfterCompletion {
                response: &response,
            },
        )
        .await;
    assert_eq!(inv.flow, Flow::Continue);
    let payload = seen(&fx);
    assert_eq!(payload["hook_event_name"], "AfterModel");
    assert_eq!(payload["llm_response"], response);
}

#[tokio::test]
async fn a_gemini_after_tool_hook_replaces_a_failed_result_too() {
    let fx = Fixture::new();
    let ctx = HookContext::new("run-1");
    let args = json!({"command": "make"});
    let result = json!("secret=abc");
    let failed = ToolOutcome::Failed {
        failure: ToolFailure::Error,
        message: Some("exit status 2".into()),
    };
    // Gemini CLI has one AfterTool for success and failure: its
    // `tool_output` replaces a failed call's result as well.
    let replace = saving(
        Phase::AfterTool,
        r#"{"hookSpecificOutput":{"tool_output":"[hidden]","additionalContext":"retry with -k"}}"#,
    );
    let inv = fx
        .hook(replace)
        .invoke(
            &ctx,
            after_tool("run_shell_command", "c1", &args, &result, &failed),
        )
        .await;
    assert_eq!(
        inv.flow,
        Flow::RewriteResult(json!("[hidden]")),
        "{:?}",
        inv.record
    );
    assert_eq!(inv.context.len(), 1, "{:?}", inv.context);
    // `decision: "deny"` hides the output behind the reason.
    let ok = ToolOutcome::Success;
    let hide = saving(
        Phase::AfterTool,
        r#"{"decision":"deny","reason":"output withheld"}"#,
    );
    let inv = fx
        .hook(hide)
        .invoke(&ctx, after_tool("read_file", "c2", &args, &result, &ok))
        .await;
    assert_eq!(inv.flow, Flow::RewriteResult(json!("output withheld")));
}
