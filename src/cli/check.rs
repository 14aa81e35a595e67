//! `agent-hooks check FILE...`: the same diagnostics as the `hooks!` macro.

use std::path::{Path, PathBuf};

use crate::Format;
use crate::cli::{EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, emit, emit_json, emit_redacted};

/// One file's verdict, as printed by `--format json`.
#[derive(serde::Serialize)]
struct FileReport<'a> {
    file: String,
    ok: bool,
    /// Set when the file could not be read (exit code 2).
    io_error: Option<String>,
    diagnostics: Vec<&'a hooks_schema::Diagnostic>,
}

/// Checks every file, prints the diagnostics, returns the exit code:
/// 0 when all files are clean, 1 when any has findings, 2 when any could not
/// be read (I/O errors win over findings).
pub(crate) fn run(files: &[PathBuf], format: Format) -> u8 {
    let mut code = EXIT_OK;
    let mut loaded = Vec::with_capacity(files.len());
    for path in files {
        let name = display_name(path);
        match std::fs::read_to_string(path) {
            Err(err) => {
                code = EXIT_USAGE;
                loaded.push((
                    name,
                    None,
                    Some(format!("cannot read `{}`: {err}", path.display())),
                ));
            }
            Ok(source) => {
                let result = hooks_schema::compile_str(&source, &name).err();
                if result.is_some() && code == EXIT_OK {
                    code = EXIT_FINDINGS;
                }
                loaded.push((name, Some((source, result)), None));
            }
        }
    }
    match format {
        Format::Human => print_human(&loaded),
        Format::Json => print_json(&loaded),
    }
    code
}

type Loaded = (
    String,
    Option<(String, Option<hooks_schema::Diagnostics>)>,
    Option<String>,
);

fn print_human(loaded: &[Loaded]) {
    let mut findings = 0usize;
    for (name, checked, io_error) in loaded {
        if let Some(err) = io_error {
            eprintln!("error: {err}");
            continue;
        }
        let Some((source, diagnostics)) = checked else {
            continue;
        };
        match diagnostics {
            None => emit(&format!("{name}: ok")),
            Some(diags) => {
                for diag in diags.iter() {
                    findings += 1;
                    // The snippet quotes the config, which may hold a
                    // literal credential.
                    emit_redacted(&diag.render(Some(source)));
                }
            }
        }
    }
    if findings > 0 {
        emit(&format!("error: {findings} problem(s) found"));
    }
}

fn print_json(loaded: &[Loaded]) {
    let reports: Vec<FileReport<'_>> = loaded
        .iter()
        .map(|(name, checked, io_error)| {
            let diagnostics: Vec<&hooks_schema::Diagnostic> = checked
                .as_ref()
                .and_then(|(_, d)| d.as_ref())
                .map(|d| d.iter().collect())
                .unwrap_or_default();
            FileReport {
                file: name.clone(),
                ok: io_error.is_none() && diagnostics.is_empty(),
                io_error: io_error.clone(),
                diagnostics,
            }
        })
        .collect();
    // Messages may quote config values: redacted like every other output.
    emit_json(&reports);
}

/// The name diagnostics show: the path as the user gave it.
fn display_name(path: &Path) -> String {
    path.display().to_string()
}
