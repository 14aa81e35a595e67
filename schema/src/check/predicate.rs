//! `when` predicates and tool-name patterns: shapes, regexes and globs that
//! compile (into DFAs small enough), pointers, and `outcome` where the phase
//! allows it.

use serde_json::{Map, Value};

use super::names::VOCABULARY;
use super::walk::{child, kind_of, last_key, quoted_list};
use super::{At, Checker};
use crate::automata::Search;
use crate::capability::describe_phases;
use crate::diagnostic::Layer;
use crate::phase::Phase;

/// Deepest `when` nesting accepted.
const MAX_PREDICATE_DEPTH: usize = 16;

/// The tests of a `pointer` predicate.
const TESTS: [&str; 4] = ["matches", "glob", "equals", "exists"];
/// The shapes of a predicate other than a `pointer` test.
const SHAPES: [&str; 5] = ["all", "any", "not", "outcome", "permission"];

impl Checker<'_> {
    pub(super) fn tool_patterns(&mut self, p: &str, v: &Value) {
        let Some(items) = self.array(p, v, "a list of tool-name patterns") else {
            return;
        };
        if items.is_empty() {
            self.report(
                p,
                At::Value,
                Layer::Schema,
                "empty-list",
                format!("`{}` must not be empty", last_key(p)),
                Some("omit the key to match every tool".to_owned()),
            );
        }
        for (i, item) in items.iter().enumerate() {
            let ip = format!("{p}/{i}");
            match item {
                Value::String(glob) if glob.contains('|') => self.piped_tool_glob(&ip, glob),
                Value::String(glob) => self.glob(&ip, glob, "tool glob", "invalid tool glob"),
                Value::Object(m) if m.contains_key("regex") => self.tool_regex(&ip, m),
                other => self.not_a_tool_pattern(&ip, other),
            }
        }
    }

    /// A tool glob with `|`, as Claude Code matchers write alternatives
    /// (`Bash|PowerShell`): in a glob `|` is a literal character, and no
    /// tool name contains it, so the pattern could never match.
    fn piped_tool_glob(&mut self, p: &str, glob: &str) {
        let names: Vec<&str> = glob
            .split('|')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        self.report(
            p,
            At::Value,
            Layer::Semantic,
            "pipe-in-tool-glob",
            format!(
                "tool glob `{glob}` contains `|`, which a glob matches literally and no tool name contains: it can never match"
            ),
            Some(format!(
                "write one pattern per list item: `[{}]` (or the glob `{{{}}}`)",
                names.join(", "),
                names.join(",")
            )),
        );
    }

    /// A glob that compiles into a small enough anchored DFA.
    fn glob(&mut self, p: &str, glob: &str, what: &str, invalid: &str) {
        match crate::matcher::glob_to_regex(glob) {
            Err(e) => self.report(
                p,
                At::Value,
                Layer::Semantic,
                "invalid-glob",
                format!("{invalid} `{glob}`: {e}"),
                None,
            ),
            Ok(re) => self.fits_a_dfa(p, what, glob, &re, Search::Anchored),
        }
    }

    /// A regex that compiles into a small enough DFA; `anchored` wraps it in `^(?:...)$`.
    fn regex(&mut self, p: &str, re: &str, what: &str, anchored: bool) {
        match crate::matcher::check_regex(re) {
            Err(e) => self.report(
                p,
                At::Value,
                Layer::Semantic,
                "invalid-regex",
                format!("invalid regex `{re}`: {e}"),
                None,
            ),
            Ok(()) if anchored => {
                self.fits_a_dfa(p, what, re, &format!("^(?:{re})$"), Search::Anchored);
            }
            Ok(()) => self.fits_a_dfa(p, what, re, re, Search::Unanchored),
        }
    }

    fn tool_regex(&mut self, ip: &str, m: &Map<String, Value>) {
        self.unknown_keys(ip, m, VOCABULARY.regex_pattern, "a tool-name regex pattern");
        let rp = child(ip, "regex");
        if let Some(re) = self.string(&rp, &m["regex"]) {
            self.regex(&rp, re, "tool regex", true);
        }
    }

    fn not_a_tool_pattern(&mut self, ip: &str, other: &Value) {
        let found = match other {
            Value::Object(m) => match m.keys().next() {
                Some(k) => format!("a mapping with key `{k}`"),
                None => "an empty mapping".to_owned(),
            },
            v => kind_of(v).to_owned(),
        };
        let hint = match other {
            Value::Object(m) if m.len() == 1 => m
                .values()
                .next()
                .and_then(Value::as_str)
                .map(|s| format!("write the pattern as a string: `{s}`")),
            _ => None,
        }
        .unwrap_or_else(|| {
            "write a glob string such as `bash` or `mcp__*`, or `{regex: \"...\"}`".to_owned()
        });
        self.report(
            ip,
            At::Value,
            Layer::Schema,
            "invalid-tool-pattern",
            format!(
                "expected a tool-name pattern (a glob string or `{{regex: ...}}`), found {found}"
            ),
            Some(hint),
        );
    }

    pub(super) fn predicate(&mut self, p: &str, v: &Value, phase: Option<Phase>, depth: usize) {
        if depth > MAX_PREDICATE_DEPTH {
            self.report(
                p,
                At::Value,
                Layer::Semantic,
                "predicate-too-deep",
                format!("`when` is nested more than {MAX_PREDICATE_DEPTH} levels deep"),
                None,
            );
            return;
        }
        let Some(m) = self.object(
            p,
            v,
            "a predicate mapping (`all`, `any`, `not`, `pointer`, `outcome` or `permission`)",
        ) else {
            return;
        };
        self.unknown_keys(p, m, VOCABULARY.predicate, "a predicate");
        let tests: Vec<&str> = TESTS.into_iter().filter(|k| m.contains_key(*k)).collect();
        let mut shapes: Vec<&str> = SHAPES.into_iter().filter(|k| m.contains_key(*k)).collect();
        if m.contains_key("pointer") || !tests.is_empty() {
            shapes.push("pointer");
        } else if m.contains_key("subject") {
            // `subject` goes with a `pointer` test.
            shapes.push("subject");
        }
        if shapes.len() > 1 {
            self.report(
                p,
                At::Value,
                Layer::Schema,
                "ambiguous-predicate",
                format!("a predicate has exactly one of `all`, `any`, `not`, `pointer`, `outcome` or `permission`, found {}", quoted_list(&shapes)),
                Some("combine several conditions with `all: [...]`".to_owned()),
            );
            return;
        }
        match shapes.first().copied() {
            None => self.report(
                p,
                At::Value,
                Layer::Schema,
                "empty-predicate",
                "empty predicate, expected one of: `all`, `any`, `not`, `pointer`, `outcome`, `permission`"
                    .to_owned(),
                None,
            ),
            Some(key @ ("all" | "any")) => {
                let kp = child(p, key);
                if let Some(items) = self.array(&kp, &m[key], "a list of predicates") {
                    for (i, item) in items.iter().enumerate() {
                        self.predicate(&format!("{kp}/{i}"), item, phase, depth + 1);
                    }
                }
            }
            Some("not") => self.predicate(&child(p, "not"), &m["not"], phase, depth + 1),
            Some("outcome") => self.outcome(&child(p, "outcome"), &m["outcome"], phase),
            Some("permission") => {
                self.permission(&child(p, "permission"), &m["permission"], phase);
            }
            Some(_) => self.pointer_test(p, m, &tests, phase),
        }
    }

    /// A pointer the events of `phase` can resolve: on a phase whose
    /// subject is a text (a prompt, a delta, a label) only `""` does, and
    /// on one without a subject (`run_start`) none does
    /// ([`SubjectKind`](crate::SubjectKind), the capability table).
    fn pointer_resolves(&mut self, pp: &str, pointer: &str, phase: Phase) {
        let (what, hint) = match phase.capabilities().subject {
            crate::SubjectKind::Text if !pointer.is_empty() => (
                format!(
                    "on `{phase}` the `when` subject is a text, which only the pointer `\"\"` addresses: `{pointer}` never resolves, so the test never holds"
                ),
                Some("write `pointer: \"\"` to test the text itself".to_owned()),
            ),
            crate::SubjectKind::Nothing => (
                format!(
                    "`{phase}` events have no `when` subject: no pointer resolves, so the test never holds"
                ),
                Some("remove the `when`".to_owned()),
            ),
            _ => return,
        };
        self.report(
            pp,
            At::Value,
            Layer::Semantic,
            "unresolvable-pointer",
            what,
            hint,
        );
    }

    /// A `pointer` test's `subject`, when present: one that `phase`'s events
    /// carry (the capability table's [`Capabilities::subjects`](crate::Capabilities::subjects)).
    /// Returns whether the test names a JSON subject of its own (its
    /// pointers then resolve as on any JSON value).
    fn subject(&mut self, p: &str, m: &Map<String, Value>, phase: Option<Phase>) -> bool {
        let Some(v) = m.get("subject") else {
            return false;
        };
        let sp = child(p, "subject");
        let Some(name) = self.enum_value(&sp, v, "subject", &["args", "result"], "unknown-subject")
        else {
            return true;
        };
        let Some(ph) = phase else {
            return true;
        };
        let caps = ph.capabilities();
        if !caps.subjects().any(|k| k.name() == name) {
            let has: Vec<&str> = caps.subjects().map(crate::SubjectKind::name).collect();
            self.report(
                &sp,
                At::Value,
                Layer::Semantic,
                "subject-not-available",
                format!(
                    "`{ph}` events carry no `{name}`: `when` addresses {} there",
                    quoted_list(&has)
                ),
                Some(format!(
                    "`subject: args` addresses a tool call's arguments on {}",
                    describe_phases(|c| c.tool)
                )),
            );
        }
        true
    }

    /// `{permission: "Tool(specifier)"}`: a Claude Code permission rule
    /// that reads ([`crate::permission::parse`]), on a tool phase.
    fn permission(&mut self, pp: &str, v: &Value, phase: Option<Phase>) {
        if let Some(ph) = phase.filter(|ph| !ph.capabilities().tool) {
            self.report(
                pp,
                At::Key,
                Layer::Semantic,
                "permission-not-allowed",
                format!(
                    "`permission` rules test a tool call: only on {}, found on `{ph}`",
                    describe_phases(|c| c.tool)
                ),
                None,
            );
        }
        let Some(rule) = self.string(pp, v) else {
            return;
        };
        match crate::permission::parse(rule) {
            Err(e) => self.report(
                pp,
                At::Value,
                Layer::Semantic,
                "invalid-permission-rule",
                format!("invalid permission rule `{rule}`: {e}"),
                Some("e.g. `Bash(git push *)`, `Edit(src/**)`, `WebFetch(domain:example.com)`, `mcp__github__*`".to_owned()),
            ),
            Ok(parsed) => {
                self.fits_a_dfa(pp, "permission rule tool", rule, &parsed.tools, Search::Anchored);
                if let Some((_, re)) = &parsed.specifier {
                    self.fits_a_dfa(pp, "permission rule", rule, re, Search::Anchored);
                }
            }
        }
    }

    /// `{outcome: ...}`: a known outcome, on a phase that has one.
    fn outcome(&mut self, op: &str, v: &Value, phase: Option<Phase>) {
        if let Some(ph) = phase.filter(|ph| !ph.capabilities().outcome) {
            self.report(
                op,
                At::Key,
                Layer::Schema,
                "outcome-not-allowed",
                format!(
                    "`outcome` predicates are only allowed on {} hooks, found on `{ph}`",
                    describe_phases(|c| c.outcome)
                ),
                None,
            );
        }
        self.enum_value(op, v, "outcome", VOCABULARY.outcomes, "unknown-outcome");
    }

    /// `{pointer, <test>}`: a valid pointer that `phase`'s events can
    /// resolve and exactly one valid test.
    fn pointer_test(
        &mut self,
        p: &str,
        m: &Map<String, Value>,
        tests: &[&str],
        phase: Option<Phase>,
    ) {
        match m.get("pointer") {
            None => self.missing(
                p,
                "pointer",
                "a predicate",
                Some("e.g. `pointer: /command`".to_owned()),
            ),
            Some(pv) => {
                self.pointer_value(&child(p, "pointer"), pv);
                let named = self.subject(p, m, phase);
                if let (Some(ph), Some(pointer), false) = (phase, pv.as_str(), named) {
                    self.pointer_resolves(&child(p, "pointer"), pointer, ph);
                }
            }
        }
        match tests {
            [] => self.report(
                p,
                At::Value,
                Layer::Schema,
                "missing-test",
                "a `pointer` predicate needs one test, expected one of: `matches`, `glob`, `equals`, `exists`".to_owned(),
                None,
            ),
            [test] => self.test(&child(p, test), test, &m[*test]),
            several => self.report(
                &child(p, several[1]),
                At::Key,
                Layer::Schema,
                "multiple-tests",
                format!("a `pointer` predicate has exactly one test, found {}", quoted_list(several)),
                Some("combine several tests with `all: [...]`".to_owned()),
            ),
        }
    }

    fn test(&mut self, tp: &str, test: &str, v: &Value) {
        match test {
            "matches" => {
                if let Some(re) = self.string(tp, v) {
                    self.regex(tp, re, "regex", false);
                }
            }
            "glob" => {
                if let Some(g) = self.string(tp, v) {
                    self.glob(tp, g, "glob", "invalid glob");
                }
            }
            "exists" => self.boolean(tp, v),
            _ => {}
        }
    }
}
