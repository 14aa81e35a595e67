//! `agent-hooks import claude SETTINGS.json [--plugin-root DIR] [-o OUT]
//! [--format yaml|json]`: converts Claude Code (or VS Code / Copilot) hooks
//! into an agent-hooks config ([`agent_hooks::import::claude`] documents the
//! mapping; a file in `.github/hooks/` is read as a VS Code hook file).
//! `import codex HOOKS.json`, `import gemini SETTINGS.json` and
//! `import copilot HOOKS.json` (same options but `--plugin-root`) read
//! another agent's file with the same importer, in that agent's
//! [`Dialect`].
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

/// Runs `import claude` (the dialect from the file's place: a VS Code file
/// in `.github/hooks/`, else Claude Code's); returns the exit code.
pub(crate) fn run_claude(
    input: &Path,
    plugin_root: Option<String>,
    output: Option<&Path>,
    format: ConfigFormat,
) -> u8 {
    run(
        input,
        Dialect::from_path(input),
        plugin_root,
        output,
        format,
    )
}

/// Runs `import codex`, `import gemini` or `import copilot` (`dialect`);
/// returns the exit code.
pub(crate) fn run_agent(
    input: &Path,
    dialect: Dialect,
    output: Option<&Path>,
    format: ConfigFormat,
) -> u8 {
    run(input, dialect, None, output, format)
}

/// Converts `input` read in `dialect`, prints the warnings and writes the
/// config; returns the exit code.
fn run(
    input: &Path,
    dialect: Dialect,
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
    let mut options = ImportOptions::new(dialect);
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
