//! Rebuilding when a missing script appears.
//!
//! `hooks!` warns about a `run` hook's script that does not exist
//! (`missing-script`). The warning must go away once the script is created,
//! so the expansion must depend on a file that changes then. Stable Rust
//! cannot name a missing path as a dependency (`proc_macro::tracked::path`
//! is unstable; `include_bytes!` of a missing file is an error), so for
//! each missing script the expansion includes a *stamp*: an empty file in a
//! private directory of the user (`agent-hooks-build-<uid>` in the
//! temporary directory, mode 0700), its modification time set ten years
//! ahead. Cargo rebuilds a crate when a file it depends on is newer than
//! its last build, so the crate is rebuilt on every build while the script
//! is missing; once it exists the expansion no longer includes the stamp
//! and the crate is fresh again.

use std::hash::{Hash, Hasher};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How far ahead a stamp's modification time is set.
const AHEAD: Duration = Duration::from_secs(10 * 365 * 24 * 60 * 60);

/// The stamp that keeps the calling crate stale while `script` (an
/// absolute path) is missing, created (or refreshed) now; `None` when it
/// cannot be made (no private directory), which only loses the rebuild.
pub(crate) fn stamp(script: &Path) -> Option<PathBuf> {
    let dir = private_dir()?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    script.hash(&mut hasher);
    let path = dir.join(format!("missing-{:016x}", hasher.finish()));
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)
        .ok()?;
    file.set_modified(SystemTime::now() + AHEAD).ok()?;
    Some(path)
}

/// `agent-hooks-build-<uid>` in the temporary directory: created mode
/// 0700, used only when it is a directory (not a symlink) owned by the
/// user that gives group and others no permission.
fn private_dir() -> Option<PathBuf> {
    let uid = rustix::process::getuid().as_raw();
    let dir = std::env::temp_dir().join(format!("agent-hooks-build-{uid}"));
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
    let meta = std::fs::symlink_metadata(&dir).ok()?;
    let private = meta.file_type().is_dir() && meta.uid() == uid && meta.mode() & 0o077 == 0;
    private.then_some(dir)
}
