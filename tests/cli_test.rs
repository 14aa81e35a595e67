//! `agent-hooks test`: one event through the reference config, with shell
//! hooks run for real.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn test_cmd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("test")
        .args(args)
        .output()
        .expect("run agent-hooks")
}

fn test_json(event: &str) -> Value {
    let out = test_cmd(&["examples/hooks.yaml", "--event", event, "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{event}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

#[test]
fn a_declarative_block_skips_the_call_without_spawning() {
    let r = test_json("tests/fixtures/events/rm_rf.json");
    assert_eq!(r["verdict"]["decision"], "skip");
    assert_eq!(
        r["verdict"]["reason"],
        "recursive forced deletes (rm -rf) are not allowed; delete specific files instead"
    );
    assert_eq!(r["fired"], json!(["block-rm-rf"]));
    let records = r["records"].as_array().unwrap();
    assert_eq!(records.len(), 1, "the rule's own record: {records:?}");
    assert_eq!(records[0]["hook_id"], "block-rm-rf");
    assert_eq!(records[0]["elapsed_ms"], 0, "in-process: nothing spawned");
    assert_eq!(r["outcome"]["provenance"][0]["hook"], "block-rm-rf");
}

#[test]
fn a_rewrite_runs_the_call_with_new_args() {
    let r = test_json("tests/fixtures/events/read_file.json");
    assert_eq!(r["verdict"]["decision"], "run");
    assert_eq!(
        r["outcome"]["args"],
        json!({"path": "src/lib.rs", "max_bytes": 200000})
    );
    assert_eq!(r["fired"], json!(["cap-reads"]));
}

#[test]
fn a_shell_hook_runs_and_its_decision_and_record_are_printed() {
    let r = test_json("tests/fixtures/events/curl_sh.json");
    assert_eq!(r["verdict"]["decision"], "skip");
    assert_eq!(
        r["verdict"]["reason"],
        "piping a download into a shell is not allowed; download, inspect, then run"
    );
    let records = r["records"].as_array().unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["hook_id"], "shell-guard");
    assert_eq!(records[0]["status"], "decision");

    // A Claude-protocol script decides after the native guard let it through.
    let r = test_json("tests/fixtures/events/sudo.json");
    assert_eq!(r["verdict"]["decision"], "skip");
    assert_eq!(
        r["verdict"]["reason"],
        "sudo is not allowed in this workspace"
    );
    assert_eq!(r["fired"], json!(["shell-guard", "no-sudo"]));
    let ids: Vec<&str> = r["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rec| rec["hook_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["shell-guard", "no-sudo"]);
}

/// A temporary workspace holding a copy of `examples/` (so hooks with side
/// effects, such as the audit logger, write there and not into the repo).
fn workspace() -> tempfile::TempDir {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("examples/hooks")).expect("mkdir");
    for entry in std::fs::read_dir(root.join("examples/hooks")).expect("examples/hooks") {
        let name = entry.expect("entry").file_name();
        std::fs::copy(
            root.join("examples/hooks").join(&name),
            dir.path().join("examples/hooks").join(&name),
        )
        .expect("copy script");
    }
    std::fs::create_dir_all(dir.path().join("examples/policies")).expect("mkdir");
    std::fs::copy(
        root.join("examples/policies/fleet.rego"),
        dir.path().join("examples/policies/fleet.rego"),
    )
    .expect("copy the policy");
    for file in ["hooks.yaml", "tools.catalogue.json"] {
        std::fs::copy(
            root.join("examples").join(file),
            dir.path().join("examples").join(file),
        )
        .expect("copy the config and its catalogue");
    }
    dir
}

#[test]
fn shell_hooks_run_in_the_current_directory_and_leave_no_session_dir() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = workspace();
    let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir.path())
        .args(["test", "examples/hooks.yaml", "--format", "json", "--event"])
        .arg(root.join("tests/fixtures/events/curl_sh.json"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["verdict"]["decision"], "skip");
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["examples"], "the session directory is removed");
}

#[test]
fn human_output_and_stdin() {
    let dir = workspace();
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir.path())
        .args(["test", "examples/hooks.yaml", "--event", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            br#"{"phase":"after_tool","tool":"bash","call_id":"c","result":{"output":""},"outcome":"timeout"}"#,
        )
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("event: after_tool\ndecision: continue\n"),
        "{text}"
    );
    assert!(
        text.contains("hooks fired: explain-timeouts, audit-log"),
        "{text}"
    );
    assert!(
        text.contains("injected context: \"The command timed out."),
        "{text}"
    );
    // The audit logger ran for real, in the workspace.
    let log = std::fs::read_to_string(dir.path().join(".agent/audit.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(text.contains("\"hook_id\":\"audit-log\""), "{text}");
}

#[test]
fn the_older_tool_key_reads_as_tool_name() {
    let dir = tempfile::tempdir().unwrap();
    let report = |key: &str| {
        let path = dir.path().join(format!("{key}.json"));
        std::fs::write(
            &path,
            format!(
                r#"{{"phase":"before_tool","{key}":"bash","call_id":"c1","args":{{"command":"rm -rf /tmp/x"}}}}"#
            ),
        )
        .unwrap();
        let mut r = test_json(path.to_str().unwrap());
        for record in r["records"].as_array_mut().unwrap() {
            record["elapsed_ms"] = json!(0);
        }
        r
    };
    let new = report("tool_name");
    assert_eq!(new["verdict"]["decision"], "skip", "{new}");
    assert_eq!(new["records"][0]["tool"], "bash", "{new}");
    assert_eq!(report("tool"), new);
}

#[test]
fn a_bad_event_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("e.json");
    std::fs::write(
        &bad,
        r#"{"phase":"before_tool","tool":"bash","outcome":"x"}"#,
    )
    .unwrap();
    let out = test_cmd(&["examples/hooks.yaml", "--event", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown field `outcome`"), "{err}");
    let missing = Path::new("tests/fixtures/events/none.json");
    let out = test_cmd(&["examples/hooks.yaml", "--event", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_event_sets_the_session_identity_a_claude_script_sees() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("hooks.yaml"),
        "version: 1\nhooks:\n  - id: dump\n    phase: stop\n    run: { command: \"cat > seen.json\", protocol: claude }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("event.json"),
        r#"{"phase":"stop","text":"done","session_id":"sess-42","transcript_path":"/t/sess-42.jsonl","cwd":"/w","permission_mode":"plan"}"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir.path())
        .args([
            "test",
            "hooks.yaml",
            "--event",
            "event.json",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("seen.json")).unwrap())
            .unwrap();
    assert_eq!(seen["session_id"], "sess-42");
    assert_eq!(seen["transcript_path"], "/t/sess-42.jsonl");
    assert_eq!(seen["cwd"], "/w");
    assert_eq!(seen["permission_mode"], "plan");
}

/// What a `run_start` hook running `git status --porcelain` in a fresh git
/// workspace prints, with `configure` setting the command's environment.
fn git_status_seen_by_a_hook(configure: impl FnOnce(&mut Command, &Path)) -> String {
    let workspace = tempfile::tempdir().expect("a temp dir");
    let outside = tempfile::tempdir().expect("a temp dir");
    let init = Command::new("git")
        .args(["init", "-q"])
        .current_dir(workspace.path())
        .status()
        .expect("run git");
    assert!(init.success());
    let status = outside.path().join("status.txt");
    let config = outside.path().join("hooks.yaml");
    std::fs::write(
        &config,
        format!(
            "version: 1\nhooks:\n  - id: status\n    phase: run_start\n    run:\n      command: \"git status --porcelain --untracked-files=all > {} 2>&1\"\n",
            status.display()
        ),
    )
    .expect("write the config");
    let event = outside.path().join("event.json");
    std::fs::write(&event, r#"{"phase":"run_start"}"#).expect("write the event");
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-hooks"));
    command.current_dir(workspace.path());
    configure(&mut command, workspace.path());
    let out = command
        .arg("test")
        .arg(&config)
        .arg("--event")
        .arg(&event)
        .output()
        .expect("run agent-hooks");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&status).expect("the hook ran")
}

/// The session directory lies outside the workspace (in
/// `$XDG_RUNTIME_DIR`, private to the user), so a SessionStart hook that
/// runs `git status` sees only the user's changes, as under Claude Code,
/// which keeps its session data under the user's home; it is gone after
/// the run.
#[test]
fn a_session_start_hook_running_git_status_sees_a_clean_workspace() {
    use std::os::unix::fs::DirBuilderExt;
    let outside = tempfile::tempdir().unwrap();
    let runtime = outside.path().join("run");
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&runtime)
        .unwrap();
    let seen = git_status_seen_by_a_hook(|c, _| {
        c.env("XDG_RUNTIME_DIR", &runtime);
    });
    assert_eq!(seen, "", "git status in the workspace");
    let left: Vec<_> = std::fs::read_dir(&runtime).unwrap().flatten().collect();
    assert!(left.is_empty(), "session directory left: {left:?}");
}

/// With `$TMPDIR` pointing into the workspace (and no private
/// `$XDG_RUNTIME_DIR`), the session directory still goes elsewhere
/// (`/tmp`): the hook's `git status` sees nothing.
#[test]
fn a_tmpdir_inside_the_workspace_does_not_put_the_session_there() {
    let seen = git_status_seen_by_a_hook(|c, workspace| {
        c.env("TMPDIR", workspace).env_remove("XDG_RUNTIME_DIR");
    });
    assert_eq!(seen, "", "git status in the workspace");
}

/// A command that cannot be found is named in what `test` prints (the
/// exec form's program; the shell's own complaint for the shell form).
#[test]
fn a_missing_command_is_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("event.json"),
        r#"{"phase":"before_tool","tool":"bash","call_id":"c1","args":{"command":"ls"}}"#,
    )
    .unwrap();
    for run in [
        "argv: [deploy-check-xyz, --strict]",
        "command: \"deploy-check-xyz --strict\"",
    ] {
        std::fs::write(
            dir.path().join("hooks.yaml"),
            format!(
                "version: 1\nhooks:\n  - id: gate\n    phase: before_tool\n    run:\n      {run}\n"
            ),
        )
        .unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
            .current_dir(dir.path())
            .args(["test", "hooks.yaml", "--event", "event.json"])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("spawn_failed"), "{run}: {stdout}");
        let diagnostic = stdout
            .lines()
            .find(|l| l.starts_with("diagnostic:"))
            .unwrap_or_default();
        assert!(
            diagnostic.contains("deploy-check-xyz"),
            "{run}: the diagnostic names the missing command: {stdout}"
        );
    }
}
