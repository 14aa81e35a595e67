//! The dispatch table: a config's [`Plan`] plus what the runtime keeps per
//! table (hook ids for provenance, the specs of its `run`, `http` and
//! `policy` rules, the tools' path settings), built from static data
//! (`hooks!`) or by loading a config at run time. Both go through the one
//! lowering (`hooks_schema::plan::lower`); loading at run time is in
//! `dispatch/load.rs`, behind the `load` feature.

use std::sync::{Arc, OnceLock};

use hooks_plan::{Limits, Phase, Plan, Rule, ToolPaths};

use super::action::RuleActions;
use crate::core::context::HookContext;
use crate::core::event::StepEvent;
use crate::core::id::HookId;
use crate::shell::invoke::{
    self, Batch, Deferred, HookCache, Invocation, Pin, SharedHook, ShellHookSpec, ShellRuntime,
    ToolView,
};
use crate::shell::payload::{Resolved, ToolPathSettings};

/// A compiled hook config: its [`Plan`] (rules in declared order, and per
/// phase the indices of the enabled rules, so that "no hook for this phase"
/// is one check).
///
/// Build one with `hooks!` (static) or [`Table::load`] /
/// [`Table::from_config`] (run time); both hold the plan of the same
/// lowering and decide identically. See the [module docs](crate::dispatch)
/// for how events are dispatched.
#[derive(Debug)]
pub struct Table {
    plan: Plan,
    ids: OnceLock<Box<[HookId]>>,
    schemas: OnceLock<crate::dispatch::schemas::Schemas>,
    hooks: OnceLock<Hooks>,
    /// By rule index, the files a trusted `run` rule runs and their
    /// trusted digests (a table loaded with `Table::load`); empty otherwise.
    pins: Vec<Option<Arc<[Pin]>>>,
    /// Whether a rule is scoped or `once` (computed on first use).
    marked: OnceLock<bool>,
    /// Bit `p`: whether a rule of the phase at index `p` reads the
    /// payload (computed on first use).
    reads: OnceLock<u64>,
}

// `Table::reads` keeps a bit per phase.
const _: () = assert!(Phase::COUNT <= 64);

/// What a table builds once for its `run`, `http` and `policy` rules: each
/// rule's spec and the cache its invocations reuse (by rule index; `None`
/// for declarative rules) and each tool's path settings (by index in the
/// plan's `tool_paths`).
#[derive(Debug)]
struct Hooks {
    /// Shared, so that a background invocation owns its rule's.
    specs: Box<[Option<SharedHook>]>,
    tool_paths: Box<[ToolPathSettings]>,
}

impl Table {
    /// A table over `plan` (what `hooks!` emits, as a `static`).
    pub const fn from_plan(plan: Plan) -> Table {
        Table {
            plan,
            ids: OnceLock::new(),
            schemas: OnceLock::new(),
            hooks: OnceLock::new(),
            pins: Vec::new(),
            marked: OnceLock::new(),
            reads: OnceLock::new(),
        }
    }

    /// Whether a rule is scoped (`scope`) or one-shot (`once`): the table
    /// then tracks the session's scopes and claims its `once` rules on each
    /// event (`dispatch/marks.rs`).
    pub(crate) fn is_marked(&self) -> bool {
        *self
            .marked
            .get_or_init(|| crate::state::marks::plan_is_marked(&self.plan))
    }

    /// Whether a rule of `phase` reads the payload
    /// ([`Plan::reads_payload`], walked once for every phase).
    pub(crate) fn reads_payload_of(&self, phase: Phase) -> bool {
        let bits = *self.reads.get_or_init(|| {
            Phase::ALL
                .iter()
                .filter(|p| self.plan.reads_payload(**p))
                .fold(0, |bits, p| bits | 1 << p.index())
        });
        bits & 1 << phase.index() != 0
    }

    /// `self`, its `run` rules checking `pins` (by rule index) before each
    /// spawn.
    #[cfg(feature = "load")]
    pub(crate) fn with_pins(mut self, pins: Vec<Option<Arc<[Pin]>>>) -> Table {
        self.pins = pins;
        self
    }

    /// The catalogue schema a rewrite of `tool` on `phase` must fit (see
    /// [`RewriteSchema`](crate::RewriteSchema)); `None` without a catalogue,
    /// for a tool it lacks, or on a phase without rewrites. The validators
    /// are compiled on the first call.
    pub fn rewrite_schema(&self, phase: Phase, tool: &str) -> Option<&crate::RewriteSchema> {
        if self.plan.tool_schemas.is_empty() {
            return None;
        }
        self.schemas
            .get_or_init(|| crate::dispatch::schemas::Schemas::of(&self.plan))
            .for_rewrite(phase, tool)
    }

    /// An empty table (what `hooks!` emits beside a compile error).
    pub const fn empty(source: &'static str) -> Table {
        Table::from_plan(Plan::empty(source))
    }

    /// The lowered config this table dispatches.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The config's file name (or `<inline>`), as given to the loader.
    pub fn source(&self) -> &str {
        &self.plan.source
    }

    /// Every rule, enabled or not, in declared order.
    pub fn rules(&self) -> &[Rule] {
        &self.plan.rules
    }

    /// The indices of the enabled rules of `phase`, in declared order.
    pub fn rules_for(&self, phase: Phase) -> &[u32] {
        self.plan.rules_for(phase)
    }

    /// Whether some enabled rule has this phase.
    pub fn has_rules_for(&self, phase: Phase) -> bool {
        !self.plan.rules_for(phase).is_empty()
    }

    /// The config's `limits`.
    pub fn limits(&self) -> &Limits {
        &self.plan.limits
    }

    /// The `tool_settings` of `tool`, if the config has some.
    pub fn tool_paths(&self, tool: &str) -> Option<&ToolPaths> {
        self.plan.tool_paths(tool)
    }

    /// Hook ids for provenance, each naming the table's source, built once
    /// (one allocation per rule and one for the source, on the first event
    /// that a rule answers).
    pub(crate) fn hook_ids(&self) -> &[HookId] {
        self.ids.get_or_init(|| {
            let source: Arc<str> = Arc::from(self.source());
            let layer: Arc<str> = Arc::from(&*self.plan.layer.name);
            self.plan
                .rules
                .iter()
                .map(|r| {
                    HookId::new(&*r.id)
                        .with_source(Some(Arc::clone(&source)))
                        .with_layer(Some(Arc::clone(&layer)))
                })
                .collect()
        })
    }

    /// A hook id for `id`, a check of this table's own (not one of its
    /// rules), naming the table's source and layer.
    pub(crate) fn own_hook_id(&self, id: String) -> HookId {
        HookId::new(id)
            .with_source(Some(Arc::from(self.source())))
            .with_layer(Some(Arc::from(&*self.plan.layer.name)))
    }

    /// The config's layer (`layer:`; `project` when it declares none).
    pub fn layer(&self) -> &hooks_plan::Layer {
        &self.plan.layer
    }

    /// The table in `layer` instead of its config's (what a stack file
    /// gives a config that declares none).
    #[must_use]
    pub fn in_layer(mut self, layer: hooks_plan::Layer) -> Table {
        self.plan.layer = layer;
        // Ids and specs name the layer: built again on first use.
        self.ids = OnceLock::new();
        self.hooks = OnceLock::new();
        self
    }

    /// The specs of the table's `run`, `http` and `policy` rules and the
    /// tools' path settings, built on the first call (once per table: no
    /// event copies a command, a URL or a policy's text).
    fn hooks(&self) -> &Hooks {
        self.hooks.get_or_init(|| {
            let config: Arc<str> = Arc::from(self.source());
            let layer: Arc<str> = Arc::from(&*self.plan.layer.name);
            Hooks {
                specs: self
                    .plan
                    .rules
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        let pins = self.pins.get(i).cloned().flatten().unwrap_or_default();
                        let mut spec = r.hook_spec(&config)?;
                        spec.layer = Some(Arc::clone(&layer));
                        Some(Arc::new((spec, HookCache::pinned(pins))))
                    })
                    .collect(),
                tool_paths: self
                    .plan
                    .tool_paths
                    .iter()
                    .map(|t| ToolPathSettings {
                        path_pointers: t.path_pointers.iter().map(|p| p.to_string()).collect(),
                        allow_absolute: t.allow_absolute,
                        writes: t.writes,
                    })
                    .collect(),
            }
        })
    }

    /// The spec of rule `index` (in declared order) when it is a `run`,
    /// `http` or `policy` rule, built once per table.
    pub(crate) fn hook_spec(&self, index: usize) -> Option<&ShellHookSpec> {
        self.hook(index).map(|(spec, _)| spec)
    }

    /// The spec of rule `index` and its invocations' cache, as
    /// [`Table::hook_spec`].
    fn hook(&self, index: usize) -> Option<&(ShellHookSpec, HookCache)> {
        self.hooks().specs.get(index)?.as_deref()
    }

    /// The spec of rule `index` and its cache, shared (what a background
    /// invocation of the rule owns), as [`Table::hook_spec`].
    pub(crate) fn hook_shared(&self, index: usize) -> Option<SharedHook> {
        self.hooks().specs.get(index)?.clone()
    }

    /// The path settings of the `i`th tool of the plan's `tool_paths`,
    /// built once per table.
    pub(crate) fn tool_path_settings(&self, i: usize) -> Option<&ToolPathSettings> {
        self.hooks().tool_paths.get(i)
    }

    /// What a hook of `phase` reads about `tool` besides its spec: the
    /// tool's path settings, the catalogue schema its rewrites must fit,
    /// and the paths dispatch resolved (`resolved`).
    pub(crate) fn tool_view<'a>(
        &'a self,
        phase: Phase,
        tool: Option<&str>,
        resolved: Option<&'a Resolved>,
    ) -> ToolView<'a> {
        let Some(tool) = tool else {
            return ToolView::default();
        };
        let paths = self
            .plan
            .tool_paths
            .iter()
            .position(|t| t.tool == tool)
            .and_then(|i| self.hooks().tool_paths.get(i));
        ToolView {
            paths,
            rewrite: self.rewrite_schema(phase, tool),
            resolved,
        }
    }

    /// Runs rule `index` (a `run`, `http` or `policy` rule; `None` for
    /// another) on `event` through `shell`, with the spec the table built
    /// for it, its payload's affected paths taken from `resolved` (when
    /// given: the containment check resolved them for these arguments).
    ///
    /// # Cancel safety
    ///
    /// As [`ShellHook::invoke`](crate::ShellHook::invoke).
    pub(crate) async fn invoke_rule(
        &self,
        index: usize,
        shell: &ShellRuntime,
        ctx: &HookContext,
        event: StepEvent<'_>,
        resolved: Option<&Resolved>,
    ) -> Option<Invocation> {
        let batch = Batch::default();
        let (invocation, _) = self
            .invoke_rule_in(index, shell, batch, ctx, event, resolved)
            .await?;
        Some(invocation)
    }

    /// [`Table::invoke_rule`] as one of the event's `batch` (sharing its
    /// slots; in a parallel group, its records come back unwritten).
    pub(crate) async fn invoke_rule_in(
        &self,
        index: usize,
        shell: &ShellRuntime,
        batch: Batch<'_>,
        ctx: &HookContext,
        event: StepEvent<'_>,
        resolved: Option<&Resolved>,
    ) -> Option<(Invocation, Deferred)> {
        let (spec, cache) = self.hook(index)?;
        let tools = self.tool_view(spec.phase, event.tool_name(), resolved);
        Some(invoke::invoke(spec, cache, shell, tools, batch, ctx, event).await)
    }

    /// [`Table::invoke_rule`] for each of `indices` on the same `event`,
    /// concurrently (at most `limits.max_concurrent_hooks_per_event` at
    /// once, the rest waiting with their timeouts running); the
    /// invocations in the order of `indices` (rules that are not `run`,
    /// `http` or `policy` rules, and background rules, left out).
    ///
    /// # Cancel safety
    ///
    /// Dropping the future kills every running hook's process group.
    pub(crate) async fn invoke_rules(
        &self,
        indices: &[usize],
        shell: &ShellRuntime,
        ctx: &HookContext,
        event: StepEvent<'_>,
    ) -> Vec<Invocation> {
        let slots = invoke::event_slots(shell.limits().max_concurrent_hooks_per_event);
        let batch = Batch {
            slots: Some(&slots),
            ..Batch::default()
        };
        let runs = indices
            .iter()
            .filter(|&&i| self.hook_spec(i).is_some() && !self.rules()[i].background)
            .map(|&i| self.invoke_rule_in(i, shell, batch, ctx, event, None))
            .collect();
        invoke::join_in_order(runs)
            .await
            .into_iter()
            .flatten()
            .map(|(invocation, _)| invocation)
            .collect()
    }
}
