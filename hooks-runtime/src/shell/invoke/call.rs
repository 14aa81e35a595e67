//! The state one invocation carries through its steps ([`Call`]), the
//! values passed between them ([`Outcome`], [`Settled`]), and the first and
//! last steps: [`Call::begin`], [`Call::not_observed`], [`Call::emit_started`]
//! and [`Call::finish`].

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use hooks_plan::{PathDiagnostic, Phase};

use super::cache::HookCache;
use super::spec::HookTarget;
use super::{Batch, Deferred, Invocation, ShellHookSpec, ShellRuntime, ToolView};
use crate::core::diagnostic::Diagnostic;
use crate::core::flow::Text;
use crate::core::report::{HookFailure, HookReport, OutputSizes, Verdict};
use crate::shell::activity::ActivityEvent;
use crate::shell::protocol::ProtocolDecision;
use crate::shell::records::{
    HookRecord, HttpExchange, InjectionRecord, PolicyIdentity, Record, RecordStatus,
};
use crate::shell::redact::{MIN_SECRET_LEN, SecretSet, is_credential_name, redact_sensitive_text};
use crate::{CancellationToken, ContextList, FailureKind, Flow, HookContext, HookId, StepEvent};

/// One invocation of a shell hook in progress: what every step reads
/// (spec, runtime, context, phase, turn, secrets) and the diagnostics the
/// steps collect, in order.
pub(super) struct Call<'a> {
    pub(super) spec: &'a ShellHookSpec,
    /// What the spec's invocations reuse.
    pub(super) cache: &'a HookCache,
    pub(super) rt: &'a ShellRuntime,
    /// The event's tool: its path settings and rewrite schema.
    pub(super) tools: ToolView<'a>,
    pub(super) ctx: &'a HookContext,
    /// The event's phase.
    pub(super) phase: Phase,
    /// The context's turn.
    pub(super) turn: u32,
    /// The hook's secrets: see [`hook_secrets`].
    pub(super) secrets: Cow<'a, SecretSet>,
    /// Redacted texts for the operator, in the order they arose.
    pub(super) diagnostics: Vec<String>,
    /// The sizes of the process's output, once it ran.
    pub(super) output: Option<OutputSizes>,
    /// The payload's findings about affected paths, once it is built.
    pub(super) path_diagnostics: Vec<PathDiagnostic>,
    /// What an `http` hook's server answered, once it did.
    pub(super) http: Option<HttpExchange>,
    /// When the hook's timeout runs out, counted from [`Call::begin`]
    /// (waiting for a slot counts: see `slots.rs`).
    pub(super) deadline: tokio::time::Instant,
    /// A member of a parallel group ([`Batch::group`](super::Batch::group)).
    pub(super) group: bool,
    /// What the hook wrote into its `CLAUDE_ENV_FILE`, once it ran.
    pub(super) env_set: crate::EnvVars,
    /// The lines of that file that could not be read (no values).
    pub(super) env_notes: Vec<String>,
    /// A background invocation ([`Batch::background`](super::Batch::background)).
    pub(super) background: bool,
    /// What cancels the call: the background run's token, else the
    /// runtime's.
    pub(super) cancel: &'a CancellationToken,
    /// The rendered record lines of a group member, kept for the caller
    /// to write; `None` (records written at once) otherwise.
    deferred: Option<Vec<String>>,
    /// The rendered record lines of any other call and how many: written
    /// together, with one write, when the call finishes.
    pending: Option<(String, u64)>,
    /// A background invocation's `injected` record, kept for when its
    /// context is delivered (or dropped).
    pub(super) held_injection: Option<InjectionRecord>,
    start: Instant,
    tool: Option<&'a str>,
    hook_id: HookId,
}

/// What running the hook came to, before the failure policy.
#[allow(
    clippy::large_enum_variant,
    reason = "one per invocation, moved a few times: cheaper than a heap allocation per decision"
)]
pub(super) enum Outcome {
    /// The hook's output parsed into a decision (its flow already redacted).
    Decided(ProtocolDecision),
    /// The hook failed: the kind and an unredacted detail.
    Failed(FailureKind, String),
}

/// An outcome after the failure policy: the flow to act on, the context
/// items beside it, the record describing it, the failure (kind and
/// policy) when there was one.
pub(super) struct Settled {
    pub(super) flow: Flow,
    pub(super) context: ContextList,
    /// New arguments applied before `flow` ([`Invocation::args`]).
    pub(super) args: Option<serde_json::Value>,
    /// Environment variables set before `flow` ([`Invocation::env`]).
    pub(super) env: crate::EnvVars,
    pub(super) record: HookRecord,
    pub(super) failure: Option<HookFailure>,
}

impl<'a> Call<'a> {
    /// Starts the clock and gathers what the steps share for `spec` (and
    /// its `cache`) on `rt` called with `event` (`tools`: its tool's
    /// settings; `batch`: how it takes part in the event's hooks); returns
    /// the call with no diagnostics yet.
    pub(super) fn begin(
        spec: &'a ShellHookSpec,
        cache: &'a HookCache,
        rt: &'a ShellRuntime,
        tools: ToolView<'a>,
        batch: Batch<'a>,
        ctx: &'a HookContext,
        event: &StepEvent<'a>,
    ) -> Self {
        let start = Instant::now();
        Call {
            spec,
            cache,
            rt,
            tools,
            ctx,
            phase: event.kind(),
            turn: ctx.turn(),
            secrets: hook_secrets(spec, rt),
            diagnostics: Vec::new(),
            output: None,
            path_diagnostics: Vec::new(),
            http: None,
            deadline: tokio::time::Instant::now() + spec.timeout,
            group: batch.group,
            background: batch.background.is_some(),
            cancel: batch.background.unwrap_or(&rt.cancel),
            env_set: crate::EnvVars::new(),
            env_notes: Vec::new(),
            deferred: batch.group.then(Vec::new),
            pending: None,
            held_injection: None,
            start,
            tool: event.tool_name(),
            hook_id: HookId::new(Arc::clone(&spec.id))
                .with_source(spec.config.clone())
                .with_layer(spec.layer.clone()),
        }
    }

    /// What is left of the hook's timeout (zero once it ran out).
    pub(super) fn remaining(&self) -> std::time::Duration {
        self.deadline
            .saturating_duration_since(tokio::time::Instant::now())
    }

    /// The invocation of an event of another phase than the spec's:
    /// `Continue`, an `ok` record that is never written, an empty report.
    pub(super) fn not_observed(self) -> Invocation {
        Invocation {
            flow: Flow::Continue,
            context: ContextList::new(),
            args: None,
            env: crate::EnvVars::new(),
            record: self.record(RecordStatus::Ok),
            report: HookReport::new(self.hook_id),
        }
    }

    /// Emits the `Started` activity event.
    pub(super) fn emit_started(&self) {
        self.activity(ActivityEvent::Started {
            hook_id: self.spec.id.clone(),
            phase: self.phase,
        });
    }

    /// Stamps the elapsed time on the record, writes it (or, in a group,
    /// keeps it with the other lines for the caller), emits the `Failed` or
    /// `Succeeded` activity event and returns the invocation with its
    /// report (`verdict`, the failure, elapsed time, the record's message
    /// and every diagnostic of the call), the lines kept and, for a
    /// background invocation, its held injection record.
    pub(super) fn finish(mut self, settled: Settled, verdict: Verdict) -> (Invocation, Deferred) {
        let Settled {
            flow,
            context,
            args,
            env,
            mut record,
            failure,
        } = settled;
        let elapsed = self.start.elapsed();
        record.elapsed_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        if self.rt.records.is_some() {
            self.write_hook(&record);
            self.write_pending();
        }
        self.emit_finished(&record);
        let deferred = Deferred {
            lines: self.deferred.take().unwrap_or_default(),
            injection: self.held_injection.take().map(Box::new),
        };
        let report = HookReport {
            verdict,
            failure,
            elapsed,
            message: record.message.clone().map(Text::Owned),
            diagnostics: self
                .diagnostics
                .into_iter()
                .map(|message| Diagnostic::Hook {
                    hook: self.hook_id.clone(),
                    message,
                })
                .collect(),
            output: self.output,
            hook: self.hook_id,
        };
        let invocation = Invocation {
            flow,
            context,
            args,
            env,
            record,
            report,
        };
        (invocation, deferred)
    }

    /// Emits `Failed` (when the record has a failure kind) or `Succeeded`.
    fn emit_finished(&self, record: &HookRecord) {
        let (hook_id, phase, elapsed_ms) = (self.spec.id.clone(), self.phase, record.elapsed_ms);
        self.activity(match record.failure_kind {
            Some(failure_kind) => ActivityEvent::Failed {
                hook_id,
                phase,
                elapsed_ms,
                failure_kind,
            },
            None => ActivityEvent::Succeeded {
                hook_id,
                phase,
                elapsed_ms,
            },
        });
    }

    /// A record of this call with `status`, no decision, failure or message
    /// and no elapsed time yet; the output sizes and path findings known so
    /// far.
    pub(super) fn record(&self, status: RecordStatus) -> HookRecord {
        HookRecord {
            record: "hook",
            phase: self.phase,
            hook_id: self.hook_id.clone(),
            tool: self.tool.map(str::to_owned),
            status,
            decision: None,
            failure_kind: None,
            policy: self.spec.failure_policy,
            mode: self.spec.mode,
            elapsed_ms: 0,
            target_ran: self.phase.is_after_phase(),
            message: None,
            notes: Vec::new(),
            output: self.output,
            path_diagnostics: self.path_diagnostics.clone(),
            http: self.http.clone(),
            rego: match &self.spec.target {
                HookTarget::Policy(p) => Some(Box::new(PolicyIdentity {
                    query: p.query().to_owned(),
                    digest: p.digest().to_owned(),
                })),
                HookTarget::Process(_) | HookTarget::Http(_) => None,
            },
            background: self.background,
        }
    }

    /// `text` redacted with the hook's secrets.
    pub(super) fn redact(&self, text: &str) -> String {
        redact_sensitive_text(text, &self.secrets).into_owned()
    }

    /// Renders `record` when records are on and keeps the line: for the
    /// caller in a group, else until the call finishes ([`Call::write_pending`]:
    /// one write for the call's records).
    pub(super) fn write(&mut self, record: &Record) {
        if let Some(writer) = &self.rt.records {
            let line = writer.render(record, &self.secrets);
            self.keep(line);
        }
    }

    /// [`Call::write`] of a hook record (not copied into a [`Record`]).
    fn write_hook(&mut self, record: &HookRecord) {
        if let Some(writer) = &self.rt.records {
            let line = writer.render_hook(record, &self.secrets);
            self.keep(line);
        }
    }

    /// Keeps a rendered record `line`: with the group's lines (in a
    /// group), else with the call's pending lines.
    fn keep(&mut self, line: String) {
        if let Some(lines) = &mut self.deferred {
            lines.push(line);
            return;
        }
        match &mut self.pending {
            Some((lines, count)) => {
                lines.push_str(&line);
                *count += 1;
            }
            None => self.pending = Some((line, 1)),
        }
    }

    /// Writes the call's pending record lines with one write; lost ones
    /// become a diagnostic of the call.
    pub(super) fn write_pending(&mut self) {
        if let (Some(writer), Some((lines, count))) = (&self.rt.records, self.pending.take())
            && let Err(err) = writer.write_lines(&lines, count)
        {
            let message = self.redact(&writer.lost_records_message(&err));
            self.diagnostics.push(message);
        }
    }

    /// Sends `event` to the activity sink, for `show_in_tui` hooks.
    fn activity(&self, event: ActivityEvent) {
        if self.spec.show_in_tui
            && let Some(sink) = &self.rt.activity
        {
            sink.on_activity(event);
        }
    }
}

/// The secrets of a hook: the runtime's, plus the values of its
/// credential-like `env.set` entries and `env.pass` names, and every value
/// an `http` hook's headers may reference (its `env`). Borrowed from the
/// runtime when the hook adds none.
fn hook_secrets<'a>(spec: &ShellHookSpec, rt: &'a ShellRuntime) -> Cow<'a, SecretSet> {
    let mut secrets = Cow::Borrowed(&rt.secrets);
    let mut add = |value: String| {
        // Shorter values are not secrets (`SecretSet::add` skips them).
        if value.len() >= MIN_SECRET_LEN {
            secrets.to_mut().add(value);
        }
    };
    match &spec.target {
        HookTarget::Http(target) => {
            for (_, value) in target.env_values() {
                add(value);
            }
        }
        HookTarget::Process(process) => {
            let env = &process.env;
            for (name, value) in &env.set {
                if is_credential_name(name) {
                    add(value.clone());
                }
            }
            for name in &env.pass {
                if is_credential_name(name)
                    && let Ok(value) = std::env::var(name)
                {
                    add(value);
                }
            }
        }
        HookTarget::Policy(_) => {}
    }
    secrets
}
