//! `agent-hooks init --agent claude|codex|gemini|copilot [CONFIG...]`:
//! routes every event of an agent to `agent-hooks hook` (or to an
//! `agent-hooks serve` URL), merged into the agent's existing hook settings;
//! `--uninstall` takes it out again (see `docs/init.md`).
//!
//! # What is written where
//!
//! | agent | project settings (default) | `--scope user` | shape |
//! | --- | --- | --- | --- |
//! | claude | `.claude/settings.json` (`--scope local`: `.claude/settings.local.json`) | `~/.claude/settings.json` | `hooks.<Event>: [{hooks: [{type, command}]}]` |
//! | codex | `.codex/hooks.json` | `~/.codex/hooks.json` | as Claude Code |
//! | gemini | `.gemini/settings.json` | `~/.gemini/settings.json` | as Claude Code, each hook named `agent-hooks` |
//! | copilot | `.github/hooks/agent-hooks.json` | `~/.copilot/hooks/agent-hooks.json` | `{version: 1, hooks: {<event>: [{type, bash, timeoutSec}]}}`, each command naming its event (`--event`, `?event=`) |
//!
//! One group without a `matcher` (every tool) per event the agent has,
//! appended after the user's own groups, which are kept as they are.
//!
//! # Idempotence, backup and uninstall
//!
//! An entry is ours when its command runs `hook --agent <agent>` (or, with
//! `--url`, when it targets `/v1/hooks/<agent>`); a second `init` replaces
//! our entries in place instead of adding more. The first `init` of a file
//! keeps the file's original bytes in `<file>.agent-hooks.bak` and the
//! digest of what it wrote in `<file>.agent-hooks.state`. `--uninstall`
//! restores the backup byte for byte when the file is still what `init`
//! wrote (or removes the file `init` created); when the file was edited
//! since, it removes only our entries (the JSON is then rewritten, two-space
//! indented, keys in their order) and keeps the backup.

mod import;
mod settings;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::cli::{EXIT_OK, EXIT_USAGE, emit, warn};

pub(crate) use settings::{Route, Target};

/// The agents `init` can route to agent-hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum InitAgent {
    /// Claude Code.
    Claude,
    /// OpenAI Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// GitHub Copilot (CLI and cloud agent).
    Copilot,
}

/// Which of the agent's settings files `init` edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Scope {
    /// The project's settings, under the current directory (default).
    Project,
    /// The user's settings, under `$HOME`.
    User,
    /// Claude Code's `.claude/settings.local.json` (not committed).
    Local,
}

/// The arguments of `agent-hooks init`.
#[derive(Debug)]
pub(crate) struct Args {
    /// The agent.
    pub(crate) agent: InitAgent,
    /// The hook configs the routed events run (absolute paths are written).
    pub(crate) configs: Vec<PathBuf>,
    /// A stack file the routed events run (its absolute path is written).
    pub(crate) stack: Option<PathBuf>,
    /// Which settings file.
    pub(crate) scope: Scope,
    /// An explicit settings file instead of the scope's.
    pub(crate) settings: Option<PathBuf>,
    /// Route to an `agent-hooks serve` at this base URL instead.
    pub(crate) url: Option<String>,
    /// With `url`: the environment variable holding the bearer token.
    pub(crate) token_env: Option<String>,
    /// The command that runs agent-hooks (default: this executable's path).
    pub(crate) command: Option<String>,
    /// Take agent-hooks out again.
    pub(crate) uninstall: bool,
    /// Move the settings' own hooks into this new config (`--import`).
    pub(crate) import: Option<PathBuf>,
}

/// Runs `init`; returns the exit code.
pub(crate) fn run(args: &Args) -> u8 {
    match run_inner(args) {
        Ok(message) => {
            emit(&message);
            EXIT_OK
        }
        Err(message) => {
            warn(&format!("error: {message}"));
            EXIT_USAGE
        }
    }
}

fn run_inner(args: &Args) -> Result<String, String> {
    let path = match &args.settings {
        Some(path) => path.clone(),
        None => default_settings(args.agent, args.scope)?,
    };
    let target = Target::new(args.agent);
    if args.uninstall {
        return settings::uninstall(&target, &path);
    }
    let moved = match &args.import {
        Some(out) => Some(import::into_config(args.agent, &path, out)?),
        None => None,
    };
    let moved_config = moved.as_ref().is_some_and(|m| m.config.is_some());
    if args.configs.is_empty() && args.stack.is_none() && args.url.is_none() && !moved_config {
        return Err("give the hook configs to run (or `--url` of an `agent-hooks serve`)".into());
    }
    let (program, configs, stack);
    let route = match &args.url {
        Some(url) => Route::Url {
            base: url,
            token_env: args.token_env.as_deref(),
        },
        None => {
            program = match &args.command {
                Some(command) => command.clone(),
                None => std::env::current_exe()
                    .map_err(|err| format!("cannot find this executable's path: {err}"))?
                    .display()
                    .to_string(),
            };
            configs = args
                .configs
                .iter()
                .chain(moved.as_ref().and_then(|m| m.config.as_ref()))
                .map(|c| std::path::absolute(c).map_err(|e| format!("{}: {e}", c.display())))
                .collect::<Result<Vec<_>, _>>()?;
            stack = args
                .stack
                .as_ref()
                .map(|s| std::path::absolute(s).map_err(|e| format!("{}: {e}", s.display())))
                .transpose()?;
            Route::Command {
                program: &program,
                configs: &configs,
                stack: stack.as_deref(),
            }
        }
    };
    let sources = moved.as_ref().map_or(&[][..], |m| &m.sources[..]);
    let installed = settings::install(&target, &path, &route, sources)?;
    Ok(match moved {
        Some(moved) => format!("{}\n{installed}", moved.message),
        None => installed,
    })
}

/// The settings file of `agent` in `scope` (the table of the module docs).
fn default_settings(agent: InitAgent, scope: Scope) -> Result<PathBuf, String> {
    let home = || {
        std::env::var_os("HOME")
            .map(PathBuf::from)
            .ok_or_else(|| "HOME is not set: give `--settings FILE`".to_owned())
    };
    let (base, rel): (PathBuf, &str) = match (agent, scope) {
        (InitAgent::Claude, Scope::Project) => (".".into(), ".claude/settings.json"),
        (InitAgent::Claude, Scope::Local) => (".".into(), ".claude/settings.local.json"),
        (InitAgent::Claude, Scope::User) => (home()?, ".claude/settings.json"),
        (InitAgent::Codex, Scope::Project) => (".".into(), ".codex/hooks.json"),
        (InitAgent::Codex, Scope::User) => (home()?, ".codex/hooks.json"),
        (InitAgent::Gemini, Scope::Project) => (".".into(), ".gemini/settings.json"),
        (InitAgent::Gemini, Scope::User) => (home()?, ".gemini/settings.json"),
        (InitAgent::Copilot, Scope::Project) => (".".into(), ".github/hooks/agent-hooks.json"),
        (InitAgent::Copilot, Scope::User) => (home()?, ".copilot/hooks/agent-hooks.json"),
        (_, Scope::Local) => {
            return Err("`--scope local` is Claude Code's `.claude/settings.local.json`".into());
        }
    };
    Ok(base.join(rel))
}

/// `path` with `suffix` appended to its file name (`settings.json` →
/// `settings.json.agent-hooks.bak`).
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

/// Parses a settings file's text: a JSON object (an empty file is `{}`).
fn parse_settings(path: &Path, text: &str) -> Result<serde_json::Map<String, Value>, String> {
    if text.trim().is_empty() {
        return Ok(serde_json::Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(format!(
            "{}: the settings are not a JSON object",
            path.display()
        )),
        Err(err) => Err(format!(
            "{}:{}:{}: not JSON: {err} (nothing was changed)",
            path.display(),
            err.line(),
            err.column()
        )),
    }
}
