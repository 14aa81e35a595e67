//! The compiled-config cache ([`use_compile_cache`](crate::use_compile_cache)'s
//! `config/`): what a [`Loader`](crate::Loader) found valid, kept so that
//! the next process compiling the same config parses and checks nothing.
//!
//! One file per compile, named by the SHA-256 of everything the result
//! depends on besides the files it reads: this build (the crate's version,
//! the enabled features, the running executable's size and modification
//! time), the config's text and name, and the loader's directories. It
//! holds the validated config (JSON), its warnings and the digest of every
//! file the compile read (catalogue and Rego files); an entry whose files
//! changed is a miss, compiled again and replaced. A hit is lowered again
//! from the validated config (the DFAs come from the DFA cache), so the
//! plan is the one a cold compile builds. A file that does not read back
//! (another version's shape, a torn write) is a miss too.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::config::Config;
use crate::diagnostic::Diagnostic;

/// One cached compile.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// The validated config.
    pub(crate) config: Config,
    /// Its warnings and notes, as the cold compile found them.
    pub(crate) warnings: Vec<Diagnostic>,
    /// Every file the compile read and `sha256:<hex>` of its bytes
    /// (`None`: it did not exist).
    pub(crate) files: Vec<(PathBuf, Option<String>)>,
}

/// What a compile depends on besides its text and the files it reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Inputs<'a> {
    /// The config's text.
    pub(crate) source: &'a str,
    /// Its name in diagnostics and in the plan.
    pub(crate) file: &'a str,
    /// The directory of its file, if it came from one.
    pub(crate) dir: Option<&'a Path>,
    /// The loader's base directory for `catalogue:` paths.
    pub(crate) base_dir: Option<&'a Path>,
    /// The loader's workspace root for Rego files.
    pub(crate) workspace: Option<&'a Path>,
}

/// This build's identity: the crate's version, its features and the
/// running executable's size and modification time (a rebuilt binary of
/// the same version compiles afresh).
fn build_identity() -> &'static str {
    static IDENTITY: OnceLock<String> = OnceLock::new();
    IDENTITY.get_or_init(|| {
        let exe = std::env::current_exe()
            .and_then(std::fs::metadata)
            .map(|m| {
                let modified = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                format!("{}:{modified}", m.len())
            })
            .unwrap_or_default();
        format!(
            "{} http={} policy={} rewrite-check={} exe={exe}",
            env!("CARGO_PKG_VERSION"),
            cfg!(feature = "http"),
            cfg!(feature = "policy"),
            cfg!(feature = "rewrite-check"),
        )
    })
}

/// The path of the entry of `inputs`, when the cache is on.
pub(crate) fn path(inputs: &Inputs<'_>) -> Option<PathBuf> {
    let dir = crate::dfa_cache::config_dir()?;
    let mut hash = Sha256::new();
    let mut part = |bytes: &[u8]| {
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    };
    let path_bytes = |p: Option<&Path>| p.map(|p| p.as_os_str().as_encoded_bytes().to_vec());
    part(build_identity().as_bytes());
    part(inputs.source.as_bytes());
    part(inputs.file.as_bytes());
    for dir in [inputs.dir, inputs.base_dir, inputs.workspace] {
        match path_bytes(dir) {
            Some(bytes) => part(&[&[1], &bytes[..]].concat()),
            None => part(&[0]),
        }
    }
    let mut name = String::with_capacity(69);
    for byte in hash.finalize() {
        name.push_str(&format!("{byte:02x}"));
    }
    name.push_str(".json");
    Some(dir.join(name))
}

/// `sha256:<hex>` of the file at `path`, `None` when it cannot be read.
fn digest(path: &Path) -> Option<String> {
    std::fs::read(path)
        .ok()
        .map(|bytes| hooks_plan::file_digest(&bytes))
}

/// The entry at `path` when there is one whose files are unchanged.
pub(crate) fn read(path: &Path) -> Option<Entry> {
    let bytes = std::fs::read(path).ok()?;
    let entry: Entry = serde_json::from_slice(&bytes).ok()?;
    entry
        .files
        .iter()
        .all(|(file, was)| digest(file) == *was)
        .then_some(entry)
}

/// Keeps the compile of `config` (with `warnings`, having read `files`) at
/// `path`; errors are ignored (the next process compiles again).
pub(crate) fn write(path: &Path, config: &Config, warnings: &[Diagnostic], files: &[PathBuf]) {
    #[derive(Serialize)]
    struct EntryRef<'a> {
        config: &'a Config,
        warnings: &'a [Diagnostic],
        files: Vec<(&'a PathBuf, Option<String>)>,
    }
    let entry = EntryRef {
        config,
        warnings,
        files: files.iter().map(|f| (f, digest(f))).collect(),
    };
    let Ok(bytes) = serde_json::to_vec(&entry) else {
        return;
    };
    if let Some(dir) = path.parent() {
        crate::dfa_cache::write_private(dir, path, &bytes);
    }
}
