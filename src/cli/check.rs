//! `agent-hooks check FILE...`: the same diagnostics as the `hooks!` macro.

use std::path::{Path, PathBuf};

use hooks_schema::{Diagnostic, Severity};

use crate::Format;
use crate::cli::{EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, emit, emit_json, emit_redacted};

/// One file's verdict, as printed by `--format json`.
#[derive(serde::Serialize)]
struct FileReport<'a> {
    file: String,
    /// No error, and no warning under `--deny-warnings`.
    ok: bool,
    /// Set when the file could not be read (exit code 2).
    io_error: Option<String>,
    /// Errors, warnings and notes, each with its `severity`.
    diagnostics: &'a [Diagnostic],
}

/// One file as checked: its name, and its text with every finding (errors,
/// warnings and notes, in position order) or the I/O error that kept it
/// from being read.
struct Loaded {
    name: String,
    checked: Result<(String, Vec<Diagnostic>), String>,
}

/// Whether `diagnostic` fails the check: an error, or a warning when
/// warnings are denied. Notes never fail it.
fn fails(diagnostic: &Diagnostic, deny_warnings: bool) -> bool {
    match diagnostic.severity {
        Severity::Error => true,
        Severity::Warning => deny_warnings,
        _ => false,
    }
}

/// How `check` runs, from its flags.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options<'a> {
    /// How findings are printed.
    pub(crate) format: Format,
    /// Where scripts named by `run` hooks are looked for (joined with each
    /// hook's `cwd`): a missing one is a `missing-script` warning.
    pub(crate) workspace: &'a Path,
    /// Whether warnings fail the check.
    pub(crate) deny_warnings: bool,
    /// A stack file: it and its configs are checked, and the configs
    /// together ([`hooks_schema::stack_findings`]).
    pub(crate) stack: Option<&'a Path>,
}

/// Checks every file, prints the diagnostics, returns the exit code:
/// 0 when no file has an error (warnings and notes are printed but pass,
/// unless `deny_warnings` makes warnings fail), 1 when any has a failing
/// finding, 2 when any could not be read (I/O errors win over findings).
/// With a stack file, its configs are checked too (before `files`), and
/// together: a hook id defined in two of them, a managed hook redefined,
/// an `http` hook outside the managed allowlists, ...
pub(crate) fn run(files: &[PathBuf], options: Options<'_>) -> u8 {
    let mut loaded: Vec<Loaded> = Vec::new();
    let mut layers = Vec::new();
    let mut stacked = false;
    if let Some(stack) = options.stack {
        // A stack file that cannot be read stands for its configs.
        match hooks_schema::read_stack_file(stack) {
            Ok(entries) => {
                stacked = true;
                for entry in entries {
                    loaded.push(load(&entry.config, options.workspace));
                    layers.push(entry.layer);
                }
            }
            Err(diagnostics) => loaded.push(Loaded {
                name: display_name(stack),
                checked: std::fs::read_to_string(stack)
                    .map(|source| (source, diagnostics.into_iter().collect()))
                    .map_err(|e| format!("cannot read `{}`: {e}", stack.display())),
            }),
        }
    }
    loaded.extend(files.iter().map(|path| load(path, options.workspace)));
    if stacked {
        // The configs named beside the stack file join the stack, as in
        // every other command.
        layers.resize(loaded.len(), None);
        add_stack_findings(&mut loaded, &layers);
    }
    let deny_warnings = options.deny_warnings;
    let code = if loaded.iter().any(|l| l.checked.is_err()) {
        EXIT_USAGE
    } else if loaded
        .iter()
        .any(|l| l.diagnostics().iter().any(|d| fails(d, deny_warnings)))
    {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    };
    match options.format {
        Format::Human => print_human(&loaded, deny_warnings),
        Format::Json => print_json(&loaded, deny_warnings),
    }
    code
}

/// Adds [`hooks_schema::stack_findings`] to the findings of the
/// files it locates them in, keeping each file's findings in position order.
fn add_stack_findings(loaded: &mut [Loaded], layers: &[Option<hooks_schema::LayerKey>]) {
    let configs: Vec<(&str, &str, Option<&hooks_schema::LayerKey>)> = loaded
        .iter()
        .zip(layers)
        .filter_map(|(l, layer)| {
            l.checked
                .as_ref()
                .ok()
                .map(|(source, _)| (l.name.as_str(), source.as_str(), layer.as_ref()))
        })
        .collect();
    let found = hooks_schema::stack_findings(&configs);
    for file in loaded.iter_mut() {
        if let Ok((_, diagnostics)) = &mut file.checked {
            let before = diagnostics.len();
            diagnostics.extend(found.iter().filter(|d| d.file == file.name).cloned());
            if diagnostics.len() > before {
                diagnostics.sort_by_key(|d| (d.line, d.column));
            }
        }
    }
}

/// Loads and checks one file; scripts its hooks run are looked for under
/// `workspace`.
fn load(path: &Path, workspace: &Path) -> Loaded {
    let name = display_name(path);
    let checked = match std::fs::read_to_string(path) {
        Err(err) => Err(format!("cannot read `{}`: {err}", path.display())),
        Ok(source) => {
            // `catalogue:` paths are relative to the config file.
            // `policy` files, like scripts, resolve against the workspace.
            let mut loader = hooks_schema::Loader::new()
                .base_dir(path.parent().map(Path::to_owned).unwrap_or_default())
                .workspace(workspace);
            let diagnostics = match loader.compile_str(&source, &name) {
                Ok(mut compiled) => {
                    hooks_schema::add_script_warnings(&mut compiled, &source, &name, workspace);
                    hooks_schema::add_binding_warnings(&mut compiled, &source, &name, workspace);
                    compiled.warnings
                }
                Err(diagnostics) => diagnostics.into_iter().collect(),
            };
            Ok((source, diagnostics))
        }
    };
    Loaded { name, checked }
}

impl Loaded {
    /// The file's findings; none when it could not be read.
    fn diagnostics(&self) -> &[Diagnostic] {
        self.checked.as_ref().map_or(&[], |(_, d)| d.as_slice())
    }
}

fn print_human(loaded: &[Loaded], deny_warnings: bool) {
    let count = |severity| {
        loaded
            .iter()
            .flat_map(Loaded::diagnostics)
            .filter(|d| d.severity == severity)
            .count()
    };
    for file in loaded {
        let (source, diagnostics) = match &file.checked {
            Err(err) => {
                eprintln!("error: {err}");
                continue;
            }
            Ok(checked) => checked,
        };
        if !diagnostics.iter().any(|d| fails(d, deny_warnings)) {
            emit(&format!("{}: ok", file.name));
        }
        for diag in diagnostics {
            // The snippet quotes the config, which may hold a literal
            // credential.
            // A policy's Rego error is located in its file, not the config.
            let snippet = (diag.file == file.name).then_some(source.as_str());
            emit_redacted(&diag.render(snippet));
        }
    }
    let counts = Counts {
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        notes: count(Severity::Note),
    };
    if let Some(line) = summary(counts, deny_warnings) {
        emit(&line);
    }
}

/// How many findings of each severity the checked files have.
#[derive(Debug, Clone, Copy)]
struct Counts {
    errors: usize,
    warnings: usize,
    notes: usize,
}

/// The last line of the human output: its level is the worst finding's
/// (`error` also for warnings under `--deny-warnings`), and it counts every
/// severity found (`error: 1 error, 1 note`; `note: 2 notes`). `None` when
/// nothing was found.
fn summary(c: Counts, deny_warnings: bool) -> Option<String> {
    let level = if c.errors > 0 || (c.warnings > 0 && deny_warnings) {
        "error"
    } else if c.warnings > 0 {
        "warning"
    } else if c.notes > 0 {
        "note"
    } else {
        return None;
    };
    let counted = |n: usize, what: &str| match n {
        0 => None,
        1 => Some(format!("1 {what}")),
        n => Some(format!("{n} {what}s")),
    };
    let mut parts: Vec<String> = [
        counted(c.errors, "error"),
        counted(c.warnings, "warning"),
        counted(c.notes, "note"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if c.errors == 0 && c.warnings > 0 && deny_warnings {
        parts[0].push_str(" (denied by `--deny-warnings`)");
    }
    Some(format!("{level}: {}", parts.join(", ")))
}

fn print_json(loaded: &[Loaded], deny_warnings: bool) {
    let reports: Vec<FileReport<'_>> = loaded
        .iter()
        .map(|file| {
            let diagnostics = file.diagnostics();
            FileReport {
                file: file.name.clone(),
                ok: file.checked.is_ok() && !diagnostics.iter().any(|d| fails(d, deny_warnings)),
                io_error: file.checked.as_ref().err().cloned(),
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
