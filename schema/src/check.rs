//! Layer 3 (and the friendly half of layer 2): a walk over the parsed
//! document that reports every problem with a precise pointer and a
//! rustc-style message.
//!
//! Structural findings (unknown key, wrong type, unknown enum value, missing
//! key) carry [`Layer::Schema`]: the generated JSON Schema rejects the same
//! documents, and the loader drops its generic message when this walk
//! reported the same spot. Rules JSON Schema cannot express (unique ids,
//! regexes and globs that compile, duration bounds) carry [`Layer::Semantic`].

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::automata::{self, Search};
use crate::config::ACTION_KEYS;
use crate::diagnostic::{Diagnostic, Layer};
use crate::duration::{Duration, DurationError};
use crate::phase::{FailurePolicy, Phase};
use crate::plan::DfaCache;
use crate::yaml::{Positions, escape_token};

/// Deepest `when` nesting accepted.
const MAX_PREDICATE_DEPTH: usize = 16;

const TOP_KEYS: &[&str] = &["version", "defaults", "limits", "tool_settings", "hooks"];
const DEFAULTS_KEYS: &[&str] = &["timeout", "failure_policy", "payload"];
const LIMITS_KEYS: &[(&str, u64, u64)] = &[
    ("max_stop_resumes_per_turn", 0, 100),
    ("max_output_bytes", 1, 67_108_864),
    ("max_context_bytes", 1, 16_777_216),
    ("max_payload_bytes", 1024, 67_108_864),
];
const TOOL_SETTINGS_KEYS: &[&str] = &["path_pointers", "allow_absolute_paths", "writes"];
const HOOK_KEYS: &[&str] = &[
    "id",
    "description",
    "phase",
    "include_tools",
    "exclude_tools",
    "when",
    "run",
    "block",
    "patch",
    "rewrite",
    "inject",
    "terminate",
    "failure_policy",
    "mode",
    "enabled",
    "show_in_tui",
];
const RUN_KEYS: &[&str] = &[
    "command", "argv", "cwd", "env", "timeout", "payload", "protocol",
];
const ENV_KEYS: &[&str] = &["pass", "set"];
const PATCH_KEYS: &[&str] = &[
    "preamble",
    "temperature",
    "max_tokens",
    "tool_choice",
    "history",
    "active_tools",
    "additional_params",
    "extra_context",
];
const PREDICATE_KEYS: &[&str] = &[
    "all", "any", "not", "pointer", "matches", "glob", "equals", "exists", "outcome",
];
const FAILURE_POLICIES: &[&str] = &["ignore", "warn", "block", "fail"];
const MODES: &[&str] = &["enforce", "audit"];
const PAYLOADS: &[&str] = &["full", "redacted"];
const PROTOCOLS: &[&str] = &["native", "claude"];
/// The `outcome` values, as `OutcomeKind` serializes them (checked by a test).
const OUTCOMES: &[&str] = &["success", "timeout", "not_found", "denied", "error"];

/// Claude Code (and other runtimes') event names and their canonical phases.
const FOREIGN_PHASES: &[(&str, &str, &str)] = &[
    ("pretooluse", "PreToolUse", "before_tool"),
    ("pretoolcall", "PreToolCall", "before_tool"),
    ("beforetoolcall", "BeforeToolCall", "before_tool"),
    ("prenodeexecute", "PreNodeExecute", "before_tool"),
    ("posttooluse", "PostToolUse", "after_tool"),
    ("posttoolcall", "PostToolCall", "after_tool"),
    ("posttoolusefailure", "PostToolUseFailure", "after_tool"),
    ("postnodeexecute", "PostNodeExecute", "after_tool"),
    ("userpromptsubmit", "UserPromptSubmit", "user_prompt"),
    ("sessionstart", "SessionStart", "run_start"),
    ("graphstart", "GraphStart", "run_start"),
    ("sessionend", "SessionEnd", "run_end"),
    ("graphcomplete", "GraphComplete", "run_end"),
    ("grapherror", "GraphError", "run_error"),
    ("subagentstop", "SubagentStop", "stop"),
];

pub(crate) struct Checker<'a> {
    file: &'a str,
    positions: &'a Positions,
    pub(crate) out: Vec<Diagnostic>,
    /// The DFAs built while checking that patterns fit one, for the lowering.
    pub(crate) dfas: DfaCache,
}

#[derive(Clone, Copy)]
enum At {
    Key,
    Value,
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

fn child(pointer: &str, key: &str) -> String {
    format!("{pointer}/{}", escape_token(key))
}

fn quoted_list(items: &[&str]) -> String {
    items
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Levenshtein distance, for "did you mean" hints.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

fn suggest(word: &str, candidates: &[&str]) -> Option<String> {
    let lower = word.to_lowercase();
    candidates
        .iter()
        .map(|c| (distance(&lower, c), *c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 4) && *d < c.len())
        .min()
        .map(|(_, c)| format!("did you mean `{c}`?"))
}

/// RFC 6901: empty, or `/`-separated tokens where `~` is only `~0` or `~1`.
pub(crate) fn pointer_problem(p: &str) -> Option<String> {
    if p.is_empty() {
        return None;
    }
    if !p.starts_with('/') {
        return Some(format!(
            "invalid JSON pointer `{p}`, expected `/` at the start (RFC 6901)"
        ));
    }
    let bytes = p.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'~' && !matches!(bytes.get(i + 1), Some(b'0' | b'1')) {
            return Some(format!(
                "invalid JSON pointer `{p}`, `~` must be followed by `0` or `1` (RFC 6901)"
            ));
        }
    }
    None
}

/// Why a `run.cwd` cannot work, if it cannot: the shell runtime joins it to
/// the workspace root and refuses a directory outside the root (see
/// hooks-runtime's executor preflight), so an absolute path, or one whose `..`
/// components climb above the root (judged lexically), is a config error.
/// Symlinks are the runtime's to judge: it canonicalizes before its check.
fn cwd_problem(dir: &str) -> Option<&'static str> {
    if dir.starts_with('/') {
        return Some("an absolute path");
    }
    let mut depth = 0usize;
    for part in dir.split('/') {
        match part {
            "" | "." => {}
            ".." => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return Some("its `..` climbs above the workspace root"),
            },
            _ => depth += 1,
        }
    }
    None
}

pub(crate) fn valid_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

pub(crate) fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

impl<'a> Checker<'a> {
    pub(crate) fn new(file: &'a str, positions: &'a Positions) -> Checker<'a> {
        Checker {
            file,
            positions,
            out: Vec::new(),
            dfas: DfaCache::default(),
        }
    }

    /// Reports a pattern (`what` `shown`, compiled to `regex`) whose DFA
    /// would exceed [`automata::DFA_SIZE_LIMIT`]: `hooks!` and the loader
    /// build that DFA, so this is a config error, located here rather than
    /// at build time.
    fn fits_a_dfa(&mut self, p: &str, what: &str, shown: &str, regex: &str, search: Search) {
        if let Err(e) = self.dfas.build(regex, search) {
            self.report(
                p,
                At::Value,
                Layer::Semantic,
                "pattern-too-large",
                format!("{what} `{shown}` cannot be compiled into a matcher: {e}"),
                Some(format!(
                    "patterns are compiled into DFAs of at most {} MiB; bounded repetitions after a class (`[ab]{{16}}`) or of `\\w`/`.` multiply the size: simplify the pattern",
                    automata::DFA_SIZE_LIMIT >> 20
                )),
            );
        }
    }

    fn report(
        &mut self,
        pointer: &str,
        at: At,
        layer: Layer,
        code: &str,
        message: String,
        hint: Option<String>,
    ) {
        let pos = match at {
            At::Key => self.positions.key_pos(pointer),
            At::Value => self.positions.value_pos(pointer),
        };
        self.out.push(
            Diagnostic::new(
                self.file, pos.line, pos.column, pointer, layer, code, message,
            )
            .with_hint_opt(hint),
        );
    }

    fn type_error(&mut self, pointer: &str, what: &str, found: &Value, hint: Option<String>) {
        let key = pointer.rsplit('/').next().unwrap_or("");
        let subject = if key.is_empty() || key.bytes().all(|b| b.is_ascii_digit()) {
            String::new()
        } else {
            format!("`{key}`: ")
        };
        self.report(
            pointer,
            At::Value,
            Layer::Schema,
            "wrong-type",
            format!("{subject}expected {what}, found {}", kind_of(found)),
            hint,
        );
    }

    /// Reports unknown keys of `map`; returns nothing.
    fn unknown_keys(
        &mut self,
        pointer: &str,
        map: &Map<String, Value>,
        allowed: &[&str],
        what: &str,
    ) {
        for key in map.keys() {
            if !allowed.contains(&key.as_str()) {
                let hint = suggest(key, allowed).or_else(|| foreign_key_hint(key));
                self.report(
                    &child(pointer, key),
                    At::Key,
                    Layer::Schema,
                    "unknown-key",
                    format!(
                        "unknown key `{key}` in {what}, expected one of: {}",
                        quoted_list(allowed)
                    ),
                    hint,
                );
            }
        }
    }

    fn missing(&mut self, pointer: &str, key: &str, what: &str, hint: Option<String>) {
        self.report(
            pointer,
            At::Value,
            Layer::Schema,
            "missing-key",
            format!("missing key `{key}` in {what}"),
            hint,
        );
    }

    fn object<'v>(
        &mut self,
        pointer: &str,
        v: &'v Value,
        what: &str,
    ) -> Option<&'v Map<String, Value>> {
        match v {
            Value::Object(m) => Some(m),
            other => {
                self.type_error(pointer, what, other, None);
                None
            }
        }
    }

    fn string<'v>(&mut self, pointer: &str, v: &'v Value) -> Option<&'v str> {
        match v {
            Value::String(s) => Some(s),
            other => {
                self.type_error(pointer, "a string", other, None);
                None
            }
        }
    }

    fn nonempty_string<'v>(&mut self, pointer: &str, v: &'v Value) -> Option<&'v str> {
        let s = self.string(pointer, v)?;
        if s.is_empty() {
            self.report(
                pointer,
                At::Value,
                Layer::Schema,
                "empty-string",
                format!("`{}` must not be empty", last_key(pointer)),
                None,
            );
            return None;
        }
        Some(s)
    }

    fn boolean(&mut self, pointer: &str, v: &Value) {
        if !v.is_boolean() {
            self.type_error(pointer, "`true` or `false`", v, None);
        }
    }

    fn array<'v>(&mut self, pointer: &str, v: &'v Value, what: &str) -> Option<&'v Vec<Value>> {
        match v {
            Value::Array(a) => Some(a),
            other => {
                self.type_error(pointer, what, other, None);
                None
            }
        }
    }

    fn enum_value(
        &mut self,
        pointer: &str,
        v: &Value,
        what: &str,
        allowed: &[&str],
        code: &str,
    ) -> Option<String> {
        let s = self.string(pointer, v)?;
        if allowed.contains(&s) {
            return Some(s.to_owned());
        }
        let hint = suggest(s, allowed);
        self.report(
            pointer,
            At::Value,
            Layer::Schema,
            code,
            format!(
                "unknown {what} `{s}`, expected one of: {}",
                quoted_list(allowed)
            ),
            hint,
        );
        None
    }

    /// `enum_value` on `key` of the mapping `m` at `pointer`, when present.
    fn enum_key(
        &mut self,
        pointer: &str,
        m: &Map<String, Value>,
        key: &str,
        what: &str,
        allowed: &[&str],
        code: &str,
    ) -> Option<String> {
        let v = m.get(key)?;
        self.enum_value(&child(pointer, key), v, what, allowed, code)
    }

    /// Checks the `payload` key of the mapping `m` at `pointer`, when present
    /// (in `defaults` and in `run`).
    fn payload_mode(&mut self, pointer: &str, m: &Map<String, Value>) {
        self.enum_key(
            pointer,
            m,
            "payload",
            "payload mode",
            PAYLOADS,
            "unknown-payload-mode",
        );
    }

    fn duration(&mut self, pointer: &str, v: &Value) {
        match v {
            Value::String(s) => match Duration::parse(s) {
                Ok(_) => {}
                Err(e @ DurationError::Syntax(_)) => self.report(
                    pointer,
                    At::Value,
                    Layer::Schema,
                    "invalid-duration",
                    e.to_string(),
                    None,
                ),
                Err(e) => self.report(
                    pointer,
                    At::Value,
                    Layer::Schema,
                    "duration-out-of-bounds",
                    e.to_string(),
                    None,
                ),
            },
            Value::Number(n) => self.report(
                pointer,
                At::Value,
                Layer::Schema,
                "bare-number-duration",
                format!("`{}`: a bare number is not a duration", last_key(pointer)),
                Some(format!("write the unit: `{n}ms`, `{n}s` or `{n}m`")),
            ),
            other => self.type_error(
                pointer,
                "a duration string such as `500ms`, `5s` or `2m`",
                other,
                None,
            ),
        }
    }

    fn pointer_value(&mut self, pointer: &str, v: &Value) {
        if let Some(p) = self.string(pointer, v)
            && let Some(problem) = pointer_problem(p)
        {
            let hint = (!p.starts_with('/')).then(|| format!("write `/{p}`"));
            self.report(
                pointer,
                At::Value,
                Layer::Schema,
                "invalid-pointer",
                problem,
                hint,
            );
        }
    }

    fn integer(&mut self, pointer: &str, v: &Value, min: u64, max: u64) {
        match v.as_u64() {
            Some(n) if (min..=max).contains(&n) => {}
            Some(n) => self.report(
                pointer,
                At::Value,
                Layer::Schema,
                "out-of-range",
                format!(
                    "`{}` is {n}, expected between {min} and {max}",
                    last_key(pointer)
                ),
                None,
            ),
            None => self.type_error(pointer, "a non-negative integer", v, None),
        }
    }

    /// Checks the whole document.
    pub(crate) fn check_document(&mut self, doc: &Value) {
        let Some(root) = self.object("", doc, "a mapping with `version` and `hooks`") else {
            return;
        };
        self.unknown_keys("", root, TOP_KEYS, "the config");
        match root.get("version") {
            None => self.missing(
                "",
                "version",
                "the config",
                Some("add `version: 1` at the top".to_owned()),
            ),
            Some(v) if v.as_u64() == Some(1) => {}
            Some(v) => self.report(
                "/version",
                At::Value,
                Layer::Schema,
                "unsupported-version",
                format!(
                    "unsupported config version `{}`, expected `1`",
                    v.to_string().trim_matches('"')
                ),
                None,
            ),
        }
        if let Some(d) = root.get("defaults") {
            self.check_defaults("/defaults", d);
        }
        if let Some(l) = root.get("limits")
            && let Some(m) = self.object("/limits", l, "a mapping")
        {
            let allowed: Vec<&str> = LIMITS_KEYS.iter().map(|(k, _, _)| *k).collect();
            self.unknown_keys("/limits", m, &allowed, "`limits`");
            for (key, min, max) in LIMITS_KEYS {
                if let Some(v) = m.get(*key) {
                    self.integer(&child("/limits", key), v, *min, *max);
                }
            }
        }
        if let Some(t) = root.get("tool_settings") {
            self.check_tool_settings("/tool_settings", t);
        }
        match root.get("hooks") {
            None => self.missing(
                "",
                "hooks",
                "the config",
                Some("add a `hooks:` list (it may be empty: `hooks: []`)".to_owned()),
            ),
            Some(h) => {
                if let Some(hooks) = self.array("/hooks", h, "a list of hooks") {
                    let mut seen: HashMap<&str, usize> = HashMap::new();
                    for (i, hook) in hooks.iter().enumerate() {
                        let p = format!("/hooks/{i}");
                        self.check_hook(&p, hook);
                        if let Some(id) = hook.get("id").and_then(Value::as_str) {
                            if let Some(first) = seen.get(id) {
                                let first_line =
                                    self.positions.value_pos(&format!("/hooks/{first}/id")).line;
                                self.report(
                                    &format!("{p}/id"),
                                    At::Value,
                                    Layer::Semantic,
                                    "duplicate-id",
                                    format!("duplicate hook id `{id}`"),
                                    Some(format!(
                                        "first defined on line {first_line}; ids must be unique"
                                    )),
                                );
                            } else {
                                seen.insert(id, i);
                            }
                        }
                    }
                }
            }
        }
    }

    fn check_defaults(&mut self, p: &str, v: &Value) {
        let Some(m) = self.object(p, v, "a mapping") else {
            return;
        };
        self.unknown_keys(p, m, DEFAULTS_KEYS, "`defaults`");
        if let Some(t) = m.get("timeout") {
            self.duration(&child(p, "timeout"), t);
        }
        if let Some(f) = m.get("failure_policy") {
            let fp = child(p, "failure_policy");
            if f.as_str() == Some("block") {
                self.report(
                    &fp,
                    At::Value,
                    Layer::Schema,
                    "block-policy-in-defaults",
                    "failure policy `block` is not allowed in `defaults`, expected one of: `ignore`, `warn`, `fail`".to_owned(),
                    Some("`block` only makes sense on `before_tool` hooks, which already default to it".to_owned()),
                );
            } else {
                self.enum_value(
                    &fp,
                    f,
                    "failure policy",
                    &["ignore", "warn", "fail"],
                    "unknown-failure-policy",
                );
            }
        }
        self.payload_mode(p, m);
    }

    fn check_tool_settings(&mut self, p: &str, v: &Value) {
        let Some(m) = self.object(p, v, "a mapping from tool names to settings") else {
            return;
        };
        for (tool, settings) in m {
            let tp = child(p, tool);
            let Some(s) = self.object(&tp, settings, "a mapping") else {
                continue;
            };
            self.unknown_keys(
                &tp,
                s,
                TOOL_SETTINGS_KEYS,
                &format!("the settings of tool `{tool}`"),
            );
            if let Some(pp) = s.get("path_pointers") {
                let ppp = child(&tp, "path_pointers");
                if let Some(items) = self.array(&ppp, pp, "a list of JSON pointers") {
                    for (i, item) in items.iter().enumerate() {
                        self.pointer_value(&format!("{ppp}/{i}"), item);
                    }
                }
            }
            for key in ["allow_absolute_paths", "writes"] {
                if let Some(b) = s.get(key) {
                    self.boolean(&child(&tp, key), b);
                }
            }
        }
    }

    fn check_hook(&mut self, p: &str, v: &Value) {
        let Some(m) = self.object(p, v, "a hook mapping with `id`, `phase` and an action") else {
            return;
        };
        let id = m
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned();
        let what = format!("hook `{id}`");
        self.unknown_keys(p, m, HOOK_KEYS, &what);
        match m.get("id") {
            None => self.missing(
                p,
                "id",
                "a hook",
                Some("every hook needs a unique `id` such as `block-rm-rf`".to_owned()),
            ),
            Some(v) => {
                if let Some(s) = self.string(&child(p, "id"), v)
                    && !valid_id(s)
                {
                    self.report(
                            &child(p, "id"),
                            At::Value,
                            Layer::Schema,
                            "invalid-id",
                            format!("invalid hook id `{s}`, expected lowercase letters, digits, `_` and `-` only"),
                            Some(format!("try `{}`", suggest_id(s))),
                        );
                }
            }
        }
        if let Some(d) = m.get("description") {
            self.string(&child(p, "description"), d);
        }
        let phase = match m.get("phase") {
            None => {
                self.missing(
                    p,
                    "phase",
                    &what,
                    Some(format!("expected one of: {}", phase_list())),
                );
                None
            }
            Some(v) => self.phase(&child(p, "phase"), v),
        };
        for key in ["include_tools", "exclude_tools"] {
            if let Some(v) = m.get(key) {
                let kp = child(p, key);
                if let Some(ph) = phase.filter(|ph| !ph.is_tool_phase()) {
                    self.report(
                        &kp,
                        At::Key,
                        Layer::Schema,
                        "tool-filter-on-non-tool-phase",
                        format!("`{key}` is only allowed on tool phases (`before_tool`, `after_tool`), found on `{ph}`"),
                        None,
                    );
                }
                self.tool_patterns(&kp, v);
            }
        }
        if let Some(w) = m.get("when") {
            self.predicate(&child(p, "when"), w, phase, 0);
        }
        let actions: Vec<&str> = ACTION_KEYS
            .iter()
            .copied()
            .filter(|k| m.contains_key(*k))
            .collect();
        match actions.as_slice() {
            [] => self.report(
                p,
                At::Value,
                Layer::Schema,
                "missing-action",
                format!(
                    "{what} has no action, expected exactly one of: {}",
                    quoted_list(&ACTION_KEYS)
                ),
                None,
            ),
            [_] => {}
            [first, rest @ ..] => {
                for extra in rest {
                    self.report(
                        &child(p, extra),
                        At::Key,
                        Layer::Schema,
                        "multiple-actions",
                        format!("{what} has more than one action: `{first}` and `{extra}`, expected exactly one of: {}", quoted_list(&ACTION_KEYS)),
                        Some("split it into two hooks; they run in declared order".to_owned()),
                    );
                }
            }
        }
        for action in &actions {
            let ap = child(p, action);
            if let Some(ph) = phase
                && !crate::config::Action::allowed_on(action, ph)
            {
                let allowed = match *action {
                    "block" => "`before_tool`".to_owned(),
                    "patch" => "`before_completion`".to_owned(),
                    "inject" => format!(
                        "after-phases ({})",
                        quoted_list(&phases_where(Phase::is_after_phase))
                    ),
                    _ => "tool phases (`before_tool`, `after_tool`)".to_owned(),
                };
                let hint = match (*action, ph) {
                        ("block", Phase::AfterTool) => Some("the tool already ran; use `rewrite` to change its result or `inject` to add context".to_owned()),
                        ("block", _) => Some("use `terminate` to end the run".to_owned()),
                        _ => None,
                    };
                self.report(
                    &ap,
                    At::Key,
                    Layer::Schema,
                    "action-not-allowed",
                    format!("action `{action}` is only allowed on {allowed}, found on `{ph}`"),
                    hint,
                );
            }
            let body = &m[*action];
            match *action {
                "run" => self.run(&ap, body),
                "block" | "terminate" => self.reason(&ap, body, "reason", action),
                "inject" => self.reason(&ap, body, "content", action),
                "patch" => self.patch(&ap, body),
                "rewrite" => self.rewrite(&ap, body),
                _ => {}
            }
        }
        if let Some(f) = m.get("failure_policy") {
            let fp = child(p, "failure_policy");
            if let Some(policy) = self.enum_value(
                &fp,
                f,
                "failure policy",
                FAILURE_POLICIES,
                "unknown-failure-policy",
            ) && let Some(ph) = phase
                && policy == FailurePolicy::Block.as_str()
                && ph != Phase::BeforeTool
            {
                self.report(
                            &fp,
                            At::Value,
                            Layer::Schema,
                            "block-policy-not-allowed",
                            format!("failure policy `block` is only allowed on `before_tool` hooks, found on `{ph}`, expected one of: `ignore`, `warn`, `fail`"),
                            Some("`block` skips a tool call; there is none to skip here".to_owned()),
                        );
            }
        }
        self.enum_key(p, m, "mode", "mode", MODES, "unknown-mode");
        for key in ["enabled", "show_in_tui"] {
            if let Some(b) = m.get(key) {
                self.boolean(&child(p, key), b);
            }
        }
    }

    fn phase(&mut self, p: &str, v: &Value) -> Option<Phase> {
        let s = self.string(p, v)?;
        if let Some(ph) = Phase::from_name(s) {
            return Some(ph);
        }
        let normalized: String = s
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_lowercase();
        let names: Vec<&str> = Phase::ALL.iter().map(|p| p.as_str()).collect();
        let hint = FOREIGN_PHASES
            .iter()
            .find(|(n, _, _)| *n == normalized)
            .map(|(_, _, ours)| format!("did you mean `{ours}`? other runtimes' event names map to phases: `PreToolUse` -> `before_tool`, `PostToolUse` -> `after_tool`, `UserPromptSubmit` -> `user_prompt`, `SessionStart` -> `run_start`, `SessionEnd` -> `run_end`, `Stop` -> `stop`"))
            .or_else(|| {
                Phase::ALL
                    .iter()
                    .find(|p| p.as_str().replace('_', "") == normalized)
                    .map(|p| format!("did you mean `{p}`?"))
            })
            .or_else(|| suggest(s, &names));
        self.report(
            p,
            At::Value,
            Layer::Schema,
            "unknown-phase",
            format!("unknown phase `{s}`, expected one of: {}", phase_list()),
            hint,
        );
        None
    }

    fn tool_patterns(&mut self, p: &str, v: &Value) {
        let Some(items) = self.array(p, v, "a list of tool-name patterns") else {
            return;
        };
        if items.is_empty() {
            self.report(
                p,
                At::Value,
                Layer::Schema,
                "empty-list",
                format!("`{}` must not be empty", last_key(p)),
                Some("omit the key to match every tool".to_owned()),
            );
        }
        for (i, item) in items.iter().enumerate() {
            let ip = format!("{p}/{i}");
            match item {
                Value::String(glob) => match crate::matcher::glob_to_regex(glob) {
                    Err(e) => self.report(
                        &ip,
                        At::Value,
                        Layer::Semantic,
                        "invalid-glob",
                        format!("invalid tool glob `{glob}`: {e}"),
                        None,
                    ),
                    Ok(re) => self.fits_a_dfa(&ip, "tool glob", glob, &re, Search::Anchored),
                },
                Value::Object(m) if m.contains_key("regex") => {
                    self.unknown_keys(&ip, m, &["regex"], "a tool-name regex pattern");
                    let rp = child(&ip, "regex");
                    if let Some(re) = self.string(&rp, &m["regex"]) {
                        match crate::matcher::check_regex(re) {
                            Err(e) => self.report(
                                &rp,
                                At::Value,
                                Layer::Semantic,
                                "invalid-regex",
                                format!("invalid regex `{re}`: {e}"),
                                None,
                            ),
                            Ok(()) => self.fits_a_dfa(
                                &rp,
                                "tool regex",
                                re,
                                &format!("^(?:{re})$"),
                                Search::Anchored,
                            ),
                        }
                    }
                }
                other => {
                    let found = match other {
                        Value::Object(m) => match m.keys().next() {
                            Some(k) => format!("a mapping with key `{k}`"),
                            None => "an empty mapping".to_owned(),
                        },
                        v => kind_of(v).to_owned(),
                    };
                    let hint = match other {
                        Value::Object(m) if m.len() == 1 => m
                            .values()
                            .next()
                            .and_then(Value::as_str)
                            .map(|s| format!("write the pattern as a string: `{s}`")),
                        _ => None,
                    }
                    .or_else(|| {
                        Some(
                            "write a glob string such as `bash` or `mcp__*`, or `{regex: \"...\"}`"
                                .to_owned(),
                        )
                    });
                    self.report(
                        &ip,
                        At::Value,
                        Layer::Schema,
                        "invalid-tool-pattern",
                        format!("expected a tool-name pattern (a glob string or `{{regex: ...}}`), found {found}"),
                        hint,
                    );
                }
            }
        }
    }

    fn predicate(&mut self, p: &str, v: &Value, phase: Option<Phase>, depth: usize) {
        if depth > MAX_PREDICATE_DEPTH {
            self.report(
                p,
                At::Value,
                Layer::Semantic,
                "predicate-too-deep",
                format!("`when` is nested more than {MAX_PREDICATE_DEPTH} levels deep"),
                None,
            );
            return;
        }
        let Some(m) = self.object(
            p,
            v,
            "a predicate mapping (`all`, `any`, `not`, `pointer` or `outcome`)",
        ) else {
            return;
        };
        self.unknown_keys(p, m, PREDICATE_KEYS, "a predicate");
        let tests: Vec<&str> = ["matches", "glob", "equals", "exists"]
            .into_iter()
            .filter(|k| m.contains_key(*k))
            .collect();
        let mut shapes: Vec<&str> = ["all", "any", "not", "outcome"]
            .into_iter()
            .filter(|k| m.contains_key(*k))
            .collect();
        if m.contains_key("pointer") || !tests.is_empty() {
            shapes.push("pointer");
        }
        if shapes.len() > 1 {
            self.report(
                p,
                At::Value,
                Layer::Schema,
                "ambiguous-predicate",
                format!("a predicate has exactly one of `all`, `any`, `not`, `pointer` or `outcome`, found {}", quoted_list(&shapes)),
                Some("combine several conditions with `all: [...]`".to_owned()),
            );
            return;
        }
        match shapes.first().copied() {
            None => self.report(
                p,
                At::Value,
                Layer::Schema,
                "empty-predicate",
                "empty predicate, expected one of: `all`, `any`, `not`, `pointer`, `outcome`"
                    .to_owned(),
                None,
            ),
            Some(key @ ("all" | "any")) => {
                let kp = child(p, key);
                if let Some(items) = self.array(&kp, &m[key], "a list of predicates") {
                    for (i, item) in items.iter().enumerate() {
                        self.predicate(&format!("{kp}/{i}"), item, phase, depth + 1);
                    }
                }
            }
            Some("not") => self.predicate(&child(p, "not"), &m["not"], phase, depth + 1),
            Some("outcome") => {
                let op = child(p, "outcome");
                if let Some(ph) = phase.filter(|ph| *ph != Phase::AfterTool) {
                    self.report(
                        &op,
                        At::Key,
                        Layer::Schema,
                        "outcome-not-allowed",
                        format!("`outcome` predicates are only allowed on `after_tool` hooks, found on `{ph}`"),
                        None,
                    );
                }
                self.enum_value(&op, &m["outcome"], "outcome", OUTCOMES, "unknown-outcome");
            }
            Some(_) => {
                match m.get("pointer") {
                    None => self.missing(
                        p,
                        "pointer",
                        "a predicate",
                        Some("e.g. `pointer: /command`".to_owned()),
                    ),
                    Some(pv) => self.pointer_value(&child(p, "pointer"), pv),
                }
                match tests.as_slice() {
                    [] => self.report(
                        p,
                        At::Value,
                        Layer::Schema,
                        "missing-test",
                        "a `pointer` predicate needs one test, expected one of: `matches`, `glob`, `equals`, `exists`".to_owned(),
                        None,
                    ),
                    [test] => {
                        let tp = child(p, test);
                        match *test {
                            "matches" => {
                                if let Some(re) = self.string(&tp, &m["matches"]) {
                                    match crate::matcher::check_regex(re) {
                                        Err(e) => self.report(&tp, At::Value, Layer::Semantic, "invalid-regex", format!("invalid regex `{re}`: {e}"), None),
                                        Ok(()) => self.fits_a_dfa(&tp, "regex", re, re, Search::Unanchored),
                                    }
                                }
                            }
                            "glob" => {
                                if let Some(g) = self.string(&tp, &m["glob"]) {
                                    match crate::matcher::glob_to_regex(g) {
                                        Err(e) => self.report(&tp, At::Value, Layer::Semantic, "invalid-glob", format!("invalid glob `{g}`: {e}"), None),
                                        Ok(re) => self.fits_a_dfa(&tp, "glob", g, &re, Search::Anchored),
                                    }
                                }
                            }
                            "exists" => self.boolean(&tp, &m["exists"]),
                            _ => {}
                        }
                    }
                    several => self.report(
                        &child(p, several[1]),
                        At::Key,
                        Layer::Schema,
                        "multiple-tests",
                        format!("a `pointer` predicate has exactly one test, found {}", quoted_list(several)),
                        Some("combine several tests with `all: [...]`".to_owned()),
                    ),
                }
            }
        }
    }

    fn reason(&mut self, p: &str, v: &Value, key: &str, action: &str) {
        let shape = format!("a mapping `{{{key}: ...}}`");
        let hint = v
            .as_str()
            .map(|s| format!("write `{action}: {{ {key}: \"{s}\" }}`"));
        let Some(m) = (match v {
            Value::Object(m) => Some(m),
            other => {
                self.type_error(p, &shape, other, hint);
                None
            }
        }) else {
            return;
        };
        self.unknown_keys(p, m, &[key], &format!("`{action}`"));
        match m.get(key) {
            None => self.missing(p, key, &format!("`{action}`"), None),
            Some(r) => {
                self.nonempty_string(&child(p, key), r);
            }
        }
    }

    fn run(&mut self, p: &str, v: &Value) {
        let Some(m) = self.object(p, v, "a mapping with `command` or `argv`") else {
            return;
        };
        self.unknown_keys(p, m, RUN_KEYS, "`run`");
        match (m.get("command"), m.get("argv")) {
            (None, None) => self.missing(
                p,
                "command",
                "`run`",
                Some(
                    "give `command: \"...\"` (shell form) or `argv: [...]` (exec form)".to_owned(),
                ),
            ),
            (Some(_), Some(_)) => self.report(
                &child(p, "argv"),
                At::Key,
                Layer::Schema,
                "command-and-argv",
                "`run` has both `command` and `argv`, expected exactly one".to_owned(),
                Some("`command` runs through `sh -c`; `argv` runs the program directly".to_owned()),
            ),
            _ => {}
        }
        if let Some(c) = m.get("command") {
            self.nonempty_string(&child(p, "command"), c);
        }
        if let Some(a) = m.get("argv") {
            let ap = child(p, "argv");
            if let Some(items) = self.array(&ap, a, "a list of strings") {
                if items.is_empty() {
                    self.report(
                        &ap,
                        At::Value,
                        Layer::Schema,
                        "empty-argv",
                        "`argv` must not be empty, expected the program and its arguments"
                            .to_owned(),
                        None,
                    );
                }
                for (i, item) in items.iter().enumerate() {
                    self.string(&format!("{ap}/{i}"), item);
                }
                if let Some(first) = items.first().and_then(Value::as_str)
                    && first.is_empty()
                {
                    self.report(
                        &format!("{ap}/0"),
                        At::Value,
                        Layer::Schema,
                        "empty-program",
                        "the program (`argv[0]`) must not be empty".to_owned(),
                        None,
                    );
                }
            }
        }
        if let Some(c) = m.get("cwd") {
            let cp = child(p, "cwd");
            if let Some(dir) = self.nonempty_string(&cp, c)
                && let Some(why) = cwd_problem(dir)
            {
                self.report(
                    &cp,
                    At::Value,
                    Layer::Semantic,
                    "cwd-outside-workspace",
                    format!(
                        "`cwd` must be relative to the workspace root and stay inside it, found `{dir}` ({why})"
                    ),
                    Some(
                        "the shell runtime refuses a working directory outside the workspace root; write a path such as `.` or `scripts`".to_owned(),
                    ),
                );
            }
        }
        if let Some(e) = m.get("env") {
            self.env(&child(p, "env"), e);
        }
        if let Some(t) = m.get("timeout") {
            self.duration(&child(p, "timeout"), t);
        }
        self.payload_mode(p, m);
        self.enum_key(p, m, "protocol", "protocol", PROTOCOLS, "unknown-protocol");
    }

    fn env(&mut self, p: &str, v: &Value) {
        let Some(m) = self.object(p, v, "a mapping with `pass` and/or `set`") else {
            return;
        };
        self.unknown_keys(p, m, ENV_KEYS, "`env`");
        let bad_name = |name: &str| {
            (
                format!(
                    "invalid environment variable name `{name}`, expected `[A-Za-z_][A-Za-z0-9_]*`"
                ),
                None::<String>,
            )
        };
        if let Some(pass) = m.get("pass") {
            let pp = child(p, "pass");
            if let Some(items) = self.array(&pp, pass, "a list of variable names") {
                for (i, item) in items.iter().enumerate() {
                    let ip = format!("{pp}/{i}");
                    if let Some(name) = self.string(&ip, item)
                        && !valid_env_name(name)
                    {
                        let (msg, hint) = bad_name(name);
                        self.report(&ip, At::Value, Layer::Schema, "invalid-env-name", msg, hint);
                    }
                }
            }
        }
        if let Some(set) = m.get("set") {
            let sp = child(p, "set");
            if let Some(vars) = self.object(&sp, set, "a mapping from variable names to values") {
                for (name, value) in vars {
                    let vp = child(&sp, name);
                    if !valid_env_name(name) {
                        let (msg, hint) = bad_name(name);
                        self.report(&vp, At::Key, Layer::Schema, "invalid-env-name", msg, hint);
                    }
                    if !value.is_string() {
                        let hint = (!value.is_object() && !value.is_array())
                            .then(|| format!("quote it: `\"{value}\"`"));
                        self.type_error(&vp, "a string", value, hint);
                    }
                }
            }
        }
    }

    fn patch(&mut self, p: &str, v: &Value) {
        let Some(m) = self.object(p, v, "a request patch mapping") else {
            return;
        };
        self.unknown_keys(p, m, PATCH_KEYS, "`patch`");
        if m.is_empty() {
            self.report(
                p,
                At::Value,
                Layer::Schema,
                "empty-patch",
                format!(
                    "empty `patch`, expected at least one of: {}",
                    quoted_list(PATCH_KEYS)
                ),
                None,
            );
        }
        if let Some(x) = m.get("preamble") {
            self.string(&child(p, "preamble"), x);
        }
        if let Some(x) = m.get("temperature") {
            let tp = child(p, "temperature");
            match x.as_f64() {
                Some(t) if (0.0..=2.0).contains(&t) => {}
                Some(t) => self.report(
                    &tp,
                    At::Value,
                    Layer::Schema,
                    "out-of-range",
                    format!("`temperature` is {t}, expected between 0.0 and 2.0"),
                    None,
                ),
                None => self.type_error(&tp, "a number", x, None),
            }
        }
        if let Some(x) = m.get("max_tokens") {
            self.integer(&child(p, "max_tokens"), x, 1, u64::MAX);
        }
        if let Some(x) = m.get("tool_choice") {
            let tp = child(p, "tool_choice");
            match x {
                Value::String(_) => {
                    self.enum_value(
                        &tp,
                        x,
                        "tool choice",
                        &["auto", "none", "required"],
                        "unknown-tool-choice",
                    );
                }
                Value::Object(tc) => {
                    self.unknown_keys(&tp, tc, &["tools"], "`tool_choice`");
                    match tc.get("tools") {
                        None => self.missing(&tp, "tools", "`tool_choice`", None),
                        Some(t) => self.string_list(&child(&tp, "tools"), t, true),
                    }
                }
                other => self.type_error(
                    &tp,
                    "`auto`, `none`, `required` or `{tools: [...]}`",
                    other,
                    None,
                ),
            }
        }
        if let Some(x) = m.get("history") {
            let hp = child(p, "history");
            if let Some(h) = self.object(&hp, x, "a mapping `{keep_last: N}`") {
                self.unknown_keys(&hp, h, &["keep_last"], "`history`");
                match h.get("keep_last") {
                    None => self.missing(&hp, "keep_last", "`history`", None),
                    Some(k) => self.integer(&child(&hp, "keep_last"), k, 0, u64::from(u32::MAX)),
                }
            }
        }
        if let Some(x) = m.get("active_tools") {
            self.string_list(&child(p, "active_tools"), x, false);
        }
        if let Some(x) = m.get("additional_params") {
            self.object(&child(p, "additional_params"), x, "a mapping");
        }
        if let Some(x) = m.get("extra_context") {
            self.string_list(&child(p, "extra_context"), x, true);
        }
    }

    fn string_list(&mut self, p: &str, v: &Value, non_empty: bool) {
        if let Some(items) = self.array(p, v, "a list of strings") {
            if non_empty && items.is_empty() {
                self.report(
                    p,
                    At::Value,
                    Layer::Schema,
                    "empty-list",
                    format!("`{}` must not be empty", last_key(p)),
                    None,
                );
            }
            for (i, item) in items.iter().enumerate() {
                self.string(&format!("{p}/{i}"), item);
            }
        }
    }

    fn rewrite(&mut self, p: &str, v: &Value) {
        let Some(ops) = self.array(p, v, "a list of `{op, pointer, value}` steps") else {
            return;
        };
        if ops.is_empty() {
            self.report(
                p,
                At::Value,
                Layer::Schema,
                "empty-list",
                "`rewrite` must not be empty".to_owned(),
                None,
            );
        }
        for (i, op) in ops.iter().enumerate() {
            let op_p = format!("{p}/{i}");
            let Some(m) = self.object(&op_p, op, "a mapping `{op, pointer, value}`") else {
                continue;
            };
            self.unknown_keys(&op_p, m, &["op", "pointer", "value"], "a rewrite step");
            let kind = match m.get("op") {
                None => {
                    self.missing(
                        &op_p,
                        "op",
                        "a rewrite step",
                        Some("expected one of: `set`, `remove`".to_owned()),
                    );
                    None
                }
                Some(k) => self.enum_value(
                    &child(&op_p, "op"),
                    k,
                    "rewrite op",
                    &["set", "remove"],
                    "unknown-rewrite-op",
                ),
            };
            match m.get("pointer") {
                None => self.missing(&op_p, "pointer", "a rewrite step", None),
                Some(pv) => self.pointer_value(&child(&op_p, "pointer"), pv),
            }
            match (kind.as_deref(), m.contains_key("value")) {
                (Some("set"), false) => self.missing(&op_p, "value", "a `set` step", None),
                (Some("remove"), true) => self.report(
                    &child(&op_p, "value"),
                    At::Key,
                    Layer::Schema,
                    "value-on-remove",
                    "a `remove` step takes no `value`".to_owned(),
                    None,
                ),
                _ => {}
            }
        }
    }
}

fn last_key(pointer: &str) -> &str {
    pointer.rsplit('/').next().unwrap_or("")
}

fn phase_list() -> String {
    Phase::ALL
        .iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn phases_where(f: impl Fn(Phase) -> bool) -> Vec<&'static str> {
    Phase::ALL
        .into_iter()
        .filter(|p| f(*p))
        .map(Phase::as_str)
        .collect()
}

fn suggest_id(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let t = out.trim_matches('-');
    if t.is_empty() {
        "hook".to_owned()
    } else {
        t.to_owned()
    }
}

/// Hints for keys written the way other runtimes spell them.
fn foreign_key_hint(key: &str) -> Option<String> {
    let hint = match key {
        "matcher" | "tools" | "tool" => {
            "tool filters are `include_tools: [...]` / `exclude_tools: [...]`"
        }
        "type" | "hooks" => "a hook is one mapping with `id`, `phase` and one action key",
        "event" | "on" => "the event is `phase:`",
        "if" | "condition" | "match" => "conditions go under `when:`",
        "timeout" => "`timeout` belongs inside `run:`",
        "args" => "exec-form arguments are `argv:` inside `run:`",
        _ => return None,
    };
    Some(hint.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phase::{Mode, OutcomeKind, PayloadMode, Protocol};

    fn names<T: serde::Serialize>(values: &[T]) -> Vec<String> {
        values
            .iter()
            .map(|v| {
                serde_json::to_value(v)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }

    #[test]
    fn value_lists_match_the_enums() {
        use OutcomeKind::*;
        assert_eq!(
            names(&[Success, Timeout, NotFound, Denied, Error]),
            OUTCOMES
        );
        let policies = [
            FailurePolicy::Ignore,
            FailurePolicy::Warn,
            FailurePolicy::Block,
            FailurePolicy::Fail,
        ];
        assert_eq!(names(&policies), FAILURE_POLICIES);
        assert_eq!(names(&[Mode::Enforce, Mode::Audit]), MODES);
        assert_eq!(names(&[PayloadMode::Full, PayloadMode::Redacted]), PAYLOADS);
        assert_eq!(names(&[Protocol::Native, Protocol::Claude]), PROTOCOLS);
    }

    #[test]
    fn suggestions_and_pointers() {
        assert_eq!(
            suggest("blok", FAILURE_POLICIES).as_deref(),
            Some("did you mean `block`?")
        );
        assert_eq!(suggest("zzzzzz", FAILURE_POLICIES), None);
        assert!(pointer_problem("").is_none());
        assert!(pointer_problem("/a~0b~1c").is_none());
        assert!(pointer_problem("a").is_some());
        assert!(pointer_problem("/a~").is_some());
        assert!(valid_env_name("_A1") && !valid_env_name("1A") && !valid_env_name("A-B"));
        for inside in [
            ".", "./", "scripts", "a/../b", "a/./b/..", "a//b", "..x", "a/..",
        ] {
            assert_eq!(cwd_problem(inside), None, "{inside}");
        }
        for outside in [
            "..",
            "../x",
            "./..",
            "a/../..",
            "a/../../a",
            "/",
            "/tmp",
            "//x",
        ] {
            assert!(cwd_problem(outside).is_some(), "{outside}");
        }
        assert!(valid_id("a-b_1") && !valid_id("A") && !valid_id(""));
    }
}
