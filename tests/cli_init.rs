//! `agent-hooks init --agent ...`: every event of the agent routed to
//! `agent-hooks hook`, merged into the settings the user has, idempotent,
//! and undone byte for byte by `--uninstall` (the real Claude Code settings
//! files of `../shared/real/claude-settings/` when present, and settings
//! written here).

#[path = "common/real.rs"]
mod real;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn agent_hooks(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run agent-hooks")
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = agent_hooks(dir, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "agent-hooks {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("settings written")).expect("JSON")
}

/// The commands of every entry under `hooks.<event>`, grouped or flat.
fn commands(settings: &Value, event: &str) -> Vec<String> {
    let mut out = Vec::new();
    for item in settings["hooks"][event].as_array().into_iter().flatten() {
        let entries = item["hooks"]
            .as_array()
            .cloned()
            .unwrap_or_else(|| vec![item.clone()]);
        for entry in entries {
            for key in ["command", "bash", "url"] {
                if let Some(text) = entry[key].as_str() {
                    out.push(text.to_owned());
                }
            }
        }
    }
    out
}

/// Runs a written entry's `command` as its agent does (through `shell
/// -c`, in `dir`, the payload on stdin; no cache, a private state store)
/// and returns its JSON answer.
fn run_entry(dir: &Path, shell: &str, command: &str, payload: &[u8]) -> Value {
    use std::io::Write as _;
    let mut child = Command::new(shell)
        .args(["-c", command])
        .current_dir(dir)
        .env("AGENT_HOOKS_CACHE", "off")
        .env("AGENT_HOOKS_SESSION_STORE", dir.join(".state"))
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run the entry");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(payload)
        .expect("payload");
    let out = child.wait_with_output().expect("wait");
    serde_json::from_slice(&out.stdout).expect("a JSON answer")
}

/// The real Claude Code settings files (`../shared/real/claude-settings/`,
/// at least 10), sorted; `None` (with a visible line) where the folder is
/// missing.
fn real_settings() -> Option<Vec<std::path::PathBuf>> {
    let dir = real::dir("claude-settings")?;
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("readable")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "the corpus has its files: {files:?}");
    Some(files)
}

#[test]
fn real_claude_settings_round_trip_byte_for_byte() {
    let Some(files) = real_settings() else {
        return;
    };
    for file in files {
        let original = std::fs::read(&file).expect("readable");
        let work = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(work.path().join(".claude")).expect("mkdir");
        let settings = work.path().join(".claude/settings.json");
        std::fs::write(&settings, &original).expect("copy");
        std::fs::write(work.path().join("hooks.yaml"), "version: 1\nhooks: []\n").expect("cfg");
        let before = read_json(&settings);

        ok(work.path(), &["init", "--agent", "claude", "hooks.yaml"]);
        let first = std::fs::read(&settings).expect("written");
        let after = read_json(&settings);
        for event in [
            "PreToolUse",
            "PostToolUse",
            "Stop",
            "SessionStart",
            "UserPromptSubmit",
        ] {
            let ours: Vec<_> = commands(&after, event)
                .into_iter()
                .filter(|c| c.contains(" hook --agent claude ") && c.ends_with("/hooks.yaml"))
                .collect();
            assert_eq!(ours.len(), 1, "{}: {event}: {after}", file.display());
            // The user's own hooks of that event are all still there, first.
            let theirs = commands(&before, event);
            assert_eq!(
                commands(&after, event)[..theirs.len()],
                theirs[..],
                "{}: {event}",
                file.display()
            );
        }
        ok(work.path(), &["init", "--agent", "claude", "hooks.yaml"]);
        assert_eq!(
            std::fs::read(&settings).expect("written"),
            first,
            "{}: a second init changes nothing",
            file.display()
        );

        ok(work.path(), &["init", "--agent", "claude", "--uninstall"]);
        assert_eq!(
            std::fs::read(&settings).expect("restored"),
            original,
            "{}: uninstall restores the file byte for byte",
            file.display()
        );
        let left: Vec<_> = std::fs::read_dir(work.path().join(".claude"))
            .expect("readable")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(left, ["settings.json"], "{}: no leftovers", file.display());
    }
}

#[test]
fn an_edit_after_init_survives_uninstall() {
    let work = tempfile::tempdir().expect("tempdir");
    let settings = work.path().join(".claude/settings.json");
    std::fs::create_dir(work.path().join(".claude")).expect("mkdir");
    std::fs::write(
        &settings,
        "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"mine.sh\"}]}]}}",
    )
    .expect("write");
    ok(work.path(), &["init", "--agent", "claude", "a.yaml"]);
    let mut edited = read_json(&settings);
    edited["model"] = Value::from("opus");
    std::fs::write(&settings, serde_json::to_vec(&edited).expect("json")).expect("edit");

    let message = ok(work.path(), &["init", "--agent", "claude", "--uninstall"]);
    assert!(message.contains("edited since"), "{message}");
    let after = read_json(&settings);
    assert_eq!(after["model"], "opus", "the user's edit is kept");
    assert_eq!(
        commands(&after, "Stop"),
        ["mine.sh"],
        "only our entries went"
    );
    assert!(after["hooks"].get("PreToolUse").is_none(), "{after}");
    assert!(
        work.path()
            .join(".claude/settings.json.agent-hooks.bak")
            .exists(),
        "the original stays available"
    );
}

#[test]
fn other_agents_get_their_own_files_and_lose_them_again() {
    for (agent, file, event) in [
        ("codex", ".codex/hooks.json", "PreToolUse"),
        ("gemini", ".gemini/settings.json", "BeforeTool"),
        ("copilot", ".github/hooks/agent-hooks.json", "preToolUse"),
    ] {
        let work = tempfile::tempdir().expect("tempdir");
        ok(work.path(), &["init", "--agent", agent, "c.yaml"]);
        let written = read_json(&work.path().join(file));
        let ours = commands(&written, event);
        assert_eq!(ours.len(), 1, "{agent}: {written}");
        assert!(
            ours[0].contains(&format!(" hook --agent {agent} ")),
            "{ours:?}"
        );
        if agent == "copilot" {
            assert_eq!(written["version"], 1);
        }
        ok(work.path(), &["init", "--agent", agent, "--uninstall"]);
        assert!(
            !work.path().join(file).exists(),
            "{agent}: the file init made is gone"
        );
    }
}

#[test]
fn a_serve_url_routes_claude_through_http_hooks_without_the_token() {
    let work = tempfile::tempdir().expect("tempdir");
    let args = [
        "init",
        "--agent",
        "claude",
        "--url",
        "http://127.0.0.1:9/",
        "--token-env",
        "HOOKS_TOKEN",
    ];
    ok(work.path(), &args);
    let text = std::fs::read_to_string(work.path().join(".claude/settings.json")).expect("read");
    let settings: Value = serde_json::from_str(&text).expect("json");
    let entry = &settings["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(entry["type"], "http");
    assert_eq!(entry["url"], "http://127.0.0.1:9/v1/hooks/claude");
    assert_eq!(entry["headers"]["Authorization"], "Bearer $HOOKS_TOKEN");
    assert_eq!(entry["allowedEnvVars"][0], "HOOKS_TOKEN");
}

#[test]
fn invalid_settings_are_refused_and_left_alone() {
    let work = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(work.path().join(".claude")).expect("mkdir");
    let settings = work.path().join(".claude/settings.json");
    std::fs::write(&settings, "{\"hooks\": [1, 2]}").expect("write");
    let out = agent_hooks(work.path(), &["init", "--agent", "claude", "c.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("`hooks` is not a JSON object"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(&settings, "{\"hooks\": ").expect("write");
    let out = agent_hooks(work.path(), &["init", "--agent", "claude", "c.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("settings.json:1:"));
    assert_eq!(
        std::fs::read_to_string(&settings).expect("read"),
        "{\"hooks\": "
    );
    assert!(
        !work
            .path()
            .join(".claude/settings.json.agent-hooks.bak")
            .exists()
    );
}

/// The Copilot CLI runs an entry's `bash` with the payload on stdin and
/// names the event only by the key it is under: the entry `init` writes
/// must name it (`--event`), so a camelCase `preToolUse` payload is denied
/// by a config that blocks it.
#[test]
fn a_copilot_entry_runs_as_the_copilot_cli_runs_it() {
    let work = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        work.path().join("c.yaml"),
        "version: 1\nhooks:\n  - id: no-rm\n    phase: before_tool\n    include_tools: [bash]\n    when: { pointer: /command, matches: '^rm ' }\n    block: { reason: no removals }\n",
    )
    .expect("config");
    let program = env!("CARGO_BIN_EXE_agent-hooks");
    ok(
        work.path(),
        &["init", "--agent", "copilot", "--command", program, "c.yaml"],
    );
    let written = read_json(&work.path().join(".github/hooks/agent-hooks.json"));
    let events = written["hooks"].as_object().expect("hooks");
    assert_eq!(events.len(), 13, "every Copilot event: {written}");
    let command = &commands(&written, "preToolUse")[0];
    assert!(command.contains("--event preToolUse"), "{command}");
    let answer = run_entry(
        work.path(),
        "bash",
        command,
        br#"{"sessionId":"s","timestamp":1,"cwd":"/tmp","toolName":"bash","toolArgs":{"command":"rm -rf build"}}"#,
    );
    assert_eq!(
        answer,
        serde_json::json!({"permissionDecision": "deny", "permissionDecisionReason": "no removals"})
    );
}

/// `init --import OUT.yaml`: the settings' own hooks move into a config
/// that the routed events run after the configs given; what does not
/// convert stays; `--uninstall` on the untouched file brings back every
/// real settings file byte for byte, the moved hooks with it.
#[test]
fn import_moves_the_settings_hooks_into_a_config_and_uninstall_brings_them_back() {
    let Some(files) = real_settings() else {
        return;
    };
    let mut moved_any = false;
    for file in files {
        let original = std::fs::read(&file).expect("readable");
        let work = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(work.path().join(".claude")).expect("mkdir");
        let settings = work.path().join(".claude/settings.json");
        std::fs::write(&settings, &original).expect("copy");
        std::fs::write(work.path().join("hooks.yaml"), "version: 1\nhooks: []\n").expect("cfg");
        let theirs = |v: &Value| -> usize {
            v["hooks"]
                .as_object()
                .into_iter()
                .flat_map(|events| events.keys())
                .map(|event| {
                    commands(v, event)
                        .iter()
                        .filter(|c| !c.contains(" hook --agent claude "))
                        .count()
                })
                .sum()
        };
        let before = theirs(&read_json(&settings));
        let out = agent_hooks(
            work.path(),
            &[
                "init",
                "--agent",
                "claude",
                "--import",
                "moved.yaml",
                "hooks.yaml",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{}: {out:?}", file.display());
        let after = read_json(&settings);
        let moved_path = work.path().join("moved.yaml");
        let moved = if moved_path.exists() {
            let text = std::fs::read_to_string(&moved_path).expect("moved config");
            let config = hooks_schema::load_str(&text, "moved.yaml")
                .unwrap_or_else(|d| panic!("{}: the moved config is valid: {d}", file.display()));
            config.hooks.len()
        } else {
            0
        };
        moved_any |= moved > 0;
        // Each hook is in one place: moved, or still in the settings.
        // (`import` may skip a whole event with one warning; those stay.)
        assert!(theirs(&after) <= before, "{}", file.display());
        assert_eq!(
            theirs(&after) + moved,
            before,
            "{}: every hook moved or kept",
            file.display()
        );
        let ours = commands(&after, "PreToolUse")
            .into_iter()
            .find(|c| c.contains(" hook --agent claude "))
            .expect("our entry");
        if moved > 0 {
            let (given, imported) = (
                ours.find("/hooks.yaml").expect("the given config"),
                ours.find("/moved.yaml").expect("the moved config"),
            );
            assert!(given < imported, "the moved hooks run last: {ours}");
        }
        ok(work.path(), &["init", "--agent", "claude", "--uninstall"]);
        assert_eq!(
            std::fs::read(&settings).expect("restored"),
            original,
            "{}: uninstall restores the file byte for byte",
            file.display()
        );
    }
    assert!(moved_any, "some real settings file has hooks to move");
}

/// A moved hook still decides: a Claude Code script that blocks `rm`,
/// moved out of the settings by `init --import`, denies through the
/// routed `hook` command; `--import` never overwrites a file.
#[test]
fn a_moved_hook_still_decides() {
    let work = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(work.path().join(".claude")).expect("mkdir");
    std::fs::write(
        work.path().join("guard.sh"),
        "#!/bin/sh\nif grep -q 'rm -rf'; then echo 'no removals' >&2; exit 2; fi\n",
    )
    .expect("script");
    std::fs::write(
        work.path().join(".claude/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh guard.sh"}]}]}}"#,
    )
    .expect("settings");
    let program = env!("CARGO_BIN_EXE_agent-hooks");
    let args = [
        "init",
        "--agent",
        "claude",
        "--command",
        program,
        "--import",
        "moved.yaml",
    ];
    ok(work.path(), &args);
    let settings = read_json(&work.path().join(".claude/settings.json"));
    let entries = commands(&settings, "PreToolUse");
    assert_eq!(entries.len(), 1, "only ours is left: {settings}");
    let answer = run_entry(
        work.path(),
        "sh",
        &entries[0],
        br#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}"#,
    );
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecisionReason"],
        "no removals"
    );
    // A second `--import` would overwrite moved.yaml: refused.
    let again = agent_hooks(work.path(), &args);
    assert_eq!(again.status.code(), Some(2), "{again:?}");
    assert!(String::from_utf8_lossy(&again.stderr).contains("never overwrites"));
    // Into another file, routing the first one: agent-hooks' own entries
    // are no hooks to move (that would run agent-hooks inside agent-hooks).
    let mut twice = args.to_vec();
    twice[6] = "moved2.yaml";
    twice.push("moved.yaml");
    let out = ok(work.path(), &twice);
    assert!(out.contains("nothing imported"), "{out}");
    assert!(!work.path().join("moved2.yaml").exists());
    let settings = read_json(&work.path().join(".claude/settings.json"));
    let entries = commands(&settings, "PreToolUse");
    assert_eq!(entries.len(), 1, "{settings}");
    assert!(entries[0].ends_with("/moved.yaml"), "{}", entries[0]);
}
