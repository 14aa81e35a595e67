//! Loading the configs an [`Engine`](super::Engine) runs, and the
//! compile cache that makes loading them again cheap
//! ([`use_cache_from_env`]).
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

/// The environment variable that names the compile cache's directory;
/// `off` turns the cache off.
pub const CACHE_ENV: &str = "AGENT_HOOKS_CACHE";

/// Turns on the compile cache ([`hooks_schema::use_compile_cache`]: the
/// configs' DFAs in `dfa/`, the compiled configs in `config/`) for this
/// process in `$AGENT_HOOKS_CACHE`, else `$XDG_CACHE_HOME/agent-hooks`,
/// else `$HOME/.cache/agent-hooks`: a config is parsed, checked and its
/// DFAs determinized once per user and content, and every later `hook`
/// call (and `serve` start or reload) with the same config reads it back
/// (docs/hook-command.md, "Latency"). `AGENT_HOOKS_CACHE=off`, or no such
/// variable set, leaves it off.
pub fn use_cache_from_env() {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let dir = match var(CACHE_ENV) {
        Some(v) if v == "off" => return,
        Some(v) => PathBuf::from(v),
        None => match (var("XDG_CACHE_HOME"), var("HOME")) {
            (Some(cache), _) => PathBuf::from(cache).join("agent-hooks"),
            (None, Some(home)) => PathBuf::from(home).join(".cache/agent-hooks"),
            (None, None) => return,
        },
    };
    hooks_schema::use_compile_cache(dir);
}
