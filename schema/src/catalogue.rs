//! The tool catalogue: the agent's tools, each with its input JSON Schema
//! and optionally its result schema, against which a config is checked when
//! it is built (see `docs/catalogue.md`).
//!
//! A catalogue comes from the config's `catalogue:` key (inline schemas,
//! paths to JSON Schema files, or a path to a whole catalogue file) or from
//! code ([`Catalogue::with_tool`] over `schemars` types), and is given to a
//! [`Loader`](crate::Loader). [`Catalogue::to_json`] writes the file form a
//! config references, for `hooks!` (a macro cannot see Rust types).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The agent's tools by exact name, each with its schemas.
///
/// ```
/// # use hooks_schema::Catalogue;
/// #[derive(schemars::JsonSchema)]
/// struct BashArgs { command: String, timeout: Option<u32> }
///
/// let catalogue = Catalogue::new().with_tool::<BashArgs>("bash");
/// assert_eq!(catalogue.names().collect::<Vec<_>>(), ["bash"]);
/// let json = catalogue.to_json();
/// assert_eq!(Catalogue::from_json(&json).unwrap(), catalogue);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Catalogue {
    tools: BTreeMap<String, ToolSchemas>,
}

/// A JSON document that is not a tool catalogue ([`Catalogue::from_json`]):
/// not an object of tools, a tool without `input`, or an unknown key.
#[derive(Debug, thiserror::Error)]
#[error("not a tool catalogue: {source}")]
pub struct CatalogueError {
    /// Where and why the document does not have the catalogue's shape.
    #[source]
    source: serde_json::Error,
}

/// One tool's schemas, as JSON Schema documents (draft 2020-12 unless they
/// say otherwise with `$schema`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolSchemas {
    /// The schema of the tool's arguments (`before_tool` pointers address them).
    pub input: Value,
    /// The schema of the tool's result (`after_tool` pointers address it), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
}

impl Catalogue {
    /// An empty catalogue.
    pub fn new() -> Catalogue {
        Catalogue::default()
    }

    /// Adds tool `name` whose arguments are `Args`, with the schema
    /// `schemars` generates for it (replacing an earlier tool of that name).
    #[must_use]
    pub fn with_tool<Args: JsonSchema>(self, name: &str) -> Catalogue {
        self.with_schemas(name, schema_value::<Args>(), None)
    }

    /// Adds tool `name` whose arguments are `Args` and whose result is `Res`.
    #[must_use]
    pub fn with_tool_result<Args: JsonSchema, Res: JsonSchema>(self, name: &str) -> Catalogue {
        self.with_schemas(name, schema_value::<Args>(), Some(schema_value::<Res>()))
    }

    /// Adds tool `name` with these JSON Schema documents (e.g. a tool
    /// definition's `parameters`).
    #[must_use]
    pub fn with_schemas(mut self, name: &str, input: Value, result: Option<Value>) -> Catalogue {
        self.tools
            .insert(name.to_owned(), ToolSchemas { input, result });
        self
    }

    /// The catalogue of a JSON document `{"NAME": {"input": SCHEMA,
    /// "result": SCHEMA}, ...}` (what [`Catalogue::to_json`] writes).
    ///
    /// # Errors
    ///
    /// [`CatalogueError`] when the document does not have that shape.
    pub fn from_json(value: &Value) -> Result<Catalogue, CatalogueError> {
        serde_json::from_value(value.clone()).map_err(|source| CatalogueError { source })
    }

    /// The catalogue as the JSON document a config's `catalogue:` key may
    /// name (a build step writes it for `hooks!`).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The tool names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// The schemas of tool `name`.
    pub fn get(&self, name: &str) -> Option<&ToolSchemas> {
        self.tools.get(name)
    }

    /// Whether the catalogue has no tool.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The config schema ([`config_schema`](crate::config_schema)) for
    /// editors of configs of this agent: tool-name fields offer the
    /// catalogue's names (`include_tools` / `exclude_tools` as examples,
    /// since globs stay allowed; `active_tools` and `tool_choice` as an
    /// `enum`), and `when` / `rewrite` pointers offer every pointer the
    /// tools' schemas declare. JSON Schema cannot tie a pointer to the
    /// hook's tools, so every tool's pointers are offered everywhere.
    pub fn config_schema(&self) -> Value {
        let mut schema = crate::config_schema();
        let names: Vec<Value> = self.names().map(|n| Value::String(n.to_owned())).collect();
        let mut all_pointers: Vec<String> = Vec::new();
        for tool in self.tools.values() {
            for root in std::iter::once(&tool.input).chain(&tool.result) {
                for p in pointers(root) {
                    if !all_pointers.contains(&p) {
                        all_pointers.push(p);
                    }
                }
            }
        }
        all_pointers.sort();
        let pointer_values: Vec<Value> = all_pointers.into_iter().map(Value::String).collect();
        if let Value::Object(root) = &mut schema {
            root.insert(
                "$id".to_owned(),
                Value::String(
                    crate::CONFIG_SCHEMA_ID.replace(".schema.json", "-with-tools.schema.json"),
                ),
            );
        }
        let defs = &mut schema["$defs"];
        if let Some(branches) = defs["ToolPattern"]["anyOf"].as_array_mut() {
            for branch in branches.iter_mut().filter(|b| b["type"] == "string") {
                branch["examples"] = Value::Array(names.clone());
            }
        }
        defs["RequestPatch"]["properties"]["active_tools"]["items"]["enum"] =
            Value::Array(names.clone());
        defs["SpecificTools"]["properties"]["tools"]["items"]["enum"] = Value::Array(names);
        set_pointer_examples(defs, &Value::Array(pointer_values));
        schema
    }

    /// Adds every tool of `other`; returns the names both had (`other`'s
    /// entry is dropped for those).
    pub(crate) fn absorb(&mut self, other: Catalogue) -> Vec<String> {
        let mut both = Vec::new();
        for (name, tool) in other.tools {
            match self.tools.entry(name) {
                std::collections::btree_map::Entry::Occupied(e) => both.push(e.key().clone()),
                std::collections::btree_map::Entry::Vacant(e) => {
                    e.insert(tool);
                }
            }
        }
        both
    }
}

/// Sets `examples` on every `pointer` property under `node`.
fn set_pointer_examples(node: &mut Value, examples: &Value) {
    match node {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get_mut("properties")
                && let Some(pointer) = props.get_mut("pointer")
            {
                pointer["examples"] = examples.clone();
            }
            for child in map.values_mut() {
                set_pointer_examples(child, examples);
            }
        }
        Value::Array(items) => {
            for child in items {
                set_pointer_examples(child, examples);
            }
        }
        _ => {}
    }
}

/// The schema `schemars` generates for `T`, as JSON.
fn schema_value<T: JsonSchema>() -> Value {
    schemars::schema_for!(T).to_value()
}

/// The config's `catalogue:` key: a path to a catalogue file, or the tools inline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CatalogueSource {
    /// A path (relative to the config's directory) to a JSON catalogue file
    /// `{"NAME": {"input": SCHEMA, "result": SCHEMA}}`.
    File(String),
    /// The tools, by exact name.
    Tools(BTreeMap<String, ToolEntry>),
}

/// One tool of an inline catalogue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolEntry {
    /// The JSON Schema of the tool's arguments: inline, or a path to a JSON
    /// Schema file relative to the config's directory.
    pub input: SchemaSource,
    /// The JSON Schema of the tool's result (checked by `after_tool` hooks),
    /// inline or a path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<SchemaSource>,
}

/// A JSON Schema written inline or named by a path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SchemaSource {
    /// A path to a JSON Schema file, relative to the config's directory.
    File(String),
    /// The schema itself (a mapping, or `true`/`false`).
    Inline(Value),
}

impl JsonSchema for CatalogueSource {
    fn schema_name() -> Cow<'static, str> {
        "Catalogue".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let entry = generator.subschema_for::<ToolEntry>();
        json_schema!({
            "description": "The agent's tools, checked against when the config is built: a mapping from exact tool name to its schemas, or a path (relative to this file) to a JSON catalogue file of that shape.",
            "anyOf": [
                {"type": "string", "minLength": 1, "examples": ["tools.catalogue.json"]},
                {"type": "object", "additionalProperties": entry}
            ]
        })
    }
}

impl JsonSchema for SchemaSource {
    fn schema_name() -> Cow<'static, str> {
        "SchemaSource".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A JSON Schema inline, or a path (relative to this file) to a JSON Schema file.",
            "anyOf": [
                {"type": "string", "minLength": 1, "examples": ["schemas/bash.input.json"]},
                {"type": ["object", "boolean"]}
            ]
        })
    }
}

/// A catalogue problem located at a config pointer.
pub(crate) struct SourceError {
    pub(crate) pointer: String,
    pub(crate) code: &'static str,
    pub(crate) message: String,
}

impl CatalogueSource {
    /// Reads every file this source names, relative to `base_dir`, and
    /// builds the catalogue; `read` receives each path read (also on error,
    /// so a build that depends on the files reruns when they change).
    pub(crate) fn resolve(
        &self,
        base_dir: &Path,
        read: &mut Vec<PathBuf>,
    ) -> Result<Catalogue, Vec<SourceError>> {
        let (tools, dir) = match self {
            CatalogueSource::Tools(tools) => (Cow::Borrowed(tools), base_dir.to_owned()),
            CatalogueSource::File(path) => {
                let value = read_json(base_dir, path, "/catalogue", read).map_err(|e| vec![e])?;
                let tools = serde_json::from_value(value).map_err(|e| {
                    vec![SourceError {
                        pointer: "/catalogue".to_owned(),
                        code: "invalid-catalogue",
                        message: format!("`{path}` is not a tool catalogue: {e}"),
                    }]
                })?;
                let file = base_dir.join(path);
                let dir = file.parent().unwrap_or(base_dir).to_owned();
                (Cow::Owned(tools), dir)
            }
        };
        let mut catalogue = Catalogue::new();
        let mut errors = Vec::new();
        for (name, entry) in tools.iter() {
            let at = format!("/catalogue/{}", hooks_plan::automata::escape_token(name));
            let mut schema = |source: &SchemaSource, key: &str| {
                let pointer = format!("{at}/{key}");
                let value = match source {
                    SchemaSource::Inline(v) => v.clone(),
                    SchemaSource::File(path) => read_json(&dir, path, &pointer, read)?,
                };
                // Without `rewrite-check` a catalogue is refused as a whole
                // (`features::missing`); its schemas are not compiled.
                #[cfg(feature = "rewrite-check")]
                if let Err(e) = jsonschema::validator_for(&value) {
                    return Err(SourceError {
                        pointer,
                        code: "invalid-tool-schema",
                        message: format!(
                            "the {key} schema of tool `{name}` is not a valid JSON Schema: {}",
                            lowercase_first(&e.to_string())
                        ),
                    });
                }
                Ok(value)
            };
            let input = schema(&entry.input, "input");
            let result = entry
                .result
                .as_ref()
                .map(|r| schema(r, "result"))
                .transpose();
            match (input, result) {
                (Ok(input), Ok(result)) => {
                    catalogue = catalogue.with_schemas(name, input, result);
                }
                (input, result) => errors.extend(input.err().into_iter().chain(result.err())),
            }
        }
        if errors.is_empty() {
            Ok(catalogue)
        } else {
            Err(errors)
        }
    }
}

/// Reads the JSON file `path` (relative to `dir`), naming it at `pointer` on error.
fn read_json(
    dir: &Path,
    path: &str,
    pointer: &str,
    read: &mut Vec<PathBuf>,
) -> Result<Value, SourceError> {
    let error = |code, message| SourceError {
        pointer: pointer.to_owned(),
        code,
        message,
    };
    if Path::new(path).is_absolute() {
        return Err(error(
            "absolute-path",
            format!("absolute schema path `{path}`, expected a path relative to the config"),
        ));
    }
    let full = dir.join(path);
    read.push(full.clone());
    let text = std::fs::read_to_string(&full).map_err(|e| {
        error(
            "io",
            format!("cannot read `{path}`: {}", lowercase_first(&e.to_string())),
        )
    })?;
    serde_json::from_str(&text)
        .map_err(|e| error("invalid-json", format!("`{path}` is not JSON: {e}")))
}

fn lowercase_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Where a JSON pointer can lead in a JSON Schema: the sub-schemas that all
/// apply to the value there, or `None` when no value the schema accepts
/// has that pointer. Lenient where JSON Schema is hard to decide
/// (`patternProperties`, `anyOf` branches, remote `$ref`s count as "may
/// contain anything"), so a `None` is always a real error.
pub(crate) fn reach<'s>(root: &'s Value, tokens: &[String]) -> Option<Vec<&'s Value>> {
    let mut here = vec![root];
    for token in tokens {
        let mut next = Vec::new();
        for schema in here {
            next.extend(step(root, schema, token, 0)?);
        }
        here = next;
    }
    Some(here)
}

static TRUE: Value = Value::Bool(true);

/// The local `$ref` target of `schema`, followed a bounded number of times.
fn deref<'s>(root: &'s Value, mut schema: &'s Value) -> &'s Value {
    for _ in 0..16 {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(r) if r.starts_with('#') => match root.pointer(&r[1..]) {
                Some(target) => schema = target,
                None => return &TRUE,
            },
            Some(_) => return &TRUE,
            None => return schema,
        }
    }
    &TRUE
}

/// The sub-schemas that apply at child `token` of a value `schema`
/// accepts; `None` when no such value can have that child.
fn step<'s>(root: &'s Value, schema: &'s Value, token: &str, depth: u8) -> Option<Vec<&'s Value>> {
    if depth > 16 {
        return Some(vec![&TRUE]);
    }
    let schema = deref(root, schema);
    let map = match schema {
        Value::Bool(true) => return Some(vec![&TRUE]),
        Value::Object(map) => map,
        _ => return None,
    };
    let mut out = Vec::new();
    // allOf: every branch applies.
    if let Some(all) = map.get("allOf").and_then(Value::as_array) {
        for branch in all {
            out.extend(step(root, branch, token, depth + 1)?);
        }
    }
    // anyOf / oneOf: some branch must allow the child; do not constrain further.
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = map.get(key).and_then(Value::as_array)
            && !branches
                .iter()
                .any(|b| step(root, b, token, depth + 1).is_some())
        {
            return None;
        }
    }
    let types = allowed_types(map);
    let may = |t: &str| types.as_ref().is_none_or(|ts| ts.contains(&t));
    let mut own: Option<&Value> = None;
    let mut found = false;
    if may("object") {
        if let Some(p) = map.get("properties").and_then(|p| p.get(token)) {
            own = Some(p);
            found = true;
        } else if map.contains_key("patternProperties") {
            own = Some(&TRUE);
            found = true;
        } else {
            match map.get("additionalProperties") {
                Some(Value::Bool(false)) => {}
                Some(extra) => {
                    own = Some(extra);
                    found = true;
                }
                None => {
                    own = Some(&TRUE);
                    found = true;
                }
            }
        }
    }
    if !found && may("array") && array_token(token) {
        let index: Option<usize> = token.parse().ok();
        let prefix = map.get("prefixItems").and_then(Value::as_array);
        match (prefix, index) {
            (Some(items), Some(i)) if i < items.len() => own = items.get(i),
            _ => {
                own = match map.get("items") {
                    Some(Value::Bool(false)) => None,
                    Some(items) => Some(items),
                    None => Some(&TRUE),
                }
            }
        }
        found = own.is_some();
    }
    if !found {
        return None;
    }
    out.extend(own);
    Some(out)
}

/// Whether `token` may address an array element (an index or `-`).
fn array_token(token: &str) -> bool {
    token == "-"
        || (!token.is_empty()
            && token.bytes().all(|b| b.is_ascii_digit())
            && (token == "0" || !token.starts_with('0')))
}

/// The `type` keyword's values, `None` when absent.
fn allowed_types(map: &serde_json::Map<String, Value>) -> Option<Vec<&str>> {
    match map.get("type")? {
        Value::String(t) => Some(vec![t.as_str()]),
        Value::Array(ts) => Some(ts.iter().filter_map(Value::as_str).collect()),
        _ => None,
    }
}

/// Whether a string may be valid against `schema` (its `type` allows one).
pub(crate) fn may_be_string(root: &Value, schema: &Value) -> bool {
    match deref(root, schema) {
        Value::Object(map) => allowed_types(map).is_none_or(|ts| ts.contains(&"string")),
        other => other != &Value::Bool(false),
    }
}

/// `schema` as a document of its own: `root`'s definitions copied in so
/// local `$ref`s resolve.
#[cfg(feature = "rewrite-check")]
pub(crate) fn standalone(root: &Value, schema: &Value) -> Value {
    let mut out = schema.clone();
    if let Value::Object(map) = &mut out {
        for key in ["$defs", "definitions"] {
            if let Some(defs) = root.get(key)
                && !map.contains_key(key)
            {
                map.insert(key.to_owned(), defs.clone());
            }
        }
    }
    out
}

/// The pointers a value `root` accepts may have, breadth first, up to a
/// few levels deep (the candidates of "did you mean" and of editor hints).
pub(crate) fn pointers(root: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut frontier: Vec<(String, &Value)> = vec![(String::new(), root)];
    for _ in 0..4 {
        let mut next = Vec::new();
        for (at, schema) in frontier {
            let schema = deref(root, schema);
            let branches = ["allOf", "anyOf", "oneOf"]
                .iter()
                .filter_map(|k| schema.get(k).and_then(Value::as_array))
                .flatten();
            for branch in branches {
                next.push((at.clone(), branch));
            }
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (key, sub) in props {
                    let p = format!("{at}/{}", hooks_plan::automata::escape_token(key));
                    if !out.contains(&p) && out.len() < 256 {
                        out.push(p.clone());
                    }
                    next.push((p, sub));
                }
            }
        }
        frontier = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tokens(p: &str) -> Vec<String> {
        hooks_plan::automata::pointer_tokens(p).unwrap_or_default()
    }

    #[test]
    fn the_editor_schema_offers_the_tools_and_their_pointers() {
        let catalogue = Catalogue::new().with_schemas(
            "bash",
            json!({"type": "object", "properties": {"command": {"type": "string"}}}),
            Some(json!({"type": "object", "properties": {"output": {"type": "string"}}})),
        );
        let schema = catalogue.config_schema();
        let defs = &schema["$defs"];
        assert_eq!(defs["ToolPattern"]["anyOf"][0]["examples"], json!(["bash"]));
        assert_eq!(
            defs["RequestPatch"]["properties"]["active_tools"]["items"]["enum"],
            json!(["bash"])
        );
        assert_eq!(
            defs["RewriteOp"]["oneOf"][0]["properties"]["pointer"]["examples"],
            json!(["/command", "/output"])
        );
        let validator = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{e}"));
        let config = json!({"version": 1, "hooks": [{"id": "a", "phase": "before_completion", "patch": {"active_tools": ["bsah"]}}]});
        assert!(
            !validator.is_valid(&config),
            "an unknown active tool is flagged in the editor"
        );
    }

    #[test]
    fn a_document_of_another_shape_is_not_a_catalogue() {
        let err = Catalogue::from_json(&json!({"bash": {"inptu": {}}})).unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("not a tool catalogue: unknown field `inptu`"),
            "{text}"
        );
        let source = std::error::Error::source(&err).map(ToString::to_string);
        assert!(
            source.is_some_and(|s| text.ends_with(&s)),
            "the serde error is the source: {err:?}"
        );
    }

    #[test]
    fn reach_follows_properties_refs_and_items() {
        let schema = json!({
            "type": "object",
            "properties": {
                "command": {"type": "string"},
                "env": {"type": "object", "additionalProperties": {"type": "string"}},
                "files": {"type": "array", "items": {"$ref": "#/$defs/File"}}
            },
            "additionalProperties": false,
            "$defs": {"File": {"type": "object", "properties": {"path": {"type": "string"}}, "additionalProperties": false}}
        });
        assert!(reach(&schema, &tokens("/command")).is_some());
        assert!(reach(&schema, &tokens("/comand")).is_none());
        assert!(reach(&schema, &tokens("/command/x")).is_none());
        assert!(reach(&schema, &tokens("/env/TOKEN")).is_some());
        assert!(reach(&schema, &tokens("/files/0/path")).is_some());
        assert!(reach(&schema, &tokens("/files/0/size")).is_none());
        assert!(reach(&schema, &tokens("/files/x")).is_none());
        assert_eq!(pointers(&schema), ["/command", "/env", "/files"]);
        // No `additionalProperties: false`: anything may be there.
        assert!(reach(&json!({"type": "object"}), &tokens("/a/b")).is_some());
    }
}
