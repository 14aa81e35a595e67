//! Property tests: the loader never panics, whatever the input, and on
//! generated configs (valid and invalid mixed) the schema and the loader
//! agree: schema rejects => loader rejects, loader accepts => schema accepts.
//! Every finding is reported by the loader's own rules (never the generic
//! schema fallback), so messages stay precise.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers panic on a broken fixture, which fails the test"
)]

use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn check_invariants(source: &str) {
    let result = hooks_schema::load_str(source, "prop.yaml");
    if let Err(diags) = &result {
        assert!(!diags.is_empty());
        for d in diags.iter() {
            assert!(d.line >= 1 && d.column >= 1, "{d}");
            let first = d.render(Some(source));
            assert!(first.starts_with("prop.yaml:"), "{first}");
        }
    }
    if let Ok(doc) = hooks_schema::parse_document(source, "prop.yaml") {
        let schema_ok = hooks_schema::schema_accepts(&doc);
        match &result {
            Ok(_) => assert!(schema_ok, "loader accepts, schema rejects:\n{source}"),
            Err(diags) => {
                for d in diags.iter() {
                    assert!(
                        d.code != "schema" && d.code != "internal",
                        "generic finding {d} for:\n{source}"
                    );
                }
            }
        }
        if !schema_ok {
            assert!(result.is_err(), "schema rejects, loader accepts:\n{source}");
        } else if let Err(diags) = &result {
            // What the schema accepts, only the semantic layer may reject:
            // a finding labelled `schema` must be one the schema makes.
            for d in diags.iter() {
                assert!(
                    d.layer == hooks_schema::Layer::Semantic,
                    "schema accepts, but the loader reports {d} as a schema finding for:\n{source}"
                );
            }
        }
    }
}

fn pick(values: Vec<Value>) -> BoxedStrategy<Value> {
    proptest::sample::select(values).boxed()
}

/// Mostly `valid` values, sometimes `semantic` ones (the schema accepts them,
/// the semantic layer does not), rarely `invalid` ones.
fn mix(valid: Vec<Value>, semantic: Vec<Value>, invalid: Vec<Value>) -> BoxedStrategy<Value> {
    let mut options: Vec<(u32, BoxedStrategy<Value>)> = vec![(16, pick(valid))];
    if !semantic.is_empty() {
        options.push((1, pick(semantic)));
    }
    if !invalid.is_empty() {
        options.push((2, pick(invalid)));
    }
    proptest::strategy::Union::new_weighted(options).boxed()
}

fn predicate() -> impl Strategy<Value = Value> {
    let leaf = mix(
        vec![
            json!({"pointer": "/command", "matches": "rm\\s+-rf"}),
            json!({"pointer": "/path", "glob": "*.env"}),
            json!({"pointer": "/x", "equals": null}),
            json!({"pointer": "/x", "equals": [1, {"a": 2}]}),
            json!({"pointer": "/a~1b", "exists": true}),
            json!({"pointer": "", "exists": true}),
        ],
        vec![
            json!({"pointer": "/command", "matches": "(unclosed"}),
            json!({"pointer": "/path", "glob": "{a,b"}),
        ],
        vec![
            json!({"pointer": "command", "exists": true}),
            json!({"pointer": "/a~2", "exists": true}),
            json!({"pointer": "/x", "exists": "yes"}),
            json!({"pointer": "/x"}),
            json!({"matches": "x"}),
            json!({"pointer": "/x", "matches": "a", "glob": "b"}),
            json!({"outcome": "crashed"}),
            json!({}),
            json!("pointer"),
            json!({"pointer": "/x", "exists": true, "extra": 1}),
        ],
    );
    let outcome = pick(vec![
        json!({"outcome": "timeout"}),
        json!({"outcome": "success"}),
    ]);
    let leaf = prop_oneof![6 => leaf, 1 => outcome];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            3 => prop::collection::vec(inner.clone(), 0..3).prop_map(|v| json!({"all": v})),
            3 => prop::collection::vec(inner.clone(), 0..3).prop_map(|v| json!({"any": v})),
            3 => inner.clone().prop_map(|p| json!({"not": p})),
            1 => (inner.clone(), inner).prop_map(|(a, b)| json!({"not": a, "all": [b]})),
        ]
    })
}

fn keyed(key: &'static str, values: BoxedStrategy<Value>) -> BoxedStrategy<(String, Value)> {
    values.prop_map(move |v| (key.to_owned(), v)).boxed()
}

fn action() -> impl Strategy<Value = (String, Value)> {
    let run = mix(
        vec![
            json!({"command": "./x.sh"}),
            json!({"argv": ["sh", "x.sh"]}),
            json!({"command": "x", "timeout": "5s"}),
            json!({"command": "x", "env": {"pass": ["HOME"], "set": {"K": "v"}}}),
            json!({"command": "x", "payload": "redacted", "protocol": "claude", "cwd": "."}),
        ],
        vec![
            json!({"command": "x", "timeout": "11m"}),
            json!({"command": "x", "timeout": "0s"}),
        ],
        vec![
            json!({"argv": []}),
            json!({"argv": [1]}),
            json!({"command": "x", "argv": ["y"]}),
            json!({}),
            json!({"command": "x", "timeout": 600}),
            json!({"command": "x", "timeout": null}),
            json!({"command": "x", "timeout": "5h"}),
            json!({"command": "x", "env": {"pass": ["HOME", "1BAD"]}}),
            json!({"command": "x", "env": {"set": {"bad-k": "v", "N": 1}}}),
            json!({"command": "x", "env": {"pass": "HOME"}}),
            json!({"command": "x", "payload": "bad", "protocol": "x", "cwd": ""}),
            json!({"command": "", "extra": 1}),
            json!("./x.sh"),
        ],
    );
    let reason = mix(
        vec![json!({"reason": "r"})],
        vec![],
        vec![
            json!({"reason": ""}),
            json!("r"),
            json!({}),
            json!({"reason": 1}),
        ],
    );
    let patch = mix(
        vec![
            json!({"temperature": 0.5}),
            json!({"tool_choice": "auto"}),
            json!({"tool_choice": {"tools": ["bash"]}}),
            json!({"history": {"keep_last": 3}}),
            json!({"additional_params": {"a": [1]}}),
            json!({"preamble": "p", "max_tokens": 10, "extra_context": ["c"]}),
        ],
        vec![],
        vec![
            json!({}),
            json!({"temperature": 9}),
            json!({"temperature": "hot"}),
            json!({"tool_choice": "always"}),
            json!({"tool_choice": {"tools": []}}),
            json!({"tool_choice": 3}),
            json!({"history": {}}),
            json!({"max_tokens": 0}),
            json!({"additional_params": 1}),
            json!({"extra_context": []}),
            json!({"active_tools": ["a", 1]}),
            json!({"preamble": "p", "bogus": 1}),
        ],
    );
    let rewrite = mix(
        vec![
            json!([{"op": "set", "pointer": "/a", "value": 1}]),
            json!([{"op": "set", "pointer": "/a", "value": null}, {"op": "remove", "pointer": "/b"}]),
        ],
        vec![],
        vec![
            json!([]),
            json!([{"op": "remove", "pointer": "/a", "value": 1}]),
            json!([{"op": "set", "pointer": "a"}]),
            json!([{"op": "x", "pointer": "/a"}]),
            json!([{"pointer": "/a"}]),
            json!([{"op": "remove"}]),
            json!(["x"]),
            json!({"op": "remove", "pointer": "/a"}),
        ],
    );
    let inject = mix(
        vec![json!({"content": "c"})],
        vec![],
        vec![json!({"content": 1}), json!({})],
    );
    prop_oneof![
        3 => keyed("run", run),
        2 => keyed("block", reason.clone()),
        1 => keyed("terminate", reason),
        1 => keyed("patch", patch),
        1 => keyed("rewrite", rewrite),
        1 => keyed("inject", inject),
    ]
}

fn optional(
    key: &'static str,
    present_weight: u32,
    values: BoxedStrategy<Value>,
) -> impl Strategy<Value = Option<(String, Value)>> {
    prop_oneof![
        present_weight => values.prop_map(move |v| Some((key.to_owned(), v))),
        10 - present_weight => Just(None),
    ]
}

fn hook() -> impl Strategy<Value = Value> {
    let other_phases: Vec<Value> = hooks_schema::Phase::ALL
        .iter()
        .map(|p| json!(p.as_str()))
        .collect();
    let phase = prop_oneof![
        4 => Just(json!("before_tool")),
        3 => Just(json!("after_tool")),
        1 => Just(json!("before_completion")),
        2 => pick(other_phases),
        1 => pick(vec![json!("PreToolUse"), json!("befor_tool"), json!(3)]),
    ]
    .boxed();
    (
        (
            optional(
                "id",
                10,
                mix(
                    vec![
                        json!("a"),
                        json!("b"),
                        json!("c-1"),
                        json!("d_2"),
                        json!("e"),
                    ],
                    vec![],
                    vec![json!("Bad Id"), json!(1), json!("")],
                ),
            ),
            optional("phase", 10, phase),
            optional(
                "include_tools",
                4,
                mix(
                    vec![json!(["bash"]), json!([{"regex": "b.*"}, "mcp__*"])],
                    vec![json!([{"regex": "(b"}]), json!(["[x"])],
                    vec![json!([{"name": "x"}]), json!([]), json!("bash")],
                ),
            ),
            optional(
                "exclude_tools",
                2,
                mix(
                    vec![json!(["mcp__*"])],
                    vec![],
                    vec![json!([{"regex": "x", "y": 1}])],
                ),
            ),
            optional("when", 5, predicate().boxed()),
        ),
        prop_oneof![
            1 => Just(0usize),
            12 => Just(1usize),
            1 => Just(2usize),
        ]
        .prop_flat_map(|n| prop::collection::vec(action(), n..=n)),
        (
            optional(
                "failure_policy",
                3,
                mix(
                    vec![
                        json!("ignore"),
                        json!("warn"),
                        json!("fail"),
                        json!("block"),
                    ],
                    vec![],
                    vec![json!("blok")],
                ),
            ),
            optional(
                "mode",
                2,
                mix(
                    vec![json!("enforce"), json!("audit")],
                    vec![],
                    vec![json!("dry")],
                ),
            ),
            optional(
                "enabled",
                2,
                mix(vec![json!(true), json!(false)], vec![], vec![json!("yes")]),
            ),
            optional(
                "show_in_tui",
                2,
                mix(vec![json!(true)], vec![], vec![json!(1)]),
            ),
            optional(
                "parallel",
                3,
                mix(vec![json!(true), json!(false)], vec![], vec![json!("yes")]),
            ),
            optional(
                "async",
                3,
                mix(vec![json!(true), json!(false)], vec![], vec![json!("yes")]),
            ),
            optional(
                "description",
                2,
                mix(vec![json!("d")], vec![], vec![json!(["d"]), json!(null)]),
            ),
            optional("matcher", 1, pick(vec![json!("Bash")])),
        ),
    )
        .prop_map(
            |((id, phase, inc, exc, when), actions, (fp, mode, en, tui, par, bg, desc, extra))| {
                let mut m = Map::new();
                for (k, v) in [
                    id, phase, inc, exc, when, fp, mode, en, tui, par, bg, desc, extra,
                ]
                .into_iter()
                .flatten()
                .chain(actions)
                {
                    m.insert(k, v);
                }
                Value::Object(m)
            },
        )
}

fn config() -> impl Strategy<Value = Value> {
    (
        optional("version", 9, mix(vec![json!(1)], vec![], vec![json!(2), json!("1")])),
        optional(
            "defaults",
            3,
            mix(
                vec![json!({"timeout": "5s", "failure_policy": "warn", "payload": "redacted"})],
                vec![json!({"timeout": "0ms"})],
                vec![json!({"failure_policy": "block"}), json!({"timeout": 5}), json!({"x": 1}), json!([])],
            ),
        ),
        optional(
            "limits",
            3,
            mix(
                vec![json!({"max_stop_resumes_per_turn": 2, "max_output_bytes": 1024})],
                vec![],
                vec![
                    json!({"max_output_bytes": 0}),
                    json!({"max_context_bytes": -1}),
                    json!({"max_payload_bytes": 10}),
                    json!({"max_bytes": 1}),
                ],
            ),
        ),
        optional(
            "tool_settings",
            3,
            mix(
                vec![json!({"write_file": {"path_pointers": ["/path"], "writes": true}})],
                vec![],
                vec![
                    json!({"write_file": {"path_pointers": ["path"]}}),
                    json!({"write_file": {"writes": "yes"}}),
                    json!({"write_file": []}),
                ],
            ),
        ),
        prop_oneof![
            12 => prop::collection::vec(hook(), 0..4).prop_map(|h| Some(("hooks".to_owned(), Value::Array(h)))),
            1 => Just(None),
            1 => Just(Some(("hooks".to_owned(), json!({"a": 1})))),
        ],
    )
        .prop_map(|(v, d, l, t, h)| Value::Object([v, d, l, t, h].into_iter().flatten().collect()))
}

/// Configs that are schema-valid but break one semantic rule, mixed into
/// otherwise valid hooks.
fn semantic_config() -> impl Strategy<Value = Value> {
    let defect = pick(vec![
        json!({"id": "dup", "phase": "stop", "terminate": {"reason": "r"}}),
        json!({"id": "rx", "phase": "before_tool", "when": {"pointer": "/c", "matches": "a(b"}, "block": {"reason": "r"}}),
        json!({"id": "gl", "phase": "before_tool", "include_tools": ["fs__[rw"], "block": {"reason": "r"}}),
        json!({"id": "tr", "phase": "after_tool", "exclude_tools": [{"regex": "x{2,1}"}], "inject": {"content": "c"}}),
        json!({"id": "wg", "phase": "after_tool", "when": {"not": {"pointer": "/p", "glob": "{a"}}, "inject": {"content": "c"}}),
    ]);
    let valid = pick(vec![
        json!({"id": "dup", "phase": "before_tool", "block": {"reason": "r"}}),
        json!({"id": "ok-1", "phase": "after_tool", "run": {"argv": ["sh", "x"]}}),
        json!({"id": "ok-2", "phase": "before_completion", "patch": {"temperature": 1}}),
    ]);
    (prop::collection::vec(valid, 1..3), defect, any::<bool>()).prop_map(
        |(mut hooks, defect, first)| {
            if first {
                hooks.insert(0, defect);
            } else {
                hooks.push(defect);
            }
            json!({"version": 1, "hooks": hooks})
        },
    )
}

const FRAGMENTS: &[&str] = &[
    "version: 1",
    "hooks:",
    "  - id: a",
    "    phase: before_tool",
    "    block: {reason: x}",
    "    run:",
    "      command: x",
    "      timeout: 5s",
    "\t",
    "&a",
    "*a",
    "[",
    "]",
    "{",
    "}",
    ":",
    "- ",
    "'",
    "\"",
    "|",
    ">",
    "---",
    "...",
    "<<: *a",
    "# c",
    "!!str",
    "!tag",
    "? ",
    "hooks: []",
    "      argv: []",
    "  - ",
    "    when: {pointer: /x, matches: '('}",
    "\u{feff}",
    "key: &x [*x]",
    "%YAML 1.2",
    "- &b {a: *b}",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings_never_panic(s in "\\PC{0,300}") {
        check_invariants(&s);
    }

    #[test]
    fn yaml_ish_documents_never_panic(
        lines in prop::collection::vec((0usize..FRAGMENTS.len(), 0usize..6), 0..30)
    ) {
        let mut doc = String::new();
        for (i, indent) in lines {
            doc.push_str(&" ".repeat(indent));
            doc.push_str(FRAGMENTS[i]);
            doc.push('\n');
        }
        check_invariants(&doc);
    }

    #[test]
    fn generated_configs_keep_the_schema_loader_contract(
        config in prop_oneof![4 => config(), 1 => semantic_config()]
    ) {
        // JSON text is YAML 1.2 flow syntax.
        let text = serde_json::to_string_pretty(&config).unwrap();
        check_invariants(&text);
    }
}

/// The generator exercises both verdicts, so the contract property above
/// is not vacuous.
#[test]
fn generated_configs_include_valid_and_invalid_ones() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = prop_oneof![4 => config(), 1 => semantic_config()];
    let (mut ok, mut err, mut semantic_only) = (0, 0, 0);
    for _ in 0..400 {
        let value = strategy.new_tree(&mut runner).unwrap().current();
        let text = serde_json::to_string(&value).unwrap();
        match hooks_schema::load_str(&text, "gen.yaml") {
            Ok(_) => ok += 1,
            Err(_) if hooks_schema::schema_accepts(&value) => semantic_only += 1,
            Err(_) => err += 1,
        }
    }
    eprintln!("generated: {ok} valid, {err} schema-invalid, {semantic_only} semantic-only");
    assert!(ok >= 5, "only {ok} valid configs generated");
    assert!(err >= 100, "only {err} schema-invalid configs generated");
    assert!(
        semantic_only >= 2,
        "only {semantic_only} semantic-only configs generated"
    );
    eprintln!("generated: {ok} valid, {err} schema-invalid, {semantic_only} semantic-only");
}

/// Single defects, one per document: each is either rejected by the schema
/// too, or reported by the semantic layer only.
#[test]
fn single_defects_are_labelled_by_the_layer_that_catches_them() {
    let hooks = [
        json!({"id": "a", "phase": "after_tool", "run": {"command": "x", "cwd": ""}}),
        json!({"id": "a", "phase": "after_tool", "run": {"argv": [""]}}),
        json!({"id": "a", "phase": "after_tool", "run": {"argv": ["x", ""]}}),
        json!({"id": "a", "phase": "after_tool", "run": {"command": "x", "env": {"set": {"A": 1}}}}),
        json!({"id": "a", "phase": "after_tool", "description": ""}),
        json!({"id": "a", "phase": "stop", "terminate": {"reason": ""}}),
        json!({"id": "a", "phase": "after_tool", "inject": {"content": ""}}),
        json!({"id": "a", "phase": "before_completion", "patch": {"active_tools": []}}),
        json!({"id": "a", "phase": "before_completion", "patch": {"tool_choice": {"tools": [""]}}}),
        json!({"id": "a", "phase": "before_completion", "patch": {"max_tokens": 1.5}}),
        json!({"id": "a", "phase": "before_tool", "when": {"all": []}, "block": {"reason": "r"}}),
        json!({"id": "a", "phase": "before_tool", "when": {"pointer": "", "exists": true}, "block": {"reason": "r"}}),
        json!({"id": "a", "phase": "before_tool", "include_tools": [""], "block": {"reason": "r"}}),
        json!({"id": "a", "phase": "before_tool", "include_tools": [{"regex": ""}], "block": {"reason": "r"}}),
    ];
    for hook in hooks {
        let config = json!({"version": 1, "hooks": [hook]});
        check_invariants(&serde_json::to_string_pretty(&config).unwrap());
    }
    for top in [
        json!({"version": 1.0, "hooks": []}),
        json!({"version": 1, "limits": {"max_output_bytes": 1024.0}, "hooks": []}),
        json!({"version": 1, "tool_settings": {"": {}}, "hooks": []}),
        json!({"version": 1, "tool_settings": {"x": {"path_pointers": []}}, "hooks": []}),
    ] {
        check_invariants(&serde_json::to_string_pretty(&top).unwrap());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, .. ProptestConfig::default() })]

    /// The schema's duration pattern accepts exactly what `Duration::parse` accepts.
    #[test]
    fn duration_pattern_matches_the_parser(
        digits in prop_oneof!["[0-9]{1,8}", "0{0,3}(1|10|59|60|99|100|599|600|601|99999|100000|599999|600000|600001)"],
        unit in prop_oneof![Just("ms"), Just("s"), Just("m"), Just("h"), Just("")],
    ) {
        let text = format!("{digits}{unit}");
        let schema = json!({"type": "string", "pattern": hooks_schema::DURATION_PATTERN});
        let validator = jsonschema::validator_for(&schema).unwrap();
        prop_assert_eq!(
            validator.is_valid(&json!(text)),
            hooks_schema::Duration::parse(&text).is_ok(),
            "{}", text
        );
    }
}
