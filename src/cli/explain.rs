//! `agent-hooks explain CONFIG --event EVENT.json`: which rules match an
//! event and, for each that does not, the first condition that failed.
//!
//! By default only the rules of the event's phase are listed (a rule of
//! another phase fails on its phase alone, which says nothing); the last
//! line counts the others. `--all` lists every rule.
//!
//! Conditions are checked in the order dispatch checks them: phase, enabled,
//! `exclude_tools`, `include_tools`, then `when` (depth first: the first
//! failing child of an `all`, every child of an `any`, the inner predicate
//! of a `not`). Evaluation is in-process only: nothing is spawned, `run`
//! rules are judged by their conditions alone. Each rule is judged on the
//! event as given, not as rewritten by earlier rules.
//!
//! Exit codes: 0 (this is a report), 1 when the config has findings, 2 when
//! the config or the event cannot be read.

use std::path::Path;

use hooks_runtime::StepEvent;
use hooks_runtime::dispatch::{facts, subject};
use hooks_schema::automata::Search;
use hooks_schema::plan::{Mismatch, Pred, Rule, Specifier, Subject, Test, ToolSet, resolve};
use hooks_schema::sub_commands;
use hooks_schema::{ArgTest, Predicate, ToolPattern};
use serde::Serialize;
use serde_json::Value;

use crate::Format;
use crate::cli::drive::{Source, load};
use crate::cli::{EXIT_OK, EXIT_USAGE, emit_json, emit_redacted, warn};

/// The verdict on one rule.
#[derive(Debug, Serialize)]
struct RuleVerdict {
    id: String,
    /// The layer of the rule's config (docs/fleet.md, *Layers*).
    layer: String,
    /// Whether its config is in `mode: shadow` (run, recorded, never
    /// enforced).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    shadow: bool,
    phase: String,
    action: &'static str,
    matches: bool,
    /// The first failed condition (absent when the rule matches).
    #[serde(skip_serializing_if = "Option::is_none")]
    failed: Option<Failure>,
}

/// A failed condition.
#[derive(Debug, Serialize)]
struct Failure {
    /// `phase`, `disabled`, `exclude_tools`, `include_tools`, `when`.
    condition: &'static str,
    /// A rustc-style sentence.
    message: String,
    /// `when`: the JSON pointer of the failed leaf.
    #[serde(skip_serializing_if = "Option::is_none")]
    pointer: Option<String>,
}

/// Runs `agent-hooks explain`; `all` lists the rules of every phase, not
/// only the event's. Returns the exit code.
pub(crate) fn run(source: Source<'_>, event: &Path, all: bool, format: Format) -> u8 {
    let mut compiled = match load(source) {
        Ok(loaded) => loaded,
        Err(e) => {
            warn(&e.message);
            return e.code;
        }
    };
    let event_doc = match crate::cli::test::read_event(event) {
        Ok((e, _)) => e,
        Err(message) => {
            warn(&format!("error: {message}"));
            return EXIT_USAGE;
        }
    };
    let step = event_doc.as_step();
    let phase = step.kind().as_str();
    let mut other_phases = 0usize;
    // In the order the stack runs them: by layer, lowest first; without
    // the configs the managed layer's switches leave out.
    compiled.sort_by_key(|c| c.plan.layer.rank);
    let switches = compiled
        .iter()
        .find_map(|c| c.plan.switches_in_force().cloned());
    let (compiled, left_out): (Vec<_>, Vec<_>) = compiled
        .into_iter()
        .partition(|c| switches.as_ref().is_none_or(|s| s.runs(&c.plan.layer)));
    let left_out: Vec<String> = left_out.iter().map(|c| c.plan.source.to_string()).collect();
    let verdicts: Vec<RuleVerdict> = compiled
        .iter()
        .flat_map(|c| {
            let plan = &c.plan;
            plan.rules
                .iter()
                .zip(&c.config.hooks)
                .map(move |(r, h)| (r, h, plan))
        })
        .filter(|(rule, _, _)| {
            let shown = all || rule.phase.as_str() == phase;
            other_phases += usize::from(!shown);
            shown
        })
        .map(|(rule, hook, plan)| RuleVerdict {
            id: rule.id.to_string(),
            layer: plan.layer.name.to_string(),
            shadow: plan.shadow,
            phase: rule.phase.as_str().to_owned(),
            action: rule.action.name(),
            matches: rule.matches(&facts(&step)),
            failed: first_failure(rule, hook, &step),
        })
        .collect();
    match format {
        Format::Json => {
            let report = serde_json::json!({
                "config": source.name(),
                "phase": step.kind().as_str(),
                "tool": step.tool_name(),
                "rules": verdicts,
                "other_phases": other_phases,
                "left_out": left_out,
            });
            emit_json(&report);
        }
        Format::Human => {
            let mut out = format!("event: {}", step.kind().as_str());
            if let Some(tool) = step.tool_name() {
                out.push_str(&format!(" (tool `{tool}`)"));
            }
            let stacked = compiled.len() + left_out.len() > 1;
            for v in &verdicts {
                // In a stack, each rule's layer; a shadow config's rules
                // are only audited.
                let mut origin = if stacked {
                    format!(", layer {}", v.layer)
                } else {
                    String::new()
                };
                if v.shadow {
                    origin.push_str(", shadow: audited only");
                }
                match &v.failed {
                    None => out.push_str(&format!(
                        "\nmatch     `{}` ({}, {}{origin})",
                        v.id, v.phase, v.action
                    )),
                    Some(f) => out.push_str(&format!(
                        "\nno match  `{}` ({}, {}{origin}): {}",
                        v.id, v.phase, v.action, f.message
                    )),
                }
            }
            for file in &left_out {
                out.push_str(&format!(
                    "\nnot loaded `{file}`: the managed layer's switches leave it out"
                ));
            }
            let n = verdicts.iter().filter(|v| v.matches).count();
            if all {
                out.push_str(&format!("\n{n} of {} rules match", verdicts.len()));
            } else {
                out.push_str(&format!(
                    "\n{n} of {} `{phase}` rules match",
                    verdicts.len()
                ));
                if other_phases > 0 {
                    out.push_str(&format!(
                        "; {other_phases} rule{} of other phases not shown (`--all` lists them)",
                        if other_phases == 1 { "" } else { "s" }
                    ));
                }
            }
            emit_redacted(&out);
        }
    }
    EXIT_OK
}

fn fail(condition: &'static str, message: String) -> Option<Failure> {
    Some(Failure {
        condition,
        message,
        pointer: None,
    })
}

/// The first condition of `rule` that `event` fails, in dispatch order.
fn first_failure(rule: &Rule, hook: &hooks_schema::Hook, event: &StepEvent<'_>) -> Option<Failure> {
    // Which condition failed is dispatch's own decision; this only words it.
    let tool = event.tool_name().unwrap_or_default();
    match rule.mismatch(&facts(event))? {
        Mismatch::Phase => fail(
            "phase",
            format!(
                "the rule is for phase `{}`, the event is `{}`",
                rule.phase.as_str(),
                event.kind().as_str()
            ),
        ),
        Mismatch::Disabled => fail("disabled", "the rule is disabled (`enabled: false`)".into()),
        Mismatch::Excluded => {
            let which = rule
                .exclude
                .as_ref()
                .map(|set| first_pattern(set, &hook.exclude_tools, tool))
                .unwrap_or_default();
            fail(
                "exclude_tools",
                format!("tool `{tool}` is excluded by `exclude_tools` pattern {which}"),
            )
        }
        Mismatch::NotIncluded => {
            let all: Vec<String> = hook.include_tools.iter().map(pattern_text).collect();
            fail(
                "include_tools",
                format!(
                    "tool `{tool}` is not included by `include_tools`: {}",
                    all.join(", ")
                ),
            )
        }
        Mismatch::OutOfScope => fail(
            "scope",
            match (&rule.scope, event) {
                (
                    Some(scope),
                    StepEvent::SubagentStart { agent_type, .. }
                    | StepEvent::SubagentStop { agent_type, .. },
                ) => format!(
                    "the rule is scoped to subagent `{}`, and this event is subagent `{agent_type}`'s",
                    scope.name
                ),
                (Some(scope), _) => format!(
                    "the rule is scoped to {} `{}`, which is not active when one event is judged alone (see docs/config.md's *Scoped and one-shot hooks*)",
                    scope_kind(scope.kind),
                    scope.name,
                ),
                (None, _) => "the rule's scope is not active".to_owned(),
            },
        ),
        Mismatch::Spent => fail(
            "once",
            "the `once` rule already ran in this session".to_owned(),
        ),
        Mismatch::When => match (&rule.when, &hook.when) {
            (Some(pred), Some(doc)) => {
                explain_pred(pred, doc, event).map(|(message, pointer)| Failure {
                    condition: "when",
                    message,
                    pointer,
                })
            }
            _ => None,
        },
    }
}

fn scope_kind(kind: hooks_schema::plan::ScopeKind) -> &'static str {
    match kind {
        hooks_schema::plan::ScopeKind::Subagent => "subagent",
        hooks_schema::plan::ScopeKind::Skill => "skill",
    }
}

fn pattern_text(p: &ToolPattern) -> String {
    match p {
        ToolPattern::Glob(g) => format!("`{g}`"),
        ToolPattern::Regex(r) => format!("`{{regex: {}}}`", r.regex),
    }
}

/// The first pattern of `patterns` matching `tool`, by compiling each into
/// a one-pattern check against the rule's set (exact names first).
fn first_pattern(set: &ToolSet, patterns: &[ToolPattern], tool: &str) -> String {
    if set.names.iter().any(|n| n == tool) {
        return format!("`{tool}`");
    }
    let others: Vec<String> = patterns
        .iter()
        .filter(|p| !matches!(p, ToolPattern::Glob(g) if !g.contains(['*', '?', '[', '{'])))
        .map(pattern_text)
        .collect();
    others.join(" or ")
}

/// Short JSON rendering of a value (at most 120 characters).
fn show(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 120 {
        text
    } else {
        let cut: String = text.chars().take(117).collect();
        format!("{cut}...")
    }
}

/// Evaluates `pred` (whose source is `doc`) and explains the first failure:
/// `None` when it holds, else the message and the failed leaf's pointer.
fn explain_pred(
    pred: &Pred,
    doc: &Predicate,
    event: &StepEvent<'_>,
) -> Option<(String, Option<String>)> {
    match (pred, doc) {
        (Pred::All(items), Predicate::All(docs)) => items
            .iter()
            .zip(docs)
            .find_map(|(p, d)| explain_pred(p, d, event)),
        (Pred::Any(items), Predicate::Any(docs)) => {
            let mut first = None;
            for (p, d) in items.iter().zip(docs) {
                match explain_pred(p, d, event) {
                    None => return None,
                    Some(f) if first.is_none() => first = Some(f),
                    Some(_) => {}
                }
            }
            let (message, pointer) =
                first.unwrap_or_else(|| ("`any` has no alternatives".to_owned(), None));
            Some((
                format!("no alternative of `any` held; the first: {message}"),
                pointer,
            ))
        }
        (Pred::Not(items), Predicate::Not(inner)) => {
            let holds = items
                .first()
                .is_some_and(|p| explain_pred(p, inner, event).is_none());
            holds.then(|| {
                (
                    format!("`not` failed: its predicate {} holds", describe(inner)),
                    leaf_pointer(inner),
                )
            })
        }
        (Pred::Outcome(kind), _) => {
            let actual = match event {
                StepEvent::AfterTool { outcome, .. } => Some(outcome.kind()),
                _ => None,
            };
            if actual == Some(*kind) {
                return None;
            }
            let got = actual.map_or("no outcome (not an `after_tool` event)".to_owned(), |k| {
                format!("`{}`", k.as_str())
            });
            Some((
                format!("`when` outcome is {got}, expected `{}`", kind.as_str()),
                None,
            ))
        }
        (Pred::Permission(rule), _) => {
            let facts = facts(event);
            if rule.matches(facts.tool, facts.args) {
                return None;
            }
            let commands = match (&rule.specifier, facts.args) {
                (Some(Specifier::Command(_)), Some(args)) => {
                    let line = args.get("command").and_then(Value::as_str);
                    let parts = line.map(sub_commands).unwrap_or_default();
                    let shown: Vec<String> = parts.iter().map(|p| format!("`{p}`")).collect();
                    format!(" (its simple commands: {})", shown.join(", "))
                }
                _ => String::new(),
            };
            Some((
                format!(
                    "`when` permission rule `{}` does not match the tool call{commands}",
                    rule.rule
                ),
                None,
            ))
        }
        (
            Pred::Arg {
                args,
                pointer,
                test,
            },
            Predicate::Arg {
                pointer: text,
                test: doc_test,
                ..
            },
        ) => {
            let addressed = match (*args, facts(event).args) {
                (false, _) => subject(event),
                (true, Some(v)) => Subject::Json(v),
                (true, None) => Subject::None,
            };
            let found: Option<Value> = match addressed {
                Subject::Json(v) => resolve(v, pointer).cloned(),
                Subject::Text(t) if pointer.is_empty() => Some(Value::String(t.to_owned())),
                Subject::Text(_) | Subject::None => None,
            };
            let as_str = found.as_ref().and_then(Value::as_str);
            let holds = match test {
                Test::Exists(want) => found.is_some() == *want,
                Test::Equals(lit) => found.as_ref().is_some_and(|v| lit.eq_value(v)),
                Test::Matches(dfa) => as_str.is_some_and(|s| dfa.is_match(s, Search::Unanchored)),
                Test::Glob(dfa) => as_str.is_some_and(|s| dfa.is_match(s, Search::Anchored)),
            };
            if holds {
                return None;
            }
            let value = match &found {
                None => "the pointer does not resolve".to_owned(),
                Some(v) => format!("value {}", show(v)),
            };
            let expected = match doc_test {
                ArgTest::Matches(re) => format!("expected a string matching regex `{re}`"),
                ArgTest::Glob(g) => format!("expected a string matched by glob `{g}`"),
                ArgTest::Equals(v) => format!("expected {}", show(v)),
                ArgTest::Exists(true) => "expected the pointer to resolve".to_owned(),
                ArgTest::Exists(false) => "expected the pointer not to resolve".to_owned(),
            };
            Some((
                format!("`when` leaf at pointer `{text}` failed: {value}, {expected}"),
                Some(text.clone()),
            ))
        }
        // The table is built from the same config, so shapes always agree.
        _ => Some(("`when` could not be explained".to_owned(), None)),
    }
}

fn leaf_pointer(doc: &Predicate) -> Option<String> {
    match doc {
        Predicate::Arg { pointer, .. } => Some(pointer.clone()),
        _ => None,
    }
}

fn describe(doc: &Predicate) -> String {
    match doc {
        Predicate::Permission(rule) => format!("(permission `{rule}`)"),
        Predicate::Arg { pointer, test, .. } => {
            let t = match test {
                ArgTest::Matches(re) => format!("matches `{re}`"),
                ArgTest::Glob(g) => format!("glob `{g}`"),
                ArgTest::Equals(v) => format!("equals {}", show(v)),
                ArgTest::Exists(b) => format!("exists: {b}"),
            };
            format!("(pointer `{pointer}` {t})")
        }
        Predicate::Outcome(k) => format!("(outcome `{}`)", k.as_str()),
        Predicate::All(_) => "`all`".to_owned(),
        Predicate::Any(_) => "`any`".to_owned(),
        Predicate::Not(_) => "`not`".to_owned(),
    }
}
