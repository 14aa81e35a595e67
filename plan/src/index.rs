//! The per-phase index of a plan: which rules can match an event, found
//! without visiting the others.
//!
//! For each phase the lowering indexes its enabled rules (by *position*: the
//! place of a rule in [`Plan::rules_for`](crate::Plan::rules_for)) two ways:
//!
//! - by tool: rules without `include_tools`, a sorted table of exact tool
//!   names, and every other `include_tools` pattern of the phase compiled
//!   into one multi-pattern DFA;
//! - by a `when` leaf the rule cannot match without (a `matches` or `glob`
//!   at the top of `when` or under `all`): the leaves of the phase on the
//!   same pointer are compiled into one multi-pattern DFA, searched once per
//!   event with an overlapping search that reports every pattern matching.
//!
//! A group too costly to determinize (more than a few dozen patterns, or a
//! union over the lowering's budget) is a lazily built automaton instead
//! ([`LazySet`](crate::LazySet)), searched the same way, with the same
//! answers.
//!
//! A rule is a *candidate* when both say it can match. Candidates are a
//! superset of the matching rules; [`Cursor`] still decides each candidate
//! with [`Rule::matches`], so dispatch selects exactly the rules a rule by
//! rule evaluation selects, in declared order, while a miss costs one binary
//! search and one pass over each indexed string instead of one pass per rule.

use regex_automata::dfa::{Automaton, OverlappingState};
use regex_automata::{Anchored, Input};
use smallvec::SmallVec;

use crate::automata::Search;
use crate::data::{Dfa, List, Text};
use crate::eval::{Facts, Subject, resolve};

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

    /// The set of `positions` (what the lowering stores).
    pub fn of(positions: &[u32]) -> Bits {
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

    /// Keeps in `out` only the positions of this set.
    fn and_into(&self, out: &mut [u64]) {
        let start = self.offset as usize;
        for (i, o) in out.iter_mut().enumerate() {
            let word = i.checked_sub(start).and_then(|j| self.words.get(j));
            *o &= word.copied().unwrap_or(0);
        }
    }
}

/// A multi-pattern DFA whose pattern `i` stands for the rule at position
/// `positions[i]`.
#[derive(Debug, PartialEq)]
pub struct PatternGroup {
    /// The DFA (built with `build_many`, every pattern kept apart), or the
    /// lazily built automaton of the same patterns.
    pub dfa: Dfa,
    /// How the DFA is searched.
    pub anchored: bool,
    /// The rule position of each pattern.
    pub positions: List<u32>,
}

impl PatternGroup {
    /// Sets the bit of every rule whose pattern matches `haystack`, with one
    /// overlapping search (of the dense DFA, or of the lazy one: no
    /// allocation once its caches are warm); when the DFA gives up (a Unicode word boundary on
    /// a non-ASCII haystack) the group's fallback names them (one
    /// allocation, on that input only). Otherwise never allocates.
    fn mark(&self, haystack: &str, out: &mut [u64]) {
        if let Some(lazy) = self.dfa.lazy() {
            let search = if self.anchored {
                Search::Anchored
            } else {
                Search::Unanchored
            };
            lazy.for_each_match(haystack, search, |i| {
                if let Some(&p) = self.positions.get(i) {
                    set(out, p);
                }
            });
            return;
        }
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
                Dfa::LazyStatic(_) | Dfa::Lazy(_) => return,
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
    /// The leaves' patterns: one group (kept a list, so a plan can hold
    /// several).
    pub groups: List<PatternGroup>,
}

/// The index of one phase's enabled rules: its tool table and DFAs, and its
/// `when` gates ([`Plan::matching`](crate::Plan::matching) uses it).
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
    /// The candidate positions for `facts` among `count` rules (a superset
    /// of the positions of the matching rules), in order: what the index
    /// alone says, before each candidate is decided.
    pub fn candidates(&self, count: usize, facts: &Facts<'_>) -> Vec<usize> {
        let mut words = Words::new();
        candidates_into(self, count, facts, &mut words);
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(p) = next_set(&words, from) {
            out.push(p);
            from = p + 1;
        }
        out
    }

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
pub(crate) type Words = SmallVec<[u64; 16]>;

/// The candidate positions for `facts` among `count` rules into `tool`
/// (cleared first), as a bit set.
pub(crate) fn candidates_into(
    index: &PhaseIndex,
    count: usize,
    facts: &Facts<'_>,
    tool: &mut Words,
) {
    let n = count.div_ceil(64);
    tool.clear();
    tool.resize(n, 0);
    match facts.tool {
        Some(name) => {
            index.any_tool.or_into(tool);
            if let Ok(at) = index.tools.binary_search_by(|(n, _)| n.as_ref().cmp(name)) {
                index.tools[at].1.or_into(tool);
            }
            for group in index.tool_patterns.iter() {
                group.mark(name, tool);
            }
        }
        // Without a tool, `include_tools` is not tested.
        None => tool.iter_mut().for_each(|w| *w = u64::MAX),
    }
    if tool.iter().all(|w| *w == 0) {
        return;
    }
    if index.gates.is_empty() {
        // No `when` is indexed: the rules without one remain.
        index.ungated.and_into(tool);
        return;
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

/// The first set bit of `words` at or after position `from`.
pub(crate) fn next_set(words: &[u64], from: usize) -> Option<usize> {
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
