//! Every compiled matcher gives the answer of the library that defines its
//! syntax, on every input: `matches` leaves and `{regex: ...}` tool patterns
//! the `regex` crate's, `glob` leaves and glob tool patterns `globset`'s.
//! Patterns and inputs are random and Unicode-heavy (word boundaries,
//! `\w`, case-insensitive classes, accents, CJK, emoji): where a DFA gives
//! up on non-ASCII input, its fallback must decide, never "no match". The
//! rules are matched through the plan's index ([`Plan::matching`]), so
//! the multi-pattern DFAs of the index are compared too.

use hooks_schema::Phase;
use hooks_schema::plan::{Facts, Plan, Subject};
use proptest::prelude::*;
use serde_json::json;

const REGEX_PARTS: &[&str] = &[
    r"\b",
    r"\B",
    r"\w+",
    r"\W",
    r"(?i)rm",
    r"(?i:été)",
    r"é",
    r"\p{Greek}",
    r"[à-ü]+",
    r"rm\s+-rf",
    r"\s",
    r".",
    r"^",
    r"$",
    r"\d",
    r"caf\w",
    r"(?-u:\b)x",
    r"σ",
    r"(?i)Σ",
    r"日",
    r"a|é",
];

const GLOB_PARTS: &[&str] = &[
    "*", "?", "[a-é]", "é", "rm", " ", "-rf", "日*", "{a,é}", "[!x]", "/", "**",
];

const CHARS: &[char] = &[
    'a', 'r', 'm', 'x', ' ', '-', 'f', 'é', 'É', 'ß', 'Σ', 'σ', 'ς', '日', '😀', '\t', '\n', '1',
    '_', '\u{212a}', 'k', '/', 'c',
];

fn pattern(parts: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(parts), 1..4).prop_map(|p| p.concat())
}

fn input() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(CHARS), 0..14).prop_map(|c| c.into_iter().collect())
}

fn yaml_str(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

fn glob(pattern: &str) -> Option<globset::GlobMatcher> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(false)
        .backslash_escape(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

/// A config of one `before_tool` rule per leaf (`matches` or `glob` on
/// `/command`), then one per tool pattern; the patterns that do not
/// compile are left out.
fn config(regexes: &[String], globs: &[String], tool_regexes: &[String]) -> String {
    let mut out = String::from("version: 1\nhooks:\n");
    let mut n = 0;
    let mut rule = |body: String| {
        out.push_str(&format!(
            "  - id: r{n}\n    phase: before_tool\n{body}    block: {{reason: no}}\n"
        ));
        n += 1;
    };
    for r in regexes {
        rule(format!(
            "    when: {{pointer: /command, matches: {}}}\n",
            yaml_str(r)
        ));
    }
    for g in globs {
        rule(format!(
            "    when: {{pointer: /command, glob: {}}}\n",
            yaml_str(g)
        ));
    }
    for t in tool_regexes {
        rule(format!("    include_tools: [{{regex: {}}}]\n", yaml_str(t)));
    }
    out
}

fn matching(plan: &Plan, tool: &str, command: &str) -> Vec<u32> {
    let args = json!({ "command": command });
    let facts = Facts {
        phase: Phase::BeforeTool,
        tool: Some(tool),
        subject: Subject::Json(&args),
        args: Some(&args),
        outcome: None,
        admission: None,
    };
    let indexed: Vec<u32> = plan.matching(facts).collect();
    let by_rule: Vec<u32> = plan
        .rules_for(Phase::BeforeTool)
        .iter()
        .copied()
        .filter(|&i| plan.rules[i as usize].matches(&facts))
        .collect();
    assert_eq!(indexed, by_rule, "index and rules disagree on {command:?}");
    indexed
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn compiled_matchers_answer_as_regex_and_globset(
        regexes in prop::collection::vec(pattern(REGEX_PARTS), 1..5),
        globs in prop::collection::vec(pattern(GLOB_PARTS), 0..4),
        tool_regexes in prop::collection::vec(pattern(REGEX_PARTS), 0..3),
        inputs in prop::collection::vec(input(), 1..8),
    ) {
        let regexes: Vec<String> = regexes.into_iter().filter(|r| regex::Regex::new(r).is_ok()).collect();
        let globs: Vec<String> = globs.into_iter().filter(|g| glob(g).is_some()).collect();
        let tool_regexes: Vec<String> = tool_regexes
            .into_iter()
            .filter(|r| regex::Regex::new(&format!("^(?:{r})$")).is_ok())
            .collect();
        let source = config(&regexes, &globs, &tool_regexes);
        let compiled = hooks_schema::compile_str(&source, "random.yaml")
            .unwrap_or_else(|d| panic!("{source}\n{d}"));
        let expected_regex: Vec<regex::Regex> =
            regexes.iter().map(|r| regex::Regex::new(r).expect("kept above")).collect();
        let expected_glob: Vec<globset::GlobMatcher> =
            globs.iter().map(|g| glob(g).expect("kept above")).collect();
        let expected_tool: Vec<regex::Regex> = tool_regexes
            .iter()
            .map(|r| regex::Regex::new(&format!("^(?:{r})$")).expect("kept above"))
            .collect();
        for text in &inputs {
            // The text is both the command and the tool's name.
            let got = matching(&compiled.plan, text, text);
            let mut want = Vec::new();
            let leaves = expected_regex.iter().map(|r| r.is_match(text))
                .chain(expected_glob.iter().map(|g| g.is_match(text)))
                .chain(expected_tool.iter().map(|r| r.is_match(text)));
            for (i, hit) in leaves.enumerate() {
                if hit {
                    want.push(u32::try_from(i).expect("few rules"));
                }
            }
            prop_assert_eq!(&got, &want, "{}\ninput {:?}", source, text);
        }
    }
}

#[test]
fn the_reference_guard_blocks_non_ascii_variants() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/hooks.yaml");
    // Its `policy` file resolves against the repository root.
    let compiled = hooks_schema::Loader::new()
        .workspace(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .compile_file(&path)
        .unwrap_or_else(|d| panic!("{d}"));
    let plan = &compiled.plan;
    let rule = plan
        .rules
        .iter()
        .position(|r| r.id == "block-rm-rf")
        .and_then(|i| u32::try_from(i).ok())
        .expect("block-rm-rf");
    for command in [
        "cd /tmp/ete && rm -rf build",
        "cd /tmp/été && rm -rf build",
        "cd été && rm -rf build",
        "echo 日本 ; rm -fr /",
        "ls ü; rm -rf /",
        "Ωmega && rm -rf b",
    ] {
        let hits = matching(plan, "bash", command);
        assert!(hits.contains(&rule), "`{command}` is not blocked");
    }
    for command in ["cd été && rmx -rf build", "été rm -r build", "xrm -rf été"] {
        let hits = matching(plan, "bash", command);
        assert!(!hits.contains(&rule), "`{command}` is blocked");
    }
}

/// The plan of `n` word-boundary rules on `/command` (`\bcmdI\s+-rf\b`)
/// and the one of the reference config (`\brm\s+-rf\b`).
fn word_rules(n: usize) -> Plan {
    let mut s = String::from("version: 1\nhooks:\n");
    for i in 0..n {
        let word = if i == 0 {
            "rm".to_owned()
        } else {
            format!("cmd{i}")
        };
        s.push_str(&format!(
            "  - id: r{i}\n    phase: before_tool\n    when: {{ pointer: /command, matches: '\\b{word}\\s+-rf\\b' }}\n    block: {{ reason: no }}\n"
        ));
    }
    hooks_schema::compile_str(&s, "words.yaml")
        .unwrap_or_else(|d| panic!("{d}"))
        .plan
}

/// The time `plan` takes to select the rules of `command`, the best of
/// a few rounds of `rounds` selections.
fn selection_time(plan: &Plan, command: &str, rounds: u32) -> std::time::Duration {
    let args = json!({ "command": command });
    let facts = Facts {
        phase: Phase::BeforeTool,
        tool: Some("bash"),
        subject: Subject::Json(&args),
        args: Some(&args),
        outcome: None,
        admission: None,
    };
    (0..5)
        .map(|_| {
            let started = std::time::Instant::now();
            for _ in 0..rounds {
                std::hint::black_box(plan.matching(facts).count());
            }
            started.elapsed()
        })
        .min()
        .unwrap_or_default()
}

#[test]
fn non_ascii_input_costs_about_the_same_at_1000_rules_as_at_10() {
    // Once the DFAs gave up on non-ASCII input and every rule's regex ran:
    // 144-169 times slower at 1,000 rules than at 10. A generous bound (a
    // loaded 2-core machine, a debug build); the answers stay exact.
    let (few, many) = (word_rules(10), word_rules(1_000));
    let command = "cd /tmp/été && rm -rf build";
    assert_eq!(matching(&few, "bash", command), [0]);
    assert_eq!(matching(&many, "bash", command), [0]);
    let ratio = |text: &str| {
        let (a, b) = (
            selection_time(&few, text, 200),
            selection_time(&many, text, 200),
        );
        b.as_secs_f64() / a.as_secs_f64().max(1e-9)
    };
    let (ascii, accented) = (ratio("cd /tmp/ete && rm -rf build"), ratio(command));
    eprintln!("1,000 rules / 10 rules: {ascii:.1}× on ASCII, {accented:.1}× with `été`");
    assert!(accented < 20.0, "{accented:.1}× slower at 1,000 rules");
}
