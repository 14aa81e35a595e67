//! The runtime loader: a [`Table`] built from a config file or a parsed
//! [`Config`], for end-user overlay configs.
//!
//! It goes through the same code as `hooks!`: [`hooks_schema::load_file`]
//! validates, [`hooks_schema::automata`] compiles every pattern, and the
//! resulting table is the same type, matched by the same code.

use std::borrow::Cow;
use std::path::Path;
use std::sync::OnceLock;

use hooks_schema::automata::{self, OwnedDfa};
use hooks_schema::{
    Action, ArgTest, Config, Diagnostics, Hook, Predicate, Program, RewriteOp, ToolChoice,
    ToolChoiceMode, ToolPattern,
};
use serde_json::Value;

use crate::flow::ContextItem;

use super::data::{
    ActionSpec, Dfa, Json, List, PatchSpec, Pred, ProgramSpec, RewriteStep, Rule, RunSpec, Table,
    Test, Text, ToolChoiceSpec, ToolPaths, ToolSet, phase_index,
};

/// Why a table could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The config is invalid (rendered diagnostics, `file:line:col`).
    #[error("{0}")]
    Invalid(#[source] Diagnostics),
    /// A pattern passed validation but its automaton could not be built
    /// (for example, it exceeds the DFA size limit).
    #[error("hook `{hook}`: {message}")]
    Pattern {
        /// The hook's id.
        hook: String,
        /// What went wrong.
        message: String,
    },
}

impl Table {
    /// Loads, validates and compiles the config file at `path` (the path as
    /// given is the file name in diagnostics).
    ///
    /// # Errors
    ///
    /// [`LoadError::Invalid`] with every diagnostic when the file cannot be
    /// read or the config is invalid; [`LoadError::Pattern`] when an
    /// automaton cannot be built.
    pub fn load(path: impl AsRef<Path>) -> Result<Table, LoadError> {
        let path = path.as_ref();
        let config = hooks_schema::load_file(path).map_err(LoadError::Invalid)?;
        Table::from_config(&config, &path.display().to_string())
    }

    /// Loads a config from its text (`file` names it in diagnostics).
    ///
    /// # Errors
    ///
    /// As [`Table::load`].
    pub fn load_str(source: &str, file: &str) -> Result<Table, LoadError> {
        let config = hooks_schema::load_str(source, file).map_err(LoadError::Invalid)?;
        Table::from_config(&config, file)
    }

    /// Compiles an already validated config. `source` names it.
    ///
    /// # Errors
    ///
    /// [`LoadError::Pattern`] when a glob, regex or pointer does not compile
    /// (a config from [`hooks_schema::load_str`] has been checked already,
    /// so this is rare: an automaton over the size limit).
    pub fn from_config(config: &Config, source: &str) -> Result<Table, LoadError> {
        let mut rules = Vec::with_capacity(config.hooks.len());
        let mut phases: [Vec<u32>; 15] = Default::default();
        for (i, hook) in config.hooks.iter().enumerate() {
            let rule = rule(config, hook).map_err(|message| LoadError::Pattern {
                hook: hook.id.clone(),
                message,
            })?;
            if rule.enabled {
                let index = u32::try_from(i).unwrap_or(u32::MAX);
                phases[phase_index(rule.phase)].push(index);
            }
            rules.push(rule);
        }
        let tool_paths = config
            .tool_settings
            .iter()
            .map(|(tool, s)| ToolPaths {
                tool: owned(tool),
                path_pointers: List::Owned(s.path_pointers.iter().map(|p| owned(p)).collect()),
                allow_absolute: s.allow_absolute_paths,
                writes: s.writes,
            })
            .collect();
        Ok(Table {
            source: owned(source),
            rules: List::Owned(rules),
            phases: phases.map(List::Owned),
            tool_paths: List::Owned(tool_paths),
            limits: config.limits,
            ids: OnceLock::new(),
        })
    }
}

fn owned(s: &str) -> Text {
    Cow::Owned(s.to_owned())
}

fn dfa(d: OwnedDfa) -> Dfa {
    Dfa::Owned(Box::new(d))
}

fn tool_set(patterns: &[ToolPattern]) -> Result<Option<ToolSet>, String> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let m = automata::tool_matcher(patterns)?;
    Ok(Some(ToolSet {
        names: List::Owned(m.names.into_iter().map(Cow::Owned).collect()),
        dfa: m.dfa.map(dfa),
    }))
}

fn pointer(p: &str) -> Result<List<Text>, String> {
    Ok(List::Owned(
        automata::pointer_tokens(p)?
            .into_iter()
            .map(Cow::Owned)
            .collect(),
    ))
}

/// A config JSON value as a table literal.
pub fn json(v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                Json::U64(u)
            } else if let Some(i) = n.as_i64() {
                Json::I64(i)
            } else {
                Json::F64(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => Json::Str(owned(s)),
        Value::Array(items) => Json::Array(List::Owned(items.iter().map(json).collect())),
        Value::Object(map) => Json::Object(List::Owned(
            map.iter().map(|(k, v)| (owned(k), json(v))).collect(),
        )),
    }
}

fn pred(p: &Predicate) -> Result<Pred, String> {
    Ok(match p {
        Predicate::All(items) => Pred::All(List::Owned(
            items.iter().map(pred).collect::<Result<_, _>>()?,
        )),
        Predicate::Any(items) => Pred::Any(List::Owned(
            items.iter().map(pred).collect::<Result<_, _>>()?,
        )),
        Predicate::Not(inner) => Pred::Not(List::Owned(vec![pred(inner)?])),
        Predicate::Outcome(kind) => Pred::Outcome(*kind),
        Predicate::Arg { pointer: p, test } => Pred::Arg {
            pointer: pointer(p)?,
            test: match test {
                ArgTest::Matches(re) => Test::Matches(dfa(automata::search_dfa(re)?)),
                ArgTest::Glob(g) => Test::Glob(dfa(automata::glob_dfa(g)?)),
                ArgTest::Equals(v) => Test::Equals(json(v)),
                ArgTest::Exists(b) => Test::Exists(*b),
            },
        },
    })
}

fn rule(config: &Config, hook: &Hook) -> Result<Rule, String> {
    let tool_phase = hook.phase.is_tool_phase();
    let action = match hook.action() {
        Action::Block(r) => ActionSpec::Block(owned(&r.reason)),
        Action::Terminate(r) => ActionSpec::Terminate(owned(&r.reason)),
        Action::Inject(i) => {
            ActionSpec::Inject(List::Owned(vec![ContextItem::user(owned(&i.content))]))
        }
        Action::Rewrite(ops) => ActionSpec::Rewrite(List::Owned(
            ops.iter()
                .map(|op| {
                    Ok(match op {
                        RewriteOp::Set { pointer: p, value } => RewriteStep::Set {
                            pointer: pointer(p)?,
                            value: json(value),
                        },
                        RewriteOp::Remove { pointer: p } => RewriteStep::Remove {
                            pointer: pointer(p)?,
                        },
                    })
                })
                .collect::<Result<_, String>>()?,
        )),
        Action::Patch(p) => ActionSpec::Patch(PatchSpec {
            preamble: p.preamble.as_deref().map(owned),
            temperature: p.temperature,
            max_tokens: p.max_tokens,
            tool_choice: p.tool_choice.as_ref().map(|c| match c {
                ToolChoice::Mode(ToolChoiceMode::Auto) => ToolChoiceSpec::Auto,
                ToolChoice::Mode(ToolChoiceMode::None) => ToolChoiceSpec::None,
                ToolChoice::Mode(ToolChoiceMode::Required) => ToolChoiceSpec::Required,
                ToolChoice::Tools(t) => {
                    ToolChoiceSpec::Tools(List::Owned(t.tools.iter().map(|s| owned(s)).collect()))
                }
            }),
            keep_last: p.history.map(|h| h.keep_last),
            active_tools: p
                .effective_active_tools()
                .map(|t| List::Owned(t.into_iter().map(Text::Owned).collect())),
            additional_params: List::Owned(
                p.additional_params
                    .iter()
                    .flatten()
                    .map(|(k, v)| (owned(k), json(v)))
                    .collect(),
            ),
            extra_context: List::Owned(
                p.extra_context
                    .iter()
                    .map(|s| ContextItem::user(owned(s)))
                    .collect(),
            ),
        }),
        Action::Run(run) => ActionSpec::Run(RunSpec {
            program: match &run.program {
                Program::Shell(c) => ProgramSpec::Shell(owned(c)),
                Program::Exec(argv) => {
                    ProgramSpec::Exec(List::Owned(argv.iter().map(|a| owned(a)).collect()))
                }
            },
            cwd: run.cwd.as_deref().map(owned),
            pass: List::Owned(run.env.pass.iter().map(|s| owned(s)).collect()),
            set: List::Owned(
                run.env
                    .set
                    .iter()
                    .map(|(k, v)| (owned(k), owned(v)))
                    .collect(),
            ),
            timeout_ms: config.timeout(run).as_millis(),
            payload: config.payload(run),
            protocol: run.protocol,
        }),
    };
    Ok(Rule {
        id: owned(&hook.id),
        phase: hook.phase,
        enabled: hook.enabled,
        mode: hook.mode,
        failure_policy: config.failure_policy(hook),
        show_in_tui: hook.show_in_tui,
        include: if tool_phase {
            tool_set(&hook.include_tools)?
        } else {
            None
        },
        exclude: if tool_phase {
            tool_set(&hook.exclude_tools)?
        } else {
            None
        },
        when: hook.when.as_ref().map(pred).transpose()?,
        action,
    })
}
