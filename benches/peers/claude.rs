//! A Claude-Code-style matcher: hooks as a list, each with a `matcher`, an
//! unanchored regex over the tool name (JavaScript-flavoured, `Bash|Edit`,
//! `mcp__.*`; here the `regex` crate, compiled once per hook). Per event
//! every hook's matcher is evaluated; each matched hook then checks the
//! arguments (the `when` of the rule, on the one parsed JSON every hook is
//! handed); the first blocking hook in list order decides.
//!
//! The generator writes each rule's tool patterns as one matcher, anchored
//! where the policy's patterns are (an exact name as `^name$`, a glob
//! `mcp__s1__*` as `^mcp__s1__.*`): an unanchored `tool_1` would also
//! match `tool_10`, which a careful user anchors against.

use regex::Regex;
use serde_json::Value;

use super::{Decision, Rules, Tool, When, glob_body};

/// A `when` with its regexes compiled.
enum Check {
    /// The pointer's tokens (unescaped once, so that no event allocates)
    /// and the regex.
    Leaf {
        tokens: Vec<String>,
        regex: Regex,
    },
    All(Vec<Check>),
    Any(Vec<Check>),
    Not(Box<Check>),
}

impl Check {
    fn of(when: &When) -> Check {
        let compile = |re: &str| Regex::new(re).expect("the policy's regex compiles");
        match when {
            When::Matches { pointer, regex } => Check::Leaf {
                tokens: tokens(pointer),
                regex: compile(regex),
            },
            When::Glob { pointer, glob } => Check::Leaf {
                tokens: tokens(pointer),
                regex: compile(&format!("^{}$", glob_body(glob))),
            },
            When::All(items) => Check::All(items.iter().map(Check::of).collect()),
            When::Any(items) => Check::Any(items.iter().map(Check::of).collect()),
            When::Not(inner) => Check::Not(Box::new(Check::of(inner))),
        }
    }

    fn holds(&self, args: &Value) -> bool {
        match self {
            Check::Leaf { tokens, regex } => at(args, tokens)
                .and_then(Value::as_str)
                .is_some_and(|text| regex.is_match(text)),
            Check::All(items) => items.iter().all(|c| c.holds(args)),
            Check::Any(items) => items.iter().any(|c| c.holds(args)),
            Check::Not(inner) => !inner.holds(args),
        }
    }
}

/// A JSON pointer's tokens, unescaped.
fn tokens(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// The value at `tokens` in `value` (`Value::pointer` without its
/// per-token allocations).
fn at<'v>(value: &'v Value, tokens: &[String]) -> Option<&'v Value> {
    tokens.iter().try_fold(value, |v, token| match v {
        Value::Object(map) => map.get(token),
        Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

/// One hook of the list.
struct Hook {
    /// The matcher as written in the settings.
    source: String,
    matcher: Regex,
    check: Option<Check>,
    reason: String,
}

/// The matcher text of a rule's tool patterns (`.*` without any).
pub(crate) fn matcher(tools: &[Tool]) -> String {
    if tools.is_empty() {
        return ".*".to_owned();
    }
    let alternatives: Vec<String> = tools
        .iter()
        .map(|tool| match tool {
            Tool::Exact(name) => format!("^{}$", regex::escape(name)),
            Tool::Glob(glob) => {
                let body = glob_body(glob);
                let start = if glob.starts_with('*') { "" } else { "^" };
                let end = if glob.ends_with('*') { "" } else { "$" };
                format!("{start}{body}{end}")
            }
            Tool::Regex(regex) => format!("^(?:{regex})$"),
        })
        .collect();
    alternatives.join("|")
}

/// The hook list.
pub(crate) struct Claude {
    hooks: Vec<Hook>,
}

impl Claude {
    /// The hooks of `rules`, one per rule, matchers compiled once.
    ///
    /// # Panics
    ///
    /// When a matcher does not compile.
    pub(crate) fn new(rules: &Rules) -> Claude {
        let hooks = rules
            .0
            .iter()
            .map(|rule| {
                let source = matcher(&rule.tools);
                Hook {
                    matcher: Regex::new(&source).expect("the matcher compiles"),
                    source,
                    check: rule.when.as_ref().map(Check::of),
                    reason: rule.reason.clone(),
                }
            })
            .collect();
        Claude { hooks }
    }

    /// The matcher texts, in list order.
    pub(crate) fn matchers(&self) -> impl Iterator<Item = &str> {
        self.hooks.iter().map(|h| h.source.as_str())
    }

    /// Decides one `before_tool` event: every hook's matcher is evaluated
    /// on `tool`; each matched hook's check runs on `args`; the first
    /// hook in list order that blocks decides.
    pub(crate) fn decide(&self, tool: &str, args: &Value) -> Decision {
        let mut decision: Option<&str> = None;
        for hook in &self.hooks {
            if !hook.matcher.is_match(tool) {
                continue;
            }
            let blocks = hook.check.as_ref().is_none_or(|c| c.holds(args));
            if blocks && decision.is_none() {
                decision = Some(&hook.reason);
            }
        }
        decision.map(str::to_owned)
    }
}
