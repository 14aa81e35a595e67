//! From outcome to flow: [`Call::cap_context`] →
//! [`Call::apply_failure_policy`] → (the stop-resume cap) →
//! [`Call::apply_mode`].

use hooks_plan::Mode;

use super::call::{Call, Outcome, Settled};
use crate::core::report::{HookFailure, Verdict};
use crate::shell::policy;
use crate::shell::protocol::ProtocolDecision;
use crate::shell::records::{InjectionRecord, InjectionStatus, Record, RecordStatus};
use crate::shell::redact::{redact_and_truncate, truncate_outside_markers};
use crate::{ContextItem, ContextList, FailureKind, Flow};

/// Most characters of a record's message or a failure's detail (plus `…`).
pub(crate) const MESSAGE_MAX_CHARS: usize = 300;

impl Call<'_> {
    /// The context byte cap, on decisions that inject context: writes the
    /// injection record (`injected`, `audited` or `too_large`; a background
    /// invocation's `injected` record is held for its delivery). Returns the
    /// outcome unchanged, or an `output_too_large` failure when the items
    /// are over [`HookLimits::max_context_bytes`](super::HookLimits::max_context_bytes).
    pub(super) fn cap_context(&mut self, outcome: Outcome) -> Outcome {
        let Outcome::Decided(decision) = outcome else {
            return outcome;
        };
        let items: &[ContextItem] = match &decision.flow {
            Flow::InjectContext(items) => items,
            _ if !decision.context.is_empty() => &decision.context,
            _ => return Outcome::Decided(decision),
        };
        let max = self.rt.limits.max_context_bytes;
        let bytes: usize = items.iter().map(|i| i.content.len()).sum();
        let too_large = bytes > max;
        let status = if too_large {
            InjectionStatus::TooLarge
        } else if self.spec.mode == Mode::Audit {
            InjectionStatus::Audited
        } else {
            InjectionStatus::Injected
        };
        let record = self.injection_record(status, items, bytes);
        if self.background && status == InjectionStatus::Injected {
            // Written when the items are delivered with a later event (or
            // dropped): `background.rs`.
            self.held_injection = Some(record);
        } else {
            self.write(&Record::Injection(record));
        }
        if too_large {
            Outcome::Failed(
                FailureKind::OutputTooLarge,
                format!("context items of {bytes} bytes are over the cap of {max} bytes"),
            )
        } else {
            Outcome::Decided(decision)
        }
    }

    /// The injection record of `items` (`bytes` in all) with `status` and a
    /// fresh `run/turn/hook/n` injection id.
    fn injection_record(
        &self,
        status: InjectionStatus,
        items: &[ContextItem],
        bytes: usize,
    ) -> InjectionRecord {
        InjectionRecord {
            record: "context_injection",
            phase: self.phase,
            hook_id: self.spec.id.to_string(),
            status,
            item_count: items.len(),
            byte_count: bytes,
            max_bytes: self.rt.limits.max_context_bytes,
            injection_id: format!(
                "{}/{}/{}/{}",
                self.ctx.run_id(),
                self.turn,
                self.spec.id,
                next_injection()
            ),
            delivered_on: None,
        }
    }

    /// Turns the outcome into a flow and its record: a decision keeps its
    /// flow (its diagnostics are kept, redacted); a failure goes through
    /// the spec's failure policy. Returns the settled flow, record and
    /// failure.
    pub(super) fn apply_failure_policy(&mut self, outcome: Outcome) -> Settled {
        match outcome {
            Outcome::Decided(decision) => self.decided(decision),
            Outcome::Failed(kind, detail) => self.failed(kind, &detail),
        }
    }

    /// A decision: an `ok` (`Continue`) or `decision` record whose message
    /// is the flow's reason, cut.
    fn decided(&mut self, decision: ProtocolDecision) -> Settled {
        let notes: Vec<String> = decision
            .diagnostics
            .iter()
            .map(|m| self.redact(m))
            .collect();
        self.diagnostics.extend(notes);
        let record_notes: Vec<String> = decision.notes.iter().map(|m| self.redact(m)).collect();
        let (flow, context, args, env) = (
            decision.flow,
            ContextList::from_vec(decision.context),
            decision.args,
            decision.env,
        );
        let status = if flow.is_continue() {
            RecordStatus::Ok
        } else {
            RecordStatus::Decision
        };
        let mut record = self.record(status);
        record.decision = (!flow.is_continue()).then(|| flow.kind().as_str());
        // The flow's texts were redacted whole right after parsing
        // (`redact_flow`); the message is cut after that.
        record.message = flow_reason(&flow).map(|r| truncate_outside_markers(r, MESSAGE_MAX_CHARS));
        record.notes = record_notes;
        if record.message.is_none() && !env.is_empty() {
            // The names only: the values may be secrets.
            let names: Vec<&str> = env.keys().map(String::as_str).collect();
            record.message = Some(format!("env: {}", names.join(", ")));
        }
        Settled {
            flow,
            context,
            args,
            env,
            record,
            failure: None,
        }
    }

    /// A failure: the flow the failure policy makes of it (and its
    /// diagnostic, if any), and a `failed` record whose message is the
    /// redacted, cut detail.
    fn failed(&mut self, kind: FailureKind, detail: &str) -> Settled {
        let spec = self.spec;
        // Redact the whole detail, then cut it: cutting first could leave a
        // secret's prefix too short to match its shape.
        let detail = redact_and_truncate(detail, &self.secrets, MESSAGE_MAX_CHARS);
        let failure = format!("{kind}: {detail}");
        let applied =
            policy::apply_failure_policy(spec.failure_policy, self.phase, &spec.id, &failure);
        if let Some(d) = applied.diagnostic {
            let message = self.redact(&d);
            self.diagnostics.push(message);
        }
        let mut record = self.record(RecordStatus::Failed);
        record.failure_kind = Some(kind.as_str());
        record.decision = (!applied.flow.is_continue()).then(|| applied.flow.kind().as_str());
        record.message = Some(detail);
        Settled {
            flow: applied.flow,
            context: ContextList::new(),
            args: None,
            env: crate::EnvVars::new(),
            record,
            failure: Some(HookFailure {
                kind,
                policy: spec.failure_policy,
            }),
        }
    }

    /// The spec's mode: `audit` records what the flow would have been and
    /// continues. Returns the flow to act on, with the verdict (audited,
    /// continue or applied).
    pub(super) fn apply_mode(&self, settled: Settled) -> (Settled, Verdict) {
        let Settled {
            flow,
            mut context,
            mut args,
            mut env,
            mut record,
            failure,
        } = settled;
        let (flow, would_be) = policy::apply_mode(self.spec.mode, flow);
        if self.spec.mode == Mode::Audit {
            context.clear();
            args = None;
            env.clear();
        }
        let verdict = match &would_be {
            Some(would) => Verdict::Audited(would.kind()),
            None if flow.is_continue() => Verdict::Continue,
            None => Verdict::Applied(flow.kind()),
        };
        if let Some(would) = would_be {
            record.status = RecordStatus::Audited;
            record.decision = Some(would.kind().as_str());
        }
        let settled = Settled {
            flow,
            context,
            args,
            env,
            record,
            failure,
        };
        (settled, verdict)
    }
}

/// A process-wide counter that makes injection ids unique (shell hooks'
/// and declarative `inject` rules' injections alike).
pub(crate) fn next_injection() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// The text a flow gives as its reason (`Skip`, `Terminate`, `Resume`) or
/// feedback (`Retry`).
fn flow_reason(flow: &Flow) -> Option<&str> {
    match flow {
        Flow::Skip { reason } | Flow::Terminate { reason } | Flow::Resume { reason } => {
            Some(reason)
        }
        Flow::Retry { feedback } => Some(feedback),
        _ => None,
    }
}
