//! `agent-hooks trust CONFIG`, `--list`, `--revoke`: the trust store that
//! run-time loaded configs need (`hooks_runtime::TrustStore`).

use std::path::{Path, PathBuf};

use hooks_runtime::TrustStore;

use crate::cli::{EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, emit_redacted, warn};

/// The command line of `agent-hooks trust`.
pub(crate) struct Args {
    pub(crate) config: Option<PathBuf>,
    /// A stack file: its configs are trusted (or revoked) each.
    pub(crate) stack: Option<PathBuf>,
    pub(crate) list: bool,
    pub(crate) revoke: bool,
    pub(crate) strict: bool,
    pub(crate) workspace: Option<PathBuf>,
    pub(crate) store: Option<PathBuf>,
}

/// Trusts, lists or revokes; returns the exit code: 0 done, 1 when the
/// config is invalid (nothing trusted) or was not trusted (`--revoke`), 2 on
/// a usage or store error.
pub(crate) fn run(args: &Args) -> u8 {
    let Some(path) = args.store.clone().or_else(TrustStore::default_path) else {
        warn(
            "error: no trust store: set AGENT_HOOKS_TRUST_STORE, XDG_CONFIG_HOME or HOME, or pass --store",
        );
        return EXIT_USAGE;
    };
    let mut store = match TrustStore::open(&path) {
        Ok(store) => store,
        Err(err) => {
            warn(&format!("error: {err}"));
            return EXIT_USAGE;
        }
    };
    if args.list {
        for (config, fingerprint) in store.entries() {
            emit_redacted(&format!("{} ({})", config.display(), fingerprint.hooks));
            for (file, digest) in &fingerprint.files {
                let digest = digest.as_deref().unwrap_or("missing");
                emit_redacted(&format!("  runs {} ({digest})", file.display()));
            }
            if let Some(digest) = &fingerprint.catalogue {
                emit_redacted(&format!("  catalogue ({digest})"));
            }
        }
        return EXIT_OK;
    }
    let configs = match configs(args) {
        Ok(configs) => configs,
        Err(code) => return code,
    };
    // Each config in turn; the worst exit code.
    configs
        .iter()
        .map(|config| one(&mut store, config, args))
        .max()
        .unwrap_or(EXIT_OK)
}

/// The configs to trust or revoke: the stack file's (checked together
/// first: a stack with errors is not trusted), then the one named.
fn configs(args: &Args) -> Result<Vec<PathBuf>, u8> {
    let mut configs = Vec::new();
    if let Some(stack) = &args.stack {
        let entries = hooks_schema::read_stack_file(stack).map_err(|d| {
            warn(&d.to_string());
            EXIT_USAGE
        })?;
        if !args.revoke
            && let Err(errors) = hooks_schema::check_stack(&entries)
        {
            warn(&format!(
                "{errors}\nerror: the stack `{}` has errors; nothing trusted",
                stack.display()
            ));
            return Err(EXIT_FINDINGS);
        }
        configs.extend(entries.into_iter().map(|e| e.config));
    }
    configs.extend(args.config.clone());
    if configs.is_empty() {
        warn("error: name the config to trust");
        return Err(EXIT_USAGE);
    }
    Ok(configs)
}

/// Trusts or revokes `config`; its exit code.
fn one(store: &mut TrustStore, config: &Path, args: &Args) -> u8 {
    if args.revoke {
        return match store.revoke(config) {
            Ok(true) => {
                emit_redacted(&format!("revoked: {}", config.display()));
                EXIT_OK
            }
            Ok(false) => {
                warn(&format!("`{}` was not trusted", config.display()));
                EXIT_FINDINGS
            }
            Err(err) => {
                warn(&format!("error: {err}"));
                EXIT_USAGE
            }
        };
    }
    trust(store, config, args.workspace.as_deref(), args.strict)
}

/// Compiles `config` as `Table::load` does (its Rego files read from
/// `workspace`), shows the `unbound-script` warnings, and trusts it unless
/// `strict` and some are found.
fn trust(store: &mut TrustStore, config: &Path, workspace: Option<&Path>, strict: bool) -> u8 {
    let workspace = workspace.map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let compiled = std::fs::read_to_string(config)
        .map_err(|e| format!("cannot read `{}`: {e}", config.display()))
        .and_then(|source| {
            let name = config.display().to_string();
            hooks_schema::Loader::new()
                .base_dir(config.parent().map(Path::to_owned).unwrap_or_default())
                .workspace(&workspace)
                .compile_str(&source, &name)
                .map(|mut compiled| {
                    compiled.warnings.clear();
                    hooks_schema::add_binding_warnings(&mut compiled, &source, &name, &workspace);
                    (compiled, source)
                })
                .map_err(|d| d.to_string())
        });
    let (compiled, source) = match compiled {
        Ok(found) => found,
        Err(why) => {
            warn(&format!(
                "{why}\nerror: `{}` is not a valid config; nothing trusted",
                config.display()
            ));
            return EXIT_FINDINGS;
        }
    };
    for warning in &compiled.warnings {
        warn(&warning.render(Some(&source)));
    }
    if strict && !compiled.warnings.is_empty() {
        warn(&format!(
            "error: `{}` runs what trust cannot bind (`--strict`); nothing trusted",
            config.display()
        ));
        return EXIT_FINDINGS;
    }
    match store.trust(config, &compiled, &workspace) {
        Ok(fingerprint) => {
            emit_redacted(&format!(
                "trusted: {} ({})",
                config.display(),
                fingerprint.hooks
            ));
            for (file, digest) in &fingerprint.files {
                match digest {
                    Some(digest) => emit_redacted(&format!("  runs {} ({digest})", file.display())),
                    None => emit_redacted(&format!(
                        "  runs {} (missing: trusted as missing; creating it asks again)",
                        file.display()
                    )),
                }
            }
            if let Some(digest) = &fingerprint.catalogue {
                emit_redacted(&format!("  catalogue ({digest})"));
            }
            EXIT_OK
        }
        Err(err) => {
            warn(&format!("error: {err}"));
            EXIT_USAGE
        }
    }
}
