//! The adapter through a real rig agent on rig's scripted model
//! (`MockCompletionModel`): each test fails without the adapter's mapping.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hooks_rig::RigHooks;
use hooks_runtime::{Dispatcher, Executor, HookStack, Table, TableRef};
use rig_agent::AgentBuilder;
use rig_agent::agent::AgentHook;
use rig_agent::agent::StepEventKind as RigKind;
use rig_agent::tool::{Tool, ToolContext, ToolExecutionError};
use rig_core::completion::CompletionRequest;
use rig_core::test_utils::{MockCompletionModel, MockTurn};
use serde::Deserialize;
use serde_json::json;

/// `touch {path}`: writes `path` (relative to its directory) — the side
/// effect a block must prevent.
#[derive(Clone)]
struct Touch {
    dir: PathBuf,
}

#[derive(Deserialize)]
struct TouchArgs {
    path: String,
}

impl Tool for Touch {
    const NAME: &'static str = "touch";
    type Args = TouchArgs;
    type Output = String;
    type Error = ToolExecutionError;

    fn description(&self) -> String {
        "creates a file".into()
    }

    fn parameters(&self) -> serde_json::Value {
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
    }

    async fn call(
        &self,
        _context: &mut ToolContext,
        args: TouchArgs,
    ) -> Result<String, Self::Error> {
        std::fs::write(self.dir.join(&args.path), "touched\n")
            .map_err(ToolExecutionError::from_error)?;
        Ok(format!("created {}", args.path))
    }
}

/// The hooks of `yaml`, bound to a shell runtime rooted at `root`.
fn hooks(yaml: &str, root: &Path) -> RigHooks {
    let table = Table::load_str(yaml, "test.yaml").expect("config loads");
    let shell = Arc::new(table.shell_runtime(Executor::new(root).expect("executor")));
    let dispatcher = Dispatcher::new(TableRef::Shared(Arc::new(table))).with_shell(shell);
    RigHooks::new(HookStack::new().with("test.yaml", dispatcher))
}

/// A model that calls `touch {path}` once, then answers `done`.
fn touch_then_done(path: &str) -> MockCompletionModel {
    MockCompletionModel::from_turns([
        MockTurn::tool_call("call-1", "touch", json!({"path": path})),
        MockTurn::text("done"),
    ])
}

/// Runs one prompt with `hooks` and the `touch` tool writing into `dir`.
async fn run(
    model: &MockCompletionModel,
    hooks: RigHooks,
    dir: &Path,
    max_turns: usize,
) -> Result<String, String> {
    let agent = AgentBuilder::new(model.clone())
        .tool(Touch {
            dir: dir.to_path_buf(),
        })
        .add_hook(hooks)
        .build();
    agent
        .prompt("go")
        .max_turns(max_turns)
        .await
        .map(|response| response.output())
        .map_err(|e| e.to_string())
}

/// The request as text (to search for what reached the model).
fn text(request: &CompletionRequest) -> String {
    format!(
        "{} {}",
        serde_json::to_string(&request.chat_history).unwrap(),
        serde_json::to_string(&request.documents).unwrap()
    )
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

const BLOCK: &str = r#"
version: 1
hooks:
  - id: no-secrets
    phase: before_tool
    include_tools: [touch]
    when: { pointer: /path, glob: "*secret*" }
    block: { reason: "secret files are off limits" }
"#;

#[tokio::test]
async fn a_block_keeps_the_tool_from_running_and_the_model_sees_the_reason() {
    let dir = tempdir();
    let model = touch_then_done("secret.txt");
    let output = run(&model, hooks(BLOCK, dir.path()), dir.path(), 4).await;
    assert_eq!(output.as_deref(), Ok("done"));
    assert!(
        !dir.path().join("secret.txt").exists(),
        "the blocked tool ran"
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        text(&requests[1]).contains("secret files are off limits"),
        "the next request carries the reason: {}",
        text(&requests[1])
    );

    // A call the rule does not match runs.
    let model = touch_then_done("notes.txt");
    run(&model, hooks(BLOCK, dir.path()), dir.path(), 4)
        .await
        .unwrap();
    assert!(dir.path().join("notes.txt").exists());
}

/// [`BLOCK`]'s rule, then an `after_tool` rule.
const REMIND: &str = r#"  - id: remind
    phase: after_tool
    include_tools: [touch]
    inject: { content: "THE TOOL RAN" }
"#;

/// A table without a shell runtime answers a block without a fold
/// (`HookStack::before_tool_now`); with an `on_applied` callback the
/// adapter folds. Both keep the tool from running, give the model the
/// reason, and run no `after_tool` hook for the denied call.
#[tokio::test]
async fn a_block_decided_without_a_fold_acts_as_a_folded_one() {
    let dir = tempdir();
    let unbound = || {
        let yaml = format!("{BLOCK}{REMIND}");
        let table = Table::load_str(&yaml, "test.yaml").expect("config loads");
        RigHooks::from_hook("test.yaml", table)
    };
    let applied = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&applied);
    let folded = unbound().on_applied(move |a| seen.lock().unwrap().push(a.action.to_owned()));
    for (hooks, how) in [(unbound(), "at once"), (folded, "folded")] {
        let model = touch_then_done("secret.txt");
        let output = run(&model, hooks, dir.path(), 4).await;
        assert_eq!(output.as_deref(), Ok("done"), "{how}");
        assert!(
            !dir.path().join("secret.txt").exists(),
            "{how}: the tool ran"
        );
        let next = text(&model.requests()[1]);
        assert!(
            next.contains("secret files are off limits"),
            "{how}: {next}"
        );
        assert!(
            !next.contains("THE TOOL RAN"),
            "{how}: after_tool ran: {next}"
        );
    }
    assert_eq!(
        applied.lock().unwrap().as_slice(),
        ["deny: secret files are off limits"],
        "the callback saw the folded run only"
    );
    // An allowed call runs, and its `after_tool` hook with it.
    let model = touch_then_done("notes.txt");
    run(&model, unbound(), dir.path(), 4).await.unwrap();
    assert!(dir.path().join("notes.txt").exists());
    assert!(text(&model.requests()[1]).contains("THE TOOL RAN"));
}

#[tokio::test]
async fn a_rewrite_reaches_the_tool() {
    let dir = tempdir();
    let yaml = r#"
version: 1
hooks:
  - id: redirect
    phase: before_tool
    include_tools: [touch]
    rewrite:
      - { op: set, pointer: /path, value: "redirected.txt" }
"#;
    let model = touch_then_done("asked.txt");
    run(&model, hooks(yaml, dir.path()), dir.path(), 4)
        .await
        .unwrap();
    assert!(
        dir.path().join("redirected.txt").exists(),
        "the rewritten args did not reach the tool"
    );
    assert!(!dir.path().join("asked.txt").exists());
}

#[tokio::test]
async fn a_patch_reaches_the_model_request() {
    let dir = tempdir();
    let yaml = r#"
version: 1
hooks:
  - id: focused
    phase: before_completion
    patch:
      preamble: "PATCHED PREAMBLE"
      temperature: 0.25
      max_tokens: 77
      tool_choice: required
      additional_params: { top_p: 0.5 }
      extra_context: ["EXTRA CONTEXT DOC"]
"#;
    let model = MockCompletionModel::from_turns([MockTurn::text("done")]);
    run(&model, hooks(yaml, dir.path()), dir.path(), 2)
        .await
        .unwrap();
    let requests = model.requests();
    let first = &requests[0];
    assert_eq!(first.temperature, Some(0.25));
    assert_eq!(first.max_tokens, Some(77));
    assert_eq!(
        first.tool_choice,
        Some(rig_core::message::ToolChoice::Required)
    );
    assert_eq!(
        first
            .additional_params
            .as_ref()
            .and_then(|p| p.get("top_p")),
        Some(&json!(0.5))
    );
    let seen = text(first);
    assert!(seen.contains("PATCHED PREAMBLE"), "{seen}");
    assert!(seen.contains("EXTRA CONTEXT DOC"), "{seen}");
}

#[tokio::test]
async fn injected_context_reaches_the_next_request() {
    let dir = tempdir();
    let yaml = r#"
version: 1
hooks:
  - id: remind
    phase: after_tool
    include_tools: [touch]
    inject: { content: "REMEMBER TO RUN THE TESTS" }
"#;
    let model = touch_then_done("a.txt");
    run(&model, hooks(yaml, dir.path()), dir.path(), 4)
        .await
        .unwrap();
    let requests = model.requests();
    assert!(!text(&requests[0]).contains("REMEMBER TO RUN THE TESTS"));
    // rig folds per-turn documents into the request's prompt message.
    assert!(
        text(&requests[1]).contains("REMEMBER TO RUN THE TESTS"),
        "{}",
        text(&requests[1])
    );
}

#[tokio::test]
async fn a_stop_hook_keeps_the_agent_working_until_the_cap() {
    let dir = tempdir();
    let yaml = r#"
version: 1
limits:
  max_stop_resumes_per_turn: 2
hooks:
  - id: keep-going
    phase: stop
    run:
      command: "echo '{\"decision\": \"resume\", \"reason\": \"KEEP WORKING\"}'"
"#;
    let model = MockCompletionModel::from_turns([
        MockTurn::text("first"),
        MockTurn::text("second"),
        MockTurn::text("third"),
        MockTurn::text("fourth"),
    ]);
    let output = run(&model, hooks(yaml, dir.path()), dir.path(), 10).await;
    // Two resumes (the cap), then the third stop is refused: three requests.
    assert_eq!(output.as_deref(), Ok("third"));
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    assert!(
        text(&requests[1]).contains("KEEP WORKING"),
        "{}",
        text(&requests[1])
    );
}

/// A `before_tool` shell hook that fails (exit 3) under `policy`.
fn failing(policy: &str) -> String {
    format!(
        r#"
version: 1
hooks:
  - id: broken-guard
    phase: before_tool
    include_tools: [touch]
    run: {{ command: "exit 3" }}
    failure_policy: {policy}
"#
    )
}

#[tokio::test]
async fn a_failing_shell_hook_under_each_failure_policy() {
    for (policy, runs, ends_ok) in [
        ("ignore", true, true),
        ("warn", true, true),
        ("block", false, true),
        ("fail", false, false),
    ] {
        let dir = tempdir();
        let model = touch_then_done("f.txt");
        let output = run(&model, hooks(&failing(policy), dir.path()), dir.path(), 4).await;
        assert_eq!(
            dir.path().join("f.txt").exists(),
            runs,
            "policy {policy}: did the tool run?"
        );
        assert_eq!(output.is_ok(), ends_ok, "policy {policy}: {output:?}");
        if policy == "block" {
            assert_eq!(
                model.request_count(),
                2,
                "the model hears about the blocked call"
            );
        }
    }
}

#[test]
fn phases_with_no_rules_are_not_observed() {
    let dir = tempdir();
    let only_gates = hooks(BLOCK, dir.path());
    assert!(only_gates.observes(RigKind::ToolDispatch));
    for kind in [
        RigKind::RunStart,
        RigKind::RunSettled,
        RigKind::ModelTurnFinished,
        RigKind::InvalidToolCall,
        RigKind::TextDelta,
        RigKind::ReasoningDelta,
        RigKind::ToolCallDelta,
        RigKind::CompletionDispatch,
        RigKind::EmbedDispatch,
    ] {
        assert!(
            !only_gates.observes(kind),
            "{kind:?} is observed without rules"
        );
    }

    let nothing = RigHooks::new(HookStack::new());
    assert!(!nothing.observes(RigKind::ToolDispatch));
    assert!(!nothing.observes(RigKind::CompletionCall));

    let stop_only = hooks(
        "version: 1\nhooks:\n  - id: s\n    phase: stop\n    run: { command: \"true\" }\n",
        dir.path(),
    );
    assert!(stop_only.observes(RigKind::ModelTurnFinished));
    assert!(!stop_only.observes(RigKind::ToolDispatch));
}

/// A hook on `invalid_tool_call` answering a call of a tool the agent does
/// not have: a skip is rig's `Skip` (the model sees the reason as the
/// call's result), a repair with corrected arguments is a skip whose result
/// names them (rig 0.44 repairs only a tool's name).
#[tokio::test]
async fn an_invalid_call_is_skipped_or_its_repair_named_to_the_model() {
    let dir = tempdir();
    let config = |answer: &str| {
        format!(
            "version: 1\nhooks:\n  - id: recover\n    phase: invalid_tool_call\n    run: {{ argv: [printf, '%s', '{answer}'] }}\n"
        )
    };
    let model = || {
        MockCompletionModel::from_turns([
            MockTurn::tool_call("call-1", "tuch", json!({"path": "a.txt"})),
            MockTurn::text("done"),
        ])
    };

    let skip = model();
    let answer = r#"{"decision":"block","reason":"no such tool: use touch"}"#;
    let output = run(&skip, hooks(&config(answer), dir.path()), dir.path(), 4).await;
    assert_eq!(output.as_deref(), Ok("done"));
    assert!(text(&skip.requests()[1]).contains("no such tool: use touch"));
    assert!(
        !dir.path().join("a.txt").exists(),
        "a skipped call never runs"
    );

    let repair = model();
    let answer = r#"{"decision":"repair","tool_name":"touch","rewrite_args":{"path":"b.txt"}}"#;
    let output = run(&repair, hooks(&config(answer), dir.path()), dir.path(), 4).await;
    assert_eq!(output.as_deref(), Ok("done"));
    let next = text(&repair.requests()[1]);
    assert!(
        next.contains("call the tool `touch` with these arguments instead")
            && next.contains("b.txt"),
        "{next}"
    );
}

#[tokio::test]
async fn rules_reading_the_history_see_all_of_it_turn_after_turn() {
    // The first message (the user's prompt) and the seventh (appended by
    // the fourth turn): the adapter converts the history incrementally,
    // and each request must still hold every message so far.
    let dir = tempdir();
    let yaml = r#"
version: 1
hooks:
  - id: first-message
    phase: before_completion
    when: { pointer: /messages/0/content/0/text, equals: "go" }
    patch: { temperature: 0.125 }
  - id: long-history
    phase: before_completion
    when: { pointer: /messages/6, exists: true }
    patch: { max_tokens: 99 }
"#;
    let model = MockCompletionModel::from_turns([
        MockTurn::tool_call("call-1", "touch", json!({"path": "a1.txt"})),
        MockTurn::tool_call("call-2", "touch", json!({"path": "a2.txt"})),
        MockTurn::tool_call("call-3", "touch", json!({"path": "a3.txt"})),
        MockTurn::tool_call("call-4", "touch", json!({"path": "a4.txt"})),
        MockTurn::text("done"),
    ]);
    let output = run(&model, hooks(yaml, dir.path()), dir.path(), 8).await;
    assert_eq!(output.as_deref(), Ok("done"));
    let requests = model.requests();
    assert_eq!(requests.len(), 5);
    for (i, request) in requests.iter().enumerate() {
        assert_eq!(request.temperature, Some(0.125), "request {i}");
        // Each turn adds the model's call and the tool's result: the
        // seventh message is there from the fourth request on.
        let long = i >= 3;
        assert_eq!(
            request.max_tokens,
            long.then_some(99),
            "request {i}: {} message(s)",
            request.chat_history.len()
        );
    }
}
