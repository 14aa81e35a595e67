//! The phases Claude Code users rely on beyond the tool loop —
//! `permission_request`, `after_tool_batch`, `notification`,
//! `subagent_start` / `subagent_stop`, `before_compaction` /
//! `after_compaction`, `run_end` with its reason — and the declarative
//! `ask` / `allow` actions, through `agent-hooks test` end to end: config,
//! schema check, lowering, dispatch, the driver and the printed verdict.

use std::path::Path;

use serde_json::{Value, json};

#[path = "common/cli.rs"]
mod cli;

const CONFIG: &str = r#"version: 1
hooks:
  - id: ask-push
    phase: before_tool
    include_tools: [bash]
    when: { pointer: /command, matches: "^git push" }
    ask: { reason: pushes need a person }
  - id: deny-force
    phase: permission_request
    include_tools: [bash]
    when: { pointer: /command, matches: "--force" }
    block: { reason: force pushes are refused }
  - id: ask-push-permission
    phase: permission_request
    include_tools: [bash]
    when: { pointer: /command, matches: "^git push" }
    ask: { reason: pushes need a person }
  - id: grant-reads
    phase: permission_request
    include_tools: [read_file]
    allow: { reason: reads are always fine }
  - id: keep-summaries
    phase: before_compaction
    when: { pointer: "", equals: auto }
    run: { argv: [sh, -c, "echo keep the plan >&2; exit 2"] }
  - id: batch-note
    phase: after_tool_batch
    inject: { content: run the tests before you answer }
  - id: subagent-rules
    phase: subagent_start
    when: { pointer: "", equals: Explore }
    inject: { content: read only }
  - id: subagent-keep-going
    phase: subagent_stop
    run: { argv: [sh, -c, "echo not yet >&2; exit 2"] }
  - id: log-notifications
    phase: notification
    run: { argv: [sh, -c, "cat > notification.json"] }
  - id: log-end
    phase: run_end
    run: { argv: [sh, -c, "cat > end.json"] }
"#;

/// Runs `agent-hooks test` on `event` with [`CONFIG`] in `dir`.
fn run(dir: &Path, event: &Value) -> Value {
    cli::test_event(dir, event)
}

fn workspace() -> tempfile::TempDir {
    cli::workspace(CONFIG)
}

fn verdict(r: &Value) -> (&str, &str) {
    (
        r["verdict"]["decision"].as_str().unwrap_or_default(),
        r["verdict"]["reason"].as_str().unwrap_or_default(),
    )
}

#[test]
fn the_config_checks() {
    cli::ok(workspace().path(), &["check", "hooks.yaml"]);
}

#[test]
fn before_tool_can_ask() {
    let dir = workspace();
    let r = run(
        dir.path(),
        &json!({"phase": "before_tool", "tool": "bash", "args": {"command": "git push origin main"}}),
    );
    assert_eq!(verdict(&r), ("ask", "pushes need a person"));
    let r = run(
        dir.path(),
        &json!({"phase": "before_tool", "tool": "bash", "args": {"command": "git status"}}),
    );
    assert_eq!(verdict(&r).0, "run");
}

#[test]
fn permission_requests_are_allowed_denied_or_asked_deny_first() {
    let dir = workspace();
    let force = json!({"phase": "permission_request", "tool": "bash",
        "args": {"command": "git push --force"}});
    // `deny-force` and `ask-push-permission` both match: deny wins.
    assert_eq!(
        verdict(&run(dir.path(), &force)),
        ("deny", "force pushes are refused")
    );
    let push = json!({"phase": "permission_request", "tool": "bash",
        "args": {"command": "git push"}});
    assert_eq!(
        verdict(&run(dir.path(), &push)),
        ("ask", "pushes need a person")
    );
    let read = json!({"phase": "permission_request", "tool": "read_file",
        "args": {"path": "README.md"}});
    assert_eq!(verdict(&run(dir.path(), &read)).0, "allow");
    // No hook decides: the agent's own approval flow (an ask without reason).
    let other = json!({"phase": "permission_request", "tool": "write_file",
        "args": {"path": "x"}});
    assert_eq!(verdict(&run(dir.path(), &other)), ("ask", ""));
}

#[test]
fn compaction_can_be_prevented_on_its_trigger() {
    let dir = workspace();
    let auto = json!({"phase": "before_compaction", "trigger": "auto"});
    assert_eq!(verdict(&run(dir.path(), &auto)), ("skip", "keep the plan"));
    let manual =
        json!({"phase": "before_compaction", "trigger": "manual", "instructions": "short"});
    assert_eq!(verdict(&run(dir.path(), &manual)).0, "compact");
    let after = json!({"phase": "after_compaction", "trigger": "auto", "summary": "s"});
    assert_eq!(verdict(&run(dir.path(), &after)).0, "continue");
}

#[test]
fn batches_and_subagents_get_context_and_subagents_keep_working() {
    let dir = workspace();
    let batch = json!({"phase": "after_tool_batch", "calls": [
        {"tool_name": "read_file", "tool_input": {"path": "a"}, "tool_use_id": "t1", "tool_response": "x"}]});
    let r = run(dir.path(), &batch);
    assert_eq!(
        r["outcome"]["context"][0]["content"],
        "run the tests before you answer"
    );
    let start = json!({"phase": "subagent_start", "agent_id": "a1", "agent_type": "Explore"});
    let r = run(dir.path(), &start);
    assert_eq!(r["outcome"]["context"][0]["content"], "read only");
    let start = json!({"phase": "subagent_start", "agent_id": "a2", "agent_type": "Plan"});
    assert_eq!(run(dir.path(), &start)["outcome"]["context"], json!([]));
    let stop = json!({"phase": "subagent_stop", "agent_id": "a1", "agent_type": "Explore",
        "text": "done", "loop_count": 0});
    assert_eq!(verdict(&run(dir.path(), &stop)), ("resume", "not yet"));
}

#[test]
fn notifications_and_the_end_reason_reach_observers() {
    let dir = workspace();
    let note = json!({"phase": "notification", "notification_type": "idle_prompt",
        "title": "Waiting", "message": "the agent waits for you"});
    assert_eq!(verdict(&run(dir.path(), &note)).0, "continue");
    let seen: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("notification.json")).expect("the hook wrote its stdin"),
    )
    .expect("payload JSON");
    assert_eq!(seen["phase"], "notification");
    assert_eq!(seen["data"]["notification_type"], "idle_prompt");
    assert_eq!(seen["data"]["message"], "the agent waits for you");
    let end = json!({"phase": "run_end", "output": "bye", "reason": "logout"});
    assert_eq!(verdict(&run(dir.path(), &end)).0, "continue");
    let seen: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("end.json")).expect("the hook wrote its stdin"),
    )
    .expect("payload JSON");
    assert_eq!(seen["data"]["reason"], "logout");
}
