//! Loading the configs an [`Engine`](super::Engine) runs.
//!
//! A config named on the command line is trusted by naming it (the
//! operator's decision, as for `agent-hooks test`): it is read, validated
//! and compiled with the workspace root as the base of its `policy` hooks'
//! Rego files.

use std::path::{Path, PathBuf};

use hooks_runtime::Table;

/// Why the configs could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A config is invalid or unreadable: every diagnostic, rendered with
    /// `file:line:col`.
    #[error("{0}")]
    Invalid(#[source] hooks_schema::Diagnostics),
}

/// Loads and compiles `paths` (in order) for an engine whose hooks run in
/// `workspace`.
///
/// # Errors
///
/// [`ConfigError::Invalid`] for the first config that cannot be read or
/// is invalid.
pub fn load_tables(paths: &[PathBuf], workspace: &Path) -> Result<Vec<Table>, ConfigError> {
    paths
        .iter()
        .map(|path| {
            let compiled = hooks_schema::Loader::new()
                .workspace(workspace)
                .compile_file(path)
                .map_err(ConfigError::Invalid)?;
            Ok(Table::from_plan(compiled.plan))
        })
        .collect()
}
