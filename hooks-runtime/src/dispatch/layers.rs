//! The tables of one hook stack as the managed layer's switches leave them
//! ([`StackTables`]); loading a stack file's configs
//! ([`Table::load_stack`], the `load` feature). docs/fleet.md, *Layers*.

use std::sync::Arc;

use hooks_plan::Switches;

use super::table::Table;

/// The tables of one hook stack, with the managed layer's switches
/// applied: `disable_all_hooks` leaves none, `managed_hooks_only` only the
/// managed layer's. A [`HookStack`](crate::HookStack) runs the tables
/// pushed into it by layer, lowest first, so their order here does not
/// matter beyond one layer.
#[derive(Debug)]
pub struct StackTables {
    /// The tables that run, in the order given.
    pub tables: Vec<Table>,
    /// The managed layer's switches, which every shell runtime of the
    /// stack enforces on `http` hooks too
    /// ([`ShellRuntime::with_switches`](crate::ShellRuntime::with_switches));
    /// `None` without a managed config that sets them.
    pub switches: Option<Arc<Switches>>,
    /// The sources of the tables the switches left out, in the order given.
    pub left_out: Vec<String>,
}

impl StackTables {
    /// Applies the switches of the first managed table that sets them (a
    /// stack has one; `check` refuses a second), unless it is in shadow
    /// ([`Plan::switches_in_force`](hooks_plan::Plan::switches_in_force)),
    /// to `tables`.
    pub fn new(tables: Vec<Table>) -> StackTables {
        let switches = tables
            .iter()
            .find_map(|t| t.plan().switches_in_force().cloned())
            .map(Arc::new);
        let runs = |table: &Table| switches.as_deref().is_none_or(|s| s.runs(table.layer()));
        let (tables, left_out): (Vec<Table>, Vec<Table>) = tables.into_iter().partition(runs);
        StackTables {
            tables,
            switches,
            left_out: left_out.iter().map(|t| t.source().to_owned()).collect(),
        }
    }
}

/// The shell runtime of a `hooks!(stack = ...)` type: over `executor`,
/// with the limits of the first of `tables` (the language's defaults
/// without one) and the switches of the managed one, if it sets them. Not
/// an API of its own: the generated type's `shell_runtime`.
#[doc(hidden)]
pub fn stack_shell_runtime(tables: &[&Table], executor: crate::Executor) -> crate::ShellRuntime {
    let shell = match tables.first() {
        Some(table) => table.shell_runtime(executor),
        None => crate::ShellRuntime::new(executor),
    };
    let switches = tables
        .iter()
        .find_map(|t| t.plan().switches_in_force().cloned());
    match switches {
        Some(switches) => shell.with_switches(Arc::new(switches)),
        None => shell,
    }
}

#[cfg(feature = "load")]
mod load {
    use std::path::Path;

    use hooks_schema::StackEntry;

    use super::StackTables;
    use crate::dispatch::LoadError;
    use crate::dispatch::table::Table;

    impl Table {
        /// Loads the configs of a stack file
        /// ([`hooks_schema::read_stack_file`]) as [`Table::load`] does each
        /// (each file read once: what is checked is what is compiled and
        /// trusted), with the layer the stack file gives a config that
        /// declares none, checks them together
        /// ([`hooks_schema::Loader::compile_stack`]: a
        /// managed hook redefined, an id in two configs, an `http` hook
        /// outside the managed allowlists) and applies the managed layer's
        /// switches ([`StackTables::new`]).
        ///
        /// # Errors
        ///
        /// As [`Table::load`] for each config; [`LoadError::Invalid`] with
        /// the stack's errors (a config declaring another layer than its
        /// entry gives among them).
        pub fn load_stack(
            entries: &[StackEntry],
            workspace: &Path,
            trust: &crate::TrustStore,
        ) -> Result<StackTables, LoadError> {
            // Each file read once: the stack's checks judge the text that
            // is compiled and trusted (`Loader::compile_stack`).
            let (compiled, _warnings) = hooks_schema::Loader::new()
                .workspace(workspace)
                .compile_stack(entries)
                .map_err(LoadError::Invalid)?;
            let mut tables = Vec::with_capacity(entries.len());
            for (entry, compiled) in entries.iter().zip(compiled) {
                tables.push(Table::trusted(&entry.config, compiled, workspace, trust)?);
            }
            Ok(StackTables::new(tables))
        }
    }
}
