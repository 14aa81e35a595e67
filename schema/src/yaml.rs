//! Layer 1: YAML syntax. Parses a document into a `serde_json::Value` plus a
//! position index mapping every JSON pointer to the line and column of its
//! key and its value, so later layers can locate their findings.

use std::collections::HashMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::{Budget, DuplicateKeyPolicy, MergeKeyPolicy, Options, Spanned};

use crate::diagnostic::{Diagnostic, Layer};

/// Largest config accepted, in bytes (1 MiB). A 1,000-hook config is about
/// 200 KiB; anything far beyond is a mistake or an attack and is refused
/// before parsing.
pub const MAX_CONFIG_BYTES: usize = 1024 * 1024;
/// Deepest nesting of mappings and sequences accepted.
pub const MAX_DEPTH: usize = 32;
/// Most alias (`*name`) uses accepted in one config.
pub const MAX_ALIASES: usize = 100;
/// Most events replayed through aliases in one config (alias bomb guard).
pub const MAX_ALIAS_REPLAY_EVENTS: usize = 10_000;

/// Where in an entry a diagnostic points: its key or its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// The entry's key.
    Key,
    /// The entry's value.
    Value,
}

/// A 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub(crate) struct Pos {
    pub(crate) line: usize,
    pub(crate) column: usize,
}

impl Pos {
    fn from_saphyr(loc: serde_saphyr::Location) -> Pos {
        Pos {
            line: usize::try_from(loc.line()).unwrap_or(usize::MAX).max(1),
            column: usize::try_from(loc.column()).unwrap_or(usize::MAX).max(1),
        }
    }
}

/// Where the node at a JSON pointer sits in the source.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Place {
    /// The mapping key naming this node, if it is a mapping entry.
    pub(crate) key: Option<Pos>,
    /// The node itself.
    pub(crate) value: Pos,
}

/// JSON pointer (RFC 6901) -> source place, for every node of a document.
#[derive(Debug, Default)]
pub(crate) struct Positions {
    map: HashMap<String, Place>,
}

impl Positions {
    /// The place of the node at `pointer`, or of its nearest ancestor.
    pub(crate) fn place(&self, pointer: &str) -> Place {
        let mut p = pointer;
        loop {
            if let Some(place) = self.map.get(p) {
                return *place;
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => return Place::default(),
            }
        }
    }

    /// Position of the key at `pointer` if it is a mapping entry, else of the value.
    pub(crate) fn key_pos(&self, pointer: &str) -> Pos {
        let place = self.place(pointer);
        place.key.unwrap_or(place.value)
    }

    /// Position of the value at `pointer` (or its nearest ancestor).
    pub(crate) fn value_pos(&self, pointer: &str) -> Pos {
        self.place(pointer).value
    }

    /// An error of `layer` in `file` at what `pointer` names: its value, or
    /// its key (`policy:` rather than the mapping under it).
    pub(crate) fn error_at(
        &self,
        file: &str,
        pointer: &str,
        anchor: Anchor,
        layer: Layer,
        code: &str,
        message: String,
    ) -> Diagnostic {
        let pos = match anchor {
            Anchor::Value => self.value_pos(pointer),
            Anchor::Key => self.key_pos(pointer),
        };
        Diagnostic::new(file, pos.line, pos.column, pointer, layer, code, message)
    }
}

/// A YAML node with the places of its children.
enum Node {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Spanned<Node>>),
    Map(Vec<(Spanned<Node>, Spanned<Node>)>),
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Node, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::UInt(v))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Node, E> {
        i64::try_from(v)
            .map(Node::Int)
            .map_err(|_| E::custom("integer out of range"))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Node, E> {
        u64::try_from(v)
            .map(Node::UInt)
            .map_err(|_| E::custom("integer out of range"))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }
    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<Node, E> {
        Err(E::custom("binary values are not supported in hook configs"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<Node>>()? {
            items.push(item);
        }
        Ok(Node::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<Node>>()? {
            let value = map.next_value::<Spanned<Node>>()?;
            entries.push((key, value));
        }
        Ok(Node::Map(entries))
    }
}

fn options() -> Options {
    let mut budget = Budget::default();
    budget.max_depth = MAX_DEPTH;
    budget.max_aliases = MAX_ALIASES;
    budget.max_anchors = 1_000;
    budget.max_documents = 1;
    budget.max_nodes = 200_000;
    budget.max_events = 500_000;
    budget.max_total_scalar_bytes = MAX_CONFIG_BYTES * 2;
    budget.max_recorded_anchor_events = MAX_ALIAS_REPLAY_EVENTS;
    let mut alias_limits = serde_saphyr::options::AliasLimits::default();
    alias_limits.max_total_replayed_events = MAX_ALIAS_REPLAY_EVENTS;
    alias_limits.max_replay_stack_depth = 8;
    let mut opts = Options::default();
    opts.budget = Some(budget);
    opts.duplicate_keys = DuplicateKeyPolicy::Error;
    opts.merge_keys = MergeKeyPolicy::Error;
    opts.alias_limits = alias_limits;
    opts.strict_booleans = true;
    opts.emit_comments = false;
    opts
}

/// Parses `source` (layer 1).
///
/// # Errors
///
/// One syntax [`Diagnostic`] when the text is not a single well-formed YAML
/// document within the budgets ([`MAX_CONFIG_BYTES`], [`MAX_DEPTH`],
/// [`MAX_ALIASES`], [`MAX_ALIAS_REPLAY_EVENTS`]), or is empty.
pub(crate) fn parse(source: &str, file: &str) -> Result<(Value, Positions), Box<Diagnostic>> {
    let syntax = |pos: Pos, code: &'static str, message: String, hint: Option<String>| {
        Box::new(
            Diagnostic::new(file, pos.line, pos.column, "", Layer::Syntax, code, message)
                .with_hint_opt(hint),
        )
    };
    if source.len() > MAX_CONFIG_BYTES {
        return Err(syntax(
            Pos { line: 1, column: 1 },
            "file-too-large",
            format!(
                "config is too large: {} bytes, the limit is {} bytes (1 MiB)",
                source.len(),
                MAX_CONFIG_BYTES
            ),
            Some("split the hooks across several configs".to_owned()),
        ));
    }
    if source
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        return Err(syntax(
            Pos { line: 1, column: 1 },
            "empty-config",
            "empty config, expected `version: 1` and `hooks`".to_owned(),
            Some("start with `version: 1` followed by a `hooks:` list".to_owned()),
        ));
    }
    let node: Spanned<Node> = match serde_saphyr::from_str_with_options(source, options()) {
        Ok(node) => node,
        Err(err) => {
            let pos = err
                .location()
                .map(Pos::from_saphyr)
                .unwrap_or(Pos { line: 1, column: 1 });
            // A tab in the indentation at or before the failure is the
            // likely cause; say so rather than echo the parser's confusion.
            // (Tabs inside flow collections and block scalars are legal.)
            // When the parser itself complains about a tab, it may locate the
            // complaint on the line before the tab (while scanning a plain
            // scalar that could continue onto the tab's line): point at the
            // tab all the same.
            let parser_saw_tab = err
                .without_snippet()
                .to_string()
                .to_lowercase()
                .contains("tab");
            if let Some((line, column)) =
                tab_indentation(source).filter(|(l, _)| *l <= pos.line || parser_saw_tab)
            {
                return Err(syntax(
                    Pos { line, column },
                    "tab-indentation",
                    "tab character used for indentation".to_owned(),
                    Some("YAML indentation must use spaces".to_owned()),
                ));
            }
            let (code, message, hint) = describe_yaml_error(&err);
            return Err(syntax(pos, code, message, hint));
        }
    };
    let mut positions = Positions::default();
    let value = convert(node, String::new(), None, &mut positions, file)?;
    Ok((value, positions))
}

/// The first line indented with a tab (before any non-blank character), if any.
/// Tabs inside block scalars and after content are left to the YAML parser.
fn tab_indentation(source: &str) -> Option<(usize, usize)> {
    let mut in_block_scalar: Option<usize> = None;
    for (i, line) in source.lines().enumerate() {
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        let content = &line[indent..];
        if let Some(block_indent) = in_block_scalar {
            let spaces = line.len() - line.trim_start_matches(' ').len();
            if content.is_empty() || spaces > block_indent {
                continue;
            }
            in_block_scalar = None;
        }
        if line[..indent].contains('\t') && !content.is_empty() {
            let col = line.find('\t').unwrap_or(0) + 1;
            return Some((i + 1, col));
        }
        let trimmed = content.trim_end();
        let without_comment = trimmed.split(" #").next().unwrap_or(trimmed);
        if without_comment.ends_with('|')
            || without_comment.ends_with('>')
            || without_comment.ends_with("|-")
            || without_comment.ends_with(">-")
            || without_comment.ends_with("|+")
            || without_comment.ends_with(">+")
        {
            in_block_scalar = Some(line.len() - line.trim_start_matches(' ').len());
        }
    }
    None
}

fn describe_yaml_error(err: &serde_saphyr::Error) -> (&'static str, String, Option<String>) {
    let text = err.without_snippet().to_string();
    // The first line holds the message; saphyr appends its own location.
    let first = text.lines().next().unwrap_or("").trim();
    let message = strip_location(first);
    let lower = message.to_lowercase();
    if let Some(rest) = message.strip_prefix("duplicate mapping key: ") {
        let key = rest.split(',').next().unwrap_or(rest).trim();
        (
            "duplicate-key",
            format!("duplicate key `{key}`"),
            Some("every key may appear once per mapping; remove one of them".to_owned()),
        )
    } else if lower.contains("duplicate") {
        (
            "duplicate-key",
            "duplicate mapping key".to_owned(),
            Some("every key may appear once per mapping; remove one of them".to_owned()),
        )
    } else if lower.contains("budget breached") {
        describe_budget_breach(&message)
    } else if lower.contains("alias") || lower.contains("replay") {
        (
            "alias-budget",
            format!(
                "YAML aliases expand beyond the budget of {MAX_ALIAS_REPLAY_EVENTS} replayed events"
            ),
            Some("this looks like an alias bomb; write the values out".to_owned()),
        )
    } else if lower.contains("merge key") {
        (
            "merge-key",
            "YAML merge keys (`<<`) are not supported in hook configs".to_owned(),
            Some("write the keys out in each hook".to_owned()),
        )
    } else if lower.contains("tab") {
        (
            "tab-indentation",
            lowercase_first(&message),
            Some("YAML indentation must use spaces".to_owned()),
        )
    } else {
        ("yaml-syntax", lowercase_first(&message), None)
    }
}

fn describe_budget_breach(message: &str) -> (&'static str, String, Option<String>) {
    let alias_hint = Some("this looks like an alias bomb; write the values out".to_owned());
    if message.contains("Depth") {
        (
            "too-deep",
            format!("YAML nesting is deeper than {MAX_DEPTH} levels"),
            None,
        )
    } else if message.contains("Documents") {
        (
            "multiple-documents",
            "a config is a single YAML document, found a second one".to_owned(),
            Some("remove the `---` separator and merge the documents".to_owned()),
        )
    } else if message.contains("Aliases") || message.contains("AliasAnchorRatio") {
        (
            "alias-budget",
            format!("YAML uses more than {MAX_ALIASES} aliases or too many per anchor"),
            alias_hint,
        )
    } else if message.contains("Anchor") || message.contains("Replay") {
        (
            "alias-budget",
            format!(
                "YAML aliases expand beyond the budget of {MAX_ALIAS_REPLAY_EVENTS} replayed events"
            ),
            alias_hint,
        )
    } else {
        let what = message
            .split("budget breached:")
            .nth(1)
            .unwrap_or(message)
            .split(['{', '('])
            .next()
            .unwrap_or("")
            .trim()
            .to_owned();
        (
            "yaml-budget",
            format!("YAML exceeds the parser budget (`{what}`)"),
            Some(format!(
                "hook configs are limited to {MAX_CONFIG_BYTES} bytes and modest structure"
            )),
        )
    }
}

fn strip_location(message: &str) -> String {
    let m = message.trim_end_matches('.');
    // saphyr's plain messages end with " at line L, column C".
    match m.rfind(" at line ") {
        Some(i) => m[..i].trim_end_matches(['.', ',']).to_owned(),
        None => m.to_owned(),
    }
}

fn lowercase_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => {
            // Keep acronyms such as `YAML` intact.
            let second_upper = s.chars().nth(1).is_some_and(char::is_uppercase);
            if second_upper {
                s.to_owned()
            } else {
                c.to_lowercase().chain(chars).collect()
            }
        }
        None => String::new(),
    }
}

fn key_text(key: &Node) -> Option<String> {
    match key {
        Node::Str(s) => Some(s.clone()),
        Node::Bool(b) => Some(b.to_string()),
        Node::Int(i) => Some(i.to_string()),
        Node::UInt(u) => Some(u.to_string()),
        Node::Float(f) => Some(f.to_string()),
        Node::Null => Some("null".to_owned()),
        Node::Seq(_) | Node::Map(_) => None,
    }
}

fn convert(
    node: Spanned<Node>,
    pointer: String,
    key: Option<Pos>,
    positions: &mut Positions,
    file: &str,
) -> Result<Value, Box<Diagnostic>> {
    let pos = Pos::from_saphyr(node.referenced);
    positions
        .map
        .insert(pointer.clone(), Place { key, value: pos });
    Ok(match node.value {
        Node::Null => Value::Null,
        Node::Bool(b) => Value::Bool(b),
        Node::Int(i) => Value::Number(i.into()),
        Node::UInt(u) => Value::Number(u.into()),
        // An integral float (`1.0`) is an integer to JSON Schema; make it
        // one for every later layer so they all agree.
        Node::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 =>
        {
            #[allow(
                clippy::cast_possible_truncation,
                reason = "integral and within i64 range"
            )]
            Value::Number((f as i64).into())
        }
        Node::Float(f) => Number::from_f64(f).map_or(Value::Null, Value::Number),
        Node::Str(s) => Value::String(s),
        Node::Seq(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                out.push(convert(
                    item,
                    format!("{pointer}/{i}"),
                    None,
                    positions,
                    file,
                )?);
            }
            Value::Array(out)
        }
        Node::Map(entries) => {
            let mut out = Map::new();
            for (k, v) in entries {
                let kpos = Pos::from_saphyr(k.referenced);
                let Some(name) = key_text(&k.value) else {
                    return Err(Box::new(Diagnostic::new(
                        file,
                        kpos.line,
                        kpos.column,
                        &pointer,
                        Layer::Syntax,
                        "complex-key",
                        "mapping keys must be plain scalars".to_owned(),
                    )));
                };
                let child = format!("{pointer}/{}", crate::automata::escape_token(&name));
                let value = convert(v, child, Some(kpos), positions, file)?;
                out.insert(name, value);
            }
            Value::Object(out)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_of_keys_and_values() {
        let src = "version: 1\nhooks:\n  - id: a\n    phase: before_tool\n";
        let (value, pos) = parse(src, "t.yaml").unwrap();
        assert_eq!(value["hooks"][0]["phase"], "before_tool");
        let place = pos.place("/hooks/0/phase");
        assert_eq!(place.key, Some(Pos { line: 4, column: 5 }));
        assert_eq!(
            place.value,
            Pos {
                line: 4,
                column: 12
            }
        );
        assert_eq!(pos.value_pos("/hooks/0"), Pos { line: 3, column: 5 });
        // A pointer below a scalar falls back to the nearest ancestor.
        assert_eq!(pos.key_pos("/hooks/0/phase/x").line, 4);
    }

    #[test]
    fn duplicate_keys_are_rejected() {
        let err = parse("version: 1\nversion: 1\nhooks: []\n", "t.yaml").unwrap_err();
        assert_eq!(err.code, "duplicate-key");
        assert_eq!(err.line, 2);
    }

    #[test]
    fn tabs_and_empty_files_are_rejected() {
        assert_eq!(parse("", "t").unwrap_err().code, "empty-config");
        assert_eq!(parse("# only\n\n", "t").unwrap_err().code, "empty-config");
        let err = parse("version: 1\nhooks:\n\t- id: a\n", "t").unwrap_err();
        assert_eq!((err.code.as_str(), err.line), ("tab-indentation", 3));
        // A tab inside a block scalar is content, not indentation.
        assert!(tab_indentation("a: |\n  x\n   \ty\nb: 1\n").is_none());
        // The parser reports these while scanning the previous line's plain
        // scalar; the diagnostic still points at the tab.
        for (source, at) in [
            ("version: 1\nhooks:\n  - id: a\n\tphase: stop\n", (4, 1)),
            ("version: 1\n\thooks: []\n", (2, 1)),
            (
                "version: 1\nhooks:\n  - id: a\n    phase: stop\n  \tterminate: {}\n",
                (5, 3),
            ),
        ] {
            let err = parse(source, "t").unwrap_err();
            assert_eq!(
                (err.code.as_str(), err.line, err.column),
                ("tab-indentation", at.0, at.1),
                "{source:?}: {}",
                err.message
            );
        }
    }

    #[test]
    fn escape_follows_rfc6901() {
        assert_eq!(crate::automata::escape_token("a/b~c"), "a~1b~0c");
    }
}
