//! The matcher of a pattern group too large for a dense DFA: regex-automata's
//! meta regex (a lazy DFA that builds only the states the haystacks visit,
//! the PikeVM where the lazy DFA gives up), built in time linear in the
//! patterns' size, with no determinization up front.
//!
//! The lowering chooses it where determinizing would cost too much
//! (`hooks_schema`'s `plan::index_build` and `DfaCache`): several patterns
//! whose union can grow a dense DFA exponentially (`*secret1*`,
//! `*secret2*`, ... or `a0.{10}$`, `a1.{10}$`, ...), or a single pattern once
//! the config's dense budget is spent. It decides every input exactly (the
//! regex crate's answer), and a search allocates nothing once its caches
//! are warm: the lazy DFA's cache and the set of matched patterns come from
//! pools, reused event after event.

use std::fmt;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::OnceLock;

use regex_automata::meta::{self, Regex};
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::util::pool::Pool;
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, MatchKind, PatternSet};

use crate::automata::{PatternError, Search};
use crate::data::{List, Text};

/// The most bytes a set's NFA may take (16 MiB). Past it [`LazySet::new`]
/// fails, and the lowering splits the group in two (many patterns with
/// Unicode classes: 1,000 `\w+secretN\w+` on one subject); a lower limit
/// makes that failure cheap (the compiler stops where the limit is
/// reached). A single pattern is far below it: validation refuses one
/// whose NFA is over 1 MiB.
const NFA_SIZE_LIMIT: usize = 16 * 1024 * 1024;

/// How a [`LazySet`] makes a [`PatternSet`] for a thread that has none.
type SetFn = Box<dyn Fn() -> PatternSet + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// Patterns matched by a lazily built automaton instead of a dense DFA.
///
/// Usable as `static` data (`hooks!` emits [`LazySet::new_static`]) and
/// owned ([`LazySet::new`], [`LazySet::deferred`]); the regex is compiled
/// once, on the first search (or at once by [`LazySet::new`], which reports
/// errors).
pub struct LazySet {
    regexes: List<Text>,
    regex: OnceLock<Regex>,
    sets: OnceLock<Pool<PatternSet, SetFn>>,
}

impl LazySet {
    /// The set of `regexes` (Rust `regex` syntax, one per pattern), as
    /// `hooks!` embeds it; compiled on first use.
    pub const fn new_static(regexes: &'static [Text]) -> LazySet {
        LazySet {
            regexes: List::Static(regexes),
            regex: OnceLock::new(),
            sets: OnceLock::new(),
        }
    }

    /// Compiles `regexes` (one per pattern) now.
    ///
    /// # Errors
    ///
    /// [`PatternError::Fallback`] when the regex crate does not compile
    /// them within its size limits.
    pub fn new(regexes: Vec<String>) -> Result<LazySet, PatternError> {
        let regex = compile(&regexes)?;
        let set = LazySet {
            regexes: regexes.into_iter().map(Text::from).collect(),
            regex: OnceLock::new(),
            sets: OnceLock::new(),
        };
        let _ = set.regex.set(regex);
        Ok(set)
    }

    /// The set of `regexes`, compiled on first use, for patterns already
    /// known to compile: each one checked alone within the regex crate's
    /// limits (what validation does for every `matches` and `glob`), so a
    /// config of many patterns past the dense budget loads without
    /// compiling any of them (1,000 `(?i)tokenN\s*=\s*\w{8}` on their own
    /// subjects: about 1 MB and 9 ms each).
    pub fn deferred(regexes: Vec<String>) -> LazySet {
        LazySet {
            regexes: regexes.into_iter().map(Text::from).collect(),
            regex: OnceLock::new(),
            sets: OnceLock::new(),
        }
    }

    /// The regexes, one per pattern.
    pub fn regexes(&self) -> &[Text] {
        &self.regexes
    }

    /// # Panics
    ///
    /// For an embedded or deferred set whose regexes this build of the
    /// regex crate does not compile: the lowering compiled or checked them
    /// with the same crate, so this is a build bug, not a config error.
    fn regex(&self) -> &Regex {
        self.regex.get_or_init(|| {
            compile(&self.regexes)
                .unwrap_or_else(|e| panic!("patterns the lowering checked do not compile: {e}"))
        })
    }

    /// Whether any pattern matches `haystack` (from its first byte when
    /// `search` is [`Search::Anchored`]). Allocates nothing once warm.
    pub fn is_match(&self, haystack: &str, search: Search) -> bool {
        self.regex().is_match(input(haystack, search))
    }

    /// Calls `hit` with the index of every pattern matching `haystack`
    /// (in increasing order). Allocates nothing once warm.
    pub fn for_each_match(&self, haystack: &str, search: Search, mut hit: impl FnMut(usize)) {
        let regex = self.regex();
        let sets = self.sets.get_or_init(|| {
            let len = regex.pattern_len();
            Pool::new(Box::new(move || PatternSet::new(len)))
        });
        // Sets go back to the pool empty: a miss costs the search alone,
        // not a pass over one flag per pattern.
        let mut set = sets.get();
        regex.which_overlapping_matches(&input(haystack, search), &mut set);
        if !set.is_empty() {
            for p in set.iter() {
                hit(p.as_usize());
            }
            set.clear();
        }
    }
}

fn input(haystack: &str, search: Search) -> Input<'_> {
    let anchored = match search {
        Search::Anchored => Anchored::Yes,
        Search::Unanchored => Anchored::No,
    };
    Input::new(haystack).anchored(anchored)
}

/// The meta regex of `regexes`: every pattern reported (`MatchKind::All`),
/// no capture slots (only which pattern matched is asked, and slots per
/// pattern would make the PikeVM's cache grow with the square of the
/// pattern count), byte-oriented like the dense DFAs (`utf8(false)`).
fn compile<S: AsRef<str>>(regexes: &[S]) -> Result<Regex, PatternError> {
    meta::Builder::new()
        .configure(
            meta::Config::new()
                .match_kind(MatchKind::All)
                .which_captures(WhichCaptures::None)
                .utf8_empty(false)
                .nfa_size_limit(Some(NFA_SIZE_LIMIT)),
        )
        .syntax(syntax::Config::new().utf8(false))
        .build_many(regexes)
        .map_err(|e| PatternError::Fallback {
            regexes: regexes.iter().map(|r| r.as_ref().to_owned()).collect(),
            reason: e.to_string(),
        })
}

impl fmt::Debug for LazySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LazySet({} patterns)", self.regexes.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_every_matching_pattern_and_decides_non_ascii() {
        let set = LazySet::new(vec![
            "(?s)^.*secret1.*$".into(),
            "(?s)^.*secret2.*$".into(),
            r"\bcafé\b".into(),
        ])
        .unwrap();
        let mut hits = Vec::new();
        set.for_each_match("/a/secret2/secret1", Search::Anchored, |p| hits.push(p));
        assert_eq!(hits, [0, 1]);
        let mut hits = Vec::new();
        set.for_each_match("un café noir", Search::Unanchored, |p| hits.push(p));
        assert_eq!(hits, [2]);
        assert!(!set.is_match("cafés", Search::Unanchored));
        static EMBEDDED: LazySet = LazySet::new_static(&[Text::Borrowed("a0.{2}$")]);
        assert!(EMBEDDED.is_match("xa0bc", Search::Unanchored));
        assert!(!EMBEDDED.is_match("xa0bcd", Search::Unanchored));
    }
}
