//! Dispatching an event through a table: the table's part of a fold, the
//! `run`, `http` and `policy` rules it awaits, and [`Dispatcher`].

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Instant;

use hooks_plan::Phase;

use super::background;
use super::group;
use super::marks::Marked;
use super::pass::{self, OnRun, Pass, Settled, declarative_report, in_process_flow};
use super::table::Table;
use crate::core::context::HookContext;
use crate::core::event::{StepEvent, StepEventKind};
use crate::core::flow::Flow;
use crate::core::fold::Fold;
use crate::core::hook::{AgentHook, FoldStep, HookFuture};
use crate::core::outcome::StackOutcome;
use crate::shell::exec::Executor;
use crate::shell::invoke::{HookLimits, ShellRuntime};

impl Table {
    /// The table's part of `fold` (what [`AgentHook::fold_into`] returns
    /// for a table): the matching rules' flows applied to `fold` in
    /// declared order, like the hooks of a [`HookStack`](crate::HookStack):
    /// a rule sees the arguments, result or prompt as rewritten by the
    /// hooks and rules before it. Ready (no boxed future) unless a matching
    /// rule must be awaited through `shell` ([`Table::fold`] says how those
    /// run). With no rule for the event's phase this is one check; when no
    /// rule matches, one pass of the phase's index, and `fold` is not
    /// touched.
    ///
    /// # Cancel safety
    ///
    /// As [`Table::fold`]; a dropped step leaves `fold` with the rules
    /// applied before it was dropped.
    pub fn fold_into<'a>(
        &'a self,
        shell: Option<&'a Arc<ShellRuntime>>,
        ctx: &'a HookContext,
        fold: &'a mut Fold<'_>,
    ) -> FoldStep<'a> {
        self.fold_part(shell, OnRun::bound(shell), ctx, fold)
    }

    /// [`Table::fold_into`] with `on_run` saying what a matching `run`,
    /// `http` or `policy` rule does: first the background context waiting
    /// for the run ([`background::deliver`]), then the rules; on an event
    /// that ends a run with background hooks, their end
    /// ([`ShellRuntime::end_run`]) after the rules.
    fn fold_part<'a>(
        &'a self,
        shell: Option<&'a Arc<ShellRuntime>>,
        on_run: OnRun<'a>,
        ctx: &'a HookContext,
        fold: &'a mut Fold<'_>,
    ) -> FoldStep<'a> {
        background::deliver(shell, ctx, fold);
        if let Some(rt) = background::ending(shell, fold.phase()) {
            return FoldStep::boxed(async move {
                let step = self.part_awaited(shell, on_run, ctx, fold).await;
                rt.end_run(ctx.run_id()).await;
                step
            });
        }
        self.part(shell, on_run, ctx, fold)
    }

    /// The rules' part of [`Table::fold_part`].
    fn part<'a>(
        &'a self,
        shell: Option<&'a Arc<ShellRuntime>>,
        on_run: OnRun<'a>,
        ctx: &'a HookContext,
        fold: &'a mut Fold<'_>,
    ) -> FoldStep<'a> {
        if self.is_marked() {
            return FoldStep::boxed(self.part_awaited(shell, on_run, ctx, fold));
        }
        let ControlFlow::Continue(resolved) = self.contain(shell, Some(ctx), fold) else {
            return FoldStep::ready(ControlFlow::Break(()));
        };
        let Some((pass, first)) = Pass::start(self, shell, Some(ctx), on_run, fold, resolved, None)
        else {
            return FoldStep::ready(ControlFlow::Continue(()));
        };
        match pass.settle(fold, first) {
            Settled::Done(step) => FoldStep::ready(step),
            Settled::Await(pass, i) => FoldStep::boxed(pass.run(ctx, fold, i)),
        }
    }

    /// [`Table::fold_into`] as one future.
    async fn fold_awaited(
        &self,
        shell: Option<&Arc<ShellRuntime>>,
        ctx: &HookContext,
        fold: &mut Fold<'_>,
    ) -> ControlFlow<()> {
        background::deliver(shell, ctx, fold);
        let step = self
            .part_awaited(shell, OnRun::bound(shell), ctx, fold)
            .await;
        if let Some(rt) = background::ending(shell, fold.phase()) {
            rt.end_run(ctx.run_id()).await;
        }
        step
    }

    /// [`Table::part`] as one future. A table with scoped or `once` rules
    /// first enters the event in the session's marks (scopes, claims) and
    /// applies the event's change to them once its rules ran
    /// (`dispatch/marks.rs`).
    async fn part_awaited(
        &self,
        shell: Option<&Arc<ShellRuntime>>,
        on_run: OnRun<'_>,
        ctx: &HookContext,
        fold: &mut Fold<'_>,
    ) -> ControlFlow<()> {
        let marked = self
            .is_marked()
            .then(|| Marked::enter(self, ctx, &fold.event()));
        let step = self
            .rules_awaited(shell, on_run, ctx, fold, marked.as_ref())
            .await;
        if let Some(marked) = &marked {
            marked.leave(ctx);
        }
        step
    }

    /// The containment check and the rules of [`Table::part_awaited`].
    async fn rules_awaited(
        &self,
        shell: Option<&Arc<ShellRuntime>>,
        on_run: OnRun<'_>,
        ctx: &HookContext,
        fold: &mut Fold<'_>,
        marked: Option<&Marked>,
    ) -> ControlFlow<()> {
        let ControlFlow::Continue(resolved) = self.contain(shell, Some(ctx), fold) else {
            return ControlFlow::Break(());
        };
        let Some((pass, first)) =
            Pass::start(self, shell, Some(ctx), on_run, fold, resolved, marked)
        else {
            return ControlFlow::Continue(());
        };
        match pass.settle(fold, first) {
            Settled::Done(step) => step,
            Settled::Await(pass, i) => pass.run(ctx, fold, i).await,
        }
    }

    /// Folds `event` through the table without awaiting anything, or `None`
    /// when a matching `run`, `http` or `policy` rule must be run through
    /// `shell`.
    ///
    /// The same fold as [`Table::fold`]. With a record writer on `shell`,
    /// each consulted declarative rule writes a record. Allocation-free
    /// when no rule matches, and for matched declarative rules when no
    /// record writer is bound (module docs, "Allocation").
    pub fn fold_ready(
        &self,
        shell: Option<&Arc<ShellRuntime>>,
        event: StepEvent<'_>,
    ) -> Option<StackOutcome> {
        let mut fold = Fold::new(event);
        let ControlFlow::Continue(resolved) = self.contain(shell, None, &mut fold) else {
            return Some(fold.finish());
        };
        if let Some((pass, first)) = Pass::start(
            self,
            shell,
            None,
            OnRun::bound(shell),
            &fold,
            resolved,
            None,
        ) && let Settled::Await(..) = pass.settle(&mut fold, first)
        {
            // Nothing is recorded: the pass was not finished.
            return None;
        }
        Some(fold.finish())
    }

    /// Folds `event` through the table, running matching `run`, `http` and
    /// `policy` rules through `shell` (or, without one, treating them as
    /// failed under their failure policy).
    ///
    /// On a mutating phase ([`Phase::is_mutating`](hooks_plan::Phase::is_mutating))
    /// rules run one after another, each seeing the value rewritten by the
    /// rules before it, and a `Skip` / `Terminate` stops the rest; except
    /// that matching rules declared next to each other with
    /// `parallel: true` (a parallel group) start at once and their flows
    /// are applied in declared order, with the outcome and records of
    /// running them one by one: rules after one whose flow stops the fold
    /// are killed and leave no record; a `parallel` rule's rewrite answer
    /// is an `invalid_output` failure (docs/config.md's *Parallel hooks*). On an
    /// observe-only phase (`run_start`, deltas, `after_completion`,
    /// `after_reasoning`, `after_assistant`, `stream_finish`, `run_end`,
    /// `run_error`) the matching `run` rules run concurrently
    /// ([`run_shell_hooks`](crate::run_shell_hooks); at most the runtime's
    /// [`max_concurrent_hooks_per_event`](crate::HookLimits::max_concurrent_hooks_per_event)
    /// at once, the rest queued with their timeouts running) and every flow is then folded in declared order,
    /// so the result does not depend on which process finished first.
    ///
    /// # Records
    ///
    /// `run` rules write their own records (see [`ShellHook::invoke`](crate::ShellHook::invoke)). When
    /// `shell` has a record writer, each consulted declarative rule writes
    /// one too, once the table's part of the fold ends: status `decision`
    /// with the flow's kind and, for `block` / `terminate`, its reason as
    /// the message (redacted with the runtime's secrets); `audited` with the
    /// would-be kind in `mode: audit`; `ok` when its action changed nothing;
    /// `elapsed_ms` 0. An `inject` rule writes a `context_injection` record
    /// too (`injected`, or `audited` in `mode: audit`), as a shell hook's
    /// injection does. A failed write becomes a [`Diagnostic::Hook`](crate::Diagnostic::Hook)
    /// of the fold and of the rule's report.
    ///
    /// # Reports
    ///
    /// Each consulted rule has a [`HookReport`](crate::HookReport) in the outcome, in declared
    /// order: a declarative rule with its verdict and evaluation time, a
    /// `run` rule with its invocation's verdict, failure, elapsed time,
    /// message and diagnostics (see [`ShellHook::invoke`](crate::ShellHook::invoke)).
    ///
    /// # Cancel safety
    ///
    /// Dropping the future stops the fold; a running shell rule's process
    /// group is killed (see [`ShellHook::invoke`](crate::ShellHook::invoke)); nothing is applied and no
    /// declarative rule's record is written.
    pub async fn fold(
        &self,
        shell: Option<&Arc<ShellRuntime>>,
        ctx: &HookContext,
        event: StepEvent<'_>,
    ) -> StackOutcome {
        let mut fold = Fold::new(event);
        let _ = self.fold_awaited(shell, ctx, &mut fold).await;
        fold.finish()
    }

    /// The net flow of `event` when no fold is needed
    /// ([`AgentHook::decide_now`]): without a bound runtime (`shell`), a
    /// scoped or `once` rule, or a containment check on the event's phase,
    /// `Continue` when no rule matches and the first matching rule's flow
    /// when it blocks or terminates in `mode: enforce` (and no `tracing`
    /// subscriber would get its span); `None` otherwise.
    #[inline]
    pub(crate) fn decide_now(
        &self,
        shell: Option<&Arc<ShellRuntime>>,
        event: &StepEvent<'_>,
    ) -> Option<Flow> {
        if shell.is_some() || self.is_marked() || self.checks_containment_on(event.kind()) {
            return None;
        }
        pass::quick(self, event)
    }

    /// Answers `event` as one hook: the fold's net flow
    /// ([`StackOutcome::net_flow`]). Ready (no boxed future) unless a
    /// matching `run` rule must be awaited; with no rule for the event's
    /// phase this is one check, and when no rule matches, one pass of the
    /// phase's index (no fold is built).
    pub fn dispatch<'a>(
        &'a self,
        shell: Option<&'a Arc<ShellRuntime>>,
        ctx: &'a HookContext,
        event: StepEvent<'a>,
    ) -> HookFuture<'a> {
        if let Some(flow) = self.decide_now(shell, &event) {
            return HookFuture::ready(flow);
        }
        let mut fold = Fold::new(event);
        let delivered = background::deliver(shell, ctx, &mut fold);
        if let Some(rt) = background::ending(shell, event.kind()) {
            return HookFuture::boxed(async move {
                let on_run = OnRun::bound(shell);
                let _ = self.part_awaited(shell, on_run, ctx, &mut fold).await;
                rt.end_run(ctx.run_id()).await;
                fold.take_net_flow()
            });
        }
        if self.is_marked() {
            return HookFuture::boxed(async move {
                let on_run = OnRun::bound(shell);
                let _ = self.part_awaited(shell, on_run, ctx, &mut fold).await;
                fold.take_net_flow()
            });
        }
        let ControlFlow::Continue(resolved) = self.contain(shell, Some(ctx), &mut fold) else {
            return HookFuture::ready(fold.take_net_flow());
        };
        let Some((pass, first)) = Pass::start(
            self,
            shell,
            Some(ctx),
            OnRun::bound(shell),
            &fold,
            resolved,
            None,
        ) else {
            return match delivered {
                true => HookFuture::ready(fold.take_net_flow()),
                false => HookFuture::cont(),
            };
        };
        match pass.settle(&mut fold, first) {
            Settled::Done(_) => HookFuture::ready(fold.take_net_flow()),
            Settled::Await(pass, i) => HookFuture::boxed(async move {
                let _ = pass.run(ctx, &mut fold, i).await;
                fold.take_net_flow()
            }),
        }
    }
}

impl Pass<'_> {
    /// The rest of the pass from rule `i`, a rule to await: `run`, `http`
    /// and `policy` rules go through the shell hook pipeline on the bound
    /// runtime, one after another (or a parallel group at once) on a
    /// mutating phase, concurrently on an observe-only one
    /// ([`Table::fold`]). Ends the pass.
    pub(super) async fn run(
        mut self,
        ctx: &HookContext,
        fold: &mut Fold<'_>,
        i: u32,
    ) -> ControlFlow<()> {
        let OnRun::Await(rt) = self.on_run else {
            unreachable!("only `OnRun::Await` hands a rule over");
        };
        let step = if fold.phase().is_mutating() {
            self.run_serially(rt, ctx, fold, i).await
        } else {
            self.run_concurrently(rt, ctx, fold, i).await
        };
        self.finish(fold, step)
    }

    /// [`Pass::run`] on a mutating phase: rule by rule, a parallel group
    /// (`group.rs`) as one step.
    async fn run_serially(
        &mut self,
        rt: &Arc<ShellRuntime>,
        ctx: &HookContext,
        fold: &mut Fold<'_>,
        mut i: u32,
    ) -> ControlFlow<()> {
        loop {
            let step = match self.in_process(fold, i) {
                Some(step) => step,
                // A rule to await that begins a parallel group (declarative
                // `parallel` rules before it were applied in their turn).
                None if group::joins(&self.table.rules()[i as usize]) => {
                    // Boxed: the group's state stays out of this future.
                    let (step, after) = Box::pin(self.run_group(rt, ctx, fold, i)).await;
                    match after {
                        Some(next) => {
                            i = next;
                            continue;
                        }
                        None => return step,
                    }
                }
                None => {
                    let current = fold.event();
                    // The paths dispatch resolved, while the arguments
                    // are the ones it resolved.
                    let resolved = self
                        .resolved
                        .as_ref()
                        .filter(|_| fold.rewrites() == self.rewrites);
                    // The hook applies the mode itself (and records it).
                    match self
                        .table
                        .invoke_rule(i as usize, rt, ctx, current, resolved)
                        .await
                    {
                        Some(invocation) => invocation.fold_into(fold),
                        None => ControlFlow::Continue(()),
                    }
                }
            };
            if step.is_break() {
                return step;
            }
            match self.next(fold) {
                Some(next) => i = next,
                None => return step,
            }
        }
    }

    /// [`Pass::run`] on an observe-only phase, from rule `first`: every
    /// matching rule is judged on the same event (these phases carry
    /// nothing to rewrite), `run` rules run concurrently, flows fold in
    /// declared order.
    async fn run_concurrently(
        &mut self,
        rt: &Arc<ShellRuntime>,
        ctx: &HookContext,
        fold: &mut Fold<'_>,
        first: u32,
    ) -> ControlFlow<()> {
        let event = fold.unchained_event();
        let table = self.table;
        let judged = self.facts(&event);
        let matched: Vec<usize> = std::iter::once(first)
            .chain(std::iter::from_fn(|| self.next_claimed(&judged)))
            .map(|i| i as usize)
            .collect();
        let mut ran = table
            .invoke_rules(&matched, rt, ctx, event)
            .await
            .into_iter();
        for i in matched {
            let rule = &table.rules()[i];
            let id = &table.hook_ids()[i];
            let start = Instant::now();
            if rule.background && table.hook_spec(i).is_some() {
                // Started in its turn, not awaited; not once the fold
                // stopped.
                if !fold.is_stopped() {
                    let (flow, report) = self.start_background(rt, ctx, i as u32, &event);
                    let _ = self.apply(fold, rule, report, flow);
                }
                continue;
            }
            let Some(flow) = in_process_flow(rule, &event) else {
                if let Some(invocation) = ran.next() {
                    // Break or not, keep draining `ran` in order.
                    let _ = invocation.fold_into(fold);
                }
                continue;
            };
            if fold.is_stopped() {
                // Not consulted: a rule before it stopped the fold.
                continue;
            }
            self.records.add(rule, id, &event, &flow);
            let report = declarative_report(rule, id, &flow, start);
            // Keep draining `ran` in order; later flows are reported as
            // ignored.
            let _ = self.apply(fold, rule, report, flow);
        }
        if fold.is_stopped() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

/// A table without a shell runtime: `run` rules count as failed (see
/// [`Table::fold`]). Bind a runtime with [`Dispatcher`].
impl AgentHook for Table {
    fn on_event<'a>(&'a self, ctx: &'a HookContext, event: StepEvent<'a>) -> HookFuture<'a> {
        self.dispatch(None, ctx, event)
    }

    /// The rules' flows, applied to the caller's fold ([`Table::fold_into`]).
    fn fold_into<'a>(&'a self, ctx: &'a HookContext, fold: &'a mut Fold<'_>) -> FoldStep<'a> {
        Table::fold_into(self, None, ctx, fold)
    }

    /// See [`AgentHook::decide_now`]: a table without a runtime.
    fn decide_now(&self, event: &StepEvent<'_>) -> Option<Flow> {
        Table::decide_now(self, None, event)
    }

    /// The phases with rules or a containment check (`before_tool` /
    /// `permission_request`), and those that change the session's scopes
    /// when a rule is scoped or `once`.
    fn observes(&self, kind: StepEventKind) -> bool {
        self.has_rules_for(kind)
            || self.checks_containment_on(kind)
            || (self.is_marked() && crate::state::marks::is_transition(kind))
    }

    /// The phases whose rules read the payload
    /// ([`Plan::reads_payload`](hooks_plan::Plan::reads_payload)), those
    /// with a containment check (it reads the arguments), and the scope
    /// transitions of a table with scoped or `once` rules (a skill is
    /// named by the `Skill` tool's arguments).
    fn reads_payload(&self, kind: StepEventKind) -> bool {
        self.reads_payload_of(kind)
            || self.checks_containment_on(kind)
            || (self.is_marked() && crate::state::marks::is_transition(kind))
    }

    fn config_plan(&self) -> Option<&hooks_plan::Plan> {
        Some(self.plan())
    }
}

impl Table {
    /// The config's `limits` as the shell runtime's [`HookLimits`] (the
    /// conversion `HookLimits::from(&Limits)` documents).
    pub fn hook_limits(&self) -> HookLimits {
        HookLimits::from(self.limits())
    }

    /// A shell runtime over `executor` with this config's limits
    /// ([`Table::hook_limits`]); add records, secrets and a session
    /// directory with its builder methods, share it with `Arc`, and bind it
    /// with [`Dispatcher::with_shell`] (or the generated type's
    /// `with_shell`).
    pub fn shell_runtime(&self, executor: Executor) -> ShellRuntime {
        ShellRuntime::new(executor).with_limits(self.hook_limits())
    }
}

/// Where a [`Dispatcher`]'s table lives.
#[derive(Debug, Clone)]
pub enum TableRef {
    /// A `static` table generated by `hooks!`.
    Static(&'static Table),
    /// A table built at run time ([`Table::load`]).
    Shared(Arc<Table>),
}

impl std::ops::Deref for TableRef {
    type Target = Table;
    fn deref(&self) -> &Table {
        match self {
            TableRef::Static(t) => t,
            TableRef::Shared(t) => t,
        }
    }
}

/// A table bound to an optional shell runtime, as one [`AgentHook`].
///
/// The type `hooks!` generates wraps one. Push it into a
/// [`HookStack`](crate::HookStack) under any id; the table applies its
/// rules' flows (declared order, the stack's fold rules) to the stack's
/// fold ([`AgentHook::fold_into`]); called alone, [`AgentHook::on_event`]
/// answers with the net flow.
#[derive(Debug, Clone)]
pub struct Dispatcher {
    table: TableRef,
    shell: Option<Arc<ShellRuntime>>,
    dry_run: bool,
}

impl Dispatcher {
    /// A dispatcher without a shell runtime (`run` rules count as failed).
    pub const fn new(table: TableRef) -> Dispatcher {
        Dispatcher {
            table,
            shell: None,
            dry_run: false,
        }
    }

    /// A dispatcher over a static table, without a shell runtime.
    pub const fn from_static(table: &'static Table) -> Dispatcher {
        Dispatcher::new(TableRef::Static(table))
    }

    /// Binds `shell`: matching `run` rules execute through it, under its
    /// limits (build it with [`Table::shell_runtime`] to get the config's).
    #[must_use]
    pub fn with_shell(mut self, shell: Arc<ShellRuntime>) -> Dispatcher {
        self.shell = Some(shell);
        self
    }

    /// Makes this a dry run: matching `run` rules are never executed; each
    /// answers `Continue` and, when the bound shell runtime has a record
    /// writer, writes a record with status `refused`, no decision and the
    /// message `not run (dry run)`. Declarative rules fold and record as
    /// usual, so the outcome says what the config's in-process rules decide
    /// and the records say which rules an event consulted. Nothing is
    /// awaited: every answer is ready. For replaying recorded events
    /// without side effects (the `agent-hooks replay` command without
    /// `--exec`).
    #[must_use]
    pub fn dry_run(mut self) -> Dispatcher {
        self.dry_run = true;
        self
    }

    /// Whether this is a dry run ([`Dispatcher::dry_run`]).
    pub fn is_dry_run(&self) -> bool {
        self.dry_run
    }

    /// The fold of a dry run ([`Dispatcher::dry_run`]).
    fn fold_dry(&self, event: StepEvent<'_>) -> StackOutcome {
        let mut fold = Fold::new(event);
        let ControlFlow::Continue(resolved) =
            self.table.contain(self.shell.as_ref(), None, &mut fold)
        else {
            return fold.finish();
        };
        if let Some((pass, first)) = Pass::start(
            &self.table,
            self.shell.as_ref(),
            None,
            OnRun::NotRun,
            &fold,
            resolved,
            None,
        ) {
            // Nothing is awaited in a dry run.
            let _ = pass.settle(&mut fold, first);
        }
        fold.finish()
    }

    /// The table.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The bound shell runtime, if any.
    pub fn shell(&self) -> Option<&Arc<ShellRuntime>> {
        self.shell.as_ref()
    }

    /// Whether the bound runtime's background hooks need an event of
    /// `kind`: to deliver their context or to end their run (two loads).
    fn background_wants(&self, kind: StepEventKind) -> bool {
        !self.dry_run
            && self
                .shell
                .as_ref()
                .is_some_and(|shell| shell.background.wants(kind))
    }

    /// The bound shell runtime when `kind` ends the run (`run_end`,
    /// `run_error`) and the runtime has worker pools open.
    fn workers_to_shut_down(&self, kind: StepEventKind) -> Option<&Arc<ShellRuntime>> {
        let ends = matches!(kind, Phase::RunEnd | Phase::RunError);
        self.shell
            .as_ref()
            .filter(|shell| ends && shell.open_workers() > 0)
    }

    /// Folds `event` like [`Table::fold`] with the bound runtime, keeping
    /// everything (provenance, rewrites before a skip, context beside a
    /// rewritten result) that the net flow of [`AgentHook::on_event`] drops.
    ///
    /// # Cancel safety
    ///
    /// As [`Table::fold`].
    pub async fn fold(&self, ctx: &HookContext, event: StepEvent<'_>) -> StackOutcome {
        if self.dry_run {
            return self.fold_dry(event);
        }
        self.table.fold(self.shell.as_ref(), ctx, event).await
    }
}

impl AgentHook for Dispatcher {
    fn on_event<'a>(&'a self, ctx: &'a HookContext, event: StepEvent<'a>) -> HookFuture<'a> {
        if self.dry_run {
            return HookFuture::ready(self.fold_dry(event).net_flow());
        }
        self.table.dispatch(self.shell.as_ref(), ctx, event)
    }

    /// The rules' flows, applied to the caller's fold
    /// ([`Table::fold_into`] with the bound runtime; a dry run's rules
    /// answer in process): a stack keeps everything (provenance, rewrites
    /// before a skip, context beside a rewritten result) that the net flow
    /// of `on_event` drops.
    fn fold_into<'a>(&'a self, ctx: &'a HookContext, fold: &'a mut Fold<'_>) -> FoldStep<'a> {
        let shell = self.shell.as_ref();
        if self.dry_run {
            return self.table.fold_part(shell, OnRun::NotRun, ctx, fold);
        }
        if let Some(shell) = self.workers_to_shut_down(fold.phase()) {
            // The run is over: its workers shut down after the last hooks.
            return FoldStep::boxed(async move {
                let step = self.table.fold_awaited(Some(shell), ctx, fold).await;
                shell.shutdown_workers().await;
                step
            });
        }
        self.table.fold_part(shell, OnRun::bound(shell), ctx, fold)
    }

    /// Also `run_end` and `run_error` while the bound shell runtime has
    /// workers open, to shut them down, or background hooks running, to
    /// end them; and phases that honour `inject_context` while background
    /// context waits for delivery.
    fn observes(&self, kind: StepEventKind) -> bool {
        AgentHook::observes(self.table(), kind)
            || self.workers_to_shut_down(kind).is_some()
            || self.background_wants(kind)
    }

    /// As the table's ([`AgentHook::decide_now`]) when no runtime is bound
    /// and this is not a dry run; `None` otherwise (rules write records).
    fn decide_now(&self, event: &StepEvent<'_>) -> Option<Flow> {
        if self.dry_run {
            return None;
        }
        self.table.decide_now(self.shell.as_ref(), event)
    }

    /// As the table's ([`Table`]'s `reads_payload`): shutting workers
    /// down and delivering background context read no payload.
    fn reads_payload(&self, kind: StepEventKind) -> bool {
        AgentHook::reads_payload(self.table(), kind)
    }

    fn config_plan(&self) -> Option<&hooks_plan::Plan> {
        Some(self.table.plan())
    }
}
