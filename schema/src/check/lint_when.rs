//! `always-false-when`: a `when` (or a part of one) that no event can
//! satisfy, found from the predicate's structure alone (no tool schema).
//!
//! A conjunction is contradictory when two of its leaves (`all` items,
//! nested `all`s flattened, `not` of a leaf as its negation) cannot hold
//! together on one pointer: two `equals` of different values; a test and
//! its own negation; `exists: false` beside any other test of the pointer
//! (a pointer that does not resolve makes every other leaf false); `equals`
//! of a non-string beside `matches` / `glob` (which only match strings);
//! two different `outcome`s. An `any` is always false when every branch is;
//! a `not` when its operand is always true (`all: []`, or the `not` of an
//! always false predicate).

use serde_json::Value;

use super::{At, Checker};
use crate::config::{ArgTest, Config, Predicate};
use crate::diagnostic::Severity;

/// A leaf as a conjunction sees it: the leaf and whether it is negated.
#[derive(Clone, Copy)]
struct Literal<'a> {
    leaf: &'a Predicate,
    negated: bool,
}

impl Checker<'_> {
    /// Reports the outermost always-false parts of every hook's `when`.
    pub(super) fn lint_always_false(&mut self, config: &Config) {
        for (i, hook) in config.hooks.iter().enumerate() {
            if let Some(when) = &hook.when {
                self.always_false_at(&format!("/hooks/{i}/when"), when, &hook.id, true);
            }
        }
    }

    fn always_false_at(&mut self, p: &str, predicate: &Predicate, id: &str, whole: bool) {
        if let Some(why) = always_false(predicate) {
            let effect = if whole {
                format!("hook `{id}` never runs")
            } else {
                format!("this part of hook `{id}`'s `when` never holds")
            };
            self.lint(
                Severity::Warning,
                p,
                At::Value,
                "always-false-when",
                format!("condition is always false: {why}, so {effect}"),
                "a value cannot satisfy both; use `any` for alternatives, or remove the contradictory leaf".to_owned(),
            );
            return;
        }
        match predicate {
            Predicate::All(items) | Predicate::Any(items) => {
                let key = if matches!(predicate, Predicate::All(_)) {
                    "all"
                } else {
                    "any"
                };
                for (k, item) in items.iter().enumerate() {
                    self.always_false_at(&format!("{p}/{key}/{k}"), item, id, false);
                }
            }
            Predicate::Not(inner) => self.always_false_at(&format!("{p}/not"), inner, id, false),
            Predicate::Arg { .. } | Predicate::Outcome(_) | Predicate::Permission(_) => {}
        }
    }
}

/// Why `predicate` can never hold, or `None` when it may.
fn always_false(predicate: &Predicate) -> Option<String> {
    match predicate {
        Predicate::All(items) => {
            if let Some(why) = items.iter().find_map(always_false) {
                return Some(why);
            }
            let mut literals = Vec::new();
            flatten(items, &mut literals);
            contradiction(&literals)
        }
        Predicate::Any(items) => {
            let reasons: Option<Vec<String>> = items.iter().map(always_false).collect();
            match reasons {
                Some(r) if r.is_empty() => Some("`any` of no predicate".to_owned()),
                Some(r) => Some(format!("every `any` branch is ({})", r.join("; "))),
                None => None,
            }
        }
        Predicate::Not(inner) => {
            always_true(inner).then(|| "`not` of a condition that always holds".to_owned())
        }
        Predicate::Arg { .. } | Predicate::Outcome(_) | Predicate::Permission(_) => None,
    }
}

/// Whether `predicate` holds for every event.
fn always_true(predicate: &Predicate) -> bool {
    match predicate {
        Predicate::All(items) => items.iter().all(always_true),
        Predicate::Any(items) => items.iter().any(always_true),
        Predicate::Not(inner) => always_false(inner).is_some(),
        Predicate::Arg { .. } | Predicate::Outcome(_) | Predicate::Permission(_) => false,
    }
}

/// The leaves of a conjunction: nested `all`s flattened, `not` of a leaf
/// negated. `any`s and other `not`s are left out (they constrain nothing
/// a pair of leaves can contradict).
fn flatten<'a>(items: &'a [Predicate], out: &mut Vec<Literal<'a>>) {
    for item in items {
        match item {
            Predicate::All(inner) => flatten(inner, out),
            Predicate::Not(inner) if is_leaf(inner) => out.push(Literal {
                leaf: inner,
                negated: true,
            }),
            leaf if is_leaf(leaf) => out.push(Literal {
                leaf,
                negated: false,
            }),
            _ => {}
        }
    }
}

fn is_leaf(predicate: &Predicate) -> bool {
    matches!(
        predicate,
        Predicate::Arg { .. } | Predicate::Outcome(_) | Predicate::Permission(_)
    )
}

/// The first pair of literals that cannot hold together, described.
fn contradiction(literals: &[Literal<'_>]) -> Option<String> {
    literals.iter().enumerate().find_map(|(i, a)| {
        literals[i + 1..]
            .iter()
            .find_map(|b| clash(a, b).or_else(|| clash(b, a)))
    })
}

/// Why `a` and `b` cannot both hold (checked in this order; the caller
/// tries both orders).
fn clash(a: &Literal<'_>, b: &Literal<'_>) -> Option<String> {
    if a.leaf == b.leaf && a.negated != b.negated {
        return Some(format!("{} and its negation", describe(a.leaf)));
    }
    match (a.leaf, b.leaf) {
        (Predicate::Outcome(x), Predicate::Outcome(y)) if !a.negated && !b.negated && x != y => {
            Some(format!(
                "`outcome: {}` and `outcome: {}`",
                outcome(*x),
                outcome(*y)
            ))
        }
        (
            Predicate::Arg {
                subject: sa,
                pointer: pa,
                test: ta,
            },
            Predicate::Arg {
                subject: sb,
                pointer: pb,
                test: tb,
            },
        ) if pa == pb && sa == sb => arg_clash(pa, (ta, a.negated), (tb, b.negated)),
        _ => None,
    }
}

/// Why two tests of the same pointer (each with whether it is negated)
/// cannot both hold.
fn arg_clash(pointer: &str, a: (&ArgTest, bool), b: (&ArgTest, bool)) -> Option<String> {
    // `exists: false`, or the `not` of `exists: true`.
    let absent = |t: (&ArgTest, bool)| matches!(t, (ArgTest::Exists(e), negated) if *e == negated);
    // A leaf that only holds when the pointer resolves.
    let needs_value = |t: (&ArgTest, bool)| match t {
        (ArgTest::Exists(e), negated) => *e != negated,
        (_, negated) => !negated,
    };
    let at = format!("at pointer `{pointer}`");
    match (a, b) {
        ((ArgTest::Equals(x), false), (ArgTest::Equals(y), false)) if x != y => Some(format!(
            "`equals: {}` and `equals: {}` {at}",
            short(x),
            short(y)
        )),
        (x, y) if absent(x) && needs_value(y) => Some(format!(
            "{} and {} {at}",
            describe_test(x),
            describe_test(y)
        )),
        ((ArgTest::Equals(x), false), (ArgTest::Matches(_) | ArgTest::Glob(_), false))
            if !x.is_string() =>
        {
            Some(format!(
                "`equals: {}` (not a string) and {} (which only matches strings) {at}",
                short(x),
                describe_test(b)
            ))
        }
        _ => None,
    }
}

/// `` `equals: 1` at pointer `/a` ``, `` `outcome: success` ``.
fn describe(leaf: &Predicate) -> String {
    match leaf {
        Predicate::Arg { pointer, test, .. } => {
            format!("{} at pointer `{pointer}`", describe_test((test, false)))
        }
        Predicate::Permission(rule) => format!("`permission: {rule}`"),
        Predicate::Outcome(o) => format!("`outcome: {}`", outcome(*o)),
        _ => "a condition".to_owned(),
    }
}

/// `` `equals: 1` ``, or `` `not` `equals: 1` `` when negated.
fn describe_test((test, negated): (&ArgTest, bool)) -> String {
    let leaf = match test {
        ArgTest::Matches(re) => format!("`matches: {}`", short(&Value::from(re.as_str()))),
        ArgTest::Glob(g) => format!("`glob: {}`", short(&Value::from(g.as_str()))),
        ArgTest::Equals(v) => format!("`equals: {}`", short(v)),
        ArgTest::Exists(e) => format!("`exists: {e}`"),
    };
    if negated {
        format!("`not` {leaf}")
    } else {
        leaf
    }
}

fn outcome(o: crate::phase::OutcomeKind) -> String {
    o.as_str().to_owned()
}

/// A JSON value in a message, cut at 40 characters.
fn short(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 40 {
        let cut: String = text.chars().take(39).collect();
        format!("{cut}…")
    } else {
        text
    }
}
