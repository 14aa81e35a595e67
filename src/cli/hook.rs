//! `agent-hooks hook --agent NAME CONFIG...`: the command an agent runs as
//! its hook. Reads that agent's payload for one event on stdin, runs the
//! configs through the runtime's dispatch and fold
//! ([`agent_hooks::agent::Engine`]) and answers in the agent's output
//! format and exit-code convention (docs/hook-command.md).
//!
//! The workspace root is the project directory the agent names
//! (`CLAUDE_PROJECT_DIR`, `GEMINI_PROJECT_DIR`), else the current
//! directory; `run` hooks get a session directory outside
//! it for payload spill files (only when a config has one), removed when
//! the command ends. The configs named are trusted by naming them.
//!
//! A `stop`, `subagent_stop` or `user_prompt` event opens the session
//! state store ([`hooks_runtime::state::from_env`]: files in the user's
//! state directory, or `AGENT_HOOKS_SESSION_STORE`), so the stop-resume
//! cap holds across the processes of one session; a store that cannot be
//! opened is answered fail-closed like any other error.
//!
//! Background hooks (`async: true`) cannot outlive the process: the
//! command prints its answer first, then waits for them (within their
//! timeouts) and drops their context, with a record, before it exits
//! (docs/hook-command.md).
//!
//! Exit codes: the answer's (0; 2 when the input names no event), 130 /
//! 143 / 129 after SIGINT / SIGTERM / SIGHUP (the running hooks are
//! cancelled; whatever answer the cancelled run gave is printed).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use agent_hooks::agent::{
    Agent, Answer, Engine, EngineOptions, load_tables, runs_processes, stack_entries,
    use_cache_from_env,
};
use hooks_runtime::{RecordWriter, SecretSet, SessionDir, state};

use crate::cli::{Cancels, Ran, current_thread_runtime, run_interruptible};

/// Runs `agent-hooks hook`; returns the exit code.
pub(crate) fn run(
    agent: Agent,
    event: Option<&str>,
    configs: &[PathBuf],
    stack: Option<&Path>,
    records: Option<&Path>,
) -> u8 {
    let mut payload = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut payload) {
        return print(&Answer::blocking_error(&format!(
            "agent-hooks: cannot read the hook input from stdin: {e}"
        )));
    }
    let fail =
        |error: &dyn std::fmt::Display| print(&Engine::error_answer(agent, event, &payload, error));
    let workspace = match project_dir(agent).map_or_else(std::env::current_dir, Ok) {
        Ok(dir) => dir,
        Err(e) => return fail(&format!("cannot read the current directory: {e}")),
    };
    use_cache_from_env();
    let tables = match stack_entries(configs, stack).and_then(|e| load_tables(&e, &workspace)) {
        Ok(tables) => tables,
        Err(e) => return fail(&e),
    };
    let session = if runs_processes(&tables) {
        match SessionDir::create_outside(&workspace) {
            Ok(dir) => Some(dir),
            Err(e) => return fail(&format!("cannot create a session directory: {e}")),
        }
    } else {
        None
    };
    let records = match records.map(|path| RecordWriter::open(path, SecretSet::new())) {
        None => None,
        Some(Ok(writer)) => Some(writer),
        Some(Err(e)) => return fail(&format!("cannot open the records file: {e}")),
    };
    let cancel = hooks_runtime::CancellationToken::new();
    let options = EngineOptions {
        workspace,
        session_dir: session.as_ref().map(|s| s.path().to_owned()),
        records,
        cancel: cancel.clone(),
        policy_process: super::policy_process(),
    };
    let engine = match Engine::new(tables, &options) {
        Ok(engine) => engine,
        Err(e) => return fail(&e),
    };
    let runtime = match current_thread_runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let cancels = Cancels {
        run: cancel.clone(),
        shutdown: cancel,
    };
    let request = match engine.read(agent, event, &payload) {
        Ok(request) => request,
        Err(e) => return fail(&e),
    };
    let engine = if engine.needs_session_state(&request) {
        match runtime.block_on(state::from_env(state::DEFAULT_TTL)) {
            Ok(store) => engine.with_session_store(store),
            Err(e) => return fail(&format!("cannot open the session state store: {e}")),
        }
    } else {
        engine
    };
    let code = match run_interruptible(&runtime, cancels, engine.decide(&request)) {
        Ok(Ran::Done(mut answer)) => {
            export_env(&mut answer);
            print(&answer)
        }
        Ok(Ran::Interrupted(i)) => {
            if let Some(answer) = &i.partial {
                print(answer);
            }
            i.code
        }
        Err(code) => code,
    };
    // Background hooks end with this process: after the answer, waited
    // for (within their timeouts), their records written.
    runtime.block_on(engine.settle(request.ctx.run_id()));
    runtime.block_on(engine.shutdown());
    drop(session);
    code
}

/// The project directory `agent` tells its hooks (Claude Code's
/// `CLAUDE_PROJECT_DIR`, Gemini CLI's `GEMINI_PROJECT_DIR`: the variables
/// its scripts' protocol sets, [`hooks_schema::Protocol::project_dir_vars`]),
/// when it names a directory; the hook may run in a subdirectory of it.
fn project_dir(agent: Agent) -> Option<PathBuf> {
    let protocol = match agent {
        Agent::Claude => hooks_schema::Protocol::Claude,
        Agent::Gemini => hooks_schema::Protocol::Gemini,
        Agent::Codex => hooks_schema::Protocol::Codex,
        Agent::Copilot => hooks_schema::Protocol::Copilot,
    };
    protocol
        .project_dir_vars()
        .iter()
        .filter_map(std::env::var_os)
        .map(PathBuf::from)
        .find(|dir| dir.is_dir())
}

/// Claude Code's environment file: a SessionStart hook appends `export
/// NAME=VALUE` lines to it and Claude Code sources it before each Bash
/// command (its hooks reference, *SessionStart*).
const CLAUDE_ENV_FILE: &str = "CLAUDE_ENV_FILE";

/// Appends the variables the hooks set ([`Answer::env`]) to the agent's
/// `CLAUDE_ENV_FILE` as `export NAME='VALUE'` lines (quoted for `sh` by
/// `shlex`). Without the variable (an agent other than Claude Code, a
/// non-SessionStart event), or when the file cannot be written, a line on
/// stderr names the variables that were not exported (never the values).
fn export_env(answer: &mut Answer) {
    if answer.env.is_empty() {
        return;
    }
    let names: Vec<&str> = answer.env.keys().map(String::as_str).collect();
    let names = names.join(", ");
    let written = std::env::var_os(CLAUDE_ENV_FILE)
        .ok_or_else(|| format!("{CLAUDE_ENV_FILE} is not set"))
        .and_then(|path| {
            let mut lines = String::new();
            for (name, value) in &answer.env {
                let quoted = shlex::try_quote(value)
                    .map_err(|_| format!("the value of `{name}` holds a NUL byte"))?;
                lines.push_str(&format!("export {name}={quoted}\n"));
            }
            // A last line without its newline would run into ours.
            let unterminated = std::fs::read(&path)
                .ok()
                .and_then(|bytes| bytes.last().copied())
                .is_some_and(|last| last != b'\n');
            if unterminated {
                lines.insert(0, '\n');
            }
            std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(&path)
                .and_then(|mut file| file.write_all(lines.as_bytes()))
                .map_err(|e| format!("cannot append to {CLAUDE_ENV_FILE}: {e}"))
        });
    if let Err(why) = written {
        let line = format!("agent-hooks: hooks set {names}, not exported: {why}");
        if answer.stderr.is_empty() {
            answer.stderr = line;
        } else {
            answer.stderr = format!("{}\n{line}", answer.stderr);
        }
    }
}

/// Prints `answer` (its texts are redacted already) and returns its exit
/// code. A closed stdout or stderr is not worth a panic.
fn print(answer: &Answer) -> u8 {
    if !answer.stdout.is_empty() {
        let _ = writeln!(std::io::stdout().lock(), "{}", answer.stdout);
    }
    if !answer.stderr.is_empty() {
        let _ = writeln!(std::io::stderr().lock(), "{}", answer.stderr);
    }
    answer.exit_code
}
