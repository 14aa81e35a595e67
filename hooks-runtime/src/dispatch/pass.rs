//! A table's pass over one event: its part of the caller's fold. The index
//! names the candidates once (a miss ends there), and each matching rule's
//! flow is applied to the caller's [`Fold`] in declared order: declarative
//! rules in process, `run`, `http` and `policy` rules through the shell
//! hook pipeline (`run.rs`) once the pass hands over to it.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Instant;

use hooks_plan::Mode;
use hooks_plan::{Admission, Cursor, Facts, Rule};

use super::marks::{Marked, NOTHING_ACTIVE, claimed};

use super::action::RuleActions;
use super::eval::facts;
use super::records::{InProcessRecords, NOT_RUN};
use super::table::Table;
use crate::SecretSet;
use crate::core::context::HookContext;
use crate::core::diagnostic::Diagnostic;
use crate::core::event::StepEvent;
use crate::core::flow::{Flow, FlowKind};
use crate::core::fold::Fold;
use crate::core::id::HookId;
use crate::core::report::FailureKind;
use crate::core::report::{HookFailure, HookReport, Verdict};
use crate::core::telemetry;
use crate::shell::invoke::{MESSAGE_MAX_CHARS, ShellRuntime};
use crate::shell::payload::Resolved;
use crate::shell::policy::apply_failure_policy;
use crate::shell::redact::{redact_and_truncate, redact_sensitive_text};

impl Table {
    /// The enabled rules that match `event`, in declared order, each judged
    /// on the event as given (no chaining of rewrites). Only the rules the
    /// plan's index names as candidates are visited
    /// ([`Cursor`](hooks_plan::Cursor)). Never allocates for phases
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
}

/// What a pass does with a matching `run`, `http` or `policy` rule.
#[derive(Debug, Clone, Copy)]
pub(super) enum OnRun<'r> {
    /// Hand over to the shell hook pipeline on this runtime
    /// ([`Pass::run`]): the rule is awaited.
    Await(&'r Arc<ShellRuntime>),
    /// No shell runtime: a failure under the rule's failure policy.
    Unbound,
    /// A dry run ([`Dispatcher::dry_run`](super::Dispatcher::dry_run)):
    /// `Continue`, recorded as not run.
    NotRun,
}

impl<'r> OnRun<'r> {
    /// Run rules run through `shell` when there is one, else count as
    /// failed.
    pub(super) fn bound(shell: Option<&'r Arc<ShellRuntime>>) -> Self {
        shell.map_or(OnRun::Unbound, OnRun::Await)
    }
}

/// A table's pass over one event, in progress: the phase's cursor (one
/// computation of the candidates, shared by the check for a match and the
/// fold) and the records to write when the pass ends.
pub(super) struct Pass<'t> {
    pub(super) table: &'t Table,
    pub(super) cursor: Cursor<'t>,
    pub(super) records: InProcessRecords<'t>,
    pub(super) on_run: OnRun<'t>,
    /// The bound runtime and the run's context, for the containment check
    /// at the end ([`Table::contain_rewritten`]).
    shell: Option<&'t Arc<ShellRuntime>>,
    pub(super) ctx: Option<&'t HookContext>,
    /// The fold's rewrites when the pass began.
    pub(super) rewrites: u32,
    /// The affected paths of a contained tool's call, as the containment
    /// check resolved them on the arguments the pass began with.
    pub(super) resolved: Option<Resolved>,
    /// What scoped and `once` rules are judged against (a table with such
    /// rules; `None`: it has none).
    admission: Option<Admission<'t>>,
}

/// The next rule of `cursor` that matches `judged` and that `ctx`'s run
/// may consult now ([`claimed`]: a `once` rule another event claimed is
/// passed over).
fn next_claimed(
    cursor: &mut Cursor<'_>,
    table: &Table,
    ctx: Option<&HookContext>,
    judged: &Facts<'_>,
) -> Option<u32> {
    loop {
        let i = cursor.next(judged)?;
        if claimed(table, ctx, i) {
            return Some(i);
        }
    }
}

/// The net flow of `event` through `table` when it needs no fold:
/// `Continue` when no rule matches; the first rule's flow when it stops the
/// event (`block`, `terminate`), its phase honours it, it is in `mode:
/// enforce` and no `tracing` subscriber enabling `info` is set (one would get the rule's
/// span); `None` otherwise (the pass runs on a fold). `table` is unbound (no
/// records, no activity, no secrets), has no scoped or `once` rule and no
/// containment check on the event's phase (the caller checks): a plain
/// declarative decision costs the index pass and the rule's flow, with no
/// fold, report or provenance built, since nothing can read them.
#[inline]
pub(super) fn quick(table: &Table, event: &StepEvent<'_>) -> Option<Flow> {
    let phase = event.kind();
    if table.rules_for(phase).is_empty() {
        return Some(Flow::Continue);
    }
    let mut cursor = Cursor::new(table.plan(), phase);
    let Some(i) = next_claimed(&mut cursor, table, None, &facts(event)) else {
        return Some(Flow::Continue);
    };
    let rule = &table.rules()[i as usize];
    // Only a stopping action's flow is built here: a rewrite's or a
    // patch's (owned values) would be built again by the fold. Checked on
    // its kind, before the (200-byte) flow is built and moved out.
    let stops = match rule.declarative_kind() {
        Some(kind @ (FlowKind::Skip | FlowKind::Terminate)) => kind.honoured_on(phase),
        _ => false,
    };
    // With any subscriber the fold runs, and opens the rule's span once.
    if rule.mode != Mode::Enforce || !stops || telemetry::subscribed() {
        return None;
    }
    rule.declarative_flow(event)
}

/// Where the in-process part of a pass stopped.
#[allow(
    clippy::large_enum_variant,
    reason = "returned once per pass and moved at once into the awaited part, which a box would cost one more allocation"
)]
pub(super) enum Settled<'t> {
    /// The pass is over (its records written): what the last applied flow
    /// returned.
    Done(ControlFlow<()>),
    /// Rule `i`, the next to consult, must be awaited ([`OnRun::Await`]):
    /// the rules before it are applied.
    Await(Pass<'t>, u32),
}

impl<'t> Pass<'t> {
    /// A pass of `table` over the event of `fold` (as the hooks before the
    /// table left it) and its first matching rule; `None` when no rule of
    /// the event's phase matches (one check when the phase has no rule,
    /// else one pass of its index; nothing is built). `shell` is the bound
    /// runtime (records, activity, secrets, the workspace root); `ctx` the
    /// run's context, when the caller has one (injection ids, the agent's
    /// `cwd`); `resolved` the paths the containment check resolved;
    /// `marked` the session's scopes and the `once` rules this event
    /// claimed (a table with scoped or `once` rules: without it, none is
    /// active and none is claimed).
    pub(super) fn start(
        table: &'t Table,
        shell: Option<&'t Arc<ShellRuntime>>,
        ctx: Option<&'t HookContext>,
        on_run: OnRun<'t>,
        fold: &Fold<'_>,
        resolved: Option<Resolved>,
        marked: Option<&'t Marked>,
    ) -> Option<(Self, u32)> {
        let event = fold.event();
        if table.rules_for(event.kind()).is_empty() {
            return None;
        }
        let admission = match marked {
            Some(marked) => Some(marked.admission()),
            None if table.is_marked() => Some(Admission {
                scopes: &NOTHING_ACTIVE,
                once: &[],
            }),
            None => None,
        };
        let mut cursor = Cursor::new(table.plan(), event.kind());
        let judged = Facts {
            admission,
            ..facts(&event)
        };
        let first = next_claimed(&mut cursor, table, ctx, &judged)?;
        let pass = Pass {
            table,
            cursor,
            records: InProcessRecords::new(shell, ctx),
            on_run,
            shell,
            ctx,
            rewrites: fold.rewrites(),
            resolved,
            admission,
        };
        Some((pass, first))
    }

    /// The facts the pass's rules are judged on for `event`.
    pub(super) fn facts<'e>(&self, event: &StepEvent<'e>) -> Facts<'e>
    where
        't: 'e,
    {
        Facts {
            admission: self.admission,
            ..facts(event)
        }
    }

    /// Consults rule `first` and the matching rules after it on `fold`, in
    /// process, until the fold stops, the rules run out or a rule must be
    /// awaited. Allocation-free for declarative rules without a record
    /// writer (module docs of `dispatch`, "Allocation").
    pub(super) fn settle(mut self, fold: &mut Fold<'_>, first: u32) -> Settled<'t> {
        let mut i = first;
        loop {
            let Some(step) = self.in_process(fold, i) else {
                return Settled::Await(self, i);
            };
            let next = match step {
                ControlFlow::Continue(()) => self.next(fold),
                ControlFlow::Break(()) => None,
            };
            match next {
                Some(next) => i = next,
                None => return Settled::Done(self.finish(fold, step)),
            }
        }
    }

    /// The next matching rule on the event as the rules so far left it.
    pub(super) fn next(&mut self, fold: &Fold<'_>) -> Option<u32> {
        let event = fold.event();
        let judged = self.facts(&event);
        self.next_claimed(&judged)
    }

    /// The next rule that matches `judged` and is consulted: a `once` rule
    /// is claimed as it is reached ([`claimed`]).
    pub(super) fn next_claimed(&mut self, judged: &Facts<'_>) -> Option<u32> {
        next_claimed(&mut self.cursor, self.table, self.ctx, judged)
    }

    /// Ends the pass: writes its records; checks the paths of a contained
    /// tool again when its rules rewrote the arguments
    /// ([`Table::contain_rewritten`]); returns `step`, or the refusal's.
    pub(super) fn finish(self, fold: &mut Fold<'_>, step: ControlFlow<()>) -> ControlFlow<()> {
        self.records.write(fold);
        self.table
            .contain_rewritten(self.shell, self.ctx, fold, self.rewrites, step)
    }

    /// Consults rule `i` in process and applies its flow to `fold` (its
    /// span traced); `None`, with nothing done, when it is a rule to await.
    pub(super) fn in_process(&mut self, fold: &mut Fold<'_>, i: u32) -> Option<ControlFlow<()>> {
        let table = self.table;
        let rule = &table.rules()[i as usize];
        let current = fold.event();
        let id = &table.hook_ids()[i as usize];
        let start = Instant::now();
        let (flow, report) = match (in_process_flow(rule, &current), self.on_run) {
            (Some(flow), _) => match table.rewrite_misfit(rule, &current, &flow) {
                Some(detail) => misfit(rule, id, &current, &detail, &mut self.records),
                None => {
                    self.records.add(rule, id, &current, &flow);
                    let report = declarative_report(rule, id, &flow, start);
                    (flow, report)
                }
            },
            // Started, not awaited: its context comes with a later event.
            (None, OnRun::Await(rt)) if rule.background => match self.ctx {
                Some(ctx) => self.start_background(rt, ctx, i, &current),
                None => return None,
            },
            (None, OnRun::Await(_)) => return None,
            (None, OnRun::Unbound) => unbound(rule, id),
            (None, OnRun::NotRun) => {
                self.records.add_not_run(rule, id, &current);
                let mut report = HookReport::new(id.clone());
                report.message = Some(NOT_RUN.into());
                (Flow::Continue, report)
            }
        };
        Some(self.apply(fold, rule, report, flow))
    }

    /// Applies `flow` of `rule`, consulted in process, with `report`, to
    /// `fold`, tracing its span first.
    pub(super) fn apply(
        &self,
        fold: &mut Fold<'_>,
        rule: &Rule,
        report: HookReport,
        flow: Flow,
    ) -> ControlFlow<()> {
        self.table
            .trace_in_process(rule, &report, flow.kind(), self.records.rt);
        fold.apply_reported(report, flow)
    }
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
pub(super) fn declarative_report(
    rule: &Rule,
    id: &HookId,
    flow: &Flow,
    start: Instant,
) -> HookReport {
    let mut report = HookReport::new(id.clone());
    if rule.mode == Mode::Audit
        && let Some(would) = rule.declarative_kind()
    {
        // The fold notes it in the provenance (`Fold::apply_reported`).
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
    pub(super) fn trace_in_process(
        &self,
        rule: &Rule,
        report: &HookReport,
        flow: FlowKind,
        rt: Option<&ShellRuntime>,
    ) {
        let origin = (self.source(), &*self.layer().name);
        let span = telemetry::hook_span(origin, rule.phase, &rule.id, rule.action.name());
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
        schema
            .check(value)
            .err()
            .map(|mismatch| mismatch.to_string())
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

/// The flow a declarative rule yields in-process; `None` for a `run` rule.
/// In audit mode the would-be flow is discarded, so it is not built.
pub(super) fn in_process_flow(rule: &Rule, event: &StepEvent<'_>) -> Option<Flow> {
    if rule.mode == Mode::Audit && rule.action.is_declarative() {
        Some(Flow::Continue)
    } else {
        rule.declarative_flow(event)
    }
}
