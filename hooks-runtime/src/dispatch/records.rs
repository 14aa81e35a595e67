//! The records and activity events of the declarative rules a table's
//! part of a fold consulted, kept until that part ends.

use std::sync::Arc;

use hooks_plan::Rule;
use hooks_plan::{Mode, Phase};

use super::action::RuleActions;
use crate::core::context::HookContext;
use crate::core::diagnostic::Diagnostic;
use crate::core::event::StepEvent;
use crate::core::flow::Flow;
use crate::core::fold::Fold;
use crate::core::id::HookId;
use crate::core::report::FailureKind;
use crate::shell::activity::ActivityEvent;
use crate::shell::invoke::next_injection;
use crate::shell::invoke::{MESSAGE_MAX_CHARS, ShellRuntime};
use crate::shell::records::{HookRecord, InjectionRecord, InjectionStatus, Record, RecordStatus};
use crate::shell::redact::{redact_and_truncate, redact_sensitive_text};

/// The records of the declarative rules a table's part of a fold consulted
/// (an `inject` rule's `context_injection` record beside its own), written
/// when that part ends (so a part that is dropped writes none),
/// and the activity events of those with `show_in_tui` (`Started` and
/// `Succeeded` with 0 ms: nothing is spawned). Inert, and allocation-free,
/// without a record writer or an activity sink.
pub(super) struct InProcessRecords<'r> {
    pub(super) rt: Option<&'r ShellRuntime>,
    /// The run's context, for injection ids (`None`: no run id, turn 0).
    ctx: Option<&'r HookContext>,
    pending: Vec<(HookId, Record)>,
    shown: Vec<(Arc<str>, Phase)>,
}

impl<'r> InProcessRecords<'r> {
    pub(super) fn new(shell: Option<&'r Arc<ShellRuntime>>, ctx: Option<&'r HookContext>) -> Self {
        InProcessRecords {
            rt: shell
                .map(|rt| &**rt)
                .filter(|rt| rt.records().is_some() || rt.activity().is_some()),
            ctx,
            pending: Vec::new(),
            shown: Vec::new(),
        }
    }

    /// Notes that `rule` (declarative, consulted as `id`) answered `event`
    /// with `flow` (after its mode was applied).
    pub(super) fn add(&mut self, rule: &Rule, id: &HookId, event: &StepEvent<'_>, flow: &Flow) {
        let Some(rt) = self.rt else { return };
        if rule.show_in_tui && rt.activity().is_some() {
            self.shown.push((Arc::from(&*rule.id), rule.phase));
        }
        if rt.records().is_none() {
            return;
        }
        let (status, shown) = match rule.mode {
            Mode::Audit => (RecordStatus::Audited, rule.declarative_flow(event)),
            Mode::Enforce if flow.is_continue() => (RecordStatus::Ok, None),
            Mode::Enforce => (RecordStatus::Decision, Some(flow.clone())),
        };
        let message = match (&shown, self.rt) {
            (Some(Flow::Skip { reason } | Flow::Terminate { reason }), Some(rt)) => {
                Some(redact_and_truncate(reason, rt.secrets(), MESSAGE_MAX_CHARS))
            }
            _ => None,
        };
        let record = HookRecord {
            status,
            decision: shown
                .as_ref()
                .filter(|f| !f.is_continue())
                .map(|f| f.kind().as_str()),
            message,
            ..self.base_record(rule, id, event)
        };
        // An `inject` rule's items are an injection, as a shell hook's are
        // (its record first, as a shell hook writes it).
        if let Some(Flow::InjectContext(items)) = &shown {
            let status = match rule.mode {
                Mode::Audit => InjectionStatus::Audited,
                Mode::Enforce => InjectionStatus::Injected,
            };
            let (run_id, turn) = self.ctx.map_or(("", 0), |c| (c.run_id(), c.turn()));
            let injection = InjectionRecord {
                record: "context_injection",
                phase: rule.phase,
                hook_id: rule.id.to_string(),
                status,
                item_count: items.len(),
                byte_count: items.iter().map(|i| i.content.len()).sum(),
                max_bytes: rt.limits().max_context_bytes,
                injection_id: format!("{run_id}/{turn}/{}/{}", rule.id, next_injection()),
                delivered_on: None,
            };
            self.pending
                .push((id.clone(), Record::Injection(injection)));
        }
        self.pending.push((id.clone(), Record::Hook(record)));
    }

    /// Notes that declarative `rule` failed on `event` with `kind`.
    pub(super) fn add_failed(
        &mut self,
        rule: &Rule,
        id: &HookId,
        event: &StepEvent<'_>,
        kind: FailureKind,
        detail: &str,
    ) {
        let Some(rt) = self.rt.filter(|rt| rt.records().is_some()) else {
            return;
        };
        let record = HookRecord {
            status: RecordStatus::Failed,
            failure_kind: Some(kind.as_str()),
            message: Some(redact_and_truncate(detail, rt.secrets(), MESSAGE_MAX_CHARS)),
            ..self.base_record(rule, id, event)
        };
        self.pending.push((id.clone(), Record::Hook(record)));
    }

    /// Notes that `rule` (a `run` rule) matched `event` in a dry run and was
    /// not executed.
    pub(super) fn add_not_run(&mut self, rule: &Rule, id: &HookId, event: &StepEvent<'_>) {
        if self.rt.is_none_or(|rt| rt.records().is_none()) {
            return;
        }
        let record = HookRecord {
            status: RecordStatus::Refused,
            message: Some(NOT_RUN.to_owned()),
            ..self.base_record(rule, id, event)
        };
        self.pending.push((id.clone(), Record::Hook(record)));
    }

    /// The record of `rule` on `event` with status `ok` and nothing else
    /// said (the other methods set what differs).
    fn base_record(&self, rule: &Rule, id: &HookId, event: &StepEvent<'_>) -> HookRecord {
        HookRecord {
            record: "hook",
            phase: rule.phase,
            hook_id: id.clone(),
            tool: event.tool_name().map(str::to_owned),
            status: RecordStatus::Ok,
            decision: None,
            failure_kind: None,
            policy: rule.failure_policy,
            mode: rule.mode,
            elapsed_ms: 0,
            target_ran: rule.phase.is_after_phase(),
            message: None,
            notes: Vec::new(),
            output: None,
            path_diagnostics: Vec::new(),
            http: None,
            rego: None,
            background: false,
        }
    }

    /// Writes the records, all with one write; when they are lost, the
    /// failure becomes a diagnostic of `fold` and of each of their rules'
    /// reports.
    pub(super) fn write(self, fold: &mut Fold<'_>) {
        let Some(rt) = self.rt else { return };
        if let Some(sink) = rt.activity() {
            for (hook_id, phase) in self.shown {
                sink.on_activity(ActivityEvent::Started {
                    hook_id: Arc::clone(&hook_id),
                    phase,
                });
                sink.on_activity(ActivityEvent::Succeeded {
                    hook_id,
                    phase,
                    elapsed_ms: 0,
                });
            }
        }
        let Some(writer) = rt.records() else { return };
        if self.pending.is_empty() {
            return;
        }
        // One write for the part's records: they are its decision's.
        let mut lines = String::new();
        for (_, record) in &self.pending {
            lines.push_str(&writer.render(record, rt.secrets()));
        }
        let count = self.pending.len() as u64;
        if let Err(err) = writer.write_lines(&lines, count) {
            let message = redact_sensitive_text(&writer.lost_records_message(&err), rt.secrets())
                .into_owned();
            let mut seen: Vec<&HookId> = Vec::new();
            for (hook, _) in &self.pending {
                if seen.contains(&hook) {
                    continue;
                }
                seen.push(hook);
                fold.diagnose_call(
                    hook,
                    Diagnostic::Hook {
                        hook: hook.clone(),
                        message: message.clone(),
                    },
                );
            }
        }
    }
}

/// The message of a dry run's record for a `run` rule it did not execute.
pub(super) const NOT_RUN: &str = "not run (dry run)";
