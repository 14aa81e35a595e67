//! `policy` hooks' Rego files: read from the workspace and compiled with
//! `regorus` when the config is checked, so a syntax error is a located
//! config error and the plan embeds the text it was checked with.
//!
//! One rule for each question: the loader reads and checks the files
//! ([`Loader::compile_str`](crate::Loader::compile_str)),
//! [`policy_digest`] names a policy in records, [`compile_policy`] builds
//! the engine (the runtime evaluates with the same function's engine).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::config::{Action, Config};
use crate::diagnostic::{Diagnostic, Layer};
use crate::yaml::Positions;

/// The largest Rego file a policy may name, in bytes (1 MiB).
pub const MAX_POLICY_BYTES: u64 = 1 << 20;

/// The Rego files read for a config's `policy` hooks: path as written →
/// text, once each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolicySources {
    texts: BTreeMap<String, String>,
}

impl PolicySources {
    /// The text of the file written as `path`, if it was read.
    pub fn get(&self, path: &str) -> Option<&str> {
        self.texts.get(path).map(String::as_str)
    }

    /// Records the text of `path` (what the loader read).
    pub fn insert(&mut self, path: impl Into<String>, text: impl Into<String>) {
        self.texts.insert(path.into(), text.into());
    }
}

pub use hooks_plan::policy_digest;

/// Why a policy does not compile: the file (as written) and the 1-based
/// line and column when the engine located it, and its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    /// The file the error is in, when known.
    pub file: Option<String>,
    /// 1-based line, when known.
    pub line: usize,
    /// 1-based column, when known.
    pub column: usize,
    /// The engine's message (lowercase first letter, no location prefix).
    pub message: String,
}

/// A `regorus` engine with `modules` (path as written, text) loaded, checked
/// that some module declares the package of `query`
/// (`data.<package>.<rule>`). What `check` and `hooks!` run on every policy
/// hook, and what the runtime evaluates with.
///
/// # Errors
///
/// [`PolicyError`] for the first module that does not parse (located in
/// it), or when no module declares the query's package.
pub fn compile_policy<'a>(
    modules: impl IntoIterator<Item = (&'a str, &'a str)>,
    query: &str,
) -> Result<regorus::Engine, PolicyError> {
    let mut engine = regorus::Engine::new();
    let mut packages = Vec::new();
    for (path, text) in modules {
        match engine.add_policy(path.to_owned(), text.to_owned()) {
            Ok(package) => packages.push(package),
            Err(e) => return Err(parse_error(path, &e.to_string())),
        }
    }
    let package = query.rsplit_once('.').map_or(query, |(package, _)| package);
    let declared = packages
        .iter()
        .any(|p| package == p || package.starts_with(&format!("{p}.")));
    if !declared {
        return Err(PolicyError {
            file: None,
            line: 0,
            column: 0,
            message: format!(
                "no policy file declares the package of query `{query}` (declared: {})",
                if packages.is_empty() {
                    "none".to_owned()
                } else {
                    packages
                        .iter()
                        .map(|p| format!("`{}`", p.trim_start_matches("data.")))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
        });
    }
    Ok(engine)
}

/// A `regorus` error for `path`, split into its location (the
/// `--> path:LINE:COL` line) and its message (the `error: ...` line); the
/// whole text, at 1:1, when it has neither.
fn parse_error(path: &str, text: &str) -> PolicyError {
    let location = text.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("-->")?.trim();
        let rest = rest.strip_prefix(path)?.strip_prefix(':')?;
        let (line, column) = rest.split_once(':')?;
        Some((line.trim().parse().ok()?, column.trim().parse().ok()?))
    });
    let message = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("error:").map(str::trim))
        .filter(|m| !m.is_empty())
        .map_or_else(|| text.trim().to_owned(), str::to_owned);
    let (line, column) = location.unwrap_or((1, 1));
    PolicyError {
        file: Some(path.to_owned()),
        line,
        column,
        message,
    }
}

/// Reads the Rego files of every `policy` hook of `config` (enabled or not:
/// a disabled rule stays in the plan) from `workspace` and compiles each
/// hook's policy ([`compile_policy`]). Returns the texts read and one error
/// diagnostic per problem: an unreadable, oversized or non-UTF-8 file
/// (`policy-file`, on its entry in `rego`), a Rego syntax error
/// (`policy-syntax`, located at the Rego file's `line:col`, the hook's YAML
/// location in the hint), a query whose package no file declares
/// (`policy-query`, on `query`). Every file path read is appended to `read`
/// (for a build that must rerun when they change).
pub(crate) fn load_policies(
    config: &Config,
    positions: &Positions,
    file: &str,
    workspace: &Path,
    read: &mut Vec<PathBuf>,
) -> (PolicySources, Vec<Diagnostic>) {
    let mut sources = PolicySources::default();
    let mut found = Vec::new();
    for (i, hook) in config.hooks.iter().enumerate() {
        let Action::Policy(policy) = hook.action() else {
            continue;
        };
        let at = |pointer: &str, code: &str, message: String| {
            let pos = positions.value_pos(pointer);
            Diagnostic::new(
                file,
                pos.line,
                pos.column,
                pointer,
                Layer::Semantic,
                code,
                message,
            )
        };
        let mut complete = true;
        for (k, path) in policy.rego.iter().enumerate() {
            if sources.get(path).is_some() {
                continue;
            }
            let full = workspace.join(path);
            read.push(full.clone());
            match read_policy(&full) {
                Ok(text) => sources.insert(path.clone(), text),
                Err(why) => {
                    complete = false;
                    found.push(
                        at(
                            &format!("/hooks/{i}/policy/rego/{k}"),
                            "policy-file",
                            format!(
                                "hook `{}`: cannot read policy file `{path}`: {why}",
                                hook.id
                            ),
                        )
                        .with_hint(format!(
                            "policy files resolve against the workspace root (`{}`)",
                            workspace.display()
                        )),
                    );
                }
            }
        }
        if !complete {
            continue;
        }
        let modules = policy
            .rego
            .iter()
            .filter_map(|p| Some((p.as_str(), sources.get(p)?)));
        if let Err(e) = compile_policy(modules, &policy.query) {
            let hook_pos = positions.value_pos(&format!("/hooks/{i}/policy"));
            let named = format!(
                "named by hook `{}` at {file}:{}:{}",
                hook.id, hook_pos.line, hook_pos.column
            );
            found.push(match e.file {
                Some(rego) => Diagnostic::new(
                    &rego,
                    e.line,
                    e.column,
                    &format!("/hooks/{i}/policy/rego"),
                    Layer::Semantic,
                    "policy-syntax",
                    format!("hook `{}`: rego: {}", hook.id, e.message),
                )
                .with_hint(named),
                None => at(
                    &format!("/hooks/{i}/policy/query"),
                    "policy-query",
                    format!("hook `{}`: {}", hook.id, e.message),
                )
                .with_hint("the query is `data.`, a package a policy file declares, and a rule"),
            });
        }
    }
    (sources, found)
}

/// The text of one policy file: at most [`MAX_POLICY_BYTES`], UTF-8.
fn read_policy(path: &Path) -> Result<String, String> {
    let lower = |e: std::io::Error| {
        let s = e.to_string();
        let mut c = s.chars();
        c.next()
            .map(|f| f.to_lowercase().chain(c).collect())
            .unwrap_or(s)
    };
    let meta = std::fs::metadata(path).map_err(lower)?;
    if meta.len() > MAX_POLICY_BYTES {
        return Err(format!(
            "{} bytes, the limit is {MAX_POLICY_BYTES} bytes (1 MiB)",
            meta.len()
        ));
    }
    let bytes = std::fs::read(path).map_err(lower)?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not valid UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}
