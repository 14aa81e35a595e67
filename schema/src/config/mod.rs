//! The typed config, language version 1 (docs/config.md's *Keys of a hook*
//! summarises it; `examples/hooks.yaml` uses every key).
//!
//! # Shape of a hook and "exactly one action"
//!
//! A hook is one flat mapping: its common keys (`id`, `phase`, `when`, ...)
//! sit beside exactly one action key (`run`, `block`, `patch`, `rewrite`,
//! `inject` or `terminate`):
//!
//! ```yaml
//! - id: no-rm-rf
//!   phase: before_tool
//!   include_tools: [bash]
//!   block: { reason: "rm -rf is not allowed" }
//! ```
//!
//! Flat keys keep configs short and let an editor complete every key of a
//! hook in one place. "Exactly one action" is stated twice, identically: the
//! JSON Schema puts a `oneOf` of `required: [<action>]` on the hook object,
//! and the typed loader converts the flat form into [`Hook::action`], an
//! [`Action`] enum, failing when zero or several action keys are present.
//! The same pattern ("exactly one of these keys") is used for `run`
//! (`command` xor `argv`) and for `when` predicates.

mod action;
mod hook;
mod http;
mod layer;
mod policy;
mod predicate;
pub(crate) mod schema_rules;

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::catalogue::CatalogueSource;
use crate::duration::Duration;
use crate::phase::{FailurePolicy, PayloadMode};
pub use hooks_plan::Limits;

pub use action::{
    ACTION_KEYS, Action, Env, Grant, HistoryPatch, Inject, Program, Reason, RequestPatch,
    RewriteOp, Run, SelectModel, SpecificTools, ToolChoice, ToolChoiceMode,
};
pub use hook::{Hook, HookScope, RegexPattern, ToolPattern};
#[cfg(feature = "http")]
pub use http::url_problem;
pub use http::{HeaderPart, HeaderTemplateError, Http, HttpProtocol, OPA_DATA_PATH, header_parts};
pub use layer::{BuiltinLayer, ConfigMode, LayerKey, Managed, NamedLayer};
pub use policy::{POLICY_QUERY_PATTERN, Policy};
pub(crate) use predicate::addresses_args;
pub use predicate::{ArgTest, PointerSubject, Predicate};

/// A hook config, language version 1: defaults, limits, per-tool settings
/// and an ordered list of hooks. Declared order is execution and merge order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Config language version. Always `1`.
    pub version: Version,
    /// The config's layer in a stack: `managed`, `local`, `project` (the
    /// default), `user`, or `{name, rank}`. A stack runs its configs from
    /// the lowest rank to the highest, so the managed layer has the last
    /// word; in a stack of several configs only the stack file puts one in
    /// the managed layer (docs/fleet.md, *Layers*).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "project", "examples" = ["managed", {"name": "team", "rank": 250}]))]
    pub layer: Option<LayerKey>,
    /// `enforce` (the default) or `shadow`: the hooks run and are recorded
    /// but never take effect; `test` and `replay` show what they would
    /// have changed.
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(extend("default" = "enforce"))]
    pub mode: ConfigMode,
    /// The managed layer's switches (only with `layer: managed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed: Option<Managed>,
    /// Values every hook gets unless it sets its own.
    #[serde(default, skip_serializing_if = "Defaults::is_empty")]
    pub defaults: Defaults,
    /// Caps the runtime enforces (sizes in bytes, counts per turn).
    #[serde(default)]
    pub limits: Limits,
    /// Per-tool settings keyed by exact tool name: which arguments are paths,
    /// whether absolute paths are allowed, whether the tool writes. They drive
    /// the affected-path resolution of hook payloads.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tool_settings: BTreeMap<String, ToolSettings>,
    /// The agent's tools, each with its input (and optionally result) JSON
    /// Schema: a mapping from exact tool name to `{input, result}`, each a
    /// schema inline or a path relative to this file, or a path to a JSON
    /// catalogue file. When present, tool names, `when` and `rewrite`
    /// pointers and values are checked against it when the config is built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalogue: Option<CatalogueSource>,
    /// The hooks, in execution and merge order.
    pub hooks: Vec<Hook>,
}

impl Config {
    /// The failure policy `hook` runs with: its own, else `defaults.failure_policy`,
    /// else its phase's default
    /// ([`Phase::default_failure_policy`](crate::Phase::default_failure_policy):
    /// `block` on `before_tool` and `permission_request`, `warn` elsewhere).
    ///
    /// An `http` hook of `protocol: claude` defaults to `warn` instead of
    /// its phase's default: under Claude Code's rules a non-2xx answer, a
    /// connection failure or a timeout is a non-blocking error
    /// ([`Hook::implicit_failure_policy`]). A background hook
    /// (`async: true`) defaults to `warn` too, and ignores a
    /// `defaults.failure_policy` of `block` or `fail`.
    pub fn failure_policy(&self, hook: &Hook) -> FailurePolicy {
        // A background hook cannot block or end the run: a `block` or
        // `fail` default does not reach it (its own policy is checked).
        let defaults = self
            .defaults
            .failure_policy
            .filter(|p| !hook.background || p.is_background());
        hook.failure_policy
            .or(defaults)
            .unwrap_or_else(|| hook.implicit_failure_policy())
    }

    /// The timeout of a `run` action: its own, else `defaults.timeout`, else
    /// [`Defaults::DEFAULT_TIMEOUT`] (30 s).
    pub fn timeout(&self, run: &Run) -> Duration {
        self.timeout_or_default(run.timeout)
    }

    /// The payload mode of a `run` action: its own, else `defaults.payload`, else `full`.
    pub fn payload(&self, run: &Run) -> PayloadMode {
        self.payload_or_default(run.payload)
    }

    /// The timeout of an `http` action, by the rule of [`Config::timeout`].
    pub fn http_timeout(&self, http: &Http) -> Duration {
        self.timeout_or_default(http.timeout)
    }

    /// The timeout of a `policy` action, by the rule of [`Config::timeout`].
    pub fn policy_timeout(&self, policy: &Policy) -> Duration {
        self.timeout_or_default(policy.timeout)
    }

    /// The payload mode of an `http` action, by the rule of [`Config::payload`].
    pub fn http_payload(&self, http: &Http) -> PayloadMode {
        self.payload_or_default(http.payload)
    }

    fn timeout_or_default(&self, own: Option<Duration>) -> Duration {
        own.or(self.defaults.timeout)
            .unwrap_or(Defaults::DEFAULT_TIMEOUT)
    }

    fn payload_or_default(&self, own: Option<PayloadMode>) -> PayloadMode {
        own.or(self.defaults.payload).unwrap_or_default()
    }

    /// The hook with this id, if any.
    pub fn hook(&self, id: &str) -> Option<&Hook> {
        self.hooks.iter().find(|h| h.id == id)
    }
}

/// The config language version; only `1` exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Version;

impl Serialize for Version {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(1)
    }
}

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match u64::deserialize(d)? {
            1 => Ok(Version),
            n => Err(serde::de::Error::custom(format!(
                "unsupported config version `{n}`, expected `1`"
            ))),
        }
    }
}

impl JsonSchema for Version {
    fn schema_name() -> Cow<'static, str> {
        "Version".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "title": "Version",
            "description": "Config language version. Always `1`.",
            "const": 1,
            "examples": [1]
        })
    }
}

/// Values every hook gets unless it sets its own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// Timeout of `run` actions that set none. Default `30s`; bounded `1ms`..`10m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = Defaults::default_timeout_annotation(), "examples" = ["10s", "2m"]))]
    pub timeout: Option<Duration>,
    /// Failure policy of hooks that set none, replacing the per-phase default
    /// (`block` on `before_tool` and `permission_request`, `warn` elsewhere). `block` is not allowed
    /// here because it applies to every phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<DefaultFailurePolicy>")]
    pub failure_policy: Option<FailurePolicy>,
    /// Payload mode of `run` actions that set none. Default `full`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "full"))]
    pub payload: Option<PayloadMode>,
}

impl Defaults {
    /// Timeout of a `run` action when neither it nor `defaults` sets one:
    /// 30 s. The runtime's default timeout (of a shell hook spec or an
    /// executor request built without a config) is this one too.
    pub const DEFAULT_TIMEOUT: Duration =
        match Duration::from_millis(hooks_plan::DEFAULT_TIMEOUT_MS) {
            Some(d) => d,
            None => Duration::MAX,
        };

    /// [`Defaults::DEFAULT_TIMEOUT`] as the schema's `default` annotation (`30s`).
    fn default_timeout_annotation() -> String {
        Defaults::DEFAULT_TIMEOUT.to_string()
    }

    fn is_empty(&self) -> bool {
        *self == Defaults::default()
    }
}

/// The failure policies allowed in `defaults` (all but `block`).
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code, reason = "schema-only type")]
enum DefaultFailurePolicy {
    /// Continue as if the hook had returned no decision; record the failure.
    Ignore,
    /// Continue, record the failure and emit a visible diagnostic.
    Warn,
    /// Terminate the run.
    Fail,
}

/// How one tool's arguments relate to the file system.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolSettings {
    /// RFC 6901 JSON pointers into the tool's arguments whose values are file
    /// paths (strings or lists of strings), e.g. `/path`. A token `*` stands
    /// for every element of an array or every value of an object
    /// (`/edits/*/path`: the `path` of each edit). For a tool that writes,
    /// a value found there that is not a path (a number, an object) refuses
    /// the call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(inner(regex(pattern = crate::POINTER_PATTERN)), extend("examples" = [["/path"]]))]
    pub path_pointers: Vec<String>,
    /// Whether the tool may touch paths outside the workspace root. Paths are
    /// resolved against the file system (`..` and every symlink) and one
    /// outside the root is flagged `outside_root` in the payload and the
    /// record either way; when `false` (default) and the tool writes, such
    /// a call is refused before the tool runs.
    #[serde(default)]
    pub allow_absolute_paths: bool,
    /// Whether the tool writes to the paths (then a path outside the
    /// workspace root, also through a symlink, is refused unless
    /// `allow_absolute_paths`). Default `false`.
    #[serde(default)]
    pub writes: bool,
}

/// Whether `v` is its type's default (a serde `skip_serializing_if` of the
/// raw hook and `run` forms).
fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn load(hooks: &str, extra: &str) -> Config {
        let text = format!("version: 1\n{extra}hooks:\n{hooks}");
        match crate::load_str(&text, "t.yaml") {
            Ok(c) => c,
            Err(d) => panic!("{}", d.render(Some(&text))),
        }
    }

    #[test]
    fn effective_failure_policy_prefers_hook_then_defaults_then_phase() {
        let hooks = "  - { id: gate, phase: before_tool, run: { command: x } }\n  - { id: obs, phase: after_tool, run: { command: x } }\n  - { id: own, phase: after_tool, run: { command: x }, failure_policy: ignore }\n";
        let c = load(hooks, "");
        let policies: Vec<FailurePolicy> = c.hooks.iter().map(|h| c.failure_policy(h)).collect();
        assert_eq!(
            policies,
            [
                FailurePolicy::Block,
                FailurePolicy::Warn,
                FailurePolicy::Ignore
            ]
        );
        let c = load(hooks, "defaults: { failure_policy: fail }\n");
        let policies: Vec<FailurePolicy> = c.hooks.iter().map(|h| c.failure_policy(h)).collect();
        assert_eq!(
            policies,
            [
                FailurePolicy::Fail,
                FailurePolicy::Fail,
                FailurePolicy::Ignore
            ]
        );
        assert_eq!(
            c.hooks[0].failure_policy_or_phase_default(),
            FailurePolicy::Block
        );
    }

    #[test]
    fn run_defaults_come_from_defaults_then_built_ins() {
        let hooks = "  - { id: a, phase: stop, run: { command: x } }\n  - { id: b, phase: stop, run: { argv: [x], timeout: 250ms, payload: full } }\n";
        let c = load(hooks, "");
        let Action::Run(a) = c.hooks[0].action() else {
            panic!()
        };
        let Action::Run(b) = c.hooks[1].action() else {
            panic!()
        };
        assert_eq!(c.timeout(a).as_millis(), 30_000);
        assert_eq!(c.payload(a), PayloadMode::Full);
        assert_eq!(a.program, Program::Shell("x".to_owned()));
        assert_eq!(b.program, Program::Exec(vec!["x".to_owned()]));
        assert_eq!(c.timeout(b).as_millis(), 250);
        let c = load(hooks, "defaults: { timeout: 2m, payload: redacted }\n");
        let Action::Run(a) = c.hooks[0].action() else {
            panic!()
        };
        let Action::Run(b) = c.hooks[1].action() else {
            panic!()
        };
        assert_eq!(c.timeout(a).as_millis(), 120_000);
        assert_eq!(c.payload(a), PayloadMode::Redacted);
        assert_eq!(c.payload(b), PayloadMode::Full);
        assert_eq!(c.limits, Limits::default());
        assert_eq!(c.limits.max_stop_resumes_per_turn, 3);
    }
}
