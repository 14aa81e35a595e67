//! The committed config schema (`schema/hooks.schema.json`) matches the
//! generated one and is built for editors: draft 2020-12, a stable `$id`,
//! a title and description on every property, described enum values and
//! `additionalProperties: false` on every object.
//!
//! Regenerate with `UPDATE_SCHEMAS=1 cargo test -p hooks-schema --test config_schema`.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers panic on a broken fixture, which fails the test"
)]

mod common;

use serde_json::Value;

#[test]
fn config_schema_is_committed() {
    common::assert_committed(
        "hooks.schema.json",
        &hooks_schema::config_schema(),
        "config_schema",
    );
}

#[test]
fn config_schema_has_stable_id_and_compiles() {
    let schema = hooks_schema::config_schema();
    assert_eq!(schema["$id"], hooks_schema::CONFIG_SCHEMA_ID);
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert!(jsonschema::validator_for(&schema).is_ok());
}

/// Walks every subschema, calling `f(path, schema)`.
fn walk(path: &str, v: &Value, f: &mut dyn FnMut(&str, &serde_json::Map<String, Value>)) {
    match v {
        Value::Object(m) => {
            f(path, m);
            for (k, child) in m {
                walk(&format!("{path}/{k}"), child, f);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                walk(&format!("{path}/{i}"), child, f);
            }
        }
        _ => {}
    }
}

/// Walks the subschemas that declare keys: property maps inside the
/// per-phase `if`/`then` rules only forbid keys (`block: false`) or narrow
/// them; they are not declarations.
fn walk_declarations(schema: &Value, f: &mut dyn FnMut(&str, &serde_json::Map<String, Value>)) {
    walk("", schema, &mut |path, m| {
        if !(path.contains("/if") || path.contains("/then")) {
            f(path, m);
        }
    });
}

#[test]
fn every_property_has_title_and_description() {
    let schema = hooks_schema::config_schema();
    let mut missing = Vec::new();
    walk_declarations(&schema, &mut |path, m| {
        if let Some(Value::Object(props)) = m.get("properties") {
            for (name, prop) in props {
                let Value::Object(p) = prop else { continue };
                let described = p.contains_key("description");
                let titled = p.contains_key("title");
                if !(described && titled) {
                    missing.push(format!("{path}/properties/{name}"));
                }
            }
        }
    });
    assert!(
        missing.is_empty(),
        "properties without title/description: {missing:#?}"
    );
}

#[test]
fn every_declared_object_forbids_unknown_keys() {
    let schema = hooks_schema::config_schema();
    let mut open = Vec::new();
    walk_declarations(&schema, &mut |path, m| {
        let is_object = m.get("type") == Some(&Value::from("object"));
        let has_props = m.contains_key("properties");
        // Free-form maps (`env.set`, `tool_settings`, `additional_params`)
        // declare `additionalProperties` as a schema instead.
        if is_object && has_props && m.get("additionalProperties") != Some(&Value::Bool(false)) {
            open.push(path.to_owned());
        }
    });
    assert!(open.is_empty(), "objects accepting unknown keys: {open:#?}");
}

#[test]
fn enum_values_are_described() {
    let schema = hooks_schema::config_schema();
    let defs = schema["$defs"].as_object().unwrap();
    for name in [
        "Phase",
        "FailurePolicy",
        "DefaultFailurePolicy",
        "Mode",
        "PayloadMode",
        "Protocol",
        "OutcomeKind",
        "ToolChoiceMode",
    ] {
        let def = &defs[name];
        let values = def["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} has no enum: {def}"));
        for key in ["enumDescriptions", "markdownEnumDescriptions"] {
            let descriptions = def[key]
                .as_array()
                .unwrap_or_else(|| panic!("{name} has no {key}: {def}"));
            assert_eq!(descriptions.len(), values.len(), "{name}.{key}");
            for d in descriptions {
                assert!(d.as_str().is_some_and(|d| d.len() > 10), "{name}: {d}");
            }
        }
        // No `oneOf` of consts is left: its matched branch would hide the
        // key's description on hover.
        assert!(def.get("oneOf").is_none(), "{name}");
    }
    let phases: Vec<&str> = defs["Phase"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let expected: Vec<&str> = hooks_schema::Phase::ALL
        .iter()
        .map(|p| p.as_str())
        .collect();
    assert_eq!(phases, expected);
    let policies: Vec<&str> = defs["DefaultFailurePolicy"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(policies, ["ignore", "warn", "fail"]);
}

#[test]
fn phase_rules_are_in_the_schema() {
    let validator = jsonschema::validator_for(&hooks_schema::config_schema()).unwrap();
    let doc = |hook: Value| serde_json::json!({"version": 1, "hooks": [hook]});
    let ok = |hook: Value| validator.is_valid(&doc(hook));
    assert!(ok(
        serde_json::json!({"id": "a", "phase": "before_tool", "block": {"reason": "r"}})
    ));
    assert!(!ok(
        serde_json::json!({"id": "a", "phase": "after_tool", "block": {"reason": "r"}})
    ));
    assert!(!ok(
        serde_json::json!({"id": "a", "phase": "stop", "include_tools": ["bash"], "terminate": {"reason": "r"}})
    ));
    assert!(!ok(
        serde_json::json!({"id": "a", "phase": "stop", "failure_policy": "block", "run": {"command": "x"}})
    ));
    assert!(!ok(
        serde_json::json!({"id": "a", "phase": "before_tool", "when": {"outcome": "timeout"}, "run": {"command": "x"}})
    ));
    assert!(ok(
        serde_json::json!({"id": "a", "phase": "after_tool", "when": {"not": {"outcome": "timeout"}}, "run": {"command": "x"}})
    ));
    assert!(!ok(
        serde_json::json!({"id": "a", "phase": "before_tool", "run": {"command": "x", "timeout": 600}})
    ));
    assert!(!ok(
        serde_json::json!({"id": "a", "phase": "before_tool", "run": {"command": "x"}, "block": {"reason": "r"}})
    ));
    assert!(!ok(serde_json::json!({"id": "a", "phase": "before_tool"})));
    assert!(!ok(
        serde_json::json!({"id": "A b", "phase": "before_tool", "run": {"argv": ["x"]}})
    ));
    assert!(!ok(
        serde_json::json!({"id": "a", "phase": "before_tool", "run": {"argv": []}})
    ));
    assert!(!ok(
        serde_json::json!({"id": "a", "phase": "before_tool", "rewrite": [{"op": "set", "pointer": "command"}]})
    ));
}
