//! Converting Claude Code hooks into an agent-hooks config.
//!
//! Input: a Claude Code settings file (`~/.claude/settings.json`,
//! `.claude/settings.json`, ...) or a plugin's `hooks/hooks.json`. Both keep
//! their hooks under a top-level `hooks` object: event name → list of
//! *matcher groups* `{"matcher": "...", "hooks": [{"type": "command",
//! "command": "...", "timeout": 30}]}` (Claude Code's hooks reference,
//! <https://code.claude.com/docs/en/hooks>). Other top-level keys
//! (`permissions`, `env`, `mcpServers`, `description`, ...) are not hooks and
//! are ignored.
//!
//! Output: one agent-hooks hook per (event, matcher group, command hook), in
//! file order, which [`hooks_schema::load_str`] accepts. [`import_str`] does
//! the conversion; [`Import::to_yaml`] / [`Import::to_json`] render it. The
//! YAML opens with a comment naming the source and the choices below, and
//! puts each hook under a comment naming the matcher group it came from
//! (``# hooks.PreToolUse[0] `Bash` hook 1 of 2 (event at line 3)``);
//! multi-line commands are literal blocks (`|`), strings are quoted only
//! where YAML needs it.
//!
//! Warnings name the event and the entry (`hooks.PreToolUse[0].hooks[1]`),
//! the line of the key or entry they are about, and the reason.
//!
//! # Mapping
//!
//! | Claude Code | agent-hooks |
//! | --- | --- |
//! | `PreToolUse` | `before_tool` |
//! | `PostToolUse` | `after_tool` with `when: {outcome: success}` (Claude Code runs it only after a tool succeeded) |
//! | `PostToolUseFailure` | `after_tool` with `when` on the failure outcomes `timeout`, `not_found`, `error` |
//! | `UserPromptSubmit` | `user_prompt` |
//! | `Stop` | `stop` |
//! | `SessionStart` | `run_start`, for groups whose matcher accepts the `startup` source |
//! | `SessionEnd` | `run_end`, for groups that match every end reason |
//! | anything else (`Notification`, `PreCompact`, `SubagentStop`, `PermissionRequest`, `Setup`, ...) | skipped, with a warning |
//!
//! Every converted hook is `run: {command, timeout, protocol: claude}` with
//! `failure_policy: warn`:
//!
//! - **protocol**: `claude`, so the script reads Claude Code's stdin JSON and
//!   its exit code 2, `decision`, `hookSpecificOutput` ... keep their meaning.
//! - **timeout**: Claude Code's `timeout` is in seconds; `60s` (Claude Code's
//!   default) is written out when the hook sets none, because agent-hooks'
//!   own default is 30 s. Longer than 10 minutes (agent-hooks' maximum) is
//!   clamped to `600s` with a warning.
//! - **failure policy**: Claude Code treats a crash, a timeout or an exit code
//!   other than 0 and 2 as a *non-blocking error*: the tool call goes on and
//!   the error is shown. That is `warn` (agent-hooks' own default on
//!   `before_tool` is `block`, fail closed), written explicitly on every hook.
//! - **`async: true`** hooks run in the background in Claude Code and cannot
//!   block anything. agent-hooks has no background hooks: they run in order
//!   with `mode: audit` (the decision is recorded, the run continues), with a
//!   warning. `asyncRewake` hooks run synchronously in `enforce` mode, so their
//!   findings reach the model at once instead of re-waking it (warning).
//! - **`shell: "bash"`** becomes the exec form `argv: [bash, -c, COMMAND]`;
//!   otherwise the command keeps the shell form (`sh -c`).
//! - **environment**: agent-hooks gives a hook an allowlisted environment.
//!   Variables a command reads (`$NAME`, `${NAME}`, `process.env.NAME`, upper
//!   case, not assigned by the command itself, not in the runtime's base set)
//!   are listed in `env.pass`, so they reach it as they did under Claude Code.
//!   `CLAUDE_PROJECT_DIR` is set by the runtime for `protocol: claude` hooks;
//!   `CLAUDE_PLUGIN_ROOT` is not, and a warning says to export it.
//! - **`if`** (per-hook permission-rule filter): `Bash(PREFIX:*)` becomes
//!   `when: {pointer: /command, matches: "^PREFIX(\s|$)"}` (the command starts
//!   with `PREFIX` as a word); any other form skips the hook with a warning,
//!   because dropping the filter would run it more often.
//! - `type: "prompt"`, `"agent"`, `"http"` and other non-command hooks are
//!   skipped with a warning (agent-hooks runs no model and no HTTP hooks).
//!   Keys agent-hooks cannot honour (`blocking`, `commandWindows`, ...) are
//!   reported and ignored; `"// ..."` pseudo-comment keys are ignored.
//!
//! # Matchers
//!
//! Claude Code decides how to read a matcher from its characters (hooks
//! reference, "matcher patterns"):
//!
//! - `"*"`, `""` or no matcher: every tool → no `include_tools`;
//! - only letters, digits, `_`, `-` and `|`: an exact tool name or a `|` list
//!   of them → `include_tools: [A, B]` (exact, case-sensitive names);
//! - anything else: a JavaScript regular expression *searched* in the tool
//!   name (unanchored: `Notebook.*` also matches `MyNotebookTool`). agent-hooks'
//!   `{regex: ...}` patterns are anchored, so each top-level alternative gets
//!   `.*` on the sides it was not anchored (`^...$` anchors are dropped):
//!   `mcp__.*` → `{regex: ".*mcp__.*"}`, `^Bash$|^mcp__x` →
//!   `{regex: "Bash|mcp__x.*"}`. The result matches exactly the names
//!   Claude Code's search matches (both are case-sensitive).
//!
//! A matcher whose every alternative requires a character no tool name can
//! contain (tool names are `[A-Za-z0-9_-]`, the Anthropic API's rule), such
//! as `Write,Edit,MultiEdit` or `tools:Bash AND command:rm*`, never fires in
//! Claude Code: its group is skipped with a warning. A regex Rust's `regex`
//! syntax rejects (lookaround, backreferences) is skipped with a warning.

mod emit;
mod env;
mod map;
mod matcher;
mod read;

use std::fmt;

use serde_json::Value;

pub use matcher::{ToolMatch, convert_matcher};

/// Claude Code's timeout of a command hook that sets none, in seconds.
pub const CLAUDE_DEFAULT_TIMEOUT_SECS: u64 = 60;

/// Something that did not map, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// 1-based line in the input of what the warning is about: the key it
    /// names (`"timeout"`, `"matcher"`, an ignored key) when present, else
    /// the entry at [`path`](Self::path) (where a hook's or matcher group's
    /// object starts, or an event's key); `None` for a warning about the
    /// whole file.
    pub line: Option<usize>,
    /// Where in the input: `hooks.PreToolUse[0].hooks[1]`.
    pub path: String,
    /// What did not map and why (rustc style: lowercase, no trailing period).
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: `{}`: {}", self.path, self.message),
            None => write!(f, "`{}`: {}", self.path, self.message),
        }
    }
}

/// Why a file could not be imported.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ImportError {
    /// The input is not JSON (position 1-based).
    InvalidJson {
        /// Line of the error.
        line: usize,
        /// Column of the error.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// The top level is not a JSON object.
    NotAnObject {
        /// The JSON type found (`array`, `string`, ...).
        found: &'static str,
    },
    /// There is no top-level `hooks` key. `root_events` lists Claude Code
    /// event names found at the top level instead (a plugin `hooks.json`
    /// written without its `{"hooks": ...}` wrapper).
    NoHooksKey {
        /// Event names found at the top level, in file order.
        root_events: Vec<String>,
    },
    /// `hooks` is not an object of event name → matcher groups.
    HooksNotAnObject {
        /// The JSON type found.
        found: &'static str,
    },
    /// No hook maps to agent-hooks; the warnings say why each was skipped.
    NothingConvertible {
        /// Why each hook or event was skipped.
        warnings: Vec<Warning>,
    },
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::InvalidJson {
                line,
                column,
                message,
            } => write!(f, "invalid JSON at line {line}, column {column}: {message}"),
            ImportError::NotAnObject { found } => write!(
                f,
                "expected a JSON object with a `hooks` key (a Claude Code settings file or plugin `hooks.json`), found {found}"
            ),
            ImportError::NoHooksKey { root_events } if !root_events.is_empty() => write!(
                f,
                "no top-level `hooks` key: the events {} sit at the top level, but Claude Code reads hooks only from a `hooks` object (settings files and plugin `hooks.json` alike); wrap them as `{{\"hooks\": {{...}}}}`",
                root_events
                    .iter()
                    .map(|e| format!("`{e}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            ImportError::NoHooksKey { .. } => write!(
                f,
                "no top-level `hooks` key: this file configures no Claude Code hooks"
            ),
            ImportError::HooksNotAnObject { found } => write!(
                f,
                "`hooks` must be an object of event name to matcher groups, found {found}"
            ),
            ImportError::NothingConvertible { warnings } => write!(
                f,
                "no hook maps to agent-hooks ({} skipped, see the warnings)",
                warnings.len()
            ),
        }
    }
}

impl std::error::Error for ImportError {}

/// The result of [`import_str`]: the converted hooks and the warnings.
#[derive(Debug, Clone)]
pub struct Import {
    source_name: String,
    hooks: Vec<emit::Converted>,
    /// What did not map, in file order.
    pub warnings: Vec<Warning>,
}

/// Converts the hooks of a Claude Code settings file or plugin `hooks.json`
/// (`source`, JSON text; `source_name` is shown in the output's header) into
/// agent-hooks hooks, following the [module docs](self).
///
/// # Errors
///
/// [`ImportError`] when the text is not JSON, has no top-level `hooks`
/// object, or none of its hooks maps ([`ImportError::NothingConvertible`]
/// carries the reasons). Hooks that do not map are otherwise reported in
/// [`Import::warnings`].
pub fn import_str(source: &str, source_name: &str) -> Result<Import, ImportError> {
    let (root, lines) = read::parse(source)?;
    let Value::Object(root) = root else {
        return Err(ImportError::NotAnObject {
            found: map::type_name(&root),
        });
    };
    let hooks = match root.get("hooks") {
        Some(Value::Object(hooks)) => hooks,
        Some(other) => {
            return Err(ImportError::HooksNotAnObject {
                found: map::type_name(other),
            });
        }
        None => {
            let root_events = lines
                .keys("", &root)
                .into_iter()
                .filter(|k| map::is_known_event(k))
                .map(str::to_owned)
                .collect();
            return Err(ImportError::NoHooksKey { root_events });
        }
    };
    let converter = map::Converter::run(lines, hooks);
    if converter.hooks.is_empty() {
        return Err(ImportError::NothingConvertible {
            warnings: converter.warnings,
        });
    }
    Ok(Import {
        source_name: source_name.to_owned(),
        hooks: converter.hooks,
        warnings: converter.warnings,
    })
}

impl Import {
    /// Number of converted hooks (never 0).
    pub fn len(&self) -> usize {
        self.hooks.len()
    }

    /// Always `false`: an import with no hook is [`ImportError::NothingConvertible`].
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// The ids of the converted hooks, in order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.hooks.iter().map(|h| h.id.as_str())
    }
}
