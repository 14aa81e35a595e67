//! Loading a config at run time (the `load` feature): YAML, validation and
//! the lowering of `hooks-schema`, then trust. A table made only by `hooks!`
//! needs none of it.

use std::path::Path;
use std::sync::Arc;

use hooks_schema::plan::DfaCache;
use hooks_schema::{Config, Diagnostics};

use super::table::Table;
use crate::shell::invoke::Pin;

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

impl Table {
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
    /// trusted (nothing of it has run). The config and each Rego file are
    /// read once: what is compiled is what is fingerprinted. The table's
    /// `run` rules hash the files they were trusted with before every spawn
    /// and refuse to run a changed one
    /// ([`FailureKind::ScriptChanged`](crate::FailureKind::ScriptChanged)).
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
        Table::trusted(path, compiled, workspace, trust)
    }

    /// The table of `compiled` (read from `path`) once `trust` says it is
    /// trusted as it is, its `run` rules pinned to the files they were
    /// trusted with.
    pub(crate) fn trusted(
        path: &Path,
        compiled: hooks_schema::Compiled,
        workspace: &Path,
        trust: &crate::TrustStore,
    ) -> Result<Table, LoadError> {
        let bindings = trust.verified(path, &compiled, workspace)?;
        // Each `run` rule hashes the files it was trusted with again before
        // every spawn (config hooks and plan rules share their order).
        let mut pins = vec![None; compiled.plan.rules.len()];
        for binding in bindings {
            let files: Arc<[Pin]> = binding
                .files
                .into_iter()
                .map(|f| Pin {
                    path: f.path,
                    digest: f.digest,
                })
                .collect();
            if let Some(slot) = pins.get_mut(binding.hook) {
                *slot = Some(files);
            }
        }
        Ok(Table::from_plan(compiled.plan).with_pins(pins))
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
}
