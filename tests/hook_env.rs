//! Environment from hooks (issue 28, item 6): a `run_start` hook sets
//! variables for the agent's later tool calls — a `protocol: claude`
//! script by writing `export` lines to the `CLAUDE_ENV_FILE` the runtime
//! hands it, a native hook with its `env` field — and `hook --agent
//! claude` appends them to Claude Code's own `CLAUDE_ENV_FILE`. The values
//! never reach stdout, stderr or the records.

use std::path::Path;
use std::process::{Command, Output, Stdio};

const CONFIG: &str = r#"version: 1
hooks:
  - id: claude-env
    phase: run_start
    run:
      command: printf 'export API_TOKEN=sk-live-abcdefghijklmnop1234\nexport GREETING="hello world"\nexport DERIVED="$GREETING!"\nrm -rf /\n' >> "$CLAUDE_ENV_FILE"
      protocol: claude
  - id: native-env
    phase: run_start
    run:
      command: printf '{"env":{"MODE":"ci","GREETING":"hi"}}'
"#;

const SECRET: &str = "sk-live-abcdefghijklmnop1234";

fn session_start(dir: &Path) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "session_id": "s-env",
        "transcript_path": dir.join("t.jsonl"),
        "cwd": dir,
        "hook_event_name": "SessionStart",
        "source": "startup"
    }))
    .expect("JSON")
}

/// Runs `hook --agent claude` on a SessionStart with the config, records
/// in `dir/records.jsonl`, and `CLAUDE_ENV_FILE` set to `env_file`.
fn run(dir: &Path, env_file: Option<&Path>) -> Output {
    use std::io::Write as _;
    let config = dir.join("env.yaml");
    std::fs::write(&config, CONFIG).expect("config written");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agent-hooks"));
    cmd.current_dir(dir)
        .env("AGENT_HOOKS_SESSION_STORE", dir.join(".state"))
        .env("AGENT_HOOKS_CACHE", "off")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .env_remove("CLAUDE_ENV_FILE")
        .args(["hook", "--agent", "claude", "--records"])
        .arg(dir.join("records.jsonl"))
        .arg(&config)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(file) = env_file {
        cmd.env("CLAUDE_ENV_FILE", file);
    }
    let mut child = cmd.spawn().expect("spawn agent-hooks hook");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&session_start(dir))
        .expect("payload written");
    child.wait_with_output().expect("hook ran")
}

#[test]
fn run_start_hooks_export_their_variables_to_claude_codes_env_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let env_file = dir.path().join("claude-env.sh");
    std::fs::write(&env_file, "export EARLIER=1\n").expect("env file");
    let out = run(dir.path(), Some(&env_file));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let exported = std::fs::read_to_string(&env_file).expect("env file read");
    // Appended after what was there, sorted by name; a later hook's value
    // of a name wins; `$GREETING` expanded from the line before.
    assert_eq!(
        exported,
        format!(
            "export EARLIER=1\nexport API_TOKEN={SECRET}\nexport DERIVED='hello world!'\nexport GREETING=hi\nexport MODE=ci\n"
        )
    );
    let records = std::fs::read_to_string(dir.path().join("records.jsonl")).expect("records");
    assert!(
        records.contains("env: API_TOKEN, DERIVED, GREETING"),
        "{records}"
    );
    assert!(records.contains("skipped line 4"), "{records}");
    for text in [
        &records,
        &String::from_utf8_lossy(&out.stdout).into_owned(),
        &String::from_utf8_lossy(&out.stderr).into_owned(),
    ] {
        assert!(!text.contains(SECRET), "a value leaked: {text}");
    }
    // The script's own file is gone from the session directory.
    let leftovers: Vec<_> = std::fs::read_dir(std::env::temp_dir())
        .expect("temp dir")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("env-"))
        .filter(|e| std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains(SECRET)))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn without_claude_env_file_the_names_are_reported_never_the_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = run(dir.path(), None);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "hooks set API_TOKEN, DERIVED, GREETING, MODE, not exported: CLAUDE_ENV_FILE is not set"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains(SECRET), "{stderr}");
}
