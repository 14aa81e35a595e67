//! Trust for configs loaded at run time: nothing from a config file loaded
//! with [`Table::load`](crate::Table::load) runs until its operator trusted
//! it, and any change to its hooks or to a file they run asks again.
//!
//! A [`Fingerprint`] binds a config to the SHA-256 digest of its resolved
//! hook set (the validated config, so comments and formatting do not count),
//! of every file its enabled `run` hooks run, of every Rego file of its
//! enabled `policy` hooks, and of its tool catalogue. The files a `run` hook
//! runs are those [`hooks_schema::hook_bindings`] finds: the script of every
//! command form the runtime can parse (`bash -euo pipefail F`, `env X=1 sh
//! F`, `cd d && sh F`, `sh -c 'sh F'`, `. F`, `python3 -m mod`,
//! `"$CLAUDE_PROJECT_DIR"/hooks/x.sh`, a program given as a path), the
//! files a shell script among them sources, resolved against the workspace
//! root and the hook's `run.cwd`. What a hook runs that cannot be
//! determined is not bound (`agent-hooks check` and `trust` warn,
//! `trust --strict` refuses). A Rego file's digest is of the very text the
//! loader compiled, and a script's of the bytes read once; a table loaded
//! with [`Table::load`](crate::Table::load) hashes each `run` hook's files
//! again before every spawn and refuses to run one that changed
//! ([`FailureKind::ScriptChanged`](crate::FailureKind::ScriptChanged)). A
//! [`TrustStore`] (a JSON file the operator controls;
//! [`TrustStore::default_path`]) keeps the trusted fingerprints;
//! `agent-hooks trust FILE`, `--list` and `--revoke` edit it.
//!
//! Configs compiled in with `hooks!` are trusted by construction: they are
//! part of the binary someone built. Config text handed to
//! [`Table::load_str`](crate::Table::load_str) is the caller's to vouch
//! for, as is a file named on the `agent-hooks` command line (naming it is
//! the operator's decision).

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use hooks_schema::{Compiled, HookBinding};
use serde::{Deserialize, Serialize};

/// The environment variable naming the trust store file, before the
/// default location.
pub const TRUST_STORE_ENV: &str = "AGENT_HOOKS_TRUST_STORE";

/// What a config is bound to: its hook set's digest, each referenced
/// file's digest (`None`: the file does not exist) and its catalogue's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// `sha256:` and the hex digest of the validated config (as JSON).
    pub hooks: String,
    /// Absolute path → `sha256:<hex>` of the file, or `None` when missing.
    pub files: BTreeMap<PathBuf, Option<String>>,
    /// `sha256:` and the hex digest of the tool catalogue the config was
    /// checked against (its `catalogue:` file and the schema files it
    /// names, as resolved, as JSON); `None` without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalogue: Option<String>,
}

impl Fingerprint {
    /// The fingerprint of `compiled` whose `run` hooks resolve files
    /// against `workspace`: Rego files are taken from the text compiled
    /// into its plan (never read again), scripts are read once each.
    pub fn of(compiled: &Compiled, workspace: &Path) -> Fingerprint {
        Fingerprint::with_bindings(compiled, workspace).0
    }

    /// [`Fingerprint::of`] and what each `run` hook runs.
    fn with_bindings(compiled: &Compiled, workspace: &Path) -> (Fingerprint, Vec<HookBinding>) {
        let workspace = absolute(workspace);
        let hooks = serde_json::to_vec(&compiled.config).unwrap_or_default();
        let bindings = hooks_schema::hook_bindings(&compiled.config, &workspace);
        let mut files: BTreeMap<PathBuf, Option<String>> = bindings
            .iter()
            .flat_map(|b| &b.files)
            .map(|f| (f.path.clone(), f.digest.clone()))
            .collect();
        for (path, text) in policy_modules(compiled) {
            let key = workspace.join(path).components().collect();
            files.insert(key, Some(hooks_plan::file_digest(text.as_bytes())));
        }
        let catalogue = compiled
            .catalogue
            .as_ref()
            .map(|c| sha256(&serde_json::to_vec(c).unwrap_or_default()));
        let fingerprint = Fingerprint {
            hooks: sha256(&hooks),
            files,
            catalogue,
        };
        (fingerprint, bindings)
    }

    /// What differs from `trusted`, in a stable order.
    fn changes_from(&self, trusted: &Fingerprint) -> Vec<TrustChange> {
        let mut changes = Vec::new();
        if self.hooks != trusted.hooks {
            changes.push(TrustChange::HooksChanged);
        }
        if self.catalogue != trusted.catalogue {
            changes.push(TrustChange::CatalogueChanged);
        }
        for (path, digest) in &self.files {
            match trusted.files.get(path) {
                None => changes.push(TrustChange::FileAdded(path.clone())),
                Some(old) if old != digest => {
                    changes.push(TrustChange::FileChanged(path.clone()));
                }
                Some(_) => {}
            }
        }
        for path in trusted.files.keys() {
            if !self.files.contains_key(path) {
                changes.push(TrustChange::FileRemoved(path.clone()));
            }
        }
        changes
    }
}

/// The Rego modules of the enabled `policy` rules of `compiled`'s plan: the
/// path as written and the text compiled.
fn policy_modules(compiled: &Compiled) -> impl Iterator<Item = (&str, &str)> {
    compiled
        .plan
        .rules
        .iter()
        .filter(|r| r.enabled)
        .filter_map(|r| match &r.action {
            hooks_plan::ActionSpec::Policy(p) => Some(p.modules.iter()),
            _ => None,
        })
        .flatten()
        .map(|m| (&*m.path, &*m.source))
}

fn sha256(bytes: &[u8]) -> String {
    hooks_plan::file_digest(bytes)
}

/// One reason a config is not trusted (as it is now).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustChange {
    /// The config was never trusted (or its trust was revoked).
    NeverTrusted,
    /// Its hook set changed since it was trusted.
    HooksChanged,
    /// Its tool catalogue (the `catalogue:` file or a schema file it
    /// names) changed.
    CatalogueChanged,
    /// A file its hooks run changed (or appeared or vanished on disk).
    FileChanged(PathBuf),
    /// A hook now runs a file it did not run when trusted.
    FileAdded(PathBuf),
    /// A file it ran when trusted is no longer named.
    FileRemoved(PathBuf),
}

impl fmt::Display for TrustChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrustChange::NeverTrusted => f.write_str("it was never trusted"),
            TrustChange::HooksChanged => f.write_str("its hooks changed"),
            TrustChange::CatalogueChanged => f.write_str("its tool catalogue changed"),
            TrustChange::FileChanged(p) => write!(f, "`{}` changed", p.display()),
            TrustChange::FileAdded(p) => write!(f, "it now runs `{}`", p.display()),
            TrustChange::FileRemoved(p) => write!(f, "it no longer runs `{}`", p.display()),
        }
    }
}

/// A config file that is not trusted as it is now: what changed, and how
/// to trust it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Untrusted {
    /// The config file (absolute).
    pub config: PathBuf,
    /// Why, in order; never empty.
    pub changes: Vec<TrustChange>,
}

impl fmt::Display for Untrusted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "config `{}` is not trusted: ", self.config.display())?;
        for (i, change) in self.changes.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{change}")?;
        }
        write!(
            f,
            "; review it, then run `agent-hooks trust {}`",
            self.config.display()
        )
    }
}

/// Why the trust store could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrustStoreError {
    /// Reading or writing the store file failed.
    #[error("trust store `{path}`: {source}")]
    Io {
        /// The store file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// The store file is not a trust store.
    #[error("trust store `{path}` is not valid: {message}")]
    Invalid {
        /// The store file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// The on-disk form: `{"version": 1, "configs": {PATH: FINGERPRINT}}`.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreFile {
    version: u32,
    configs: BTreeMap<PathBuf, Fingerprint>,
}

/// The trusted fingerprints, by absolute config path, backed by a JSON
/// file (or in memory).
#[derive(Debug, Default)]
pub struct TrustStore {
    path: Option<PathBuf>,
    configs: BTreeMap<PathBuf, Fingerprint>,
}

impl TrustStore {
    /// An empty store that lives in memory only (for embedders that keep
    /// trust elsewhere, and for tests).
    pub fn in_memory() -> TrustStore {
        TrustStore::default()
    }

    /// Where the store lives by default: `$AGENT_HOOKS_TRUST_STORE`, else
    /// `$XDG_CONFIG_HOME/agent-hooks/trust.json`, else
    /// `$HOME/.config/agent-hooks/trust.json`; `None` when none of these
    /// is set.
    pub fn default_path() -> Option<PathBuf> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        if let Some(path) = var(TRUST_STORE_ENV) {
            return Some(PathBuf::from(path));
        }
        let base = var("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".config")))?;
        Some(base.join("agent-hooks").join("trust.json"))
    }

    /// Opens the store at `path`; a missing file is an empty store (created
    /// on the first [`TrustStore::trust`]).
    ///
    /// # Errors
    ///
    /// [`TrustStoreError::Io`] when the file exists but cannot be read,
    /// [`TrustStoreError::Invalid`] when it is not a trust store.
    pub fn open(path: impl Into<PathBuf>) -> Result<TrustStore, TrustStoreError> {
        let path = path.into();
        let configs = match std::fs::read(&path) {
            Ok(bytes) => {
                let file: StoreFile =
                    serde_json::from_slice(&bytes).map_err(|e| TrustStoreError::Invalid {
                        path: path.clone(),
                        message: e.to_string(),
                    })?;
                if file.version != 1 {
                    return Err(TrustStoreError::Invalid {
                        path,
                        message: format!("unknown version {}, expected 1", file.version),
                    });
                }
                file.configs
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => BTreeMap::new(),
            Err(source) => return Err(TrustStoreError::Io { path, source }),
        };
        Ok(TrustStore {
            path: Some(path),
            configs,
        })
    }

    /// The trusted configs and their fingerprints, by path.
    pub fn entries(&self) -> impl Iterator<Item = (&Path, &Fingerprint)> {
        self.configs.iter().map(|(p, f)| (p.as_path(), f))
    }

    /// Checks `compiled` (loaded from `file`) as it is now against the
    /// store.
    ///
    /// # Errors
    ///
    /// [`Untrusted`] naming what changed since it was trusted (or that it
    /// never was).
    pub fn verify(
        &self,
        file: &Path,
        compiled: &Compiled,
        workspace: &Path,
    ) -> Result<(), Untrusted> {
        self.verified(file, compiled, workspace).map(drop)
    }

    /// [`TrustStore::verify`], returning what each `run` hook runs (the
    /// files and digests a table checks again before each spawn).
    pub(crate) fn verified(
        &self,
        file: &Path,
        compiled: &Compiled,
        workspace: &Path,
    ) -> Result<Vec<HookBinding>, Untrusted> {
        let file = absolute(file);
        let (now, bindings) = Fingerprint::with_bindings(compiled, workspace);
        let changes = match self.configs.get(&file) {
            None => vec![TrustChange::NeverTrusted],
            Some(trusted) => now.changes_from(trusted),
        };
        if changes.is_empty() {
            Ok(bindings)
        } else {
            Err(Untrusted {
                config: file,
                changes,
            })
        }
    }

    /// Trusts `compiled` (loaded from `file`) as it is now, and saves the
    /// store. Returns the fingerprint trusted.
    ///
    /// # Errors
    ///
    /// [`TrustStoreError::Io`] when the store file cannot be written.
    pub fn trust(
        &mut self,
        file: &Path,
        compiled: &Compiled,
        workspace: &Path,
    ) -> Result<Fingerprint, TrustStoreError> {
        let fingerprint = Fingerprint::of(compiled, workspace);
        self.configs.insert(absolute(file), fingerprint.clone());
        self.save()?;
        Ok(fingerprint)
    }

    /// Forgets `file`'s trust and saves the store; whether it was trusted.
    ///
    /// # Errors
    ///
    /// [`TrustStoreError::Io`] when the store file cannot be written.
    pub fn revoke(&mut self, file: &Path) -> Result<bool, TrustStoreError> {
        let removed = self.configs.remove(&absolute(file)).is_some();
        if removed {
            self.save()?;
        }
        Ok(removed)
    }

    /// Writes the store atomically (a temporary file renamed over it).
    fn save(&self) -> Result<(), TrustStoreError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let io = |source| TrustStoreError::Io {
            path: path.clone(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = StoreFile {
            version: 1,
            configs: self.configs.clone(),
        };
        let mut bytes = serde_json::to_vec_pretty(&file).unwrap_or_default();
        bytes.push(b'\n');
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, bytes).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }
}

/// `path` made absolute against the current directory and, where it
/// exists, canonicalized (so `./hooks.yaml` and `hooks.yaml` are one entry).
fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}
