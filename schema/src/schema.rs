//! Layer 2 support: the generated config JSON Schema (draft 2020-12).

use schemars::SchemaGenerator;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::config::Config;

/// The stable `$id` of the config schema.
pub const CONFIG_SCHEMA_ID: &str = "https://agent-hooks.dev/schemas/hooks.schema.json";

/// The config JSON Schema (draft 2020-12), generated from [`Config`]: a
/// description and title on every property (plus `markdownDescription` for
/// editors), enum values with descriptions (`enum` with `enumDescriptions`
/// and `markdownEnumDescriptions`), examples and defaults,
/// `additionalProperties: false` on every object, and per-phase `if`/`then`
/// rules for the actions, tool filters, failure policy and `outcome`
/// predicates. The committed copy is `schema/hooks.schema.json`.
pub fn config_schema() -> Value {
    let generator = SchemaGenerator::new(SchemaSettings::draft2020_12());
    let schema = generator.into_root_schema_for::<Config>();
    let mut value = schema.to_value();
    if let Value::Object(root) = &mut value {
        let mut ordered = Map::new();
        ordered.insert(
            "$schema".into(),
            root.remove("$schema").unwrap_or(Value::Null),
        );
        ordered.insert("$id".into(), CONFIG_SCHEMA_ID.into());
        ordered.insert("title".into(), "agent-hooks config (version 1)".into());
        ordered.insert(
            "description".into(),
            "A hook config for agent-hooks: rules that intercept an AI agent's model calls, tool calls and run events. Declared order is execution and merge order.".into(),
        );
        root.remove("title");
        root.remove("description");
        ordered.append(root);
        *root = ordered;
    }
    decorate(&mut value, None);
    enums_with_descriptions(&mut value);
    value
}

/// Rewrites `oneOf: [{const, description}, ...]` (how schemars renders
/// documented unit variants) as `enum` plus `enumDescriptions` /
/// `markdownEnumDescriptions`, the keywords VS Code and yaml-language-server
/// show beside each value in completion and hover. With `oneOf`, the matched
/// variant's description would hide the key's own description on hover.
fn enums_with_descriptions(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let variants = match map.get("oneOf") {
                Some(Value::Array(branches))
                    if !branches.is_empty()
                        && branches.iter().all(|b| {
                            b.get("const").is_some_and(Value::is_string)
                                && b.get("description").is_some_and(Value::is_string)
                        }) =>
                {
                    Some(branches.clone())
                }
                _ => None,
            };
            if let Some(branches) = variants {
                map.remove("oneOf");
                let consts: Vec<Value> = branches.iter().map(|b| b["const"].clone()).collect();
                let descriptions: Vec<Value> =
                    branches.iter().map(|b| b["description"].clone()).collect();
                map.insert("type".into(), "string".into());
                map.insert("enum".into(), Value::Array(consts));
                map.insert(
                    "enumDescriptions".into(),
                    Value::Array(descriptions.clone()),
                );
                map.insert(
                    "markdownEnumDescriptions".into(),
                    Value::Array(descriptions),
                );
            }
            map.values_mut().for_each(enums_with_descriptions);
        }
        Value::Array(items) => items.iter_mut().for_each(enums_with_descriptions),
        _ => {}
    }
}

/// Adds titles and `markdownDescription`s to every property schema.
fn decorate(value: &mut Value, key: Option<&str>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = key {
                strip_null(map);
                map.entry("title").or_insert_with(|| title_of(name).into());
                if let Some(Value::String(c)) = map.get("const") {
                    let d = format!("`{c}` selects this variant.");
                    map.entry("description").or_insert(Value::String(d));
                }
            }
            if let Some(Value::String(d)) = map.get("description") {
                let d = d.clone();
                map.entry("markdownDescription").or_insert(Value::String(d));
            }
            if let Some(Value::Object(props)) = map.get_mut("properties") {
                for (k, v) in props.iter_mut() {
                    decorate(v, Some(k));
                }
            }
            for (k, v) in map.iter_mut() {
                if k != "properties" {
                    decorate(v, None);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| decorate(v, None)),
        _ => {}
    }
}

/// Optional keys are written by leaving them out, never as `null`: drop the
/// `null` alternative schemars adds for `Option<T>` fields.
fn strip_null(map: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            map.insert("type".into(), only);
        }
    }
    let null = json!({"type": "null"});
    let other = match map.get("anyOf") {
        Some(Value::Array(any)) if any.len() == 2 && any.contains(&null) => {
            any.iter().find(|s| **s != null).cloned()
        }
        _ => None,
    };
    if let Some(Value::Object(other)) = other {
        map.remove("anyOf");
        for (k, v) in other {
            map.entry(k).or_insert(v);
        }
    }
}

fn title_of(key: &str) -> String {
    let mut s = key.replace('_', " ");
    if let Some(first) = s.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    s
}
