//! The one lowering: a validated [`Config`] → its [`Plan`].
//!
//! `hooks!` quotes the result as `static` data and the runtime's loader
//! keeps it owned, so both decide identically by construction.

use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::Entry;

use serde_json::Value;

use crate::automata::{self, OwnedDfa, PatternError, Search};
use crate::config::{
    Action, ArgTest, Config, ConfigMode, Hook, LayerKey, Managed, Predicate, Program, RewriteOp,
    ToolChoice, ToolChoiceMode, ToolPattern,
};
use crate::phase::Phase;
use hooks_plan::PhaseIndex;
use hooks_plan::{
    ActionSpec, BuiltDfa, ContextItem, Dfa, History, HttpSpec, Json, Layer, List, Params,
    PermissionRule, Plan, PolicyModule, PolicySpec, Pred, ProgramSpec, RequestPatch, RewriteStep,
    Rule, RunSpec, Scope, ScopeKind, Specifier, Test, Text, ToolChoice as PlanToolChoice,
    ToolPaths, ToolSet,
};

/// DFAs already built for single patterns, keyed by the regex they were
/// built from and how they are searched: validation fills it while it checks
/// that every pattern fits a DFA, and the lowering takes its automata from it
/// instead of building them again.
#[derive(Debug, Default)]
pub struct DfaCache {
    /// `None` for a pattern matched lazily (the budget was spent).
    built: HashMap<(String, SearchKey), Option<OwnedDfa>>,
    /// Bytes single patterns may still spend on dense DFAs
    /// ([`SINGLE_BUDGET`] at first).
    single_budget: Option<usize>,
    /// How many DFAs were built, by [`DfaCache::build`] and for pattern groups.
    builds: usize,
    /// Bytes pattern groups may still spend on dense DFAs and on attempts
    /// at them ([`GROUP_BUDGET`] at first).
    group_budget: Option<usize>,
    /// The Rego files validation read for `policy` hooks (the lowering
    /// embeds them; it reads no file itself).
    pub(crate) policies: crate::policy::PolicySources,
}

/// [`Search`] as a hash key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum SearchKey {
    Anchored,
    Unanchored,
}

impl From<Search> for SearchKey {
    fn from(search: Search) -> Self {
        match search {
            Search::Anchored => SearchKey::Anchored,
            Search::Unanchored => SearchKey::Unanchored,
        }
    }
}

/// What a config's pattern groups (several patterns searched at once: the
/// index's gates and tool patterns, a rule's `include_tools` /
/// `exclude_tools`) may spend on dense DFAs, in bytes (4 MiB): each attempt
/// costs its limit, whether it succeeds or not, so the determinization work
/// of a config is bounded whatever its patterns. A group past the budget,
/// or of more than [`GROUP_DENSE_MAX`] patterns, is searched by a lazily
/// built automaton ([`hooks_plan::LazySet`]), as exact and allocation-free
/// once warm.
pub(crate) const GROUP_BUDGET: usize = 4 * 1024 * 1024;

/// What a config's single patterns (each `matches`/`glob` leaf, a lone
/// tool pattern) may spend on dense DFAs, in bytes (2 MiB): past it,
/// patterns are matched lazily, so a config of many patterns that each
/// determinize slowly (`a0.{10}$`, `a1.{10}$`, ...) loads in bounded time.
/// Determinizing costs far more than the DFA it leaves (a 60 KiB DFA of
/// `a42.{10}$` takes about 1 ms): at 8 MiB, 96 of the 512 small regexes of
/// the config-load benchmark were determinized, two thirds of its load
/// time; at 2 MiB about a quarter as many are (`BENCHMARKS.md`).
pub(crate) const SINGLE_BUDGET: usize = 2 * 1024 * 1024;

/// Most bytes one group's dense attempt may use (512 KiB).
pub(crate) const GROUP_DENSE_LIMIT: usize = 512 * 1024;

/// Most patterns a group may have and still be tried as one dense DFA: the
/// union of many patterns is where determinizing blows up (each `*x*` glob
/// doubles the states), and a dense attempt at it costs in proportion to
/// the number of patterns before it fails.
pub(crate) const GROUP_DENSE_MAX: usize = 64;

impl DfaCache {
    /// The matcher of several patterns searched at once: one dense DFA when
    /// the group is small and the config's budget allows one attempt
    /// ([`GROUP_BUDGET`]), else a [`LazySet`](hooks_plan::LazySet). Never
    /// retries: a failed attempt is charged to the budget and the group is
    /// searched lazily.
    ///
    /// # Errors
    ///
    /// [`PatternError::Fallback`] when the regex crate does not compile the
    /// patterns (each was validated, so this is not expected).
    pub(super) fn group(
        &mut self,
        regexes: &[String],
        search: Search,
    ) -> Result<Dfa, PatternError> {
        let budget = self.group_budget.get_or_insert(GROUP_BUDGET);
        let limit = GROUP_DENSE_LIMIT.min(*budget);
        if regexes.len() <= GROUP_DENSE_MAX && limit > 0 {
            self.builds += 1;
            if let Ok(dfa) = automata::build_dfa_within(regexes, search, limit) {
                *budget -= dfa.memory_usage().min(*budget);
                return Ok(Dfa::Owned(Box::new(BuiltDfa::new(
                    dfa,
                    regexes.to_vec(),
                    search,
                )?)));
            }
            *budget -= limit;
        }
        Ok(Dfa::Lazy(Box::new(hooks_plan::LazySet::new(
            regexes.to_vec(),
        )?)))
    }

    /// Gives the lowering the text of the policy file written as `path`
    /// (what the loader does for every `policy` hook after checking it).
    pub fn add_policy_source(&mut self, path: impl Into<String>, text: impl Into<String>) {
        self.policies.insert(path, text);
    }

    /// Builds the DFA of one regex (or takes the one already built), or
    /// `None` when the config's single-pattern budget ([`SINGLE_BUDGET`])
    /// is spent: the pattern is then matched lazily
    /// ([`LazySet`](hooks_plan::LazySet)), and not determinized at all.
    ///
    /// # Errors
    ///
    /// [`PatternError`], as [`automata::build_dfa`] (its size charged to
    /// the budget: a config of many too-large patterns reports the first).
    pub fn build(
        &mut self,
        regex: &str,
        search: Search,
    ) -> Result<Option<&OwnedDfa>, PatternError> {
        let budget = self.single_budget.get_or_insert(SINGLE_BUDGET);
        match self
            .built
            .entry((regex.to_owned(), SearchKey::from(search)))
        {
            Entry::Occupied(cached) => Ok(cached.into_mut().as_ref()),
            Entry::Vacant(slot) if *budget == 0 => Ok(slot.insert(None).as_ref()),
            Entry::Vacant(slot) => {
                self.builds += 1;
                match automata::build_dfa(std::slice::from_ref(&slot.key().0), search) {
                    Ok(dfa) => {
                        *budget -= dfa.memory_usage().min(*budget);
                        Ok(slot.insert(Some(dfa)).as_ref())
                    }
                    Err(e) => {
                        *budget = 0;
                        Err(e)
                    }
                }
            }
        }
    }

    /// How many DFAs have been built through this cache (each built once).
    pub fn builds(&self) -> usize {
        self.builds
    }

    /// How many distinct DFAs the cache holds.
    pub fn len(&self) -> usize {
        self.built.len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.built.is_empty()
    }

    /// The matcher of one pattern: its dense DFA, or a lazy one past the
    /// budget ([`DfaCache::build`]).
    pub(super) fn owned(&mut self, regex: &str, search: Search) -> Result<Dfa, PatternError> {
        let regexes = vec![regex.to_owned()];
        match self.build(regex, search)? {
            Some(dfa) => Ok(Dfa::Owned(Box::new(BuiltDfa::new(
                dfa.clone(),
                regexes,
                search,
            )?))),
            // Validation compiled the pattern alone: compiled on first use.
            None => Ok(Dfa::Lazy(Box::new(hooks_plan::LazySet::deferred(regexes)))),
        }
    }
}

/// Why a validated config could not be lowered: a group of patterns the
/// regex crate does not compile (each pattern alone compiled, or validation
/// would have said so; a group too large for one DFA is matched lazily),
/// or an internal inconsistency.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("hook `{hook}`: {message}")]
pub struct LowerError {
    /// The index of the hook in `hooks`.
    pub index: usize,
    /// The hook's id.
    pub hook: String,
    /// The JSON pointer of the offending value (`/hooks/2/include_tools`).
    pub pointer: String,
    /// What went wrong (lowercase).
    pub message: String,
}

/// Lowers a validated config into its dispatch plan: defaults applied
/// (timeouts, payload modes, failure policies), pointers split and
/// unescaped, every pattern compiled into its DFA once (taken from `cache`
/// when validation built it already), rules indexed per phase (and, within
/// a phase, by tool and by `when` leaf: [`PhaseIndex`]). `source` names the
/// config in the plan.
///
/// # Errors
///
/// [`LowerError`] for the first hook whose patterns cannot be compiled
/// (for a config that passed validation: tool patterns whose combined DFA
/// exceeds [`automata::DFA_SIZE_LIMIT`]).
pub fn lower(config: &Config, source: &str, cache: &mut DfaCache) -> Result<Plan, LowerError> {
    let mut rules = Vec::with_capacity(config.hooks.len());
    let mut phases: [Vec<u32>; Phase::COUNT] = Default::default();
    for (index, hook) in config.hooks.iter().enumerate() {
        let rule = rule(config, hook, cache).map_err(|(key, message)| LowerError {
            index,
            hook: hook.id.clone(),
            pointer: format!("/hooks/{index}{key}"),
            message,
        })?;
        if rule.enabled {
            phases[rule.phase.index()].push(u32::try_from(index).unwrap_or(u32::MAX));
        }
        rules.push(rule);
    }
    let mut index = Vec::with_capacity(Phase::COUNT);
    for enabled in &phases {
        let hooks: Vec<&Hook> = enabled.iter().map(|&i| &config.hooks[i as usize]).collect();
        index.push(
            super::index_build::build(&hooks, cache).map_err(|(pos, key, message)| {
                let i = enabled.get(pos).map_or(0, |&i| i as usize);
                LowerError {
                    index: i,
                    hook: config.hooks[i].id.clone(),
                    pointer: format!("/hooks/{i}{key}"),
                    message,
                }
            })?,
        );
    }
    let index: [PhaseIndex; Phase::COUNT] = index.try_into().map_err(|_| LowerError {
        index: 0,
        hook: String::new(),
        pointer: String::new(),
        message: "internal: one index per phase".to_owned(),
    })?;
    let tool_paths = config
        .tool_settings
        .iter()
        .map(|(tool, s)| ToolPaths {
            tool: owned(tool),
            path_pointers: s.path_pointers.iter().map(|p| owned(p)).collect(),
            allow_absolute: s.allow_absolute_paths,
            writes: s.writes,
        })
        .collect();
    Ok(Plan {
        source: owned(source),
        rules: List::Owned(rules),
        phases: phases.map(List::Owned),
        index,
        tool_paths,
        tool_schemas: List::EMPTY,
        limits: config.limits,
        layer: config
            .layer
            .as_ref()
            .map_or(Layer::PROJECT, LayerKey::layer),
        shadow: config.mode == ConfigMode::Shadow,
        switches: config.managed.as_ref().map(Managed::switches),
    })
}

fn owned(s: &str) -> Text {
    Cow::Owned(s.to_owned())
}

fn texts(items: &[String]) -> List<Text> {
    items.iter().map(|s| owned(s)).collect()
}

/// A failure located under the hook: the key's pointer suffix and the message.
type Located = (String, String);

fn tool_set(
    patterns: &[ToolPattern],
    key: &str,
    cache: &mut DfaCache,
) -> Result<Option<ToolSet>, Located> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let at = |e: PatternError| (format!("/{key}"), e.to_string());
    let mut names = Vec::new();
    let mut regexes = Vec::new();
    for pattern in patterns {
        match pattern.literal() {
            Some(name) => names.push(owned(name)),
            None => regexes.push(pattern.to_regex().map_err(at)?),
        }
    }
    let dfa = match regexes.as_slice() {
        [] => None,
        [one] => Some(cache.owned(one, Search::Anchored).map_err(at)?),
        many => Some(cache.group(many, Search::Anchored).map_err(at)?),
    };
    Ok(Some(ToolSet {
        names: List::Owned(names),
        dfa,
    }))
}

fn pointer(p: &str) -> Result<List<Text>, String> {
    Ok(automata::pointer_tokens(p)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(Cow::Owned)
        .collect())
}

/// A config JSON value as a plan literal.
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
        Value::Array(items) => Json::Array(items.iter().map(json).collect()),
        Value::Object(map) => Json::Object(
            sorted(map)
                .into_iter()
                .map(|(k, v)| (owned(k), json(v)))
                .collect(),
        ),
    }
}

/// The entries of `map` in key order, whatever order serde_json's map keeps
/// (a build with its `preserve_order` feature, which rig turns on, keeps
/// insertion order): a plan lowered at run time and one `hooks!` lowered
/// at build time must be equal.
fn sorted(map: &serde_json::Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<_> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

fn pred(p: &Predicate, phase: Phase, cache: &mut DfaCache) -> Result<Pred, String> {
    Ok(match p {
        Predicate::All(items) => Pred::All(
            items
                .iter()
                .map(|i| pred(i, phase, cache))
                .collect::<Result<_, _>>()?,
        ),
        Predicate::Any(items) => Pred::Any(
            items
                .iter()
                .map(|i| pred(i, phase, cache))
                .collect::<Result<_, _>>()?,
        ),
        Predicate::Not(inner) => Pred::Not(List::Owned(vec![pred(inner, phase, cache)?])),
        Predicate::Outcome(kind) => Pred::Outcome(*kind),
        Predicate::Permission(rule) => Pred::Permission(permission(rule, cache)?),
        Predicate::Arg {
            subject,
            pointer: p,
            test,
        } => Pred::Arg {
            args: crate::config::addresses_args(*subject, phase),
            pointer: pointer(p)?,
            test: match test {
                // Validation checked the regex (`check_regex`); building
                // its matcher reports what does not compile.
                ArgTest::Matches(re) => Test::Matches(
                    cache
                        .owned(re, Search::Unanchored)
                        .map_err(|e| e.to_string())?,
                ),
                ArgTest::Glob(g) => {
                    let regex = crate::glob_to_regex(g).map_err(|e| e.to_string())?;
                    Test::Glob(
                        cache
                            .owned(&regex, Search::Anchored)
                            .map_err(|e| e.to_string())?,
                    )
                }
                ArgTest::Equals(v) => Test::Equals(json(v)),
                ArgTest::Exists(b) => Test::Exists(*b),
            },
        },
    })
}

/// A permission rule compiled ([`crate::permission::parse`]; validation
/// reported what does not read).
fn permission(rule: &str, cache: &mut DfaCache) -> Result<PermissionRule, String> {
    use crate::permission::SpecifierKind as Kind;
    let parsed = crate::permission::parse(rule).map_err(|e| e.to_string())?;
    let mut dfa = |re: &str| cache.owned(re, Search::Anchored).map_err(|e| e.to_string());
    Ok(PermissionRule {
        rule: owned(rule),
        tools: dfa(&parsed.tools)?,
        specifier: match parsed.specifier {
            None => None,
            Some((kind, re)) => {
                let d = dfa(&re)?;
                Some(match kind {
                    Kind::Command => Specifier::Command(d),
                    Kind::Path => Specifier::Path(d),
                    Kind::Domain => Specifier::Domain(d),
                    Kind::Field(name) => Specifier::Field {
                        name: name.into(),
                        dfa: d,
                    },
                })
            }
        },
    })
}

/// The runtime's own patch of a config `patch`: `tool_choice: {tools:
/// [one]}` forces that tool, `{tools: [a, b, ...]}` becomes `required`
/// (with `active_tools` narrowed to those tools), `history.keep_last: N`
/// becomes [`History::KeepLast`], `additional_params` keep their keys in
/// sorted order.
fn patch(p: &crate::config::RequestPatch) -> RequestPatch {
    RequestPatch {
        model: p.model.as_deref().map(owned),
        preamble: p.preamble.as_deref().map(owned),
        temperature: p.temperature,
        max_tokens: p.max_tokens,
        tool_choice: p.tool_choice.as_ref().map(|c| match c {
            ToolChoice::Mode(ToolChoiceMode::Auto) => PlanToolChoice::Auto,
            ToolChoice::Mode(ToolChoiceMode::None) => PlanToolChoice::None,
            ToolChoice::Mode(ToolChoiceMode::Required) => PlanToolChoice::Required,
            ToolChoice::Tools(t) => match &t.tools[..] {
                [one] => PlanToolChoice::Tool(owned(one)),
                _ => PlanToolChoice::Required,
            },
        }),
        history: p.history.map(|h| History::KeepLast {
            keep_last: u64::from(h.keep_last),
        }),
        active_tools: p
            .effective_active_tools()
            .map(|t| t.iter().map(|s| owned(s)).collect::<Vec<_>>().into()),
        additional_params: Params::from_entries(
            p.additional_params
                .iter()
                .flat_map(sorted)
                .map(|(k, v)| (owned(k), json(v))),
        ),
        extra_context: p
            .extra_context
            .iter()
            .map(|s| ContextItem::user(owned(s)))
            .collect::<Vec<_>>()
            .into(),
    }
}

fn action(
    config: &Config,
    hook: &Hook,
    policies: &crate::policy::PolicySources,
) -> Result<ActionSpec, String> {
    Ok(match hook.action() {
        Action::Block(r) => ActionSpec::Block(owned(&r.reason)),
        Action::Terminate(r) => ActionSpec::Terminate(owned(&r.reason)),
        Action::Ask(r) => ActionSpec::Ask(owned(&r.reason)),
        Action::Allow(g) => ActionSpec::Allow(g.reason.as_deref().map(owned)),
        Action::SelectModel(m) => ActionSpec::SelectModel(owned(&m.model)),
        Action::Inject(i) => {
            ActionSpec::Inject(List::Owned(vec![ContextItem::user(owned(&i.content))]))
        }
        Action::Rewrite(ops) => ActionSpec::Rewrite(
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
        ),
        Action::Patch(p) => ActionSpec::Patch(patch(p)),
        Action::Http(http) => ActionSpec::Http(HttpSpec {
            url: owned(&http.url),
            headers: http
                .headers
                .iter()
                .map(|(k, v)| (owned(k), owned(v)))
                .collect(),
            env: texts(&http.env),
            timeout_ms: config.http_timeout(http).as_millis(),
            payload: config.http_payload(http),
            protocol: http.protocol,
            follow_redirects: http.follow_redirects,
        }),
        Action::Policy(policy) => {
            let modules = policy
                .rego
                .iter()
                .map(|path| {
                    let text = policies.get(path).ok_or_else(|| {
                        format!(
                            "policy file `{path}` was not loaded: load the config with `Loader` (`compile_str`, `compile_file`), which reads and checks it"
                        )
                    })?;
                    Ok(PolicyModule {
                        path: owned(path),
                        source: owned(text),
                    })
                })
                .collect::<Result<Vec<_>, String>>()?;
            let digest =
                crate::policy::policy_digest(modules.iter().map(|m| (&*m.path, &*m.source)));
            ActionSpec::Policy(PolicySpec {
                query: owned(&policy.query),
                modules: List::Owned(modules),
                digest: digest.into(),
                timeout_ms: config.policy_timeout(policy).as_millis(),
            })
        }
        Action::Run(run) => ActionSpec::Run(RunSpec {
            program: match &run.program {
                Program::Shell(c) => ProgramSpec::Shell(owned(c)),
                Program::Exec(argv) => ProgramSpec::Exec(texts(argv)),
            },
            cwd: run.cwd.as_deref().map(owned),
            pass: texts(&run.env.pass),
            set: run
                .env
                .set
                .iter()
                .map(|(k, v)| (owned(k), owned(v)))
                .collect(),
            timeout_ms: config.timeout(run).as_millis(),
            payload: config.payload(run),
            protocol: run.protocol,
            worker: run.worker,
        }),
    })
}

fn rule(config: &Config, hook: &Hook, cache: &mut DfaCache) -> Result<Rule, Located> {
    let tool_phase = hook.phase.is_tool_phase();
    let (include, exclude) = if tool_phase {
        (
            tool_set(&hook.include_tools, "include_tools", cache)?,
            tool_set(&hook.exclude_tools, "exclude_tools", cache)?,
        )
    } else {
        (None, None)
    };
    let when = hook
        .when
        .as_ref()
        .map(|w| pred(w, hook.phase, cache))
        .transpose()
        .map_err(|m| ("/when".to_owned(), m))?;
    let action = action(config, hook, &cache.policies)
        .map_err(|m| (format!("/{}", hook.action().name()), m))?;
    Ok(Rule {
        id: owned(&hook.id),
        phase: hook.phase,
        enabled: hook.enabled,
        // A config in `mode: shadow` audits every hook.
        mode: if config.mode == ConfigMode::Shadow {
            crate::phase::Mode::Audit
        } else {
            hook.mode
        },
        failure_policy: config.failure_policy(hook),
        show_in_tui: hook.show_in_tui,
        parallel: hook.parallel,
        background: hook.background,
        include,
        exclude,
        when,
        scope: hook.scope.as_ref().map(scope),
        once: hook.once,
        action,
    })
}

/// The plan's form of a hook's `scope`.
fn scope(scope: &crate::HookScope) -> Scope {
    let (kind, name) = match scope {
        crate::HookScope::Subagent { subagent } => (ScopeKind::Subagent, subagent),
        crate::HookScope::Skill { skill } => (ScopeKind::Skill, skill),
    };
    Scope {
        kind,
        name: owned(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = r#"
version: 1
hooks:
  - id: a
    phase: before_tool
    include_tools: [bash, "mcp__*"]
    when: { all: [{ pointer: /command, matches: 'rm\s' }, { pointer: /path, glob: "*.env" }] }
    block: { reason: no }
  - id: b
    phase: before_tool
    include_tools: ["fs_*", { regex: "web_(get|post)" }]
    when: { pointer: /command, matches: 'rm\s' }
    block: { reason: no }
"#;

    #[test]
    fn the_lowering_reuses_the_automata_validation_built() {
        let (config, _, mut cache) = crate::load::checked_for_tests(CONFIG, "h.yaml");
        // Validation compiled each distinct single pattern once.
        let validated = cache.builds();
        assert!(validated >= 5, "{cache:?}");
        let plan = lower(&config, "h.yaml", &mut cache).expect("lowers");
        // New: the two-pattern tool group of `b`, and the phase index's
        // group of the three tool patterns and of the two `/command` leaves.
        assert_eq!(cache.builds(), validated + 3);
        assert_eq!(plan.rules.len(), 2);
        // A cold lowering builds the six DFAs of the plan: `mcp__*`, the
        // group of `b`, the `matches` regex shared by both rules, the glob,
        // and the index's two groups.
        let mut cold = DfaCache::default();
        assert_eq!(lower(&config, "h.yaml", &mut cold).expect("lowers"), plan);
        assert_eq!(cold.builds(), 6);
    }
}
