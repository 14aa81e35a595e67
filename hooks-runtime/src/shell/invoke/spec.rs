//! What the config says about one shell (`run`) hook: [`ShellHookSpec`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hooks_schema::{FailurePolicy, Mode, PayloadMode, Phase, Protocol};

use crate::shell::payload::ToolPathSettings;
use crate::{CommandForm, EnvSpec, HttpTarget};

/// The environment variable Claude Code sets to the project root; hooks of
/// `protocol: claude` get it set to the workspace root (unless their
/// `env.set` names it), so scripts such as
/// `"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh` run unmodified.
pub const CLAUDE_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";

/// What the config says about one shell (`run`) or `http` hook, in
/// runtime form.
#[derive(Debug, Clone, PartialEq)]
pub struct ShellHookSpec {
    /// The hook's id.
    pub id: Arc<str>,
    /// The phase it runs on.
    pub phase: Phase,
    /// The command (shell or exec form); unused when [`ShellHookSpec::http`]
    /// is set.
    pub form: CommandForm,
    /// For an `http` hook: where the payload is POSTed instead of running
    /// `form`. The body is read like stdout with `protocol` (`native` for
    /// `protocol: opa`, after unwrapping `result`); `cwd` and `env` are
    /// unused.
    pub http: Option<HttpTarget>,
    /// Working directory (relative to the workspace root, or absolute
    /// inside it); `None` = the root.
    pub cwd: Option<PathBuf>,
    /// Environment `pass`/`set`. Values of credential-like names are
    /// redacted from records and diagnostics.
    pub env: EnvSpec,
    /// Deadline of one invocation.
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
    /// Path settings of the tools this hook sees (affected paths).
    pub tool_paths: Option<ToolPathSettings>,
    /// The catalogue schema a rewrite by this hook must fit (a rewrite that
    /// does not is an `invalid_output` failure); `None`: not checked.
    pub rewrite_schema: Option<crate::RewriteSchema>,
    /// `Some(n)`: run as a persistent worker with a pool of `n` processes,
    /// kept by the [`ShellRuntime`](super::ShellRuntime) under the hook's id
    /// (see the README's "Persistent workers" section for the line
    /// protocol); `None`: one process per event.
    pub worker: Option<u32>,
    /// For a `policy` hook: the Rego policy evaluated in process instead of
    /// running `form` (the payload is its `input`, its value is read as
    /// native stdout); `None` for a `run` hook.
    pub rego: Option<crate::RegoPolicy>,
    /// The name of the config the hook comes from (its file name, or
    /// `<inline>`), for telemetry; `None` for a hook built in code.
    pub config: Option<Arc<str>>,
}

impl ShellHookSpec {
    /// The spec of a `policy` hook: [`ShellHookSpec::new`]'s defaults with
    /// `policy` in place of a command (`form` is an empty exec form, never
    /// run).
    pub fn policy(id: impl Into<Arc<str>>, phase: Phase, policy: crate::RegoPolicy) -> Self {
        let mut spec = ShellHookSpec::new(id, phase, CommandForm::Exec(Vec::new()));
        spec.rego = Some(policy);
        spec
    }

    /// A spec with defaults: no cwd, empty env, the config language's
    /// default timeout ([`Defaults::DEFAULT_TIMEOUT`](hooks_schema::Defaults::DEFAULT_TIMEOUT),
    /// 30 s), `full` payload, `native` protocol, the phase's default failure
    /// policy, `enforce`, no activity, no path settings, no rewrite schema,
    /// not a worker, no Rego policy (a `run` hook), no config name.
    pub fn new(id: impl Into<Arc<str>>, phase: Phase, form: CommandForm) -> Self {
        ShellHookSpec {
            id: id.into(),
            phase,
            form,
            http: None,
            cwd: None,
            env: EnvSpec::default(),
            timeout: hooks_schema::Defaults::DEFAULT_TIMEOUT.to_std(),
            payload: PayloadMode::Full,
            protocol: Protocol::Native,
            failure_policy: phase.default_failure_policy(),
            mode: Mode::Enforce,
            show_in_tui: false,
            tool_paths: None,
            rewrite_schema: None,
            worker: None,
            rego: None,
            config: None,
        }
    }

    /// An `http` hook's spec with the defaults of [`ShellHookSpec::new`]:
    /// `target`'s protocol decides the payload's shape (`claude` for
    /// `claude`, `native` for `native` and `opa`).
    pub fn http(id: impl Into<Arc<str>>, phase: Phase, target: HttpTarget) -> Self {
        let mut spec = ShellHookSpec::new(id, phase, CommandForm::Exec(Vec::new()));
        spec.protocol = match target.protocol {
            hooks_schema::HttpProtocol::Claude => Protocol::Claude,
            hooks_schema::HttpProtocol::Native | hooks_schema::HttpProtocol::Opa => {
                Protocol::Native
            }
        };
        spec.http = Some(target);
        spec
    }

    /// The config key of the hook's action: `http`, `policy` or `run`.
    pub(crate) fn action_name(&self) -> &'static str {
        match (&self.http, &self.rego) {
            (Some(_), _) => "http",
            (None, Some(_)) => "policy",
            (None, None) => "run",
        }
    }

    /// Whether the hook runs `form` as a process (a `run` hook), so it has
    /// a script to check and may get its payload as a file; an `http`
    /// hook's body and a `policy` hook's input are always the payload
    /// itself.
    pub(crate) fn runs_process(&self) -> bool {
        self.http.is_none() && self.rego.is_none()
    }
}
