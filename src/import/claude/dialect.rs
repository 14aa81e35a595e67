//! The agents whose hook files the importer reads ([`Dialect`]) and every
//! rule that differs between them, each stated once here: the agent's event
//! names and the Claude Code event each one is read as ([`Dialect::event`]),
//! how a matcher reads ([`Reading`]), the keys of a handler, the unit and
//! default of its timeout ([`Handler`]) and the protocol its scripts speak.
//! Everything else (phases, matcher groups, the `when` of a label, the
//! environment, the output) is the Claude Code importer's, shared by all.
//!
//! The event tables are the ones the hook engine and the script protocols
//! read: [`crate::agent::codex::EVENTS`], [`hooks_runtime::gemini_cli::EVENTS`]
//! and [`hooks_runtime::copilot_cli::EVENTS`].

use std::path::Path;

use hooks_schema::Phase;

use super::map::{EventKind, event_kind};
use super::matcher::Syntax;

/// Where the hooks file comes from: the agent whose events, handler keys,
/// defaults and script protocol the file is written for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Dialect {
    /// A Claude Code settings file or plugin `hooks.json` (default timeout
    /// 60 s).
    #[default]
    ClaudeCode,
    /// A VS Code / GitHub Copilot hook file (`.github/hooks/*.json`): the
    /// same events and stdin/stdout protocol, handlers may sit directly in
    /// an event's list (no matcher group), a handler may carry `cwd`, `env`
    /// and per-platform `linux` / `osx` / `windows` commands, and the default
    /// timeout is 30 s.
    VsCode,
    /// An OpenAI Codex `hooks.json` (`~/.codex/hooks.json`,
    /// `.codex/hooks.json`): Claude Code's shape and event names, the events
    /// of [`crate::agent::codex::EVENTS`] only, scripts speaking
    /// `protocol: codex`, default timeout 600 s; a matcher with a `-` is a
    /// regular expression ([`Syntax::Codex`]).
    Codex,
    /// A Gemini CLI settings file (`.gemini/settings.json`): Claude Code's
    /// shape under Gemini CLI's event names
    /// ([`hooks_runtime::gemini_cli::EVENTS`]; the model events as the
    /// model-call phases), scripts speaking `protocol: gemini`, `timeout` in
    /// milliseconds (default 60 000), every tool matcher a regular
    /// expression, lifecycle matchers exact strings, a handler's `name` in
    /// its id, the hooks `hooksConfig.disabled` names skipped.
    Gemini,
    /// A GitHub Copilot CLI hook file (`.github/hooks/*.json` with
    /// `"version": 1`): handlers listed directly under an event, `bash` the
    /// command, `timeoutSec` the timeout (default 30 s), events from
    /// [`hooks_runtime::copilot_cli::EVENTS`]. PascalCase events
    /// (`PreToolUse`) convert as in [`Dialect::VsCode`] with
    /// `protocol: claude`; camelCase events (`preToolUse`) with the CLI's
    /// own, `protocol: copilot`.
    CopilotCli,
}

/// The Copilot CLI event the engine reads as a failed session end: its
/// hooks run at `run_error`, where the table's Claude Code event
/// (`SessionEnd`) would be `run_end`.
const COPILOT_ERROR_EVENT: &str = "errorOccurred";

/// The Copilot CLI camelCase events whose entries may carry a `matcher`
/// (an anchored regular expression on `toolName` / `notification_type`).
const COPILOT_MATCHER_EVENTS: [&str; 2] = ["permissionRequest", "notification"];

/// The Gemini CLI events whose matcher is compared, as an exact string,
/// with a trigger (the session's source or end reason, the compression
/// trigger); Gemini CLI ignores the matcher of the other non-tool events.
const GEMINI_EXACT_MATCHER_EVENTS: [&str; 3] = ["SessionStart", "SessionEnd", "PreCompress"];

/// What differs when a Gemini CLI event runs here, beyond its table row.
const GEMINI_NOTES: [(&str, &str); 1] = [(
    "AfterModel",
    "Gemini CLI runs it for every streamed chunk of a model response; here it runs once per response (`after_completion`), and an `llm_response` it returns is ignored",
)];

/// Keys inside a Gemini CLI `hooks` object that are settings, not events.
const GEMINI_SETTINGS: [&str; 3] = ["enabled", "disabled", "notifications"];

/// How an event of a dialect's file converts.
pub(super) enum EventRead {
    /// Its hooks convert.
    Convert {
        /// Phase and filters, from the Claude Code event it is read as.
        kind: EventKind,
        /// How its matchers read.
        reading: Reading,
        /// The `protocol` of its converted hooks.
        protocol: &'static str,
        /// What differs from the agent, for a warning on the event.
        note: Option<String>,
    },
    /// The agent has the event; it does not convert, for this reason.
    Skip(String),
    /// Not an event of the agent (why, for a warning).
    Unknown(String),
    /// A setting of the agent's `hooks` object, not an event: ignored.
    Setting,
}

/// How a dialect reads the matcher of an event's hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reading {
    /// The agent ignores the matcher on this event (a warning says so).
    Ignored,
    /// The group's matcher, read with this syntax on tool events and as
    /// Claude Code reads a label (source, notification type, trigger)
    /// elsewhere.
    Group(Syntax),
    /// The group's matcher is one exact string the label must equal
    /// (Gemini CLI's lifecycle matchers).
    Exact,
    /// Each handler's own `matcher`, an anchored regular expression (the
    /// Copilot CLI's `permissionRequest` and `notification`).
    Entry,
}

impl Reading {
    /// The Claude Code matcher (read as in [`Reading::Group`]) that
    /// selects what `matcher` selects in this reading.
    pub(super) fn as_claude(self, matcher: &str) -> String {
        let trimmed = matcher.trim();
        match self {
            Reading::Group(_) => matcher.to_owned(),
            Reading::Ignored => String::new(),
            _ if trimmed.is_empty() || trimmed == "*" => String::new(),
            Reading::Exact if trimmed.chars().all(super::matcher::is_tool_char) => {
                trimmed.to_owned()
            }
            Reading::Exact => format!("^{}$", regex_syntax::escape(trimmed)),
            Reading::Entry => format!("^(?:{trimmed})$"),
        }
    }

    /// The syntax tool matchers read with.
    pub(super) fn syntax(self) -> Syntax {
        match self {
            Reading::Group(syntax) => syntax,
            _ => Syntax::ClaudeCode,
        }
    }
}

/// The keys of a dialect's handler (one entry of a matcher group's `hooks`,
/// or of an event's list) and what they mean.
pub(super) struct Handler {
    /// Where the Unix command is: the first of these present wins.
    pub(super) command: &'static [&'static str],
    /// The key a missing command is reported on.
    pub(super) command_name: &'static str,
    /// Commands for other platforms: ignored with a warning.
    pub(super) other_platforms: &'static [&'static str],
    /// Other keys of a command handler: `shell`, `cwd`, `env`.
    pub(super) exec: &'static [&'static str],
    /// The timeout's keys (the first present wins).
    pub(super) timeout: &'static [&'static str],
    /// Milliseconds in one unit of the timeout.
    pub(super) timeout_unit_ms: u64,
    /// The timeout of a handler that sets none, in seconds.
    pub(super) default_timeout_secs: u64,
    /// The other keys a handler may have that the importer reads.
    pub(super) common: &'static [&'static str],
    /// Whether `type: "http"` handlers exist.
    pub(super) http: bool,
}

impl Handler {
    /// Whether the importer reads `key` of a handler (a command handler
    /// when `command`, else an HTTP one).
    pub(super) fn reads(&self, key: &str, command: bool) -> bool {
        key == "type"
            || self.timeout.contains(&key)
            || self.common.contains(&key)
            || command
                && (self.command.contains(&key)
                    || self.other_platforms.contains(&key)
                    || self.exec.contains(&key))
    }
}

/// The keys of Claude Code's handlers that apply to every handler type.
const CLAUDE_COMMON: &[&str] = &[
    "if",
    "once",
    "async",
    "asyncRewake",
    "rewakeMessage",
    "rewakeSummary",
    "statusMessage",
    "onFailure",
];

const CLAUDE_HANDLER: Handler = Handler {
    command: &["command"],
    command_name: "command",
    other_platforms: &[],
    exec: &["shell"],
    timeout: &["timeout"],
    timeout_unit_ms: 1000,
    default_timeout_secs: CLAUDE_DEFAULT_TIMEOUT_SECS,
    common: CLAUDE_COMMON,
    http: true,
};

const VSCODE_HANDLER: Handler = Handler {
    command: &["linux", "osx", "command"],
    other_platforms: &["windows"],
    exec: &["shell", "cwd", "env"],
    default_timeout_secs: VSCODE_DEFAULT_TIMEOUT_SECS,
    ..CLAUDE_HANDLER
};

const CODEX_HANDLER: Handler = Handler {
    command: &["command"],
    command_name: "command",
    other_platforms: &["commandWindows", "command_windows"],
    exec: &[],
    // `timeoutSec` and `timeout_sec` are aliases some Codex versions accept.
    timeout: &["timeout", "timeoutSec", "timeout_sec"],
    timeout_unit_ms: 1000,
    default_timeout_secs: CODEX_DEFAULT_TIMEOUT_SECS,
    common: &["async", "statusMessage"],
    http: false,
};

const GEMINI_HANDLER: Handler = Handler {
    command: &["command"],
    command_name: "command",
    other_platforms: &[],
    exec: &[],
    timeout: &["timeout"],
    timeout_unit_ms: 1,
    default_timeout_secs: GEMINI_DEFAULT_TIMEOUT_MS / 1000,
    common: &["name", "description"],
    http: false,
};

const COPILOT_HANDLER: Handler = Handler {
    command: &["bash", "linux", "osx", "command"],
    command_name: "bash",
    other_platforms: &["powershell", "windows"],
    exec: &["cwd", "env"],
    timeout: &["timeoutSec", "timeout"],
    timeout_unit_ms: 1000,
    default_timeout_secs: COPILOT_DEFAULT_TIMEOUT_SECS,
    common: &[],
    http: false,
};

/// Claude Code's timeout of a command hook that sets none, in seconds.
pub const CLAUDE_DEFAULT_TIMEOUT_SECS: u64 = 60;

/// VS Code's timeout of a command hook that sets none, in seconds.
pub const VSCODE_DEFAULT_TIMEOUT_SECS: u64 = 30;

/// Codex's timeout of a command hook that sets none, in seconds.
pub const CODEX_DEFAULT_TIMEOUT_SECS: u64 = 600;

/// Gemini CLI's timeout of a command hook that sets none, in milliseconds.
pub const GEMINI_DEFAULT_TIMEOUT_MS: u64 = 60_000;

/// The Copilot CLI's timeout (`timeoutSec`) of a command hook that sets
/// none, in seconds.
pub const COPILOT_DEFAULT_TIMEOUT_SECS: u64 = 30;

impl Dialect {
    /// The dialect a file's path implies: [`Dialect::VsCode`] for a `.json`
    /// file directly inside a `.github/hooks/` directory, else
    /// [`Dialect::ClaudeCode`] (`import claude`'s choice; the other agents
    /// have their own subcommands).
    pub fn from_path(path: &Path) -> Dialect {
        let mut parents = path.components().rev().skip(1).map(|c| c.as_os_str());
        let in_hooks = parents.next().is_some_and(|d| d == "hooks");
        let in_github = parents.next().is_some_and(|d| d == ".github");
        if in_hooks && in_github && path.extension().is_some_and(|e| e == "json") {
            Dialect::VsCode
        } else {
            Dialect::ClaudeCode
        }
    }

    /// The agent, as warnings and the output's header name it.
    pub const fn agent(self) -> &'static str {
        match self {
            Dialect::ClaudeCode => "Claude Code",
            Dialect::VsCode => "VS Code",
            Dialect::Codex => "Codex",
            Dialect::Gemini => "Gemini CLI",
            Dialect::CopilotCli => "the Copilot CLI",
        }
    }

    /// The `agent-hooks import` subcommand that reads this dialect.
    pub const fn command(self) -> &'static str {
        match self {
            Dialect::ClaudeCode | Dialect::VsCode => "claude",
            Dialect::Codex => "codex",
            Dialect::Gemini => "gemini",
            Dialect::CopilotCli => "copilot",
        }
    }

    /// The timeout of a command hook that sets none, in seconds.
    pub const fn default_timeout_secs(self) -> u64 {
        self.handler().default_timeout_secs
    }

    /// The keys of a handler.
    pub(super) const fn handler(self) -> &'static Handler {
        match self {
            Dialect::ClaudeCode => &CLAUDE_HANDLER,
            Dialect::VsCode => &VSCODE_HANDLER,
            Dialect::Codex => &CODEX_HANDLER,
            Dialect::Gemini => &GEMINI_HANDLER,
            Dialect::CopilotCli => &COPILOT_HANDLER,
        }
    }

    /// The keys of a matcher group besides `matcher` and `hooks` that the
    /// agent knows (`description` is read as the hooks' description).
    pub(super) const fn group_keys(self) -> &'static [&'static str] {
        match self {
            Dialect::ClaudeCode | Dialect::VsCode | Dialect::CopilotCli => &["description", "id"],
            Dialect::Codex => &[],
            // Whether the group's hooks run one after another: agent-hooks
            // runs the hooks that can change anything in order anyway.
            Dialect::Gemini => &["sequential"],
        }
    }

    /// Whether hooks may come from a Claude Code plugin (whose scripts read
    /// `CLAUDE_PLUGIN_ROOT`, `--plugin-root`).
    pub(super) const fn has_plugins(self) -> bool {
        matches!(self, Dialect::ClaudeCode | Dialect::VsCode)
    }

    /// Whether `name` is an event of this dialect (or a setting beside
    /// them), to recognise a hooks object written at the top level.
    pub(super) fn knows_event(self, name: &str) -> bool {
        !matches!(self.event(name), EventRead::Unknown(_))
    }

    /// How the event called `name` in this dialect's file converts.
    pub(super) fn event(self, name: &str) -> EventRead {
        match self {
            Dialect::ClaudeCode | Dialect::VsCode => {
                claude_event(name, "claude", Syntax::ClaudeCode)
            }
            Dialect::Codex if crate::agent::codex::EVENTS.contains(&name) => {
                claude_event(name, "codex", Syntax::Codex)
            }
            Dialect::Codex => EventRead::Unknown(format!(
                "Codex has no `{name}` event (its events: {})",
                listed(crate::agent::codex::EVENTS)
            )),
            Dialect::Gemini => gemini_event(name),
            Dialect::CopilotCli => copilot_event(name),
        }
    }
}

/// A Claude Code event (in a dialect that uses Claude Code's names, its
/// scripts speaking `protocol`), its tool matchers read with `syntax`.
fn claude_event(name: &str, protocol: &'static str, syntax: Syntax) -> EventRead {
    match event_kind(name) {
        EventKind::Unknown => EventRead::Unknown(format!(
            "`{name}` is not a Claude Code hook event agent-hooks knows"
        )),
        EventKind::Unmapped(reason) => EventRead::Skip(reason.to_owned()),
        kind => EventRead::Convert {
            reading: if matches!(kind, EventKind::Plain(_)) {
                Reading::Ignored
            } else {
                Reading::Group(syntax)
            },
            kind,
            protocol,
            note: None,
        },
    }
}

/// The phase an extension event name stands for: a phase Claude Code has
/// no event for, its name in PascalCase (`BeforeCompletion`), as
/// `protocol: claude` names it on stdin and Gemini CLI's table reads its
/// model events.
fn extension_phase(name: &str) -> Option<Phase> {
    Phase::ALL.into_iter().find(|phase| {
        phase.claude_event().is_none()
            && phase
                .as_str()
                .split('_')
                .flat_map(|word| {
                    let mut chars = word.chars();
                    chars
                        .next()
                        .map(|first| first.to_ascii_uppercase())
                        .into_iter()
                        .chain(chars)
                })
                .collect::<String>()
                == name
    })
}

fn gemini_event(name: &str) -> EventRead {
    if GEMINI_SETTINGS.contains(&name) {
        return EventRead::Setting;
    }
    let table = hooks_runtime::gemini_cli::EVENTS;
    let Some(row) = table.iter().position(|(gemini, _)| *gemini == name) else {
        return EventRead::Unknown(format!(
            "Gemini CLI has no `{name}` event (its events: {})",
            listed(table.map(|(gemini, _)| gemini))
        ));
    };
    let claude = table[row].1;
    let (kind, reading) = match event_kind(claude) {
        // One event after every tool call, whatever its outcome (Claude
        // Code's `PostToolUse` follows a success only).
        EventKind::Tool(phase, _) => (EventKind::Tool(phase, None), Reading::Group(Syntax::Gemini)),
        EventKind::Unknown => match extension_phase(claude) {
            // The model events: Gemini CLI gives their hooks no matcher input.
            Some(phase) => (EventKind::Plain(phase.as_str()), Reading::Ignored),
            None => return EventRead::Skip(format!("`{claude}` has no phase here")),
        },
        kind if GEMINI_EXACT_MATCHER_EVENTS.contains(&name) => (kind, Reading::Exact),
        kind => (kind, Reading::Ignored),
    };
    // A second event read as the same one: scripts get the first's payload.
    let first = table[..row]
        .iter()
        .find(|(_, c)| *c == claude)
        .map(|(first, _)| {
            format!(
                "its scripts are given `{first}`'s payload (`hook_event_name: \"{first}\"`), the first Gemini CLI event read as `{claude}`"
            )
        });
    let own = GEMINI_NOTES
        .iter()
        .find(|(event, _)| *event == name)
        .map(|(_, note)| (*note).to_owned());
    let notes: Vec<String> = first.into_iter().chain(own).collect();
    EventRead::Convert {
        kind,
        reading,
        protocol: "gemini",
        note: (!notes.is_empty()).then(|| notes.join("; ")),
    }
}

fn copilot_event(name: &str) -> EventRead {
    let Some((camel, _, claude)) = hooks_runtime::copilot_cli::EVENTS
        .iter()
        .find(|(camel, pascal, _)| *camel == name || *pascal == Some(name))
    else {
        return EventRead::Unknown(format!(
            "`{name}` is not one of the Copilot CLI's hook events"
        ));
    };
    let cli = *camel == name;
    // The CLI's camelCase scripts read its own payload (`protocol:
    // copilot`); PascalCase ones read Claude Code's.
    let protocol = if cli { "copilot" } else { "claude" };
    let (kind, reading) = match event_kind(claude) {
        _ if *camel == COPILOT_ERROR_EVENT => {
            (EventKind::Plain(Phase::RunError.as_str()), Reading::Ignored)
        }
        kind @ EventKind::Plain(_) => (kind, Reading::Ignored),
        kind if !cli => (kind, Reading::Group(Syntax::ClaudeCode)),
        kind if COPILOT_MATCHER_EVENTS.contains(camel) => (kind, Reading::Entry),
        kind => (kind, Reading::Ignored),
    };
    EventRead::Convert {
        kind,
        reading,
        protocol,
        note: None,
    }
}

/// `` `A`, `B`, `C` ``.
fn listed<const N: usize>(names: [&str; N]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_give_the_claude_code_matcher_that_selects_the_same() {
        assert_eq!(Reading::Exact.as_claude(" startup "), "startup");
        assert_eq!(Reading::Exact.as_claude("a|b"), "^a\\|b$");
        assert_eq!(Reading::Exact.as_claude("*"), "");
        assert_eq!(Reading::Entry.as_claude("bash|edit"), "^(?:bash|edit)$");
        assert_eq!(Reading::Entry.as_claude(""), "");
        assert_eq!(Reading::Ignored.as_claude("anything"), "");
    }

    #[test]
    fn every_table_event_has_a_reading() {
        for event in crate::agent::codex::EVENTS {
            assert!(
                matches!(Dialect::Codex.event(event), EventRead::Convert { .. }),
                "{event}"
            );
        }
        for (event, _) in hooks_runtime::gemini_cli::EVENTS {
            assert!(
                matches!(Dialect::Gemini.event(event), EventRead::Convert { .. }),
                "{event}"
            );
        }
        for (camel, pascal, _) in hooks_runtime::copilot_cli::EVENTS {
            let camel_converts =
                matches!(Dialect::CopilotCli.event(camel), EventRead::Convert { .. });
            assert!(camel_converts, "{camel}");
            if let Some(pascal) = pascal {
                assert!(
                    matches!(Dialect::CopilotCli.event(pascal), EventRead::Convert { .. }),
                    "{pascal}"
                );
            }
        }
        assert!(matches!(
            Dialect::Codex.event("Notification"),
            EventRead::Unknown(_)
        ));
        assert!(matches!(
            Dialect::Gemini.event("hooks"),
            EventRead::Unknown(_)
        ));
    }

    #[test]
    fn extension_names_are_the_phases_claude_code_has_no_event_for() {
        assert_eq!(
            extension_phase("BeforeCompletion"),
            Some(Phase::BeforeCompletion)
        );
        assert_eq!(
            extension_phase("AfterCompletion"),
            Some(Phase::AfterCompletion)
        );
        assert_eq!(extension_phase("BeforeTool"), None);
        assert_eq!(
            extension_phase("RunStart"),
            None,
            "Claude Code calls it `SessionStart`"
        );
    }
}
