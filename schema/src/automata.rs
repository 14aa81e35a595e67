//! Matchers compiled once, for the `hooks!` macro and the runtime loader alike.
//!
//! Both the proc-macro (which serializes the automata into the generated
//! code) and `hooks-runtime`'s loader (which keeps them in memory) call the
//! functions of this module, so a static table and a loaded table of the
//! same config decide identically by construction:
//!
//! - tool-name patterns ([`ToolPattern`]) become a list of exact names (a
//!   literal glob such as `bash`, compared as a string) plus at most one
//!   dense DFA over all the other patterns ([`tool_matcher`]);
//! - `when` leaves become one DFA each: `glob` anchored over the whole value
//!   ([`glob_dfa`]), `matches` an unanchored search ([`search_dfa`]);
//! - RFC 6901 pointers are split into unescaped tokens ([`pointer_tokens`]).
//!
//! The pattern → regex translation itself is [`ToolPattern::to_regex`] and
//! [`glob_to_regex`](crate::glob_to_regex), the same functions validation
//! uses.

use regex_automata::MatchKind;
use regex_automata::dfa::{StartKind, dense};
use regex_automata::nfa::thompson;
use regex_automata::util::syntax;

use crate::config::ToolPattern;
pub use hooks_plan::automata::{
    DFA_SIZE_LIMIT, PatternError, PointerError, Search, escape_token, fallback, may_give_up,
    pointer_tokens, try_is_match,
};
use hooks_plan::{BuiltDfa, Dfa};

/// A dense DFA owning its transition table, as [`build_dfa`] returns it.
pub type OwnedDfa = dense::DFA<Vec<u32>>;

/// Builds one dense DFA matching any of `regexes` (Rust `regex` syntax).
///
/// Unicode classes are allowed; `(?-u)` byte patterns (as globs produce)
/// too. Unicode word boundaries (`\b`, `\B`, `\<`, ...) are accepted
/// heuristically: on a non-ASCII haystack such a DFA gives up
/// ([`try_is_match`] says so with `None`), and the caller asks the
/// [`fallback`] built from the same patterns, which decides every input.
///
/// # Errors
///
/// [`PatternError::Dfa`] when a regex does not parse or the DFA would
/// exceed [`DFA_SIZE_LIMIT`].
pub fn build_dfa(regexes: &[String], search: Search) -> Result<OwnedDfa, PatternError> {
    build_dfa_within(regexes, search, DFA_SIZE_LIMIT)
}

/// [`build_dfa`] with a smaller size limit, in bytes, for the DFA and for
/// the determinization working set alike: what bounds the work of one
/// attempt (a pattern group's, see `plan::index_build`).
///
/// # Errors
///
/// As [`build_dfa`], with `limit` for [`DFA_SIZE_LIMIT`].
pub fn build_dfa_within(
    regexes: &[String],
    search: Search,
    limit: usize,
) -> Result<OwnedDfa, PatternError> {
    match crate::dfa_cache::dir() {
        Some(dir) => crate::dfa_cache::build_cached(dir, regexes, search, limit, determinize),
        None => determinize(regexes, search, limit),
    }
}

/// [`determinize`], for the DFA cache's tests.
#[cfg(test)]
pub(crate) fn determinize_for_tests(
    regexes: &[String],
    search: Search,
    limit: usize,
) -> Result<OwnedDfa, PatternError> {
    determinize(regexes, search, limit)
}

/// What [`build_dfa_within`] builds, without the DFA cache.
fn determinize(regexes: &[String], search: Search, limit: usize) -> Result<OwnedDfa, PatternError> {
    let start = match search {
        Search::Anchored => StartKind::Anchored,
        Search::Unanchored => StartKind::Unanchored,
    };
    dense::Builder::new()
        .configure(
            dense::Config::new()
                .start_kind(start)
                .match_kind(MatchKind::All)
                .unicode_word_boundary(true)
                .dfa_size_limit(Some(limit))
                .determinize_size_limit(Some(limit)),
        )
        .syntax(syntax::Config::new().utf8(false))
        .thompson(
            thompson::Config::new()
                .utf8(false)
                .which_captures(thompson::WhichCaptures::None),
        )
        .build_many(regexes)
        .map_err(|e| {
            // Lowercase the first word, unless it is an acronym (`DFA ...`).
            let text = e.to_string();
            let reason = if text.chars().nth(1).is_some_and(char::is_uppercase) {
                text
            } else {
                let mut chars = text.chars();
                chars.next().map_or_else(String::new, |c| {
                    c.to_lowercase().chain(chars).collect::<String>()
                })
            };
            PatternError::Dfa {
                regexes: regexes.to_vec(),
                reason,
            }
        })
}

/// A compiled list of tool-name patterns: exact names plus at most one DFA
/// (anchored) over the other patterns. A name matches when it equals one of
/// `names` or the DFA matches it.
#[derive(Debug)]
pub struct ToolMatcher {
    /// Literal patterns (globs without metacharacters), compared exactly.
    pub names: Vec<String>,
    /// One DFA over every non-literal pattern (with its fallback, as a
    /// plan holds it), or `None` when all are literal.
    pub dfa: Option<Dfa>,
}

impl ToolMatcher {
    /// Whether `name` matches one of the patterns.
    pub fn matches(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
            || self
                .dfa
                .as_ref()
                .is_some_and(|d| d.is_match(name, Search::Anchored))
    }
}

/// Compiles tool-name patterns (`include_tools` or `exclude_tools`).
///
/// # Errors
///
/// [`PatternError`] for the first pattern that does not compile, or for
/// the DFA of the non-literal ones ([`built`]).
pub fn tool_matcher(patterns: &[ToolPattern]) -> Result<ToolMatcher, PatternError> {
    let mut names = Vec::new();
    let mut regexes = Vec::new();
    for pattern in patterns {
        match pattern.literal() {
            Some(name) => names.push(name.to_owned()),
            None => regexes.push(pattern.to_regex()?),
        }
    }
    let dfa = if regexes.is_empty() {
        None
    } else {
        Some(built(&regexes, Search::Anchored)?)
    };
    Ok(ToolMatcher { names, dfa })
}

/// The DFA of `regexes` with the fallback that decides where it gives up:
/// what a plan holds, for one-off matching outside a plan (`check`'s
/// catalogue lints, `import`).
///
/// # Errors
///
/// As [`build_dfa`] and [`fallback`].
pub fn built(regexes: &[String], search: Search) -> Result<Dfa, PatternError> {
    let dfa = build_dfa(regexes, search)?;
    Ok(Dfa::Owned(Box::new(BuiltDfa::new(
        dfa,
        regexes.to_vec(),
        search,
    )?)))
}

/// The DFA of a `glob:` predicate: the glob over the whole value.
///
/// # Errors
///
/// [`PatternError`] when the glob does not compile
/// ([`glob_to_regex`](crate::glob_to_regex)) or its DFA does not build
/// ([`build_dfa`]).
pub fn glob_dfa(glob: &str) -> Result<OwnedDfa, PatternError> {
    build_dfa(&[crate::glob_to_regex(glob)?], Search::Anchored)
}

/// The DFA of a `matches:` predicate: an unanchored search for the regex.
///
/// # Errors
///
/// [`PatternError`] when the regex does not compile
/// ([`check_regex`](crate::check_regex)) or its DFA does not build
/// ([`build_dfa`]).
pub fn search_dfa(regex: &str) -> Result<OwnedDfa, PatternError> {
    crate::check_regex(regex)?;
    build_dfa(&[regex.to_owned()], Search::Unanchored)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RegexPattern;

    #[test]
    fn tool_matchers_split_literals_from_automata() {
        let m = tool_matcher(&[
            ToolPattern::Glob("bash".into()),
            ToolPattern::Glob("mcp__github__*".into()),
            ToolPattern::Regex(RegexPattern {
                regex: "fs__(read|write)".into(),
            }),
        ])
        .unwrap();
        assert_eq!(m.names, ["bash"]);
        assert!(m.dfa.is_some());
        assert!(m.matches("bash"));
        assert!(!m.matches("bash2"));
        assert!(m.matches("mcp__github__create_issue"));
        assert!(!m.matches("mcp__gitlab__x"));
        assert!(m.matches("fs__read"));
        assert!(
            !m.matches("fs__read_all"),
            "regexes are anchored at both ends"
        );
        assert!(!m.matches("xfs__read"));
    }

    #[test]
    fn glob_and_search_dfas() {
        let g = glob_dfa("*.rs").unwrap();
        let a = Search::Anchored;
        assert_eq!(try_is_match(&g, "src/main.rs", a), Some(true));
        assert_eq!(try_is_match(&g, "main.rsx", a), Some(false));
        let s = search_dfa(r"rm\s+-rf").unwrap();
        let u = Search::Unanchored;
        assert_eq!(try_is_match(&s, "cd / && rm  -rf x", u), Some(true));
        assert_eq!(try_is_match(&s, "rm -r", u), Some(false));
        let c = search_dfa(r"caf\u{e9}").unwrap();
        assert_eq!(try_is_match(&c, "un café", u), Some(true));
        assert!(search_dfa("(").is_err());
    }

    #[test]
    fn pattern_errors_name_the_step_and_the_pattern() {
        assert!(matches!(
            search_dfa("("),
            Err(PatternError::Regex { regex, .. }) if regex == "("
        ));
        let glob = glob_dfa("[ab").unwrap_err();
        assert!(
            matches!(&glob, PatternError::Glob { glob, .. } if glob == "[ab"),
            "{glob:?}"
        );
        assert_eq!(glob.to_string(), "unclosed character class; missing ']'");
        let group = ["a".to_owned(), "(".to_owned()];
        assert!(matches!(
            build_dfa(&group, Search::Anchored),
            Err(PatternError::Dfa { regexes, .. }) if regexes == group
        ));
    }

    #[test]
    fn pointers_split_and_unescape() {
        assert!(pointer_tokens("").unwrap().is_empty());
        assert_eq!(pointer_tokens("/a~1b/~0c/0").unwrap(), ["a/b", "~c", "0"]);
        assert_eq!(pointer_tokens("/").unwrap(), [""]);
        assert_eq!(pointer_tokens("/~01").unwrap(), ["~1"]);
        for token in ["a/b~c", "~1", "~0/~", "", "é/"] {
            let pointer = format!("/{}", escape_token(token));
            assert_eq!(pointer_tokens(&pointer).unwrap(), [token], "{pointer}");
        }
        assert_eq!(
            pointer_tokens("a"),
            Err(PointerError::NoLeadingSlash {
                pointer: "a".into()
            })
        );
        let bad = pointer_tokens("/~2").unwrap_err();
        assert_eq!(
            bad,
            PointerError::BadEscape {
                pointer: "/~2".into()
            }
        );
        assert_eq!(
            bad.to_string(),
            "invalid JSON pointer `/~2`, `~` must be followed by `0` or `1` (RFC 6901)"
        );
    }
}

#[cfg(test)]
mod word_boundary {
    use super::*;

    #[test]
    fn a_word_boundary_on_non_ascii_input_falls_back_instead_of_missing() {
        let re = [r"\brm\s+-rf\b"];
        let dfa = search_dfa(re[0]).unwrap();
        assert!(may_give_up(&re));
        let ascii = "cd /tmp/ete && rm -rf build";
        let accented = "cd /tmp/été && rm -rf build";
        assert_eq!(try_is_match(&dfa, ascii, Search::Unanchored), Some(true));
        assert_eq!(try_is_match(&dfa, accented, Search::Unanchored), None);
        let exact = built(&[re[0].to_owned()], Search::Unanchored).unwrap();
        assert!(exact.is_match(accented, Search::Unanchored));
        assert!(!exact.is_match("cd été && xrm -rf b", Search::Unanchored));
        assert!(!may_give_up(&[r"(?-u:\b)rm"]));
        assert!(!may_give_up(&[r"rm\s+-rf"]));
    }
}
