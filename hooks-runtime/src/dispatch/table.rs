//! The dispatch table: a config's [`Plan`] plus what the runtime keeps per
//! table (hook ids for provenance), built from static data (`hooks!`) or by
//! loading a config at run time. Both go through the one lowering,
//! [`hooks_schema::plan::lower`].

use std::path::Path;
use std::sync::OnceLock;

use hooks_schema::plan::{DfaCache, Plan, Rule, ToolPaths};
use hooks_schema::{Config, Diagnostics, Limits, Phase};

use crate::core::id::HookId;

/// Why a table could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The config is invalid (rendered diagnostics, `file:line:col`).
    #[error("{0}")]
    Invalid(#[source] Diagnostics),
    /// A pattern passed validation but its automaton could not be built
    /// (for example, it exceeds the DFA size limit).
    #[error(transparent)]
    Pattern(#[from] hooks_schema::plan::LowerError),
    /// The config file is not trusted as it is now (see
    /// [`TrustStore`](crate::TrustStore)).
    #[error(transparent)]
    Untrusted(#[from] crate::dispatch::trust::Untrusted),
}

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
}

impl Table {
    /// A table over `plan` (what `hooks!` emits, as a `static`).
    pub const fn from_plan(plan: Plan) -> Table {
        Table {
            plan,
            ids: OnceLock::new(),
            schemas: OnceLock::new(),
        }
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

    /// Loads, validates and compiles the config file at `path` (the path as
    /// given is the file name in diagnostics), once `trust` says the
    /// operator trusted it as it is now: its hooks and every file they run
    /// or evaluate, resolved against `workspace` (the root the shell runtime
    /// runs hooks in, where `policy` hooks' Rego files are read). See [`TrustStore`](crate::TrustStore).
    ///
    /// # Errors
    ///
    /// [`LoadError::Invalid`] with every diagnostic when the file cannot be
    /// read or the config is invalid (a pattern group too large to compile
    /// included); [`LoadError::Untrusted`] naming what changed since it was
    /// trusted (nothing of it has run).
    pub fn load(
        path: impl AsRef<Path>,
        workspace: &Path,
        trust: &crate::TrustStore,
    ) -> Result<Table, LoadError> {
        let path = path.as_ref();
        // `policy` hooks' Rego files resolve against the workspace root.
        let compiled = hooks_schema::Loader::new()
            .workspace(workspace)
            .compile_file(path)
            .map_err(LoadError::Invalid)?;
        trust.verify(path, &compiled.config, workspace)?;
        Ok(Table::from_plan(compiled.plan))
    }

    /// Loads a config from its text (`file` names it in diagnostics).
    ///
    /// # Errors
    ///
    /// As [`Table::load`].
    pub fn load_str(source: &str, file: &str) -> Result<Table, LoadError> {
        let compiled = hooks_schema::compile_str(source, file).map_err(LoadError::Invalid)?;
        Ok(Table::from_plan(compiled.plan))
    }

    /// Compiles an already validated config. `source` names it.
    ///
    /// # Errors
    ///
    /// [`LoadError::Pattern`] when a group of patterns does not compile (a
    /// config from [`hooks_schema::load_str`] has been checked already, so
    /// this is rare: an automaton over the size limit).
    pub fn from_config(config: &Config, source: &str) -> Result<Table, LoadError> {
        let plan = hooks_schema::plan::lower(config, source, &mut DfaCache::default())?;
        Ok(Table::from_plan(plan))
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

    /// Hook ids for provenance, built once (one allocation per rule, on the
    /// first event that a rule answers).
    pub(crate) fn hook_ids(&self) -> &[HookId] {
        self.ids.get_or_init(|| {
            self.plan
                .rules
                .iter()
                .map(|r| HookId::new(&*r.id))
                .collect()
        })
    }
}
