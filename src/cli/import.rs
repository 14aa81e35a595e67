//! `agent-hooks import claude SETTINGS.json [--plugin-root DIR] [-o OUT]
//! [--format yaml|json]`: converts Claude Code (or VS Code / Copilot) hooks
//! into an agent-hooks config ([`agent_hooks::import::claude`] documents the
//! mapping; a file in `.github/hooks/` is read as a VS Code hook file).
//!
//! Warnings (`warning: FILE: line N: ...`) and errors go to stderr; the config
//! goes to stdout, or to `OUT` with `-o`. Exit codes: 0 converted (warnings
//! allowed), 1 nothing convertible or invalid input content, 2 usage or I/O
//! error.

use std::path::Path;

use agent_hooks::import::claude::{self, Dialect, ImportError, ImportOptions};

use crate::cli::{EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, emit};

/// The format of the converted config.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ConfigFormat {
    /// Commented YAML (default).
    Yaml,
    /// JSON (no comments; YAML loaders accept it too).
    Json,
}

/// Runs `import claude`; returns the exit code.
pub(crate) fn run_claude(
    input: &Path,
    plugin_root: Option<String>,
    output: Option<&Path>,
    format: ConfigFormat,
) -> u8 {
    let name = input.display().to_string();
    let source = match std::fs::read_to_string(input) {
        Ok(s) => s,
        Err(err) => {
            eprintln!("error: cannot read `{name}`: {err}");
            return EXIT_USAGE;
        }
    };
    let mut options = ImportOptions::new(Dialect::from_path(input));
    options.plugin_root = plugin_root;
    let imported = match claude::import_with(&source, &name, &options) {
        Ok(imported) => imported,
        Err(err) => {
            if let ImportError::NothingConvertible { warnings } = &err {
                for w in warnings {
                    eprintln!("warning: {name}: {w}");
                }
            }
            eprintln!("error: cannot import `{name}`: {err}");
            return EXIT_FINDINGS;
        }
    };
    for w in &imported.warnings {
        eprintln!("warning: {name}: {w}");
    }
    let text = match format {
        ConfigFormat::Yaml => imported.to_yaml(),
        ConfigFormat::Json => imported.to_json(),
    };
    // The output must pass `check`; a failure here is a bug in the importer.
    let out_name = output.map_or_else(|| "<stdout>".to_owned(), |p| p.display().to_string());
    if let Err(diags) = hooks_schema::load_str(&text, &out_name) {
        for d in diags.iter() {
            eprintln!("{}", d.render(Some(&text)));
        }
        eprintln!(
            "error: the converted config does not pass `check` (an importer bug, please report it)"
        );
        return EXIT_FINDINGS;
    }
    match output {
        Some(path) => {
            let mut text = text;
            if !text.ends_with('\n') {
                text.push('\n');
            }
            if let Err(err) = std::fs::write(path, text) {
                eprintln!("error: cannot write `{}`: {err}", path.display());
                return EXIT_USAGE;
            }
            eprintln!(
                "imported {} hook(s) from `{name}` into `{}` ({} warning(s))",
                imported.len(),
                path.display(),
                imported.warnings.len()
            );
        }
        None => emit(text.trim_end_matches('\n')),
    }
    EXIT_OK
}
