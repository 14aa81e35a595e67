//! Compiling tool-name globs and regexes, to reject bad patterns at load time.

use hooks_plan::automata::PatternError;

/// Largest compiled NFA a pattern may produce, in bytes (1 MiB): a bigger one
/// would make the build-time DFA too large.
const NFA_SIZE_LIMIT: usize = 1024 * 1024;

/// The anchored regex (`(?s)(?-u)^...$`, byte-oriented) equivalent to a
/// glob over the whole value. `*` may cross `/` (tool names have no paths)
/// and, as in globset's own matcher, a newline: `(?s)` makes the regex
/// decide as `globset::GlobMatcher::is_match` does.
///
/// # Errors
///
/// [`PatternError::Glob`] when the glob does not compile.
pub fn glob_to_regex(glob: &str) -> Result<String, PatternError> {
    globset::GlobBuilder::new(glob)
        .literal_separator(false)
        .backslash_escape(true)
        .build()
        .map(|g| format!("(?s){}", g.regex()))
        .map_err(|e| PatternError::Glob {
            glob: glob.to_owned(),
            reason: lowercase_error(&e.kind().to_string()),
        })
}

/// Checks that `pattern` parses as a regular expression (Rust `regex`
/// syntax) and compiles within the size limit.
///
/// # Errors
///
/// [`PatternError::Regex`] naming the problem.
pub fn check_regex(pattern: &str) -> Result<(), PatternError> {
    let refused = |reason: &str| PatternError::Regex {
        regex: pattern.to_owned(),
        reason: lowercase_error(reason),
    };
    let hir = regex_syntax::ParserBuilder::new()
        .nest_limit(64)
        .build()
        .parse(pattern)
        .map_err(|e| match e {
            regex_syntax::Error::Parse(p) => refused(&p.kind().to_string()),
            regex_syntax::Error::Translate(t) => refused(&t.kind().to_string()),
            other => refused(&other.to_string()),
        })?;
    regex_automata::nfa::thompson::Compiler::new()
        .configure(
            regex_automata::nfa::thompson::Config::new().nfa_size_limit(Some(NFA_SIZE_LIMIT)),
        )
        .build_from_hir(&hir)
        .map(|_| ())
        .map_err(|e| refused(&e.to_string()))
}

fn lowercase_error(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    if let Some(c) = chars.next() {
        out.extend(c.to_lowercase());
    }
    out.extend(chars);
    out.trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_compile_to_anchored_regexes() {
        let re = glob_to_regex("mcp__github__*").unwrap();
        assert!(re.contains('^') && re.ends_with('$'), "{re}");
        assert!(glob_to_regex("[abc").is_err());
        assert!(glob_to_regex("{a,b").is_err());
    }

    #[test]
    fn regexes_are_checked() {
        assert!(check_regex(r"rm\s+-rf").is_ok());
        let err = check_regex("(unclosed").unwrap_err();
        assert!(err.to_string().starts_with("unclosed"), "{err}");
        assert!(
            matches!(&err, PatternError::Regex { regex, .. } if regex == "(unclosed"),
            "{err:?}"
        );
        assert!(check_regex(r"\w{1000}{1000}").is_err());
    }
}
