//! The engines a user would pick instead of ours, given the same rules:
//! [`rego`] (the policy as Rego, evaluated by `regorus`) and [`claude`] (a
//! Claude-Code-style list of hooks, each with an unanchored regex matcher
//! over the tool name). Both are generated from the same YAML policy the
//! tables compile ([`Rules::parse`]); the dispatch matrix checks that every
//! engine decides each case as the policy says before timing it.
//!
//! They understand the subset of the config language the generated
//! policies use: `before_tool` hooks with `include_tools` (exact names,
//! globs with `*` and `?`, `{regex: ...}`), a `when` of `matches` / `glob`
//! leaves under `all` / `any` / `not`, and `block`.

#![allow(dead_code, reason = "each bench uses a part of the peers")]

pub(crate) mod claude;
pub(crate) mod rego;

use serde_json::Value;

/// A tool pattern of `include_tools`.
#[derive(Debug, Clone)]
pub(crate) enum Tool {
    /// An exact tool name.
    Exact(String),
    /// A glob (`*`, `?`), matching the whole name.
    Glob(String),
    /// A regex, matching the whole name.
    Regex(String),
}

/// A `when` condition on the tool's arguments.
#[derive(Debug, Clone)]
pub(crate) enum When {
    /// The string at `pointer` matches the regex (unanchored).
    Matches { pointer: String, regex: String },
    /// The string at `pointer` matches the glob (whole).
    Glob { pointer: String, glob: String },
    /// Every condition holds.
    All(Vec<When>),
    /// Some condition holds.
    Any(Vec<When>),
    /// The condition does not hold.
    Not(Box<When>),
}

/// One rule of the policy, in declared order.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    /// The rule's id.
    pub(crate) id: String,
    /// Its tool patterns (empty: every tool).
    pub(crate) tools: Vec<Tool>,
    /// Its `when`, if any.
    pub(crate) when: Option<When>,
    /// The reason it blocks with.
    pub(crate) reason: String,
}

/// A policy's rules.
#[derive(Debug, Clone)]
pub(crate) struct Rules(pub(crate) Vec<Rule>);

impl Rules {
    /// The rules of a YAML config of the supported subset.
    ///
    /// # Panics
    ///
    /// On anything outside the subset (the peers must not silently decide
    /// otherwise than the policy).
    pub(crate) fn parse(yaml: &str) -> Rules {
        let config: Value = serde_saphyr::from_str(yaml).expect("the policy parses");
        let hooks = config["hooks"].as_array().expect("the policy has hooks");
        Rules(hooks.iter().map(rule).collect())
    }
}

fn rule(hook: &Value) -> Rule {
    let object = hook.as_object().expect("a hook is a mapping");
    for key in object.keys() {
        assert!(
            ["id", "phase", "include_tools", "when", "block"].contains(&key.as_str()),
            "the peers do not know `{key}`"
        );
    }
    assert_eq!(
        hook["phase"], "before_tool",
        "the peers know `before_tool` only"
    );
    let tools = hook["include_tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| match t {
            Value::String(s) if s.contains(['*', '?']) => Tool::Glob(s.clone()),
            Value::String(s) => Tool::Exact(s.clone()),
            other => Tool::Regex(
                other["regex"]
                    .as_str()
                    .expect("a tool pattern is a name or a regex")
                    .to_owned(),
            ),
        })
        .collect();
    Rule {
        id: hook["id"].as_str().expect("a hook has an id").to_owned(),
        tools,
        when: hook.get("when").map(when),
        reason: hook
            .pointer("/block/reason")
            .and_then(Value::as_str)
            .expect("a hook blocks with a reason")
            .to_owned(),
    }
}

fn when(value: &Value) -> When {
    let list = |items: &Value| {
        items
            .as_array()
            .expect("`all` / `any` hold a list")
            .iter()
            .map(when)
            .collect()
    };
    if let Some(items) = value.get("all") {
        return When::All(list(items));
    }
    if let Some(items) = value.get("any") {
        return When::Any(list(items));
    }
    if let Some(inner) = value.get("not") {
        return When::Not(Box::new(when(inner)));
    }
    let pointer = value["pointer"]
        .as_str()
        .expect("a leaf has a pointer")
        .to_owned();
    match (value.get("matches"), value.get("glob")) {
        (Some(Value::String(regex)), None) => When::Matches {
            pointer,
            regex: regex.clone(),
        },
        (None, Some(Value::String(glob))) => When::Glob {
            pointer,
            glob: glob.clone(),
        },
        _ => panic!("the peers know `matches` and `glob` leaves only: {value}"),
    }
}

/// A glob as a regex body without anchors (`*` and `?`, the rest literal).
pub(crate) fn glob_body(glob: &str) -> String {
    let mut out = String::new();
    for c in glob.chars() {
        match c {
            '*' => out.push_str(".*"),
            '?' => out.push('.'),
            c => out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4]))),
        }
    }
    out
}

/// The decision of a peer: `None` lets the call through, `Some(reason)`
/// blocks it.
pub(crate) type Decision = Option<String>;
