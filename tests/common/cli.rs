//! Running the `agent-hooks` binary from the CLI tests. Include with
//! `#[path = "common/cli.rs"] mod cli;`.

#![allow(dead_code, reason = "each test binary uses a subset")]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// Runs `agent-hooks ARGS` in `dir` and asserts it exits 0.
pub(crate) fn ok(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run agent-hooks");
    assert_eq!(
        out.status.code(),
        Some(0),
        "agent-hooks {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// [`ok`], with the standard output parsed as JSON (the commands'
/// `--format json`).
pub(crate) fn json(dir: &Path, args: &[&str]) -> Value {
    serde_json::from_slice(&ok(dir, args).stdout).expect("JSON report")
}

/// Writes `event` to `dir/event.json` and runs
/// `agent-hooks test hooks.yaml --event event.json --format json` in `dir`.
pub(crate) fn test_event(dir: &Path, event: &Value) -> Value {
    std::fs::write(dir.join("event.json"), event.to_string()).expect("write event");
    json(
        dir,
        &[
            "test",
            "hooks.yaml",
            "--event",
            "event.json",
            "--format",
            "json",
        ],
    )
}

/// A temporary workspace holding `config` as `hooks.yaml`.
pub(crate) fn workspace(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("hooks.yaml"), config).expect("write config");
    dir
}

/// Runs `agent-hooks hook --agent claude CONFIGS` in `dir` with `payload`
/// on stdin, the session state store in `state`
/// (`AGENT_HOOKS_SESSION_STORE`) and the compile cache in `state/cache`
/// (`AGENT_HOOKS_CACHE`), so no test touches the user's.
pub(crate) fn hook_claude(
    dir: &Path,
    state: &Path,
    configs: &[std::path::PathBuf],
    payload: &[u8],
) -> Output {
    hook_agent("claude", dir, state, configs, payload)
}

/// [`hook_claude`] for `agent` (`agent-hooks hook --agent AGENT`).
pub(crate) fn hook_agent(
    agent: &str,
    dir: &Path,
    state: &Path,
    configs: &[std::path::PathBuf],
    payload: &[u8],
) -> Output {
    hook_with(&["--agent", agent], dir, state, configs, payload)
}

/// [`hook_agent`] with the options `args` (`--agent AGENT`, `--event
/// NAME`) before the configs.
pub(crate) fn hook_with(
    args: &[&str],
    dir: &Path,
    state: &Path,
    configs: &[std::path::PathBuf],
    payload: &[u8],
) -> Output {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir)
        .env("AGENT_HOOKS_SESSION_STORE", state)
        .env("AGENT_HOOKS_CACHE", state.join("cache"))
        // The project directory is the test's `dir`, whatever the
        // environment running the tests says.
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .env_remove("CLAUDE_ENV_FILE")
        .arg("hook")
        .args(args)
        .args(configs)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn agent-hooks hook");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(payload)
        .expect("write the payload");
    child.wait_with_output().expect("wait for agent-hooks")
}

/// `agent-hooks hook --agent AGENT CONFIGS` (paths relative to the
/// package root) with `payload` on stdin, in a fresh workspace with its own
/// state store and DFA cache.
pub(crate) fn hook_fresh(agent: &str, configs: &[&str], payload: &[u8]) -> Output {
    hook_fresh_with(&["--agent", agent], configs, payload)
}

/// [`hook_fresh`] with the options `args` ([`hook_with`]).
pub(crate) fn hook_fresh_with(args: &[&str], configs: &[&str], payload: &[u8]) -> Output {
    let workspace = tempfile::tempdir().expect("workspace");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let configs: Vec<std::path::PathBuf> = configs.iter().map(|c| root.join(c)).collect();
    let state = workspace.path().join(".state");
    hook_with(args, workspace.path(), &state, &configs, payload)
}

/// [`hook_fresh`]'s answer, after checking the exit code is 0 and stdout
/// is one JSON object on one line.
pub(crate) fn hook_answer(agent: &str, configs: &[&str], payload: &[u8]) -> Value {
    answer_of(&hook_fresh(agent, configs, payload))
}

/// [`hook_fresh_with`]'s answer (as [`hook_answer`] checks it).
pub(crate) fn hook_answer_with(args: &[&str], configs: &[&str], payload: &[u8]) -> Value {
    answer_of(&hook_fresh_with(args, configs, payload))
}

/// [`hook_agent`]'s answer (as [`hook_answer`] checks it).
pub(crate) fn hook_json(
    agent: &str,
    dir: &Path,
    state: &Path,
    configs: &[std::path::PathBuf],
    payload: &[u8],
) -> Value {
    answer_of(&hook_agent(agent, dir, state, configs, payload))
}

/// The JSON answer of a hook call's output: exit code 0, one JSON object
/// on one line of stdout.
fn answer_of(out: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout {stdout}, stderr {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.lines().count(), 1, "one line: {stdout}");
    serde_json::from_str(&stdout).expect("a JSON answer")
}

/// The events Codex sends (Codex's hooks reference).
pub(crate) const CODEX_EVENTS: [&str; 6] = [
    "SessionStart",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
];

/// The schema of `agent`'s output for `event`
/// (`tests/schemas/AGENT/EVENT.json`), if the tests have one.
pub(crate) fn output_schema(agent: &str, event: &str) -> Option<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/schemas")
        .join(agent)
        .join(format!("{event}.json"));
    let text = std::fs::read(&path).ok()?;
    Some(serde_json::from_slice(&text).expect("schema JSON"))
}

/// Validates `answer` against `schema`; `what` names the case in the
/// failure.
pub(crate) fn assert_valid(schema: &Value, answer: &Value, what: &str) {
    let validator = jsonschema::validator_for(schema).expect("a valid schema");
    let errors: Vec<String> = validator
        .iter_errors(answer)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {answer} is refused: {errors:?}");
}
