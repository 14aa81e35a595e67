//! Shell hooks: one invocation is payload → executor → protocol → policy →
//! record → [`Flow`].
//!
//! A [`ShellHook`] is a [`ShellHookSpec`] (what the config says about one
//! `run` hook) bound to a shared [`ShellRuntime`] (the executor, records
//! writer, activity sink, session directory, limits and cancellation of a
//! session). It implements [`AgentHook`], so it stacks with in-process hooks
//! in a [`HookStack`](crate::HookStack); [`run_shell_hooks`] runs several
//! shell hooks of one event directly — concurrently on observe-only phases.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hooks_schema::{FailurePolicy, Mode, PayloadMode, Phase, Protocol};

use crate::core::diagnostic::Diagnostic;
use crate::core::flow::Text;
use crate::core::fold::Fold;
use crate::core::patch::History;
use crate::core::report::{HookFailure, HookReport, Verdict};
use crate::shell::activity::{ActivityEvent, ActivitySink};
use crate::shell::payload::{
    self, PAYLOAD_REF_ENV, PayloadError, PayloadInput, PayloadLimits, ToolPathSettings,
};
use crate::shell::policy::{apply_failure_policy, apply_mode};
use crate::shell::protocol::{self, ProtocolDecision, ProtocolFailure};
use crate::shell::records::{
    HookRecord, InjectionRecord, InjectionStatus, Record, RecordStatus, RecordWriter,
};
use crate::shell::redact::{
    SecretSet, is_credential_name, redact_and_truncate, redact_json_strings, redact_sensitive_text,
    truncate_outside_markers,
};
use crate::{
    AgentHook, CancellationToken, CommandForm, ContextItem, EnvSpec, ExecRequest, ExecStatus,
    Executor, FailureKind, Flow, HookContext, HookFuture, HookId, OutcomeFuture, StepEvent,
    StepEventKind,
};

/// The environment variable Claude Code sets to the project root; hooks of
/// `protocol: claude` get it set to the workspace root (unless their
/// `env.set` names it), so scripts such as
/// `"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh` run unmodified.
pub const CLAUDE_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";

/// Limits of a session's shell hooks (the config's `limits`, converted
/// with `From<&Limits>`; the default is the config language's
/// [`Limits::DEFAULT`](hooks_schema::Limits::DEFAULT)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookLimits {
    /// Payload size limits (stdin cap, spill cap).
    pub payload: PayloadLimits,
    /// Bytes of a hook's stdout kept (default 1 MiB); more is
    /// `output_too_large`.
    pub stdout_cap: usize,
    /// Bytes of a hook's stderr kept (default 1 MiB); more is dropped.
    /// When stderr is cut, its last partial word is dropped too before it
    /// becomes a reason or a failure detail: the cut may fall inside a
    /// secret, whose prefix redaction could not recognise (see
    /// [`protocol`](crate::shell::protocol)).
    pub stderr_cap: usize,
    /// Most bytes of context one hook may inject at once (sum of the items'
    /// UTF-8 lengths; default 64 KiB); more is `output_too_large`.
    pub max_context_bytes: usize,
    /// Most times per turn `stop` hooks may make the agent resume (default 3);
    /// a further `Resume` is refused (recorded, and the agent stops).
    pub max_stop_resumes: u32,
}

impl From<&hooks_schema::Limits> for HookLimits {
    /// `max_payload_bytes` caps the stdin payload, `max_output_bytes` caps
    /// stdout and stderr each, `max_context_bytes` caps one invocation's
    /// injected context, `max_stop_resumes_per_turn` caps stop resumes. The
    /// payload spill cap keeps its default (16 MiB). Values beyond `usize`
    /// saturate.
    fn from(limits: &hooks_schema::Limits) -> Self {
        let bytes = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        HookLimits {
            payload: PayloadLimits {
                stdin_cap: bytes(limits.max_payload_bytes),
                ..PayloadLimits::default()
            },
            stdout_cap: bytes(limits.max_output_bytes),
            stderr_cap: bytes(limits.max_output_bytes),
            max_context_bytes: bytes(limits.max_context_bytes),
            max_stop_resumes: limits.max_stop_resumes_per_turn,
        }
    }
}

impl Default for HookLimits {
    /// The config language's defaults ([`Limits::DEFAULT`](hooks_schema::Limits::DEFAULT)):
    /// 1 MiB payload, 1 MiB each of stdout and stderr, 64 KiB of context, 3 resumes.
    fn default() -> Self {
        HookLimits::from(&hooks_schema::Limits::DEFAULT)
    }
}

/// The session-wide part of shell hooks: executor, records, activity sink,
/// session directory, limits, declared secrets and cancellation. Share it
/// with `Arc`; runs sharing it share nothing else (each invocation's
/// diagnostics are in its own [`Invocation::report`]).
pub struct ShellRuntime {
    executor: Executor,
    records: Option<RecordWriter>,
    activity: Option<Arc<dyn ActivitySink>>,
    session_dir: Option<PathBuf>,
    limits: HookLimits,
    secrets: SecretSet,
    cancel: CancellationToken,
}

impl std::fmt::Debug for ShellRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShellRuntime")
            .field("root", &self.executor.workspace_root())
            .field("session_dir", &self.session_dir)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl ShellRuntime {
    /// A runtime around `executor` with no records file, no activity sink,
    /// no session directory (oversized payloads are elided without a ref),
    /// default limits, no declared secrets and a fresh cancellation token.
    pub fn new(executor: Executor) -> Self {
        ShellRuntime {
            executor,
            records: None,
            activity: None,
            session_dir: None,
            limits: HookLimits::default(),
            secrets: SecretSet::new(),
            cancel: CancellationToken::new(),
        }
    }

    /// Writes a record per invocation to `records`.
    #[must_use]
    pub fn with_records(mut self, records: RecordWriter) -> Self {
        self.records = Some(records);
        self
    }

    /// Sends activity events of `show_in_tui` hooks to `sink`.
    #[must_use]
    pub fn with_activity(mut self, sink: Arc<dyn ActivitySink>) -> Self {
        self.activity = Some(sink);
        self
    }

    /// Sets the session directory payload-ref files go to.
    ///
    /// # Errors
    ///
    /// [`PayloadError::SessionDirOutsideRoot`] when `dir` resolves (after
    /// following symlinks) outside the executor's workspace root;
    /// [`PayloadError::Spill`] when it cannot be resolved.
    pub fn with_session_dir(mut self, dir: impl AsRef<Path>) -> Result<Self, PayloadError> {
        let dir = payload::check_session_dir(dir.as_ref(), self.executor.workspace_root())?;
        self.session_dir = Some(dir);
        Ok(self)
    }

    /// Sets the limits.
    #[must_use]
    pub fn with_limits(mut self, limits: HookLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Declares secret values to redact from every record and diagnostic.
    #[must_use]
    pub fn with_secrets(mut self, secrets: SecretSet) -> Self {
        self.secrets = secrets;
        self
    }

    /// Uses `cancel` for every invocation: cancelling it stops running hooks
    /// (their process groups are terminated) and fails later ones as
    /// `cancelled` before they spawn.
    #[must_use]
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// The executor.
    pub fn executor(&self) -> &Executor {
        &self.executor
    }

    /// The limits.
    pub fn limits(&self) -> &HookLimits {
        &self.limits
    }

    /// The declared secrets (redacted from everything the runtime writes).
    pub fn secrets(&self) -> &SecretSet {
        &self.secrets
    }

    /// The records writer, when records are on: query it for lost records
    /// ([`RecordWriter::failed_writes`], [`RecordWriter::last_error`]).
    pub fn records(&self) -> Option<&RecordWriter> {
        self.records.as_ref()
    }

    /// The cancellation token of the session.
    pub fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }
}

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
}

impl ShellHookSpec {
    /// A spec with defaults: no cwd, empty env, the config language's
    /// default timeout ([`Defaults::DEFAULT_TIMEOUT`](hooks_schema::Defaults::DEFAULT_TIMEOUT),
    /// 30 s), `full` payload, `native` protocol, the phase's default failure
    /// policy, `enforce`, no activity, no path settings.
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
        }
    }
}

/// The result of one shell hook invocation.
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    /// The flow to act on (`Continue` in audit mode).
    pub flow: Flow,
    /// The record written for it.
    pub record: HookRecord,
    /// What the invocation decided, its failure (kind and policy), elapsed
    /// time, message and its (redacted) diagnostics
    /// ([`Diagnostic::Hook`]), for the operator.
    pub report: HookReport,
}

impl Invocation {
    /// The invocation's diagnostics ([`HookReport::diagnostics`]) as the
    /// (redacted) texts shown to an operator, in order.
    pub fn diagnostics(&self) -> Vec<String> {
        self.report
            .diagnostics
            .iter()
            .map(ToString::to_string)
            .collect()
    }
}

/// Resume count of the current turn, kept in the run's scratchpad.
#[derive(Debug, Default, Clone, Copy)]
struct StopResumes {
    turn: u32,
    count: u32,
}

/// A shell hook bound to its session's runtime.
#[derive(Debug, Clone)]
pub struct ShellHook {
    spec: ShellHookSpec,
    runtime: Arc<ShellRuntime>,
}

enum Outcome {
    Decided(ProtocolDecision),
    Failed(FailureKind, String),
}

impl ShellHook {
    /// Binds `spec` to `runtime`.
    pub fn new(spec: ShellHookSpec, runtime: Arc<ShellRuntime>) -> Self {
        ShellHook { spec, runtime }
    }

    /// The spec.
    pub fn spec(&self) -> &ShellHookSpec {
        &self.spec
    }

    /// The secrets of this hook: the runtime's, plus the values of its
    /// credential-like `env.set` entries and `env.pass` names.
    fn secrets(&self) -> SecretSet {
        let mut secrets = self.runtime.secrets.clone();
        secrets.add_env(
            self.spec
                .env
                .set
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str())),
        );
        for name in &self.spec.env.pass {
            if is_credential_name(name)
                && let Ok(value) = std::env::var(name)
            {
                secrets.add(value);
            }
        }
        secrets
    }

    /// Runs the hook once for `event`: builds the payload, runs the command,
    /// parses its output per the protocol, applies the failure policy to
    /// failures and the mode to the result, enforces the stop-resume cap and
    /// the context byte cap, writes the record (and an injection record) and
    /// emits activity events.
    ///
    /// Events of another phase than the spec's return `Continue` without
    /// running anything or writing a record.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future kills the hook's process group (see
    /// [`Executor::run`]); the payload-ref file, if any, is removed; no
    /// record is written.
    pub async fn invoke(&self, ctx: &HookContext, event: StepEvent<'_>) -> Invocation {
        let start = Instant::now();
        let spec = &self.spec;
        let rt = &*self.runtime;
        let phase = event.kind();
        let secrets = self.secrets();
        let redact = |s: &str| redact_sensitive_text(s, &secrets).into_owned();
        let mut diagnostics: Vec<String> = Vec::new();
        let tool = event.tool_name().map(str::to_owned);
        let base_record = |status, elapsed: Duration| HookRecord {
            record: "hook",
            phase,
            hook_id: spec.id.to_string(),
            tool: tool.clone(),
            status,
            decision: None,
            failure_kind: None,
            policy: spec.failure_policy,
            mode: spec.mode,
            elapsed_ms: u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
            target_ran: phase.is_after_phase(),
            message: None,
        };
        let hook_id = HookId::new(Arc::clone(&spec.id));
        if phase != spec.phase {
            return Invocation {
                flow: Flow::Continue,
                record: base_record(RecordStatus::Ok, Duration::ZERO),
                report: HookReport::new(hook_id),
            };
        }

        // Stop phase: the resume count of this turn, from the scratchpad.
        let turn = ctx.turn();
        let mut event = event;
        let mut loop_count = 0;
        if let StepEvent::Stop {
            loop_count: n,
            text,
        } = event
        {
            let tracked = ctx.update::<StopResumes, u32>(|s| {
                if s.turn != turn {
                    *s = StopResumes { turn, count: 0 };
                }
                s.count
            });
            loop_count = n.max(tracked);
            event = StepEvent::Stop { loop_count, text };
        }

        self.activity(ActivityEvent::Started {
            hook_id: spec.id.clone(),
            phase,
        });

        let root = rt.executor.workspace_root();
        let cwd = spec
            .cwd
            .as_ref()
            .map(|c| root.join(c))
            .and_then(|c| c.canonicalize().ok())
            .unwrap_or_else(|| root.to_path_buf());
        let input = PayloadInput {
            hook_id: &spec.id,
            run_id: ctx.run_id(),
            turn: u64::from(turn),
            cwd: &cwd,
            mode: spec.payload,
            protocol: spec.protocol,
            tool_paths: spec.tool_paths.as_ref(),
            secrets: &secrets,
            session_dir: rt.session_dir.as_deref(),
            root,
            limits: rt.limits.payload,
        };
        let outcome = match payload::build(&event, &input) {
            Err(err) => Outcome::Failed(
                FailureKind::SpawnFailed,
                format!("the payload could not be prepared: {err}"),
            ),
            Ok(built) => {
                diagnostics.extend(built.diagnostics.iter().map(|d| redact(d)));
                let mut req = ExecRequest::new(spec.form.clone());
                req.cwd = spec.cwd.clone();
                req.env = spec.env.clone();
                req.timeout = spec.timeout;
                req.stdout_cap = rt.limits.stdout_cap;
                req.stderr_cap = rt.limits.stderr_cap;
                if spec.protocol == Protocol::Claude
                    && !req.env.set.iter().any(|(k, _)| k == CLAUDE_PROJECT_DIR)
                {
                    // Claude Code scripts locate themselves with it.
                    req.env.set.push((
                        CLAUDE_PROJECT_DIR.to_owned(),
                        root.to_string_lossy().into_owned(),
                    ));
                }
                if let Some(spill) = &built.spill {
                    req.env.set.push((
                        PAYLOAD_REF_ENV.to_owned(),
                        spill.path().to_string_lossy().into_owned(),
                    ));
                }
                req.stdin = Some(built.stdin);
                let out = rt.executor.run(&req, &rt.cancel).await;
                if let Some(spill) = built.spill {
                    let path = spill.path().to_path_buf();
                    if let Err(err) = spill.remove() {
                        diagnostics.push(redact(&format!(
                            "cannot remove the payload-ref file `{}` of hook `{}`: {err}",
                            path.display(),
                            spec.id
                        )));
                    }
                }
                match out.status {
                    ExecStatus::Failed(f) => Outcome::Failed(f.kind, f.detail),
                    ExecStatus::Exited(code @ (126 | 127))
                        if matches!(spec.form, CommandForm::Shell(_)) =>
                    {
                        Outcome::Failed(
                            FailureKind::SpawnFailed,
                            format!(
                                "the shell could not run the command (exit code {code}: {})",
                                if code == 127 {
                                    "command not found"
                                } else {
                                    "not executable"
                                }
                            ),
                        )
                    }
                    ExecStatus::Exited(code) => {
                        let parsed = match spec.protocol {
                            Protocol::Native => protocol::native::parse(
                                phase,
                                code,
                                &out.stdout,
                                &out.stderr,
                                &spec.id,
                            ),
                            Protocol::Claude => protocol::claude::parse(
                                &event,
                                code,
                                &out.stdout,
                                &out.stderr,
                                &spec.id,
                            ),
                        };
                        match parsed {
                            // Every text the hook's output put in the flow
                            // reaches the model or the records: redact it
                            // here, before the context byte cap counts it.
                            Ok(mut decision) => {
                                decision.flow = redact_flow(decision.flow, &secrets);
                                Outcome::Decided(decision)
                            }
                            Err(ProtocolFailure { kind, detail, .. }) => {
                                Outcome::Failed(kind, detail)
                            }
                        }
                    }
                }
            }
        };

        // Context byte cap, on decisions that inject context.
        let outcome = match outcome {
            Outcome::Decided(d) => match &d.flow {
                Flow::InjectContext(items) => {
                    let bytes: usize = items.iter().map(|i| i.content.len()).sum();
                    let too_large = bytes > rt.limits.max_context_bytes;
                    let status = if too_large {
                        InjectionStatus::TooLarge
                    } else if spec.mode == Mode::Audit {
                        InjectionStatus::Audited
                    } else {
                        InjectionStatus::Injected
                    };
                    self.write(
                        &Record::Injection(InjectionRecord {
                            record: "context_injection",
                            phase,
                            hook_id: spec.id.to_string(),
                            status,
                            item_count: items.len(),
                            byte_count: bytes,
                            max_bytes: rt.limits.max_context_bytes,
                            injection_id: format!(
                                "{}/{}/{}/{}",
                                ctx.run_id(),
                                turn,
                                spec.id,
                                next_injection()
                            ),
                        }),
                        &secrets,
                        &mut diagnostics,
                    );
                    if too_large {
                        Outcome::Failed(
                            FailureKind::OutputTooLarge,
                            format!(
                                "context items of {bytes} bytes are over the cap of {} bytes",
                                rt.limits.max_context_bytes
                            ),
                        )
                    } else {
                        Outcome::Decided(d)
                    }
                }
                _ => Outcome::Decided(d),
            },
            failed => failed,
        };

        let mut failed = None;
        let (flow, mut record) = match outcome {
            Outcome::Decided(d) => {
                diagnostics.extend(d.diagnostics.iter().map(|m| redact(m)));
                let status = if d.flow.is_continue() {
                    RecordStatus::Ok
                } else {
                    RecordStatus::Decision
                };
                let mut record = base_record(status, Duration::ZERO);
                record.decision = (!d.flow.is_continue()).then(|| d.flow.kind().as_str());
                // The flow's texts were redacted whole right after parsing
                // (`redact_flow`); the message is cut after that.
                let flow = d.flow;
                record.message = flow_reason(&flow).map(|r| truncate(r, MESSAGE_MAX_CHARS));
                (flow, record)
            }
            Outcome::Failed(kind, detail) => {
                // Redact the whole detail, then cut it: cutting first could
                // leave a secret's prefix too short to match its shape.
                let detail = redact_and_truncate(&detail, &secrets, MESSAGE_MAX_CHARS);
                let failure = format!("{kind}: {detail}");
                let applied = apply_failure_policy(spec.failure_policy, phase, &spec.id, &failure);
                failed = Some(HookFailure {
                    kind,
                    policy: spec.failure_policy,
                });
                if let Some(d) = applied.diagnostic {
                    diagnostics.push(redact(&d));
                }
                let mut record = base_record(RecordStatus::Failed, Duration::ZERO);
                record.failure_kind = Some(kind.as_str());
                record.decision =
                    (!applied.flow.is_continue()).then(|| applied.flow.kind().as_str());
                record.message = Some(detail);
                (applied.flow, record)
            }
        };

        // The stop-resume cap.
        let mut flow = flow;
        let mut refused = false;
        if let Flow::Resume { .. } = flow
            && spec.mode == Mode::Enforce
        {
            let max = rt.limits.max_stop_resumes;
            if loop_count >= max {
                record.status = RecordStatus::Refused;
                record.message = Some(format!(
                    "resume refused: the stop-resume cap of {max} per turn is reached"
                ));
                diagnostics.push(format!(
                    "hook `{}` asked to resume a {}th time in turn {turn}; the cap is {max}: stopping",
                    spec.id,
                    loop_count + 1
                ));
                flow = Flow::Continue;
                refused = true;
            } else {
                ctx.update::<StopResumes, ()>(|s| {
                    if s.turn != turn {
                        *s = StopResumes { turn, count: 0 };
                    }
                    s.count = s.count.max(loop_count) + 1;
                });
            }
        }

        let (flow, would_be) = apply_mode(spec.mode, flow);
        let verdict = match &would_be {
            Some(would) => Verdict::Audited(would.kind()),
            None if refused => Verdict::Refused(crate::FlowKind::Resume),
            None if flow.is_continue() => Verdict::Continue,
            None => Verdict::Applied(flow.kind()),
        };
        if let Some(would) = would_be {
            record.status = RecordStatus::Audited;
            record.decision = Some(would.kind().as_str());
        }
        let elapsed = start.elapsed();
        record.elapsed_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        let record_clone = record.clone();
        self.write(&Record::Hook(record), &secrets, &mut diagnostics);
        let elapsed_ms = record_clone.elapsed_ms;
        match record_clone.failure_kind {
            Some(kind) => self.activity(ActivityEvent::Failed {
                hook_id: spec.id.clone(),
                phase,
                elapsed_ms,
                failure_kind: kind,
            }),
            None => self.activity(ActivityEvent::Succeeded {
                hook_id: spec.id.clone(),
                phase,
                elapsed_ms,
            }),
        }
        let report = HookReport {
            verdict,
            failure: failed,
            elapsed,
            message: record_clone.message.clone().map(Text::Owned),
            diagnostics: diagnostics
                .into_iter()
                .map(|message| Diagnostic::Hook {
                    hook: hook_id.clone(),
                    message,
                })
                .collect(),
            hook: hook_id,
        };
        Invocation {
            flow,
            record: record_clone,
            report,
        }
    }

    fn activity(&self, event: ActivityEvent) {
        if self.spec.show_in_tui
            && let Some(sink) = &self.runtime.activity
        {
            sink.on_activity(event);
        }
    }

    fn write(&self, record: &Record, secrets: &SecretSet, diagnostics: &mut Vec<String>) {
        if let Some(writer) = &self.runtime.records
            && let Err(err) = writer.write(record, secrets)
        {
            diagnostics.push(
                redact_sensitive_text(&writer.lost_records_message(&err), secrets).into_owned(),
            );
        }
    }
}

fn next_injection() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

fn flow_reason(flow: &Flow) -> Option<&str> {
    match flow {
        Flow::Skip { reason } | Flow::Terminate { reason } | Flow::Resume { reason } => {
            Some(reason)
        }
        Flow::Retry { feedback } => Some(feedback),
        _ => None,
    }
}

/// Most characters of a record's message or a failure's detail (plus `…`).
pub(crate) const MESSAGE_MAX_CHARS: usize = 300;

/// Cuts already-redacted `s`, never inside a `[REDACTED]` marker.
fn truncate(s: &str, max_chars: usize) -> String {
    truncate_outside_markers(s, max_chars)
}

/// `text` through [`redact_sensitive_text`]; unchanged (no allocation) when
/// nothing matched.
fn redact_text(text: Text, secrets: &SecretSet) -> Text {
    match redact_sensitive_text(&text, secrets) {
        Cow::Borrowed(_) => text,
        Cow::Owned(o) => Text::Owned(o),
    }
}

/// Redacts the content of each item, copying a borrowed list only when an
/// item changes.
fn redact_items(items: &mut Cow<'static, [ContextItem]>, secrets: &SecretSet) {
    for i in 0..items.len() {
        if let Cow::Owned(red) = redact_sensitive_text(&items[i].content, secrets) {
            items.to_mut()[i].content = Text::Owned(red);
        }
    }
}

/// `flow` with every text a hook's output put in it that reaches the model
/// or the records passed through [`redact_sensitive_text`] with the hook's
/// secrets: the one place shell-hook flows are redacted, whatever the
/// protocol (native, Claude Code) or the path (exit 2 stderr, stdout JSON,
/// Claude Code plain text).
///
/// Redacted: the reason of `Skip` / `Terminate` / `Resume`, `Retry`'s
/// feedback, a rewritten prompt, every `InjectContext` item, a rewritten
/// tool result (every string in it, keys included; values under
/// credential-like keys are not masked wholesale, so the result keeps its
/// shape), and a `PatchRequest`'s `preamble`, `extra_context` items,
/// replacement `history` messages and the strings of `additional_params`
/// (a provider parameter such as `system` can reach the model too).
///
/// Not redacted: `RewriteArgs` (the arguments go to the tool, which may
/// legitimately need a value the hook was given; they are never recorded),
/// `Repair`'s tool name and a patch's tool names (names, not free text).
/// A rewritten prompt is redacted whole, so a secret the user typed in the
/// original prompt is redacted too once a hook rewrites it.
fn redact_flow(flow: Flow, secrets: &SecretSet) -> Flow {
    let r = |s: Text| redact_text(s, secrets);
    match flow {
        Flow::Skip { reason } => Flow::Skip { reason: r(reason) },
        Flow::Terminate { reason } => Flow::Terminate { reason: r(reason) },
        Flow::Resume { reason } => Flow::Resume { reason: r(reason) },
        Flow::Retry { feedback } => Flow::Retry {
            feedback: r(feedback),
        },
        Flow::RewritePrompt(prompt) => Flow::RewritePrompt(r(prompt)),
        Flow::InjectContext(mut items) => {
            for item in &mut items {
                item.content = r(std::mem::take(&mut item.content));
            }
            Flow::InjectContext(items)
        }
        Flow::RewriteResult(mut result) => {
            redact_json_strings(&mut result, secrets);
            Flow::RewriteResult(result)
        }
        Flow::PatchRequest(mut patch) => {
            patch.preamble = patch.preamble.map(r);
            redact_items(&mut patch.extra_context, secrets);
            if let Some(History::Replace(messages)) = &mut patch.history {
                for message in messages {
                    redact_json_strings(message, secrets);
                }
            }
            for value in patch.additional_params.values_mut() {
                redact_json_strings(value, secrets);
            }
            Flow::PatchRequest(patch)
        }
        other @ (Flow::Continue | Flow::Fail | Flow::RewriteArgs(_) | Flow::Repair { .. }) => other,
    }
}

impl AgentHook for ShellHook {
    /// Runs [`ShellHook::invoke`] and returns its flow (one allocation: the
    /// boxed future).
    fn on_event<'a>(&'a self, ctx: &'a HookContext, event: StepEvent<'a>) -> HookFuture<'a> {
        HookFuture::boxed(async move { self.invoke(ctx, event).await.flow })
    }

    /// Runs [`ShellHook::invoke`] and answers with the fold of its flow and
    /// report, so a stack keeps the invocation's failure, timing and
    /// diagnostics (one allocation: the boxed future).
    fn fold_event<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: StepEvent<'a>,
    ) -> Option<OutcomeFuture<'a>> {
        Some(OutcomeFuture::boxed(async move {
            let invocation = self.invoke(ctx, event).await;
            let mut fold = Fold::new(event);
            let _ = fold.apply_reported(invocation.report, invocation.flow);
            fold.finish()
        }))
    }

    /// Only the spec's phase.
    fn observes(&self, kind: StepEventKind) -> bool {
        kind == self.spec.phase
    }
}

/// Runs `hooks` for one event and returns their invocations in declared
/// order (the order of `hooks`), never in finish order.
///
/// On an observe-only phase ([`Phase::is_mutating`] is false) the hooks run
/// concurrently; on a mutating phase they run one after another, each seeing
/// the same event (chaining rewrites is the [`HookStack`](crate::HookStack)'s
/// job). Hooks of another phase return `Continue` without running.
///
/// # Cancel safety
///
/// Dropping the future kills every running hook's process group.
pub async fn run_shell_hooks(
    hooks: &[ShellHook],
    ctx: &HookContext,
    event: StepEvent<'_>,
) -> Vec<Invocation> {
    if event.kind().is_mutating() {
        let mut out = Vec::with_capacity(hooks.len());
        for hook in hooks {
            out.push(hook.invoke(ctx, event).await);
        }
        out
    } else {
        join_in_order(hooks.iter().map(|h| h.invoke(ctx, event)).collect()).await
    }
}

/// Polls all futures concurrently on the current task; results in input order.
async fn join_in_order<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<std::pin::Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut results: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (fut, slot) in futures.iter_mut().zip(results.iter_mut()) {
            if slot.is_none() {
                match fut.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => *slot = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    results.into_iter().flatten().collect()
}
