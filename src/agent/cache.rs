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
use hooks_schema::{Compiled, StackEntry};

/// Why the configs could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A config is invalid or unreadable: every diagnostic, rendered with
    /// `file:line:col`.
    #[error("{0}")]
    Invalid(#[source] hooks_schema::Diagnostics),
}

/// The configs of one stack: those of the stack file at `stack`
/// ([`hooks_schema::read_stack_file`]), if any, then `configs` in the
/// order given, each in the layer it declares.
///
/// # Errors
///
/// [`ConfigError::Invalid`] when the stack file cannot be read or is
/// invalid (located diagnostics).
pub fn stack_entries(
    configs: &[PathBuf],
    stack: Option<&Path>,
) -> Result<Vec<StackEntry>, ConfigError> {
    let mut entries = match stack {
        Some(file) => hooks_schema::read_stack_file(file).map_err(ConfigError::Invalid)?,
        None => Vec::new(),
    };
    entries.extend(configs.iter().map(|config| StackEntry {
        config: config.clone(),
        layer: None,
        at: "the command line".to_owned(),
    }));
    Ok(entries)
}

/// Loads and compiles the configs of one stack (`entries`, in order) for
/// an engine whose hooks run in `workspace`, and checks them together
/// ([`hooks_schema::stack_findings`]: a managed hook redefined by another
/// layer, an id in two configs, an `http` hook outside the managed
/// allowlists, a config declaring another layer than its stack file
/// gives). A config that declares no layer is in the one its entry gives.
///
/// # Errors
///
/// [`ConfigError::Invalid`] for the first config that cannot be read or
/// is invalid, else with the stack's errors.
pub fn compile_stack(
    entries: &[StackEntry],
    workspace: &Path,
) -> Result<Vec<Compiled>, ConfigError> {
    // Each file read once: the stack's checks judge the text compiled
    // (`Loader::compile_stack`).
    hooks_schema::Loader::new()
        .workspace(workspace)
        .compile_stack(entries)
        .map(|(compiled, _warnings)| compiled)
        .map_err(ConfigError::Invalid)
}

/// [`compile_stack`], each config's plan as a dispatch table.
///
/// # Errors
///
/// As [`compile_stack`].
pub fn load_tables(entries: &[StackEntry], workspace: &Path) -> Result<Vec<Table>, ConfigError> {
    Ok(compile_stack(entries, workspace)?
        .into_iter()
        .map(|compiled| Table::from_plan(compiled.plan))
        .collect())
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
