//! The keys and enum values the checker accepts, read from the config types
//! instead of restated: struct fields and enum variants as serde's derive
//! declares them (in declaration order, which messages keep), and the
//! `rewrite` steps' shapes and numeric bounds from the generated JSON
//! Schema. A new key or variant is covered without editing the checker.

use std::sync::LazyLock;

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde_json::Value;

use crate::catalogue::ToolEntry;
use crate::config::{
    BuiltinLayer, Config, ConfigMode, Defaults, Env, Grant, HistoryPatch, Hook, Http, HttpProtocol,
    Inject, Limits, Managed, NamedLayer, Policy, Predicate, Reason, RegexPattern, RequestPatch,
    Run, SelectModel, SpecificTools, ToolChoiceMode, ToolSettings,
};
use crate::phase::{FailurePolicy, Mode, OutcomeKind, PayloadMode, Protocol};

/// A deserializer that records the field or variant names serde's derive
/// hands to `deserialize_struct` / `deserialize_enum`, then stops.
struct Introspect<'a>(&'a mut &'static [&'static str]);

impl<'de> Deserializer<'de> for Introspect<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct or an enum"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = fields;
        Err(de::Error::custom("names recorded"))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = variants;
        Err(de::Error::custom("names recorded"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map identifier ignored_any
    }
}

/// The keys of struct `T` (or the values of unit-variant enum `T`), as its
/// serde derive names them, in declaration order.
pub(crate) fn names_of<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut names: &'static [&'static str] = &[];
    let _ = T::deserialize(Introspect(&mut names));
    names
}

/// One step shape of an internally tagged enum (`{op: set, pointer, value}`).
pub(crate) struct Variant {
    /// The tag's value, e.g. `set`.
    pub(crate) tag: String,
    /// The keys the step may have.
    pub(crate) keys: Vec<String>,
    /// The keys the step must have.
    pub(crate) required: Vec<String>,
}

/// What the checker accepts, read once.
pub(crate) struct Vocabulary {
    pub(crate) top: &'static [&'static str],
    pub(crate) defaults: &'static [&'static str],
    pub(crate) limits: &'static [&'static str],
    pub(crate) tool_settings: &'static [&'static str],
    pub(crate) tool_entry: &'static [&'static str],
    pub(crate) hook: &'static [&'static str],
    pub(crate) run: &'static [&'static str],
    pub(crate) http: &'static [&'static str],
    pub(crate) http_protocols: &'static [&'static str],
    pub(crate) policy: &'static [&'static str],
    pub(crate) env: &'static [&'static str],
    pub(crate) patch: &'static [&'static str],
    pub(crate) history: &'static [&'static str],
    pub(crate) specific_tools: &'static [&'static str],
    pub(crate) regex_pattern: &'static [&'static str],
    pub(crate) predicate: &'static [&'static str],
    pub(crate) reason: &'static [&'static str],
    pub(crate) grant: &'static [&'static str],
    pub(crate) inject: &'static [&'static str],
    pub(crate) select_model: &'static [&'static str],
    pub(crate) failure_policies: &'static [&'static str],
    pub(crate) modes: &'static [&'static str],
    pub(crate) payloads: &'static [&'static str],
    pub(crate) protocols: &'static [&'static str],
    pub(crate) outcomes: &'static [&'static str],
    pub(crate) tool_choices: &'static [&'static str],
    pub(crate) layers: &'static [&'static str],
    pub(crate) named_layer: &'static [&'static str],
    pub(crate) config_modes: &'static [&'static str],
    pub(crate) managed: &'static [&'static str],
    /// The tag key of a `rewrite` step (`op`).
    pub(crate) rewrite_tag: String,
    /// The shapes of a `rewrite` step, in declaration order.
    pub(crate) rewrite_ops: Vec<Variant>,
    /// The generated schema, for numeric bounds.
    schema: Value,
}

impl Vocabulary {
    /// The tag values of a `rewrite` step (`set`, `remove`).
    pub(crate) fn rewrite_op_names(&self) -> Vec<&str> {
        self.rewrite_ops.iter().map(|v| v.tag.as_str()).collect()
    }

    /// The keys a `rewrite` step may have (the union over its shapes, in order).
    pub(crate) fn rewrite_keys(&self) -> Vec<&str> {
        let mut keys: Vec<&str> = Vec::new();
        for v in &self.rewrite_ops {
            for k in &v.keys {
                if !keys.contains(&k.as_str()) {
                    keys.push(k);
                }
            }
        }
        keys
    }

    /// The inclusive integer bounds the schema puts on `key` of definition
    /// `def` (`minimum`/`maximum`; a `uint32` without `maximum` is capped at
    /// `u32::MAX`).
    pub(crate) fn int_range(&self, def: &str, key: &str) -> (u64, u64) {
        let prop = &self.schema["$defs"][def]["properties"][key];
        let min = prop["minimum"].as_u64().unwrap_or(0);
        let max = prop["maximum"]
            .as_u64()
            .unwrap_or(match prop["format"].as_str() {
                Some("uint32") => u64::from(u32::MAX),
                _ => u64::MAX,
            });
        (min, max)
    }

    /// The number bounds the schema puts on `key` of definition `def`.
    pub(crate) fn float_range(&self, def: &str, key: &str) -> (f64, f64) {
        let prop = &self.schema["$defs"][def]["properties"][key];
        (
            prop["minimum"].as_f64().unwrap_or(f64::MIN),
            prop["maximum"].as_f64().unwrap_or(f64::MAX),
        )
    }
}

/// The shapes of internally tagged definition `def`: each `oneOf` branch's
/// tag `const`, property names and required keys.
fn tagged_variants(schema: &Value, def: &str, tag: &str) -> Vec<Variant> {
    let names = |v: &Value| -> Vec<String> {
        match v {
            Value::Object(m) => m.keys().cloned().collect(),
            Value::Array(a) => a
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        }
    };
    schema["$defs"][def]["oneOf"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|branch| {
            let tag_value = branch["properties"][tag]["const"].as_str()?.to_owned();
            let mut keys = names(&branch["properties"]);
            // The tag first, as a user writes it.
            keys.retain(|k| k != tag);
            keys.insert(0, tag.to_owned());
            Some(Variant {
                tag: tag_value,
                keys,
                required: names(&branch["required"]),
            })
        })
        .collect()
}

/// The tag key of internally tagged definition `def`: the property that is
/// a `const` in its first `oneOf` branch.
fn tag_of(schema: &Value, def: &str) -> String {
    schema["$defs"][def]["oneOf"][0]["properties"]
        .as_object()
        .and_then(|props| props.iter().find(|(_, p)| p.get("const").is_some()))
        .map(|(k, _)| k.clone())
        .unwrap_or_default()
}

/// The checker's vocabulary, built on first use.
pub(crate) static VOCABULARY: LazyLock<Vocabulary> = LazyLock::new(|| {
    let schema = crate::schema::config_schema();
    let rewrite_tag = tag_of(&schema, "RewriteOp");
    Vocabulary {
        top: names_of::<Config>(),
        defaults: names_of::<Defaults>(),
        limits: names_of::<Limits>(),
        tool_settings: names_of::<ToolSettings>(),
        tool_entry: names_of::<ToolEntry>(),
        hook: names_of::<Hook>(),
        run: names_of::<Run>(),
        http: names_of::<Http>(),
        http_protocols: names_of::<HttpProtocol>(),
        policy: names_of::<Policy>(),
        env: names_of::<Env>(),
        patch: names_of::<RequestPatch>(),
        history: names_of::<HistoryPatch>(),
        specific_tools: names_of::<SpecificTools>(),
        regex_pattern: names_of::<RegexPattern>(),
        predicate: names_of::<Predicate>(),
        reason: names_of::<Reason>(),
        grant: names_of::<Grant>(),
        inject: names_of::<Inject>(),
        select_model: names_of::<SelectModel>(),
        failure_policies: names_of::<FailurePolicy>(),
        modes: names_of::<Mode>(),
        payloads: names_of::<PayloadMode>(),
        protocols: names_of::<Protocol>(),
        outcomes: names_of::<OutcomeKind>(),
        tool_choices: names_of::<ToolChoiceMode>(),
        layers: names_of::<BuiltinLayer>(),
        named_layer: names_of::<NamedLayer>(),
        config_modes: names_of::<ConfigMode>(),
        managed: names_of::<Managed>(),
        rewrite_ops: tagged_variants(&schema, "RewriteOp", &rewrite_tag),
        rewrite_tag,
        schema,
    }
});
