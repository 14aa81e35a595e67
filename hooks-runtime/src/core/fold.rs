//! [`Fold`]: how several hooks' flows for one event combine into a
//! [`StackOutcome`], one hook at a time (the rules of docs/config.md's *How
//! several hooks combine*).

use std::ops::ControlFlow;

use hooks_plan::Phase;
use serde_json::Value;

use crate::core::diagnostic::Diagnostic;
use crate::core::event::{StepEvent, reselect};
use crate::core::flow::{ContextList, EnvVars, Flow, FlowKind, Text};
use crate::core::id::HookId;
use crate::core::merge::PatchMerge;
use crate::core::outcome::{Change, NetParts, Provenance, ProvenanceList, StackOutcome, net_flow};
use crate::core::patch::RequestPatch;
use crate::core::report::{HookReport, ReportList, Verdict};

/// The fold of one event's flows, applied one hook at a time.
///
/// [`HookStack::fold`](crate::HookStack::fold) makes one and passes it down
/// to each hook ([`AgentHook::fold_into`](crate::AgentHook::fold_into)): a
/// dispatch table applies its rules' flows to it, a nested stack its hooks'.
/// Code that obtains flows some other way (shell hooks run concurrently and
/// merged in declared order) uses it alike: call [`Fold::event`] for the
/// event the next hook must see, [`Fold::apply`] with its flow, and
/// [`Fold::finish`].
#[derive(Debug)]
pub struct Fold<'e> {
    event: StepEvent<'e>,
    patch: PatchMerge,
    value: Option<Value>,
    prompt: Option<Text>,
    /// `before_model_select`: the model the hooks chose so far.
    model: Option<Text>,
    context: ContextList,
    env: EnvVars,
    decision: Option<Flow>,
    /// Whether a higher layer is being consulted after a lower layer's
    /// stopping flow ([`Fold::yield_to_higher_layer`]).
    yielding: bool,
    /// The strongest `Ask` / `Allow` so far (they do not stop the fold).
    permission: Option<Flow>,
    provenance: ProvenanceList,
    diagnostics: Vec<Diagnostic>,
    reports: ReportList,
    /// How many rewrites were applied (of the arguments, result or prompt).
    rewrites: u32,
}

/// A copy of what the hooks of a fold rewrote so far ([`Fold::rewritten`]).
#[derive(Debug)]
pub(crate) struct Rewritten {
    value: Option<Value>,
    prompt: Option<Text>,
}

impl Rewritten {
    /// `base` (the fold's [`Fold::unchained_event`]) as [`Fold::event`]
    /// showed it when this copy was made.
    pub(crate) fn event<'b>(&'b self, base: StepEvent<'b>) -> StepEvent<'b> {
        chain(base, self.value.as_ref(), self.prompt.as_deref())
    }
}

/// `event` with the rewritten `value` (arguments or result) or `prompt`.
fn chain<'b>(
    event: StepEvent<'b>,
    value: Option<&'b Value>,
    prompt: Option<&'b str>,
) -> StepEvent<'b> {
    if let Some(value) = value {
        event.with_value(value)
    } else if let Some(prompt) = prompt {
        event.with_prompt(prompt)
    } else {
        event
    }
}

impl<'e> Fold<'e> {
    /// A fold of `event` that no hook has answered yet. Does not allocate.
    pub fn new(event: StepEvent<'e>) -> Self {
        Fold {
            event,
            patch: PatchMerge::default(),
            value: None,
            prompt: None,
            model: None,
            context: ContextList::new(),
            env: EnvVars::new(),
            decision: None,
            yielding: false,
            permission: None,
            provenance: ProvenanceList::new(),
            diagnostics: Vec::new(),
            reports: ReportList::new(),
            rewrites: 0,
        }
    }

    /// The phase being folded.
    pub fn phase(&self) -> Phase {
        self.event.kind()
    }

    /// The event as the next hook must see it: with the arguments, result,
    /// prompt or model selection rewritten by the hooks applied so far.
    pub fn event(&self) -> StepEvent<'_> {
        chain(self.event, self.value.as_ref(), self.prompt.as_deref())
    }

    /// What [`Fold::event`] shows beyond [`Fold::unchained_event`] (the
    /// arguments, result or prompt the hooks so far rewrote), copied, so
    /// that the event the next hooks see outlives flows applied to the
    /// fold: [`Rewritten::event`]. Allocates only when something was
    /// rewritten.
    pub(crate) fn rewritten(&self) -> Rewritten {
        Rewritten {
            value: self.value.clone(),
            prompt: self.prompt.clone(),
        }
    }

    /// The event as given to [`Fold::new`], without the rewrites applied
    /// since (on a phase that honours none, the same as [`Fold::event`]).
    pub(crate) fn unchained_event(&self) -> StepEvent<'e> {
        self.event
    }

    /// How many rewrites (of the arguments, result or prompt) were applied
    /// so far: when it changed, [`Fold::event`] may carry another value.
    pub(crate) fn rewrites(&self) -> u32 {
        self.rewrites
    }

    /// Whether a flow already stopped the fold (later flows are ignored).
    /// While a higher layer is consulted after a lower layer's stopping
    /// flow ([`Fold::yield_to_higher_layer`]), the fold is not stopped.
    pub fn is_stopped(&self) -> bool {
        self.decision.is_some() && !self.yielding
    }

    /// Whether a stopping flow was kept (a decision a higher layer may
    /// still replace counts too).
    pub(crate) fn is_decided(&self) -> bool {
        self.decision.is_some()
    }

    /// Ends what [`Fold::yield_to_higher_layer`] began, once every higher
    /// layer was consulted: a kept stopping flow stops the fold again.
    pub fn end_yield(&mut self) {
        self.yielding = false;
    }

    /// Lets the hooks of a higher layer be consulted after a lower
    /// layer's stopping flow (docs/fleet.md, *Layers*): a lower layer never
    /// keeps a higher one from its say. While they are consulted, their
    /// first stopping flow (`Skip`, `Resume`, `Fail`, `Retry`, `Repair`,
    /// `Terminate`) replaces the kept one; what else they answer is
    /// reported as [`Verdict::Ignored`] (a deny stays a deny: `Ask` and
    /// `Allow` are weaker, and a rewrite of a call that will not run is
    /// moot).
    ///
    /// Returns `false` when the kept flow is final: a `Terminate` (the run
    /// ends, whatever a higher layer says) or no flow at all. The stack
    /// ([`HookStack`](crate::HookStack)) calls it at each layer boundary
    /// after a stop; its hooks run from the lowest layer to the highest.
    pub fn yield_to_higher_layer(&mut self) -> bool {
        match self.decision {
            None | Some(Flow::Terminate { .. }) => false,
            Some(_) => {
                self.yielding = true;
                true
            }
        }
    }

    /// Applies `flow`, returned by hook `hook`, with nothing more known
    /// about the call: a `Continue` flow is not reported, any other flow is
    /// reported as [`Fold::apply_reported`] with [`HookReport::new`].
    /// Returns `ControlFlow::Break` when the fold is stopped (by this flow
    /// or an earlier one): later hooks must not be called.
    pub fn apply(&mut self, hook: &HookId, flow: Flow) -> ControlFlow<()> {
        if flow.is_continue() {
            return if self.is_stopped() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            };
        }
        self.apply_reported(HookReport::new(hook.clone()), flow)
    }

    /// Applies `flow`, one part of a hook's answer whose report comes with
    /// its last part ([`Fold::apply_reported`]): the context, arguments or
    /// environment a shell hook returned beside its decision. Adds no
    /// report; a part the phase does not honour fails closed.
    pub(crate) fn apply_part(&mut self, hook: &HookId, flow: Flow) -> ControlFlow<()> {
        if self.yielding {
            // A part is never a stopping flow: moot after a stop.
            return ControlFlow::Continue(());
        }
        if self.decision.is_some() {
            return ControlFlow::Break(());
        }
        if flow.is_continue() {
            return ControlFlow::Continue(());
        }
        if self.refuse_unhonoured(hook, flow.kind()) {
            return ControlFlow::Break(());
        }
        self.apply_honoured(hook, flow)
    }

    /// Whether the event's phase does not honour `kind`: if so, the fold
    /// fails closed with a [`Diagnostic::Unhonoured`] naming `hook`.
    fn refuse_unhonoured(&mut self, hook: &HookId, kind: FlowKind) -> bool {
        let phase = self.phase();
        if kind.honoured_on(phase) {
            return false;
        }
        let diagnostic = Diagnostic::Unhonoured {
            hook: hook.clone(),
            flow: kind,
            phase,
        };
        self.fail_closed(diagnostic);
        true
    }

    /// Applies `flow`, returned by the hook `report` is about, and adds
    /// `report` to the outcome's reports. The caller fills in what it knows
    /// of the call (elapsed time, failure, message, diagnostics, and for a
    /// `Continue` flow a verdict such as [`Verdict::Audited`], which leaves
    /// a provenance entry [`Change::Audited`]); the fold
    /// sets the verdict of a non-`Continue` flow: [`Verdict::Applied`], or
    /// [`Verdict::Refused`] when the event cannot honour it (fail closed),
    /// or [`Verdict::Ignored`] when the fold was already stopped. The
    /// report's diagnostics are added to the fold's, and the diagnostics
    /// this flow causes (a fail-closed flow, a patch conflict) to the
    /// report's.
    ///
    /// Returns `ControlFlow::Break` when the fold is stopped (by this flow
    /// or an earlier one): later hooks must not be called.
    pub fn apply_reported(&mut self, mut report: HookReport, flow: Flow) -> ControlFlow<()> {
        let kind = flow.kind();
        if self.yielding && flow.stops() {
            // A higher layer's stopping flow replaces the lower layer's.
            self.yielding = false;
            self.decision = None;
        } else if self.decision.is_some() {
            if !flow.is_continue() {
                report.verdict = Verdict::Ignored(kind);
            }
            self.push_report(report, self.diagnostics.len());
            return if self.yielding {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            };
        }
        self.diagnostics.extend(report.diagnostics.iter().cloned());
        let before = self.diagnostics.len();
        if flow.is_continue() {
            // A hook in `mode: audit` (a declarative rule, a `run`, `http`
            // or `policy` hook alike) leaves what it would have done.
            if let Verdict::Audited(would) = report.verdict {
                self.record(&report.hook, Change::Audited(would));
            }
            self.push_report(report, before);
            return ControlFlow::Continue(());
        }
        if self.refuse_unhonoured(&report.hook, kind) {
            report.verdict = Verdict::Refused(kind);
            self.push_report(report, before);
            return ControlFlow::Break(());
        }
        report.verdict = Verdict::Applied(kind);
        let step = self.apply_honoured(&report.hook, flow);
        self.push_report(report, before);
        step
    }

    /// Adds `report`, with the fold's diagnostics from index `from` on.
    fn push_report(&mut self, mut report: HookReport, from: usize) {
        report
            .diagnostics
            .extend(self.diagnostics[from..].iter().cloned());
        self.reports.push(report);
    }

    /// Applies `flow`, which `self.phase()` honours and is not `Continue`.
    fn apply_honoured(&mut self, hook: &HookId, flow: Flow) -> ControlFlow<()> {
        let kind = flow.kind();
        match flow {
            Flow::Continue => {} // handled above; honoured everywhere
            Flow::PatchRequest(patch) => {
                self.patch
                    .merge(hook, patch, &mut self.provenance, &mut self.diagnostics);
            }
            Flow::RewriteArgs(value) | Flow::RewriteResult(value) => {
                self.value = Some(value);
                self.rewrites = self.rewrites.wrapping_add(1);
                self.record(hook, Change::Rewrote(kind));
            }
            Flow::RewritePrompt(prompt) => {
                self.prompt = Some(prompt);
                self.rewrites = self.rewrites.wrapping_add(1);
                self.record(hook, Change::Rewrote(kind));
            }
            Flow::SelectModel(model) => {
                // Later hooks see the chosen model as the selection's `to`.
                if let StepEvent::BeforeModelSelect { selection } = self.event() {
                    self.value = Some(reselect(selection, &model));
                }
                self.model = Some(model);
                self.rewrites = self.rewrites.wrapping_add(1);
                self.record(hook, Change::Rewrote(kind));
            }
            Flow::InjectContext(items) => {
                if !items.is_empty() {
                    self.record(hook, Change::InjectedContext { items: items.len() });
                    self.context.extend(items.iter().cloned());
                }
            }
            Flow::SetEnv(vars) => {
                if !vars.is_empty() {
                    self.record(
                        hook,
                        Change::SetEnv {
                            names: vars.keys().cloned().collect(),
                        },
                    );
                    self.env.extend(vars);
                }
            }
            answer @ (Flow::Ask { .. } | Flow::Allow) => {
                self.record(hook, Change::Decided(kind));
                self.answer(answer);
            }
            terminal @ (Flow::Skip { .. }
            | Flow::Terminate { .. }
            | Flow::Resume { .. }
            | Flow::Fail
            | Flow::Retry { .. }
            | Flow::Repair { .. }) => {
                self.record(hook, Change::Decided(kind));
                self.decision = Some(terminal);
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }

    /// Keeps `answer` (an `Ask` or `Allow`) if it is stronger than the one
    /// kept so far: deny (a `Skip`, which stops the fold) > ask > allow; of
    /// two equal answers the first is kept.
    fn answer(&mut self, answer: Flow) {
        let rank = |f: &Flow| u8::from(matches!(f, Flow::Ask { .. }));
        if self
            .permission
            .as_ref()
            .is_none_or(|kept| rank(&answer) > rank(kept))
        {
            self.permission = Some(answer);
        }
    }

    /// Notes that `hook`, in `mode: audit`, would have answered with a flow
    /// of kind `would` (provenance [`Change::Audited`]); nothing is applied.
    pub fn audited(&mut self, hook: &HookId, would: FlowKind) {
        if self.decision.is_none() {
            self.record(hook, Change::Audited(would));
        }
    }

    /// Adds `diagnostic` to the outcome (a diagnostic about no single hook
    /// call; see [`Fold::diagnose_call`]).
    pub fn diagnose(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// Adds `diagnostic`, about the call of `hook` already reported (for
    /// example a record of it that could not be written), to the outcome
    /// and to the last report of `hook`, if any.
    pub fn diagnose_call(&mut self, hook: &HookId, diagnostic: Diagnostic) {
        if let Some(report) = self.reports.iter_mut().rev().find(|r| &r.hook == hook) {
            report.diagnostics.push(diagnostic.clone());
        }
        self.diagnostics.push(diagnostic);
    }

    fn record(&mut self, hook: &HookId, change: Change) {
        self.provenance.push(Provenance {
            hook: hook.clone(),
            change,
        });
    }

    fn fail_closed(&mut self, diagnostic: Diagnostic) {
        if self.phase() == Phase::BeforeCompletion {
            self.patch = PatchMerge::default();
        }
        self.decision = Some(Flow::Terminate {
            reason: diagnostic.to_string().into(),
        });
        self.diagnostics.push(diagnostic);
    }

    /// Ends the fold: checks the merged patch (a `tool_choice` naming a tool
    /// that `active_tools` removed fails closed) and returns the result.
    pub fn finish(mut self) -> StackOutcome {
        let phase = self.phase();
        let patch = self.settle();
        let (args, result) = self.rewritten_value();
        StackOutcome {
            phase,
            decision: self.decision,
            patch,
            args,
            result,
            prompt: self.prompt,
            model: self.model,
            context: self.context,
            env: self.env,
            provenance: self.provenance,
            diagnostics: self.diagnostics,
            reports: self.reports,
        }
    }

    /// What `self.finish().net_flow()` returns
    /// ([`StackOutcome::net_flow`]), without building the outcome: its
    /// reports, provenance and diagnostics (inline lists of several
    /// kilobytes) are not moved, only dropped where the fold lies. What a
    /// table answering as one hook returns. The fold is spent: drop it
    /// after.
    pub(crate) fn take_net_flow(&mut self) -> Flow {
        let patch = self.settle();
        let (args, result) = self.rewritten_value();
        net_flow(NetParts {
            decision: self.decision.take(),
            patch,
            args,
            result,
            prompt: self.prompt.take(),
            model: self.model.take(),
            context: std::mem::take(&mut self.context),
        })
    }

    /// The end of the fold's decision: the merged patch, checked (a
    /// `tool_choice` naming a tool that `active_tools` removed fails
    /// closed), and without a stopping flow the strongest permission answer
    /// kept as the decision.
    fn settle(&mut self) -> RequestPatch {
        let mut patch = RequestPatch::default();
        if self.decision.is_none() {
            match std::mem::take(&mut self.patch).finish() {
                Ok(merged) => patch = merged,
                Err(diagnostic) => self.fail_closed(diagnostic),
            }
        }
        if self.decision.is_none() {
            self.decision = self.permission.take();
        }
        patch
    }

    /// The rewritten value, as the phase's arguments or result.
    fn rewritten_value(&mut self) -> (Option<Value>, Option<Value>) {
        match self.phase() {
            Phase::BeforeTool | Phase::PermissionRequest => (self.value.take(), None),
            Phase::AfterTool => (None, self.value.take()),
            _ => (None, None),
        }
    }
}
