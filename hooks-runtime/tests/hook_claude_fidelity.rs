//! `protocol: claude` output fidelity and session identity: what Claude
//! Code's hooks reference says a script's input and output mean, checked
//! with small scripts written here.

#[path = "common/hooks.rs"]
mod hooks;

use hooks::{Fixture, after_tool, before_tool, exec, sh};
use hooks_runtime::{
    ContextItem, Flow, HookContext, HookStack, Invocation, ShellHookSpec, StepEvent, ToolFailure,
    ToolOutcome,
};
use hooks_schema::{FailurePolicy, Phase, Protocol};
use serde_json::{Value, json};

fn claude(mut spec: ShellHookSpec) -> ShellHookSpec {
    spec.protocol = Protocol::Claude;
    spec
}

fn seen(fx: &Fixture) -> Value {
    let text = std::fs::read_to_string(fx.path("seen.json")).expect("the script wrote seen.json");
    serde_json::from_str(&text).expect("seen.json is JSON")
}

async fn pre_tool(fx: &Fixture, spec: ShellHookSpec) -> Invocation {
    let ctx = HookContext::new("run-1");
    let args = json!({"command": "ls"});
    fx.hook(claude(spec))
        .invoke(&ctx, before_tool("Bash", "toolu_01", &args))
        .await
}

#[tokio::test]
async fn the_session_identity_reaches_the_script() {
    let fx = Fixture::new();
    let spec = claude(sh("dump", Phase::Stop, "cat > seen.json"));
    let ctx = HookContext::new("run-1")
        .with_session_id("2f1c-sess")
        .with_transcript_path("/home/u/.claude/projects/p/2f1c-sess.jsonl")
        .with_cwd("/work/project")
        .with_permission_mode("acceptEdits");
    let event = StepEvent::Stop {
        loop_count: 0,
        text: "done",
        background_tasks: &serde_json::Value::Null,
        session_crons: &serde_json::Value::Null,
    };
    fx.hook(spec.clone()).invoke(&ctx, event).await;
    let got = seen(&fx);
    assert_eq!(got["session_id"], "2f1c-sess");
    assert_eq!(
        got["transcript_path"],
        "/home/u/.claude/projects/p/2f1c-sess.jsonl"
    );
    assert_eq!(got["cwd"], "/work/project");
    assert_eq!(got["permission_mode"], "acceptEdits");
    // Defaults: the run id, no transcript, the hook's cwd, `default`.
    fx.hook(spec)
        .invoke(&HookContext::new("run-2"), event)
        .await;
    let got = seen(&fx);
    assert_eq!(got["session_id"], "run-2");
    assert_eq!(got["transcript_path"], "");
    assert_eq!(
        got["cwd"],
        fx.root().canonicalize().unwrap().to_string_lossy().as_ref()
    );
    assert_eq!(got["permission_mode"], "default");
}

#[tokio::test]
async fn a_failed_tool_is_post_tool_use_failure_with_the_error() {
    let fx = Fixture::new();
    let spec = claude(sh("dump", Phase::AfterTool, "cat > seen.json"));
    let args = json!({"command": "make"});
    let result = json!({"output": "make: *** No rule to make target"});
    let failed = ToolOutcome::failed(ToolFailure::Error);
    fx.hook(spec.clone())
        .invoke(
            &HookContext::new("r"),
            after_tool("Bash", "toolu_9", &args, &result, &failed),
        )
        .await;
    let got = seen(&fx);
    assert_eq!(got["hook_event_name"], "PostToolUseFailure");
    assert_eq!(got["error"], "make: *** No rule to make target");
    assert_eq!(got["is_interrupt"], false);
    assert_eq!(got["tool_input"], args);
    assert!(got.get("tool_response").is_none(), "{got}");
    let ok = ToolOutcome::Success;
    fx.hook(spec)
        .invoke(
            &HookContext::new("r"),
            after_tool("Bash", "toolu_9", &args, &result, &ok),
        )
        .await;
    let got = seen(&fx);
    assert_eq!(got["hook_event_name"], "PostToolUse");
    assert_eq!(got["tool_response"], result);
}

#[tokio::test]
async fn unknown_fields_are_ignored_with_a_note_in_the_record() {
    let fx = Fixture::new();
    let spec = sh(
        "future",
        Phase::BeforeTool,
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","futureKnob":true},"someFutureField":1}'"#,
    );
    let inv = pre_tool(&fx, spec).await;
    assert_eq!(inv.flow, Flow::Continue);
    assert_eq!(inv.record.failure_kind, None);
    assert_eq!(
        inv.record.notes,
        vec![
            "unknown output field `someFutureField` ignored".to_owned(),
            "unknown output field `hookSpecificOutput.futureKnob` ignored".to_owned(),
        ]
    );
    let line = fx.records_text();
    assert!(line.contains("someFutureField"), "{line}");
}

#[tokio::test]
async fn pre_tool_use_additional_context_is_not_a_failure() {
    let fx = Fixture::new();
    let spec = sh(
        "remind",
        Phase::BeforeTool,
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"skills-codex/ needs the same edit"}}'"#,
    );
    let inv = pre_tool(&fx, spec).await;
    assert_eq!(inv.record.failure_kind, None, "{:?}", inv.record.message);
    assert_eq!(
        inv.flow,
        Flow::InjectContext(vec![ContextItem::user("skills-codex/ needs the same edit")].into())
    );
}

#[tokio::test]
async fn allow_with_updated_input_and_context_applies_both_through_the_stack() {
    let fx = Fixture::new();
    let spec = claude(sh(
        "tavily",
        Phase::BeforeTool,
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -a"},"additionalContext":"hidden files shown"}}'"#,
    ));
    let args = json!({"command": "ls"});
    let stack = HookStack::new().with("tavily", fx.hook(spec));
    let out = stack
        .fold(&HookContext::new("r"), before_tool("Bash", "t", &args))
        .await;
    assert_eq!(out.args, Some(json!({"command": "ls -a"})));
    assert_eq!(
        out.context.to_vec(),
        vec![ContextItem::user("hidden files shown")]
    );
    assert_eq!(out.decision, None);
}

#[tokio::test]
async fn session_start_context_and_plain_stdout_are_not_failures() {
    let fx = Fixture::new();
    for command in [
        r#"echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"use the skills"}}'"#,
        "echo 'Branch: main, 2 files changed'",
    ] {
        let spec = claude(sh("start", Phase::RunStart, command));
        let inv = fx
            .hook(spec)
            .invoke(&HookContext::new("r"), StepEvent::RUN_START)
            .await;
        assert_eq!(inv.record.failure_kind, None, "{command}");
        assert_eq!(
            inv.flow.kind(),
            hooks_runtime::FlowKind::InjectContext,
            "{command}"
        );
    }
}

#[tokio::test]
async fn a_result_rewrite_keeps_its_context_through_the_stack() {
    let fx = Fixture::new();
    let spec = claude(sh(
        "scrub",
        Phase::AfterTool,
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"output was scrubbed","updatedToolOutput":{"output":"[scrubbed]"}}}'"#,
    ));
    let args = json!({"command": "cat log"});
    let result = json!({"output": "token=abc"});
    let ok = ToolOutcome::Success;
    let event = after_tool("Bash", "t", &args, &result, &ok);
    let inv = fx
        .hook(spec.clone())
        .invoke(&HookContext::new("r"), event)
        .await;
    assert_eq!(
        inv.flow,
        Flow::RewriteResult(json!({"output": "[scrubbed]"}))
    );
    assert_eq!(
        inv.context.to_vec(),
        vec![ContextItem::user("output was scrubbed")]
    );
    let stack = HookStack::new().with("scrub", fx.hook(spec));
    let out = stack.fold(&HookContext::new("r"), event).await;
    assert_eq!(out.result, Some(json!({"output": "[scrubbed]"})));
    assert_eq!(
        out.context.to_vec(),
        vec![ContextItem::user("output was scrubbed")]
    );
}

#[tokio::test]
async fn stop_additional_context_keeps_the_agent_working() {
    let fx = Fixture::new();
    let spec = claude(sh(
        "loop",
        Phase::Stop,
        r#"echo '{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"2 tasks left in TODO.md"}}'"#,
    ));
    let event = StepEvent::Stop {
        loop_count: 0,
        text: "done",
        background_tasks: &serde_json::Value::Null,
        session_crons: &serde_json::Value::Null,
    };
    let inv = fx.hook(spec).invoke(&HookContext::new("r"), event).await;
    assert_eq!(inv.flow, Flow::resume("2 tasks left in TODO.md"));
}

#[tokio::test]
async fn exit_2_takes_the_reason_of_a_json_block_on_stdout() {
    let fx = Fixture::new();
    let spec = sh(
        "gate",
        Phase::BeforeTool,
        r#"echo '{"decision":"block","reason":"holdout data is off limits"}'; exit 2"#,
    );
    let inv = pre_tool(&fx, spec).await;
    assert_eq!(inv.flow, Flow::skip("holdout data is off limits"));
    // Without a JSON reason, stderr is the reason, as before.
    let spec = sh(
        "guard",
        Phase::BeforeTool,
        "echo 'no' >&2; echo '{}'; exit 2",
    );
    let inv = pre_tool(&fx, spec).await;
    assert_eq!(inv.flow, Flow::skip("no"));
}

#[tokio::test]
async fn a_missing_script_is_spawn_failed_under_the_failure_policy() {
    let fx = Fixture::new();
    for (mut spec, script) in [
        (
            sh("typo", Phase::BeforeTool, "sh hooks/gaurd.sh"),
            "hooks/gaurd.sh",
        ),
        (
            exec("typo", Phase::BeforeTool, &["python3", "missing.py"]),
            "missing.py",
        ),
    ] {
        spec.failure_policy = FailurePolicy::Warn;
        for protocol in [Protocol::Claude, Protocol::Native] {
            spec.protocol = protocol;
            let args = json!({"command": "ls"});
            let inv = fx
                .hook(spec.clone())
                .invoke(&HookContext::new("r"), before_tool("Bash", "t", &args))
                .await;
            assert_eq!(inv.flow, Flow::Continue, "warn lets the call run");
            assert_eq!(inv.record.failure_kind, Some("spawn_failed"));
            let message = inv.record.message.unwrap_or_default();
            assert!(message.contains(script), "{message}");
        }
    }
}

async fn permission(fx: &Fixture, output: &str) -> Invocation {
    let spec = claude(sh(
        "perm",
        Phase::PermissionRequest,
        &format!("cat > seen.json; echo '{output}'"),
    ));
    let args = json!({"command": "git push"});
    let suggestions = json!([{"type": "setMode", "mode": "acceptEdits"}]);
    let event = StepEvent::PermissionRequest {
        tool_name: "Bash",
        call_id: "t",
        args: &args,
        suggestions: &suggestions,
    };
    fx.hook(spec).invoke(&HookContext::new("r"), event).await
}

#[tokio::test]
async fn permission_request_answers_map_to_flows() {
    let fx = Fixture::new();
    let answer = |d: &str| {
        format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PermissionRequest","decision":{d}}}}}"#
        )
    };
    let inv = permission(&fx, &answer(r#"{"behavior":"allow"}"#)).await;
    assert_eq!(inv.flow, Flow::Allow);
    let got = seen(&fx);
    assert_eq!(got["hook_event_name"], "PermissionRequest");
    assert_eq!(got["tool_input"], json!({"command": "git push"}));
    assert_eq!(got["permission_suggestions"][0]["mode"], "acceptEdits");
    let inv = permission(
        &fx,
        &answer(r#"{"behavior":"allow","updatedInput":{"command":"git push --dry-run"}}"#),
    )
    .await;
    // Granted, with the new input applied before the allow.
    assert_eq!(inv.flow, Flow::Allow);
    assert_eq!(inv.args, Some(json!({"command": "git push --dry-run"})));
    let inv = permission(&fx, &answer(r#"{"behavior":"deny","message":"no pushes"}"#)).await;
    assert_eq!(inv.flow, Flow::skip("no pushes"));
    let inv = permission(
        &fx,
        &answer(r#"{"behavior":"deny","message":"stop now","interrupt":true}"#),
    )
    .await;
    assert_eq!(inv.flow, Flow::terminate("stop now"));
    // No decision: the permission flow proceeds.
    let inv = permission(&fx, r#"{}"#).await;
    assert_eq!(inv.flow, Flow::Continue);
}

#[tokio::test]
async fn subagent_stop_compaction_and_batch_decisions() {
    let fx = Fixture::new();
    let ctx = HookContext::new("r");
    let block = r#"echo '{"decision":"block","reason":"not yet"}'"#;
    let spec = claude(sh("sub", Phase::SubagentStop, block));
    let event = StepEvent::SubagentStop {
        agent_id: "a1",
        agent_type: "Explore",
        loop_count: 0,
        text: "found it",
        agent_transcript_path: "",
        background_tasks: &serde_json::Value::Null,
        session_crons: &serde_json::Value::Null,
    };
    assert_eq!(
        fx.hook(spec).invoke(&ctx, event).await.flow,
        Flow::resume("not yet")
    );
    let compaction = StepEvent::BeforeCompaction {
        trigger: "auto",
        instructions: "",
    };
    let spec = claude(sh("pre", Phase::BeforeCompaction, block));
    assert_eq!(
        fx.hook(spec).invoke(&ctx, compaction).await.flow,
        Flow::skip("not yet")
    );
    let spec = claude(sh("pre2", Phase::BeforeCompaction, "echo busy >&2; exit 2"));
    assert_eq!(
        fx.hook(spec).invoke(&ctx, compaction).await.flow,
        Flow::skip("busy")
    );
    let calls =
        json!([{"tool_name": "Read", "tool_input": {}, "tool_use_id": "t1", "tool_response": "x"}]);
    let batch = StepEvent::AfterToolBatch { calls: &calls };
    let spec = claude(sh(
        "batch",
        Phase::AfterToolBatch,
        r#"cat > seen.json; echo '{"hookSpecificOutput":{"hookEventName":"PostToolBatch","additionalContext":"run pytest"}}'"#,
    ));
    assert_eq!(
        fx.hook(spec).invoke(&ctx, batch).await.flow,
        Flow::InjectContext(vec![ContextItem::user("run pytest")].into())
    );
    assert_eq!(seen(&fx)["tool_calls"], calls);
}

#[tokio::test]
async fn observe_only_events_carry_their_fields() {
    let fx = Fixture::new();
    let ctx = HookContext::new("r");
    let dump = |id: &str, phase| claude(sh(id, phase, "cat > seen.json"));
    let event = StepEvent::Notification {
        notification_type: "idle_prompt",
        title: "Waiting",
        message: "Claude is waiting for your input",
    };
    fx.hook(dump("n", Phase::Notification))
        .invoke(&ctx, event)
        .await;
    let got = seen(&fx);
    assert_eq!(
        (
            &got["hook_event_name"],
            &got["notification_type"],
            &got["message"]
        ),
        (
            &json!("Notification"),
            &json!("idle_prompt"),
            &json!("Claude is waiting for your input")
        )
    );
    let event = StepEvent::RunEnd {
        output: "",
        reason: "logout",
    };
    fx.hook(dump("e", Phase::RunEnd)).invoke(&ctx, event).await;
    assert_eq!(seen(&fx)["reason"], "logout");
    let event = StepEvent::AfterCompaction {
        trigger: "manual",
        summary: "we fixed the parser",
    };
    fx.hook(dump("c", Phase::AfterCompaction))
        .invoke(&ctx, event)
        .await;
    assert_eq!(seen(&fx)["compact_summary"], "we fixed the parser");
}
