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
//! the conversion; [`Import::to_yaml`] / [`Import::to_json`] render it.
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

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

use hooks_schema::automata::{Search, build_dfa, is_match};
use serde_json::{Map, Value};

/// Claude Code's timeout of a command hook that sets none, in seconds.
pub const CLAUDE_DEFAULT_TIMEOUT_SECS: u64 = 60;

/// The longest timeout agent-hooks accepts, in milliseconds (10 minutes).
const MAX_TIMEOUT_MS: u64 = 600_000;

/// What a Claude Code tool matcher selects, in agent-hooks' terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolMatch {
    /// Every tool (`*`, empty or absent matcher): no `include_tools`.
    All,
    /// Exactly these tool names (a name or a `|` list of names).
    Names(Vec<String>),
    /// The tool names this **anchored** regular expression (Rust `regex`
    /// syntax) matches entirely: `include_tools: [{regex: ...}]`.
    Regex(String),
    /// No tool name can match (the reason says why); Claude Code never runs
    /// the group.
    Never(String),
    /// The matcher is a regular expression agent-hooks cannot express (the
    /// reason says why).
    Unsupported(String),
}

impl ToolMatch {
    /// Whether a tool (or, for `SessionStart`, a source) called `name` is
    /// selected.
    pub fn matches(&self, name: &str) -> bool {
        match self {
            ToolMatch::All => true,
            ToolMatch::Names(names) => names.iter().any(|n| n == name),
            ToolMatch::Regex(regex) => build_dfa(&[format!("^(?:{regex})$")], Search::Anchored)
                .is_ok_and(|dfa| is_match(&dfa, name, Search::Anchored)),
            ToolMatch::Never(_) | ToolMatch::Unsupported(_) => false,
        }
    }
}

/// Converts a Claude Code matcher (the `matcher` of a matcher group) into
/// what it selects, following the rules in the [module docs](self#matchers).
///
/// ```
/// use agent_hooks::import::claude::{ToolMatch, convert_matcher};
///
/// assert_eq!(convert_matcher("*"), ToolMatch::All);
/// assert_eq!(convert_matcher("Edit|Write"), ToolMatch::Names(vec!["Edit".into(), "Write".into()]));
/// assert_eq!(convert_matcher("mcp__.*"), ToolMatch::Regex(".*mcp__.*".into()));
/// ```
pub fn convert_matcher(matcher: &str) -> ToolMatch {
    if matcher.is_empty() || matcher == "*" {
        return ToolMatch::All;
    }
    if matcher.chars().all(|c| is_tool_char(c) || c == '|') {
        let mut names: Vec<String> = Vec::new();
        for name in matcher.split('|').filter(|n| !n.is_empty()) {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
        if names.is_empty() {
            return ToolMatch::Never(format!("matcher `{matcher}` names no tool"));
        }
        return ToolMatch::Names(names);
    }
    let alternatives = split_alternatives(matcher);
    let impossible: Vec<char> = alternatives
        .iter()
        .filter_map(|a| required_impossible_char(a))
        .collect();
    if impossible.len() == alternatives.len() {
        let chars: BTreeSet<String> = impossible.iter().map(|c| format!("`{c}`")).collect();
        return ToolMatch::Never(format!(
            "Claude Code reads matcher `{matcher}` as a regular expression, and it requires {} which no tool name contains (tool names are letters, digits, `_` and `-`); a list of tools is written `A|B`",
            chars.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    let anchored: Vec<String> = alternatives.iter().map(|a| anchor(a)).collect();
    if anchored.iter().any(|a| a == ".*") {
        return ToolMatch::All;
    }
    let regex = anchored.join("|");
    match hooks_schema::check_regex(&regex) {
        Ok(()) => ToolMatch::Regex(regex),
        Err(e) => ToolMatch::Unsupported(format!(
            "matcher `{matcher}` is a regular expression agent-hooks cannot compile: {e}"
        )),
    }
}

/// A character a tool name may contain (the Anthropic API's tool-name rule
/// `^[a-zA-Z0-9_-]{1,128}$`).
fn is_tool_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Splits a regex at its top-level `|` (outside groups and classes).
fn split_alternatives(regex: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    let mut in_class = false;
    let mut chars = regex.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                current.push(c);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
                continue;
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class => depth += 1,
            ')' if !in_class => depth = depth.saturating_sub(1),
            '|' if !in_class && depth == 0 => {
                out.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    out.push(current);
    out
}

/// A literal character outside groups that `alternative` requires and no
/// tool name contains, if any.
fn required_impossible_char(alternative: &str) -> Option<char> {
    let chars: Vec<char> = alternative.chars().collect();
    let optional = |j: usize| {
        matches!(chars.get(j), Some('*' | '?'))
            || (chars.get(j) == Some(&'{') && chars.get(j + 1) == Some(&'0'))
    };
    let mut depth = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let escaped = chars.get(i + 1).copied();
                i += 2;
                if let Some(e) = escaped
                    && depth == 0
                    && !e.is_ascii_alphanumeric()
                    && !is_tool_char(e)
                    && !optional(i)
                {
                    return Some(e);
                }
                continue;
            }
            '[' => {
                // Skip the class: it may allow tool-name characters.
                i += 1;
                if chars.get(i) == Some(&'^') {
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    i += 1;
                }
                while i < chars.len() && chars[i] != ']' {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '.' | '^' | '$' | '*' | '+' | '?' | '{' | '}' | '|' => {}
            _ if depth == 0 && !is_tool_char(c) && !optional(i + 1) => return Some(c),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether the character at byte `end` of `s` (exclusive) is preceded by an
/// odd number of backslashes, i.e. escaped.
fn escaped_before(s: &str, end: usize) -> bool {
    s[..end].chars().rev().take_while(|&c| c == '\\').count() % 2 == 1
}

/// The anchored equivalent of one top-level alternative of an unanchored
/// (searched) regex.
fn anchor(alternative: &str) -> String {
    let (start, body) = match alternative.strip_prefix('^') {
        Some(rest) => (true, rest),
        None => (false, alternative),
    };
    let (end, body) = match body.strip_suffix('$') {
        Some(rest) if !escaped_before(body, rest.len()) => (true, rest),
        _ => (false, body),
    };
    let mut out = String::with_capacity(body.len() + 4);
    if !start && !body.starts_with(".*") {
        out.push_str(".*");
    }
    out.push_str(body);
    let ends_open = body.ends_with(".*") && !escaped_before(body, body.len() - 2);
    if !end && !ends_open {
        out.push_str(".*");
    }
    out
}

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

/// A tool-name pattern of a converted hook.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pattern {
    Name(String),
    Regex(String),
}

/// What a converted hook runs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Program {
    Shell(String),
    Exec(Vec<String>),
}

/// One converted hook.
#[derive(Debug, Clone, PartialEq)]
struct Converted {
    id: String,
    origin: String,
    description: Option<String>,
    phase: &'static str,
    include_tools: Vec<Pattern>,
    when: Option<Value>,
    program: Program,
    env_pass: Vec<String>,
    timeout: String,
    audit: bool,
}

/// The result of [`import_str`]: the converted hooks and the warnings.
#[derive(Debug, Clone)]
pub struct Import {
    source_name: String,
    hooks: Vec<Converted>,
    /// What did not map, in file order.
    pub warnings: Vec<Warning>,
}

/// How a Claude Code event maps.
enum EventKind {
    /// A tool event: phase and the outcome filter.
    Tool(&'static str, Option<Value>),
    /// An event without a matcher.
    Plain(&'static str),
    SessionStart,
    SessionEnd,
    /// No equivalent: the reason.
    Unmapped(&'static str),
    Unknown,
}

fn event_kind(name: &str) -> EventKind {
    match name {
        "PreToolUse" => EventKind::Tool("before_tool", None),
        "PostToolUse" => EventKind::Tool(
            "after_tool",
            Some(serde_json::json!({"outcome": "success"})),
        ),
        "PostToolUseFailure" => EventKind::Tool(
            "after_tool",
            Some(serde_json::json!({"any": [
                {"outcome": "timeout"}, {"outcome": "not_found"}, {"outcome": "error"}
            ]})),
        ),
        "UserPromptSubmit" => EventKind::Plain("user_prompt"),
        "Stop" => EventKind::Plain("stop"),
        "SessionStart" => EventKind::SessionStart,
        "SessionEnd" => EventKind::SessionEnd,
        "Notification" => EventKind::Unmapped(
            "agent-hooks has no notification events (permission prompts, idle alerts)",
        ),
        "PreCompact" | "PostCompact" => {
            EventKind::Unmapped("agent-hooks does not compact the conversation")
        }
        "SubagentStart" | "SubagentStop" | "TeammateIdle" | "TaskCreated" | "TaskCompleted" => {
            EventKind::Unmapped("agent-hooks has no subagent or task events")
        }
        "PermissionRequest" | "PermissionDenied" => EventKind::Unmapped(
            "agent-hooks has no permission dialog; gate tool calls with `before_tool` hooks instead",
        ),
        "Setup"
        | "StopFailure"
        | "UserPromptExpansion"
        | "PostToolBatch"
        | "ConfigChange"
        | "InstructionsLoaded"
        | "CwdChanged"
        | "FileChanged"
        | "DirectoryAdded"
        | "WorktreeCreate"
        | "WorktreeRemove"
        | "Elicitation"
        | "ElicitationResult"
        | "PreModelSwitch"
        | "PostModelSwitch"
        | "MessageDisplay" => EventKind::Unmapped("agent-hooks has no equivalent phase"),
        _ => EventKind::Unknown,
    }
}

/// Claude Code event names, to recognise a hooks map written at the top level.
fn is_known_event(name: &str) -> bool {
    !matches!(event_kind(name), EventKind::Unknown)
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
    let root: Value = serde_json::from_str(source).map_err(|e| ImportError::InvalidJson {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let Value::Object(root) = root else {
        return Err(ImportError::NotAnObject {
            found: type_name(&root),
        });
    };
    let hooks = match root.get("hooks") {
        Some(Value::Object(hooks)) => hooks,
        Some(other) => {
            return Err(ImportError::HooksNotAnObject {
                found: type_name(other),
            });
        }
        None => {
            let mut root_events: Vec<(usize, String)> = root
                .keys()
                .filter(|k| is_known_event(k))
                .map(|k| (key_offset(source, k, 0).unwrap_or(usize::MAX), k.clone()))
                .collect();
            root_events.sort();
            return Err(ImportError::NoHooksKey {
                root_events: root_events.into_iter().map(|(_, k)| k).collect(),
            });
        }
    };
    let mut converter = Converter {
        lines: SourceLines::index(source),
        hooks: Vec::new(),
        warnings: Vec::new(),
        counters: BTreeMap::new(),
        plugin_root_users: 0,
    };
    // serde_json's map is sorted by key: restore file order from the text,
    // searching event keys after the top-level `hooks` key (which precedes
    // every nested one).
    let hooks_at = key_offset(source, "hooks", 0).unwrap_or(0);
    let mut events: Vec<(usize, &String, &Value)> = hooks
        .iter()
        .map(|(k, v)| (key_offset(source, k, hooks_at).unwrap_or(usize::MAX), k, v))
        .collect();
    events.sort_by_key(|(offset, _, _)| *offset);
    for (offset, name, groups) in events {
        let line = (offset != usize::MAX).then(|| line_of(source, offset));
        converter.event(name, groups, line);
    }
    if converter.plugin_root_users > 0 {
        converter.warnings.push(Warning {
            line: None,
            path: "hooks".to_owned(),
            message: format!(
                "{} hook(s) use `CLAUDE_PLUGIN_ROOT`, which Claude Code sets to the plugin's directory; agent-hooks passes it through from the agent's environment (`env.pass`), so export it there",
                converter.plugin_root_users
            ),
        });
    }
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

struct Converter {
    lines: SourceLines,
    hooks: Vec<Converted>,
    warnings: Vec<Warning>,
    counters: BTreeMap<String, usize>,
    plugin_root_users: usize,
}

impl Converter {
    /// Records a warning about the entry at `path` (`hooks.Stop[0].hooks[1]`)
    /// or, with `key`, about that key of the entry; it is located on the key
    /// when the key is in the input, else on the entry.
    fn warn(&mut self, path: &str, key: Option<&str>, message: String) {
        let line = key
            .and_then(|k| self.lines.get(&format!("{path}.{k}")))
            .or_else(|| self.lines.get(path));
        self.warnings.push(Warning {
            line,
            path: path.to_owned(),
            message,
        });
    }

    fn event(&mut self, name: &str, groups: &Value, line: Option<usize>) {
        let path = format!("hooks.{name}");
        if name.starts_with("//") && groups.is_string() {
            return; // a `"// ..."` pseudo-comment
        }
        let kind = event_kind(name);
        let Value::Array(groups) = groups else {
            self.warn(
                &path,
                None,
                format!(
                    "skipped: expected a list of matcher groups, found {}",
                    type_name(groups)
                ),
            );
            return;
        };
        let count: usize = groups
            .iter()
            .map(|g| g.get("hooks").and_then(Value::as_array).map_or(0, Vec::len))
            .sum();
        match kind {
            EventKind::Unknown => {
                self.warn(
                    &path,
                    None,
                    format!(
                        "skipped {count} hook(s): `{name}` is not a Claude Code hook event agent-hooks knows"
                    ),
                );
                return;
            }
            EventKind::Unmapped(reason) => {
                self.warn(
                    &path,
                    None,
                    format!("skipped {count} hook(s) on `{name}`: {reason}"),
                );
                return;
            }
            _ => {}
        }
        for (g, group) in groups.iter().enumerate() {
            self.group(name, &kind, group, &format!("{path}[{g}]"), line);
        }
    }

    fn group(
        &mut self,
        event: &str,
        kind: &EventKind,
        group: &Value,
        path: &str,
        line: Option<usize>,
    ) {
        let Value::Object(group) = group else {
            self.warn(
                path,
                None,
                format!(
                    "skipped: expected a matcher group object, found {}",
                    type_name(group)
                ),
            );
            return;
        };
        let Some(Value::Array(hooks)) = group.get("hooks") else {
            self.warn(
                path,
                Some("hooks"),
                "skipped: the matcher group has no `hooks` list".to_owned(),
            );
            return;
        };
        let matcher = match group.get("matcher") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(m)) => m.clone(),
            Some(other) => {
                self.warn(
                    path,
                    Some("matcher"),
                    format!(
                        "skipped {} hook(s): `matcher` must be a string, found {}",
                        hooks.len(),
                        type_name(other)
                    ),
                );
                return;
            }
        };
        let (phase, tools, outcome, slug) = match kind {
            EventKind::Tool(phase, outcome) => match convert_matcher(&matcher) {
                ToolMatch::Never(reason) | ToolMatch::Unsupported(reason) => {
                    self.warn(
                        path,
                        Some("matcher"),
                        format!("skipped {} hook(s): {reason}", hooks.len()),
                    );
                    return;
                }
                m => (*phase, m, outcome.clone(), slug(&matcher)),
            },
            EventKind::Plain(phase) => {
                if !matches!(convert_matcher(&matcher), ToolMatch::All) {
                    self.warn(
                        path,
                        Some("matcher"),
                        format!(
                            "matcher `{matcher}` ignored: Claude Code does not filter `{event}` hooks by matcher"
                        ),
                    );
                }
                (*phase, ToolMatch::All, None, String::new())
            }
            EventKind::SessionStart => {
                let sources = convert_matcher(&matcher);
                if !sources.matches("startup") {
                    self.warn(
                        path,
                        Some("matcher"),
                        format!(
                            "skipped {} hook(s): `SessionStart` matcher `{matcher}` does not accept the `startup` source, the only one agent-hooks has (`run_start`); sessions are never resumed, cleared or compacted here",
                            hooks.len()
                        ),
                    );
                    return;
                }
                let others: Vec<&str> = ["resume", "clear", "compact"]
                    .into_iter()
                    .filter(|s| sources.matches(s))
                    .collect();
                if !others.is_empty() && !matches!(sources, ToolMatch::All) {
                    self.warn(
                        path,
                        Some("matcher"),
                        format!(
                            "`SessionStart` sources {} have no equivalent: the hooks run at `run_start` only",
                            others.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
                        ),
                    );
                }
                ("run_start", ToolMatch::All, None, String::new())
            }
            EventKind::SessionEnd => {
                if !matches!(convert_matcher(&matcher), ToolMatch::All) {
                    self.warn(
                        path,
                        Some("matcher"),
                        format!(
                            "skipped {} hook(s): `SessionEnd` matcher `{matcher}` filters by end reason, which `run_end` does not carry",
                            hooks.len()
                        ),
                    );
                    return;
                }
                ("run_end", ToolMatch::All, None, String::new())
            }
            EventKind::Unmapped(_) | EventKind::Unknown => return,
        };
        let description = group
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned);
        for (key, _) in group {
            if !matches!(key.as_str(), "matcher" | "hooks" | "description" | "id")
                && !key.starts_with("//")
            {
                self.warn(
                    path,
                    Some(key),
                    format!("ignored key `{key}`: not part of Claude Code's matcher group"),
                );
            }
        }
        let base = if slug.is_empty() {
            kebab(event)
        } else {
            format!("{}-{slug}", kebab(event))
        };
        for (h, hook) in hooks.iter().enumerate() {
            let hook_path = format!("{path}.hooks[{h}]");
            let mut origin = if matcher.is_empty() {
                format!("{path} hook {} of {}", h + 1, hooks.len())
            } else {
                format!("{path} `{matcher}` hook {} of {}", h + 1, hooks.len())
            };
            if let Some(line) = line {
                origin.push_str(&format!(" (event at line {line})"));
            }
            let ctx = HookCtx {
                base: &base,
                phase,
                tools: &tools,
                outcome: outcome.as_ref(),
                description: description.as_deref(),
                origin,
            };
            self.hook(hook, &hook_path, &ctx);
        }
    }

    fn hook(&mut self, hook: &Value, path: &str, ctx: &HookCtx<'_>) {
        let Value::Object(hook) = hook else {
            self.warn(
                path,
                None,
                format!("skipped: expected a hook object, found {}", type_name(hook)),
            );
            return;
        };
        match hook.get("type").and_then(Value::as_str) {
            Some("command") => {}
            Some(t @ ("prompt" | "agent")) => {
                self.warn(
                    path,
                    Some("type"),
                    format!("skipped: `type: \"{t}\"` hooks ask a model, and agent-hooks runs no model in hooks; only `command` hooks convert"),
                );
                return;
            }
            Some(t) => {
                self.warn(
                    path,
                    Some("type"),
                    format!("skipped: `type: \"{t}\"` hooks have no equivalent; only `command` hooks convert"),
                );
                return;
            }
            None => {
                self.warn(
                    path,
                    None,
                    "skipped: the hook has no `type` (Claude Code requires one, e.g. `\"type\": \"command\"`)".to_owned(),
                );
                return;
            }
        }
        let command = match hook.get("command").and_then(Value::as_str) {
            Some(c) if !c.trim().is_empty() => c.to_owned(),
            _ => {
                self.warn(
                    path,
                    Some("command"),
                    "skipped: the command hook has no `command`".to_owned(),
                );
                return;
            }
        };
        let program = match hook.get("shell").and_then(Value::as_str) {
            None | Some("sh") => Program::Shell(command.clone()),
            Some("bash") => {
                Program::Exec(vec!["bash".to_owned(), "-c".to_owned(), command.clone()])
            }
            Some(other) => {
                self.warn(
                    path,
                    Some("shell"),
                    format!(
                        "skipped: `shell: \"{other}\"` is not supported, expected `sh` or `bash`"
                    ),
                );
                return;
            }
        };
        let Some(timeout) = self.timeout(hook.get("timeout"), path) else {
            return;
        };
        let mut tools = ctx.tools.clone();
        let mut when_parts: Vec<Value> = ctx.outcome.cloned().into_iter().collect();
        if let Some(rule) = hook.get("if") {
            let Some((tool, predicate)) = rule.as_str().and_then(if_rule) else {
                self.warn(
                    path,
                    Some("if"),
                    format!(
                        "skipped: `if` filter {rule} has no equivalent (only `Bash(PREFIX:*)` converts); running the hook without it would fire it more often"
                    ),
                );
                return;
            };
            if !tools.matches(&tool) {
                self.warn(
                    path,
                    Some("if"),
                    format!("skipped: `if` filter {rule} names a tool the group's matcher excludes, so the hook never runs"),
                );
                return;
            }
            tools = ToolMatch::Names(vec![tool]);
            when_parts.push(predicate);
        }
        let is_async = hook.get("async").and_then(Value::as_bool) == Some(true);
        if is_async {
            self.warn(
                path,
                Some("async"),
                "`async: true`: agent-hooks has no background hooks; the hook runs in order with `mode: audit`, so, as in Claude Code, its decisions do not affect the run".to_owned(),
            );
        }
        if hook.get("asyncRewake").and_then(Value::as_bool) == Some(true) {
            self.warn(
                path,
                Some("asyncRewake"),
                "`asyncRewake: true`: agent-hooks has no background hooks; the hook runs in order, so its findings reach the model at once instead of re-waking it".to_owned(),
            );
        }
        for key in hook.keys() {
            let known = matches!(
                key.as_str(),
                "type"
                    | "command"
                    | "timeout"
                    | "shell"
                    | "if"
                    | "async"
                    | "asyncRewake"
                    | "rewakeMessage"
                    | "rewakeSummary"
                    | "statusMessage"
            );
            if !known && !key.starts_with("//") {
                self.warn(
                    path,
                    Some(key),
                    format!("ignored key `{key}`: agent-hooks has no equivalent"),
                );
            }
        }
        let env_pass = referenced_env(&command);
        if env_pass.iter().any(|n| n == "CLAUDE_PLUGIN_ROOT") {
            self.plugin_root_users += 1;
        }
        let description = ctx.description.map(str::to_owned).or_else(|| {
            hook.get("statusMessage")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
        let counter = self.counters.entry(ctx.base.to_owned()).or_insert(0);
        *counter += 1;
        let id = format!("{}-{counter}", ctx.base);
        let include_tools = match tools {
            ToolMatch::Names(names) => names.into_iter().map(Pattern::Name).collect(),
            ToolMatch::Regex(r) => vec![Pattern::Regex(r)],
            _ => Vec::new(),
        };
        let when = match when_parts.len() {
            0 => None,
            1 => when_parts.pop(),
            _ => Some(serde_json::json!({ "all": when_parts })),
        };
        self.hooks.push(Converted {
            id,
            origin: ctx.origin.clone(),
            description,
            phase: ctx.phase,
            include_tools,
            when,
            program,
            env_pass,
            timeout,
            audit: is_async,
        });
    }

    /// Claude Code's timeout (seconds) as an agent-hooks duration; `None`
    /// (with a warning) when the hook is skipped.
    fn timeout(&mut self, value: Option<&Value>, path: &str) -> Option<String> {
        let millis = match value {
            None | Some(Value::Null) => CLAUDE_DEFAULT_TIMEOUT_SECS * 1000,
            Some(Value::Number(n)) => match n.as_f64() {
                Some(secs) if secs > 0.0 && secs.is_finite() => {
                    let ms = (secs * 1000.0).round();
                    if ms > MAX_TIMEOUT_MS as f64 {
                        self.warn(
                            path,
                            Some("timeout"),
                            format!("`timeout` {n} s is longer than agent-hooks' maximum of 10 minutes; clamped to `600s`"),
                        );
                        MAX_TIMEOUT_MS
                    } else {
                        // In range 0..=600_000 after the check above.
                        (ms as u64).max(1)
                    }
                }
                _ => {
                    self.warn(
                        path,
                        Some("timeout"),
                        format!(
                            "skipped: `timeout` must be a positive number of seconds, found {n}"
                        ),
                    );
                    return None;
                }
            },
            Some(other) => {
                self.warn(
                    path,
                    Some("timeout"),
                    format!(
                        "skipped: `timeout` must be a number of seconds, found {}",
                        type_name(other)
                    ),
                );
                return None;
            }
        };
        Some(duration_text(millis))
    }
}

/// What a matcher group gives each of its hooks.
struct HookCtx<'a> {
    base: &'a str,
    phase: &'static str,
    tools: &'a ToolMatch,
    outcome: Option<&'a Value>,
    description: Option<&'a str>,
    origin: String,
}

/// `millis` as `"Ns"` (whole seconds, Claude Code's unit) or `"Nms"`.
fn duration_text(millis: u64) -> String {
    if millis.is_multiple_of(1000) {
        format!("{}s", millis / 1000)
    } else {
        format!("{millis}ms")
    }
}

/// `Bash(PREFIX:*)` → (`Bash`, a `when` leaf: the command starts with
/// `PREFIX` as a word).
fn if_rule(rule: &str) -> Option<(String, Value)> {
    let inner = rule.strip_prefix("Bash(")?.strip_suffix(')')?;
    let prefix = inner.strip_suffix(":*")?;
    if prefix.trim().is_empty() {
        return None;
    }
    let pattern = format!("^{}(\\s|$)", regex_escape(prefix));
    Some((
        "Bash".to_owned(),
        serde_json::json!({"pointer": "/command", "matches": pattern}),
    ))
}

/// Escapes the regex metacharacters of `text`.
fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Upper-case environment variables `command` reads and does not assign,
/// outside the runtime's base environment and `CLAUDE_PROJECT_DIR`, sorted.
fn referenced_env(command: &str) -> Vec<String> {
    let bytes = command.as_bytes();
    let is_start = |b: u8| b.is_ascii_uppercase() || b == b'_';
    let is_cont = |b: u8| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_';
    let name_at = |i: usize| {
        let mut j = i;
        if j < bytes.len() && is_start(bytes[j]) {
            j += 1;
            while j < bytes.len() && is_cont(bytes[j]) {
                j += 1;
            }
        }
        (j > i).then(|| (command[i..j].to_owned(), j))
    };
    let mut read = BTreeSet::new();
    let mut assigned = BTreeSet::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = if bytes[i] == b'$' {
            Some(if bytes.get(i + 1) == Some(&b'{') {
                i + 2
            } else {
                i + 1
            })
        } else if bytes[i..].starts_with(b"process.env.") {
            Some(i + "process.env.".len())
        } else {
            None
        };
        if let Some(s) = start
            && let Some((name, end)) = name_at(s)
        {
            read.insert(name);
            i = end;
            continue;
        }
        // `NAME=` at a word start is an assignment by the command itself.
        if (i == 0 || !is_cont(bytes[i - 1]) && bytes[i - 1] != b'$' && bytes[i - 1] != b'.')
            && let Some((name, end)) = name_at(i)
        {
            let before = command[..i].trim_end();
            let loop_or_read = before.ends_with("for") || before.ends_with("read");
            if loop_or_read || (bytes.get(end) == Some(&b'=') && bytes.get(end + 1) != Some(&b'='))
            {
                assigned.insert(name);
            }
            i = end;
            continue;
        }
        i += 1;
    }
    read.into_iter()
        .filter(|n| {
            !assigned.contains(n)
                && !hooks_runtime::BASE_ENV.contains(&n.as_str())
                && !hooks_runtime::NEVER_INHERITED.contains(&n.as_str())
                && n != hooks_runtime::CLAUDE_PROJECT_DIR
                && !SHELL_VARIABLES.contains(&n.as_str())
        })
        .collect()
}

/// Variables the shell itself sets: never worth passing.
const SHELL_VARIABLES: &[&str] = &[
    "BASHPID",
    "BASH_SOURCE",
    "BASH_VERSION",
    "EUID",
    "HOSTNAME",
    "IFS",
    "LINENO",
    "OLDPWD",
    "OPTARG",
    "OPTIND",
    "PIPESTATUS",
    "PPID",
    "PWD",
    "RANDOM",
    "REPLY",
    "SECONDS",
    "UID",
];

/// `PreToolUse` → `pre-tool-use`.
fn kebab(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('-');
        }
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_owned()
}

/// A short id fragment from a matcher: `Edit|Write` → `edit-write`; empty
/// for a match-all matcher.
fn slug(matcher: &str) -> String {
    if matches!(convert_matcher(matcher), ToolMatch::All) {
        return String::new();
    }
    let mut out = String::new();
    for c in matcher.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let mut out = out.trim_end_matches('-').to_owned();
    const MAX: usize = 32;
    if out.len() > MAX {
        let cut = out[..MAX].rfind('-').unwrap_or(MAX);
        out.truncate(cut);
    }
    if out.is_empty() {
        "matcher".to_owned()
    } else {
        out
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Byte offset of the first `"key"` used as an object key in `source`, at
/// or after byte `from`.
fn key_offset(source: &str, key: &str, from: usize) -> Option<usize> {
    let quoted = serde_json::to_string(key).ok()?;
    let mut from = from;
    while let Some(found) = source[from..].find(&quoted) {
        let at = from + found;
        let after = source[at + quoted.len()..].trim_start();
        if after.starts_with(':') && !escaped_before(source, at) {
            return Some(at);
        }
        from = at + quoted.len();
    }
    None
}

/// The line of every node of a JSON text, by the path warnings name it with
/// (`hooks.PreToolUse[0].hooks[1].timeout`): an object member is on its
/// key's line, an array element on the line where it starts. A key repeated
/// in one object keeps its last position, as serde_json keeps its last value.
#[derive(Debug, Default)]
struct SourceLines {
    lines: HashMap<String, usize>,
}

impl SourceLines {
    /// Indexes `source`, text serde_json has parsed. Lines only help the
    /// reader: anything unexpected ends the scan with what it found so far.
    fn index(source: &str) -> SourceLines {
        let mut scan = JsonScan {
            text: source,
            at: 0,
            line: 1,
            lines: HashMap::new(),
        };
        let _complete = scan.value("", 0);
        SourceLines { lines: scan.lines }
    }

    fn get(&self, path: &str) -> Option<usize> {
        self.lines.get(path).copied()
    }
}

/// A recursive-descent walk over JSON text that records [`SourceLines`].
struct JsonScan<'a> {
    text: &'a str,
    /// Byte offset of the next unread byte.
    at: usize,
    /// 1-based line of `at`.
    line: usize,
    lines: HashMap<String, usize>,
}

impl JsonScan<'_> {
    /// Deeper than serde_json's own recursion limit (128): never reached on
    /// text it parsed.
    const MAX_DEPTH: usize = 256;

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn skip_whitespace(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b'\n' => self.line += 1,
                b' ' | b'\t' | b'\r' => {}
                _ => break,
            }
            self.at += 1;
        }
    }

    /// Consumes `byte` after optional whitespace.
    fn expect(&mut self, byte: u8) -> Option<()> {
        self.skip_whitespace();
        if self.peek() != Some(byte) {
            return None;
        }
        self.at += 1;
        Some(())
    }

    /// Scans one value whose path is `path`; `None` on unexpected text.
    fn value(&mut self, path: &str, depth: usize) -> Option<()> {
        self.skip_whitespace();
        match self.peek()? {
            _ if depth > Self::MAX_DEPTH => None,
            b'{' => {
                self.at += 1;
                self.skip_whitespace();
                if self.peek() == Some(b'}') {
                    self.at += 1;
                    return Some(());
                }
                loop {
                    self.skip_whitespace();
                    let line = self.line;
                    let key = self.string()?;
                    self.expect(b':')?;
                    let child = if path.is_empty() {
                        key
                    } else {
                        format!("{path}.{key}")
                    };
                    self.value(&child, depth + 1)?;
                    self.lines.insert(child, line);
                    self.skip_whitespace();
                    match self.peek()? {
                        b',' => self.at += 1,
                        b'}' => {
                            self.at += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.at += 1;
                self.skip_whitespace();
                if self.peek() == Some(b']') {
                    self.at += 1;
                    return Some(());
                }
                let mut i = 0usize;
                loop {
                    self.skip_whitespace();
                    let child = format!("{path}[{i}]");
                    self.lines.insert(child.clone(), self.line);
                    self.value(&child, depth + 1)?;
                    self.skip_whitespace();
                    match self.peek()? {
                        b',' => self.at += 1,
                        b']' => {
                            self.at += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                    i += 1;
                }
            }
            b'"' => self.string().map(drop),
            _ => {
                // A number, `true`, `false` or `null`: up to the next delimiter.
                let rest = &self.text.as_bytes()[self.at..];
                let len = rest
                    .iter()
                    .position(|b| matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\r' | b'\n'))
                    .unwrap_or(rest.len());
                self.at += len;
                Some(())
            }
        }
    }

    /// Scans a string at `at` and returns it decoded.
    fn string(&mut self) -> Option<String> {
        let start = self.at;
        if self.peek() != Some(b'"') {
            return None;
        }
        self.at += 1;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'"' => break,
                b'\n' => return None,
                _ => self.at += 1,
            }
        }
        self.at += 1;
        serde_json::from_str(self.text.get(start..self.at)?).ok()
    }
}

fn line_of(source: &str, offset: usize) -> usize {
    source[..offset].bytes().filter(|&b| b == b'\n').count() + 1
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

    /// The config as commented YAML (config language version 1): a header
    /// naming the source, then each hook with a comment naming where it came
    /// from.
    pub fn to_yaml(&self) -> String {
        let mut out = String::new();
        let name: String = self
            .source_name
            .chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect();
        out.push_str(&format!(
            "# Imported by `agent-hooks import claude` from Claude Code hooks in `{name}`.\n"
        ));
        out.push_str(HEADER);
        out.push_str("version: 1\nhooks:\n");
        for hook in &self.hooks {
            out.push('\n');
            out.push_str(&format!("  # {}\n", hook.origin.replace('\n', " ")));
            out.push_str(&format!("  - id: {}\n", hook.id));
            if let Some(d) = &hook.description {
                out.push_str(&format!("    description: {}\n", yaml_scalar(d, 6)));
            }
            out.push_str(&format!("    phase: {}\n", hook.phase));
            if !hook.include_tools.is_empty() {
                let items: Vec<String> = hook
                    .include_tools
                    .iter()
                    .map(|p| match p {
                        Pattern::Name(n) => quote(n),
                        Pattern::Regex(r) => format!("{{regex: {}}}", quote(r)),
                    })
                    .collect();
                out.push_str(&format!("    include_tools: [{}]\n", items.join(", ")));
            }
            if let Some(when) = &hook.when {
                out.push_str(&format!("    when: {}\n", flow(when)));
            }
            out.push_str("    run:\n");
            match &hook.program {
                Program::Shell(c) => {
                    out.push_str(&format!("      command: {}\n", yaml_scalar(c, 8)));
                }
                Program::Exec(argv) => {
                    out.push_str("      argv:\n");
                    for a in argv {
                        out.push_str(&format!("        - {}\n", yaml_scalar(a, 10)));
                    }
                }
            }
            if !hook.env_pass.is_empty() {
                let names: Vec<String> = hook.env_pass.iter().map(|n| quote(n)).collect();
                out.push_str(&format!("      env: {{pass: [{}]}}\n", names.join(", ")));
            }
            out.push_str(&format!("      timeout: {}\n", quote(&hook.timeout)));
            out.push_str("      protocol: claude\n");
            out.push_str("    failure_policy: warn\n");
            if hook.audit {
                out.push_str("    mode: audit\n");
            }
        }
        out
    }

    /// The config as pretty-printed JSON (which YAML loaders, including
    /// [`hooks_schema::load_str`], accept as well). JSON has no comments: the
    /// origin of each hook is lost.
    pub fn to_json(&self) -> String {
        let hooks: Vec<Value> = self
            .hooks
            .iter()
            .map(|h| {
                let mut run = Map::new();
                match &h.program {
                    Program::Shell(c) => {
                        run.insert("command".into(), c.clone().into());
                    }
                    Program::Exec(a) => {
                        run.insert("argv".into(), a.clone().into());
                    }
                }
                if !h.env_pass.is_empty() {
                    run.insert("env".into(), serde_json::json!({"pass": h.env_pass}));
                }
                run.insert("timeout".into(), h.timeout.clone().into());
                run.insert("protocol".into(), "claude".into());
                let mut hook = Map::new();
                hook.insert("id".into(), h.id.clone().into());
                if let Some(d) = &h.description {
                    hook.insert("description".into(), d.clone().into());
                }
                hook.insert("phase".into(), h.phase.into());
                if !h.include_tools.is_empty() {
                    let tools: Vec<Value> = h
                        .include_tools
                        .iter()
                        .map(|p| match p {
                            Pattern::Name(n) => n.clone().into(),
                            Pattern::Regex(r) => serde_json::json!({"regex": r}),
                        })
                        .collect();
                    hook.insert("include_tools".into(), tools.into());
                }
                if let Some(w) = &h.when {
                    hook.insert("when".into(), w.clone());
                }
                hook.insert("run".into(), run.into());
                hook.insert("failure_policy".into(), "warn".into());
                if h.audit {
                    hook.insert("mode".into(), "audit".into());
                }
                Value::Object(hook)
            })
            .collect();
        let doc = serde_json::json!({"version": 1, "hooks": hooks});
        // A tree of strings, numbers and maps always serializes.
        let json = serde_json::to_string_pretty(&doc).unwrap_or_default();
        // serde_json leaves DEL, C1 controls, U+2028 ... raw; YAML loaders
        // reject them, so escape them (they only occur inside strings).
        let mut out = String::with_capacity(json.len());
        for c in json.chars() {
            if printable(c) || c == '\n' {
                out.push(c);
            } else {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
        out
    }
}

const HEADER: &str = "\
#
# - `protocol: claude`: each script reads Claude Code's stdin JSON and answers
#   as it did there (exit 2, `decision`, `hookSpecificOutput`, ...).
# - `timeout`: Claude Code's, in seconds (60 s where it set none).
# - `failure_policy: warn`: a crash, a timeout or an exit code other than 0
#   and 2 is a non-blocking error in Claude Code.
# - Tool names are Claude Code's (`Bash`, `Edit`, ...): rename them in
#   `include_tools` if your agent's tools are called differently.
# - Check it with `agent-hooks check FILE`.
";

/// A YAML double-quoted scalar: escapes `\\`, `\"` and every character
/// outside YAML's printable set (YAML 1.2 section 5.1).
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if !printable(c) => {
                let code = u32::from(c);
                if code <= 0xFFFF {
                    out.push_str(&format!("\\u{code:04X}"));
                } else {
                    out.push_str(&format!("\\U{code:08X}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// YAML 1.2 `c-printable`, minus the line and byte-order marks a reader may
/// treat specially.
fn printable(c: char) -> bool {
    matches!(c, ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}')
}

/// A scalar for a value at `indent` spaces: a literal block (`|` / `|-`) for
/// readable multi-line text, else a double-quoted scalar.
fn yaml_scalar(text: &str, indent: usize) -> String {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let blockable = text.contains('\n')
        && !body.ends_with('\n')
        && !body.starts_with([' ', '\t', '\n'])
        && body
            .chars()
            .all(|c| c == '\n' || c == '\t' || (printable(c) && c != '\r'))
        && !body.lines().any(|l| l.ends_with([' ', '\t']));
    if !blockable {
        return quote(text);
    }
    let chomp = if text.ends_with('\n') { "|" } else { "|-" };
    let pad = " ".repeat(indent);
    let mut out = String::from(chomp);
    for line in body.split('\n') {
        out.push('\n');
        if !line.is_empty() {
            out.push_str(&pad);
            out.push_str(line);
        }
    }
    out
}

/// A JSON value as a one-line YAML flow node with plain keys.
fn flow(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            // `pointer` first reads as the sentence it is: "at /command, matches ...".
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by_key(|(k, _)| k.as_str() != "pointer");
            let items: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{k}: {}", flow(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(flow).collect();
            format!("[{}]", items.join(", "))
        }
        Value::String(s) => quote(s),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchoring_keeps_search_semantics() {
        assert_eq!(anchor("Notebook.*"), ".*Notebook.*");
        assert_eq!(anchor("^Bash$"), "Bash");
        assert_eq!(anchor("^Bash"), "Bash.*");
        assert_eq!(anchor("Output$"), ".*Output");
        assert_eq!(anchor("a\\$"), ".*a\\$.*");
        assert_eq!(anchor(".*"), ".*");
    }

    #[test]
    fn alternatives_split_at_top_level_only() {
        assert_eq!(
            split_alternatives("^Bash$|^mcp__.+__(read|view)[|]$"),
            vec!["^Bash$", "^mcp__.+__(read|view)[|]$"]
        );
        assert_eq!(split_alternatives("a\\|b"), vec!["a\\|b"]);
    }

    #[test]
    fn impossible_characters_are_found_unless_optional() {
        assert_eq!(required_impossible_char("Write,Edit"), Some(','));
        assert_eq!(
            required_impossible_char("tools:Bash AND command:rm*"),
            Some(':')
        );
        assert_eq!(required_impossible_char("Bash,?"), None);
        assert_eq!(required_impossible_char("mcp__.*"), None);
        assert_eq!(required_impossible_char("(a,b)"), None);
        assert_eq!(required_impossible_char("[,]x"), None);
    }

    #[test]
    fn env_references_skip_assignments_and_base() {
        assert_eq!(
            referenced_env(
                r#"FOO=1 "${CLAUDE_PLUGIN_ROOT}/x" $HOME $BAR ${BAZ:-q} $lower process.env.QUX $FOO; for _V in a; do echo "$_V ${PIPESTATUS[0]}"; done"#
            ),
            vec!["BAR", "BAZ", "CLAUDE_PLUGIN_ROOT", "QUX"]
        );
        assert!(referenced_env(r#""$CLAUDE_PROJECT_DIR"/hook.sh"#).is_empty());
    }

    #[test]
    fn ids_and_slugs() {
        assert_eq!(kebab("PreToolUse"), "pre-tool-use");
        assert_eq!(kebab("PostToolUseFailure"), "post-tool-use-failure");
        assert_eq!(slug("Edit|MultiEdit|Write"), "edit-multiedit-write");
        assert_eq!(slug("*"), "");
        assert_eq!(
            slug("^Bash$|^mcp__.+__(read|view|cat)(_file|_files)?$"),
            "bash-mcp-read-view-cat-file"
        );
        assert!(slug("Aaaaaaaaaa|Bbbbbbbbbb|Cccccccccc|Dddddddddd").len() <= 32);
    }

    #[test]
    fn durations_use_the_largest_exact_unit() {
        assert_eq!(duration_text(60_000), "60s");
        assert_eq!(duration_text(600_000), "600s");
        assert_eq!(duration_text(1_500), "1500ms");
    }

    #[test]
    fn scalars_quote_or_block() {
        assert_eq!(quote("a\"b\\c\u{7f}"), "\"a\\\"b\\\\c\\u007F\"");
        assert_eq!(yaml_scalar("one line", 4), "\"one line\"");
        assert_eq!(yaml_scalar("a\n\nb", 2), "|-\n  a\n\n  b");
        assert_eq!(yaml_scalar("a\nb\n", 2), "|\n  a\n  b");
        assert_eq!(yaml_scalar(" lead\nx", 2), "\" lead\\nx\"");
        assert_eq!(yaml_scalar("trail \nx", 2), "\"trail \\nx\"");
    }
}
