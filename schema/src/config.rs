//! The typed config, language version 1 (the README's *Keys of a hook*
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

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::capability::ActionKind;
use crate::duration::Duration;
use crate::phase::{FailurePolicy, Mode, OutcomeKind, PayloadMode, Phase, Protocol};

/// The names of the six actions, in the order used by messages
/// ([`ActionKind::ALL`]'s config keys).
pub const ACTION_KEYS: [&str; 6] = {
    let mut keys = [""; 6];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = ActionKind::ALL[i].as_str();
        i += 1;
    }
    keys
};

/// A hook config, language version 1: defaults, limits, per-tool settings
/// and an ordered list of hooks. Declared order is execution and merge order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Config language version. Always `1`.
    pub version: Version,
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
    /// The hooks, in execution and merge order.
    pub hooks: Vec<Hook>,
}

impl Config {
    /// The failure policy `hook` runs with: its own, else `defaults.failure_policy`,
    /// else its phase's default ([`Phase::default_failure_policy`]: `block` on
    /// `before_tool`, `warn` elsewhere).
    pub fn failure_policy(&self, hook: &Hook) -> FailurePolicy {
        hook.failure_policy
            .or(self.defaults.failure_policy)
            .unwrap_or_else(|| hook.phase.default_failure_policy())
    }

    /// The timeout of a `run` action: its own, else `defaults.timeout`, else
    /// [`Defaults::DEFAULT_TIMEOUT`] (30 s).
    pub fn timeout(&self, run: &Run) -> Duration {
        run.timeout
            .or(self.defaults.timeout)
            .unwrap_or(Defaults::DEFAULT_TIMEOUT)
    }

    /// The payload mode of a `run` action: its own, else `defaults.payload`, else `full`.
    pub fn payload(&self, run: &Run) -> PayloadMode {
        run.payload.or(self.defaults.payload).unwrap_or_default()
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
    /// (`block` on `before_tool`, `warn` elsewhere). `block` is not allowed
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
    pub const DEFAULT_TIMEOUT: Duration = match Duration::from_millis(30_000) {
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

/// Caps the runtime enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// How many times per turn `stop` hooks may ask the agent to keep working
    /// before the runtime lets it stop anyway. Default 3.
    #[serde(default = "Limits::default_stop_resumes")]
    #[schemars(range(max = 100))]
    pub max_stop_resumes_per_turn: u32,
    /// Cap on each of a shell hook's stdout and stderr, in bytes; the rest is
    /// drained and dropped and the result marked truncated. Default 1 MiB (1048576).
    #[serde(default = "Limits::default_output_bytes")]
    #[schemars(range(min = 1, max = 67_108_864))]
    pub max_output_bytes: u64,
    /// Cap on the context one hook invocation may inject, in bytes (UTF-8).
    /// Default 64 KiB (65536).
    #[serde(default = "Limits::default_context_bytes")]
    #[schemars(range(min = 1, max = 16_777_216))]
    pub max_context_bytes: u64,
    /// Cap on the stdin payload of a shell hook, in bytes; a larger payload
    /// spills to a payload-ref file. Default 1 MiB (1048576).
    #[serde(default = "Limits::default_payload_bytes")]
    #[schemars(range(min = 1024, max = 67_108_864))]
    pub max_payload_bytes: u64,
}

impl Limits {
    /// The caps a config gets for every key it leaves out, and the runtime's
    /// defaults: 3 resumes per turn, 1 MiB of output per stream, 64 KiB of
    /// context per invocation, 1 MiB of stdin payload.
    pub const DEFAULT: Limits = Limits {
        max_stop_resumes_per_turn: 3,
        max_output_bytes: 1024 * 1024,
        max_context_bytes: 64 * 1024,
        max_payload_bytes: 1024 * 1024,
    };

    const fn default_stop_resumes() -> u32 {
        Limits::DEFAULT.max_stop_resumes_per_turn
    }
    const fn default_output_bytes() -> u64 {
        Limits::DEFAULT.max_output_bytes
    }
    const fn default_context_bytes() -> u64 {
        Limits::DEFAULT.max_context_bytes
    }
    const fn default_payload_bytes() -> u64 {
        Limits::DEFAULT.max_payload_bytes
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// How one tool's arguments relate to the file system.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolSettings {
    /// RFC 6901 JSON pointers into the tool's arguments whose values are file
    /// paths (strings or lists of strings), e.g. `/path`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(inner(regex(pattern = crate::POINTER_PATTERN)), extend("examples" = [["/path"]]))]
    pub path_pointers: Vec<String>,
    /// Whether absolute paths are accepted as-is; when `false` (default) they
    /// are rejected unless inside the workspace root.
    #[serde(default)]
    pub allow_absolute_paths: bool,
    /// Whether the tool writes to the paths (then symlinked targets are rejected). Default `false`.
    #[serde(default)]
    pub writes: bool,
}

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
    /// A message when the glob or regex does not compile.
    pub fn to_regex(&self) -> Result<String, String> {
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
    /// The hook's own failure policy (see [`Config::failure_policy`] for the effective one).
    pub failure_policy: Option<FailurePolicy>,
    /// `enforce` or `audit`.
    pub mode: Mode,
    /// Whether the hook is dispatched; a disabled hook stays in the table.
    pub enabled: bool,
    /// Whether the hook emits activity events for a UI.
    pub show_in_tui: bool,
}

impl Hook {
    /// The hook's action.
    pub fn action(&self) -> &Action {
        &self.action
    }

    /// The failure policy ignoring `defaults`: the hook's own or its phase's default.
    pub fn failure_policy_or_phase_default(&self) -> FailurePolicy {
        self.failure_policy
            .unwrap_or_else(|| self.phase.default_failure_policy())
    }
}

/// What a hook does: exactly one of six actions.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Run a command (shell or exec form) and interpret its output.
    Run(Run),
    /// Do not run the tool; `before_tool` only.
    Block(Reason),
    /// Patch the completion request; `before_completion` only.
    Patch(RequestPatch),
    /// Rewrite the tool's arguments (`before_tool`) or result (`after_tool`).
    Rewrite(Vec<RewriteOp>),
    /// Inject a `user`-role context item; after-phases only.
    Inject(Inject),
    /// End the run.
    Terminate(Reason),
}

impl Action {
    /// The action's kind.
    pub const fn kind(&self) -> ActionKind {
        match self {
            Action::Run(_) => ActionKind::Run,
            Action::Block(_) => ActionKind::Block,
            Action::Patch(_) => ActionKind::Patch,
            Action::Rewrite(_) => ActionKind::Rewrite,
            Action::Inject(_) => ActionKind::Inject,
            Action::Terminate(_) => ActionKind::Terminate,
        }
    }

    /// The action's config key: `run`, `block`, `patch`, `rewrite`, `inject` or `terminate`.
    pub const fn name(&self) -> &'static str {
        self.kind().as_str()
    }

    /// Whether the action with config key `name` is allowed on `phase`
    /// ([`Capabilities::actions`](crate::Capabilities::actions)); an unknown
    /// name is not an action and is allowed nowhere.
    pub fn allowed_on(name: &str, phase: Phase) -> bool {
        ActionKind::from_name(name).is_some_and(|a| a.allowed_on(phase))
    }
}

/// One hook (rule): when an event of `phase` happens for matching tools and
/// `when` holds, do the hook's action. A hook has exactly one action key:
/// `run`, `block`, `patch`, `rewrite`, `inject` or `terminate`.
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
    /// Action (`before_tool` only): do not run the tool; the reason is what the model sees.
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
    /// What happens when the hook *fails* (not when it decides). Default:
    /// `block` on `before_tool`, `warn` elsewhere; `block` only on `before_tool`.
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
fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

impl TryFrom<RawHook> for Hook {
    type Error = String;
    fn try_from(raw: RawHook) -> Result<Hook, String> {
        let mut actions = Vec::new();
        if let Some(run) = raw.run {
            actions.push(Action::Run(run));
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
            block: None,
            patch: None,
            rewrite: None,
            inject: None,
            terminate: None,
            failure_policy: h.failure_policy,
            mode: h.mode,
            enabled: h.enabled,
            show_in_tui: h.show_in_tui,
        };
        match h.action {
            Action::Run(r) => raw.run = Some(r),
            Action::Block(r) => raw.block = Some(r),
            Action::Patch(p) => raw.patch = Some(p),
            Action::Rewrite(r) => raw.rewrite = Some(r),
            Action::Inject(i) => raw.inject = Some(i),
            Action::Terminate(t) => raw.terminate = Some(t),
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
        crate::schema::add_hook_rules(&mut schema, generator);
        schema
    }
}

/// `{reason: "..."}` for `block` and `terminate`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Reason {
    /// Why; for `block` this is what the model sees as the tool's result.
    #[schemars(length(min = 1), example = "destructive command refused by policy")]
    pub reason: String,
}

/// `{content: "..."}`: a `user`-role context item to add after the event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Inject {
    /// The text of the context item (capped by `limits.max_context_bytes`).
    #[schemars(length(min = 1))]
    pub content: String,
}

/// What `run` executes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    /// Shell form: run with `sh -c`, no profile sourcing.
    Shell(String),
    /// Exec form: program and arguments, no shell. Never empty.
    Exec(Vec<String>),
}

/// The `run` action: a command run through the shared executor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The command.
    pub program: Program,
    /// Working directory, relative to the workspace root (must stay inside it).
    pub cwd: Option<String>,
    /// Environment: names passed through and values set.
    pub env: Env,
    /// Timeout; see [`Config::timeout`] for the effective value.
    pub timeout: Option<Duration>,
    /// Payload mode; see [`Config::payload`] for the effective value.
    pub payload: Option<PayloadMode>,
    /// The stdin/stdout protocol.
    pub protocol: Protocol,
}

/// Run a command through the shared executor: `command` (shell form) or
/// `argv` (exec form), with its working directory, environment, timeout,
/// payload mode and protocol.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Run")]
struct RawRun {
    /// Shell form: a command line run with `sh -c` (no profile sourcing).
    /// Exactly one of `command` and `argv`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1), example = "examples/hooks/guard.sh")]
    command: Option<String>,
    /// Exec form: the program and its arguments, run without a shell.
    /// Exactly one of `command` and `argv`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(
        length(min = 1),
        extend(
            "prefixItems" = [{"type": "string", "minLength": 1, "description": "The program to run."}],
            "examples" = [["python3", "hooks/check.py"]]
        )
    )]
    argv: Option<Vec<String>>,
    /// Working directory, relative to the workspace root; must stay inside it.
    /// Default: the workspace root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1), extend("examples" = [".", "tools/hooks"]))]
    cwd: Option<String>,
    /// Environment of the command: a minimal base plus `pass` and `set`.
    #[serde(default, skip_serializing_if = "Env::is_empty")]
    env: Env,
    /// Timeout, e.g. `500ms`, `5s`, `2m` (bounded `1ms`..`10m`). Default:
    /// `defaults.timeout`, else `30s`. On expiry the process group is killed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = Defaults::default_timeout_annotation(), "examples" = ["5s", "500ms"]))]
    timeout: Option<Duration>,
    /// What the command receives on stdin: `full` or `redacted`. Default: `defaults.payload`, else `full`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "full"))]
    payload: Option<PayloadMode>,
    /// `native` (default) or `claude` (Claude Code's hook protocol).
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(extend("default" = "native"))]
    protocol: Protocol,
}

impl TryFrom<RawRun> for Run {
    type Error = String;
    fn try_from(raw: RawRun) -> Result<Run, String> {
        let program = match (raw.command, raw.argv) {
            (Some(c), None) => Program::Shell(c),
            (None, Some(a)) if !a.is_empty() => Program::Exec(a),
            (None, Some(_)) => return Err("`argv` must not be empty".to_owned()),
            _ => return Err("`run` needs exactly one of `command` and `argv`".to_owned()),
        };
        Ok(Run {
            program,
            cwd: raw.cwd,
            env: raw.env,
            timeout: raw.timeout,
            payload: raw.payload,
            protocol: raw.protocol,
        })
    }
}

impl Serialize for Run {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (command, argv) = match &self.program {
            Program::Shell(c) => (Some(c.clone()), None),
            Program::Exec(a) => (None, Some(a.clone())),
        };
        RawRun {
            command,
            argv,
            cwd: self.cwd.clone(),
            env: self.env.clone(),
            timeout: self.timeout,
            payload: self.payload,
            protocol: self.protocol,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Run {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Run::try_from(RawRun::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Run {
    fn schema_name() -> Cow<'static, str> {
        "Run".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = RawRun::json_schema(generator);
        schema.insert(
            "oneOf".to_owned(),
            serde_json::json!([{"required": ["command"]}, {"required": ["argv"]}]),
        );
        schema
    }
}

/// The environment of a `run` command.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Env {
    /// Names of variables passed through from the agent's environment
    /// (`[A-Za-z_][A-Za-z0-9_]*`). `BASH_ENV` and `ENV` are never passed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(inner(regex(pattern = crate::ENV_NAME_PATTERN)), extend("examples" = [["HOME", "PATH"]]))]
    pub pass: Vec<String>,
    /// Variables set to fixed values; names `[A-Za-z_][A-Za-z0-9_]*`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(extend("propertyNames" = {"pattern": crate::ENV_NAME_PATTERN}))]
    pub set: BTreeMap<String, String>,
}

impl Env {
    fn is_empty(&self) -> bool {
        self.pass.is_empty() && self.set.is_empty()
    }
}

/// One step of a `rewrite` action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum RewriteOp {
    /// Set the value at `pointer` (creating the last key of an object if missing).
    Set {
        /// RFC 6901 JSON pointer into the arguments (or result), e.g. `/command`.
        #[schemars(regex(pattern = crate::POINTER_PATTERN))]
        pointer: String,
        /// The new value (any JSON value).
        value: Value,
    },
    /// Remove the value at `pointer` (nothing happens if it is absent).
    Remove {
        /// RFC 6901 JSON pointer into the arguments (or result), e.g. `/env/TOKEN`.
        #[schemars(regex(pattern = crate::POINTER_PATTERN))]
        pointer: String,
    },
}

impl RewriteOp {
    /// The pointer this step acts on.
    pub fn pointer(&self) -> &str {
        match self {
            RewriteOp::Set { pointer, .. } | RewriteOp::Remove { pointer } => pointer,
        }
    }
}

/// A change to the completion request, as a `patch` action declares it.
/// Patches of several hooks merge field by field (the README's *How several
/// hooks combine*).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("minProperties" = 1))]
pub struct RequestPatch {
    /// Replace the system preamble.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preamble: Option<String>,
    /// Sampling temperature, 0.0..=2.0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 2.0))]
    pub temperature: Option<f64>,
    /// Cap on the tokens the model may generate (at least 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u64>,
    /// Whether and which tool the model must call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Trim the chat history sent with the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<HistoryPatch>,
    /// Restrict the tools offered to the model to these names (merging hooks intersect their lists).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_tools: Option<Vec<String>>,
    /// Provider-specific request parameters, shallow-merged (later keys win).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_params: Option<serde_json::Map<String, Value>>,
    /// Documents appended to the request's context, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(min = 1))]
    pub extra_context: Vec<String>,
}

impl RequestPatch {
    /// `active_tools` as the patch applies it: `tool_choice: {tools: [a,
    /// b, ...]}` naming several tools narrows the offered tools to them
    /// (intersected with `active_tools` when both are set, in
    /// `active_tools`' order); otherwise `active_tools` as written.
    ///
    /// Computed once when a table is built (by `hooks!` or the loader), so
    /// dispatch never has to narrow a list at run time.
    pub fn effective_active_tools(&self) -> Option<Vec<String>> {
        match (&self.tool_choice, &self.active_tools) {
            (Some(ToolChoice::Tools(t)), None) if t.tools.len() > 1 => Some(t.tools.clone()),
            (Some(ToolChoice::Tools(t)), Some(active)) if t.tools.len() > 1 => Some(
                active
                    .iter()
                    .filter(|name| t.tools.contains(name))
                    .cloned()
                    .collect(),
            ),
            (_, active) => active.clone(),
        }
    }
}

/// Whether and which tool the model must call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ToolChoice {
    /// `auto`, `none` or `required`.
    Mode(ToolChoiceMode),
    /// `{tools: [NAME, ...]}`: the model must call one of these tools.
    Tools(SpecificTools),
}

/// A tool-choice mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoiceMode {
    /// The model decides whether to call a tool.
    Auto,
    /// The model must not call a tool.
    None,
    /// The model must call some tool.
    Required,
}

/// `{tools: [NAME, ...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpecificTools {
    /// Exact tool names; the model must call one of them.
    #[schemars(length(min = 1))]
    pub tools: Vec<String>,
}

/// How to trim the chat history sent with a completion request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryPatch {
    /// Keep only the last N messages of the history (the current prompt is always sent).
    pub keep_last: u32,
}

/// A `when` predicate.
#[derive(Debug, Clone, PartialEq)]
pub enum Predicate {
    /// All of these hold (true when empty).
    All(Vec<Predicate>),
    /// At least one of these holds (false when empty).
    Any(Vec<Predicate>),
    /// This does not hold.
    Not(Box<Predicate>),
    /// A test on the value at an RFC 6901 pointer into the event's arguments (or result).
    Arg {
        /// The pointer, e.g. `/command`.
        pointer: String,
        /// The test.
        test: ArgTest,
    },
    /// The tool's outcome (`after_tool` only).
    Outcome(OutcomeKind),
}

/// A test on the value at a pointer.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgTest {
    /// The value is a string in which this regex finds a match (unanchored search).
    Matches(String),
    /// The value is a string matched entirely by this glob.
    Glob(String),
    /// The value equals this JSON value.
    Equals(Value),
    /// The pointer resolves (`true`) or does not (`false`).
    Exists(bool),
}

/// The serde form of a predicate: one mapping with the keys of one variant.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPredicate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    all: Option<Vec<Predicate>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    any: Option<Vec<Predicate>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    not: Option<Box<Predicate>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pointer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    matches: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    glob: Option<String>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    equals: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    exists: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    outcome: Option<OutcomeKind>,
}

/// Deserializes a present value (even `null`) as `Some`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl TryFrom<RawPredicate> for Predicate {
    type Error = String;
    fn try_from(r: RawPredicate) -> Result<Predicate, String> {
        let tests = [
            r.matches.clone().map(ArgTest::Matches),
            r.glob.clone().map(ArgTest::Glob),
            r.equals.clone().map(ArgTest::Equals),
            r.exists.map(ArgTest::Exists),
        ];
        let n_tests = tests.iter().flatten().count();
        let shapes = usize::from(r.all.is_some())
            + usize::from(r.any.is_some())
            + usize::from(r.not.is_some())
            + usize::from(r.outcome.is_some())
            + usize::from(r.pointer.is_some() || n_tests > 0);
        if shapes != 1 {
            return Err(
                "a predicate needs exactly one of `all`, `any`, `not`, `pointer` or `outcome`"
                    .to_owned(),
            );
        }
        if let Some(v) = r.all {
            return Ok(Predicate::All(v));
        }
        if let Some(v) = r.any {
            return Ok(Predicate::Any(v));
        }
        if let Some(v) = r.not {
            return Ok(Predicate::Not(v));
        }
        if let Some(o) = r.outcome {
            return Ok(Predicate::Outcome(o));
        }
        let pointer = r.pointer.ok_or("a test needs a `pointer`")?;
        if n_tests != 1 {
            return Err("a `pointer` predicate needs exactly one of `matches`, `glob`, `equals` or `exists`".to_owned());
        }
        let test = tests.into_iter().flatten().next().ok_or("missing test")?;
        Ok(Predicate::Arg { pointer, test })
    }
}

impl From<&Predicate> for RawPredicate {
    fn from(p: &Predicate) -> RawPredicate {
        let mut r = RawPredicate::default();
        match p {
            Predicate::All(v) => r.all = Some(v.clone()),
            Predicate::Any(v) => r.any = Some(v.clone()),
            Predicate::Not(v) => r.not = Some(v.clone()),
            Predicate::Outcome(o) => r.outcome = Some(*o),
            Predicate::Arg { pointer, test } => {
                r.pointer = Some(pointer.clone());
                match test {
                    ArgTest::Matches(s) => r.matches = Some(s.clone()),
                    ArgTest::Glob(s) => r.glob = Some(s.clone()),
                    ArgTest::Equals(v) => r.equals = Some(v.clone()),
                    ArgTest::Exists(b) => r.exists = Some(*b),
                }
            }
        }
        r
    }
}

impl Serialize for Predicate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RawPredicate::from(self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Predicate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Predicate::try_from(RawPredicate::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Predicate {
    fn schema_name() -> Cow<'static, str> {
        "Predicate".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        crate::schema::predicate_schema(generator, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_tool_choice_tools_narrow_active_tools() {
        let patch = |choice: &[&str], active: Option<&[&str]>| RequestPatch {
            tool_choice: Some(ToolChoice::Tools(SpecificTools {
                tools: choice.iter().map(|s| (*s).to_owned()).collect(),
            })),
            active_tools: active.map(|a| a.iter().map(|s| (*s).to_owned()).collect()),
            ..RequestPatch::default()
        };
        let names = |n: &[&str]| Some(n.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
        assert_eq!(
            patch(&["a", "b"], Some(&["c", "b", "a"])).effective_active_tools(),
            names(&["b", "a"])
        );
        assert_eq!(
            patch(&["a", "b"], None).effective_active_tools(),
            names(&["a", "b"])
        );
        assert_eq!(
            patch(&["a"], Some(&["c"])).effective_active_tools(),
            names(&["c"]),
            "one tool forces it and narrows nothing"
        );
    }

    fn load(hooks: &str, extra: &str) -> Config {
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

    #[test]
    fn actions_know_their_phases() {
        assert!(Action::allowed_on("block", Phase::BeforeTool));
        assert!(!Action::allowed_on("block", Phase::AfterTool));
        assert!(Action::allowed_on("patch", Phase::BeforeCompletion));
        assert!(!Action::allowed_on("patch", Phase::BeforeTool));
        assert!(Action::allowed_on("inject", Phase::AfterAssistant));
        assert!(!Action::allowed_on("inject", Phase::Stop));
        assert!(Action::allowed_on("rewrite", Phase::AfterTool));
        assert!(!Action::allowed_on("rewrite", Phase::UserPrompt));
        for phase in Phase::ALL {
            assert!(Action::allowed_on("run", phase));
            assert!(Action::allowed_on("terminate", phase));
        }
    }

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

    #[test]
    fn predicates_keep_their_shape() {
        let hooks = "  - id: p\n    phase: after_tool\n    when:\n      all:\n        - { outcome: denied }\n        - not: { pointer: /x, equals: null }\n        - any: [{ pointer: /y, exists: false }, { pointer: /z, glob: \"*.rs\" }, { pointer: /c, matches: \"^a\" }]\n    inject: { content: c }\n";
        let c = load(hooks, "");
        let Some(Predicate::All(parts)) = &c.hooks[0].when else {
            panic!()
        };
        assert_eq!(parts[0], Predicate::Outcome(OutcomeKind::Denied));
        assert_eq!(
            parts[1],
            Predicate::Not(Box::new(Predicate::Arg {
                pointer: "/x".to_owned(),
                test: ArgTest::Equals(Value::Null)
            }))
        );
        let Predicate::Any(any) = &parts[2] else {
            panic!()
        };
        assert_eq!(any.len(), 3);
    }
}
