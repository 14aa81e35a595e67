//! `protocol: claude` read as Claude Code's hooks reference reads a
//! script's output, and the payload fields Claude Code sends when the
//! agent provides them. Each test cites the statement it checks.

#[path = "common/hooks.rs"]
mod hooks;

use hooks::{Fixture, after_tool, before_tool, sh};
use hooks_runtime::{
    ContextItem, FailureKind, Flow, HookContext, HookStack, Invocation, PermissionDecision,
    ShellHookSpec, StepEvent, ToolCall, ToolFailure, ToolOutcome,
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
    let args = json!({"command": "ls"});
    fx.hook(claude(spec))
        .invoke(
            &HookContext::new("run-1"),
            before_tool("Bash", "toolu_01", &args),
        )
        .await
}

fn last_record(fx: &Fixture) -> Value {
    fx.records()
        .into_iter()
        .rev()
        .find(|r| r["record"] == "hook")
        .expect("a hook record")
}

// Claude Code hooks reference, "Exit code output": on exit 0 "JSON output
// in stdout is parsed for structured control"; stdout that is not JSON is
// plain text, which "for UserPromptSubmit and SessionStart ... is added to
// the context" and elsewhere only reaches the debug log. Output that starts
// with `{` but does not parse as JSON is such plain text too (Claude Code
// falls back to plain text when parsing fails): it is no `invalid_output`.
#[tokio::test]
async fn stdout_starting_with_a_brace_that_is_not_json_is_plain_text() {
    let fx = Fixture::new();
    // On PreToolUse under `block` this was `invalid_output`: the call was
    // blocked. It is plain text: the call runs, the record notes why.
    let mut spec = sh("guard", Phase::BeforeTool, "echo '{not json: checked'");
    spec.failure_policy = FailurePolicy::Block;
    let inv = pre_tool(&fx, spec).await;
    assert_eq!(inv.flow, Flow::Continue, "{:?}", inv.record);
    assert_eq!(inv.report.failure, None);
    let record = last_record(&fx);
    assert_eq!(record["status"], "ok");
    let notes = record["notes"].to_string();
    assert!(notes.contains("read as plain text"), "{record}");

    // On SessionStart it is context; so is a JSON object followed by a log
    // line (the whole output fails to parse as one JSON document).
    let spec = claude(sh("banner", Phase::RunStart, "printf '{ project: demo }'"));
    let inv = fx
        .hook(spec)
        .invoke(&HookContext::new("r"), StepEvent::RUN_START)
        .await;
    assert_eq!(inv.flow, Flow::inject("{ project: demo }"));
    let spec = claude(sh(
        "prompt",
        Phase::UserPrompt,
        "printf '{\"a\":1}\\nlog line'",
    ));
    let inv = fx
        .hook(spec)
        .invoke(
            &HookContext::new("r"),
            StepEvent::UserPrompt { prompt: "go" },
        )
        .await;
    assert_eq!(
        inv.flow,
        Flow::RewritePrompt("go\n\n{\"a\":1}\nlog line".into())
    );
}

// Claude Code hooks reference, "Common JSON fields": `continue: false`
// stops Claude "after the hooks run" and "takes precedence over any
// event-specific decision output", with `stopReason` shown to the user;
// Claude Code reads stdout's JSON on every exit code (since v2.1.214), so a
// script that prints it and exits 2 stops the run.
#[tokio::test]
async fn continue_false_with_exit_2_stops_the_run() {
    let fx = Fixture::new();
    let spec = sh(
        "halt",
        Phase::BeforeTool,
        r#"echo '{"continue": false, "stopReason": "build broken"}'; echo denied >&2; exit 2"#,
    );
    let inv = pre_tool(&fx, spec).await;
    assert_eq!(inv.flow, Flow::terminate("build broken"));
    // Without a stopReason the run still ends, naming the hook.
    let spec = claude(sh(
        "halt",
        Phase::Stop,
        r#"echo '{"continue": false}'; exit 2"#,
    ));
    let event = StepEvent::Stop {
        loop_count: 0,
        text: "done",
        background_tasks: &Value::Null,
        session_crons: &Value::Null,
    };
    let inv = fx.hook(spec).invoke(&HookContext::new("r"), event).await;
    assert!(
        matches!(&inv.flow, Flow::Terminate { reason } if reason.contains("`halt`")),
        "{:?}",
        inv.flow
    );
}

// Claude Code hooks reference, "PermissionRequest decision control":
// `behavior: "allow"` grants the permission, and `updatedInput` "modifies
// the tool's input parameters before execution": the call is granted with
// the new input, not sent to the approver.
#[tokio::test]
async fn permission_allow_with_updated_input_grants_the_new_input() {
    let fx = Fixture::new();
    let out = json!({"hookSpecificOutput": {
        "hookEventName": "PermissionRequest",
        "decision": {"behavior": "allow", "updatedInput": {"command": "git push --dry-run"}}
    }});
    let spec = claude(sh(
        "rewrite",
        Phase::PermissionRequest,
        &format!("echo '{out}'"),
    ));
    let stack = HookStack::new().with("rewrite", fx.hook(spec));
    let args = json!({"command": "git push"});
    let call = ToolCall {
        tool_name: "Bash",
        call_id: "toolu_7",
        args: &args,
    };
    let decided = stack
        .permission_request(&HookContext::new("r"), call, &Value::Null)
        .await;
    match decided.decision {
        PermissionDecision::Allow { args } => {
            assert_eq!(*args, json!({"command": "git push --dry-run"}));
        }
        other => panic!("expected allow with the new input, got {other:?}"),
    }
}

// Claude Code hooks reference, "PreToolUse decision control":
// `permissionDecision` and `permissionDecisionReason` are fields of
// `hookSpecificOutput`; at the top level Claude Code does not read them. A
// script that puts one there meant a decision: it is `invalid_output` under
// the hook's failure policy, naming the field. Fields Claude Code does not
// define at all stay ignored, noted in the record.
#[tokio::test]
async fn a_known_field_in_the_wrong_place_is_invalid_output_naming_it() {
    let fx = Fixture::new();
    let mut spec = sh(
        "guard",
        Phase::BeforeTool,
        r#"echo '{"permissionDecision": "deny", "permissionDecisionReason": "no"}'"#,
    );
    spec.failure_policy = FailurePolicy::Block;
    let inv = pre_tool(&fx, spec).await;
    let failure = inv.report.failure.expect("a failure");
    assert_eq!(failure.kind, FailureKind::InvalidOutput);
    assert!(matches!(inv.flow, Flow::Skip { .. }), "{:?}", inv.flow);
    let message = inv.report.message.as_deref().unwrap_or_default();
    assert!(message.contains("`permissionDecision`"), "{message}");
    assert!(message.contains("hookSpecificOutput"), "{message}");

    // A top-level field in `hookSpecificOutput` is misplaced too.
    let spec = sh(
        "late",
        Phase::BeforeTool,
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "continue": false}}'"#,
    );
    let inv = pre_tool(&fx, spec).await;
    assert_eq!(
        inv.report.failure.map(|f| f.kind),
        Some(FailureKind::InvalidOutput)
    );
    let message = inv.report.message.as_deref().unwrap_or_default();
    assert!(
        message.contains("`hookSpecificOutput.continue`"),
        "{message}"
    );

    // A field nobody defines is ignored with a note.
    let inv = pre_tool(
        &fx,
        sh("chatty", Phase::BeforeTool, r#"echo '{"mood": "ok"}'"#),
    )
    .await;
    assert_eq!(inv.flow, Flow::Continue);
    assert_eq!(inv.report.failure, None);
    assert!(last_record(&fx)["notes"].to_string().contains("`mood`"));
}

/// The native protocol's `rewrite_args` is the tool's new arguments: an
/// object, as every tool's input is.
#[tokio::test]
async fn native_rewrite_args_must_be_an_object() {
    let fx = Fixture::new();
    for (value, kind) in [
        ("\"ls -la\"", "a string"),
        ("3", "a number"),
        ("[1]", "an array"),
    ] {
        let mut spec = sh(
            "rewrite",
            Phase::BeforeTool,
            &format!(r#"echo '{{"rewrite_args": {value}}}'"#),
        );
        spec.failure_policy = FailurePolicy::Warn;
        let args = json!({"command": "ls"});
        let inv = fx
            .hook(spec)
            .invoke(&HookContext::new("r"), before_tool("bash", "c1", &args))
            .await;
        assert_eq!(inv.flow, Flow::Continue, "{value}");
        assert_eq!(
            inv.report.failure.map(|f| f.kind),
            Some(FailureKind::InvalidOutput),
            "{value}"
        );
        let message = inv.report.message.as_deref().unwrap_or_default();
        assert!(
            message.contains("`rewrite_args` must be a JSON object") && message.contains(kind),
            "{message}"
        );
    }
}

// Claude Code hooks reference, "SessionStart input": `source` is "startup",
// "resume", "clear" or "compact", and `model` names the session's model.
#[tokio::test]
async fn session_start_sends_the_agents_source_and_model() {
    let fx = Fixture::new();
    let spec = claude(sh("dump", Phase::RunStart, "cat > seen.json"));
    let event = StepEvent::RunStart {
        source: "resume",
        model: "claude-sonnet-4-5",
    };
    fx.hook(spec.clone())
        .invoke(&HookContext::new("r"), event)
        .await;
    let got = seen(&fx);
    assert_eq!(got["source"], "resume");
    assert_eq!(got["model"], "claude-sonnet-4-5");
    // Nothing said: `startup`, no model.
    fx.hook(spec)
        .invoke(&HookContext::new("r"), StepEvent::RUN_START)
        .await;
    let got = seen(&fx);
    assert_eq!(got["source"], "startup");
    assert!(got.get("model").is_none(), "{got}");
}

// Claude Code hooks reference, "Stop and SubagentStop input":
// `background_tasks` and `session_crons` describe what is still running;
// SubagentStop adds `agent_transcript_path`, the subagent's own transcript.
#[tokio::test]
async fn stop_events_send_background_tasks_crons_and_the_agent_transcript() {
    let fx = Fixture::new();
    let tasks = json!([{"id": "bash_1", "command": "npm run dev", "status": "running"}]);
    let crons = json!([{"id": "c1", "schedule": "*/5 * * * *"}]);
    let spec = claude(sh("dump", Phase::Stop, "cat > seen.json"));
    let event = StepEvent::Stop {
        loop_count: 0,
        text: "done",
        background_tasks: &tasks,
        session_crons: &crons,
    };
    fx.hook(spec).invoke(&HookContext::new("r"), event).await;
    let got = seen(&fx);
    assert_eq!(got["background_tasks"], tasks);
    assert_eq!(got["session_crons"], crons);

    let spec = claude(sh("dump", Phase::SubagentStop, "cat > seen.json"));
    let event = StepEvent::SubagentStop {
        agent_id: "a1",
        agent_type: "Explore",
        loop_count: 0,
        text: "found it",
        agent_transcript_path: "/home/u/.claude/projects/p/s/subagents/agent-a1.jsonl",
        background_tasks: &tasks,
        session_crons: &Value::Null,
    };
    fx.hook(spec).invoke(&HookContext::new("r"), event).await;
    let got = seen(&fx);
    assert_eq!(
        got["agent_transcript_path"],
        "/home/u/.claude/projects/p/s/subagents/agent-a1.jsonl"
    );
    assert_eq!(got["background_tasks"], tasks);
    assert!(got.get("session_crons").is_none(), "not said: not sent");
}

// Claude Code hooks reference, "PostToolUse input" and "PostToolUseFailure
// input": `duration_ms` is how long the tool ran.
#[tokio::test]
async fn post_tool_use_sends_the_duration() {
    let fx = Fixture::new();
    let args = json!({"command": "make"});
    let result = json!({"output": "ok"});
    for outcome in [
        ToolOutcome::Success,
        ToolOutcome::failed(ToolFailure::Error),
    ] {
        let spec = claude(sh("dump", Phase::AfterTool, "cat > seen.json"));
        let mut event = after_tool("Bash", "toolu_3", &args, &result, &outcome);
        if let StepEvent::AfterTool { duration_ms, .. } = &mut event {
            *duration_ms = Some(1520);
        }
        fx.hook(spec).invoke(&HookContext::new("r"), event).await;
        let got = seen(&fx);
        assert_eq!(got["duration_ms"], 1520, "{got}");
    }
    // Not measured: not sent.
    let spec = claude(sh("dump", Phase::AfterTool, "cat > seen.json"));
    let ok = ToolOutcome::Success;
    fx.hook(spec)
        .invoke(
            &HookContext::new("r"),
            after_tool("Bash", "toolu_3", &args, &result, &ok),
        )
        .await;
    assert!(seen(&fx).get("duration_ms").is_none());
}

// Claude Code hooks reference, "PermissionRequest input": `tool_name`,
// `tool_input` and `permission_suggestions`, no `tool_use_id` (the call has
// no id yet). An empty call id is not sent.
#[tokio::test]
async fn permission_request_sends_no_empty_tool_use_id() {
    let fx = Fixture::new();
    let spec = claude(sh("dump", Phase::PermissionRequest, "cat > seen.json"));
    let args = json!({"command": "git push"});
    let event = StepEvent::PermissionRequest {
        tool_name: "Bash",
        call_id: "",
        args: &args,
        suggestions: &Value::Null,
    };
    fx.hook(spec).invoke(&HookContext::new("r"), event).await;
    let got = seen(&fx);
    assert!(got.get("tool_use_id").is_none(), "{got}");
    assert_eq!(got["tool_input"], args);
}

/// Context beside a decision still reaches the fold (unchanged behaviour
/// the new `args` slot must not disturb).
#[tokio::test]
async fn context_beside_an_allow_is_kept() {
    let fx = Fixture::new();
    let out = json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "updatedInput": {"command": "ls -1"},
        "additionalContext": "listing one per line"
    }});
    let inv = pre_tool(&fx, sh("both", Phase::BeforeTool, &format!("echo '{out}'"))).await;
    assert_eq!(inv.flow, Flow::RewriteArgs(json!({"command": "ls -1"})));
    assert_eq!(
        inv.context.to_vec(),
        vec![ContextItem::user("listing one per line")]
    );
    assert_eq!(inv.args, None);
}
