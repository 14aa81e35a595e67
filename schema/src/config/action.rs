//! What a hook does: the [`Action`] enum and the values of its action keys
//! (`run`, `block`, `patch`, `rewrite`, `inject`, `terminate`, `ask`,
//! `allow`, `select_model`; `http` in [`super::http`], `policy` in [`Policy`](super::Policy)'s
//! module).

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::{Defaults, Http, is_default};
use crate::capability::ActionKind;
use crate::duration::Duration;
use crate::phase::{PayloadMode, Phase, Protocol};

/// The names of the actions, in the order used by messages
/// ([`ActionKind::ALL`]'s config keys).
pub const ACTION_KEYS: [&str; ActionKind::ALL.len()] = {
    let mut keys = [""; ActionKind::ALL.len()];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = ActionKind::ALL[i].as_str();
        i += 1;
    }
    keys
};

/// What a hook does: exactly one action.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Run a command (shell or exec form) and interpret its output.
    Run(Run),
    /// POST the payload to a URL and interpret the response body.
    Http(Http),
    /// Do not run the tool (deny), or do not switch the model; `before_tool`,
    /// `permission_request` and `before_model_select` only.
    Block(Reason),
    /// Patch the completion request; `before_completion` only.
    Patch(RequestPatch),
    /// Rewrite the tool's arguments (`before_tool`) or result (`after_tool`).
    Rewrite(Vec<RewriteOp>),
    /// Inject a `user`-role context item; after-phases only.
    Inject(Inject),
    /// End the run.
    Terminate(Reason),
    /// Have the agent's approver decide on the tool call; `before_tool` and
    /// `permission_request` only.
    Ask(Reason),
    /// Grant the permission without asking; `permission_request` only.
    Allow(Grant),
    /// Evaluate a Rego policy in process and interpret its value like a
    /// native `run` hook's output.
    Policy(super::Policy),
    /// Switch to this model instead; `before_model_select` only.
    SelectModel(SelectModel),
}

impl Action {
    /// The action's kind.
    pub const fn kind(&self) -> ActionKind {
        match self {
            Action::Run(_) => ActionKind::Run,
            Action::Http(_) => ActionKind::Http,
            Action::Block(_) => ActionKind::Block,
            Action::Patch(_) => ActionKind::Patch,
            Action::Rewrite(_) => ActionKind::Rewrite,
            Action::Inject(_) => ActionKind::Inject,
            Action::Terminate(_) => ActionKind::Terminate,
            Action::Ask(_) => ActionKind::Ask,
            Action::Allow(_) => ActionKind::Allow,
            Action::Policy(_) => ActionKind::Policy,
            Action::SelectModel(_) => ActionKind::SelectModel,
        }
    }

    /// The action's config key: `run`, `http`, `block`, `patch`, `rewrite`,
    /// `inject`, `terminate`, `ask`, `allow`, `policy` or `select_model`.
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

/// `{reason: "..."}` for `block`, `terminate` and `ask`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Reason {
    /// Why; for `block` this is what the model sees as the tool's result.
    #[schemars(length(min = 1), example = "destructive command refused by policy")]
    pub reason: String,
}

/// `allow: {}` or `allow: {reason: "..."}`: the permission is granted; the
/// reason, if any, goes into the record.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Grant {
    /// Why the permission is granted (for the records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub reason: Option<String>,
}

/// `select_model: {model: "..."}`: the model the agent switches to
/// instead of the one it was switching to (`before_model_select`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SelectModel {
    /// The model: the name the agent knows it by (Claude Code's model
    /// names and aliases, a provider's model name, or the label a rig agent
    /// registered it under).
    #[schemars(length(min = 1), example = "claude-sonnet-4-5")]
    pub model: String,
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
    /// Timeout; see [`Config::timeout`](super::Config::timeout) for the effective value.
    pub timeout: Option<Duration>,
    /// Payload mode; see [`Config::payload`](super::Config::payload) for the effective value.
    pub payload: Option<PayloadMode>,
    /// The stdin/stdout protocol.
    pub protocol: Protocol,
    /// `Some(n)`: a persistent worker (`worker: true`) with a pool of `n`
    /// processes (`pool`, default [`Run::DEFAULT_POOL`]); `None`: one
    /// process per event.
    pub worker: Option<u32>,
}

impl Run {
    /// The pool size of a worker without `pool`: 1.
    pub const DEFAULT_POOL: u32 = 1;
    /// The largest `pool`: 16 processes.
    pub const MAX_POOL: u32 = 16;
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
    /// Keep the command running as a persistent worker: started on its
    /// first event, it reads one JSON request per line on stdin (the
    /// payload plus `request_id`) and answers one JSON line per request on
    /// stdout (the protocol's output plus the same `request_id`). Default:
    /// `false` (one process per event).
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(extend("default" = false))]
    worker: bool,
    /// Number of worker processes serving requests concurrently (each
    /// handles one request at a time); needs `worker: true`. Default: 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 16), extend("default" = 1))]
    pool: Option<u32>,
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
        let worker = match (raw.worker, raw.pool) {
            (false, None) => None,
            (false, Some(_)) => {
                return Err("`pool` needs `worker: true`: only a worker has a pool".to_owned());
            }
            (true, pool) => match pool.unwrap_or(Run::DEFAULT_POOL) {
                n @ 1..=Run::MAX_POOL => Some(n),
                n => {
                    return Err(format!(
                        "`pool` is {n}, expected 1 to {} worker processes",
                        Run::MAX_POOL
                    ));
                }
            },
        };
        Ok(Run {
            program,
            cwd: raw.cwd,
            env: raw.env,
            timeout: raw.timeout,
            payload: raw.payload,
            protocol: raw.protocol,
            worker,
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
            worker: self.worker.is_some(),
            pool: self.worker.filter(|n| *n != Run::DEFAULT_POOL),
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
        // `pool` goes only with `worker: true`.
        schema.insert("if".to_owned(), serde_json::json!({"required": ["pool"]}));
        schema.insert(
            "then".to_owned(),
            serde_json::json!({"required": ["worker"], "properties": {"worker": {"const": true}}}),
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
/// Patches of several hooks merge field by field (docs/config.md's *How several
/// hooks combine*).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("minProperties" = 1))]
pub struct RequestPatch {
    /// Send the request to this model (the provider's model name, or the
    /// label a rig agent registered it under).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1), example = "claude-haiku-4-5")]
    pub model: Option<String>,
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
}
