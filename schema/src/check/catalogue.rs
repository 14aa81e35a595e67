//! The `catalogue:` key's shape, and the checks of a valid config against
//! a tool catalogue: tool names in `include_tools` / `exclude_tools` /
//! `active_tools` / `tool_choice`, `when` and `rewrite` pointers the
//! tool's schema can contain, `when` literals that can match and `rewrite`
//! values that validate.

use std::collections::HashMap;

use serde_json::Value;

use super::names::VOCABULARY;
use super::walk::{child, quoted_list, suggest};
use super::{At, Checker};
use crate::automata::{pointer_tokens, tool_matcher};
#[cfg(feature = "rewrite-check")]
use crate::catalogue::standalone;
use crate::catalogue::{Catalogue, SourceError, may_be_string, pointers, reach};
use crate::config::{Action, ArgTest, Config, Hook, Predicate, RewriteOp, ToolChoice, ToolPattern};
use crate::diagnostic::{Layer, Severity};
use crate::phase::Phase;

/// The schema a hook's pointers address for one tool: its input on
/// `before_tool`, its result on `after_tool` (`None`: not in the catalogue).
#[derive(Clone, Copy)]
struct Target<'c> {
    tool: &'c str,
    schema: Option<&'c Value>,
    /// The arguments' schema (`subject: args` on `after_tool`).
    input: &'c Value,
}

/// The words naming what a pointer addresses on `phase`.
fn addressed(phase: Phase) -> &'static str {
    if phase == Phase::AfterTool {
        "result"
    } else {
        "arguments"
    }
}

impl Checker<'_> {
    /// The structure of the `catalogue:` key (layer 2, in precise words).
    pub(super) fn catalogue_key(&mut self, p: &str, v: &Value) {
        if let Value::String(_) = v {
            self.nonempty_string(p, v);
            return;
        }
        let Some(tools) = self.object(
            p,
            v,
            "a mapping from tool names to `{input, result}`, or the path of a catalogue file",
        ) else {
            return;
        };
        for (name, entry) in tools {
            let tp = child(p, name);
            let Some(e) = self.object(&tp, entry, "a mapping with `input` and optionally `result`")
            else {
                continue;
            };
            self.unknown_keys(&tp, e, VOCABULARY.tool_entry, &format!("tool `{name}`"));
            if !e.contains_key("input") {
                self.missing(&tp, "input", &format!("tool `{name}`"), None);
            }
            for &key in VOCABULARY.tool_entry {
                match e.get(key) {
                    None | Some(Value::Object(_) | Value::Bool(_)) => {}
                    Some(s @ Value::String(_)) => {
                        self.nonempty_string(&child(&tp, key), s);
                    }
                    Some(other) => self.type_error(
                        &child(&tp, key),
                        "a JSON Schema (a mapping) or the path of a JSON Schema file",
                        other,
                        None,
                    ),
                }
            }
        }
    }

    /// Reports the problems resolving the catalogue (files, schemas).
    pub(crate) fn catalogue_sources(&mut self, errors: Vec<SourceError>) {
        for e in errors {
            self.report(
                &e.pointer,
                At::Value,
                Layer::Semantic,
                e.code,
                e.message,
                None,
            );
        }
    }

    /// Reports the tools of the config's `catalogue:` that the loader's
    /// catalogue from code has too.
    pub(crate) fn catalogue_twice(&mut self, names: Vec<String>) {
        for name in names {
            self.report(
                &child("/catalogue", &name),
                At::Key,
                Layer::Semantic,
                "duplicate-tool",
                format!("tool `{name}` is also in the catalogue given by the program"),
                Some("describe each tool in one place".to_owned()),
            );
        }
    }

    /// Every check of `config` against `catalogue`.
    pub(crate) fn against_catalogue(&mut self, config: &Config, catalogue: &Catalogue) {
        let names: Vec<&str> = catalogue.names().collect();
        let mut memo = Memo::default();
        for (i, hook) in config.hooks.iter().enumerate() {
            let hp = format!("/hooks/{i}");
            self.tool_names(&hp, hook, &names);
            if hook.phase.is_tool_phase() {
                let targets = memo.targets(hook, catalogue);
                if let Some(when) = &hook.when {
                    self.when_against(&child(&hp, "when"), when, hook.phase, &targets, &mut memo);
                }
                if let Action::Rewrite(ops) = &hook.action {
                    for (k, op) in ops.iter().enumerate() {
                        self.rewrite_against(
                            &format!("{hp}/rewrite/{k}"),
                            op,
                            hook.phase,
                            &targets,
                            &mut memo,
                        );
                    }
                }
            }
            if let Action::Patch(patch) = &hook.action {
                let pp = child(&hp, "patch");
                for (k, name) in patch.active_tools.iter().flatten().enumerate() {
                    self.known_tool(&format!("{pp}/active_tools/{k}"), name, &names);
                }
                if let Some(ToolChoice::Tools(t)) = &patch.tool_choice {
                    for (k, name) in t.tools.iter().enumerate() {
                        self.known_tool(&format!("{pp}/tool_choice/tools/{k}"), name, &names);
                    }
                }
            }
        }
    }

    /// Exact names in `include_tools` / `exclude_tools` must be tools.
    fn tool_names(&mut self, hp: &str, hook: &Hook, names: &[&str]) {
        for (key, list) in [
            ("include_tools", &hook.include_tools),
            ("exclude_tools", &hook.exclude_tools),
        ] {
            for (j, pattern) in list.iter().enumerate() {
                let p = format!("{hp}/{key}/{j}");
                match pattern.literal() {
                    Some(name) => self.known_tool(&p, name, names),
                    // An exclude pattern matching nothing excludes nothing:
                    // it cannot keep a rule from firing, so it is no finding.
                    None if key == "include_tools" => {
                        self.pattern_matches_a_tool(&p, pattern, names);
                    }
                    None => {}
                }
            }
        }
    }

    /// A glob or regex in `include_tools` that matches no catalogue tool
    /// is a warning, not an error: the catalogue may be incomplete (tools
    /// added at run time, MCP servers).
    fn pattern_matches_a_tool(&mut self, p: &str, pattern: &ToolPattern, names: &[&str]) {
        let Ok(matcher) = tool_matcher(std::slice::from_ref(pattern)) else {
            return;
        };
        if names.iter().any(|name| matcher.matches(name)) {
            return;
        }
        let shown = match pattern {
            ToolPattern::Glob(g) => g.clone(),
            ToolPattern::Regex(r) => format!("{{regex: {}}}", r.regex),
        };
        self.lint(
            Severity::Warning,
            p,
            At::Value,
            "pattern-matches-no-tool",
            format!(
                "tool pattern `{shown}` matches no tool of the catalogue ({})",
                quoted_list(names)
            ),
            "fix the pattern, or add the tools it is for to `catalogue:`".to_owned(),
        );
    }

    fn known_tool(&mut self, p: &str, name: &str, names: &[&str]) {
        if names.contains(&name) {
            return;
        }
        let hint = suggest(name, names)
            .unwrap_or_else(|| "add the tool to `catalogue:` or fix the name".to_owned());
        self.report(
            p,
            At::Value,
            Layer::Semantic,
            "unknown-tool",
            format!(
                "unknown tool `{name}`, expected one of: {}",
                quoted_list(names)
            ),
            Some(hint),
        );
    }

    fn when_against(
        &mut self,
        p: &str,
        when: &Predicate,
        phase: Phase,
        targets: &[Target<'_>],
        memo: &mut Memo,
    ) {
        match when {
            Predicate::All(parts) | Predicate::Any(parts) => {
                let key = if matches!(when, Predicate::All(_)) {
                    "all"
                } else {
                    "any"
                };
                for (k, part) in parts.iter().enumerate() {
                    self.when_against(&format!("{p}/{key}/{k}"), part, phase, targets, memo);
                }
            }
            Predicate::Not(inner) => {
                self.when_against(&child(p, "not"), inner, phase, targets, memo);
            }
            Predicate::Outcome(_) | Predicate::Permission(_) => {}
            Predicate::Arg {
                subject,
                pointer,
                test,
            } if crate::config::addresses_args(*subject, phase) => {
                let inputs: Vec<Target<'_>> = targets
                    .iter()
                    .map(|t| Target {
                        schema: Some(t.input),
                        ..*t
                    })
                    .collect();
                let args = Predicate::Arg {
                    subject: None,
                    pointer: pointer.clone(),
                    test: test.clone(),
                };
                self.when_against(p, &args, Phase::BeforeTool, &inputs, memo);
            }
            Predicate::Arg { pointer, test, .. } => {
                let Some(reached) = self.pointer_against(p, pointer, phase, targets) else {
                    return;
                };
                match test {
                    ArgTest::Equals(value) => {
                        if let Some(why) = memo.never_valid(value, &reached) {
                            self.report(
                                &child(p, "equals"),
                                At::Value,
                                Layer::Semantic,
                                "never-matches",
                                format!("`equals: {value}` can never match: {why}"),
                                Some(
                                    "compare with a value of the type the schema gives".to_owned(),
                                ),
                            );
                        }
                    }
                    ArgTest::Matches(_) | ArgTest::Glob(_) => {
                        let strings = reached.iter().any(|(_, root, schemas)| {
                            schemas.iter().all(|s| may_be_string(root, s))
                        });
                        if !strings {
                            let key = if matches!(test, ArgTest::Glob(_)) {
                                "glob"
                            } else {
                                "matches"
                            };
                            self.report(
                                &child(p, key),
                                At::Key,
                                Layer::Semantic,
                                "never-matches",
                                format!(
                                    "`{key}` can never match: `{pointer}` is never a string in the {} of {}",
                                    addressed(phase),
                                    tool_list(&reached)
                                ),
                                Some("`matches` and `glob` test strings; use `equals` for other values".to_owned()),
                            );
                        }
                    }
                    ArgTest::Exists(_) => {}
                }
            }
        }
    }

    fn rewrite_against(
        &mut self,
        p: &str,
        op: &RewriteOp,
        phase: Phase,
        targets: &[Target<'_>],
        memo: &mut Memo,
    ) {
        let Some(reached) = self.pointer_against(p, op.pointer(), phase, targets) else {
            return;
        };
        if let RewriteOp::Set { value, pointer } = op
            && let Some(why) = memo.never_valid(value, &reached)
        {
            self.report(
                &child(p, "value"),
                At::Value,
                Layer::Semantic,
                "invalid-rewrite-value",
                format!("`set` value `{value}` does not fit `{pointer}`: {why}"),
                Some("set a value the tool's schema accepts at that pointer".to_owned()),
            );
        }
    }

    /// Where `pointer` (at `{p}/pointer`) leads in each target's schema;
    /// `None` (after reporting) when no target's schema can contain it, or
    /// when some target has no schema (then nothing more is known).
    fn pointer_against<'c>(
        &mut self,
        p: &str,
        pointer: &str,
        phase: Phase,
        targets: &[Target<'c>],
    ) -> Option<Vec<(&'c str, &'c Value, Vec<&'c Value>)>> {
        if targets.is_empty() || targets.iter().any(|t| t.schema.is_none()) {
            return None;
        }
        let tokens = pointer_tokens(pointer).ok()?;
        let reached: Vec<_> = targets
            .iter()
            .filter_map(|t| {
                let root = t.schema?;
                reach(root, &tokens).map(|s| (t.tool, root, s))
            })
            .collect();
        if !reached.is_empty() {
            return Some(reached);
        }
        let mut candidates: Vec<String> = Vec::new();
        for t in targets {
            for c in t.schema.map(pointers).unwrap_or_default() {
                if !candidates.contains(&c) {
                    candidates.push(c);
                }
            }
        }
        let hint = suggest(pointer, &candidates).unwrap_or_else(|| {
            let shown: Vec<&String> = candidates.iter().take(8).collect();
            if shown.is_empty() {
                "the schema allows no value there".to_owned()
            } else {
                format!("the schema has: {}", quoted_list(&shown))
            }
        });
        let tools: Vec<&str> = targets.iter().map(|t| t.tool).collect();
        self.report(
            &child(p, "pointer"),
            At::Value,
            Layer::Semantic,
            "unknown-pointer",
            format!(
                "pointer `{pointer}` is not in the {} of {}",
                addressed(phase),
                tool_names_phrase(&tools)
            ),
            Some(hint),
        );
        None
    }
}

/// The catalogue tools `hook` applies to, with the schema its pointers address.
fn targets<'c>(hook: &Hook, catalogue: &'c Catalogue) -> Vec<Target<'c>> {
    let include = (!hook.include_tools.is_empty())
        .then(|| tool_matcher(&hook.include_tools).ok())
        .flatten();
    let exclude = (!hook.exclude_tools.is_empty())
        .then(|| tool_matcher(&hook.exclude_tools).ok())
        .flatten();
    catalogue
        .names()
        .filter(|name| include.as_ref().is_none_or(|m| m.matches(name)))
        .filter(|name| !exclude.as_ref().is_some_and(|m| m.matches(name)))
        .filter_map(|name| {
            let tool = catalogue.get(name)?;
            let schema = match hook.phase {
                Phase::AfterTool => tool.result.as_ref(),
                _ => Some(&tool.input),
            };
            Some(Target {
                tool: name,
                schema,
                input: &tool.input,
            })
        })
        .collect()
}

/// What the checks of one config reuse across its hooks: the targets of
/// each distinct pair of tool lists, and one compiled validator per
/// sub-schema (keyed by its address in the catalogue, which outlives this).
#[derive(Default)]
struct Memo {
    targets: HashMap<String, Vec<usize>>,
    #[cfg(feature = "rewrite-check")]
    validators: HashMap<usize, Option<jsonschema::Validator>>,
}

impl Memo {
    /// [`targets`] of `hook`, computed once per distinct tool lists and phase.
    fn targets<'c>(&mut self, hook: &Hook, catalogue: &'c Catalogue) -> Vec<Target<'c>> {
        let key = format!(
            "{:?}{:?}{}",
            hook.include_tools,
            hook.exclude_tools,
            hook.phase.as_str()
        );
        let names: Vec<&'c str> = catalogue.names().collect();
        let picked = self.targets.entry(key).or_insert_with(|| {
            targets(hook, catalogue)
                .iter()
                .filter_map(|t| names.iter().position(|n| *n == t.tool))
                .collect()
        });
        picked
            .iter()
            .filter_map(|&index| {
                let tool = *names.get(index)?;
                let entry = catalogue.get(tool)?;
                let schema = match hook.phase {
                    Phase::AfterTool => entry.result.as_ref(),
                    _ => Some(&entry.input),
                };
                Some(Target {
                    tool,
                    schema,
                    input: &entry.input,
                })
            })
            .collect()
    }

    /// Why `value` is valid in none of the reached places (the first
    /// validation error), or `None` when some place accepts it. Without
    /// `rewrite-check` (a catalogue is then refused as a whole,
    /// `features::missing`): `None`.
    #[cfg(not(feature = "rewrite-check"))]
    #[allow(clippy::unused_self, reason = "the same call as with the feature")]
    fn never_valid(
        &mut self,
        value: &Value,
        reached: &[(&str, &Value, Vec<&Value>)],
    ) -> Option<String> {
        let _ = (value, reached);
        None
    }

    /// Why `value` is valid in none of the reached places (the first
    /// validation error), or `None` when some place accepts it.
    #[cfg(feature = "rewrite-check")]
    fn never_valid(
        &mut self,
        value: &Value,
        reached: &[(&str, &Value, Vec<&Value>)],
    ) -> Option<String> {
        let mut why = None;
        for (tool, root, schemas) in reached {
            let failure = schemas.iter().find_map(|schema| {
                let validator = self
                    .validators
                    .entry(std::ptr::from_ref::<Value>(schema) as usize)
                    .or_insert_with(|| jsonschema::validator_for(&standalone(root, schema)).ok())
                    .as_ref()?;
                let error = validator.iter_errors(value).next()?;
                Some(error.to_string())
            });
            match failure {
                None => return None,
                Some(e) => {
                    why.get_or_insert_with(|| format!("in the schema of `{tool}`, {e}"));
                }
            }
        }
        why
    }
}

fn tool_list(reached: &[(&str, &Value, Vec<&Value>)]) -> String {
    let tools: Vec<&str> = reached.iter().map(|(t, _, _)| *t).collect();
    tool_names_phrase(&tools)
}

/// `` `bash` `` or `` tools `a`, `b` ``.
fn tool_names_phrase(tools: &[&str]) -> String {
    match tools {
        [one] => format!("`{one}`"),
        many => format!("tools {}", quoted_list(many)),
    }
}
