//! Reading a settings file: the values from `serde_json` (the authority on
//! what is valid JSON), and where each node sits plus the order of each
//! object's keys from `serde-saphyr`'s spans (JSON is YAML 1.2, so its YAML
//! parser walks the same text).

use std::collections::HashMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use serde_saphyr::{DuplicateKeyPolicy, Options, Spanned};

use super::ImportError;

/// The line of every node of a JSON text, by the path warnings name it with
/// (`hooks.PreToolUse[0].hooks[1].timeout`): an object member is on its
/// key's line, an array element on the line where it starts. A key repeated
/// in one object keeps its last position, as serde_json keeps its last value.
/// Also the order in which each object's keys are written.
#[derive(Debug, Default)]
pub(super) struct SourceLines {
    lines: HashMap<String, usize>,
    keys: HashMap<String, Vec<String>>,
}

impl SourceLines {
    /// The 1-based line of the node at `path`, if known.
    pub(super) fn get(&self, path: &str) -> Option<usize> {
        self.lines.get(path).copied()
    }

    /// The keys of `object` (the object at `path`) in file order, each once;
    /// in serde_json's (sorted) order when positions are unknown.
    pub(super) fn keys<'a>(&self, path: &str, object: &'a Map<String, Value>) -> Vec<&'a str> {
        let mut out: Vec<&'a str> = Vec::with_capacity(object.len());
        for key in self.keys.get(path).into_iter().flatten() {
            if let Some((k, _)) = object.get_key_value(key)
                && !out.contains(&k.as_str())
            {
                out.push(k);
            }
        }
        for k in object.keys() {
            if !out.contains(&k.as_str()) {
                out.push(k);
            }
        }
        out
    }

    fn record(&mut self, node: &Spanned<Node>, path: &str) {
        match &node.value {
            Node::Scalar => {}
            Node::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    let child = format!("{path}[{i}]");
                    self.lines.insert(child.clone(), line(item));
                    self.record(item, &child);
                }
            }
            Node::Map(entries) => {
                let mut keys = Vec::with_capacity(entries.len());
                for (key, value) in entries {
                    let child = if path.is_empty() {
                        key.value.clone()
                    } else {
                        format!("{path}.{}", key.value)
                    };
                    self.lines.insert(child.clone(), line(key));
                    keys.push(key.value.clone());
                    self.record(value, &child);
                }
                self.keys.insert(path.to_owned(), keys);
            }
        }
    }
}

fn line<T>(node: &Spanned<T>) -> usize {
    usize::try_from(node.referenced.line())
        .unwrap_or(usize::MAX)
        .max(1)
}

/// Parses `source` as JSON and indexes where its nodes are.
///
/// # Errors
///
/// [`ImportError::InvalidJson`] when serde_json rejects the text.
pub(super) fn parse(source: &str) -> Result<(Value, SourceLines), ImportError> {
    let value: Value = serde_json::from_str(source).map_err(|e| ImportError::InvalidJson {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let mut options = Options::default();
    // JSON allows repeated keys (serde_json keeps the last value).
    options.duplicate_keys = DuplicateKeyPolicy::PassThrough;
    options.emit_comments = false;
    let mut lines = SourceLines::default();
    // Positions only help the reader: JSON YAML would not read (none known)
    // leaves every warning unlocated and the keys in serde_json's order.
    if let Ok(tree) = serde_saphyr::from_str_with_options::<Spanned<Node>>(source, options) {
        lines.record(&tree, "");
    }
    Ok((value, lines))
}

/// The shape of a JSON document, with the place of every node and key.
enum Node {
    Scalar,
    Seq(Vec<Spanned<Node>>),
    Map(Vec<(Spanned<String>, Spanned<Node>)>),
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
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_i128<E>(self, _: i128) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_u128<E>(self, _: u128) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_str<E>(self, _: &str) -> Result<Node, E> {
        Ok(Node::Scalar)
    }
    fn visit_bytes<E>(self, _: &[u8]) -> Result<Node, E> {
        Ok(Node::Scalar)
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
        // serde_json has accepted the text: every key is a quoted string.
        while let Some(key) = map.next_key::<Spanned<String>>()? {
            let value = map.next_value::<Spanned<Node>>()?;
            entries.push((key, value));
        }
        Ok(Node::Map(entries))
    }
}
