//! The mapping itself: Claude Code events, matcher groups and command hooks
//! → converted hooks and warnings (the rules are in the [module docs](super));
//! another agent's events arrive here as the Claude Code events they are
//! read as ([`Dialect::event`](super::Dialect)).

use std::collections::BTreeMap;

use hooks_schema::Phase;
use serde_json::{Map, Value};

use super::dialect::{EventRead, Reading};
use super::emit::{Converted, When};
use super::matcher::{ToolMatch, convert_matcher, convert_matcher_as};
use super::read::SourceLines;
use super::{ImportOptions, Warning};

/// How a Claude Code event maps.
#[derive(Debug, Clone)]
pub(super) enum EventKind {
    /// A tool event: phase and the outcome filter.
    Tool(&'static str, Option<When>),
    /// An event without a matcher.
    Plain(&'static str),
    /// An event whose matcher filters a label (notification type, agent
    /// type, compaction trigger, the model switched to) that the phase's
    /// `when` pointer (the second field: `""`, or `/to` in a model
    /// selection) addresses.
    Labeled(&'static str, &'static str),
    /// `SessionStart`: `run_start`, for matchers accepting the `startup` source.
    SessionStart,
    /// `SessionEnd`: `run_end`, for matchers accepting every end reason.
    SessionEnd,
    /// No equivalent: the reason.
    Unmapped(&'static str),
    /// Not a Claude Code event.
    Unknown,
}

/// How the Claude Code event called `name` maps.
pub(super) fn event_kind(name: &str) -> EventKind {
    if let Some(phase) = Phase::from_claude_event(name) {
        return match phase {
            Phase::BeforeTool | Phase::PermissionRequest => EventKind::Tool(phase.as_str(), None),
            // `PostToolUseFailure`: a tool that failed.
            Phase::AfterTool if name != "PostToolUse" => EventKind::Tool(
                phase.as_str(),
                Some(When::Any {
                    any: ["timeout", "not_found", "error"]
                        .map(|outcome| When::Outcome { outcome })
                        .to_vec(),
                }),
            ),
            Phase::AfterTool => {
                EventKind::Tool(phase.as_str(), Some(When::Outcome { outcome: "success" }))
            }
            Phase::RunStart => EventKind::SessionStart,
            Phase::RunEnd | Phase::RunError => EventKind::SessionEnd,
            Phase::Notification
            | Phase::SubagentStart
            | Phase::SubagentStop
            | Phase::BeforeCompaction
            | Phase::AfterCompaction => EventKind::Labeled(phase.as_str(), ""),
            // The matcher filters the model switched to (`to_model`).
            Phase::BeforeModelSelect | Phase::AfterModelSelect => {
                EventKind::Labeled(phase.as_str(), "/to")
            }
            _ => EventKind::Plain(phase.as_str()),
        };
    }
    match name {
        "PermissionDenied" => EventKind::Unmapped(
            "it reports denials by Claude Code's auto-mode classifier, which agent-hooks does not have",
        ),
        "TaskCreated" | "TaskCompleted" => EventKind::Unmapped(
            "it belongs to Claude Code's task list, which agent-hooks does not have",
        ),
        "TeammateIdle" => EventKind::Unmapped("it belongs to Claude Code's agent teams"),
        "Setup" => EventKind::Unmapped(
            "it runs for Claude Code's `--init` / `--maintenance` modes, which agent-hooks does not have",
        ),
        "UserPromptExpansion" => EventKind::Unmapped(
            "it fires when a slash command expands, and agent-hooks has no slash commands",
        ),
        "StopFailure" => EventKind::Unmapped(
            "it fires when a turn ends on an API error, and its output is ignored; `run_error` (the run failing) is the nearest phase but not the same event",
        ),
        "MessageDisplay" => EventKind::Unmapped(
            "it decorates text in Claude Code's terminal display, which agent-hooks does not have",
        ),
        "InstructionsLoaded" => EventKind::Unmapped(
            "it reports CLAUDE.md and rules files loading, which agent-hooks does not do",
        ),
        "ConfigChange" | "CwdChanged" | "DirectoryAdded" | "FileChanged" => EventKind::Unmapped(
            "it watches Claude Code's session environment (settings, working directories, files), which agent-hooks does not track",
        ),
        "WorktreeCreate" | "WorktreeRemove" => EventKind::Unmapped(
            "it replaces Claude Code's git worktree handling, which agent-hooks does not have",
        ),
        "Elicitation" | "ElicitationResult" => EventKind::Unmapped(
            "it answers MCP servers' requests for user input, which agent-hooks does not relay",
        ),
        _ => EventKind::Unknown,
    }
}

/// A conversion in progress: what converted and what did not, in file order.
pub(super) struct Converter<'o> {
    /// Where each entry of the input is (for warnings).
    pub(super) lines: SourceLines,
    /// Where the events sit: `hooks`, or `""` for events at the top level.
    prefix: &'static str,
    pub(super) options: &'o ImportOptions,
    /// The converted hooks, in file order.
    pub(super) hooks: Vec<Converted>,
    /// What did not convert, or converted with a difference.
    pub(super) warnings: Vec<Warning>,
    /// How many hooks took each id base (for unique ids).
    pub(super) counters: BTreeMap<String, usize>,
    /// Ids of the converted hooks whose command reads `CLAUDE_PLUGIN_ROOT`.
    pub(super) plugin_root_users: Vec<String>,
    /// Names of hooks the agent's settings disable (Gemini CLI's
    /// `hooksConfig.disabled`): skipped.
    pub(super) disabled: Vec<String>,
}

/// An event being converted: its name in the file and how it reads.
struct Event<'e> {
    /// The name in the file (`PreToolUse`, `BeforeTool`, `preToolUse`).
    name: &'e str,
    /// Phase and filters.
    kind: EventKind,
    /// How its matchers read.
    reading: Reading,
    /// The `protocol` of its converted hooks.
    protocol: &'static str,
}

impl<'o> Converter<'o> {
    /// Converts every event of `hooks` (the object at `prefix`: the
    /// top-level `hooks` object, or the whole file for `""`), in file order;
    /// `lines` locates the warnings; hooks named in `disabled` are skipped.
    pub(super) fn run(
        lines: SourceLines,
        hooks: &Map<String, Value>,
        prefix: &'static str,
        options: &'o ImportOptions,
        disabled: Vec<String>,
    ) -> Converter<'o> {
        let mut converter = Converter {
            lines,
            prefix,
            options,
            hooks: Vec::new(),
            warnings: Vec::new(),
            counters: BTreeMap::new(),
            plugin_root_users: Vec::new(),
            disabled,
        };
        for name in converter.lines.keys(prefix, hooks) {
            if let Some(groups) = hooks.get(name) {
                if prefix.is_empty() && !options.dialect.knows_event(name) {
                    continue; // other keys of a file without the wrapper
                }
                converter.event(name, groups);
            }
        }
        if !converter.plugin_root_users.is_empty() {
            let ids = converter
                .plugin_root_users
                .iter()
                .map(|id| format!("`{id}`"))
                .collect::<Vec<_>>()
                .join(", ");
            converter.warnings.push(Warning {
                line: None,
                // The file's hooks as a whole (wrapped or not).
                path: "hooks".to_owned(),
                message: format!(
                    "hook(s) {ids} read `CLAUDE_PLUGIN_ROOT`, which Claude Code sets to the plugin's directory: pass `--plugin-root DIR` to write it into their `env.set`; as converted they take it from the agent's environment (`env.pass`) and, where it is unset, fail (exit 127) under `failure_policy: warn`, so the call goes on"
                ),
            });
        }
        converter
    }

    /// Records a warning about the entry at `path` (`hooks.Stop[0].hooks[1]`)
    /// or, with `key`, about that key of the entry; it is located on the key
    /// when the key is in the input, else on the entry.
    pub(super) fn warn(&mut self, path: &str, key: Option<&str>, message: String) {
        let line = key
            .and_then(|k| self.lines.get(&format!("{path}.{k}")))
            .or_else(|| self.lines.get(path));
        self.warnings.push(Warning {
            line,
            path: path.to_owned(),
            message,
        });
    }

    fn event(&mut self, name: &str, groups: &Value) {
        let path = if self.prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{}.{name}", self.prefix)
        };
        let line = self.lines.get(&path);
        if name.starts_with("//") && groups.is_string() {
            return; // a `"// ..."` pseudo-comment
        }
        let read = self.options.dialect.event(name);
        if let EventRead::Setting = read {
            return; // a setting of the agent's `hooks` object
        }
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
            .map(|g| match g.get("hooks") {
                Some(hooks) => hooks.as_array().map_or(0, Vec::len),
                None => usize::from(g.get("type").is_some()),
            })
            .sum();
        let event = match read {
            EventRead::Unknown(why) => {
                self.warn(&path, None, format!("skipped {count} hook(s): {why}"));
                return;
            }
            EventRead::Skip(reason) => {
                self.warn(
                    &path,
                    None,
                    format!("skipped {count} hook(s) on `{name}`: {reason}"),
                );
                return;
            }
            EventRead::Setting => return,
            EventRead::Convert {
                kind,
                reading,
                protocol,
                note,
            } => {
                if let Some(note) = note {
                    self.warn(
                        &path,
                        None,
                        format!("`{name}` converts with a difference: {note}"),
                    );
                }
                Event {
                    name,
                    kind,
                    reading,
                    protocol,
                }
            }
        };
        for (g, group) in groups.iter().enumerate() {
            self.group(&event, group, &format!("{path}[{g}]"), line);
        }
    }

    fn group(&mut self, event: &Event<'_>, group: &Value, path: &str, line: Option<usize>) {
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
        // A VS Code hook file lists handlers directly: one handler, no matcher.
        let direct = group.get("hooks").is_none() && group.contains_key("type");
        let single;
        let hooks: &[Value] = match group.get("hooks") {
            Some(Value::Array(hooks)) => hooks,
            _ if direct => {
                single = [Value::Object(group.clone())];
                &single
            }
            _ => {
                self.warn(
                    path,
                    Some("hooks"),
                    "skipped: the matcher group has no `hooks` list".to_owned(),
                );
                return;
            }
        };
        // A direct handler's own `matcher` counts only where the agent reads it.
        let matcher = match group.get("matcher") {
            _ if direct && event.reading != Reading::Entry => String::new(),
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
        let agent = self.options.dialect.agent();
        if event.reading == Reading::Ignored && !matches!(convert_matcher(&matcher), ToolMatch::All)
        {
            self.warn(
                path,
                Some("matcher"),
                format!(
                    "matcher `{matcher}` ignored: {agent} does not filter `{}` hooks by matcher",
                    event.name
                ),
            );
        }
        // What the agent's matcher selects, as Claude Code would write it.
        let claude = event.reading.as_claude(&matcher);
        let (phase, tools, outcome, slug) = match &event.kind {
            EventKind::Tool(phase, outcome) => {
                match convert_matcher_as(&claude, event.reading.syntax()) {
                    ToolMatch::Never(reason) | ToolMatch::Unsupported(reason) => {
                        self.warn(
                            path,
                            Some("matcher"),
                            format!("skipped {} hook(s): {reason}", hooks.len()),
                        );
                        return;
                    }
                    ToolMatch::All => (*phase, ToolMatch::All, outcome.clone(), String::new()),
                    m => (*phase, m, outcome.clone(), slug(&matcher)),
                }
            }
            EventKind::Plain(phase) => (*phase, ToolMatch::All, None, String::new()),
            EventKind::Labeled(phase, pointer) => {
                let Some(when) = label_when(&claude, pointer) else {
                    self.warn(
                        path,
                        Some("matcher"),
                        format!(
                            "skipped {} hook(s): matcher `{matcher}` is a regular expression agent-hooks cannot compile",
                            hooks.len()
                        ),
                    );
                    return;
                };
                let named = if event.reading == Reading::Ignored {
                    ""
                } else {
                    &matcher
                };
                (*phase, ToolMatch::All, when, slug(named))
            }
            EventKind::SessionStart => {
                let sources = convert_matcher(&claude);
                if !sources.matches("startup") {
                    self.warn(
                        path,
                        Some("matcher"),
                        format!(
                            "skipped {} hook(s): `{}` matcher `{matcher}` does not accept the `startup` source, the only one agent-hooks has (`run_start`); sessions are never resumed, cleared or compacted here",
                            hooks.len(),
                            event.name
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
                            "`{}` sources {} have no equivalent: the hooks run at `run_start` only",
                            event.name,
                            others
                                .iter()
                                .map(|s| format!("`{s}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    );
                }
                ("run_start", ToolMatch::All, None, String::new())
            }
            EventKind::SessionEnd => {
                if !matches!(convert_matcher(&claude), ToolMatch::All) {
                    self.warn(
                        path,
                        Some("matcher"),
                        format!(
                            "skipped {} hook(s): `{}` matcher `{matcher}` filters by end reason, which a `when` on `run_end` cannot address (its pointer `\"\"` is the run's output)",
                            hooks.len(),
                            event.name
                        ),
                    );
                    return;
                }
                ("run_end", ToolMatch::All, None, String::new())
            }
            EventKind::Unmapped(_) | EventKind::Unknown => return,
        };
        let group_keys = self.options.dialect.group_keys();
        let description = group
            .get("description")
            .filter(|_| group_keys.contains(&"description"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        for key in self.lines.keys(path, group) {
            if !direct
                && !matches!(key, "matcher" | "hooks")
                && !group_keys.contains(&key)
                && !key.starts_with("//")
            {
                self.warn(
                    path,
                    Some(key),
                    format!("ignored key `{key}`: not part of {agent}'s matcher group"),
                );
            }
        }
        let base = if slug.is_empty() {
            kebab(event.name)
        } else {
            format!("{}-{slug}", kebab(event.name))
        };
        for (h, hook) in hooks.iter().enumerate() {
            let hook_path = if direct {
                path.to_owned()
            } else {
                format!("{path}.hooks[{h}]")
            };
            let mut origin = if direct {
                path.to_owned()
            } else if matcher.is_empty() {
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
                protocol: event.protocol,
                entry_matcher: event.reading == Reading::Entry,
            };
            self.hook(hook, &hook_path, &ctx);
        }
    }
}

/// What a matcher group gives each of its hooks.
pub(super) struct HookCtx<'a> {
    /// The id base (`pre-tool-use-bash`).
    pub(super) base: &'a str,
    /// The phase.
    pub(super) phase: &'static str,
    /// The tools the group's matcher selects.
    pub(super) tools: &'a ToolMatch,
    /// The outcome filter of the event (`PostToolUse`, `PostToolUseFailure`).
    pub(super) outcome: Option<&'a When>,
    /// The group's `description`.
    pub(super) description: Option<&'a str>,
    /// Where the hook came from, for its comment.
    pub(super) origin: String,
    /// The `protocol` its script speaks.
    pub(super) protocol: &'static str,
    /// Whether the handler's own `matcher` was read (the Copilot CLI's).
    pub(super) entry_matcher: bool,
}

/// A label matcher (notification type, agent type, compaction trigger, the
/// model switched to) as a `when` on `pointer`, which addresses that label
/// (`""`, or `/to` in a model selection): none for a
/// match-all matcher, `equals` for exact names (Claude Code's exact set:
/// letters, digits, `_`, `-`, spaces, `,` and `|`; names separated by `|`
/// or `,`), else `matches`, which searches like Claude Code's
/// `RegExp.test`. `None` for a regex Rust's `regex` cannot compile.
fn label_when(matcher: &str, pointer: &'static str) -> Option<Option<When>> {
    if matcher.is_empty() || matcher == "*" {
        return Some(None);
    }
    let exact = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | ',' | '|');
    if matcher.chars().all(exact) {
        let mut names: Vec<When> = Vec::new();
        for name in matcher
            .split(['|', ','])
            .map(str::trim)
            .filter(|n| !n.is_empty())
        {
            let leaf = When::Equals {
                pointer,
                equals: name.to_owned(),
            };
            if !names.contains(&leaf) {
                names.push(leaf);
            }
        }
        return Some(match names.len() {
            0 => None,
            1 => names.pop(),
            _ => Some(When::Any { any: names }),
        });
    }
    hooks_schema::check_regex(matcher).ok()?;
    Some(Some(When::Matches {
        pointer,
        matches: matcher.to_owned(),
    }))
}

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
    let out = id_fragment(matcher);
    if out.is_empty() {
        "matcher".to_owned()
    } else {
        out
    }
}

/// `text`'s letters and digits, lower case, the runs of anything else
/// between them a `-`, cut to 32 bytes at a `-`: a part of a hook id.
pub(super) fn id_fragment(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
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
    out
}

pub(super) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
