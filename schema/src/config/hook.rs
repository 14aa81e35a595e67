//! One hook: its common keys, its tool-name patterns and the flat serde
//! form that holds exactly one action key.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{
    Action, Grant, Http, HttpProtocol, Inject, Policy, Predicate, Reason, RequestPatch, RewriteOp,
    Run, SelectModel, is_default,
};
use crate::phase::{FailurePolicy, Mode, Phase};

/// A tool-name pattern: an anchored glob over the whole name (`bash`, `*`,
/// `mcp__github__*`) or `{regex: "..."}` (anchored: it must match the whole name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ToolPattern {
    /// A glob over the whole tool name: `*` any run of characters, `?` one
    /// character, `[abc]` a class, `{a,b}` alternatives.
    Glob(String),
    /// A regular expression matched against the whole tool name.
    Regex(RegexPattern),
}

/// `{regex: "..."}`: a tool-name regular expression.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RegexPattern {
    /// The expression (Rust `regex` syntax), implicitly anchored at both ends.
    #[schemars(example = "fs__(read|write)_.*")]
    pub regex: String,
}

impl ToolPattern {
    /// The pattern as an anchored regular expression over the whole tool name.
    ///
    /// # Errors
    ///
    /// [`PatternError`](crate::PatternError) when the glob or regex does
    /// not compile.
    pub fn to_regex(&self) -> Result<String, crate::PatternError> {
        match self {
            ToolPattern::Glob(glob) => crate::matcher::glob_to_regex(glob),
            ToolPattern::Regex(r) => {
                crate::matcher::check_regex(&r.regex)?;
                Ok(format!("^(?:{})$", r.regex))
            }
        }
    }

    /// Whether `name` is a literal tool name (a glob with no metacharacters).
    pub fn literal(&self) -> Option<&str> {
        match self {
            ToolPattern::Glob(g) if !g.contains(['*', '?', '[', ']', '{', '}', '\\']) => Some(g),
            _ => None,
        }
    }
}

/// One hook (rule): when an event of `phase` happens for matching tools and
/// `when` holds, do the hook's action.
#[derive(Debug, Clone, PartialEq)]
pub struct Hook {
    /// Unique id, `[a-z0-9_-]+`.
    pub id: String,
    /// Free text shown in diagnostics and editors.
    pub description: Option<String>,
    /// The phase whose events this hook sees.
    pub phase: Phase,
    /// Tools this hook applies to; empty means all tools. Tool phases only.
    pub include_tools: Vec<ToolPattern>,
    /// Tools this hook never applies to; wins over `include_tools`. Tool phases only.
    pub exclude_tools: Vec<ToolPattern>,
    /// A predicate over the event, evaluated before anything is spawned.
    pub when: Option<Predicate>,
    /// What the hook does.
    pub action: Action,
    /// The hook's own failure policy (see [`Config::failure_policy`](super::Config::failure_policy) for the effective one).
    pub failure_policy: Option<FailurePolicy>,
    /// `enforce` or `audit`.
    pub mode: Mode,
    /// Whether the hook is dispatched; a disabled hook stays in the table.
    pub enabled: bool,
    /// Whether the hook emits activity events for a UI.
    pub show_in_tui: bool,
    /// Whether the hook may run at once with the matching `parallel` hooks
    /// next to it on a mutating phase (their flows still fold in declared
    /// order); a hook whose action chains (`rewrite`) cannot be.
    pub parallel: bool,
    /// `async`: whether the hook runs in the background (the agent does not
    /// wait for it; what it returns is context for a later event). Only
    /// `run`, `http` and `policy` hooks, not on `run_end` / `run_error`.
    pub background: bool,
    /// `scope`: the subagent or skill the hook is limited to; `None`:
    /// always.
    pub scope: Option<HookScope>,
    /// `once`: whether the hook runs at most once per session.
    pub once: bool,
}

/// `scope`: limits a hook to one subagent or one skill, by name. The hook
/// matches only while that scope is active: a subagent from its
/// `subagent_start` to its `subagent_stop` (both included); a skill after
/// the `after_tool` of the `Skill` tool call that loaded it (Claude Code's
/// `Skill` tool, argument `skill`) to the next `user_prompt` or the end of
/// the run. As Claude Code's hooks in a subagent's or skill's frontmatter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum HookScope {
    /// `{subagent: TYPE}`.
    Subagent {
        /// While a subagent of this type (Claude Code's `agent_type`) runs.
        #[schemars(length(min = 1), example = &"code-reviewer")]
        subagent: String,
    },
    /// `{skill: NAME}`.
    Skill {
        /// While this skill (the `Skill` tool's `skill` argument) is loaded.
        #[schemars(length(min = 1), example = &"pdf")]
        skill: String,
    },
}

impl Hook {
    /// The hook's action.
    pub fn action(&self) -> &Action {
        &self.action
    }

    /// The failure policy ignoring `defaults`: the hook's own or its phase's default.
    pub fn failure_policy_or_phase_default(&self) -> FailurePolicy {
        self.failure_policy
            .unwrap_or_else(|| self.implicit_failure_policy())
    }

    /// The failure policy when neither the hook nor `defaults` sets one:
    /// `warn` for a background hook (`async: true`: nothing waits for it to
    /// block or end the run) and for an `http` hook of `protocol: claude`
    /// (Claude Code treats its HTTP hooks' errors as non-blocking), else
    /// the phase's default ([`Phase::default_failure_policy`]).
    pub fn implicit_failure_policy(&self) -> FailurePolicy {
        match &self.action {
            _ if self.background => FailurePolicy::Warn,
            Action::Http(h) if h.protocol == HttpProtocol::Claude => FailurePolicy::Warn,
            _ => self.phase.default_failure_policy(),
        }
    }
}

/// One hook (rule): when an event of `phase` happens for matching tools and
/// `when` holds, do the hook's action. A hook has exactly one action key:
/// `run`, `http`, `policy`, `block`, `patch`, `rewrite`, `inject`, `terminate`,
/// `ask` or `allow`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Hook")]
struct RawHook {
    /// Unique id of the hook, `[a-z0-9_-]+`; shown in records and diagnostics.
    #[schemars(regex(pattern = crate::ID_PATTERN), example = "block-rm-rf")]
    id: String,
    /// Free text shown in diagnostics and editors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    /// The phase whose events this hook sees.
    phase: Phase,
    /// Tool-name patterns this hook applies to (tool phases only). Absent
    /// means all tools. A pattern is an anchored glob over the whole name or
    /// `{regex: "..."}`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(min = 1), extend("examples" = [["bash", "mcp__github__*"]]))]
    include_tools: Vec<ToolPattern>,
    /// Tool-name patterns this hook never applies to (tool phases only); wins over `include_tools`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(min = 1))]
    exclude_tools: Vec<ToolPattern>,
    /// A predicate over the event's arguments (or result) and, on
    /// `after_tool`, the tool's outcome. Evaluated before anything is spawned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    when: Option<Predicate>,
    /// Action: run a command (`command:` shell form or `argv:` exec form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    run: Option<Run>,
    /// Action: POST the payload to a URL and read the response body like a
    /// `run` hook's stdout (`protocol: native`, `claude` or `opa`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    http: Option<Http>,
    /// Action (`before_tool`, `permission_request`, `before_model_select`):
    /// do not run the tool (deny; the reason is what the model sees), or do
    /// not switch the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    block: Option<Reason>,
    /// Action (`before_completion` only): patch the completion request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    patch: Option<RequestPatch>,
    /// Action (tool phases only): set or remove values in the tool's
    /// arguments (`before_tool`) or result (`after_tool`), in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    rewrite: Option<Vec<RewriteOp>>,
    /// Action (after-phases only): add a `user`-role context item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    inject: Option<Inject>,
    /// Action: end the run with a reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    terminate: Option<Reason>,
    /// Action (`before_tool`, `permission_request`): have the agent's
    /// approver decide on the call; the reason is what the approver is shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ask: Option<Reason>,
    /// Action (`permission_request` only): grant the permission.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    allow: Option<Grant>,
    /// Action: evaluate a Rego policy in process on the payload (`rego`
    /// files relative to the workspace root, `query: data.<package>.<rule>`);
    /// its value is read like a `run` hook's stdout object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    policy: Option<Policy>,
    /// Action (`before_model_select` only): switch to this model instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    select_model: Option<SelectModel>,
    /// What happens when the hook *fails* (not when it decides). Default:
    /// `block` on the gates (`before_tool`, `permission_request`,
    /// `before_model_select`), `warn` elsewhere; `block` only there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    failure_policy: Option<FailurePolicy>,
    /// `enforce` (default): the decision takes effect; `audit`: decide and
    /// record, but act as `Continue`.
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(extend("default" = "enforce"))]
    mode: Mode,
    /// Whether the hook is dispatched. A disabled hook stays in the table. Default `true`.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    #[schemars(extend("default" = true))]
    enabled: bool,
    /// Emit activity events (started / succeeded / failed, elapsed ms) for a UI. Default `false`.
    #[serde(default, skip_serializing_if = "is_false")]
    #[schemars(extend("default" = false))]
    show_in_tui: bool,
    /// Run at once with the matching `parallel` hooks declared next to it
    /// (one after another otherwise); their results still fold in declared
    /// order, so the outcome is the one of running them one by one. Not
    /// allowed with `rewrite` (the hooks after a rewrite must see its
    /// value); a `run`, `http` or `policy` hook that answers with a rewrite
    /// fails (`invalid_output`). No effect on observe-only phases, whose
    /// hooks always run at once. Default `false`.
    #[serde(default, skip_serializing_if = "is_false")]
    #[schemars(extend("default" = false))]
    parallel: bool,
    /// Run in the background: the agent does not wait for the hook. What
    /// it returns (context items) is delivered with the next event of the
    /// same run whose phase takes context (`run_start`, `before_tool`,
    /// `after_tool`, the other after-phases, `subagent_start`), at most
    /// `limits.max_async_deliveries_per_turn` per turn, or dropped (with a
    /// record) when the run ends first; a decision it answers with is
    /// refused (`invalid_output`). Cancelled at `run_end` / `run_error`.
    /// Only on `run`, `http` and `policy` hooks, not on `run_end` /
    /// `run_error`; failure policy `ignore` or `warn` (the default).
    /// Bounded by `limits.max_async_hooks` and `limits.max_async_queued`.
    /// Default `false`.
    #[serde(rename = "async", default, skip_serializing_if = "is_false")]
    #[schemars(extend("default" = false))]
    background: bool,
    /// Limit the hook to one subagent (`{subagent: TYPE}`, from its
    /// `subagent_start` to its `subagent_stop`) or one skill
    /// (`{skill: NAME}`, after the `Skill` tool call that loads it, to the
    /// next user prompt or the end of the run). Default: always active.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scope: Option<HookScope>,
    /// Run at most once per agent session: claimed when dispatch reaches
    /// the hook on an event it matches, counted across processes through
    /// the session store. Default `false`.
    #[serde(default, skip_serializing_if = "is_false")]
    #[schemars(extend("default" = false))]
    once: bool,
}

const fn yes() -> bool {
    true
}
#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde skip_serializing_if signature"
)]
const fn is_true(b: &bool) -> bool {
    *b
}
#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde skip_serializing_if signature"
)]
const fn is_false(b: &bool) -> bool {
    !*b
}

impl TryFrom<RawHook> for Hook {
    type Error = String;
    fn try_from(raw: RawHook) -> Result<Hook, String> {
        let mut actions = Vec::new();
        if let Some(run) = raw.run {
            actions.push(Action::Run(run));
        }
        if let Some(http) = raw.http {
            actions.push(Action::Http(http));
        }
        if let Some(r) = raw.block {
            actions.push(Action::Block(r));
        }
        if let Some(p) = raw.patch {
            actions.push(Action::Patch(p));
        }
        if let Some(r) = raw.rewrite {
            actions.push(Action::Rewrite(r));
        }
        if let Some(i) = raw.inject {
            actions.push(Action::Inject(i));
        }
        if let Some(t) = raw.terminate {
            actions.push(Action::Terminate(t));
        }
        if let Some(r) = raw.ask {
            actions.push(Action::Ask(r));
        }
        if let Some(g) = raw.allow {
            actions.push(Action::Allow(g));
        }
        if let Some(p) = raw.policy {
            actions.push(Action::Policy(p));
        }
        if let Some(m) = raw.select_model {
            actions.push(Action::SelectModel(m));
        }
        if actions.len() != 1 {
            return Err(format!(
                "hook `{}` must have exactly one action, found {}",
                raw.id,
                actions.len()
            ));
        }
        let action = actions.remove(0);
        Ok(Hook {
            id: raw.id,
            description: raw.description,
            phase: raw.phase,
            include_tools: raw.include_tools,
            exclude_tools: raw.exclude_tools,
            when: raw.when,
            action,
            failure_policy: raw.failure_policy,
            mode: raw.mode,
            enabled: raw.enabled,
            show_in_tui: raw.show_in_tui,
            parallel: raw.parallel,
            background: raw.background,
            scope: raw.scope,
            once: raw.once,
        })
    }
}

impl From<Hook> for RawHook {
    fn from(h: Hook) -> RawHook {
        let mut raw = RawHook {
            id: h.id,
            description: h.description,
            phase: h.phase,
            include_tools: h.include_tools,
            exclude_tools: h.exclude_tools,
            when: h.when,
            run: None,
            http: None,
            block: None,
            patch: None,
            rewrite: None,
            inject: None,
            terminate: None,
            ask: None,
            allow: None,
            policy: None,
            select_model: None,
            failure_policy: h.failure_policy,
            mode: h.mode,
            enabled: h.enabled,
            show_in_tui: h.show_in_tui,
            parallel: h.parallel,
            background: h.background,
            scope: h.scope,
            once: h.once,
        };
        match h.action {
            Action::Run(r) => raw.run = Some(r),
            Action::Http(h) => raw.http = Some(h),
            Action::Block(r) => raw.block = Some(r),
            Action::Patch(p) => raw.patch = Some(p),
            Action::Rewrite(r) => raw.rewrite = Some(r),
            Action::Inject(i) => raw.inject = Some(i),
            Action::Terminate(t) => raw.terminate = Some(t),
            Action::Ask(r) => raw.ask = Some(r),
            Action::Allow(g) => raw.allow = Some(g),
            Action::Policy(p) => raw.policy = Some(p),
            Action::SelectModel(m) => raw.select_model = Some(m),
        }
        raw
    }
}

impl Serialize for Hook {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RawHook::from(self.clone()).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Hook {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Hook::try_from(RawHook::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Hook {
    fn schema_name() -> Cow<'static, str> {
        "Hook".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = RawHook::json_schema(generator);
        super::schema_rules::add_hook_rules(&mut schema, generator);
        schema
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_patterns_compile_to_anchored_regexes() {
        let glob = ToolPattern::Glob("mcp__*".to_owned());
        assert_eq!(glob.literal(), None);
        assert!(glob.to_regex().unwrap().ends_with('$'));
        assert_eq!(ToolPattern::Glob("bash".to_owned()).literal(), Some("bash"));
        let re = ToolPattern::Regex(RegexPattern {
            regex: "fs__(read|write)".to_owned(),
        });
        assert_eq!(re.to_regex().unwrap(), "^(?:fs__(read|write))$");
        assert!(
            ToolPattern::Regex(RegexPattern {
                regex: "(".to_owned()
            })
            .to_regex()
            .is_err()
        );
    }
}
