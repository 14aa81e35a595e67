//! Scoped and one-shot hooks through `agent-hooks hook --agent claude`,
//! one process per event as Claude Code runs it: the session store carries
//! a subagent's scope from its `SubagentStart` to its `SubagentStop`, a
//! skill's from the `Skill` call that loads it to the next prompt, and a
//! `once` hook's claim.

#[path = "common/cli.rs"]
mod cli;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

const CONFIG: &str = r#"version: 1
hooks:
  - id: reviewer-no-bash
    phase: before_tool
    include_tools: [Bash]
    scope: { subagent: code-reviewer }
    block: { reason: "reviewer-scope-blocks" }
  - id: pdf-no-write
    phase: before_tool
    include_tools: [Write]
    scope: { skill: pdf }
    block: { reason: "pdf-scope-blocks" }
  - id: first-read
    phase: before_tool
    include_tools: [Read]
    once: true
    block: { reason: "once-blocks" }
"#;

struct Session {
    dir: tempfile::TempDir,
    config: PathBuf,
}

impl Session {
    fn new() -> Session {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = dir.path().join("hooks.yaml");
        std::fs::write(&config, CONFIG).expect("config written");
        Session { dir, config }
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join(".state")
    }

    /// Sends `event` (Claude Code's common fields added) and returns what
    /// `hook` wrote to stdout.
    fn send(&self, mut event: Value) -> String {
        let dir: &Path = self.dir.path();
        event["session_id"] = json!("s-scopes");
        event["transcript_path"] = json!(dir.join("t.jsonl"));
        event["cwd"] = json!(dir);
        let payload = serde_json::to_vec(&event).expect("JSON");
        let out = cli::hook_claude(
            dir,
            &self.state(),
            std::slice::from_ref(&self.config),
            &payload,
        );
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        String::from_utf8(out.stdout).expect("UTF-8")
    }

    fn tool(&self, name: &str) -> String {
        self.send(json!({
            "hook_event_name": "PreToolUse",
            "tool_name": name,
            "tool_input": {"command": "ls", "file_path": "a.txt"},
            "tool_use_id": "t1"
        }))
    }
}

#[test]
fn scopes_and_once_hooks_hold_across_hook_processes() {
    let s = Session::new();
    assert!(!s.tool("Bash").contains("reviewer-scope-blocks"));
    s.send(json!({"hook_event_name": "SubagentStart", "agent_id": "a1", "agent_type": "code-reviewer"}));
    assert!(s.tool("Bash").contains("reviewer-scope-blocks"));
    s.send(json!({
        "hook_event_name": "SubagentStop", "agent_id": "a1", "agent_type": "code-reviewer",
        "stop_hook_active": false, "agent_transcript_path": "", "last_assistant_message": "done"
    }));
    assert!(!s.tool("Bash").contains("reviewer-scope-blocks"));

    assert!(!s.tool("Write").contains("pdf-scope-blocks"));
    s.send(json!({
        "hook_event_name": "PostToolUse", "tool_name": "Skill",
        "tool_input": {"skill": "pdf"}, "tool_response": {"success": true}, "tool_use_id": "t2"
    }));
    assert!(s.tool("Write").contains("pdf-scope-blocks"));
    s.send(json!({"hook_event_name": "UserPromptSubmit", "prompt": "next"}));
    assert!(!s.tool("Write").contains("pdf-scope-blocks"));

    assert!(s.tool("Read").contains("once-blocks"));
    assert!(!s.tool("Read").contains("once-blocks"));
}
