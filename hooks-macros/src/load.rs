//! Reading and validating the config, with `hooks-schema` (the CLI's path).

use std::path::{Path, PathBuf};

use hooks_schema::plan::Plan;

use crate::parse::Source;

/// The file name diagnostics of an inline config show.
pub(crate) const INLINE_NAME: &str = "<inline>";

/// A loaded (or failed) config.
pub(crate) struct Loaded {
    /// The config's dispatch plan, or the combined errors spanned on the literal.
    pub(crate) plan: Result<Plan, syn::Error>,
    /// The config's warnings (not its notes), each rendered with `file:line:col`
    /// and a snippet, also when the config is invalid (its errors alone are
    /// in `plan`).
    pub(crate) warnings: Vec<String>,
    /// The absolute paths of the files read (the config and the files its
    /// `catalogue:` names), for `include_bytes!` (also when the config is
    /// invalid, so that fixing a file rebuilds), and a stamp per missing
    /// script (`watch.rs`: creating the script rebuilds).
    pub(crate) tracked: Vec<PathBuf>,
    /// The name shown for the config: its path relative to the package root
    /// when it lies inside it (`src/hooks.yaml`), else the literal as
    /// written, or `<inline>`.
    pub(crate) display: String,
}

/// Loads `source`. A file path is resolved against `base_dir` (the directory
/// of the calling source file; see the crate docs).
pub(crate) fn load(source: &Source, base_dir: &Path) -> Loaded {
    match source {
        Source::Inline(lit) => {
            let text = lit.value();
            let mut tracked = Vec::new();
            let (plan, warnings) = compile(&text, INLINE_NAME, base_dir, lit, &mut tracked);
            Loaded {
                plan,
                warnings,
                tracked,
                display: INLINE_NAME.to_owned(),
            }
        }
        Source::File(lit) => {
            let written = lit.value();
            let fail = |message: String| Loaded {
                plan: Err(syn::Error::new(lit.span(), message)),
                warnings: Vec::new(),
                tracked: Vec::new(),
                display: written.clone(),
            };
            if written.is_empty() {
                return fail(
                    "empty config path, expected a path relative to this source file".to_owned(),
                );
            }
            if Path::new(&written).is_absolute() {
                return fail(format!(
                    "absolute config path `{written}`, expected a path relative to the directory of this source file"
                ));
            }
            load_path(base_dir.join(&written), &written, lit).0
        }
        Source::Stack(lit) => Loaded {
            plan: Err(syn::Error::new(
                lit.span(),
                "a stack file is loaded by `load_stack`",
            )),
            warnings: Vec::new(),
            tracked: Vec::new(),
            display: lit.value(),
        },
    }
}

/// Loads the config at `path` (`written` as the literal says it, for a
/// name outside the package), errors spanned on `lit`; and its text, when
/// it could be read.
fn load_path(path: PathBuf, written: &str, lit: &syn::LitStr) -> (Loaded, Option<String>) {
    // Diagnostics name the file as the crate's root sees it
    // (`src/hooks.yaml`), so terminal and editor links resolve.
    let shown = shown_path(&path).unwrap_or_else(|| written.to_owned());
    let text = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) => {
            let failed = Loaded {
                plan: Err(syn::Error::new(
                    lit.span(),
                    format!(
                        "cannot read config `{shown}`: {} (paths are relative to the directory of the file calling `hooks!`)",
                        lowercase(&e.to_string())
                    ),
                )),
                warnings: Vec::new(),
                tracked: Vec::new(),
                display: written.to_owned(),
            };
            return (failed, None);
        }
    };
    let dir = path.parent().map(Path::to_owned).unwrap_or_default();
    let mut tracked = vec![path];
    let (plan, warnings, text) = match String::from_utf8(text) {
        Ok(text) => {
            let (plan, warnings) = compile(&text, &shown, &dir, lit, &mut tracked);
            (plan, warnings, Some(text))
        }
        Err(e) => (
            Err(syn::Error::new(
                lit.span(),
                format!(
                    "config `{shown}` is not valid UTF-8 (invalid byte at offset {})",
                    e.utf8_error().valid_up_to()
                ),
            )),
            Vec::new(),
            None,
        ),
    };
    let loaded = Loaded {
        plan,
        warnings,
        tracked,
        display: shown,
    };
    (loaded, text)
}

/// The configs of the stack file `lit` names (resolved against
/// `base_dir`), each loaded as a config file is, in the layer its entry
/// gives one that declares none, then checked together on the texts
/// compiled ([`hooks_schema::check_stack_texts`]: each file read once);
/// errors are spanned on `lit`. The stack file itself is tracked.
pub(crate) fn load_stack(lit: &syn::LitStr, base_dir: &Path) -> Result<Vec<Loaded>, syn::Error> {
    let path = base_dir.join(lit.value());
    // Each finding rendered with a snippet of the file it is located in.
    let render = |d: &hooks_schema::Diagnostic, files: &[String], texts: &[String]| {
        let own = files
            .iter()
            .position(|f| *f == d.file)
            .and_then(|i| texts.get(i));
        let read = own
            .is_none()
            .then(|| std::fs::read_to_string(&d.file).ok())
            .flatten();
        d.render(own.map(String::as_str).or(read.as_deref()))
    };
    let error = |d: hooks_schema::Diagnostics, files: &[String], texts: &[String]| {
        let mut all: Option<syn::Error> = None;
        for d in d.iter() {
            let e = syn::Error::new(lit.span(), render(d, files, texts));
            match &mut all {
                None => all = Some(e),
                Some(a) => a.combine(e),
            }
        }
        all.unwrap_or_else(|| syn::Error::new(lit.span(), "invalid stack"))
    };
    let entries = hooks_schema::read_stack_file(&path).map_err(|d| error(d, &[], &[]))?;
    let mut loaded = Vec::with_capacity(entries.len());
    let files: Vec<String> = entries
        .iter()
        .map(|e| e.config.display().to_string())
        .collect();
    let mut texts: Vec<String> = Vec::with_capacity(entries.len());
    for (entry, file) in entries.iter().zip(&files) {
        let (mut one, text) = load_path(entry.config.clone(), file, lit);
        if let (Ok(plan), Some(key)) = (&mut one.plan, &entry.layer) {
            plan.layer = key.layer();
        }
        loaded.push(one);
        texts.extend(text);
    }
    // A config that could not be read fails the build on its own.
    if texts.len() == entries.len() {
        let findings = hooks_schema::check_stack_texts(&entries, &texts)
            .map_err(|d| error(d, &files, &texts))?;
        if let Some(first) = loaded.first_mut() {
            // The stack's warnings (switches leaving configs out, ...) are
            // compiler warnings too.
            first.warnings.extend(
                findings
                    .iter()
                    .filter(|d| d.severity == hooks_schema::Severity::Warning)
                    .map(|d| render(d, &files, &texts)),
            );
        }
    }
    if let Some(first) = loaded.first_mut() {
        first.tracked.push(path);
    }
    Ok(loaded)
}

/// A compiled plan or the errors, and the rendered warnings either way.
type Compiled = (Result<Plan, syn::Error>, Vec<String>);

/// The warnings among `diagnostics` (not the notes: they are remarks, not
/// compiler warnings; `agent-hooks check` shows them), rendered.
fn rendered_warnings(
    diagnostics: &[hooks_schema::Diagnostic],
    file: &str,
    text: &str,
) -> Vec<String> {
    diagnostics
        .iter()
        .filter(|d| d.severity == hooks_schema::Severity::Warning)
        .map(|d| d.render(snippet_source(d, file, text)))
        .collect()
}

/// Validates and lowers `text` with a `hooks_schema::Loader` (what the CLI
/// and the runtime loader run), resolving `catalogue:` paths against `dir`
/// and adding the files read to `tracked`; every error of an invalid config
/// becomes one error on `lit`, rendered with `file:line:col` and a snippet;
/// the warnings (valid config or not) are rendered the same way, the notes
/// left out.
fn compile(
    text: &str,
    file: &str,
    dir: &Path,
    lit: &syn::LitStr,
    tracked: &mut Vec<PathBuf>,
) -> Compiled {
    let root = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let mut loader = hooks_schema::Loader::new().base_dir(dir);
    if let Some(root) = &root {
        // Policy files resolve against the package root, like scripts.
        loader = loader.workspace(root);
    }
    let compiled = loader.compile_str(text, file);
    tracked.extend(loader.files_read().iter().cloned());
    match compiled {
        Ok(mut compiled) => {
            // Scripts resolve against the package root, the workspace a
            // test or example of the package runs its hooks in.
            if let Some(root) = &root {
                hooks_schema::add_script_warnings(&mut compiled, text, file, root);
                // A missing script's warning must go once it is created:
                // the expansion depends on a stamp that keeps the crate
                // stale until then (`watch.rs`).
                let missing = hooks_schema::missing_scripts(&compiled.config, root);
                tracked.extend(
                    missing
                        .iter()
                        .filter_map(|m| crate::watch::stamp(&root.join(&m.looked_at))),
                );
            }
            let warnings = rendered_warnings(&compiled.warnings, file, text);
            (Ok(compiled.plan), warnings)
        }
        Err(diagnostics) => {
            // Only the errors fail the build; the warnings stay warnings
            // and the notes are left to `agent-hooks check`.
            let diagnostics: Vec<hooks_schema::Diagnostic> = diagnostics.into_iter().collect();
            let mut all: Option<syn::Error> = None;
            for d in diagnostics.iter().filter(|d| d.is_error()) {
                let e = syn::Error::new(lit.span(), d.render(snippet_source(d, file, text)));
                match &mut all {
                    None => all = Some(e),
                    Some(a) => a.combine(e),
                }
            }
            let error = all.unwrap_or_else(|| syn::Error::new(lit.span(), "invalid config"));
            (Err(error), rendered_warnings(&diagnostics, file, text))
        }
    }
}

/// The text a diagnostic's snippet comes from: the config's, unless the
/// diagnostic is located in another file (a policy's Rego file).
fn snippet_source<'t>(d: &hooks_schema::Diagnostic, file: &str, text: &'t str) -> Option<&'t str> {
    (d.file == file).then_some(text)
}

/// `path` relative to the package being compiled (`CARGO_MANIFEST_DIR`),
/// when it lies inside it; `None` otherwise (or outside Cargo).
fn shown_path(path: &Path) -> Option<String> {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    let relative = normalize(path)
        .strip_prefix(normalize(&root))
        .ok()?
        .to_owned();
    Some(relative.to_string_lossy().into_owned())
}

/// `path` with `.` and `..` components resolved lexically (no file system
/// access, so a missing file still gets a name).
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn lowercase(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}
