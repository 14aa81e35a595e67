use serde_json::{Value, json};

use super::names::VOCABULARY;
use super::run::{cwd_problem, valid_env_name, valid_id};
use super::walk::suggest;
use crate::capability::{ActionKind, CAPABILITIES};
use crate::phase::{FailurePolicy, Phase};

#[test]
fn suggestions_and_pointers() {
    let policies = VOCABULARY.failure_policies;
    assert_eq!(
        suggest("blok", policies).as_deref(),
        Some("did you mean `block`?")
    );
    assert_eq!(suggest("zzzzzz", policies), None);
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

/// The JSON Schema's pointer pattern and the pointer rule
/// ([`crate::automata::pointer_tokens`]) accept the same strings.
#[test]
fn the_pointer_pattern_spells_the_pointer_rule() {
    let schema = json!({"type": "string", "pattern": crate::POINTER_PATTERN});
    let validator = jsonschema::validator_for(&schema).unwrap();
    for p in [
        "", "/", "//", "/a", "/a/b", "/a~0b~1c", "/~", "/~2", "/a~", "a", "a/b", "/~01", "/é~1",
        "~0", "/a/~1/", "/ ",
    ] {
        assert_eq!(
            validator.is_valid(&json!(p)),
            crate::automata::pointer_tokens(p).is_ok(),
            "{p:?}"
        );
    }
}

/// The property names of every object definition of the generated schema,
/// as (definition, keys) pairs, the keys sorted (compared as sets: the
/// schema keeps declaration order).
fn schema_objects() -> Vec<(String, Vec<String>)> {
    let schema = crate::config_schema();
    let keys = |props: &serde_json::Map<String, Value>| {
        let mut keys: Vec<String> = props.keys().cloned().collect();
        keys.sort();
        keys
    };
    let mut objects = vec![(
        "Config".to_owned(),
        keys(schema["properties"].as_object().unwrap()),
    )];
    for (name, def) in schema["$defs"].as_object().unwrap() {
        if let Some(props) = def["properties"].as_object() {
            objects.push((name.clone(), keys(props)));
        }
    }
    objects
}

fn sorted(names: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = names.iter().map(|s| (*s).to_owned()).collect();
    v.sort();
    v
}

/// Every key of every object in the generated schema is a key the checker
/// accepts there, and nothing else is: a new field of a config type is
/// covered without editing the checker.
#[test]
fn the_checker_accepts_exactly_the_schemas_keys() {
    let v = &*VOCABULARY;
    for (def, keys) in schema_objects() {
        let accepted: &[&str] = match def.as_str() {
            "Config" => v.top,
            "Defaults" => v.defaults,
            "Limits" => v.limits,
            "ToolSettings" => v.tool_settings,
            "ToolEntry" => v.tool_entry,
            "Hook" => v.hook,
            "Run" => v.run,
            "Http" => v.http,
            "Env" => v.env,
            "RequestPatch" => v.patch,
            "HistoryPatch" => v.history,
            "SpecificTools" => v.specific_tools,
            "RegexPattern" => v.regex_pattern,
            "Reason" => v.reason,
            "Grant" => v.grant,
            "Inject" => v.inject,
            "SelectModel" => v.select_model,
            "Policy" => v.policy,
            "NamedLayer" => v.named_layer,
            "Managed" => v.managed,
            other => panic!("object definition `{other}` has no key list in the checker"),
        };
        assert_eq!(sorted(accepted), keys, "{def}");
    }
    let schema = crate::config_schema();
    let union = |def: &str| {
        let mut keys: Vec<String> = schema["$defs"][def]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|b| b["properties"].as_object().unwrap().keys().cloned())
            .collect();
        keys.sort();
        keys.dedup();
        keys
    };
    assert_eq!(sorted(v.predicate), union("Predicate"));
    assert_eq!(sorted(&v.rewrite_keys()), union("RewriteOp"));
}

/// Every enum of the generated schema is the checker's value list, in order.
#[test]
fn the_checker_accepts_exactly_the_schemas_enum_values() {
    let schema = crate::config_schema();
    let v = &*VOCABULARY;
    for (def, body) in schema["$defs"].as_object().unwrap() {
        let Some(values) = body["enum"].as_array() else {
            continue;
        };
        let values: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
        let accepted: Vec<&str> = match def.as_str() {
            "FailurePolicy" => v.failure_policies.to_vec(),
            "DefaultFailurePolicy" => super::settings::policies_allowed_everywhere(),
            "Mode" => v.modes.to_vec(),
            "PayloadMode" => v.payloads.to_vec(),
            "Protocol" => v.protocols.to_vec(),
            "HttpProtocol" => v.http_protocols.to_vec(),
            "OutcomeKind" => v.outcomes.to_vec(),
            "ToolChoiceMode" => v.tool_choices.to_vec(),
            "Phase" => Phase::ALL.map(Phase::as_str).to_vec(),
            "BuiltinLayer" => v.layers.to_vec(),
            "ConfigMode" => v.config_modes.to_vec(),
            other => panic!("enum `{other}` has no value list in the checker"),
        };
        assert_eq!(accepted, values, "{def}");
    }
    assert_eq!(v.rewrite_op_names(), ["set", "remove"]);
    assert_eq!(v.rewrite_tag, "op");
}

/// An unknown key names exactly the schema's properties as alternatives.
#[test]
fn an_unknown_key_lists_the_schemas_properties() {
    let text = "version: 1\nhooks:\n  - { id: a, phase: stop, run: { command: x, shell: y }, colour: red }\n";
    let err = crate::load_str(text, "t.yaml").unwrap_err();
    let schema = crate::config_schema();
    for (def, key) in [("Hook", "colour"), ("Run", "shell")] {
        let d = err
            .iter()
            .find(|d| d.code == "unknown-key" && d.message.contains(&format!("`{key}`")))
            .unwrap_or_else(|| panic!("{key}: {}", err.render(Some(text))));
        let listed: Vec<String> = d
            .message
            .split("expected one of: ")
            .nth(1)
            .unwrap()
            .split(", ")
            .map(|k| k.trim_matches('`').to_owned())
            .collect();
        let mut listed_sorted = listed.clone();
        listed_sorted.sort();
        let mut props: Vec<String> = schema["$defs"][def]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        props.sort();
        assert_eq!(listed_sorted, props, "{def}");
    }
}

/// A document with one hook of `phase` with extra keys `hook`.
fn doc(phase: Phase, hook: Value) -> String {
    let mut h = json!({"id": "h", "phase": phase.as_str()});
    h.as_object_mut()
        .unwrap()
        .extend(hook.as_object().unwrap().clone());
    serde_json::to_string(&json!({"version": 1, "hooks": [h]})).unwrap()
}

/// Whether the schema alone and the whole loader accept `text`; they must agree.
fn accepted(text: &str) -> bool {
    let value: Value = serde_json::from_str(text).unwrap();
    let schema = crate::schema_accepts(&value);
    let loader = crate::load_str(text, "t.yaml").is_ok();
    assert_eq!(schema, loader, "schema and loader disagree on {text}");
    loader
}

/// The capability table is what the schema's `if`/`then` rules and the
/// checker enforce: per phase, exactly the allowed actions, tool filters,
/// failure policies and `outcome` leaves are accepted.
#[test]
fn schema_and_checker_enforce_the_capability_table() {
    let body = |a: ActionKind| match a {
        ActionKind::Run => json!({"command": "x"}),
        ActionKind::Http => json!({"url": "http://127.0.0.1:1/"}),
        ActionKind::Block | ActionKind::Terminate | ActionKind::Ask => json!({"reason": "r"}),
        ActionKind::Allow => json!({}),
        ActionKind::Patch => json!({"preamble": "p"}),
        ActionKind::Rewrite => json!([{"op": "remove", "pointer": "/x"}]),
        ActionKind::Inject => json!({"content": "c"}),
        ActionKind::Policy => json!({"rego": ["p.rego"], "query": "data.p.decision"}),
        ActionKind::SelectModel => json!({"model": "m"}),
    };
    let run = json!({"command": "x"});
    for caps in &CAPABILITIES {
        let phase = caps.phase;
        for action in ActionKind::ALL {
            let text = doc(phase, json!({action.as_str(): body(action)}));
            assert_eq!(
                accepted(&text),
                caps.actions.contains(action),
                "{phase} {action:?}"
            );
        }
        for key in crate::config::schema_rules::TOOL_FILTER_KEYS {
            let text = doc(phase, json!({key: ["bash"], "run": run}));
            assert_eq!(accepted(&text), caps.tool, "{phase} {key}");
        }
        for policy in VOCABULARY.failure_policies {
            let text = doc(phase, json!({"failure_policy": policy, "run": run}));
            let p: FailurePolicy = serde_json::from_value(json!(policy)).unwrap();
            assert_eq!(
                accepted(&text),
                caps.allows_failure_policy(p),
                "{phase} {policy}"
            );
        }
        let text = doc(phase, json!({"when": {"outcome": "denied"}, "run": run}));
        assert_eq!(accepted(&text), caps.outcome, "{phase} outcome");
    }
    for policy in VOCABULARY.failure_policies {
        let text = serde_json::to_string(
            &json!({"version": 1, "defaults": {"failure_policy": policy}, "hooks": []}),
        )
        .unwrap();
        let everywhere = CAPABILITIES
            .iter()
            .all(|c| c.allows_failure_policy(serde_json::from_value(json!(policy)).unwrap()));
        assert_eq!(accepted(&text), everywhere, "defaults {policy}");
    }
}

/// A `when` pointer the phase's events cannot resolve is a located error
/// with a hint, per the capability table's subject: on a text phase only
/// `""` resolves, on `run_start` nothing does; elsewhere pointers pass.
#[test]
fn pointers_a_phase_cannot_resolve_are_errors() {
    let when = |pointer: &str| json!({"when": {"pointer": pointer, "matches": "x"}, "run": {"command": "x"}});
    for caps in &CAPABILITIES {
        let phase = caps.phase;
        for pointer in ["", "/prompt"] {
            let text = doc(phase, when(pointer));
            let result = crate::load_str(&text, "t.yaml");
            let unresolvable = match caps.subject {
                crate::SubjectKind::Nothing => true,
                crate::SubjectKind::Text => !pointer.is_empty(),
                _ => false,
            };
            match result {
                Ok(_) => assert!(!unresolvable, "{phase} `{pointer}` accepted"),
                Err(d) => {
                    assert!(unresolvable, "{phase} `{pointer}`: {d}");
                    let first = d.first();
                    assert_eq!(first.code, "unresolvable-pointer", "{d}");
                    assert_eq!(first.pointer, "/hooks/0/when/pointer");
                    assert!(first.hint.is_some(), "{d}");
                }
            }
        }
    }
}

/// `subject` names one of the phase's subjects (the capability table's
/// [`crate::Capabilities::subjects`]): `args` on every tool phase, `result`
/// on `after_tool`; anything else is a located error with a hint.
#[test]
fn a_subject_the_phase_does_not_carry_is_an_error() {
    let when = |subject: &str| json!({"when": {"subject": subject, "pointer": "/command", "matches": "x"}, "run": {"command": "x"}});
    for caps in &CAPABILITIES {
        let phase = caps.phase;
        for subject in ["args", "result"] {
            let carried = caps.subjects().any(|k| k.name() == subject);
            let result = crate::load_str(&doc(phase, when(subject)), "t.yaml");
            match result {
                Ok(_) => assert!(carried, "{phase} `{subject}` accepted"),
                Err(d) => {
                    assert!(!carried, "{phase} `{subject}`: {d}");
                    let first = d.first();
                    assert_eq!(first.code, "subject-not-available", "{d}");
                    assert_eq!(first.pointer, "/hooks/0/when/subject");
                    assert!(first.hint.is_some(), "{d}");
                }
            }
        }
    }
}

/// A permission rule is allowed on tool phases only, and a rule that does
/// not read is a located error naming what is wrong.
#[test]
fn permission_rules_are_checked_where_they_are_written() {
    let when = |rule: &str| json!({"when": {"permission": rule}, "run": {"command": "x"}});
    for caps in &CAPABILITIES {
        let result = crate::load_str(&doc(caps.phase, when("Bash(git push *)")), "t.yaml");
        match result {
            Ok(_) => assert!(caps.tool, "{} accepted", caps.phase),
            Err(d) => {
                assert!(!caps.tool, "{}: {d}", caps.phase);
                assert_eq!(d.first().code, "permission-not-allowed", "{d}");
            }
        }
    }
    // A rule that holds on any simple command cannot grant.
    let allow = json!({"when": {"any": [{"permission": "Bash(npm test *)"}]}, "allow": {}});
    let d = crate::load_str(&doc(Phase::PermissionRequest, allow), "t.yaml").expect_err("allow");
    assert_eq!(d.first().code, "permission-in-allow", "{d}");
    assert_eq!(d.first().pointer, "/hooks/0/when");
    for bad in ["Bash(git push", "WebFetch(example.com)", "Glob*"] {
        let d = crate::load_str(&doc(Phase::BeforeTool, when(bad)), "t.yaml").expect_err(bad);
        let first = d.first();
        assert_eq!(first.code, "invalid-permission-rule", "{d}");
        assert_eq!(first.pointer, "/hooks/0/when/permission");
        assert!(first.message.contains(bad), "{d}");
    }
}
