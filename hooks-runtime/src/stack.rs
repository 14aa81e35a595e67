//! `HookStack`: runs hooks in declared order and folds their flows per event
//! (the rules are in the crate docs and the README's *How several hooks
//! combine*); `Fold`, the fold itself, usable without a stack.

use std::fmt;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Instant;

use hooks_schema::Phase;
use serde::Serialize;
use serde_json::Value;
use smallvec::SmallVec;

pub use crate::diagnostic::Diagnostic;

use crate::context::HookContext;
use crate::event::{StepEvent, StepEventKind};
use crate::flow::{ContextList, Flow, FlowKind, Text};
use crate::hook::{AgentHook, HookFuture, HookId, OutcomeFuture};
use crate::patch::{PatchField, PatchMerge, RequestPatch};
use crate::report::{HookReport, ReportList, Verdict};

/// An ordered list of hooks that answers each event with one folded result.
///
/// Hooks run one after another in registration order (= the config's
/// declared order); a hook whose [`observes`](AgentHook::observes) declines
/// the event's kind is not called (it counts as `Continue`). The flows are
/// folded by event:
///
/// | phase | fold |
/// | --- | --- |
/// | `before_completion` | every hook is consulted; [`Flow::PatchRequest`]s merge in order (rules on [`RequestPatch`]); `Terminate` stops |
/// | `before_tool`, `after_tool`, `user_prompt` | chain: a rewrite does not stop the others, hook N sees the value rewritten by hooks 1..N-1; `Skip` / `Terminate` stop and keep the rewrites made before them |
/// | `after_completion`, `after_reasoning`, `after_assistant`, `after_tool` | [`Flow::InjectContext`] items accumulate in order; `Terminate` stops |
/// | every other phase | the first non-`Continue` flow wins and stops the stack |
/// | `invalid_tool_call` | as above; when every hook continues, the call fails ([`InvalidCallDecision::Fail`](crate::InvalidCallDecision::Fail)) |
///
/// A flow the event cannot honour ([`FlowKind::honoured_on`]) stops the
/// stack and fails closed: the result is `Terminate` with a
/// [`Diagnostic::Unhonoured`] naming the hook, the flow and the event (on
/// `before_completion` the patch merged so far is discarded). It is never
/// silently skipped.
///
/// The result ([`StackOutcome`]) records provenance (which hook set or
/// rewrote what), diagnostics (conflicts, empty tool sets, fail-closed
/// flows, the hooks' own) and one [`HookReport`] per consulted hook (its
/// verdict, failure, elapsed time, message and diagnostics). Agent loops normally call the typed driver methods
/// ([`HookStack::before_tool`], [`HookStack::before_completion`], ...) instead
/// of reading it.
///
/// # Nesting
///
/// A `HookStack` is itself an [`AgentHook`], so stacks nest. Pushing a stack
/// into a stack ([`HookStack::push`]) appends its hooks in place, under their
/// own ids: nesting is flattening, by construction, with identical flows,
/// provenance, diagnostics and reports.
///
/// A stack reached some other way (behind a wrapper type that forwards
/// [`AgentHook::fold_event`], or a dispatch table implementing it) is folded
/// as a whole and its outcome absorbed ([`Fold::absorb`]): the same
/// decision, patch, rewrites, context, provenance and reports (the inner
/// hooks' reports, in place) as the flattened stack.
/// Two things differ, because the inner fold finishes on its own: conflict
/// and empty-`active_tools` diagnostics are computed against the inner
/// stack's values, and a forced `tool_choice` is checked against the inner
/// stack's `active_tools` when it finishes. A hook that only implements
/// [`AgentHook::on_event`] around a stack answers with its net flow
/// ([`StackOutcome::net_flow`]), which loses what one flow cannot say.
///
/// # Errors
///
/// Folding never fails: a flow the event cannot honour becomes a
/// fail-closed `Terminate` with a [`Diagnostic`], and a hook's own failures
/// (a shell hook that times out, exits nonzero, prints invalid output) are
/// turned into flows by that hook's failure policy before the stack sees them.
///
/// # Cancel safety
///
/// Every folding method ([`HookStack::fold`] and the driver methods) may be
/// dropped before it completes: the hook being awaited is dropped (a shell
/// hook kills and reaps its process group), later hooks are not called and
/// nothing is applied; hooks that already ran may have updated the
/// scratchpad.
///
/// # Allocation
///
/// Folding allocates nothing while every hook answers `Continue` through
/// [`HookFuture::ready`]: the event is borrowed, the fold state starts with
/// empty collections, and ready hook futures complete on the first poll.
/// Nor does folding what a hook returns, as long as the flow itself owns no
/// heap data (texts borrowed as [`Text`], as a table compiled by `hooks!`
/// returns them): up to 16 provenance entries, 16 reports (one per
/// consulted hook) and 2 context items are kept inline ([`ProvenanceList`],
/// [`ReportList`], [`ContextList`](crate::ContextList)); a report borrows
/// its hook's id (a reference count) and a static reason.
/// Allocations happen for what a hook builds at run time (owned strings,
/// rewritten JSON values, `additional_params`), for merged lists
/// (narrowing `active_tools` twice, a second hook's `extra_context`), for
/// diagnostics and for boxed (truly asynchronous) hooks.
/// `hooks-runtime/tests/alloc_stack.rs` and the workspace's
/// `tests/dispatch_alloc.rs` pin this down.
#[derive(Clone, Default)]
pub struct HookStack {
    entries: Vec<Entry>,
}

#[derive(Clone)]
struct Entry {
    id: HookId,
    hook: Arc<dyn AgentHook>,
}

impl HookStack {
    /// An empty stack (every event folds to `Continue`).
    pub const fn new() -> Self {
        HookStack {
            entries: Vec::new(),
        }
    }

    /// Appends `hook` under `id` and returns the stack, for chaining.
    ///
    /// If `hook` is a stack ([`AgentHook::as_stack`] returns `Some`, which
    /// includes `Arc<HookStack>` and `Box<HookStack>`), its hooks are appended
    /// instead, in order, under their own ids, and `id` is not used.
    pub fn push(&mut self, id: impl Into<HookId>, hook: impl AgentHook + 'static) -> &mut Self {
        if let Some(stack) = hook.as_stack() {
            self.entries.extend(stack.entries.iter().cloned());
            return self;
        }
        self.entries.push(Entry {
            id: id.into(),
            hook: Arc::new(hook),
        });
        self
    }

    /// Like [`HookStack::push`], for a hook already shared behind an `Arc`.
    pub fn push_shared(&mut self, id: impl Into<HookId>, hook: Arc<dyn AgentHook>) -> &mut Self {
        if let Some(stack) = hook.as_stack() {
            self.entries.extend(stack.entries.iter().cloned());
            return self;
        }
        self.entries.push(Entry {
            id: id.into(),
            hook,
        });
        self
    }

    /// Builder form of [`HookStack::push`].
    #[must_use]
    pub fn with(mut self, id: impl Into<HookId>, hook: impl AgentHook + 'static) -> Self {
        self.push(id, hook);
        self
    }

    /// How many hooks the stack holds (after flattening nested stacks).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the stack holds no hook.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The hooks' ids, in order.
    pub fn ids(&self) -> impl Iterator<Item = &HookId> + '_ {
        self.entries.iter().map(|entry| &entry.id)
    }

    /// Runs the hooks on `event` and folds their flows (see the type's docs).
    ///
    /// # Cancel safety
    ///
    /// Dropping the future stops the fold where it is: the hook being awaited
    /// is dropped (a shell hook kills its process), later hooks are not
    /// called, and nothing is applied. Hooks earlier in the stack may already
    /// have updated the scratchpad.
    pub async fn fold(&self, ctx: &HookContext, event: StepEvent<'_>) -> StackOutcome {
        let kind = event.kind();
        let mut fold = Fold::new(event);
        for entry in &self.entries {
            if !entry.hook.observes(kind) {
                continue;
            }
            let start = Instant::now();
            let folded = match entry.hook.fold_event(ctx, fold.event()) {
                Some(answer) => Some(answer.await),
                None => None,
            };
            let step = match folded {
                Some(outcome) => fold.absorb(&entry.id, outcome),
                None => {
                    let flow = entry.hook.on_event(ctx, fold.event()).await;
                    if flow.is_continue() {
                        // Changed nothing: not reported (see `HookReport`),
                        // so such stacks stay allocation-free.
                        fold.apply(&entry.id, flow)
                    } else {
                        let mut report = HookReport::new(entry.id.clone());
                        report.elapsed = start.elapsed();
                        fold.apply_reported(report, flow)
                    }
                }
            };
            if step.is_break() {
                break;
            }
        }
        fold.finish()
    }
}

impl AgentHook for HookStack {
    /// Folds the stack and answers with the net flow
    /// ([`StackOutcome::net_flow`]). Boxes one future per call; pushing the
    /// stack into another stack avoids that (it flattens).
    fn on_event<'a>(&'a self, ctx: &'a HookContext, event: StepEvent<'a>) -> HookFuture<'a> {
        HookFuture::boxed(async move { self.fold(ctx, event).await.net_flow() })
    }

    /// Folds the stack; the calling stack absorbs the whole outcome.
    /// Boxes one future per call.
    fn fold_event<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: StepEvent<'a>,
    ) -> Option<OutcomeFuture<'a>> {
        Some(OutcomeFuture::boxed(self.fold(ctx, event)))
    }

    fn observes(&self, kind: StepEventKind) -> bool {
        self.entries.iter().any(|entry| entry.hook.observes(kind))
    }

    fn as_stack(&self) -> Option<&HookStack> {
        Some(self)
    }
}

impl fmt::Debug for HookStack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookStack")
            .field(
                "hooks",
                &self.entries.iter().map(|e| &e.id).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// The fold of one event's flows, applied one hook at a time.
///
/// [`HookStack::fold`] uses it; so can code that obtains flows some other
/// way (a dispatch table running rules, shell hooks run concurrently and
/// merged in declared order): call [`Fold::event`] for the event the next
/// hook must see, [`Fold::apply`] with its flow, and [`Fold::finish`].
#[derive(Debug)]
pub struct Fold<'e> {
    event: StepEvent<'e>,
    patch: PatchMerge,
    value: Option<Value>,
    prompt: Option<Text>,
    context: ContextList,
    decision: Option<Flow>,
    provenance: ProvenanceList,
    diagnostics: Vec<Diagnostic>,
    reports: ReportList,
}

impl<'e> Fold<'e> {
    /// A fold of `event` that no hook has answered yet. Does not allocate.
    pub fn new(event: StepEvent<'e>) -> Self {
        Fold {
            event,
            patch: PatchMerge::default(),
            value: None,
            prompt: None,
            context: ContextList::new(),
            decision: None,
            provenance: ProvenanceList::new(),
            diagnostics: Vec::new(),
            reports: ReportList::new(),
        }
    }

    /// The phase being folded.
    pub fn phase(&self) -> Phase {
        self.event.kind()
    }

    /// The event as the next hook must see it: with the arguments, result or
    /// prompt rewritten by the hooks applied so far.
    pub fn event(&self) -> StepEvent<'_> {
        if let Some(value) = &self.value {
            self.event.with_value(value)
        } else if let Some(prompt) = &self.prompt {
            self.event.with_prompt(prompt)
        } else {
            self.event
        }
    }

    /// Whether a flow already stopped the fold (later flows are ignored).
    pub fn is_stopped(&self) -> bool {
        self.decision.is_some()
    }

    /// Applies `flow`, returned by hook `hook`, with nothing more known
    /// about the call: a `Continue` flow is not reported, any other flow is
    /// reported as [`Fold::apply_reported`] with [`HookReport::new`].
    /// Returns `ControlFlow::Break` when the fold is stopped (by this flow
    /// or an earlier one): later hooks must not be called.
    pub fn apply(&mut self, hook: &HookId, flow: Flow) -> ControlFlow<()> {
        if flow.is_continue() {
            return if self.decision.is_some() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            };
        }
        self.apply_reported(HookReport::new(hook.clone()), flow)
    }

    /// Applies `flow`, returned by the hook `report` is about, and adds
    /// `report` to the outcome's reports. The caller fills in what it knows
    /// of the call (elapsed time, failure, message, diagnostics, and for a
    /// `Continue` flow a verdict such as [`Verdict::Audited`]); the fold
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
        if self.decision.is_some() {
            if !flow.is_continue() {
                report.verdict = Verdict::Ignored(kind);
            }
            self.push_report(report, self.diagnostics.len());
            return ControlFlow::Break(());
        }
        self.diagnostics.extend(report.diagnostics.iter().cloned());
        let before = self.diagnostics.len();
        if flow.is_continue() {
            self.push_report(report, before);
            return ControlFlow::Continue(());
        }
        let hook = &report.hook;
        let phase = self.phase();
        if !kind.honoured_on(phase) {
            let diagnostic = Diagnostic::Unhonoured {
                hook: hook.clone(),
                flow: kind,
                phase,
            };
            self.fail_closed(diagnostic);
            report.verdict = Verdict::Refused(kind);
            self.push_report(report, before);
            return ControlFlow::Break(());
        }
        report.verdict = Verdict::Applied(kind);
        let step = self.apply_honoured(hook, flow);
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
                self.record(hook, Change::Rewrote(kind));
            }
            Flow::RewritePrompt(prompt) => {
                self.prompt = Some(prompt);
                self.record(hook, Change::Rewrote(kind));
            }
            Flow::InjectContext(items) => {
                if !items.is_empty() {
                    self.record(hook, Change::InjectedContext { items: items.len() });
                    self.context.extend(items.iter().cloned());
                }
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

    /// Absorbs `outcome`, the folded answer of hook `hook` (a stack or
    /// dispatch table, see [`AgentHook::fold_event`]): its patch merges
    /// field by field (attributed to the inner hooks that set each field),
    /// its rewrite replaces the chained value, its context is appended, its
    /// provenance and diagnostics are kept, and its decision stops the fold.
    /// Returns `ControlFlow::Break` when the fold is stopped.
    ///
    /// Anything the event cannot honour (an outcome of another phase, a
    /// rewrite or decision the phase does not allow) fails closed with
    /// [`Diagnostic::Unhonoured`] naming `hook`.
    pub fn absorb(&mut self, hook: &HookId, outcome: StackOutcome) -> ControlFlow<()> {
        if self.decision.is_some() {
            return ControlFlow::Break(());
        }
        let phase = self.phase();
        let StackOutcome {
            phase: inner_phase,
            decision,
            patch,
            args,
            result,
            prompt,
            context,
            provenance,
            diagnostics,
            reports,
        } = outcome;
        // The inner hooks ran whatever becomes of their outcome.
        self.reports.extend(reports);
        let parts = [
            (!patch.is_empty()).then_some(FlowKind::PatchRequest),
            args.is_some().then_some(FlowKind::RewriteArgs),
            result.is_some().then_some(FlowKind::RewriteResult),
            prompt.is_some().then_some(FlowKind::RewritePrompt),
            (!context.is_empty()).then_some(FlowKind::InjectContext),
            decision.as_ref().map(Flow::kind),
        ];
        let refused = parts
            .into_iter()
            .flatten()
            .find(|kind| inner_phase != phase || !kind.honoured_on(phase));
        if let Some(flow) = refused {
            self.fail_closed(Diagnostic::Unhonoured {
                hook: hook.clone(),
                flow,
                phase,
            });
            return ControlFlow::Break(());
        }
        if !patch.is_empty() {
            let who = |field: PatchField| {
                provenance
                    .iter()
                    .rev()
                    .find(|p| p.change.patch_field() == Some(field))
                    .map_or_else(|| hook.clone(), |p| p.hook.clone())
            };
            self.patch
                .merge_attributed(&who, patch, None, &mut self.diagnostics);
        }
        if let Some(value) = args.or(result) {
            self.value = Some(value);
        }
        if let Some(prompt) = prompt {
            self.prompt = Some(prompt);
        }
        self.context.extend(context);
        self.provenance.extend(provenance);
        self.diagnostics.extend(diagnostics);
        match decision {
            Some(decision) => {
                self.decision = Some(decision);
                ControlFlow::Break(())
            }
            None => ControlFlow::Continue(()),
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
        let mut patch = RequestPatch::default();
        if self.decision.is_none() {
            match std::mem::take(&mut self.patch).finish() {
                Ok(merged) => patch = merged,
                Err(diagnostic) => self.fail_closed(diagnostic),
            }
        }
        let (args, result) = match phase {
            Phase::BeforeTool => (self.value, None),
            Phase::AfterTool => (None, self.value),
            _ => (None, None),
        };
        StackOutcome {
            phase,
            decision: self.decision,
            patch,
            args,
            result,
            prompt: self.prompt,
            context: self.context,
            provenance: self.provenance,
            diagnostics: self.diagnostics,
            reports: self.reports,
        }
    }
}

/// The folded result of one event (see [`HookStack`]).
///
/// When every hook continued, every field is empty / `None` and nothing was
/// allocated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StackOutcome {
    /// The event's phase.
    pub phase: Phase,
    /// The flow that stopped the stack: `Skip`, `Terminate` (including a
    /// fail-closed one), `Resume`, `Fail`, `Retry` or `Repair`; `None` when
    /// every hook was consulted.
    pub decision: Option<Flow>,
    /// `before_completion`: the merged patch (empty when no hook patched, or
    /// when the stack stopped).
    pub patch: RequestPatch,
    /// `before_tool`: the arguments as rewritten (kept when a later hook
    /// skipped or terminated); `None` when no hook rewrote them.
    pub args: Option<Value>,
    /// `after_tool`: the result as rewritten; `None` when no hook rewrote it.
    pub result: Option<Value>,
    /// `user_prompt`: the prompt as rewritten; `None` when no hook rewrote it.
    pub prompt: Option<Text>,
    /// After-phases: the context items injected, in order.
    pub context: ContextList,
    /// Which hook set or rewrote what, in order.
    pub provenance: ProvenanceList,
    /// Conflicts, fail-closed reasons and the consulted hooks' own
    /// diagnostics, in order.
    pub diagnostics: Vec<Diagnostic>,
    /// One report per consulted hook, in order (inner hooks of a nested
    /// stack or table in place).
    pub reports: ReportList,
}

impl StackOutcome {
    /// Whether every hook continued (nothing to apply, no diagnostic;
    /// reports of hooks that continued may be present).
    pub fn is_continue(&self) -> bool {
        self.decision.is_none()
            && self.patch.is_empty()
            && self.args.is_none()
            && self.result.is_none()
            && self.prompt.is_none()
            && self.context.is_empty()
            && self.diagnostics.is_empty()
    }

    /// The reason of a `Terminate` decision (hook-made or fail-closed).
    pub fn terminate_reason(&self) -> Option<&str> {
        match &self.decision {
            Some(Flow::Terminate { reason }) => Some(reason),
            _ => None,
        }
    }

    /// The result as one [`Flow`], as a stack used as a plain hook answers:
    /// the stopping decision if any; else the merged patch, the rewrite or
    /// the injected context; else `Continue`.
    ///
    /// This is lossy where one flow cannot say everything: rewrites made
    /// before a `Skip` / `Terminate` are dropped, and on `after_tool` a
    /// rewritten result wins over injected context (the context is dropped).
    /// Push stacks into stacks (which flattens) to keep everything.
    pub fn net_flow(self) -> Flow {
        if let Some(decision) = self.decision {
            decision
        } else if !self.patch.is_empty() {
            Flow::PatchRequest(self.patch)
        } else if let Some(args) = self.args {
            Flow::RewriteArgs(args)
        } else if let Some(result) = self.result {
            Flow::RewriteResult(result)
        } else if let Some(prompt) = self.prompt {
            Flow::RewritePrompt(prompt)
        } else if !self.context.is_empty() {
            Flow::InjectContext(self.context)
        } else {
            Flow::Continue
        }
    }
}

/// The provenance of a [`StackOutcome`], in order: up to 16 entries inline
/// (one per decision, rewrite, injection, audited rule or patch field), spilling to the
/// heap beyond. Dereferences to `[Provenance]`.
pub type ProvenanceList = SmallVec<[Provenance; 16]>;

/// One entry of a [`StackOutcome`]'s provenance: hook `hook` made `change`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Provenance {
    /// The hook's id.
    pub hook: HookId,
    /// What it did.
    pub change: Change,
}

/// What a hook changed, in [`Provenance`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Set a field of the request patch (`active_tools`: narrowed it).
    SetField(PatchField),
    /// Set one key of the patch's `additional_params`.
    SetParam(String),
    /// Appended items to the patch's `extra_context`.
    AppendedContext {
        /// How many items.
        items: usize,
    },
    /// Rewrote the arguments, result or prompt (the flow's kind says which).
    Rewrote(FlowKind),
    /// Injected context items.
    InjectedContext {
        /// How many items.
        items: usize,
    },
    /// Stopped the stack with a decision of this kind.
    Decided(FlowKind),
    /// Ran in `mode: audit` and would have answered with a flow of this
    /// kind; nothing was applied (a dispatch table's declarative rules).
    Audited(FlowKind),
}

impl Change {
    /// The request-patch field this change set, if it is one.
    pub fn patch_field(&self) -> Option<PatchField> {
        match self {
            Change::SetField(field) => Some(*field),
            Change::SetParam(_) => Some(PatchField::AdditionalParams),
            Change::AppendedContext { .. } => Some(PatchField::ExtraContext),
            _ => None,
        }
    }
}
