//! Dispatching an event through a table: selection, the fold, shell rules.

use std::sync::Arc;

use hooks_schema::Mode;

use super::data::{ActionSpec, Rule, Table, phase_index};
use crate::context::HookContext;
use crate::event::{StepEvent, StepEventKind};
use crate::flow::Flow;
use crate::hook::{AgentHook, HookFuture, OutcomeFuture};
use crate::invoke::{ShellHook, ShellRuntime};
use crate::stack::{Fold, StackOutcome};

impl Table {
    /// The enabled rules that match `event`, in declared order, each judged
    /// on the event as given (no chaining of rewrites). Never allocates:
    /// this is the selection step of dispatch, usable to explain a decision.
    pub fn matching<'t, 'e>(
        &'t self,
        event: StepEvent<'e>,
    ) -> impl Iterator<Item = &'t Rule> + use<'t, 'e> {
        self.phases[phase_index(event.kind())]
            .iter()
            .map(|&i| &self.rules[i as usize])
            .filter(move |rule| rule.matches(&event))
    }

    /// Folds `event` through the table without awaiting anything, or `None`
    /// when a matching `run` rule must be run through `shell`.
    ///
    /// Rules are consulted in declared order like the hooks of a
    /// [`HookStack`](crate::HookStack) (same [`Fold`]): a rule sees the
    /// arguments, result or prompt as rewritten by the rules before it.
    /// Allocation-free when no rule matches.
    pub fn fold_ready(
        &self,
        shell: Option<&Arc<ShellRuntime>>,
        event: StepEvent<'_>,
    ) -> Option<StackOutcome> {
        let mut fold = Fold::new(event);
        for &i in self.phases[phase_index(event.kind())].iter() {
            let rule = &self.rules[i as usize];
            let current = fold.event();
            if !rule.matches(&current) {
                continue;
            }
            let flow = match in_process_flow(rule, &current) {
                Some(flow) => flow,
                None if shell.is_some() => return None,
                None => apply_mode(rule, rule.unbound_run_flow(rule.phase)),
            };
            if fold.apply(&self.hook_ids()[i as usize], flow).is_break() {
                break;
            }
        }
        Some(fold.finish())
    }

    /// Folds `event` through the table, running matching `run` rules through
    /// `shell` (or, without one, treating them as failed under their failure
    /// policy).
    ///
    /// # Cancel safety
    ///
    /// Dropping the future stops the fold; a running shell rule's process
    /// group is killed (see [`ShellHook::invoke`]); nothing is applied.
    pub async fn fold(
        &self,
        shell: Option<&Arc<ShellRuntime>>,
        ctx: &HookContext,
        event: StepEvent<'_>,
    ) -> StackOutcome {
        let mut fold = Fold::new(event);
        for &i in self.phases[phase_index(event.kind())].iter() {
            let rule = &self.rules[i as usize];
            let current = fold.event();
            if !rule.matches(&current) {
                continue;
            }
            let flow = match (in_process_flow(rule, &current), shell) {
                (Some(flow), _) => flow,
                (None, Some(rt)) => {
                    let Some(spec) = rule.shell_spec(self, current.tool_name()) else {
                        continue;
                    };
                    // The shell hook applies the mode itself (and records it).
                    ShellHook::new(spec, Arc::clone(rt))
                        .invoke(ctx, current)
                        .await
                        .flow
                }
                (None, None) => apply_mode(rule, rule.unbound_run_flow(rule.phase)),
            };
            if fold.apply(&self.hook_ids()[i as usize], flow).is_break() {
                break;
            }
        }
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
        if self.phases[phase_index(event.kind())].is_empty() {
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
    /// phase this is one check.
    pub fn dispatch<'a>(
        &'a self,
        shell: Option<&'a Arc<ShellRuntime>>,
        ctx: &'a HookContext,
        event: StepEvent<'a>,
    ) -> HookFuture<'a> {
        if self.phases[phase_index(event.kind())].is_empty() {
            return HookFuture::cont();
        }
        match self.fold_ready(shell, event) {
            Some(outcome) => HookFuture::ready(outcome.net_flow()),
            None => HookFuture::boxed(async move { self.fold(shell, ctx, event).await.net_flow() }),
        }
    }
}

fn apply_mode(rule: &Rule, flow: Flow) -> Flow {
    match rule.mode {
        Mode::Enforce => flow,
        Mode::Audit => Flow::Continue,
    }
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
}

impl Dispatcher {
    /// A dispatcher without a shell runtime (`run` rules count as failed).
    pub const fn new(table: TableRef) -> Dispatcher {
        Dispatcher { table, shell: None }
    }

    /// A dispatcher over a static table, without a shell runtime.
    pub const fn from_static(table: &'static Table) -> Dispatcher {
        Dispatcher::new(TableRef::Static(table))
    }

    /// Binds `shell`: matching `run` rules execute through it.
    #[must_use]
    pub fn with_shell(mut self, shell: Arc<ShellRuntime>) -> Dispatcher {
        self.shell = Some(shell);
        self
    }

    /// The table.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The bound shell runtime, if any.
    pub fn shell(&self) -> Option<&Arc<ShellRuntime>> {
        self.shell.as_ref()
    }

    /// Folds `event` like [`Table::fold`] with the bound runtime, keeping
    /// everything (provenance, rewrites before a skip, context beside a
    /// rewritten result) that the net flow of [`AgentHook::on_event`] drops.
    ///
    /// # Cancel safety
    ///
    /// As [`Table::fold`].
    pub async fn fold(&self, ctx: &HookContext, event: StepEvent<'_>) -> StackOutcome {
        self.table.fold(self.shell.as_ref(), ctx, event).await
    }
}

impl AgentHook for Dispatcher {
    fn on_event<'a>(&'a self, ctx: &'a HookContext, event: StepEvent<'a>) -> HookFuture<'a> {
        self.table.dispatch(self.shell.as_ref(), ctx, event)
    }

    /// The whole fold ([`Table::fold_outcome`]): a stack absorbs it
    /// instead of the lossy net flow of `on_event`.
    fn fold_event<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: StepEvent<'a>,
    ) -> Option<OutcomeFuture<'a>> {
        Some(self.table.fold_outcome(self.shell.as_ref(), ctx, event))
    }

    fn observes(&self, kind: StepEventKind) -> bool {
        self.table.has_rules_for(kind)
    }
}

impl ActionSpec {
    /// Whether the action runs in-process (everything but `run`).
    pub const fn is_declarative(&self) -> bool {
        !matches!(self, ActionSpec::Run(_))
    }
}

/// The flow a declarative rule yields in-process; `None` for a `run` rule.
/// In audit mode the would-be flow is discarded, so it is not built.
fn in_process_flow(rule: &Rule, event: &StepEvent<'_>) -> Option<Flow> {
    if rule.mode == Mode::Audit && rule.action.is_declarative() {
        Some(Flow::Continue)
    } else {
        rule.declarative_flow(event)
    }
}
