//! What the config says about one `run`, `http` or `policy` hook:
//! [`ShellHookSpec`] and its [`HookTarget`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hooks_plan::{FailurePolicy, Mode, PayloadMode, Phase, Protocol};

use super::validate::RewriteSchema;
use crate::http::HttpTarget;
use crate::rego::RegoPolicy;
use crate::shell::exec::{CommandForm, EnvSpec};
use crate::shell::payload::ToolPathSettings;

/// The environment variable Claude Code sets to the project root; hooks of
/// `protocol: claude` get it set to the workspace root (unless their
/// `env.set` names it), so scripts such as
/// `"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh` run unmodified.
pub const CLAUDE_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";

/// What the config says about one hook that runs outside the agent's code
/// (a `run`, `http` or `policy` hook), in runtime form: what every target
/// shares (id, phase, failure policy, timeout, payload mode, protocol,
/// mode) and the [`HookTarget`] itself.
///
/// A dispatch table builds the spec of each of its rules once (see
/// [`Table`](crate::Table)); a spec built in code is bound to a runtime
/// with [`ShellHook::new`](super::ShellHook::new).
#[derive(Debug, Clone, PartialEq)]
pub struct ShellHookSpec {
    /// The hook's id.
    pub id: Arc<str>,
    /// The phase it runs on.
    pub phase: Phase,
    /// What runs: a process, an HTTP exchange or a Rego policy.
    pub target: HookTarget,
    /// Deadline of one invocation: a process's, an `http` hook's whole
    /// exchange, a policy's evaluation.
    pub timeout: Duration,
    /// `full` or `redacted` payload.
    pub payload: PayloadMode,
    /// `native` or `claude`: the payload's shape and how the output (stdout,
    /// or an `http` hook's body) is read.
    pub protocol: Protocol,
    /// What a failure amounts to.
    pub failure_policy: FailurePolicy,
    /// `enforce` or `audit`.
    pub mode: Mode,
    /// Whether activity events are emitted.
    pub show_in_tui: bool,
    /// Path settings of the tools this hook sees (affected paths). A
    /// dispatch table leaves this `None` and gives each event its tool's
    /// settings.
    pub tool_paths: Option<ToolPathSettings>,
    /// The catalogue schema a rewrite by this hook must fit (a rewrite that
    /// does not is an `invalid_output` failure); `None`: not checked. A
    /// dispatch table leaves this `None` and gives each event its tool's
    /// schema.
    pub rewrite_schema: Option<RewriteSchema>,
    /// The name of the config the hook comes from (its file name, or
    /// `<inline>`), for telemetry; `None` for a hook built in code.
    pub config: Option<Arc<str>>,
    /// The layer of that config (`managed`, `project`, ...), for records
    /// and telemetry; `None` for a hook built in code.
    pub layer: Option<Arc<str>>,
}

/// What a hook runs: one variant per kind of target, each read by the
/// output protocol from what it really produces (a process's exit code,
/// stdout and stderr; an HTTP response body; a policy's value).
#[derive(Debug, Clone, PartialEq)]
pub enum HookTarget {
    /// A process (`run`): one per event, or a persistent worker.
    Process(ProcessTarget),
    /// An HTTP exchange (`http`): the payload is POSTed, the response body
    /// is read with the spec's protocol (`native` for `protocol: opa`,
    /// after unwrapping `result`).
    Http(HttpTarget),
    /// A Rego policy (`policy`) evaluated in process: the payload is its
    /// `input`, its value is read by the native protocol (undefined:
    /// `continue`).
    Policy(RegoPolicy),
}

/// A `run` hook's process.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessTarget {
    /// The command (shell or exec form).
    pub form: CommandForm,
    /// Working directory (relative to the workspace root, or absolute
    /// inside it); `None` = the root.
    pub cwd: Option<PathBuf>,
    /// Environment `pass`/`set`. Values of credential-like names are
    /// redacted from records and diagnostics.
    pub env: EnvSpec,
    /// `Some(n)`: run as a persistent worker with a pool of `n` processes,
    /// kept by the [`ShellRuntime`](super::ShellRuntime) under the hook's id
    /// (see docs/config.md's "Persistent workers" section for the line
    /// protocol); `None`: one process per event.
    pub worker: Option<u32>,
}

impl ProcessTarget {
    /// A one-shot process of `form`: no cwd, empty env, not a worker.
    pub fn new(form: CommandForm) -> Self {
        ProcessTarget {
            form,
            cwd: None,
            env: EnvSpec::default(),
            worker: None,
        }
    }
}

impl HookTarget {
    /// The config key of the target's action: `run`, `http` or `policy`.
    pub fn action_name(&self) -> &'static str {
        match self {
            HookTarget::Process(_) => "run",
            HookTarget::Http(_) => "http",
            HookTarget::Policy(_) => "policy",
        }
    }
}

impl ShellHookSpec {
    /// The spec of a `policy` hook: [`ShellHookSpec::new`]'s defaults with
    /// `policy` as its target.
    pub fn policy(id: impl Into<Arc<str>>, phase: Phase, policy: RegoPolicy) -> Self {
        ShellHookSpec::of(id, phase, HookTarget::Policy(policy))
    }

    /// A `run` hook's spec with defaults: a one-shot process of `form`
    /// ([`ProcessTarget::new`]), the config language's default timeout
    /// ([`DEFAULT_TIMEOUT_MS`](hooks_plan::DEFAULT_TIMEOUT_MS),
    /// 30 s), `full` payload, `native` protocol, the phase's default failure
    /// policy, `enforce`, no activity, no path settings, no rewrite schema,
    /// no config name.
    pub fn new(id: impl Into<Arc<str>>, phase: Phase, form: CommandForm) -> Self {
        ShellHookSpec::of(id, phase, HookTarget::Process(ProcessTarget::new(form)))
    }

    /// A spec of `target` with the defaults of [`ShellHookSpec::new`].
    pub fn of(id: impl Into<Arc<str>>, phase: Phase, target: HookTarget) -> Self {
        ShellHookSpec {
            id: id.into(),
            phase,
            target,
            timeout: std::time::Duration::from_millis(hooks_plan::DEFAULT_TIMEOUT_MS),
            payload: PayloadMode::Full,
            protocol: Protocol::Native,
            failure_policy: phase.default_failure_policy(),
            mode: Mode::Enforce,
            show_in_tui: false,
            tool_paths: None,
            rewrite_schema: None,
            config: None,
            layer: None,
        }
    }

    /// An `http` hook's spec with the defaults of [`ShellHookSpec::new`]:
    /// `target`'s protocol decides the payload's shape (`claude` for
    /// `claude`, `native` for `native` and `opa`).
    pub fn http(id: impl Into<Arc<str>>, phase: Phase, target: HttpTarget) -> Self {
        let mut spec = ShellHookSpec::of(id, phase, HookTarget::Http(target));
        if let HookTarget::Http(target) = &spec.target {
            spec.protocol = match target.protocol {
                hooks_plan::HttpProtocol::Claude => Protocol::Claude,
                hooks_plan::HttpProtocol::Native | hooks_plan::HttpProtocol::Opa => {
                    Protocol::Native
                }
            };
        }
        spec
    }

    /// The process of a `run` hook, to set its cwd, environment or worker
    /// pool; `None` for an `http` or `policy` hook.
    pub fn process_mut(&mut self) -> Option<&mut ProcessTarget> {
        match &mut self.target {
            HookTarget::Process(process) => Some(process),
            HookTarget::Http(_) | HookTarget::Policy(_) => None,
        }
    }

    /// The process of a `run` hook; `None` for an `http` or `policy` hook.
    pub fn process(&self) -> Option<&ProcessTarget> {
        match &self.target {
            HookTarget::Process(process) => Some(process),
            HookTarget::Http(_) | HookTarget::Policy(_) => None,
        }
    }
}
