//! The payload-ref file an oversized payload spills to: [`SpillFile`].

use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, Mode, OFlags};

use super::session::{check_session_dir, is_private};
use super::{PayloadError, PayloadInput};
use crate::shell::protocol::Capped;

/// A payload-ref file: mode 0600, created exclusively (`O_EXCL`,
/// `O_NOFOLLOW`) in the session directory, which is opened component by
/// component without following symlinks (from the workspace root when it
/// lies inside it, from `/` otherwise), so a symlink swapped in after the
/// check cannot redirect it. Dropping it
/// removes it (best effort, relative to that directory); [`SpillFile::remove`]
/// reports a failure.
#[derive(Debug)]
pub struct SpillFile {
    path: PathBuf,
    /// The session directory as opened, and the file's name in it.
    entry: Option<(OwnedFd, OsString)>,
}

impl SpillFile {
    /// The file's absolute path (also in [`PAYLOAD_REF_ENV`]).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the file.
    ///
    /// # Errors
    ///
    /// The I/O error of removing it (the caller turns it into a diagnostic).
    pub fn remove(mut self) -> io::Result<()> {
        match self.entry.take() {
            Some((dir, name)) => Ok(rustix::fs::unlinkat(
                &dir,
                name.as_os_str(),
                AtFlags::empty(),
            )?),
            None => Ok(()),
        }
    }
}

impl Drop for SpillFile {
    fn drop(&mut self) {
        if let Some((dir, name)) = self.entry.take() {
            let _ = rustix::fs::unlinkat(&dir, name.as_os_str(), AtFlags::empty());
        }
    }
}

impl SpillFile {
    /// Reads the file back, opened relative to its directory without
    /// following a symlink and without blocking (a FIFO put in its place
    /// is refused, not waited on): what a hook wrote into a file it was
    /// handed (Claude Code's `CLAUDE_ENV_FILE`).
    ///
    /// # Errors
    ///
    /// The I/O error of opening or reading it; `InvalidData` when it is no
    /// longer a regular file or holds more than `cap` bytes.
    pub(crate) fn read_back(&self, cap: u64) -> io::Result<Vec<u8>> {
        use std::io::Read as _;
        let Some((dir, name)) = &self.entry else {
            return Ok(Vec::new());
        };
        let fd = rustix::fs::openat(
            dir,
            name.as_os_str(),
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let stat = rustix::fs::fstat(&fd)?;
        if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::RegularFile {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "it is no longer a regular file",
            ));
        }
        let mut bytes = Vec::new();
        std::fs::File::from(fd)
            .take(cap.saturating_add(1))
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 > cap {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("it holds more than {cap} bytes"),
            ));
        }
        Ok(bytes)
    }
}

/// Creates an empty file (mode 0600) in the session directory `dir` for a
/// hook to write into, named `{prefix}-{pid}-{hook}-{n}{suffix}`, as safely
/// as a payload-ref file.
///
/// # Errors
///
/// [`PayloadError::Spill`] when the directory is unsafe or the file cannot
/// be created.
pub(crate) fn create_hook_file(
    dir: &Path,
    root: &Path,
    hook_id: &str,
    prefix: &str,
    suffix: &str,
) -> Result<SpillFile, PayloadError> {
    let err = |source| PayloadError::Spill {
        dir: dir.to_path_buf(),
        source,
    };
    let checked = check_session_dir(dir, root)?;
    let root = root.canonicalize().map_err(err)?;
    let n = SPILL_COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = format!(
        "{prefix}-{}-{}-{n}{suffix}",
        std::process::id(),
        safe_name(hook_id)
    );
    create_spill(&root, &checked, name.as_ref(), |_| Ok(())).map_err(err)
}

/// `id` with every character but ASCII letters, digits, `-` and `_`
/// replaced by `_`, at most 64 characters: part of a file name.
fn safe_name(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect()
}

static SPILL_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Creates the payload-ref file of `input`'s hook in the session directory
/// `dir` and serializes `doc` into it as compact JSON, streamed through a
/// buffer (no copy of the whole text in memory, no pass to measure it
/// first). `Ok(None)` when the text grows over `cap` bytes: the file is
/// removed.
pub(super) fn write_spill<S: serde::Serialize + ?Sized>(
    dir: &Path,
    input: &PayloadInput<'_>,
    doc: &S,
    cap: usize,
) -> Result<Option<SpillFile>, PayloadError> {
    let err = |source| PayloadError::Spill {
        dir: dir.to_path_buf(),
        source,
    };
    let checked = check_session_dir(dir, input.root)?;
    let root = input.root.canonicalize().map_err(err)?;
    let n = SPILL_COUNTER.fetch_add(1, Ordering::Relaxed);
    let safe_id = safe_name(input.hook_id);
    let name = format!("payload-{}-{safe_id}-{n}.json", std::process::id());
    let mut over = false;
    let written = create_spill(&root, &checked, name.as_ref(), |file| {
        let mut capped = Capped::new(file, cap);
        let done = serde_json::to_writer(&mut capped, doc).map_err(io::Error::from);
        over = capped.over;
        done
    });
    match written {
        Ok(file) => Ok(Some(file)),
        Err(_) if over => Ok(None),
        Err(e) => Err(err(e)),
    }
}

/// Creates the payload-ref file `name` (mode 0600) in `dir`, a session
/// directory already checked ([`check_session_dir`]; both paths canonical),
/// and writes `bytes` to it. `dir` is opened one component at a time with
/// `O_NOFOLLOW`, from `root` when it lies inside it, else from `/` (and
/// must then still be private to the user once open), and the file with
/// `O_CREAT | O_EXCL | O_NOFOLLOW` in that directory: a component or the
/// file swapped for a symlink since the check makes this fail instead of
/// writing elsewhere. `fill` writes the contents, through a 64 KiB buffer;
/// on its error the file is removed.
fn create_spill(
    root: &Path,
    dir: &Path,
    name: &OsStr,
    fill: impl FnOnce(&mut io::BufWriter<std::fs::File>) -> io::Result<()>,
) -> io::Result<SpillFile> {
    let (base, rel) = match dir.strip_prefix(root) {
        Ok(rel) => (root, rel),
        Err(_) => (Path::new("/"), dir.strip_prefix("/").unwrap_or(dir)),
    };
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let mut fd = rustix::fs::open(base, dir_flags, Mode::empty())?;
    for part in rel.components() {
        let Component::Normal(part) = part else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the session directory path is not canonical",
            ));
        };
        fd = rustix::fs::openat(&fd, part, dir_flags | OFlags::NOFOLLOW, Mode::empty())?;
    }
    if base != root && {
        let stat = rustix::fs::fstat(&fd)?;
        !is_private(stat.st_mode, stat.st_uid)
    } {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "the session directory outside the workspace root is not private to the user",
        ));
    }
    let file_fd = rustix::fs::openat(
        &fd,
        name,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )?;
    let spill = SpillFile {
        path: dir.join(name),
        entry: Some((fd, name.to_owned())),
    };
    let mut file = io::BufWriter::with_capacity(64 << 10, std::fs::File::from(file_fd));
    fill(&mut file)?;
    file.flush()?;
    Ok(spill)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fills a spill file with `{}`.
    fn braces(file: &mut io::BufWriter<std::fs::File>) -> io::Result<()> {
        file.write_all(b"{}")
    }

    /// A canonical temporary workspace root.
    fn workspace() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        (dir, root)
    }

    #[test]
    fn a_session_dir_swapped_for_a_symlink_after_the_check_is_not_followed() {
        let (_dir, root) = workspace();
        std::fs::create_dir(root.join("session")).unwrap();
        let checked = check_session_dir(&root.join("session"), &root).unwrap();
        // Swap: the checked directory becomes a symlink to a directory
        // outside the root.
        let outside = tempfile::tempdir().unwrap();
        std::fs::rename(root.join("session"), root.join("old")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("session")).unwrap();
        let got = create_spill(&root, &checked, "p.json".as_ref(), braces);
        assert!(got.is_err(), "{got:?}");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
        // A parent of the session directory swapped likewise.
        std::fs::create_dir_all(root.join("a/s")).unwrap();
        let checked = check_session_dir(&root.join("a/s"), &root).unwrap();
        std::fs::create_dir(outside.path().join("s")).unwrap();
        std::fs::rename(root.join("a"), root.join("old-a")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("a")).unwrap();
        assert!(create_spill(&root, &checked, "p.json".as_ref(), braces).is_err());
        assert_eq!(
            std::fs::read_dir(outside.path().join("s")).unwrap().count(),
            0
        );
    }

    #[test]
    fn a_symlink_planted_at_the_ref_file_name_is_not_followed() {
        let (_dir, root) = workspace();
        let session = root.join("session");
        std::fs::create_dir(&session).unwrap();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("stolen.json");
        std::os::unix::fs::symlink(&target, session.join("p.json")).unwrap();
        assert!(create_spill(&root, &session, "p.json".as_ref(), braces).is_err());
        assert!(!target.exists());
        // Unplanted, the file is created 0600 and removed relative to the
        // directory it was created in.
        use std::os::unix::fs::PermissionsExt;
        let spill = create_spill(&root, &session, "q.json".as_ref(), braces).unwrap();
        let mode = std::fs::metadata(spill.path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(std::fs::read(spill.path()).unwrap(), b"{}");
        let path = spill.path().to_path_buf();
        spill.remove().unwrap();
        assert!(!path.exists());
    }
}
