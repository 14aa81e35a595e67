//! The one loading path shared by the CLI, the `hooks!` macro and the runtime loader.

use std::path::{Path, PathBuf};
#[cfg(feature = "rewrite-check")]
use std::sync::OnceLock;

use serde_json::Value;

use crate::catalogue::Catalogue;
use crate::check::Checker;
use crate::config::Config;
use crate::config_cache;
use crate::diagnostic::{Diagnostic, Diagnostics, Layer};
use crate::plan::{self, DfaCache, Plan};
use crate::yaml::{self, Anchor, Positions};

/// Loads a config from its text. `file` is the name shown in diagnostics.
///
/// Runs the three layers — YAML syntax (with size, depth and alias budgets),
/// the generated JSON Schema, the semantic rules — and reports every finding
/// at once, sorted by position. A syntax error stops the later layers (there
/// is no document to check).
///
/// # Errors
///
/// [`Diagnostics`] (never empty) when the config is invalid. Warnings and
/// notes of a valid config are dropped ([`compile_str`] keeps them).
pub fn load_str(source: &str, file: &str) -> Result<Config, Diagnostics> {
    Loader::new().load_str(source, file)
}

/// A config and its dispatch plan, as [`compile_str`] returns them.
#[derive(Debug)]
pub struct Compiled {
    /// The validated config.
    pub config: Config,
    /// Its lowering ([`plan::lower`]), with the automata validation built.
    pub plan: Plan,
    /// The tool catalogue the config was checked against (its `catalogue:`
    /// key and the [`Loader::catalogue`] given), if any.
    pub catalogue: Option<Catalogue>,
    /// The warnings and notes of the config (never an error), located like
    /// errors, in position order; empty for a clean config.
    pub warnings: Vec<Diagnostic>,
}

impl Compiled {
    /// The plan of this config as if it declared `mode: enforce`: what a
    /// config in `mode: shadow` would do were it enforced (the what-if
    /// pass of `agent-hooks test` and `replay`, docs/cli.md's *Shadow
    /// mode*). Lowered again from [`Compiled::config`] as loading lowered
    /// it: its `policy` hooks' files read again (relative to `workspace`,
    /// as [`Loader::workspace`]), its catalogue's schemas; the plan keeps
    /// this one's source and layer (which a stack file may have given).
    ///
    /// # Errors
    ///
    /// [`Diagnostics`] when a policy file can no longer be read or
    /// compiled, or a pattern group no longer fits its budget.
    pub fn enforced_plan(&self, workspace: &Path) -> Result<Plan, Diagnostics> {
        let file = self.plan.source.as_ref();
        let (policies, found) = crate::policy::load_policies(
            &self.config,
            &Positions::default(),
            file,
            workspace,
            &mut Vec::new(),
        );
        if let Some(errors) = Diagnostics::from_vec(found) {
            return Err(errors);
        }
        let mut dfas = DfaCache::default();
        dfas.policies = policies;
        let mut config = self.config.clone();
        config.mode = crate::config::ConfigMode::Enforce;
        let mut plan = plan::lower(&config, file, &mut dfas).map_err(|e| {
            Diagnostics::single(Diagnostic::new(
                file,
                1,
                1,
                &e.pointer,
                Layer::Semantic,
                "pattern-too-large",
                format!("hook `{}`: {}", e.hook, e.message),
            ))
        })?;
        plan.tool_schemas = tool_schemas(self.catalogue.as_ref());
        plan.layer = self.plan.layer.clone();
        Ok(plan)
    }
}

/// Loads configs with options: a tool catalogue from code, and the
/// directory the config's relative `catalogue:` paths are resolved against.
/// [`load_str`], [`compile_str`] and friends are `Loader::new()`'s methods.
///
/// ```
/// # use hooks_schema::{Catalogue, Loader};
/// #[derive(schemars::JsonSchema)]
/// #[allow(dead_code)]
/// struct BashArgs { command: String }
///
/// let mut loader = Loader::new().catalogue(Catalogue::new().with_tool::<BashArgs>("bash"));
/// let config = "version: 1\nhooks:\n  - { id: a, phase: before_tool, include_tools: [bsah], block: { reason: no } }\n";
/// let err = loader.compile_str(config, "hooks.yaml").unwrap_err();
/// assert!(err.first().render(None).contains("unknown tool `bsah`"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Loader {
    base_dir: Option<PathBuf>,
    workspace: Option<PathBuf>,
    catalogue: Option<Catalogue>,
    files_read: Vec<PathBuf>,
}

impl Loader {
    /// A loader with no catalogue of its own, resolving relative paths
    /// against the directory of the config's file name.
    pub fn new() -> Loader {
        Loader::default()
    }

    /// Checks every config against `catalogue` (merged with the config's
    /// own `catalogue:` key; a tool in both is an error).
    #[must_use]
    pub fn catalogue(mut self, catalogue: Catalogue) -> Loader {
        self.catalogue = Some(catalogue);
        self
    }

    /// Resolves the config's relative `catalogue:` paths against `dir`
    /// instead of the directory of the file name given to `load_str` /
    /// `compile_str` (`compile_file` / `load_file` use the file's directory).
    #[must_use]
    pub fn base_dir(mut self, dir: impl Into<PathBuf>) -> Loader {
        self.base_dir = Some(dir.into());
        self
    }

    /// Reads the Rego files of `policy` hooks relative to `dir`, the
    /// workspace root the hooks run in (what `run` scripts resolve against),
    /// instead of the current directory. `hooks!` uses the package root,
    /// `agent-hooks check` its `--workspace`. Only compiling reads them
    /// ([`Loader::compile_str`], [`Loader::compile_file`]): a policy's
    /// files, a syntax error in them (`policy-syntax`, located in the Rego
    /// file) or a query whose package none declares (`policy-query`) are
    /// the compilation's findings; loading checks the config alone.
    #[must_use]
    pub fn workspace(mut self, dir: impl Into<PathBuf>) -> Loader {
        self.workspace = Some(dir.into());
        self
    }

    /// Every file read for a catalogue or a policy so far (also those of configs that
    /// failed), for a build that must rerun when they change.
    pub fn files_read(&self) -> &[PathBuf] {
        &self.files_read
    }

    /// As [`load_str`], with this loader's options.
    ///
    /// # Errors
    ///
    /// As [`load_str`], plus the catalogue checks' diagnostics.
    pub fn load_str(&mut self, source: &str, file: &str) -> Result<Config, Diagnostics> {
        self.checked(source, file, None)
            .map(|checked| checked.config)
    }

    /// As [`compile_str`], with this loader's options.
    ///
    /// # Errors
    ///
    /// As [`compile_str`], plus the catalogue checks' diagnostics.
    pub fn compile_str(&mut self, source: &str, file: &str) -> Result<Compiled, Diagnostics> {
        self.compile(source, file, None)
    }

    /// As [`compile_file`], with this loader's options; relative
    /// `catalogue:` paths resolve against the file's directory.
    ///
    /// # Errors
    ///
    /// As [`compile_file`], plus the catalogue checks' diagnostics.
    pub fn compile_file(&mut self, path: &Path) -> Result<Compiled, Diagnostics> {
        let file = path.display().to_string();
        let source = read_config(path)?;
        self.compile(&source, &file, path.parent())
    }

    /// Compiles the configs of one stack (`entries`, in order; docs/fleet.md,
    /// *Layers*) as [`Loader::compile_file`] does each, a config that
    /// declares no layer in the one its entry gives, and checks them
    /// together ([`crate::stack_findings`]) on the very text compiled: each
    /// file is read once, so what is checked is what runs. Returns the
    /// compiled configs and the stack's warnings. One config alone, its
    /// layer not given, is not checked as a stack (nothing to clash with).
    ///
    /// # Errors
    ///
    /// The first config that cannot be read or is invalid; else every
    /// error of the stack (a managed layer not granted, a managed hook
    /// redefined, an id in two configs, an `http` hook outside the managed
    /// allowlists, ...).
    pub fn compile_stack(
        &mut self,
        entries: &[crate::StackEntry],
    ) -> Result<(Vec<Compiled>, Vec<Diagnostic>), Diagnostics> {
        let mut compiled = Vec::with_capacity(entries.len());
        let mut texts = Vec::with_capacity(entries.len());
        for entry in entries {
            let file = entry.config.display().to_string();
            let text = read_config(&entry.config)?;
            let mut one = self.compile(&text, &file, entry.config.parent())?;
            if let Some(key) = &entry.layer {
                // A config that declares another layer is refused below.
                one.plan.layer = key.layer();
            }
            compiled.push(one);
            texts.push(text);
        }
        if entries.len() == 1 && entries.iter().all(|e| e.layer.is_none()) {
            return Ok((compiled, Vec::new()));
        }
        let warnings = crate::check_stack_texts(entries, &texts)?;
        Ok((compiled, warnings))
    }

    /// As [`load_file`], with this loader's options.
    ///
    /// # Errors
    ///
    /// As [`load_file`], plus the catalogue checks' diagnostics.
    pub fn load_file(&mut self, path: &Path) -> Result<Config, Diagnostics> {
        let file = path.display().to_string();
        let source = read_config(path)?;
        self.checked(&source, &file, path.parent())
            .map(|checked| checked.config)
    }

    /// Compiles `source`, through the compiled-config cache when it is
    /// on ([`crate::use_compile_cache`]) and the loader has no catalogue
    /// of its own (the config's own `catalogue:` files are checked by
    /// digest).
    fn compile(
        &mut self,
        source: &str,
        file: &str,
        dir: Option<&Path>,
    ) -> Result<Compiled, Diagnostics> {
        let inputs = config_cache::Inputs {
            source,
            file,
            dir,
            base_dir: self.base_dir.as_deref(),
            workspace: self.workspace.as_deref(),
        };
        let entry = match self.catalogue {
            None => config_cache::path(&inputs),
            Some(_) => None,
        };
        if let Some(entry) = &entry
            && let Some(compiled) = self.compile_cached(entry, file, dir)
        {
            return Ok(compiled);
        }
        let first_read = self.files_read.len();
        let compiled = self.compile_source(source, file, dir)?;
        if let Some(entry) = &entry {
            let read = self.files_read.get(first_read..).unwrap_or_default();
            config_cache::write(entry, &compiled.config, &compiled.warnings, read);
        }
        Ok(compiled)
    }

    /// The compile kept at `entry`, lowered again from its validated
    /// config (the catalogue and Rego files read again, the DFAs from the
    /// DFA cache); `None` when there is none usable (a miss, or anything
    /// that would be a diagnostic: the cold compile locates it).
    fn compile_cached(&mut self, entry: &Path, file: &str, dir: Option<&Path>) -> Option<Compiled> {
        let config_cache::Entry {
            config, warnings, ..
        } = config_cache::read(entry)?;
        let catalogue = match &config.catalogue {
            Some(own) => Some(
                own.resolve(&self.catalogue_dir(file, dir), &mut self.files_read)
                    .ok()?,
            ),
            None => None,
        };
        let workspace = self.workspace.clone().unwrap_or_else(|| PathBuf::from("."));
        let (policies, found) = crate::policy::load_policies(
            &config,
            &Positions::default(),
            file,
            &workspace,
            &mut self.files_read,
        );
        if !found.is_empty() {
            return None;
        }
        let mut dfas = DfaCache::default();
        dfas.policies = policies;
        let mut plan = plan::lower(&config, file, &mut dfas).ok()?;
        plan.tool_schemas = tool_schemas(catalogue.as_ref());
        Some(Compiled {
            config,
            plan,
            catalogue,
            warnings,
        })
    }

    /// The directory the config's relative `catalogue:` paths resolve
    /// against.
    fn catalogue_dir(&self, file: &str, dir: Option<&Path>) -> PathBuf {
        match (&self.base_dir, dir) {
            (Some(d), _) => d.clone(),
            (None, Some(d)) => d.to_owned(),
            (None, None) => Path::new(file)
                .parent()
                .map(Path::to_owned)
                .unwrap_or_default(),
        }
    }

    /// Compiles `source` from its text (no cache).
    fn compile_source(
        &mut self,
        source: &str,
        file: &str,
        dir: Option<&Path>,
    ) -> Result<Compiled, Diagnostics> {
        let Checked {
            config,
            positions,
            mut dfas,
            catalogue,
            warnings,
        } = self.checked(source, file, dir)?;
        // What this build cannot run is refused first, then the policy
        // files are read and compiled with the config, embedded by the
        // lowering.
        let mut errors = crate::features::missing(&config, &positions, file);
        let workspace = self.workspace.clone().unwrap_or_else(|| PathBuf::from("."));
        let policies = if errors.is_empty() {
            let (policies, found) = crate::policy::load_policies(
                &config,
                &positions,
                file,
                &workspace,
                &mut self.files_read,
            );
            errors = found;
            policies
        } else {
            crate::policy::PolicySources::default()
        };
        if !errors.is_empty() {
            let all = warnings.into_iter().chain(errors).collect();
            return Err(Diagnostics::from_vec(all).unwrap_or_else(|| {
                Diagnostics::single(Diagnostic::new(
                    file,
                    1,
                    1,
                    "",
                    Layer::Semantic,
                    "internal",
                    "policy errors vanished".to_owned(),
                ))
            }));
        }
        dfas.policies = policies;
        match plan::lower(&config, file, &mut dfas) {
            Ok(mut plan) => Ok(Compiled {
                plan: {
                    plan.tool_schemas = tool_schemas(catalogue.as_ref());
                    plan
                },
                config,
                catalogue,
                warnings,
            }),
            Err(e) => Err(Diagnostics::single(positions.error_at(
                file,
                &e.pointer,
                Anchor::Value,
                Layer::Semantic,
                "pattern-too-large",
                format!("hook `{}`: {}", e.hook, e.message),
            ))),
        }
    }

    /// Layers 1 to 3, then the checks against the catalogue when there is one.
    fn checked(
        &mut self,
        source: &str,
        file: &str,
        dir: Option<&Path>,
    ) -> Result<Checked, Diagnostics> {
        let mut checked = checked(source, file)?;
        let Checked {
            config, positions, ..
        } = &checked;
        let mut checker = Checker::new(file, positions);
        let mut catalogue = self.catalogue.clone();
        if let Some(own) = &config.catalogue {
            let dir = self.catalogue_dir(file, dir);
            match own.resolve(&dir, &mut self.files_read) {
                Ok(own) => match &mut catalogue {
                    None => catalogue = Some(own),
                    Some(given) => checker.catalogue_twice(given.absorb(own)),
                },
                Err(errors) => checker.catalogue_sources(errors),
            }
        }
        if checker.out.is_empty()
            && let Some(catalogue) = &catalogue
        {
            checker.against_catalogue(config, catalogue);
        }
        let found = checker.out;
        if found.is_empty() {
            checked.catalogue = catalogue;
            return Ok(checked);
        }
        let all = checked.warnings.drain(..).chain(found).collect();
        match Diagnostics::from_vec(all) {
            Some(d) if d.has_errors() => Err(d),
            Some(d) => {
                checked.warnings = d.into_iter().collect();
                checked.catalogue = catalogue;
                Ok(checked)
            }
            None => Ok(checked),
        }
    }
}

/// Loads a config from its text ([`load_str`]) and lowers it into its
/// dispatch plan, reusing the DFAs validation built. `file` names the config
/// in diagnostics and in the plan. This is what `hooks!`, the runtime's
/// loader and `agent-hooks check` run.
///
/// # Errors
///
/// [`Diagnostics`] (never empty) when the config is invalid (a group of
/// patterns too large for one DFA is not: it is matched lazily). Warnings and notes found
/// beside errors are part of the `Err`.
pub fn compile_str(source: &str, file: &str) -> Result<Compiled, Diagnostics> {
    Loader::new().compile_str(source, file)
}

/// Reads a config file and compiles it ([`load_file`], then as [`compile_str`]).
///
/// # Errors
///
/// As [`load_file`] and [`compile_str`].
pub fn compile_file(path: &Path) -> Result<Compiled, Diagnostics> {
    Loader::new().compile_file(path)
}

/// [`checked`] for unit tests, panicking on an invalid config.
#[cfg(test)]
pub(crate) fn checked_for_tests(source: &str, file: &str) -> (Config, Positions, DfaCache) {
    match checked(source, file) {
        Ok(parts) => (parts.config, parts.positions, parts.dfas),
        Err(d) => panic!("invalid test config: {d}"),
    }
}

/// A valid config with what its checks produced beside it.
struct Checked {
    config: Config,
    positions: Positions,
    dfas: DfaCache,
    /// Warnings and notes, in position order.
    warnings: Vec<Diagnostic>,
    /// The catalogue it was checked against, if any.
    catalogue: Option<Catalogue>,
}

/// Layers 1 to 3 and the lints, keeping the positions and the automata for
/// the lowering.
fn checked(source: &str, file: &str) -> Result<Checked, Diagnostics> {
    let (value, positions) = yaml::parse(source, file).map_err(|d| Diagnostics::single(*d))?;
    let (dfas, mut warnings) = validate_value(&value, &positions, file)?;
    let config = serde_json::from_value::<Config>(value).map_err(|e| {
        Diagnostics::single(Diagnostic::new(
            file,
            1,
            1,
            "",
            Layer::Schema,
            "internal",
            format!("config passed validation but does not convert: {e}"),
        ))
    })?;
    let mut linter = Checker::new(file, &positions);
    linter.lint_config(&config, source);
    warnings.append(&mut linter.out);
    let warnings =
        Diagnostics::from_vec(warnings).map_or_else(Vec::new, |d| d.into_iter().collect());
    Ok(Checked {
        config,
        positions,
        dfas,
        warnings,
        catalogue: None,
    })
}

/// Layer 1 alone: parses `source` as the loader does (YAML 1.2 core
/// booleans, no merge keys, duplicate keys rejected, size/depth/alias budgets)
/// into JSON, without validating it. Useful to run the JSON Schema alone.
///
/// # Errors
///
/// One syntax [`Diagnostic`] when the text is not a single well-formed YAML document.
pub fn parse_document(source: &str, file: &str) -> Result<Value, Diagnostics> {
    yaml::parse(source, file)
        .map(|(value, _)| value)
        .map_err(|d| Diagnostics::single(*d))
}

/// Reads and loads a config file; the path as given is the file name in diagnostics.
///
/// # Errors
///
/// [`Diagnostics`] holding one [`Layer::Io`] diagnostic (code `io`, or
/// `not-utf8`) when the file cannot be read or is not UTF-8; one syntax
/// diagnostic (code `file-too-large`) when it is larger than
/// [`MAX_CONFIG_BYTES`](crate::MAX_CONFIG_BYTES), without reading it; else as [`load_str`].
pub fn load_file(path: &Path) -> Result<Config, Diagnostics> {
    Loader::new().load_file(path)
}

/// The text of a config file: size-capped, UTF-8 (see [`load_file`]).
pub(crate) fn read_config(path: &Path) -> Result<String, Diagnostics> {
    let file = path.display().to_string();
    // Refuse an oversized file before reading it into memory.
    if let Ok(meta) = std::fs::metadata(path)
        && meta.len() > crate::yaml::MAX_CONFIG_BYTES as u64
    {
        return Err(Diagnostics::single(
            Diagnostic::new(
                &file,
                1,
                1,
                "",
                Layer::Syntax,
                "file-too-large",
                format!(
                    "config is too large: {} bytes, the limit is {} bytes (1 MiB)",
                    meta.len(),
                    crate::yaml::MAX_CONFIG_BYTES
                ),
            )
            .with_hint("split the hooks across several configs"),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| {
        Diagnostics::single(Diagnostic::new(
            &file,
            1,
            1,
            "",
            Layer::Io,
            "io",
            format!("cannot read `{file}`: {}", lowercase_io(&e)),
        ))
    })?;
    let source = String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let prefix = &e.as_bytes()[..offset];
        let line = prefix.iter().filter(|b| **b == b'\n').count() + 1;
        let column = offset
            - prefix
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |p| p + 1)
            + 1;
        Diagnostics::single(Diagnostic::new(
            &file,
            line,
            column,
            "",
            Layer::Io,
            "not-utf8",
            format!("`{file}` is not valid UTF-8 (invalid byte at offset {offset})"),
        ))
    })?;
    Ok(source)
}

fn lowercase_io(e: &std::io::Error) -> String {
    let s = e.to_string();
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => s,
    }
}

/// The compiled config schema, built once per process.
#[cfg(feature = "rewrite-check")]
fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        #[allow(
            clippy::expect_used,
            reason = "the generated schema is tested to compile"
        )]
        jsonschema::validator_for(&crate::schema::config_schema())
            .expect("the generated config schema compiles")
    })
}

/// Whether the generated JSON Schema accepts `value` (layer 2 alone).
/// With the `rewrite-check` feature (which brings the JSON Schema
/// validator) only.
#[cfg(feature = "rewrite-check")]
pub fn schema_accepts(value: &Value) -> bool {
    validator().is_valid(value)
}

/// Layers 2 and 3 over an already parsed document: the automata built and
/// the warnings and notes found, or every finding when any is an error.
fn validate_value(
    value: &Value,
    positions: &Positions,
    file: &str,
) -> Result<(DfaCache, Vec<Diagnostic>), Diagnostics> {
    let mut checker = Checker::new(file, positions);
    checker.check_document(value);
    let dfas = checker.dfas;
    let walked = checker.out;
    #[cfg_attr(not(feature = "rewrite-check"), allow(unused_mut))]
    let mut all = Vec::new();
    // The generated schema's own validator, behind the checker: a second
    // check whose findings the checker should already have made (the
    // property tests assert it never adds one). Without `rewrite-check`,
    // which brings the validator, the checker alone decides.
    #[cfg(feature = "rewrite-check")]
    for err in validator().iter_errors(value) {
        let pointer = err.instance_path().as_str().to_owned();
        let covered = walked.iter().any(|d| {
            d.pointer == pointer
                || d.pointer.starts_with(&pointer)
                    && d.pointer.as_bytes().get(pointer.len()) == Some(&b'/')
        });
        if covered {
            continue;
        }
        let pos = positions.value_pos(&pointer);
        all.push(Diagnostic::new(
            file,
            pos.line,
            pos.column,
            &pointer,
            Layer::Schema,
            "schema",
            lowercase_first(&err.to_string()),
        ));
    }
    all.extend(walked);
    match Diagnostics::from_vec(all) {
        None => Ok((dfas, Vec::new())),
        Some(d) if d.has_errors() => Err(d),
        Some(d) => Ok((dfas, d.into_iter().collect())),
    }
}

#[cfg(feature = "rewrite-check")]
fn lowercase_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The plan's copy of `catalogue` (its schemas as JSON text), in name order.
fn tool_schemas(catalogue: Option<&Catalogue>) -> plan::List<plan::ToolSchema> {
    let Some(catalogue) = catalogue else {
        return plan::List::EMPTY;
    };
    let text = |v: &serde_json::Value| std::borrow::Cow::Owned(v.to_string());
    plan::List::Owned(
        catalogue
            .names()
            .filter_map(|name| {
                let schemas = catalogue.get(name)?;
                Some(plan::ToolSchema {
                    tool: std::borrow::Cow::Owned(name.to_owned()),
                    input: text(&schemas.input),
                    result: schemas.result.as_ref().map(text),
                })
            })
            .collect(),
    )
}
