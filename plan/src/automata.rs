//! Matching with the automata of a plan: searching a DFA, the fallback
//! where a DFA gives up, and the one rule of JSON pointer syntax.
//!
//! Building the automata is the config compiler's (`hooks-schema`); a
//! table only searches them, so this crate needs regex-automata's search
//! half and, for the fallback, the `regex` crate.

use regex_automata::dfa::dense;
use regex_automata::{Anchored, Input};

/// Largest DFA (and determinization working set) one pattern group may
/// produce, in bytes (8 MiB): a pattern past it is an error, not a huge binary.
pub const DFA_SIZE_LIMIT: usize = 8 * 1024 * 1024;

/// Why a glob or regex does not compile into a matcher. The message is
/// the one of the crate that refused it (lowercase, no trailing period);
/// the variant says which step did and holds what it was given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PatternError {
    /// A glob does not parse (an unclosed `[` or `{`, a dangling `\`, ...).
    #[error("{reason}")]
    Glob {
        /// The glob as written.
        glob: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A regex does not parse, or its NFA exceeds the size limit.
    #[error("{reason}")]
    Regex {
        /// The regex as written.
        regex: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The DFA of these regexes does not build: one does not parse, or the
    /// automaton would exceed [`DFA_SIZE_LIMIT`].
    #[error("{reason}")]
    Dfa {
        /// The regexes, one per pattern of the DFA.
        regexes: Vec<String>,
        /// What is wrong.
        reason: String,
    },
    /// The regex crate does not compile the [`fallback`] of these regexes.
    #[error("the fallback matcher does not compile: {reason}")]
    Fallback {
        /// The regexes, as given to [`fallback`].
        regexes: Vec<String>,
        /// The regex crate's message.
        reason: String,
    },
}

/// How a DFA is searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Search {
    /// The patterns are anchored (`^...$`); searches start at the first byte.
    Anchored,
    /// A match may start anywhere (`matches:` predicates).
    Unanchored,
}

/// Whether `dfa` matches `haystack` (for an [`Search::Anchored`] DFA: from
/// the first byte; the `^...$` of the patterns make it a whole-string
/// match), or `None` when the DFA gives up (a Unicode word boundary on a
/// non-ASCII haystack): the answer is then the [`fallback`]'s, never "no
/// match".
///
/// Never allocates.
pub fn try_is_match<T: AsRef<[u32]>>(
    dfa: &dense::DFA<T>,
    haystack: &str,
    search: Search,
) -> Option<bool> {
    use regex_automata::dfa::Automaton;
    let anchored = match search {
        Search::Anchored => Anchored::Yes,
        Search::Unanchored => Anchored::No,
    };
    if search == Search::Anchored
        && let Ok(start) =
            dfa.start_state(&regex_automata::util::start::Config::new().anchored(anchored))
    {
        // A tool name against tool globs and regexes, walked byte by byte
        // from the start of text (regex-automata's documented loop over
        // `next_state`): most names die on their first bytes, before a
        // search's setup would have been paid.
        return walk_anchored(dfa, start, haystack.as_bytes());
    }
    let input = Input::new(haystack).anchored(anchored).earliest(true);
    dfa.try_search_fwd(&input).ok().map(|m| m.is_some())
}

/// [`try_is_match`] of an anchored DFA from `start`, its start state at the
/// start of text:
/// `Some(true)` at the first match state, `Some(false)` at a dead state or
/// when the end of input matches nothing, `None` at a quit state (the DFA
/// gives up).
fn walk_anchored<T: AsRef<[u32]>>(
    dfa: &dense::DFA<T>,
    start: regex_automata::util::primitives::StateID,
    haystack: &[u8],
) -> Option<bool> {
    use regex_automata::dfa::Automaton;
    let mut state = start;
    for &byte in haystack {
        state = dfa.next_state(state, byte);
        if dfa.is_special_state(state) {
            if dfa.is_match_state(state) {
                return Some(true);
            }
            if dfa.is_dead_state(state) {
                return Some(false);
            }
            if dfa.is_quit_state(state) {
                return None;
            }
        }
    }
    state = dfa.next_eoi_state(state);
    if dfa.is_quit_state(state) {
        return None;
    }
    Some(dfa.is_match_state(state))
}

/// Whether a DFA built from `regexes` may give up on some input: one of
/// them holds a Unicode word boundary (`\b`, `\B`, `\b{start}`, `\<`, ...
/// outside `(?-u)`). Such a DFA needs its [`fallback`].
pub fn may_give_up<S: AsRef<str>>(regexes: &[S]) -> bool {
    regexes.iter().any(|r| {
        regex_syntax::ParserBuilder::new()
            .utf8(false)
            .build()
            .parse(r.as_ref())
            .map_or(true, |hir| {
                hir.properties().look_set().contains_word_unicode()
            })
    })
}

/// The matcher that decides what a DFA built from the same `regexes` gives
/// up on: a [`regex::bytes::RegexSet`] of them (each anchored at the start
/// for [`Search::Anchored`], as the DFA's search is), so its answer is the
/// regex crate's on every string, ASCII or not. Built once per DFA that
/// [`may_give_up`]; searching it allocates nothing for `is_match`.
///
/// # Errors
///
/// [`PatternError::Fallback`] when the regex crate does not compile the
/// patterns within 64 MiB (the DFA of the same patterns fit in
/// [`DFA_SIZE_LIMIT`], so this is not expected).
pub fn fallback<S: AsRef<str>>(
    regexes: &[S],
    search: Search,
) -> Result<regex::bytes::RegexSet, PatternError> {
    let patterns = regexes.iter().map(|r| match search {
        Search::Anchored => format!("^(?:{})", r.as_ref()),
        Search::Unanchored => r.as_ref().to_owned(),
    });
    regex::bytes::RegexSetBuilder::new(patterns)
        .size_limit(64 * 1024 * 1024)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .build()
        .map_err(|e| PatternError::Fallback {
            regexes: regexes.iter().map(|r| r.as_ref().to_owned()).collect(),
            reason: e.to_string(),
        })
}

/// Checks that [`fallback`] compiles `regexes` without building it: their
/// Thompson NFA within the same 64 MiB the regex crate allows (its only
/// limit that fails a build; its lazy DFA's limit only bounds a cache). A
/// lowered DFA that may give up checks its fallback this way and builds it
/// on first need (a non-ASCII input), so loading a config never pays for
/// matchers that only such inputs use.
///
/// # Errors
///
/// [`PatternError::Fallback`] when the NFA does not compile within the
/// limit.
pub fn check_fallback<S: AsRef<str>>(regexes: &[S], search: Search) -> Result<(), PatternError> {
    let patterns: Vec<String> = regexes
        .iter()
        .map(|r| match search {
            Search::Anchored => format!("^(?:{})", r.as_ref()),
            Search::Unanchored => r.as_ref().to_owned(),
        })
        .collect();
    // As `regex::bytes` compiles them: byte-oriented, sized like its
    // `size_limit` (what `fallback` sets).
    regex_automata::nfa::thompson::Compiler::new()
        .syntax(regex_automata::util::syntax::Config::new().utf8(false))
        .configure(
            regex_automata::nfa::thompson::Config::new()
                .utf8(false)
                .nfa_size_limit(Some(64 * 1024 * 1024)),
        )
        .build_many(&patterns)
        .map(drop)
        .map_err(|e| PatternError::Fallback {
            regexes: regexes.iter().map(|r| r.as_ref().to_owned()).collect(),
            reason: e.to_string(),
        })
}

/// Why a string is not an RFC 6901 JSON pointer ([`pointer_tokens`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PointerError {
    /// The pointer is not empty and does not start with `/`.
    #[error("invalid JSON pointer `{pointer}`, expected `/` at the start (RFC 6901)")]
    NoLeadingSlash {
        /// The pointer as written.
        pointer: String,
    },
    /// The pointer holds a `~` not followed by `0` or `1`.
    #[error("invalid JSON pointer `{pointer}`, `~` must be followed by `0` or `1` (RFC 6901)")]
    BadEscape {
        /// The pointer as written.
        pointer: String,
    },
}

/// Escapes one reference token per RFC 6901 (`~` → `~0`, `/` → `~1`):
/// the inverse of one token of [`pointer_tokens`], so
/// `pointer_tokens(&format!("/{}", escape_token(t)))` is `[t]`.
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Splits an RFC 6901 JSON pointer into its reference tokens, unescaping
/// `~1` to `/` and `~0` to `~` (in that order, per RFC 6901 section 4).
/// `""` (the whole value) has no token.
///
/// This is the rule of pointer syntax: the checker reports its error as
/// the `invalid-pointer` diagnostic, the loader and `hooks!` split with it,
/// and `POINTER_PATTERN` (in `hooks-schema`), the JSON Schema's
/// spelling of the same rule, is tested to accept exactly what it accepts.
///
/// # Errors
///
/// [`PointerError::NoLeadingSlash`] when the pointer is not empty and does
/// not start with `/`; [`PointerError::BadEscape`] when it holds a `~` not
/// followed by `0` or `1`.
pub fn pointer_tokens(pointer: &str) -> Result<Vec<String>, PointerError> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(PointerError::NoLeadingSlash {
            pointer: pointer.to_owned(),
        });
    };
    rest.split('/')
        .map(|token| {
            let mut out = String::with_capacity(token.len());
            let mut chars = token.chars();
            while let Some(c) = chars.next() {
                if c == '~' {
                    match chars.next() {
                        Some('0') => out.push('~'),
                        Some('1') => out.push('/'),
                        _ => {
                            return Err(PointerError::BadEscape {
                                pointer: pointer.to_owned(),
                            });
                        }
                    }
                } else {
                    out.push(c);
                }
            }
            Ok(out)
        })
        .collect()
}
