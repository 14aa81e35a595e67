//! `HookStack`: runs hooks in declared order and folds their flows per event
//! (the rules are in the crate docs and docs/config.md's *How several hooks
//! combine*); `Fold`, the fold itself, usable without a stack.

use std::fmt;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Instant;

use crate::core::context::HookContext;
use crate::core::event::{StepEvent, StepEventKind};
use crate::core::flow::Flow;
use crate::core::fold::Fold;
use crate::core::hook::{AgentHook, FoldStep, HookFuture, Step};
use crate::core::id::HookId;
use crate::core::outcome::StackOutcome;
use crate::core::report::HookReport;
use crate::core::telemetry;
use crate::state::SessionStore;
use crate::state::marks::Synced;
use tracing::Instrument;

/// An ordered list of hooks that answers each event with one folded result.
///
/// Hooks run one after another in registration order (= the config's
/// declared order), by layer: the tables of configs in a lower layer
/// ([`AgentHook::config_plan`]'s `layer`; a hook built in code is in
/// `project`) run before those of a higher one, whatever order they were
/// pushed in, and when a hook stops the fold, each higher layer is still
/// consulted ([`Fold::yield_to_higher_layer`]; docs/fleet.md, *Layers*).
/// A hook whose [`observes`](AgentHook::observes) declines
/// the event's kind is not called (it counts as `Continue`). The flows are
/// folded by event:
///
/// | phase | fold |
/// | --- | --- |
/// | `before_completion` | every hook is consulted; [`Flow::PatchRequest`](crate::Flow::PatchRequest)s merge in order (rules on [`RequestPatch`](crate::RequestPatch)); `Terminate` stops |
/// | `before_tool`, `permission_request`, `after_tool`, `user_prompt` | chain: a rewrite does not stop the others, hook N sees the value rewritten by hooks 1..N-1; `Skip` / `Terminate` stop and keep the rewrites made before them |
/// | `before_tool`, `permission_request` | [`Flow::Ask`](crate::Flow::Ask) and [`Flow::Allow`](crate::Flow::Allow) do not stop the stack: the strongest answer wins, deny (`Skip`) > `Ask` > `Allow`; of two asks the first reason is kept |
/// | phases that honour [`Flow::InjectContext`](crate::Flow::InjectContext) (`run_start`, `before_tool`, the after-phases, `subagent_start`) | context items accumulate in order; `Terminate` stops |
/// | every other phase | the first non-`Continue` flow wins and stops the stack |
/// | `invalid_tool_call` | as above; when every hook continues, the call fails ([`InvalidCallDecision::Fail`](crate::InvalidCallDecision::Fail)) |
///
/// A flow the event cannot honour ([`FlowKind::honoured_on`](crate::FlowKind::honoured_on)) stops the
/// stack and fails closed: the result is `Terminate` with a
/// [`Diagnostic::Unhonoured`](crate::Diagnostic::Unhonoured) naming the hook, the flow and the event (on
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
/// [`AgentHook::fold_into`]) folds its hooks into the calling stack's
/// [`Fold`], one at a time, as a dispatch table folds its rules: one fold is
/// passed down, so the result is the flattened stack's (decision, patch,
/// rewrites, context, provenance, diagnostics, reports). A hook that only
/// implements [`AgentHook::on_event`] around a stack answers with its net
/// flow ([`StackOutcome::net_flow`]), which loses what one flow cannot say.
///
/// # Errors
///
/// Folding never fails: a flow the event cannot honour becomes a
/// fail-closed `Terminate` with a [`Diagnostic`](crate::Diagnostic), and a hook's own failures
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
/// heap data (texts borrowed as [`Text`](crate::Text), as a table compiled by `hooks!`
/// returns them): up to 16 provenance entries, 16 reports (one per
/// consulted hook) and 2 context items are kept inline ([`ProvenanceList`](crate::ProvenanceList),
/// [`ReportList`](crate::ReportList), [`ContextList`](crate::ContextList)); a report borrows
/// its hook's id (a reference count) and a static reason.
/// Allocations happen for what a hook builds at run time (owned strings,
/// rewritten JSON values, `additional_params`), for merged lists
/// (narrowing `active_tools` twice, a second hook's `extra_context`), for
/// diagnostics and for boxed (truly asynchronous) hooks.
/// `hooks-runtime/tests/alloc_stack.rs` and the workspace's
/// `tests/dispatch_alloc.rs` pin this down.
#[derive(Clone)]
pub struct HookStack {
    entries: Vec<Entry>,
    /// Set by [`HookStack::with_stop_cap`]; `None`: derived from the configs.
    stop_cap: Option<u32>,
    /// Set by [`HookStack::with_session_store`]; `None`: the run's scratchpad.
    session_store: Option<Arc<dyn SessionStore>>,
    /// Whether a hook config in the stack has a scoped or `once` rule (its
    /// marks then go through the session store, when there is one).
    marked: bool,
}

impl Default for HookStack {
    fn default() -> Self {
        HookStack::new()
    }
}

/// Two hook configs pushed into one [`HookStack`] define the same hook id
/// ([`HookStack::try_push`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("hook id `{id}` is defined in both `{first}` and `{second}`, pushed into one stack")]
#[non_exhaustive]
pub struct DuplicateHookId {
    /// The shared hook id.
    pub id: String,
    /// The source (file name) of the config already in the stack.
    pub first: String,
    /// The source of the config being pushed.
    pub second: String,
}

#[derive(Clone)]
struct Entry {
    id: HookId,
    hook: Arc<dyn AgentHook>,
    /// The rank of the hook's layer: its config's
    /// ([`AgentHook::config_plan`]), `project`'s for a hook built in code.
    rank: u16,
}

impl Entry {
    fn new(id: HookId, hook: Arc<dyn AgentHook>) -> Entry {
        let rank = hook
            .config_plan()
            .map_or(hooks_plan::Layer::PROJECT.rank, |plan| plan.layer.rank);
        Entry { id, hook, rank }
    }
}

impl HookStack {
    /// An empty stack (every event folds to `Continue`).
    pub const fn new() -> Self {
        HookStack {
            entries: Vec::new(),
            stop_cap: None,
            session_store: None,
            marked: false,
        }
    }

    /// Caps how many times per user turn hooks may make the agent (or one
    /// subagent) keep working on `stop` / `subagent_stop`: the resume after
    /// `cap` resumes is a [`StopDecision::Capped`](crate::StopDecision::Capped).
    /// Without this, the cap is the smallest `limits.max_stop_resumes_per_turn`
    /// of the hook configs in the stack ([`AgentHook::config_plan`]), else
    /// the config language's default (3).
    #[must_use]
    pub fn with_stop_cap(mut self, cap: u32) -> Self {
        self.stop_cap = Some(cap);
        self
    }

    /// Counts the stop resumes of each user turn in `store`, under the
    /// session id of the event's context
    /// ([`HookContext::session_id`](crate::HookContext::session_id)), instead of the run's
    /// scratchpad: the cap ([`HookStack::stop_cap`]) then holds across
    /// processes sharing the store — one `agent-hooks hook` process per
    /// event, several `serve` replicas sharing Redis.
    /// [`HookStack::user_prompt`] resets the counts in the store
    /// ([`state::STOP_RESUMES`](crate::state::STOP_RESUMES) and the
    /// subagents' counters under it).
    ///
    /// A store that fails fails closed for the cap: the agent stops, with
    /// a [`Diagnostic::SessionStore`](crate::Diagnostic::SessionStore)
    /// (see [`HookStack::stop`]).
    #[must_use]
    pub fn with_session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.session_store = Some(store);
        self
    }

    /// Whether a hook config in the stack has a `scope` or `once` hook:
    /// with a session store, every event then loads the session's scopes
    /// and claims from it (docs/config.md's *Scoped and one-shot hooks*).
    pub fn has_scoped_hooks(&self) -> bool {
        self.marked
    }

    /// The store set by [`HookStack::with_session_store`], if any.
    pub fn session_store(&self) -> Option<&Arc<dyn SessionStore>> {
        self.session_store.as_ref()
    }

    /// The stop-resume cap per user turn (see [`HookStack::with_stop_cap`]).
    pub fn stop_cap(&self) -> u32 {
        self.stop_cap.unwrap_or_else(|| {
            self.entries
                .iter()
                .filter_map(|e| e.hook.config_plan())
                .map(|plan| plan.limits.max_stop_resumes_per_turn)
                .min()
                .unwrap_or(hooks_plan::Limits::DEFAULT.max_stop_resumes_per_turn)
        })
    }

    /// Appends `hook` under `id` and returns the stack, for chaining: after
    /// every hook of its layer or a lower one, before those of a higher
    /// layer (see the type's docs).
    ///
    /// If `hook` is a stack ([`AgentHook::as_stack`] returns it, which
    /// includes `Arc<HookStack>` and `Box<HookStack>`), its hooks are appended
    /// instead, in order, under their own ids, and `id` is not used.
    pub fn push(&mut self, id: impl Into<HookId>, hook: impl AgentHook + 'static) -> &mut Self {
        if let Some(stack) = hook.as_stack() {
            self.append_stack(stack);
            return self;
        }
        self.marked |= hook
            .config_plan()
            .is_some_and(crate::state::marks::plan_is_marked);
        self.insert(Entry::new(id.into(), Arc::new(hook)));
        self
    }

    /// Inserts `entry` after every hook of its layer or a lower one: the
    /// stack runs from the lowest layer to the highest, hooks of one layer
    /// in the order they were pushed.
    fn insert(&mut self, entry: Entry) {
        let at = self.entries.partition_point(|e| e.rank <= entry.rank);
        self.entries.insert(at, entry);
    }

    /// Appends the hooks of `stack`, keeping the smaller explicit stop cap.
    fn append_stack(&mut self, stack: &HookStack) {
        for entry in &stack.entries {
            self.insert(entry.clone());
        }
        self.marked |= stack.marked;
        if let Some(cap) = stack.stop_cap {
            self.stop_cap = Some(self.stop_cap.map_or(cap, |own| own.min(cap)));
        }
        if self.session_store.is_none() {
            self.session_store.clone_from(&stack.session_store);
        }
    }

    /// Like [`HookStack::push`], for a hook already shared behind an `Arc`.
    pub fn push_shared(&mut self, id: impl Into<HookId>, hook: Arc<dyn AgentHook>) -> &mut Self {
        if let Some(stack) = hook.as_stack() {
            self.append_stack(stack);
            return self;
        }
        self.marked |= hook
            .config_plan()
            .is_some_and(crate::state::marks::plan_is_marked);
        self.insert(Entry::new(id.into(), hook));
        self
    }

    /// Like [`HookStack::push`], but refuses a hook config that defines a
    /// hook id one already in the stack defines (checked for every hook
    /// that has a [`config_plan`](AgentHook::config_plan): dispatch tables
    /// and `hooks!` types, also inside a pushed stack). Records, reports and
    /// provenance name hooks by id, so two configs sharing one would be
    /// told apart by nothing. Nothing is pushed on error.
    ///
    /// # Errors
    ///
    /// [`DuplicateHookId`] naming the id and both configs' sources.
    pub fn try_push(
        &mut self,
        id: impl Into<HookId>,
        hook: impl AgentHook + 'static,
    ) -> Result<&mut Self, DuplicateHookId> {
        let incoming: Vec<&hooks_plan::Plan> = match hook.as_stack() {
            Some(stack) => stack.plans().collect(),
            None => hook.config_plan().into_iter().collect(),
        };
        for plan in incoming {
            for rule in plan.rules.iter() {
                if let Some(first) = self
                    .plans()
                    .find(|p| p.rules.iter().any(|r| r.id == rule.id))
                {
                    return Err(DuplicateHookId {
                        id: rule.id.to_string(),
                        first: first.source.to_string(),
                        second: plan.source.to_string(),
                    });
                }
            }
        }
        Ok(self.push(id, hook))
    }

    /// Builder form of [`HookStack::try_push`].
    ///
    /// # Errors
    ///
    /// As [`HookStack::try_push`].
    pub fn try_with(
        mut self,
        id: impl Into<HookId>,
        hook: impl AgentHook + 'static,
    ) -> Result<Self, DuplicateHookId> {
        self.try_push(id, hook)?;
        Ok(self)
    }

    /// The config plans of the stack's hooks that have one, in order.
    fn plans(&self) -> impl Iterator<Item = &hooks_plan::Plan> + '_ {
        self.entries.iter().filter_map(|e| e.hook.config_plan())
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
        let span = telemetry::fold_span(event.kind());
        self.fold_in_span(ctx, event).instrument(span).await
    }

    /// [`HookStack::fold`] inside its span.
    /// With a session store and a scoped or `once` rule, the session's
    /// marks are loaded from the store first and what the event changed is
    /// written back after (`state/marks.rs`). A store that fails adds a
    /// [`Diagnostic::SessionStore`](crate::Diagnostic::SessionStore): on a
    /// gate (`before_tool`, `permission_request`, `before_model_select`)
    /// the event is refused without running the hooks (a `Skip`, fail
    /// closed); elsewhere the run's own marks are used.
    async fn fold_in_span(&self, ctx: &HookContext, event: StepEvent<'_>) -> StackOutcome {
        let (synced, mut failed) = match &self.session_store {
            Some(store) if self.marked => {
                match Synced::load(store, self.plans(), ctx, &event).await {
                    Ok(synced) => (Some(synced), None),
                    Err(error) => (None, Some(error)),
                }
            }
            _ => (None, None),
        };
        // A gate cannot tell which scoped or one-shot hooks hold without
        // the store: it fails closed, as the stop-resume cap does.
        let gate = event.kind().default_failure_policy() == hooks_plan::FailurePolicy::Block;
        let closed = failed.is_some() && gate;
        let mut fold = Fold::new(event);
        if !closed {
            let _ = self.fold_hooks(ctx, &mut fold).await;
        }
        if let Some(synced) = synced {
            failed = synced.finish(ctx).await.err();
        }
        // Finished after the last await: the future keeps the fold (large)
        // and never the outcome (as large) beside it.
        let mut outcome = fold.finish();
        if let Some(error) = failed {
            let done = if closed {
                "refused without running the hooks (fail closed)"
            } else {
                "this process's own were used"
            };
            let message = format!(
                "cannot keep the scopes and one-shot hooks of session `{}`: {error}; {done}",
                ctx.session_id()
            );
            if closed {
                outcome.decision = Some(crate::Flow::Skip {
                    reason: message.clone().into(),
                });
            }
            outcome
                .diagnostics
                .push(crate::Diagnostic::SessionStore { message });
        }
        outcome
    }

    /// Consults the hooks in order on `fold` until one stops it; after a
    /// stop, the hooks of each higher layer still get their say
    /// ([`Fold::yield_to_higher_layer`]).
    async fn fold_hooks(&self, ctx: &HookContext, fold: &mut Fold<'_>) -> ControlFlow<()> {
        let kind = fold.phase();
        // The rank of the layer whose hook stopped the fold, if one did.
        let mut stopped_in: Option<u16> = None;
        for entry in &self.entries {
            if let Some(rank) = stopped_in {
                if entry.rank <= rank {
                    continue;
                }
                if !fold.yield_to_higher_layer() {
                    return ControlFlow::Break(());
                }
                stopped_in = None;
            }
            if entry.hook.observes(kind) && consult(entry, ctx, fold).await.is_break() {
                stopped_in = Some(entry.rank);
            }
        }
        fold.end_yield();
        if stopped_in.is_some() || fold.is_stopped() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

/// Consults the hook of `entry` on `fold` ([`AgentHook::fold_into`]): a
/// hook that folds its parts itself (a stack, a table) applies them; a
/// flow (the default) is applied here under the entry's id, with its report
/// and its telemetry span (hooks that fold their parts make their own).
async fn consult(entry: &Entry, ctx: &HookContext, fold: &mut Fold<'_>) -> ControlFlow<()> {
    let start = Instant::now();
    let kind = fold.phase();
    let (flow, span) = match entry.hook.fold_into(ctx, fold).0 {
        Step::Ready(step) => return step,
        Step::Pending(step) => return step.await,
        Step::Flow(answer) => {
            let span = telemetry::hook_span(("", ""), kind, entry.id.as_str(), "rust");
            (answer.instrument(span.clone()).await, span)
        }
    };
    let mut report = HookReport::new(entry.id.clone());
    report.elapsed = start.elapsed();
    telemetry::finish(&span, &report, flow.kind(), None);
    if flow.is_continue() {
        // Changed nothing: not reported (see `HookReport`), so such stacks
        // stay allocation-free.
        fold.apply(&entry.id, flow)
    } else {
        fold.apply_reported(report, flow)
    }
}

impl AgentHook for HookStack {
    /// Folds the stack and answers with the net flow
    /// ([`StackOutcome::net_flow`]). Boxes one future per call; pushing the
    /// stack into another stack avoids that (it flattens).
    fn on_event<'a>(&'a self, ctx: &'a HookContext, event: StepEvent<'a>) -> HookFuture<'a> {
        HookFuture::boxed(async move { self.fold(ctx, event).await.net_flow() })
    }

    /// Consults the stack's hooks in order on the caller's `fold` (one fold
    /// passed down; see the type's docs, *Nesting*). Boxes one future per
    /// call; pushing the stack into another stack avoids that (it flattens).
    fn fold_into<'a>(&'a self, ctx: &'a HookContext, fold: &'a mut Fold<'_>) -> FoldStep<'a> {
        let span = telemetry::fold_span(fold.phase());
        FoldStep::boxed(self.fold_hooks(ctx, fold).instrument(span))
    }

    fn observes(&self, kind: StepEventKind) -> bool {
        self.entries.iter().any(|entry| entry.hook.observes(kind))
    }

    /// Whether a hook that observes `kind` reads its payload.
    fn reads_payload(&self, kind: StepEventKind) -> bool {
        self.entries
            .iter()
            .any(|entry| entry.hook.observes(kind) && entry.hook.reads_payload(kind))
    }

    /// The flow when each hook that observes the event's phase answers at
    /// once ([`AgentHook::decide_now`]): `Continue` when all continue; a
    /// stopping flow when no later hook of a higher layer would still have
    /// its say ([`Fold::yield_to_higher_layer`]); `None` otherwise, for a
    /// stack whose scoped or `once` rules go through a session store, and
    /// whenever a `tracing` subscriber enabling `info` is set (the fold opens its
    /// span at that level).
    #[inline]
    fn decide_now(&self, event: &StepEvent<'_>) -> Option<Flow> {
        if (self.marked && self.session_store.is_some()) || telemetry::subscribed() {
            return None;
        }
        let kind = event.kind();
        let mut observing = self.entries.iter().filter(|e| e.hook.observes(kind));
        while let Some(entry) = observing.next() {
            // Checked in place: a flow is large, and moved only once.
            let answer = entry.hook.decide_now(event);
            let flow = answer.as_ref()?;
            if flow.is_continue() {
                // `Continue` owns nothing: no call to `Flow`'s drop glue.
                std::mem::forget(answer);
                continue;
            }
            let stops = flow.stops() && flow.kind().honoured_on(kind);
            if !stops || observing.any(|later| later.rank > entry.rank) {
                return None;
            }
            return answer;
        }
        Some(Flow::Continue)
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
