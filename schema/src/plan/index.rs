//! The per-phase index of a plan: which rules can match an event, found
//! without visiting the others.
//!
//! For each phase the lowering indexes its enabled rules (by *position*: the
//! place of a rule in [`Plan::rules_for`]) two ways:
//!
//! - by tool: rules without `include_tools`, a sorted table of exact tool
//!   names, and every other `include_tools` pattern of the phase compiled
//!   into one multi-pattern DFA;
//! - by a `when` leaf the rule cannot match without (a `matches` or `glob`
//!   at the top of `when` or under `all`): the leaves of the phase on the
//!   same pointer are compiled into one multi-pattern DFA, searched once per
//!   event with an overlapping search that reports every pattern matching.
//!
//! A rule is a *candidate* when both say it can match. Candidates are a
//! superset of the matching rules; [`Cursor`] still decides each candidate
//! with [`Rule::matches`], so dispatch selects exactly the rules a rule by
//! rule evaluation selects, in declared order, while a miss costs one binary
//! search and one pass over each indexed string instead of one pass per rule.

use regex_automata::dfa::{Automaton, OverlappingState};
use regex_automata::{Anchored, Input};
use smallvec::SmallVec;

use super::data::{BuiltDfa, Dfa, List, Plan, Text};
use super::eval::{Facts, Subject, resolve};
use crate::automata::{self, Search};
use crate::config::{ArgTest, Hook, Predicate};
use crate::phase::Phase;

use super::lower::DfaCache;

/// A set of rule positions as 64-bit words, trimmed of leading and trailing
/// zero words: bit `b` of `words[w]` is position `64 * (offset + w) + b`.
#[derive(Debug, PartialEq)]
pub struct Bits {
    /// The index of the first stored word.
    pub offset: u32,
    /// The stored words.
    pub words: List<u64>,
}

impl Bits {
    /// The empty set.
    pub const EMPTY: Bits = Bits {
        offset: 0,
        words: List::EMPTY,
    };

    fn of(positions: &[u32]) -> Bits {
        let (Some(&lo), Some(&hi)) = (positions.iter().min(), positions.iter().max()) else {
            return Bits::EMPTY;
        };
        let (first, last) = (lo / 64, hi / 64);
        let mut words = vec![0u64; (last - first + 1) as usize];
        for &p in positions {
            words[(p / 64 - first) as usize] |= 1 << (p % 64);
        }
        Bits {
            offset: first,
            words: List::Owned(words),
        }
    }

    fn or_into(&self, out: &mut [u64]) {
        let start = self.offset as usize;
        for (o, w) in out.iter_mut().skip(start).zip(self.words.iter()) {
            *o |= w;
        }
    }
}

/// A multi-pattern DFA whose pattern `i` stands for the rule at position
/// `positions[i]`.
#[derive(Debug, PartialEq)]
pub struct PatternGroup {
    /// The DFA (built with `build_many`, every pattern kept apart).
    pub dfa: Dfa,
    /// How the DFA is searched.
    pub anchored: bool,
    /// The rule position of each pattern.
    pub positions: List<u32>,
}

impl PatternGroup {
    /// Sets the bit of every rule whose pattern matches `haystack`, with one
    /// overlapping search; when the DFA gives up (a Unicode word boundary on
    /// a non-ASCII haystack) the group's fallback names them (one
    /// allocation, on that input only). Otherwise never allocates.
    fn mark(&self, haystack: &str, out: &mut [u64]) {
        let anchored = if self.anchored {
            Anchored::Yes
        } else {
            Anchored::No
        };
        let input = Input::new(haystack).anchored(anchored);
        let mut state = OverlappingState::start();
        loop {
            let found = match &self.dfa {
                Dfa::Static(s) => s.get().try_search_overlapping_fwd(&input, &mut state),
                Dfa::Owned(d) => d.dfa.try_search_overlapping_fwd(&input, &mut state),
            };
            if found.is_err() {
                let search = if self.anchored {
                    Search::Anchored
                } else {
                    Search::Unanchored
                };
                let hits = self.dfa.fallback(search).matches(haystack.as_bytes());
                for i in hits.iter() {
                    if let Some(&p) = self.positions.get(i) {
                        set(out, p);
                    }
                }
                return;
            }
            match state.get_match() {
                Some(m) => {
                    if let Some(&p) = self.positions.get(m.pattern().as_usize()) {
                        set(out, p);
                    }
                }
                None => return,
            }
        }
    }
}

fn set(out: &mut [u64], position: u32) {
    if let Some(w) = out.get_mut(position as usize / 64) {
        *w |= 1 << (position % 64);
    }
}

/// The `matches` / `glob` leaves of one phase on one pointer, each the leaf
/// its rule cannot match without.
#[derive(Debug, PartialEq)]
pub struct Gate {
    /// The pointer's reference tokens.
    pub pointer: List<Text>,
    /// The leaves' patterns, in as few DFAs as the size limit allows
    /// (normally one).
    pub groups: List<PatternGroup>,
}

/// The index of one phase's enabled rules: its tool table and DFAs, and its
/// `when` gates ([`Plan::matching`] uses it).
#[derive(Debug, PartialEq)]
pub struct PhaseIndex {
    /// Positions of the rules without `include_tools` (every tool).
    pub any_tool: Bits,
    /// Exact `include_tools` names, sorted, with the positions naming them.
    pub tools: List<(Text, Bits)>,
    /// Every other `include_tools` pattern of the phase.
    pub tool_patterns: List<PatternGroup>,
    /// Positions of the rules without a gate leaf.
    pub ungated: Bits,
    /// Gate leaves, one entry per pointer.
    pub gates: List<Gate>,
}

impl PhaseIndex {
    /// The index of a phase without rules.
    pub const EMPTY: PhaseIndex = PhaseIndex {
        any_tool: Bits::EMPTY,
        tools: List::EMPTY,
        tool_patterns: List::EMPTY,
        ungated: Bits::EMPTY,
        gates: List::EMPTY,
    };
}

/// Candidate positions (inline up to 1,024 rules per phase, so selecting
/// allocates nothing below that).
type Words = SmallVec<[u64; 16]>;

fn candidates(index: &PhaseIndex, count: usize, facts: &Facts<'_>) -> Words {
    let n = count.div_ceil(64);
    let mut tool: Words = SmallVec::from_elem(0, n);
    match facts.tool {
        Some(name) => {
            index.any_tool.or_into(&mut tool);
            if let Ok(at) = index.tools.binary_search_by(|(n, _)| n.as_ref().cmp(name)) {
                index.tools[at].1.or_into(&mut tool);
            }
            for group in index.tool_patterns.iter() {
                group.mark(name, &mut tool);
            }
        }
        // Without a tool, `include_tools` is not tested.
        None => tool.iter_mut().for_each(|w| *w = u64::MAX),
    }
    if tool.iter().all(|w| *w == 0) {
        return tool;
    }
    let mut when: Words = SmallVec::from_elem(0, n);
    index.ungated.or_into(&mut when);
    for gate in index.gates.iter() {
        if let Some(text) = text_at(facts.subject, &gate.pointer) {
            for group in gate.groups.iter() {
                group.mark(text, &mut when);
            }
        }
    }
    for (t, w) in tool.iter_mut().zip(&when) {
        *t &= w;
    }
    tool
}

/// The string a `matches` / `glob` leaf on `pointer` tests, if any (the
/// rule of [`Pred::eval`](super::Pred::eval)).
fn text_at<'a>(subject: Subject<'a>, pointer: &[Text]) -> Option<&'a str> {
    match subject {
        Subject::Json(v) => resolve(v, pointer)?.as_str(),
        Subject::Text(t) if pointer.is_empty() => Some(t),
        Subject::Text(_) | Subject::None => None,
    }
}

/// Walks the rules of one phase that match an event, in declared order,
/// visiting only the index's candidates. Never allocates for phases of up to
/// 1,024 enabled rules.
///
/// Each call to [`Cursor::next`] is given the event's facts as they are
/// now: after a rule was returned (and its flow maybe rewrote the event)
/// the candidates are computed again, so every rule is judged on the event
/// as the rules before it left it, as in a rule-by-rule loop.
#[derive(Debug)]
pub struct Cursor<'p> {
    plan: &'p Plan,
    phase: Phase,
    next: usize,
    words: Option<Words>,
}

impl<'p> Cursor<'p> {
    /// A cursor over the enabled rules of `phase`.
    pub fn new(plan: &'p Plan, phase: Phase) -> Cursor<'p> {
        Cursor {
            plan,
            phase,
            next: 0,
            words: None,
        }
    }

    /// The index into [`Plan::rules`] of the next rule that matches `facts`
    /// (which must be of this cursor's phase), or `None` when no later rule
    /// does.
    pub fn next(&mut self, facts: &Facts<'_>) -> Option<u32> {
        let positions = self.plan.rules_for(self.phase);
        let index = &self.plan.index[self.phase.index()];
        let words = self
            .words
            .get_or_insert_with(|| candidates(index, positions.len(), facts));
        while let Some(pos) = next_set(words, self.next) {
            self.next = pos + 1;
            let Some(&i) = positions.get(pos) else {
                break;
            };
            if self.plan.rules[i as usize].matches(facts) {
                // The caller may rewrite the event before asking again.
                self.words = None;
                return Some(i);
            }
        }
        self.next = positions.len();
        None
    }
}

fn next_set(words: &[u64], from: usize) -> Option<usize> {
    let mut w = from / 64;
    let mut word = words.get(w)? & (u64::MAX << (from % 64));
    loop {
        if word != 0 {
            return Some(w * 64 + word.trailing_zeros() as usize);
        }
        w += 1;
        word = *words.get(w)?;
    }
}

impl Plan {
    /// The indices into [`Plan::rules`] of the enabled rules that match
    /// `facts`, in declared order, each judged on `facts` as given. Never
    /// allocates for phases of up to 1,024 enabled rules.
    pub fn matching<'p, 'e>(&'p self, facts: Facts<'e>) -> impl Iterator<Item = u32> + use<'p, 'e> {
        let mut cursor = Cursor::new(self, facts.phase);
        std::iter::from_fn(move || cursor.next(&facts))
    }
}

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
                        regex: pattern.to_regex().map_err(|m| err("/include_tools", m))?,
                        anchored: true,
                        position,
                    }),
                }
            }
        }
        match hook.when.as_ref().and_then(gate_leaf) {
            Some((pointer, pattern)) => {
                let tokens = automata::pointer_tokens(pointer).map_err(|m| err("/when", m))?;
                let (regex, anchored) = pattern.map_err(|m| err("/when", m))?;
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
type LeafRegex = Result<(String, bool), String>;

/// The leaf a rule's `when` cannot hold without, as its pointer, the regex
/// of its test (a glob as its anchored regex) and whether that regex is
/// anchored: a `matches` or `glob` at the top or, recursively, under `all`.
fn gate_leaf(p: &Predicate) -> Option<(&str, LeafRegex)> {
    match p {
        Predicate::Arg { pointer, test } => match test {
            ArgTest::Matches(re) => Some((pointer, Ok((re.clone(), false)))),
            ArgTest::Glob(g) => Some((pointer, crate::glob_to_regex(g).map(|r| (r, true)))),
            ArgTest::Equals(_) | ArgTest::Exists(_) => None,
        },
        Predicate::All(items) => items.iter().find_map(gate_leaf),
        Predicate::Any(_) | Predicate::Not(_) | Predicate::Outcome(_) => None,
    }
}

/// `patterns` in as few multi-pattern DFAs as the size limit allows: all in
/// one, else split in halves until each half fits. A lone pattern comes
/// from `cache` (validation built it already).
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
    let regexes: Vec<String> = patterns.iter().map(|p| p.regex.clone()).collect();
    let dfa = if let [one] = patterns {
        cache
            .build(&one.regex, search)
            .map_err(|m| (one.position, m))?
            .clone()
    } else {
        cache.count_build();
        match automata::build_dfa(&regexes, search) {
            Ok(dfa) => dfa,
            Err(_) => {
                let (a, b) = patterns.split_at(patterns.len() / 2);
                let mut out = groups(a, cache)?;
                out.extend(groups(b, cache)?);
                return Ok(out);
            }
        }
    };
    let position = patterns.first().map_or(0, |p| p.position);
    let dfa = BuiltDfa::new(dfa, regexes, search).map_err(|m| (position, m))?;
    Ok(vec![PatternGroup {
        dfa: Dfa::Owned(Box::new(dfa)),
        anchored,
        positions: patterns.iter().map(|p| p.position).collect(),
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
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
        super::super::lower(&config, "i.yaml", &mut cache).expect("lowers")
    }

    fn positions(plan: &Plan, facts: &Facts<'_>) -> Vec<usize> {
        let phase = plan.rules_for(facts.phase);
        let words = candidates(&plan.index[facts.phase.index()], phase.len(), facts);
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(p) = next_set(&words, from) {
            out.push(p);
            from = p + 1;
        }
        out
    }

    fn tool<'a>(name: &'a str, args: &'a serde_json::Value) -> Facts<'a> {
        Facts {
            phase: Phase::BeforeTool,
            tool: Some(name),
            subject: Subject::Json(args),
            outcome: None,
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
            outcome: None,
        };
        assert_eq!(positions(&plan, &prompt("hello")), Vec::<usize>::new());
        assert_eq!(positions(&plan, &prompt("a secret")), [0]);
        // Selection still decides each candidate: `r4` needs `/n`.
        let no_n = json!({"command": "rm x", "path": "a.env"});
        let matched: Vec<u32> = plan.matching(tool("bash", &no_n)).collect();
        assert_eq!(matched, [0, 3, 5]);
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
        let plan = super::super::lower(&config, "w.yaml", &mut cache).expect("lowers");
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
