//! Stack files: the configs of one hook stack, listed in one YAML file
//! (docs/fleet.md, *Layers*).
//!
//! ```yaml
//! stack:
//!   - /etc/agent-hooks/managed.yaml       # declares `layer: managed`
//!   - hooks.yaml                          # `project` unless it says
//!   - config: ../personal/hooks.yaml
//!     layer: user                         # for a config that declares none
//! ```
//!
//! Paths are relative to the stack file. The stack runs its configs by
//! their layers' ranks (lowest first); configs of one layer in the order
//! listed.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::names::VOCABULARY;
use super::walk::child;
use super::{At, Checker};
use crate::config::LayerKey;
use crate::diagnostic::{Diagnostics, Layer};
use crate::yaml;

/// One config of a stack file.
#[derive(Debug, Clone, PartialEq)]
pub struct StackEntry {
    /// The config's path: as written, joined to the stack file's folder
    /// when relative.
    pub config: PathBuf,
    /// The layer the stack file gives a config that declares none; `None`:
    /// the config's own (`project` by default).
    pub layer: Option<LayerKey>,
    /// Where the entry is, `file:line:col`, for messages about it.
    pub at: String,
}

/// The keys of an entry given as a mapping.
const ENTRY_KEYS: &[&str] = &["config", "layer"];

/// Reads the stack file at `path`.
///
/// # Errors
///
/// [`Diagnostics`], each located in the stack file: it cannot be read or
/// parsed, it has no `stack:` list (or an empty one), an entry is neither a
/// path nor `{config, layer}`, a layer is unknown, a config is listed
/// twice.
pub fn read_stack_file(path: &Path) -> Result<Vec<StackEntry>, Diagnostics> {
    let file = path.display().to_string();
    // Read as a config is: bounded, UTF-8, the same located I/O errors.
    let source = crate::load::read_config(path)?;
    let (value, positions) = yaml::parse(&source, &file).map_err(|d| Diagnostics::single(*d))?;
    let mut checker = Checker::new(&file, &positions);
    let base = path.parent().unwrap_or(Path::new(""));
    let entries = checker.stack_entries(&value, base);
    match Diagnostics::from_vec(checker.out) {
        Some(errors) => Err(errors),
        None => Ok(entries),
    }
}

impl Checker<'_> {
    fn stack_entries(&mut self, value: &Value, base: &Path) -> Vec<StackEntry> {
        let Some(root) = self.object("", value, "a mapping with `stack`") else {
            return Vec::new();
        };
        if root.contains_key("hooks") && !root.contains_key("stack") {
            self.report(
                "/hooks",
                At::Key,
                Layer::Schema,
                "config-as-stack-file",
                "this is a hook config, not a stack file (a `stack:` list of configs)".to_owned(),
                Some(
                    "pass the config itself, or list it in a stack file: `stack: [hooks.yaml]`"
                        .to_owned(),
                ),
            );
            return Vec::new();
        }
        self.unknown_keys("", root, &["stack"], "a stack file");
        let Some(list) = root.get("stack") else {
            self.missing(
                "",
                "stack",
                "a stack file",
                Some("list the configs: `stack: [managed.yaml, hooks.yaml]`".to_owned()),
            );
            return Vec::new();
        };
        let Some(items) = self.array("/stack", list, "a list of configs") else {
            return Vec::new();
        };
        if items.is_empty() {
            self.report(
                "/stack",
                At::Value,
                Layer::Schema,
                "empty-list",
                "`stack` must list at least one config".to_owned(),
                None,
            );
        }
        let mut entries: Vec<StackEntry> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let p = format!("/stack/{i}");
            let (config, layer) = match item {
                Value::Object(m) => {
                    self.unknown_keys(&p, m, ENTRY_KEYS, "a stack entry");
                    let layer = m
                        .get("layer")
                        .and_then(|l| self.entry_layer(&child(&p, "layer"), l));
                    let Some(config) = m.get("config") else {
                        self.missing(&p, "config", "a stack entry", None);
                        continue;
                    };
                    (self.nonempty_string(&child(&p, "config"), config), layer)
                }
                other => (self.nonempty_string(&p, other), None),
            };
            let Some(config) = config else { continue };
            let config = base.join(config);
            let pos = self.place(&p, At::Value);
            // One file, however spelled (relative, absolute, a link).
            let same = |other: &Path| {
                other == config
                    || std::fs::canonicalize(other)
                        .ok()
                        .is_some_and(|o| std::fs::canonicalize(&config).ok() == Some(o))
            };
            if let Some(first) = entries.iter().find(|e| same(&e.config)) {
                self.report(
                    &p,
                    At::Value,
                    Layer::Semantic,
                    "config-listed-twice",
                    format!("`{}` is already listed at {}", config.display(), first.at),
                    None,
                );
                continue;
            }
            entries.push(StackEntry {
                config,
                layer,
                at: format!("{}:{}:{}", self.file, pos.line, pos.column),
            });
        }
        entries
    }

    /// The layer of an entry, checked as a config's `layer` is.
    fn entry_layer(&mut self, p: &str, v: &Value) -> Option<LayerKey> {
        let before = self.out.len();
        match v {
            Value::Object(named) => self.named_layer(p, named),
            v => {
                self.enum_value(p, v, "layer", VOCABULARY.layers, "unknown-layer");
            }
        }
        if self.out.len() > before {
            return None;
        }
        serde_json::from_value(v.clone()).ok()
    }
}
