//! Claude Code tool matchers → agent-hooks tool patterns (the rules are in the
//! [module docs](super#matchers)). The regex structure (top-level
//! alternatives, anchors, required literals) comes from `regex-syntax`'s AST.

use std::collections::BTreeSet;

use hooks_schema::automata::{Search, built};
use regex_syntax::ast::{self, AssertionKind, Ast, RepetitionKind, RepetitionRange};

/// What a Claude Code tool matcher selects, in agent-hooks' terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolMatch {
    /// Every tool (`*`, empty or absent matcher): no `include_tools`.
    All,
    /// Exactly these tool names (a name or a `|` list of names).
    Names(Vec<String>),
    /// The tool names this **anchored** regular expression (Rust `regex`
    /// syntax) matches entirely: `include_tools: [{regex: ...}]`.
    Regex(String),
    /// No tool name can match (the reason says why); Claude Code never runs
    /// the group.
    Never(String),
    /// The matcher is a regular expression agent-hooks cannot express (the
    /// reason says why).
    Unsupported(String),
}

impl ToolMatch {
    /// Whether a tool (or, for `SessionStart`, a source) called `name` is
    /// selected.
    pub fn matches(&self, name: &str) -> bool {
        match self {
            ToolMatch::All => true,
            ToolMatch::Names(names) => names.iter().any(|n| n == name),
            ToolMatch::Regex(regex) => {
                let anchored = [format!("^(?:{regex})$")];
                built(&anchored, Search::Anchored).is_ok_and(|d| d.is_match(name, Search::Anchored))
            }
            ToolMatch::Never(_) | ToolMatch::Unsupported(_) => false,
        }
    }
}

/// How an agent reads a tool matcher: which matchers are lists of exact
/// tool names, and which are regular expressions searched in the tool's
/// name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Syntax {
    /// Claude Code (and VS Code): only letters, digits, `_`, `-` and `|`
    /// make a list of names; anything else is a regular expression.
    ClaudeCode,
    /// Codex: only letters, digits, `_` and `|` make a list of names (a `-`
    /// makes the matcher a regular expression).
    Codex,
    /// Gemini CLI: every matcher is a regular expression (surrounding
    /// spaces trimmed); `*` and `""` still select every tool.
    Gemini,
}

impl Syntax {
    /// The agent, as warnings name it.
    const fn agent(self) -> &'static str {
        match self {
            Syntax::ClaudeCode => "Claude Code",
            Syntax::Codex => "Codex",
            Syntax::Gemini => "Gemini CLI",
        }
    }

    /// Whether `matcher` is a list of exact names in this syntax.
    fn is_name_list(self, matcher: &str) -> bool {
        match self {
            Syntax::ClaudeCode => matcher.chars().all(|c| is_tool_char(c) || c == '|'),
            Syntax::Codex => matcher
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|'),
            Syntax::Gemini => false,
        }
    }
}

/// Converts a Claude Code matcher (the `matcher` of a matcher group) into
/// what it selects, following the rules in the [module docs](super#matchers):
/// [`convert_matcher_as`] with [`Syntax::ClaudeCode`].
///
/// ```
/// use agent_hooks::import::claude::{ToolMatch, convert_matcher};
///
/// assert_eq!(convert_matcher("*"), ToolMatch::All);
/// assert_eq!(convert_matcher("Edit|Write"), ToolMatch::Names(vec!["Edit".into(), "Write".into()]));
/// assert_eq!(convert_matcher("mcp__.*"), ToolMatch::Regex(".*mcp__.*".into()));
/// ```
pub fn convert_matcher(matcher: &str) -> ToolMatch {
    convert_matcher_as(matcher, Syntax::ClaudeCode)
}

/// Converts a tool matcher read with `syntax` into what it selects: `*` or
/// `""` every tool, a list of names (as `syntax` tells one) exact names,
/// anything else a regular expression searched in the tool's name, as in
/// the [module docs](super#matchers).
///
/// ```
/// use agent_hooks::import::claude::{Syntax, ToolMatch, convert_matcher_as};
///
/// assert_eq!(convert_matcher_as("write_file", Syntax::Gemini), ToolMatch::Regex(".*write_file.*".into()));
/// assert_eq!(convert_matcher_as("a-b", Syntax::Codex), ToolMatch::Regex(".*a-b.*".into()));
/// ```
pub fn convert_matcher_as(matcher: &str, syntax: Syntax) -> ToolMatch {
    let matcher = if syntax == Syntax::Gemini {
        matcher.trim()
    } else {
        matcher
    };
    if matcher.is_empty() || matcher == "*" {
        return ToolMatch::All;
    }
    // The agent's own rule, on characters: a name or a `|` list of names.
    if syntax.is_name_list(matcher) {
        let mut names: Vec<String> = Vec::new();
        for name in matcher.split('|').filter(|n| !n.is_empty()) {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
        if names.is_empty() {
            return ToolMatch::Never(format!("matcher `{matcher}` names no tool"));
        }
        return ToolMatch::Names(names);
    }
    let ast = match ast::parse::Parser::new().parse(matcher) {
        Ok(ast) => ast,
        Err(e) => {
            return ToolMatch::Unsupported(format!(
                "matcher `{matcher}` is a regular expression agent-hooks cannot compile: {}",
                e.kind()
            ));
        }
    };
    let alternatives = top_level_alternatives(&ast);
    let impossible: Vec<char> = alternatives
        .iter()
        .filter_map(|a| required_impossible_char(a))
        .collect();
    if impossible.len() == alternatives.len() {
        let chars: BTreeSet<String> = impossible.iter().map(|c| format!("`{c}`")).collect();
        return ToolMatch::Never(format!(
            "{} reads matcher `{matcher}` as a regular expression, and it requires {} which no tool name contains (tool names are letters, digits, `_` and `-`); a list of tools is written `A|B`",
            syntax.agent(),
            chars.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    let anchored: Vec<String> = alternatives.iter().map(|a| anchor(matcher, a)).collect();
    if anchored.iter().any(|a| a == ".*") {
        return ToolMatch::All;
    }
    let regex = anchored.join("|");
    // The checks `check` applies to a tool regex: it compiles, and its
    // anchored DFA fits the size limit (else the converted config would not
    // pass `check`).
    let compiled = hooks_schema::check_regex(&regex).and_then(|()| {
        hooks_schema::automata::build_dfa(
            &[format!("^(?:{regex})$")],
            hooks_schema::automata::Search::Anchored,
        )
        .map(drop)
    });
    match compiled {
        Ok(()) => ToolMatch::Regex(regex),
        Err(e) => ToolMatch::Unsupported(format!(
            "matcher `{matcher}` is a regular expression agent-hooks cannot compile: {e}"
        )),
    }
}

/// A character a tool name may contain (the Anthropic API's tool-name rule
/// `^[a-zA-Z0-9_-]{1,128}$`).
pub(super) fn is_tool_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// The alternatives of the regex's top-level `|` (the whole regex if it has none).
fn top_level_alternatives(ast: &Ast) -> Vec<&Ast> {
    match ast {
        Ast::Alternation(alt) => alt.asts.iter().collect(),
        other => vec![other],
    }
}

/// The items of a concatenation (a lone item otherwise).
fn items(ast: &Ast) -> &[Ast] {
    match ast {
        Ast::Concat(concat) => &concat.asts,
        other => std::slice::from_ref(other),
    }
}

/// Whether a repetition may match zero times.
fn may_be_empty(op: &ast::RepetitionOp) -> bool {
    match &op.kind {
        RepetitionKind::ZeroOrOne | RepetitionKind::ZeroOrMore => true,
        RepetitionKind::OneOrMore => false,
        RepetitionKind::Range(
            RepetitionRange::Exactly(n)
            | RepetitionRange::AtLeast(n)
            | RepetitionRange::Bounded(n, _),
        ) => *n == 0,
    }
}

/// A literal character every match of `ast` contains and no tool name
/// contains, if any (classes, `.` and optional parts require nothing).
fn required_impossible_char(ast: &Ast) -> Option<char> {
    match ast {
        Ast::Literal(lit) => (!is_tool_char(lit.c)).then_some(lit.c),
        Ast::Concat(concat) => concat.asts.iter().find_map(required_impossible_char),
        Ast::Group(group) => required_impossible_char(&group.ast),
        Ast::Repetition(rep) if !may_be_empty(&rep.op) => required_impossible_char(&rep.ast),
        Ast::Alternation(alt) => {
            let found: Vec<char> = alt
                .asts
                .iter()
                .filter_map(required_impossible_char)
                .collect();
            (found.len() == alt.asts.len())
                .then(|| found.first().copied())
                .flatten()
        }
        _ => None,
    }
}

/// Whether `ast` is a greedy `.*`.
fn is_dot_star(ast: &Ast) -> bool {
    matches!(ast, Ast::Repetition(rep)
        if rep.greedy && rep.op.kind == RepetitionKind::ZeroOrMore && matches!(*rep.ast, Ast::Dot(_)))
}

fn is_assertion(ast: &Ast, kind: AssertionKind) -> bool {
    matches!(ast, Ast::Assertion(a) if a.kind == kind)
}

/// The anchored equivalent of one top-level alternative (`alternative`, a
/// node of `matcher`'s AST) of an unanchored (searched) regex: `^`/`$`
/// anchors are dropped, an unanchored side gets `.*` unless it already
/// starts/ends with `.*`.
fn anchor(matcher: &str, alternative: &Ast) -> String {
    let span = alternative.span();
    let (mut start, mut end) = (span.start.offset, span.end.offset);
    let mut body = items(alternative);
    let start_anchored = body
        .first()
        .is_some_and(|a| is_assertion(a, AssertionKind::StartLine));
    if let Some((first, rest)) = body.split_first()
        && start_anchored
    {
        start = first.span().end.offset;
        body = rest;
    }
    let end_anchored = body
        .last()
        .is_some_and(|a| is_assertion(a, AssertionKind::EndLine));
    if let Some((last, rest)) = body.split_last()
        && end_anchored
    {
        end = last.span().start.offset;
        body = rest;
    }
    let text = &matcher[start..end.max(start)];
    if text.is_empty() && !start_anchored && !end_anchored {
        return ".*".to_owned();
    }
    let mut out = String::with_capacity(text.len() + 4);
    if !start_anchored && !body.first().is_some_and(is_dot_star) {
        out.push_str(".*");
    }
    out.push_str(text);
    if !end_anchored && !body.last().is_some_and(is_dot_star) {
        out.push_str(".*");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The anchored form of each top-level alternative of `matcher`.
    fn anchored(matcher: &str) -> Vec<String> {
        let ast = ast::parse::Parser::new()
            .parse(matcher)
            .expect("a valid regex");
        top_level_alternatives(&ast)
            .into_iter()
            .map(|a| anchor(matcher, a))
            .collect()
    }

    fn impossible(alternative: &str) -> Option<char> {
        let ast = ast::parse::Parser::new()
            .parse(alternative)
            .expect("a valid regex");
        required_impossible_char(&ast)
    }

    #[test]
    fn anchoring_keeps_search_semantics() {
        assert_eq!(anchored("Notebook.*"), [".*Notebook.*"]);
        assert_eq!(anchored("^Bash$"), ["Bash"]);
        assert_eq!(anchored("^Bash"), ["Bash.*"]);
        assert_eq!(anchored("Output$"), [".*Output"]);
        assert_eq!(anchored("a\\$"), [".*a\\$.*"]);
        assert_eq!(anchored("a\\.*"), [".*a\\.*.*"]);
        assert_eq!(anchored(".*"), [".*"]);
    }

    #[test]
    fn alternatives_split_at_top_level_only() {
        assert_eq!(
            anchored("^Bash$|^mcp__.+__(read|view)[|]$"),
            ["Bash", "mcp__.+__(read|view)[|]"]
        );
        assert_eq!(anchored("a\\|b"), [".*a\\|b.*"]);
        assert_eq!(anchored("x.|"), [".*x..*", ".*"]);
    }

    #[test]
    fn impossible_characters_are_found_unless_optional() {
        assert_eq!(impossible("Write,Edit"), Some(','));
        assert_eq!(impossible("tools:Bash AND command:rm*"), Some(':'));
        assert_eq!(impossible("Bash,?"), None);
        assert_eq!(impossible("Bash,{0,2}"), None);
        assert_eq!(impossible("Bash,+"), Some(','));
        assert_eq!(impossible("mcp__.*"), None);
        assert_eq!(impossible("(a,b)"), Some(','));
        assert_eq!(impossible("(a,|b)"), None);
        assert_eq!(impossible("[,]x"), None);
        assert_eq!(impossible("a\\.b"), Some('.'));
    }
}
