//! Dispatching an event through a table: selection, the fold, shell rules.

use std::sync::Arc;
use std::time::Instant;

use hooks_schema::{Mode, Phase};

use hooks_schema::plan::{Cursor, Rule};

use super::action::RuleActions;
use super::eval::facts;
use super::table::Table;
use crate::SecretSet;
use crate::core::context::HookContext;
use crate::core::diagnostic::Diagnostic;
use crate::core::event::{StepEvent, StepEventKind};
use crate::core::flow::{Flow, FlowKind};
use crate::core::fold::Fold;
use crate::core::hook::{AgentHook, HookFuture, OutcomeFuture};
use crate::core::id::HookId;
use crate::core::outcome::StackOutcome;
use crate::core::report::FailureKind;
use crate::core::report::{HookFailure, HookReport, Verdict};
use crate::core::telemetry;
use crate::shell::activity::ActivityEvent;
use crate::shell::exec::Executor;
use crate::shell::invoke::{HookLimits, MESSAGE_MAX_CHARS, ShellRuntime};
use crate::shell::policy::apply_failure_policy;
use crate::shell::records::{HookRecord, Record, RecordStatus};
use crate::shell::redact::{redact_and_truncate, redact_sensitive_text};

impl Table {
    /// The enabled rules that match `event`, in declared order, each judged
    /// on the event as given (no chaining of rewrites). Only the rules the
    /// plan's index names as candidates are visited
    /// ([`Cursor`](hooks_schema::plan::Cursor)). Never allocates for phases
    /// of up to 1,024 enabled rules: this is the selection step of
    /// dispatch, usable to explain a decision.
    pub fn matching<'t, 'e>(
        &'t self,
        event: StepEvent<'e>,
    ) -> impl Iterator<Item = &'t Rule> + use<'t, 'e> {
        self.plan()
            .matching(facts(&event))
            .map(|i| &self.rules()[i as usize])
    }

    /// Folds `event` through the table without awaiting anything, or `None`
    /// when a matching `run` rule must be run through `shell`.
    ///
    /// Rules are consulted in declared order like the hooks of a
    /// [`HookStack`](crate::HookStack) (same [`Fold`]): a rule sees the
    /// arguments, result or prompt as rewritten by the rules before it.
    /// With a record writer on `shell`, each consulted declarative rule
    /// writes a record ([`Table::fold`]). Allocation-free when no rule
    /// matches, and for matched declarative rules when no record writer is
    /// bound (module docs, "Allocation").
    pub fn fold_ready(
        &self,
        shell: Option<&Arc<ShellRuntime>>,
        event: StepEvent<'_>,
    ) -> Option<StackOutcome> {
        let on_run = if shell.is_some() {
            OnRun::Await
        } else {
            OnRun::Unbound
        };
        self.fold_in_process(shell, event, on_run)
    }

    /// The in-process fold of [`Table::fold_ready`]; `on_run` says what a
    /// matching `run` rule does ([`OnRun`]).
    fn fold_in_process(
        &self,
        shell: Option<&Arc<ShellRuntime>>,
        event: StepEvent<'_>,
        on_run: OnRun,
    ) -> Option<StackOutcome> {
        let mut fold = Fold::new(event);
        let mut records = InProcessRecords::new(shell);
        let traced = telemetry::enabled();
        let mut traces = Vec::new();
        let mut cursor = Cursor::new(self.plan(), event.kind());
        while let Some(i) = cursor.next(&facts(&fold.event())) {
            let rule = &self.rules()[i as usize];
            let current = fold.event();
            let id = &self.hook_ids()[i as usize];
            let start = Instant::now();
            let (flow, report) = match (in_process_flow(rule, &current), on_run) {
                (Some(flow), _) => match self.rewrite_misfit(rule, &current, &flow) {
                    Some(detail) => misfit(rule, id, &current, &detail, &mut records),
                    None => {
                        records.add(rule, id, &current, &flow);
                        let report = declarative_report(&mut fold, rule, id, &flow, start);
                        (flow, report)
                    }
                },
                // Nothing was applied or recorded: `fold` starts over.
                (None, OnRun::Await) => return None,
                (None, OnRun::Unbound) => unbound(rule, id),
                (None, OnRun::NotRun) => {
                    records.add_not_run(rule, id, &current);
                    let mut report = HookReport::new(id.clone());
                    report.message = Some(NOT_RUN.into());
                    (Flow::Continue, report)
                }
            };
            if traced {
                // Emitted once the fold is known to stand: `None` above
                // means it starts over, and its rules would count twice.
                traces.push((i as usize, report.clone(), flow.kind()));
            }
            if fold.apply_reported(report, flow).is_break() {
                break;
            }
        }
        let rt = records.rt;
        records.write(&mut fold);
        for (i, report, flow) in &traces {
            self.trace_in_process(&self.rules()[*i], report, *flow, rt);
        }
        Some(fold.finish())
    }

    /// Folds `event` through the table, running matching `run` rules through
    /// `shell` (or, without one, treating them as failed under their failure
    /// policy).
    ///
    /// On a mutating phase ([`Phase::is_mutating`](hooks_schema::Phase::is_mutating))
    /// rules run one after another, each seeing the value rewritten by the
    /// rules before it, and a `Skip` / `Terminate` stops the rest. On an
    /// observe-only phase (`run_start`, deltas, `after_completion`,
    /// `after_reasoning`, `after_assistant`, `stream_finish`, `run_end`,
    /// `run_error`) the matching `run` rules run concurrently
    /// ([`run_shell_hooks`](crate::run_shell_hooks)) and every flow is then folded in declared order,
    /// so the result does not depend on which process finished first.
    ///
    /// # Records
    ///
    /// `run` rules write their own records (see [`ShellHook::invoke`](crate::ShellHook::invoke)). When
    /// `shell` has a record writer, each consulted declarative rule writes
    /// one too: status `decision` with the flow's kind and, for `block` /
    /// `terminate`, its reason as the message (redacted with the runtime's
    /// secrets); `audited` with the would-be kind in `mode: audit`; `ok`
    /// when its action changed nothing; `elapsed_ms` 0. A failed write
    /// becomes a [`Diagnostic::Hook`] of the fold and of the rule's report.
    ///
    /// # Reports
    ///
    /// Each consulted rule has a [`HookReport`] in the outcome, in declared
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
        if !event.kind().is_mutating()
            && let Some(rt) = shell
        {
            return self.fold_concurrently(rt, ctx, event).await;
        }
        let mut fold = Fold::new(event);
        let mut records = InProcessRecords::new(shell);
        let mut cursor = Cursor::new(self.plan(), event.kind());
        while let Some(i) = cursor.next(&facts(&fold.event())) {
            let rule = &self.rules()[i as usize];
            let current = fold.event();
            let id = &self.hook_ids()[i as usize];
            let start = Instant::now();
            let (flow, report) = match (in_process_flow(rule, &current), shell) {
                (Some(flow), _) => match self.rewrite_misfit(rule, &current, &flow) {
                    Some(detail) => misfit(rule, id, &current, &detail, &mut records),
                    None => {
                        records.add(rule, id, &current, &flow);
                        let report = declarative_report(&mut fold, rule, id, &flow, start);
                        (flow, report)
                    }
                },
                (None, Some(rt)) => {
                    // The hook applies the mode itself (and records it).
                    let Some(invocation) = self.invoke_rule(i as usize, rt, ctx, current).await
                    else {
                        continue;
                    };
                    if invocation.fold_into(&mut fold).is_break() {
                        break;
                    }
                    continue;
                }
                (None, None) => unbound(rule, id),
            };
            self.trace_in_process(rule, &report, flow.kind(), records.rt);
            if fold.apply_reported(report, flow).is_break() {
                break;
            }
        }
        records.write(&mut fold);
        fold.finish()
    }

    /// [`Table::fold`] on an observe-only phase: every matching rule is
    /// judged on the same event (these phases carry nothing to rewrite),
    /// `run` rules run concurrently, flows fold in declared order.
    async fn fold_concurrently(
        &self,
        rt: &Arc<ShellRuntime>,
        ctx: &HookContext,
        event: StepEvent<'_>,
    ) -> StackOutcome {
        let matched: Vec<usize> = self
            .plan()
            .matching(facts(&event))
            .map(|i| i as usize)
            .collect();
        let mut ran = self
            .invoke_rules(&matched, rt, ctx, event)
            .await
            .into_iter();
        let mut fold = Fold::new(event);
        let mut records = InProcessRecords::new(Some(rt));
        for i in matched {
            let rule = &self.rules()[i];
            let id = &self.hook_ids()[i];
            let start = Instant::now();
            let (flow, report) = match in_process_flow(rule, &event) {
                Some(flow) => {
                    if fold.is_stopped() {
                        // Not consulted: a rule before it stopped the fold.
                        continue;
                    }
                    records.add(rule, id, &event, &flow);
                    {
                        let report = declarative_report(&mut fold, rule, id, &flow, start);
                        (flow, report)
                    }
                }
                None => {
                    if let Some(invocation) = ran.next() {
                        // Break or not, keep draining `ran` in order.
                        let _ = invocation.fold_into(&mut fold);
                    }
                    continue;
                }
            };
            self.trace_in_process(rule, &report, flow.kind(), records.rt);
            if fold.apply_reported(report, flow).is_break() {
                // Keep draining `ran` in order; later flows are reported
                // as ignored.
                continue;
            }
        }
        records.write(&mut fold);
        fold.finish()
    }

    /// Answers `event` as one hook with the whole fold ([`StackOutcome`]):
    /// what a [`HookStack`](crate::HookStack) absorbs through
    /// [`AgentHook::fold_event`], keeping rewrites made before a `Skip`,
    /// context beside a rewritten result, and provenance naming the rules.
    /// Ready (no boxed future) unless a matching `run` rule must be awaited.
    pub fn fold_outcome<'a>(
        &'a self,
        shell: Option<&'a Arc<ShellRuntime>>,
        ctx: &'a HookContext,
        event: StepEvent<'a>,
    ) -> OutcomeFuture<'a> {
        if !self.may_match(&event) {
            return OutcomeFuture::ready(Fold::new(event).finish());
        }
        match self.fold_ready(shell, event) {
            Some(outcome) => OutcomeFuture::ready(outcome),
            None => OutcomeFuture::boxed(self.fold(shell, ctx, event)),
        }
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
        if !self.may_match(&event) {
            return HookFuture::cont();
        }
        match self.fold_ready(shell, event) {
            Some(outcome) => HookFuture::ready(outcome.net_flow()),
            None => HookFuture::boxed(async move { self.fold(shell, ctx, event).await.net_flow() }),
        }
    }
}

impl Table {
    /// Whether a rule of the event's phase matches `event` as it is: one
    /// pass of the phase's index (no rule for the phase: one check). On a
    /// miss the fold is not built at all, so a miss costs the index pass
    /// alone; on a match the fold computes the candidates again (they
    /// change as rules rewrite the event).
    fn may_match(&self, event: &StepEvent<'_>) -> bool {
        !self.rules_for(event.kind()).is_empty()
            && Cursor::new(self.plan(), event.kind())
                .next(&facts(event))
                .is_some()
    }
}

/// What [`Table::fold_in_process`] does with a matching `run` rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OnRun {
    /// Give up (`None`): the rule must be awaited through the shell runtime.
    Await,
    /// No shell runtime: a failure under the rule's failure policy.
    Unbound,
    /// A dry run ([`Dispatcher::dry_run`]): `Continue`, recorded as not run.
    NotRun,
}

fn apply_mode(rule: &Rule, flow: Flow) -> Flow {
    match rule.mode {
        Mode::Enforce => flow,
        Mode::Audit => Flow::Continue,
    }
}

/// The report of a declarative rule that answered `flow` (its mode
/// applied), evaluated since `start`. A rule in
/// `mode: audit` is reported as [`Verdict::Audited`] and leaves a
/// provenance entry saying what it would have done
/// ([`Change::Audited`](crate::Change::Audited)); an enforced `block` /
/// `terminate` carries its reason as the message (borrowed from a static
/// table, so free).
fn declarative_report(
    fold: &mut Fold<'_>,
    rule: &Rule,
    id: &HookId,
    flow: &Flow,
    start: Instant,
) -> HookReport {
    let mut report = HookReport::new(id.clone());
    if rule.mode == Mode::Audit
        && let Some(would) = rule.declarative_kind()
    {
        fold.audited(id, would);
        report.verdict = Verdict::Audited(would);
    }
    if let Flow::Skip { reason } | Flow::Terminate { reason } = flow {
        report.message = Some(reason.clone());
    }
    report.elapsed = start.elapsed();
    report
}

impl Table {
    /// The telemetry of `rule` consulted in process (a declarative rule, or
    /// a `run` rule that could not run): its span, opened and closed at
    /// once with `report` and the kind of its `flow`, the message redacted with `rt`'s
    /// secrets. Nothing happens (and nothing is allocated) without a
    /// `tracing` subscriber.
    fn trace_in_process(
        &self,
        rule: &Rule,
        report: &HookReport,
        flow: FlowKind,
        rt: Option<&ShellRuntime>,
    ) {
        let span = telemetry::hook_span(self.source(), rule.phase, &rule.id, rule.action.name());
        if span.is_disabled() {
            return;
        }
        let secrets = rt.map_or_else(SecretSet::new, |rt| rt.secrets().clone());
        let message = report
            .message
            .as_deref()
            .map(|m| redact_sensitive_text(m, &secrets));
        telemetry::finish(&span, report, flow, message.as_deref());
    }

    /// Why a declarative rewrite by `rule` does not fit the catalogue
    /// schema of the event's tool ([`Table::rewrite_schema`]); `None` when
    /// it fits, is no rewrite, or there is no schema.
    fn rewrite_misfit(&self, rule: &Rule, event: &StepEvent<'_>, flow: &Flow) -> Option<String> {
        let (Flow::RewriteArgs(value) | Flow::RewriteResult(value)) = flow else {
            return None;
        };
        let schema = self.rewrite_schema(rule.phase, event.tool_name()?)?;
        schema.check(value).err()
    }
}

/// The flow and report of a declarative rewrite that does not fit the
/// tool's schema (`detail`): an `invalid_output` failure under the rule's
/// failure policy (then its mode), with a `failed` record.
fn misfit(
    rule: &Rule,
    id: &HookId,
    event: &StepEvent<'_>,
    detail: &str,
    records: &mut InProcessRecords<'_>,
) -> (Flow, HookReport) {
    // The detail quotes the value: redact it like every hook text.
    let secrets = records
        .rt
        .map_or_else(SecretSet::new, |rt| rt.secrets().clone());
    let detail = redact_and_truncate(detail, &secrets, MESSAGE_MAX_CHARS);
    let failure = format!("{}: {detail}", FailureKind::InvalidOutput);
    let applied = apply_failure_policy(rule.failure_policy, rule.phase, &rule.id, &failure);
    let mut report = HookReport::new(id.clone());
    report.failure = Some(HookFailure {
        kind: FailureKind::InvalidOutput,
        policy: rule.failure_policy,
    });
    report.message = Some(detail.clone().into());
    if let Some(message) = applied.diagnostic {
        report.diagnostics.push(Diagnostic::Hook {
            hook: id.clone(),
            message,
        });
    }
    records.add_failed(rule, id, event, FailureKind::InvalidOutput, &detail);
    (apply_mode(rule, applied.flow), report)
}

/// The flow and report of a `run` rule without a shell runtime (its
/// failure policy applied, then its mode): a `spawn_failed` failure with
/// [`Diagnostic::NoShellRuntime`], so the missing binding is never silent.
fn unbound(rule: &Rule, id: &HookId) -> (Flow, HookReport) {
    let mut report = HookReport::new(id.clone());
    report.failure = Some(HookFailure {
        kind: FailureKind::SpawnFailed,
        policy: rule.failure_policy,
    });
    report.diagnostics.push(Diagnostic::NoShellRuntime {
        hook: id.clone(),
        policy: rule.failure_policy,
    });
    let flow = apply_mode(rule, rule.unbound_run_flow(rule.phase));
    if rule.mode == Mode::Audit {
        report.verdict = match rule.unbound_run_flow(rule.phase).kind() {
            FlowKind::Continue => Verdict::Continue,
            would => Verdict::Audited(would),
        };
    }
    (flow, report)
}

/// A table without a shell runtime: `run` rules count as failed (see
/// [`Table::fold`]). Bind a runtime with [`Dispatcher`].
impl AgentHook for Table {
    fn on_event<'a>(&'a self, ctx: &'a HookContext, event: StepEvent<'a>) -> HookFuture<'a> {
        self.dispatch(None, ctx, event)
    }

    fn fold_event<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: StepEvent<'a>,
    ) -> Option<OutcomeFuture<'a>> {
        Some(self.fold_outcome(None, ctx, event))
    }

    fn observes(&self, kind: StepEventKind) -> bool {
        self.has_rules_for(kind)
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
/// [`HookStack`](crate::HookStack) under any id; the table folds its own
/// rules (declared order, the stack's fold rules) and the stack absorbs the
/// whole outcome ([`AgentHook::fold_event`]); called alone,
/// [`AgentHook::on_event`] answers with the net flow.
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
        self.table
            .fold_in_process(self.shell.as_ref(), event, OnRun::NotRun)
            .unwrap_or_else(|| Fold::new(event).finish())
    }

    /// The table.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The bound shell runtime, if any.
    pub fn shell(&self) -> Option<&Arc<ShellRuntime>> {
        self.shell.as_ref()
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

    /// The whole fold ([`Table::fold_outcome`]): a stack absorbs it
    /// instead of the lossy net flow of `on_event`.
    fn fold_event<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: StepEvent<'a>,
    ) -> Option<OutcomeFuture<'a>> {
        if self.dry_run {
            return Some(OutcomeFuture::ready(self.fold_dry(event)));
        }
        if let Some(shell) = self.workers_to_shut_down(event.kind()) {
            // The run is over: its workers shut down after the last hooks.
            return Some(OutcomeFuture::boxed(async move {
                let outcome = self.table.fold(Some(shell), ctx, event).await;
                shell.shutdown_workers().await;
                outcome
            }));
        }
        Some(self.table.fold_outcome(self.shell.as_ref(), ctx, event))
    }

    /// Also `run_end` and `run_error` while the bound shell runtime has
    /// workers open, to shut them down.
    fn observes(&self, kind: StepEventKind) -> bool {
        self.table.has_rules_for(kind) || self.workers_to_shut_down(kind).is_some()
    }

    fn config_plan(&self) -> Option<&hooks_schema::plan::Plan> {
        Some(self.table.plan())
    }
}

/// The records of the declarative rules a fold consulted, written when the
/// fold completes (so a fold that starts over, or is dropped, writes none),
/// and the activity events of those with `show_in_tui` (`Started` and
/// `Succeeded` with 0 ms: nothing is spawned). Inert, and allocation-free,
/// without a record writer or an activity sink.
struct InProcessRecords<'r> {
    rt: Option<&'r ShellRuntime>,
    pending: Vec<(HookId, HookRecord)>,
    shown: Vec<(Arc<str>, Phase)>,
}

impl<'r> InProcessRecords<'r> {
    fn new(shell: Option<&'r Arc<ShellRuntime>>) -> Self {
        InProcessRecords {
            rt: shell
                .map(|rt| &**rt)
                .filter(|rt| rt.records().is_some() || rt.activity().is_some()),
            pending: Vec::new(),
            shown: Vec::new(),
        }
    }

    /// Notes that `rule` (declarative, consulted as `id`) answered `event`
    /// with `flow` (after its mode was applied).
    fn add(&mut self, rule: &Rule, id: &HookId, event: &StepEvent<'_>, flow: &Flow) {
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
            ..self.base_record(rule, event)
        };
        self.pending.push((id.clone(), record));
    }

    /// Notes that declarative `rule` failed on `event` with `kind`.
    fn add_failed(
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
            ..self.base_record(rule, event)
        };
        self.pending.push((id.clone(), record));
    }

    /// Notes that `rule` (a `run` rule) matched `event` in a dry run and was
    /// not executed.
    fn add_not_run(&mut self, rule: &Rule, id: &HookId, event: &StepEvent<'_>) {
        if self.rt.is_none_or(|rt| rt.records().is_none()) {
            return;
        }
        let record = HookRecord {
            status: RecordStatus::Refused,
            message: Some(NOT_RUN.to_owned()),
            ..self.base_record(rule, event)
        };
        self.pending.push((id.clone(), record));
    }

    /// The record of `rule` on `event` with status `ok` and nothing else
    /// said (the other methods set what differs).
    fn base_record(&self, rule: &Rule, event: &StepEvent<'_>) -> HookRecord {
        HookRecord {
            record: "hook",
            phase: rule.phase,
            hook_id: rule.id.to_string(),
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
        }
    }

    /// Writes the records; a lost one becomes a diagnostic of `fold` and
    /// of its rule's report.
    fn write(self, fold: &mut Fold<'_>) {
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
        for (hook, record) in self.pending {
            if let Err(err) = writer.write(&Record::Hook(record), rt.secrets()) {
                let message =
                    redact_sensitive_text(&writer.lost_records_message(&err), rt.secrets())
                        .into_owned();
                fold.diagnose_call(
                    &hook,
                    Diagnostic::Hook {
                        hook: hook.clone(),
                        message,
                    },
                );
            }
        }
    }
}

/// The message of a dry run's record for a `run` rule it did not execute.
const NOT_RUN: &str = "not run (dry run)";

/// The flow a declarative rule yields in-process; `None` for a `run` rule.
/// In audit mode the would-be flow is discarded, so it is not built.
fn in_process_flow(rule: &Rule, event: &StepEvent<'_>) -> Option<Flow> {
    if rule.mode == Mode::Audit && rule.action.is_declarative() {
        Some(Flow::Continue)
    } else {
        rule.declarative_flow(event)
    }
}
