//! The session directory payload-ref files go to: where it may lie
//! ([`check_session_dir`]) and a private one created outside the workspace
//! ([`SessionDir`]).
//!
//! A session directory inside the workspace root is accepted as before
//! (symlinks followed, the resolved path must stay in the root). One
//! outside the root must be a directory private to the user: not a
//! symlink itself, owned by the effective user, no permission bit for group
//! or others. Claude Code keeps its session data under the user's home, out
//! of the project, so hooks that look at the workspace (`git status`) see
//! only the user's changes; [`SessionDir::create`] gives the same to agents
//! and the CLI.

use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::PayloadError;

/// Checks where `session_dir` may lie and returns it canonical.
///
/// Inside `root` (after following symlinks): accepted. Outside: accepted
/// only when `session_dir` itself is not a symlink and the directory is
/// private to the user ([`is_private`]).
///
/// # Errors
///
/// [`PayloadError::SessionDirOutsideRoot`] when it is a symlink resolving
/// outside `root`, [`PayloadError::SessionDirNotPrivate`] when it lies
/// outside `root` and is not private, [`PayloadError::Spill`] when it
/// cannot be canonicalized or read.
pub(crate) fn check_session_dir(session_dir: &Path, root: &Path) -> Result<PathBuf, PayloadError> {
    let spill_err = |source| PayloadError::Spill {
        dir: session_dir.to_path_buf(),
        source,
    };
    let root = root.canonicalize().map_err(spill_err)?;
    let resolved = session_dir.canonicalize().map_err(spill_err)?;
    if resolved.starts_with(&root) {
        return Ok(resolved);
    }
    let meta = std::fs::symlink_metadata(session_dir).map_err(spill_err)?;
    if meta.file_type().is_symlink() {
        return Err(PayloadError::SessionDirOutsideRoot {
            dir: session_dir.to_path_buf(),
            resolved,
            root,
        });
    }
    if !is_private(meta.mode(), meta.uid()) {
        return Err(PayloadError::SessionDirNotPrivate {
            dir: session_dir.to_path_buf(),
            mode: meta.mode() & 0o7777,
            owner: meta.uid(),
        });
    }
    Ok(resolved)
}

/// Whether a file of `mode` (`st_mode`) owned by `uid` is a directory of
/// the effective user that gives group and others no permission (mode
/// `0700` or narrower).
pub(crate) fn is_private(mode: u32, uid: u32) -> bool {
    let is_dir = mode & 0o170_000 == 0o040_000;
    is_dir && uid == rustix::process::geteuid().as_raw() && mode & 0o077 == 0
}

/// A private session directory outside the workspace, for payload-ref
/// files ([`ShellRuntime::with_session_dir`](crate::ShellRuntime::with_session_dir)):
/// `agent-hooks-session-*`, created mode `0700` with `mkdir` (which never
/// follows a symlink in the new directory's place), removed with its
/// contents when dropped.
///
/// [`SessionDir::create`] puts it in `$XDG_RUNTIME_DIR` (the XDG Base
/// Directory specification's directory for a user's runtime files: owned
/// by the user, mode `0700`, removed at logout) when that is an absolute
/// path to such a directory, else in the system's temporary directory
/// ([`std::env::temp_dir`]: `$TMPDIR` or `/tmp`). Either way it lies
/// outside the project, so hooks that inspect the workspace (`git status`)
/// do not see it.
#[derive(Debug)]
pub struct SessionDir {
    path: PathBuf,
}

static SESSION_COUNTER: AtomicU64 = AtomicU64::new(0);

impl SessionDir {
    /// Creates a session directory in `$XDG_RUNTIME_DIR` or the temporary
    /// directory (see the type's docs).
    ///
    /// # Errors
    ///
    /// The I/O error of creating it.
    pub fn create() -> io::Result<SessionDir> {
        SessionDir::create_in(&default_parent())
    }

    /// Creates a session directory outside `workspace`: in the first of
    /// `$XDG_RUNTIME_DIR` (when private to the user), the temporary
    /// directory and `/tmp` that does not lie inside `workspace` (a
    /// `$TMPDIR` pointing into the project would otherwise put the
    /// directory where `git status` sees it). Paths are compared
    /// canonicalized.
    ///
    /// # Errors
    ///
    /// The I/O error of creating it; `InvalidInput` when every candidate
    /// lies inside `workspace`.
    pub fn create_outside(workspace: &Path) -> io::Result<SessionDir> {
        let root = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
        let outside =
            |dir: &PathBuf| std::fs::canonicalize(dir).is_ok_and(|dir| !dir.starts_with(&root));
        let parent = [
            private_runtime_dir(),
            Some(std::env::temp_dir()),
            Some(PathBuf::from("/tmp")),
        ]
        .into_iter()
        .flatten()
        .find(outside)
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "$XDG_RUNTIME_DIR, the temporary directory and /tmp all lie inside the workspace `{}`",
                    root.display()
                ),
            )
        })?;
        SessionDir::create_in(&parent)
    }

    /// Creates a session directory in `parent`.
    ///
    /// # Errors
    ///
    /// The I/O error of creating it (after a few names already taken).
    pub fn create_in(parent: &Path) -> io::Result<SessionDir> {
        let mut last = None;
        for _ in 0..16 {
            let n = SESSION_COUNTER.fetch_add(1, Ordering::Relaxed);
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let name = format!("agent-hooks-session-{}-{nanos:08x}-{n}", std::process::id());
            let path = parent.join(name);
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(SessionDir { path }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no free session directory name")))
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SessionDir {
    fn drop(&mut self) {
        // `remove_dir_all` does not follow symlinks inside the directory.
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// `$XDG_RUNTIME_DIR` when it is an absolute path to a directory private to
/// the user, else [`std::env::temp_dir`].
fn default_parent() -> PathBuf {
    private_runtime_dir().unwrap_or_else(std::env::temp_dir)
}

/// `$XDG_RUNTIME_DIR` when it is an absolute path to a directory private to
/// the user.
fn private_runtime_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .filter(|dir| std::fs::symlink_metadata(dir).is_ok_and(|m| is_private(m.mode(), m.uid())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_private_directory_outside_the_root_is_accepted_a_shared_one_refused() {
        let root = tempfile::tempdir().unwrap();
        let parent = tempfile::tempdir().unwrap();
        let session = SessionDir::create_in(parent.path()).unwrap();
        let mode = std::fs::metadata(session.path()).unwrap().mode();
        assert_eq!(mode & 0o777, 0o700);
        let got = check_session_dir(session.path(), root.path()).unwrap();
        assert_eq!(got, session.path().canonicalize().unwrap());
        std::fs::set_permissions(session.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let err = check_session_dir(session.path(), root.path()).unwrap_err();
        assert!(
            matches!(err, PayloadError::SessionDirNotPrivate { mode: 0o755, .. }),
            "{err:?}"
        );
        // A symlink to the private directory, outside the root, is refused.
        std::fs::set_permissions(session.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let link = parent.path().join("link");
        std::os::unix::fs::symlink(session.path(), &link).unwrap();
        let err = check_session_dir(&link, root.path()).unwrap_err();
        assert!(
            matches!(err, PayloadError::SessionDirOutsideRoot { .. }),
            "{err:?}"
        );
        let path = session.path().to_path_buf();
        std::fs::write(path.join("f"), b"x").unwrap();
        drop(session);
        assert!(!path.exists());
    }
}
