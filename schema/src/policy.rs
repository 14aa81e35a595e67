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
use crate::yaml::{Anchor, Positions};

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
#[cfg(feature = "policy")]
pub use hooks_plan::rego::{PolicyError, compile_policy};

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
            positions.error_at(file, pointer, Anchor::Value, Layer::Semantic, code, message)
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
        // Without the `policy` feature the config was refused before
        // (`features::missing`): only the files are read.
        #[cfg(feature = "policy")]
        {
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
                    .with_hint(
                        "the query is `data.`, a package a policy file declares, and a rule",
                    ),
                });
            }
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
