//! Converting Claude Code hooks into an agent-hooks config.
//!
//! Input: a Claude Code settings file (`~/.claude/settings.json`,
//! `.claude/settings.json`, ...), a plugin's `hooks/hooks.json`, or a
//! VS Code / GitHub Copilot hook file (`.github/hooks/*.json`, same events
//! and protocol). They keep their hooks under a top-level `hooks` object:
//! event name → list of *matcher groups* `{"matcher": "...", "hooks":
//! [{"type": "command", "command": "...", "timeout": 30}]}` (Claude Code's
//! hooks reference, <https://code.claude.com/docs/en/hooks>). Other
//! top-level keys (`permissions`, `env`, `mcpServers`, `description`, ...)
//! are not hooks and are ignored. A plugin `hooks.json` written without the
//! `hooks` wrapper (the events at the top level) is read the same way;
//! warnings then name its entries without the `hooks.` prefix.
//!
//! VS Code hook files ([`Dialect::VsCode`], chosen by the CLI for a file in
//! `.github/hooks/`) may list handlers directly under an event (no matcher
//! group: every tool), default to a 30 s timeout, and give a handler `cwd`
//! (→ `run.cwd`, relative to the repository root), `env` (→ `env.set`) and
//! per-platform commands: `linux` (else `osx`) replaces `command`, `windows`
//! is ignored with a warning.
//!
//! Other agents' files are read by the same conversion in their
//! [`Dialect`]: OpenAI Codex's `hooks.json` ([`Dialect::Codex`],
//! `protocol: codex`), Gemini CLI's settings ([`Dialect::Gemini`],
//! `protocol: gemini`) and the GitHub Copilot CLI's hook files
//! ([`Dialect::CopilotCli`]). Each of their events is read as the Claude Code
//! event its agent's table pairs it with and then converted by the rules
//! below; what differs (event names, matcher syntax, handler keys, timeout
//! unit and default, protocol) is stated once in the dialect's module, and
//! `docs/import.md` in the repository describes it for users.
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
//! | `PermissionRequest` | `permission_request` (a tool event: the matcher selects tools) |
//! | `PostToolBatch` | `after_tool_batch` |
//! | `Notification` | `notification`, the matcher (notification type) as a `when` on pointer `""` |
//! | `SubagentStart`, `SubagentStop` | `subagent_start`, `subagent_stop`, the matcher (agent type) as a `when` on `""` |
//! | `PreCompact`, `PostCompact` | `before_compaction`, `after_compaction`, the matcher (trigger) as a `when` on `""` |
//! | `PreModelSwitch`, `PostModelSwitch` | `before_model_select`, `after_model_select`, the matcher (the model switched to) as a `when` on `/to` |
//! | every other event (`Setup`, `TeammateIdle`, `ConfigChange`, ...) | skipped, with a warning giving the reason |
//!
//! A label matcher (the last four rows) of exact names (letters, digits,
//! `_`, `-`, spaces, separated by `|` or `,`) becomes `{pointer: "", equals:
//! NAME}` (`/to` for the model events; an `any` of them for several); any
//! other matcher becomes `{pointer: "", matches: MATCHER}`, which searches
//! the label as Claude Code's regular expression does. `docs/import-claude.md` in the
//! repository lists every Claude Code event.
//!
//! Every converted hook is `run: {command, timeout, protocol: claude}` with
//! `failure_policy: warn` (or `block`, see `onFailure`):
//!
//! - **protocol**: `claude`, so the script reads Claude Code's stdin JSON and
//!   its exit code 2, `decision`, `hookSpecificOutput` ... keep their meaning
//!   (the agent's own protocol for another dialect: `codex`, `gemini`).
//! - **timeout**: Claude Code's `timeout` is in seconds; `60s` (Claude Code's
//!   default) is written out when the hook sets none, because agent-hooks'
//!   own default is 30 s. Longer than 10 minutes (agent-hooks' maximum) is
//!   clamped to `600s` with a warning.
//! - **failure policy**: Claude Code treats a crash, a timeout or an exit code
//!   other than 0 and 2 as a *non-blocking error*: the tool call goes on and
//!   the error is shown. That is `warn` (agent-hooks' own default on
//!   `before_tool` is `block`, fail closed), written explicitly on every hook.
//! - **`onFailure`**: `"block"` (Claude Code 2.1.295+: a hook that cannot
//!   start, times out or exits unexpectedly blocks the action) becomes
//!   `failure_policy: block` on the phases that allow it (`before_tool`);
//!   elsewhere the hook keeps `warn` with a warning on the key.
//!   `"continue"` is the default (`warn`); another value is warned about and
//!   kept `warn`.
//! - **`async: true`** hooks run in the background in Claude Code and cannot
//!   block anything: they become `async: true` (background hooks: the agent
//!   does not wait, their `additionalContext` comes with the run's next event
//!   that takes context, a decision is recorded as an `invalid_output`
//!   failure), with a warning naming what differs. `asyncRewake` hooks become
//!   `async: true` too; agent-hooks wakes no idle model (warning). On
//!   `SessionEnd` (`run_end`), where agent-hooks cancels a run's background
//!   hooks, they run in order (warning). A background hook's failure policy
//!   is `warn` (an `onFailure: "block"` is warned about).
//! - **`shell: "bash"`** becomes the exec form `argv: [bash, -c, COMMAND]`;
//!   otherwise the command keeps the shell form (`sh -c`).
//! - **environment**: agent-hooks gives a hook an allowlisted environment.
//!   Variables a command reads (`$NAME`, `${NAME}`, `process.env.NAME`, upper
//!   case, not assigned by the command itself, not in the runtime's base set)
//!   are listed in `env.pass`, so they reach it as they did under Claude Code.
//!   `CLAUDE_PROJECT_DIR` is set by the runtime for `protocol: claude` hooks.
//! - **`CLAUDE_PLUGIN_ROOT`**, which Claude Code sets to a plugin's
//!   directory: with [`ImportOptions::plugin_root`] (`--plugin-root DIR`)
//!   every converted hook gets it in `env.set`; without it, the hooks whose
//!   command reads it pass it through (`env.pass`) and one warning names
//!   them, since where the agent does not export it their scripts are not
//!   found (exit 127, a non-blocking error under `warn`).
//! - **`if`** (per-hook permission-rule filter): `Bash(PREFIX:*)` becomes
//!   `when: {pointer: /command, matches: "^PREFIX(\s|$)"}` (the command starts
//!   with `PREFIX` as a word); any other form skips the hook with a warning,
//!   because dropping the filter would run it more often.
//! - `type: "http"` hooks become `http` actions with `protocol: claude`:
//!   `url` as is, `headers` with `$NAME` / `${NAME}` written `${NAME}`,
//!   `allowedEnvVars` as `env` (a header reference to a variable it does not
//!   list is dropped with a warning: Claude Code sends it empty), `timeout`
//!   and `onFailure` as for command hooks. `"prompt"`, `"agent"` and other
//!   hook types are skipped with a warning (agent-hooks runs no model in
//!   hooks).
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

mod dialect;
mod emit;
mod env;
mod hook;
mod map;
mod matcher;
mod read;

use std::fmt;

use serde_json::Value;

pub use dialect::{
    CLAUDE_DEFAULT_TIMEOUT_SECS, CODEX_DEFAULT_TIMEOUT_SECS, COPILOT_DEFAULT_TIMEOUT_SECS, Dialect,
    GEMINI_DEFAULT_TIMEOUT_MS, VSCODE_DEFAULT_TIMEOUT_SECS,
};
pub use matcher::{Syntax, ToolMatch, convert_matcher, convert_matcher_as};

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
    /// There is neither a top-level `hooks` key nor a Claude Code event at
    /// the top level: the file configures no hooks.
    NoHooksKey,
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
            ImportError::NoHooksKey => write!(
                f,
                "no top-level `hooks` key and no hook event at the top level: this file configures no hooks"
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
    dialect: Dialect,
    hooks: Vec<emit::Converted>,
    /// What did not map, in file order.
    pub warnings: Vec<Warning>,
}

/// How [`import_with`] converts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportOptions {
    /// Which agent's file it is ([`Dialect::from_path`] guesses it).
    pub dialect: Dialect,
    /// The plugin's directory: written into every converted hook's
    /// `env.set` as `CLAUDE_PLUGIN_ROOT` (Claude Code sets it for plugin
    /// hooks). `None`: hooks that reference `${CLAUDE_PLUGIN_ROOT}` get it
    /// from the agent's environment (`env.pass`), with a warning naming them.
    pub plugin_root: Option<String>,
}

impl ImportOptions {
    /// Options for `dialect`, without a plugin root.
    pub fn new(dialect: Dialect) -> ImportOptions {
        ImportOptions {
            dialect,
            plugin_root: None,
        }
    }

    /// These options with `CLAUDE_PLUGIN_ROOT` set to `dir`.
    pub fn with_plugin_root(mut self, dir: impl Into<String>) -> ImportOptions {
        self.plugin_root = Some(dir.into());
        self
    }
}

/// Converts the hooks of a Claude Code settings file or plugin `hooks.json`
/// (`source`, JSON text; `source_name` is shown in the output's header) into
/// agent-hooks hooks, following the [module docs](self), with the default
/// [`ImportOptions`].
///
/// # Errors
///
/// As [`import_with`].
pub fn import_str(source: &str, source_name: &str) -> Result<Import, ImportError> {
    import_with(source, source_name, &ImportOptions::default())
}

/// Converts the hooks of a Claude Code settings file, plugin `hooks.json`
/// or VS Code hook file (`source`, JSON text; `source_name` is shown in the
/// output's header) into agent-hooks hooks, following the
/// [module docs](self) and `options`.
///
/// The hooks sit under a top-level `hooks` object; a file without one whose
/// top-level keys include Claude Code events (a plugin `hooks.json` written
/// without the wrapper) is read as that object itself.
///
/// # Errors
///
/// [`ImportError`] when the text is not JSON, has neither a top-level
/// `hooks` object nor events at the top level, or none of its hooks maps
/// ([`ImportError::NothingConvertible`] carries the reasons). Hooks that do
/// not map are otherwise reported in [`Import::warnings`].
pub fn import_with(
    source: &str,
    source_name: &str,
    options: &ImportOptions,
) -> Result<Import, ImportError> {
    let (root, lines) = read::parse(source)?;
    let Value::Object(root) = root else {
        return Err(ImportError::NotAnObject {
            found: map::type_name(&root),
        });
    };
    let (hooks, prefix) = match root.get("hooks") {
        Some(Value::Object(hooks)) => (hooks, "hooks"),
        Some(other) => {
            return Err(ImportError::HooksNotAnObject {
                found: map::type_name(other),
            });
        }
        None if lines
            .keys("", &root)
            .iter()
            .any(|k| options.dialect.knows_event(k)) =>
        {
            (&root, "")
        }
        None => return Err(ImportError::NoHooksKey),
    };
    let disabled = if options.dialect == Dialect::Gemini {
        gemini_disabled(&root)
    } else {
        Vec::new()
    };
    let converter = map::Converter::run(lines, hooks, prefix, options, disabled);
    if converter.hooks.is_empty() {
        return Err(ImportError::NothingConvertible {
            warnings: converter.warnings,
        });
    }
    Ok(Import {
        source_name: source_name.to_owned(),
        dialect: options.dialect,
        hooks: converter.hooks,
        warnings: converter.warnings,
    })
}

/// The hooks a Gemini CLI settings file disables by name (a hook's `name`,
/// else its command): `hooksConfig.disabled`, or `hooks.disabled` in older
/// settings.
fn gemini_disabled(root: &serde_json::Map<String, Value>) -> Vec<String> {
    ["hooksConfig", "hooks"]
        .iter()
        .filter_map(|key| root.get(*key)?.get("disabled")?.as_array())
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
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

    /// The path in the file of each converted hook's entry, in order, as
    /// warnings name entries: `hooks.PreToolUse[0].hooks[1]` (a handler
    /// of a matcher group), `hooks.preToolUse[0]` (a handler listed under
    /// its event). What `agent-hooks init --import` takes out of the
    /// settings it moved into a config.
    pub fn sources(&self) -> impl Iterator<Item = &str> {
        self.hooks.iter().map(|h| h.source.as_str())
    }
}
