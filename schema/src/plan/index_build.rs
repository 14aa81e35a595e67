//! Building the per-phase index of a plan ([`PhaseIndex`]) from a config's
//! enabled rules: the tool table, the multi-pattern DFAs and the `when`
//! gates that [`Cursor`](hooks_plan::Cursor) searches at run time.

use hooks_plan::{Bits, Gate, List, PatternGroup, PhaseIndex, Text};

use super::lower::DfaCache;
use crate::automata::{self, PatternError, Search};
use crate::config::{ArgTest, Hook, Predicate};

/// One pattern for a group: its regex and whether it is anchored.
struct Pattern {
    regex: String,
    anchored: bool,
    position: u32,
}

/// The index of a phase whose enabled rules are `hooks`, in declared order
/// (a failure names the position of the offending rule, its key and the
/// message).
pub(super) fn build(
    hooks: &[&Hook],
    cache: &mut DfaCache,
) -> Result<PhaseIndex, (usize, String, String)> {
    let mut any_tool = Vec::new();
    let mut names: Vec<(String, Vec<u32>)> = Vec::new();
    let mut tool_patterns = Vec::new();
    let mut ungated = Vec::new();
    let mut gates: Vec<(Vec<String>, Vec<Pattern>)> = Vec::new();
    for (pos, hook) in hooks.iter().enumerate() {
        let position = u32::try_from(pos).unwrap_or(u32::MAX);
        let err = |key: &str, m: String| (pos, key.to_owned(), m);
        if !hook.phase.is_tool_phase() || hook.include_tools.is_empty() {
            any_tool.push(position);
        } else {
            for pattern in &hook.include_tools {
                match pattern.literal() {
                    Some(name) => match names.iter_mut().find(|(n, _)| n == name) {
                        Some((_, ps)) => ps.push(position),
                        None => names.push((name.to_owned(), vec![position])),
                    },
                    None => tool_patterns.push(Pattern {
                        regex: pattern
                            .to_regex()
                            .map_err(|e| err("/include_tools", e.to_string()))?,
                        anchored: true,
                        position,
                    }),
                }
            }
        }
        match hook.when.as_ref().and_then(|w| gate_leaf(w, hook.phase)) {
            Some((pointer, pattern)) => {
                let tokens =
                    automata::pointer_tokens(pointer).map_err(|e| err("/when", e.to_string()))?;
                let (regex, anchored) = pattern.map_err(|e| err("/when", e.to_string()))?;
                let pattern = Pattern {
                    regex,
                    anchored,
                    position,
                };
                match gates.iter_mut().find(|(p, _)| *p == tokens) {
                    Some((_, ps)) => ps.push(pattern),
                    None => gates.push((tokens, vec![pattern])),
                }
            }
            None => ungated.push(position),
        }
    }
    names.sort_by(|a, b| a.0.cmp(&b.0));
    let gates = gates
        .into_iter()
        .map(|(pointer, patterns)| {
            Ok(Gate {
                pointer: pointer.into_iter().map(Text::from).collect(),
                groups: List::Owned(groups(&patterns, cache)?),
            })
        })
        .collect::<Result<List<Gate>, (u32, String)>>()
        .map_err(|(p, m)| (p as usize, "/when".to_owned(), m))?;
    Ok(PhaseIndex {
        any_tool: Bits::of(&any_tool),
        tools: names
            .into_iter()
            .map(|(n, ps)| (Text::from(n), Bits::of(&ps)))
            .collect(),
        tool_patterns: List::Owned(
            groups(&tool_patterns, cache)
                .map_err(|(p, m)| (p as usize, "/include_tools".to_owned(), m))?,
        ),
        ungated: Bits::of(&ungated),
        gates,
    })
}

/// A gate leaf's regex and whether it is anchored, or why it has none.
type LeafRegex = Result<(String, bool), PatternError>;

/// The leaf a rule's `when` cannot hold without, as its pointer, the regex
/// of its test (a glob as its anchored regex) and whether that regex is
/// anchored: a `matches` or `glob` at the top or, recursively, under `all`.
fn gate_leaf(p: &Predicate, phase: crate::Phase) -> Option<(&str, LeafRegex)> {
    match p {
        // A test on the arguments beside the phase's subject is decided per
        // rule, like `outcome` and permission rules.
        Predicate::Arg { subject, .. } if crate::config::addresses_args(*subject, phase) => None,
        Predicate::Arg { pointer, test, .. } => match test {
            ArgTest::Matches(re) => Some((pointer, Ok((re.clone(), false)))),
            ArgTest::Glob(g) => Some((pointer, crate::glob_to_regex(g).map(|r| (r, true)))),
            ArgTest::Equals(_) | ArgTest::Exists(_) => None,
        },
        Predicate::All(items) => items.iter().find_map(|i| gate_leaf(i, phase)),
        Predicate::Any(_)
        | Predicate::Not(_)
        | Predicate::Outcome(_)
        | Predicate::Permission(_) => None,
    }
}

/// `patterns` as one group: a lone pattern's DFA comes from `cache`
/// (validation built it already); several are one dense DFA or one lazily
/// built automaton, as [`DfaCache::group`] decides in one attempt at most.
fn groups(patterns: &[Pattern], cache: &mut DfaCache) -> Result<Vec<PatternGroup>, (u32, String)> {
    if patterns.is_empty() {
        return Ok(Vec::new());
    }

    let anchored = patterns.iter().all(|p| p.anchored);
    let search = if anchored {
        Search::Anchored
    } else {
        Search::Unanchored
    };
    let dfa = if let [one] = patterns {
        cache
            .owned(&one.regex, search)
            .map_err(|e| (one.position, e.to_string()))?
    } else {
        let regexes: Vec<String> = patterns.iter().map(|p| p.regex.clone()).collect();
        match cache.group(&regexes, search) {
            Ok(dfa) => dfa,
            // Too many patterns for one automaton (their NFA over the
            // regex crate's size limit: many Unicode classes): two halves,
            // each its own group, down to single patterns (which
            // validation compiled alone).
            Err(_) => {
                let (left, right) = patterns.split_at(patterns.len() / 2);
                let mut split = groups(left, cache)?;
                split.extend(groups(right, cache)?);
                return Ok(split);
            }
        }
    };
    Ok(vec![PatternGroup {
        dfa,
        anchored,
        positions: patterns.iter().map(|p| p.position).collect(),
    }])
}

#[cfg(test)]
mod tests {
    use crate::Phase;
    use hooks_plan::{Facts, Plan, Subject};
    use serde_json::json;

    const CONFIG: &str = r#"
version: 1
hooks:
  - { id: r0, phase: before_tool, include_tools: [bash], block: { reason: no } }
  - { id: r1, phase: before_tool, include_tools: [tool_x], block: { reason: no } }
  - { id: r2, phase: before_tool, include_tools: ["mcp__*"], block: { reason: no } }
  - id: r3
    phase: before_tool
    when: { pointer: /command, matches: 'rm\s' }
    block: { reason: no }
  - id: r4
    phase: before_tool
    include_tools: [bash, { regex: "sh|zsh" }]
    when: { all: [{ pointer: /n, exists: true }, { pointer: /path, glob: "*.env" }] }
    block: { reason: no }
  - id: r5
    phase: before_tool
    include_tools: [bash]
    when: { any: [{ pointer: /command, matches: 'x' }] }
    block: { reason: no }
  - { id: off, phase: before_tool, enabled: false, block: { reason: no } }
  - { id: p, phase: user_prompt, when: { pointer: "", matches: 'secret' }, terminate: { reason: no } }
"#;

    fn plan() -> Plan {
        let (config, _, mut cache) = crate::load::checked_for_tests(CONFIG, "i.yaml");
        super::super::lower::lower(&config, "i.yaml", &mut cache).expect("lowers")
    }

    fn positions(plan: &Plan, facts: &Facts<'_>) -> Vec<usize> {
        let phase = plan.rules_for(facts.phase);
        plan.index[facts.phase.index()].candidates(phase.len(), facts)
    }

    fn tool<'a>(name: &'a str, args: &'a serde_json::Value) -> Facts<'a> {
        Facts {
            phase: Phase::BeforeTool,
            tool: Some(name),
            subject: Subject::Json(args),
            args: Some(args),
            outcome: None,
            admission: None,
        }
    }

    /// The index names only the rules whose tool and gate leaf can match:
    /// rules on other tools and rules whose `when` leaf misses are not
    /// visited at all.
    #[test]
    fn candidates_are_the_rules_that_can_match() {
        let plan = plan();
        let quiet = json!({"command": "ls", "path": "a.txt", "n": 1});
        assert_eq!(positions(&plan, &tool("bash", &quiet)), [0, 5]);
        let loud = json!({"command": "rm x", "path": "a.env", "n": 1});
        assert_eq!(positions(&plan, &tool("bash", &loud)), [0, 3, 4, 5]);
        assert_eq!(positions(&plan, &tool("zsh", &loud)), [3, 4]);
        assert_eq!(positions(&plan, &tool("mcp__a", &quiet)), [2]);
        assert_eq!(
            positions(&plan, &tool("tool_y", &quiet)),
            Vec::<usize>::new()
        );
        // A non-string value misses every `matches` / `glob` gate.
        let number = json!({"command": 7, "path": 8});
        assert_eq!(positions(&plan, &tool("bash", &number)), [0, 5]);
        let prompt = |text| Facts {
            phase: Phase::UserPrompt,
            tool: None,
            subject: Subject::Text(text),
            args: None,
            outcome: None,
            admission: None,
        };
        assert_eq!(positions(&plan, &prompt("hello")), Vec::<usize>::new());
        assert_eq!(positions(&plan, &prompt("a secret")), [0]);
        // Selection still decides each candidate: `r4` needs `/n`.
        let no_n = json!({"command": "rm x", "path": "a.env"});
        let matched: Vec<u32> = plan.matching(tool("bash", &no_n)).collect();
        assert_eq!(matched, [0, 3, 5]);
    }

    /// More patterns on one subject than one lazily built automaton takes
    /// (their NFA over its size limit) are split into groups, and the index
    /// still names exactly the rules whose pattern matches, in every group.
    #[test]
    fn a_subject_with_many_patterns_is_split_into_groups_that_miss_nothing() {
        let mut yaml = String::from("version: 1\nhooks:\n");
        for i in 0..300 {
            yaml.push_str(&format!(
                "  - {{ id: r{i}, phase: before_tool, when: {{ pointer: /c, matches: '\\w+secret{i}x\\w*' }}, block: {{ reason: no }} }}\n"
            ));
        }
        let (config, _, mut cache) = crate::load::checked_for_tests(&yaml, "many.yaml");
        let plan = super::super::lower::lower(&config, "many.yaml", &mut cache).expect("lowers");
        let gate_groups: usize = plan.index[Phase::BeforeTool.index()]
            .gates
            .iter()
            .map(|g| g.groups.len())
            .sum();
        assert!(gate_groups >= 2, "{gate_groups} groups");
        for hits in [vec![0], vec![7, 250], vec![127, 128, 299], vec![]] {
            let text: Vec<String> = hits.iter().map(|i| format!("ésecret{i}x")).collect();
            let args = json!({"c": text.join(" ")});
            assert_eq!(positions(&plan, &tool("bash", &args)), hits, "{args}");
        }
    }

    /// A DFA that gives up (a Unicode word boundary on non-ASCII text)
    /// hands the haystack to its fallback, which names exactly the rules
    /// whose pattern matches: none dropped, none added.
    #[test]
    fn a_dfa_that_gives_up_names_its_rules_through_the_fallback() {
        let (config, _, mut cache) = crate::load::checked_for_tests(
            "version: 1\nhooks:\n  - { id: w, phase: before_tool, when: { pointer: /c, matches: '\\bcafé\\b' }, block: { reason: no } }\n  - { id: v, phase: before_tool, when: { pointer: /c, matches: 'x' }, block: { reason: no } }\n",
            "w.yaml",
        );
        let plan = super::super::lower::lower(&config, "w.yaml", &mut cache).expect("lowers");
        let args = json!({"c": "un café"});
        assert_eq!(positions(&plan, &tool("bash", &args)), [0]);
        let both = json!({"c": "un café x"});
        assert_eq!(positions(&plan, &tool("bash", &both)), [0, 1]);
        let glued = json!({"c": "cafés"});
        assert_eq!(positions(&plan, &tool("bash", &glued)), Vec::<usize>::new());
        let ascii = json!({"c": "tea"});
        assert_eq!(positions(&plan, &tool("bash", &ascii)), Vec::<usize>::new());
    }
}
