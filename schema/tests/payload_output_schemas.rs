//! The committed payload and output schemas match the generated ones, and
//! both are strict (`additionalProperties: false`, draft 2020-12, stable `$id`).
//!
//! Regenerate with
//! `UPDATE_SCHEMAS=1 cargo test -p hooks-schema --test payload_output_schemas`.

mod common;

use hooks_schema::{HookOutput, Payload, output_schema, payload_schema};

fn check(file: &str, generated: serde_json::Value) {
    common::assert_committed(file, &generated, "payload_output_schemas");
}

#[test]
fn payload_schema_is_committed() {
    check("payload.schema.json", payload_schema());
}

#[test]
fn output_schema_is_committed() {
    check("output.schema.json", output_schema());
}

#[test]
fn schemas_are_strict_draft_2020_12_with_ids() {
    for (schema, id) in [
        (payload_schema(), hooks_schema::PAYLOAD_SCHEMA_ID),
        (output_schema(), hooks_schema::OUTPUT_SCHEMA_ID),
    ] {
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert_eq!(schema["$id"], id);
        assert_eq!(schema["additionalProperties"], false);
    }
}

fn validator(schema: &serde_json::Value) -> jsonschema::Validator {
    jsonschema::validator_for(schema).expect("the generated schema compiles")
}

#[test]
fn output_schema_accepts_exactly_what_the_type_accepts() {
    let v = validator(&output_schema());
    let good = [
        r#"{}"#,
        r#"{"decision":"block","reason":"no rm -rf"}"#,
        r#"{"rewrite_args":{"command":"ls"}}"#,
        r#"{"context_items":[{"role":"user","content":"héllo"}]}"#,
        r#"{"patch":{"temperature":0.2,"active_tools":["bash"]}}"#,
    ];
    let bad = [
        r#"{"decision":"deny"}"#,
        r#"{"decison":"block"}"#,
        r#"{"context_items":[{"role":"system","content":"x"}]}"#,
        r#"{"patch":{"temprature":0.2}}"#,
    ];
    for doc in good {
        let value: serde_json::Value = serde_json::from_str(doc).unwrap();
        assert!(v.is_valid(&value), "schema rejects {doc}");
        serde_json::from_value::<HookOutput>(value).unwrap();
    }
    for doc in bad {
        let value: serde_json::Value = serde_json::from_str(doc).unwrap();
        assert!(!v.is_valid(&value), "schema accepts {doc}");
        assert!(
            serde_json::from_value::<HookOutput>(value).is_err(),
            "type accepts {doc}"
        );
    }
}

#[test]
fn payload_schema_accepts_a_serialized_payload_and_rejects_extra_keys() {
    let v = validator(&payload_schema());
    let payload = Payload {
        schema: hooks_schema::PAYLOAD_SCHEMA_NAME.to_owned(),
        version: hooks_schema::PAYLOAD_VERSION,
        phase: hooks_schema::Phase::BeforeTool,
        hook_id: "guard".to_owned(),
        run_id: "run-1".to_owned(),
        turn: 3,
        cwd: "/work".to_owned(),
        target_ran: false,
        mode: hooks_schema::PayloadMode::Full,
        tool_name: Some("bash".to_owned()),
        call_id: Some("call_1".to_owned()),
        args: Some(serde_json::json!({"command": "ls", "blob": {"$binary": 0}})),
        result: None,
        outcome: None,
        prompt: None,
        data: None,
        affected_paths: vec!["/work/a.txt".to_owned()],
        path_diagnostics: Vec::new(),
        binary: vec![hooks_schema::BinaryMeta {
            pointer: "/args/blob".to_owned(),
            kind: "image/png".to_owned(),
            len_bytes: 3,
            sha256: "0".repeat(64),
        }],
        loop_count: None,
        payload_ref: None,
        elided: false,
    };
    let mut value = serde_json::to_value(&payload).unwrap();
    assert!(v.is_valid(&value));
    assert_eq!(
        serde_json::from_value::<Payload>(value.clone()).unwrap(),
        payload
    );
    value["version"] = 2.into();
    assert!(!v.is_valid(&value), "version must be 1");
    value["version"] = 1.into();
    value["surprise"] = true.into();
    assert!(!v.is_valid(&value), "unknown keys must be rejected");
    value.as_object_mut().unwrap().remove("surprise");
    value["affected_paths"] = serde_json::json!(vec!["/p"; 17]);
    assert!(
        !v.is_valid(&value),
        "more than 16 affected paths must be rejected"
    );
}
