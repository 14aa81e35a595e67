//! Rendering a conversion: typed views of the config serialized by
//! `serde-saphyr` (YAML, with the origins as comments) or `serde_json`.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_saphyr::{
    CommentPosition, Commented, FlowMap, FlowSeq, LitString, SpaceAfter, ser_options,
};

use super::{Dialect, Import};

/// A tool-name pattern of a converted hook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub(super) enum Pattern {
    /// An exact tool name.
    Name(String),
    /// An anchored regex: `{regex: ...}`.
    Regex {
        /// The regex (Rust `regex` syntax).
        regex: String,
    },
}

/// A converted hook's `when` (the subset of the predicate language the
/// importer writes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub(super) enum When {
    /// `{outcome: KIND}`.
    Outcome {
        /// The outcome kind (`success`, `timeout`, ...).
        outcome: &'static str,
    },
    /// `{pointer: P, matches: REGEX}`.
    Matches {
        /// The JSON pointer into the tool arguments (`""`: the event's label).
        pointer: &'static str,
        /// The regex searched in the string there.
        matches: String,
    },
    /// `{pointer: P, equals: VALUE}` (a string).
    Equals {
        /// The JSON pointer (`""`: the event's label).
        pointer: &'static str,
        /// The string it must equal.
        equals: String,
    },
    /// `{permission: RULE}`: a Claude Code permission rule (an `if`
    /// filter), tested on the tool call's arguments.
    Permission {
        /// The rule, as written.
        permission: String,
    },
    /// `{any: [...]}`.
    Any {
        /// The alternatives.
        any: Vec<When>,
    },
    /// `{all: [...]}`.
    All {
        /// The conditions.
        all: Vec<When>,
    },
}

/// What a converted hook runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Program {
    /// `command:` (shell form, `sh -c`).
    Shell(String),
    /// `argv:` (exec form).
    Exec(Vec<String>),
    /// An `http` action (a Claude Code HTTP hook), `protocol: claude`.
    Http {
        /// `url`.
        url: String,
        /// `headers`, values with `${NAME}` references.
        headers: BTreeMap<String, String>,
        /// `env`: the variables the headers may reference.
        env: Vec<String>,
    },
}

/// One converted hook.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Converted {
    pub(super) id: String,
    /// Where it came from (`hooks.PreToolUse[0] `Bash` hook 1 of 2 ...`),
    /// written as a comment above the hook.
    pub(super) origin: String,
    /// The path of its entry in the file (`hooks.PreToolUse[0].hooks[1]`,
    /// or `hooks.preToolUse[0]` for a handler listed under its event).
    pub(super) source: String,
    pub(super) description: Option<String>,
    pub(super) phase: &'static str,
    pub(super) include_tools: Vec<Pattern>,
    pub(super) when: Option<When>,
    pub(super) program: Program,
    pub(super) env_pass: Vec<String>,
    /// `env.set`: `CLAUDE_PLUGIN_ROOT` with `--plugin-root`, a VS Code
    /// handler's `env`.
    pub(super) env_set: BTreeMap<String, String>,
    /// `run.cwd` (a VS Code handler's `cwd`).
    pub(super) cwd: Option<String>,
    pub(super) timeout: String,
    /// `warn`, or `block` for Claude Code's `onFailure: "block"`.
    pub(super) failure_policy: &'static str,
    /// `async: true`: Claude Code's `async` and `asyncRewake` hooks.
    pub(super) background: bool,
    /// `once: true`: Claude Code's `once` (run once per session).
    pub(super) once: bool,
    /// `run.protocol`: the agent's (`claude`, `codex`, `gemini`).
    pub(super) protocol: &'static str,
}

/// The config, as the config language spells it.
#[derive(Serialize)]
struct ConfigView<H> {
    version: u32,
    hooks: Vec<H>,
}

/// One hook, keys in the order a reader expects.
#[derive(Serialize)]
struct HookView<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<Text>,
    phase: &'static str,
    #[serde(skip_serializing_if = "no_items")]
    include_tools: FlowSeq<&'a [Pattern]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    when: Option<FlowMap<&'a When>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    run: Option<RunView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    http: Option<HttpView<'a>>,
    failure_policy: &'static str,
    #[serde(rename = "async", skip_serializing_if = "Option::is_none")]
    background: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    once: Option<bool>,
}

#[derive(Serialize)]
struct RunView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    command: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    argv: Option<Vec<Text>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cwd: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    env: Option<FlowMap<EnvView<'a>>>,
    timeout: &'a str,
    protocol: &'static str,
}

#[derive(Serialize)]
struct HttpView<'a> {
    url: &'a str,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    headers: &'a BTreeMap<String, String>,
    #[serde(skip_serializing_if = "no_items")]
    env: FlowSeq<&'a [String]>,
    timeout: &'a str,
    protocol: &'static str,
}

#[derive(Serialize)]
struct EnvView<'a> {
    #[serde(skip_serializing_if = "no_items")]
    pass: FlowSeq<&'a [String]>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    set: &'a BTreeMap<String, String>,
}

/// A string: a literal block (`|`) in YAML when it spans lines, so a
/// multi-line script reads as written.
#[derive(Serialize)]
#[serde(untagged)]
enum Text {
    Line(String),
    Block(LitString),
}

impl Text {
    fn new(text: &str) -> Text {
        if text.contains('\n') {
            Text::Block(LitString(text.to_owned()))
        } else {
            Text::Line(text.to_owned())
        }
    }
}

fn no_items<T>(seq: &FlowSeq<&[T]>) -> bool {
    seq.0.is_empty()
}

impl Converted {
    fn view(&self) -> HookView<'_> {
        let (command, argv) = match &self.program {
            Program::Shell(c) => (Some(Text::new(c)), None),
            Program::Exec(argv) => (None, Some(argv.iter().map(|a| Text::new(a)).collect())),
            Program::Http { .. } => (None, None),
        };
        let http = match &self.program {
            Program::Http { url, headers, env } => Some(HttpView {
                url,
                headers,
                env: FlowSeq(env),
                timeout: &self.timeout,
                protocol: "claude",
            }),
            _ => None,
        };
        HookView {
            id: &self.id,
            description: self.description.as_deref().map(Text::new),
            phase: self.phase,
            include_tools: FlowSeq(&self.include_tools),
            when: self.when.as_ref().map(FlowMap),
            run: http.is_none().then(|| RunView {
                command,
                argv,
                cwd: self.cwd.as_deref(),
                env: (!self.env_pass.is_empty() || !self.env_set.is_empty()).then(|| {
                    FlowMap(EnvView {
                        pass: FlowSeq(&self.env_pass),
                        set: &self.env_set,
                    })
                }),
                timeout: &self.timeout,
                protocol: self.protocol,
            }),
            http,
            failure_policy: self.failure_policy,
            background: self.background.then_some(true),
            once: self.once.then_some(true),
        }
    }
}

/// The notes above a config imported from Claude Code or VS Code hooks, one
/// comment line each.
const HEADER: [&str; 10] = [
    "- `protocol: claude`: each script reads Claude Code's stdin JSON and answers",
    "  as it did there (exit 2, `decision`, `hookSpecificOutput`, ...).",
    "- `timeout`: the file's, in seconds (60 s where it set none, 30 s in VS Code files).",
    "- `failure_policy: warn`: a crash, a timeout or an exit code other than 0",
    "  and 2 is a non-blocking error in Claude Code; `block` where it said",
    "  `onFailure: \"block\"` (fail closed).",
    "- Tool names are Claude Code's (`Bash`, `Edit`, ...): rename them in",
    "  `include_tools` if your agent's tools are called differently.",
    "- Each hook's comment names the matcher group it came from.",
    "- Check it with `agent-hooks check FILE`.",
];

/// The notes above a config imported from another agent's hooks.
fn header(dialect: Dialect) -> Vec<String> {
    let mut notes: Vec<String> = match dialect {
        Dialect::ClaudeCode | Dialect::VsCode => return HEADER.map(str::to_owned).to_vec(),
        Dialect::Codex => vec![
            "- `protocol: codex`: each script reads Codex's stdin JSON (Claude Code's,".into(),
            "  with `turn_id`) and answers as it did there (exit 2, `decision`, ...).".into(),
        ],
        Dialect::Gemini => vec![
            "- `protocol: gemini`: each script reads Gemini CLI's stdin JSON and answers".into(),
            "  as it did there (exit 2, `decision: \"deny\"`, `hookSpecificOutput`, ...).".into(),
        ],
        Dialect::CopilotCli => {
            let mut notes: Vec<String> = vec![
                "- `protocol: claude` for PascalCase events (`PreToolUse`): each script".into(),
                "  reads Claude Code's stdin JSON and answers as it did there.".into(),
            ];
            notes.push(
                "- `protocol: copilot` for camelCase events (`preToolUse`): the CLI's own.".into(),
            );
            notes
        }
    };
    let keys = dialect.handler();
    let unit = if keys.timeout_unit_ms == 1 {
        "milliseconds"
    } else {
        "seconds"
    };
    notes.push(format!(
        "- `timeout`: the file's `{}`, in {unit} ({} s where it set none).",
        keys.timeout.first().copied().unwrap_or("timeout"),
        keys.default_timeout_secs
    ));
    notes.extend([
        "- `failure_policy: warn`: a crash, a timeout or an unexpected exit code".to_owned(),
        format!(
            "  is a non-blocking error in {}: the call goes on.",
            dialect.agent()
        ),
        "- Tool names are the file's: rename them in `include_tools` if your".to_owned(),
        "  agent's tools are called differently.".to_owned(),
    ]);
    notes.extend(
        HEADER[HEADER.len() - 2..]
            .iter()
            .map(|line| (*line).to_owned()),
    );
    notes
}

/// A document with comment lines above it: one `Commented` layer per line.
enum Annotated<T> {
    Doc(T),
    Line(Commented<Box<Annotated<T>>>),
}

impl<T: Serialize> Serialize for Annotated<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Annotated::Doc(doc) => doc.serialize(s),
            Annotated::Line(line) => line.serialize(s),
        }
    }
}

impl Import {
    /// The config as commented YAML (config language version 1): a header
    /// naming the source, then each hook under a comment naming where it
    /// came from. Multi-line commands are literal blocks (`|`); everything
    /// else is quoted only where YAML needs it.
    pub fn to_yaml(&self) -> String {
        let hooks: Vec<_> = self
            .hooks
            .iter()
            .map(|h| SpaceAfter(Commented(h.view(), h.origin.clone())))
            .collect();
        let agent = match self.dialect {
            // The VS Code hook format is Claude Code's.
            Dialect::VsCode => Dialect::ClaudeCode.agent(),
            dialect => dialect.agent().trim_start_matches("the "),
        };
        let first = format!(
            "Imported by `agent-hooks import {}` from {agent} hooks in `{}`.",
            self.dialect.command(),
            self.source_name
        );
        let notes = header(self.dialect);
        let mut doc = Annotated::Doc(ConfigView { version: 1, hooks });
        for line in std::iter::once(first).chain(notes).rev() {
            doc = Annotated::Line(Commented(Box::new(doc), line));
        }
        let options =
            ser_options! { comment_position: CommentPosition::Above, prefer_block_scalars: false };
        // A tree of strings, maps and lists always serializes.
        serde_saphyr::to_string_with_options(&doc, options).unwrap_or_default()
    }

    /// The config as pretty-printed JSON (which YAML loaders, including
    /// [`hooks_schema::load_str`], accept as well). JSON has no comments: the
    /// origin of each hook is lost.
    pub fn to_json(&self) -> String {
        let hooks: Vec<HookView<'_>> = self.hooks.iter().map(Converted::view).collect();
        // A tree of strings, maps and lists always serializes.
        let json =
            serde_json::to_string_pretty(&ConfigView { version: 1, hooks }).unwrap_or_default();
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

/// YAML 1.2 `c-printable`, minus the line and byte-order marks a reader may
/// treat specially.
fn printable(c: char) -> bool {
    matches!(c, ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}')
}
