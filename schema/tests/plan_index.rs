//! The per-phase index selects exactly the rules a rule-by-rule evaluation
//! selects ([`Rule::matches`] over [`Plan::rules_for`]), in the same order,
//! on random configs and random events: exact tools, globs and regexes in
//! `include_tools` and `exclude_tools`, disabled rules, and `when` trees of
//! `all` / `any` / `not` over `matches`, `glob`, `equals` and `exists` on
//! shared and distinct pointers (a Unicode `\b` whose DFA gives up on
//! non-ASCII text included).

use hooks_schema::Phase;
use hooks_schema::plan::{Facts, Plan, Subject};
use proptest::prelude::*;
use serde_json::{Value, json};

const TOOLS: &[&str] = &[
    "bash",
    "fs_read",
    "fs_write",
    "mcp__a__x",
    "mcp__b__y",
    "web_get",
];
const TOOL_PATTERNS: &[&str] = &[
    "bash",
    "fs_read",
    "\"fs_*\"",
    "\"mcp__a__*\"",
    "\"mcp__*\"",
    "{regex: \"web_(get|post)\"}",
    "{regex: \"fs_(read|stat)\"}",
    "web_get",
];
const POINTERS: &[&str] = &["/command", "/path", "/a/b", ""];
const LEAVES: &[&str] = &[
    "matches: 'rm\\s'",
    "matches: 'sudo'",
    "matches: '\\bcafé\\b'",
    "matches: '^ls'",
    "glob: \"*.env\"",
    "glob: \"/etc/**\"",
    "glob: \"rm*\"",
    "equals: \"ls\"",
    "exists: true",
    "exists: false",
];
const STRINGS: &[&str] = &[
    "rm -rf /",
    "sudo rm x",
    "ls -la",
    "ls",
    "un café noir",
    "/etc/passwd",
    "a.env",
    "rm.env",
    "",
];

fn when(leaves: &[(usize, usize)], shape: usize) -> String {
    let leaf =
        |&(p, l): &(usize, usize)| format!("{{pointer: \"{}\", {}}}", POINTERS[p], LEAVES[l]);
    let items: Vec<String> = leaves.iter().map(leaf).collect();
    match (shape, items.as_slice()) {
        (_, []) => String::new(),
        (0, [one, ..]) => one.clone(),
        (1, _) => format!("{{all: [{}]}}", items.join(", ")),
        (2, _) => format!("{{any: [{}]}}", items.join(", ")),
        (3, [one, ..]) => format!("{{not: {one}}}"),
        (_, [one, rest @ ..]) => format!("{{all: [{{any: [{}]}}, {one}]}}", rest.join(", ")),
    }
}

#[derive(Debug, Clone)]
struct RuleSpec {
    user_prompt: bool,
    enabled: bool,
    include: Vec<usize>,
    exclude: Vec<usize>,
    leaves: Vec<(usize, usize)>,
    shape: usize,
}

fn rule_spec() -> impl Strategy<Value = RuleSpec> {
    (
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.9),
        prop::collection::vec(0..TOOL_PATTERNS.len(), 0..3),
        prop::collection::vec(0..TOOL_PATTERNS.len(), 0..2),
        prop::collection::vec((0..POINTERS.len(), 0..LEAVES.len()), 0..4),
        0..5usize,
    )
        .prop_map(
            |(user_prompt, enabled, include, exclude, mut leaves, shape)| {
                if user_prompt {
                    // The prompt is a text: only `""` addresses it (any
                    // other pointer is an `unresolvable-pointer` error).
                    for (pointer, _) in &mut leaves {
                        *pointer = POINTERS.len() - 1;
                    }
                }
                RuleSpec {
                    user_prompt,
                    enabled,
                    include,
                    exclude,
                    leaves,
                    shape,
                }
            },
        )
}

fn yaml(rules: &[RuleSpec]) -> String {
    let mut out = String::from("version: 1\nhooks:\n");
    for (i, r) in rules.iter().enumerate() {
        out.push_str(&format!("  - id: r{i}\n"));
        if r.user_prompt {
            out.push_str("    phase: user_prompt\n");
        } else {
            out.push_str("    phase: before_tool\n");
            let list = |ids: &[usize]| {
                ids.iter()
                    .map(|&t| TOOL_PATTERNS[t])
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if !r.include.is_empty() {
                out.push_str(&format!("    include_tools: [{}]\n", list(&r.include)));
            }
            if !r.exclude.is_empty() {
                out.push_str(&format!("    exclude_tools: [{}]\n", list(&r.exclude)));
            }
        }
        if !r.enabled {
            out.push_str("    enabled: false\n");
        }
        let w = when(&r.leaves, r.shape);
        if !w.is_empty() {
            out.push_str(&format!("    when: {w}\n"));
        }
        out.push_str(if r.user_prompt {
            "    terminate: {reason: no}\n"
        } else {
            "    block: {reason: no}\n"
        });
    }
    out
}

fn by_rule<'a>(plan: &'a Plan, facts: &Facts<'a>) -> Vec<u32> {
    plan.rules_for(facts.phase)
        .iter()
        .copied()
        .filter(|&i| plan.rules[i as usize].matches(facts))
        .collect()
}

fn args() -> impl Strategy<Value = Value> {
    (
        prop::option::of(0..STRINGS.len()),
        prop::option::of(0..STRINGS.len()),
        prop::option::of(0..STRINGS.len()),
        prop::bool::ANY,
    )
        .prop_map(|(c, p, b, number)| {
            let mut v = json!({});
            if let Some(c) = c {
                v["command"] = if number { json!(7) } else { json!(STRINGS[c]) };
            }
            if let Some(p) = p {
                v["path"] = json!(STRINGS[p]);
            }
            if let Some(b) = b {
                v["a"] = json!({"b": STRINGS[b]});
            }
            v
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn the_index_selects_what_rule_by_rule_matching_selects(
        rules in prop::collection::vec(rule_spec(), 1..24),
        events in prop::collection::vec((0..TOOLS.len(), args(), 0..STRINGS.len()), 1..12),
    ) {
        let source = yaml(&rules);
        let compiled = hooks_schema::compile_str(&source, "random.yaml")
            .unwrap_or_else(|d| panic!("{source}\n{d}"));
        let plan = &compiled.plan;
        for (tool, args, prompt) in &events {
            let tool_facts = Facts {
                phase: Phase::BeforeTool,
                tool: Some(TOOLS[*tool]),
                subject: Subject::Json(args),
                args: Some(args),
                outcome: None,
                admission: None,
            };
            let prompt_facts = Facts {
                phase: Phase::UserPrompt,
                tool: None,
                subject: Subject::Text(STRINGS[*prompt]),
                args: None,
                outcome: None,
                admission: None,
            };
            for facts in [tool_facts, prompt_facts] {
                let indexed: Vec<u32> = plan.matching(facts).collect();
                prop_assert_eq!(&indexed, &by_rule(plan, &facts), "{}\n{:?}", source, facts);
            }
        }
    }
}
