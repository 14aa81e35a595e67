//! What the config says about one shell (`run`) hook: [`ShellHookSpec`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hooks_schema::{FailurePolicy, Mode, PayloadMode, Phase, Protocol};

use crate::shell::payload::ToolPathSettings;
use crate::{CommandForm, EnvSpec};

/// The environment variable Claude Code sets to the project root; hooks of
/// `protocol: claude` get it set to the workspace root (unless their
/// `env.set` names it), so scripts such as
/// `"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh` run unmodified.
pub const CLAUDE_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";

/// What the config says about one shell (`run`) hook, in runtime form.
#[derive(Debug, Clone, PartialEq)]
pub struct ShellHookSpec {
    /// The hook's id.
    pub id: Arc<str>,
    /// The phase it runs on.
    pub phase: Phase,
    /// The command (shell or exec form).
    pub form: CommandForm,
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
    /// `native` or `claude`.
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
    /// policy, `enforce`, no activity, no path settings, no rewrite schema, no Rego policy
    /// (a `run` hook), no config name.
    pub fn new(id: impl Into<Arc<str>>, phase: Phase, form: CommandForm) -> Self {
        ShellHookSpec {
            id: id.into(),
            phase,
            form,
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
            rego: None,
            config: None,
        }
    }
}
