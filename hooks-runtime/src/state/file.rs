//! [`FileStore`]: one JSON file per session, locked with `flock` and
//! replaced atomically.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io::{ErrorKind, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use rustix::fs::{FlockOperation, flock};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{SessionState, SessionStore, StoreError, StoreFuture, session_key};

/// How often a [`FileStore`] expires idle sessions on its own (at most).
const SWEEP_EVERY: Duration = Duration::from_secs(3600);

/// The file whose modification time says when the directory was last
/// swept.
const SWEEP_MARKER: &str = ".expired";

/// Session state in files, shared by every process of the user on this
/// machine (each `agent-hooks hook` call is one).
///
/// Session `id` lives in `<dir>/<sha256(id)>.json` (readable JSON with the
/// id, its counters and pending values; mode 0600, the directory 0700). A
/// write takes an exclusive `flock` on `<sha256(id)>.lock`, reads the
/// file, writes the new state to `<sha256(id)>.tmp` and renames it over
/// the file, so concurrent writers from any number of processes never lose
/// an update and a reader (which takes no lock) sees the old state or the
/// new one, never a torn file. The files are not synced to disk: a power
/// loss may lose the last updates, never corrupt a file.
///
/// A session whose file was not written for the TTL is removed by
/// [`SessionStore::expire`], which a write also runs on its own at most
/// once an hour (the `.expired` file in the directory records when).
///
/// Operations run on tokio's blocking thread pool: they must be called
/// within a tokio runtime (they panic outside one).
#[derive(Debug, Clone)]
pub struct FileStore {
    dir: Arc<Path>,
    ttl: Duration,
}

/// What a session file holds.
#[derive(Serialize, Deserialize)]
struct SessionFile {
    /// The agent's session id (for a person reading the directory).
    session_id: String,
    #[serde(flatten)]
    state: SessionState,
}

/// The files of one session.
struct Files {
    data: PathBuf,
    lock: PathBuf,
    tmp: PathBuf,
}

impl Files {
    fn new(dir: &Path, key: &str) -> Files {
        Files {
            data: dir.join(format!("{key}.json")),
            lock: dir.join(format!("{key}.lock")),
            tmp: dir.join(format!("{key}.tmp")),
        }
    }
}

impl FileStore {
    /// A store in `dir` (created with mode 0700 on the first write),
    /// keeping a session for `ttl` after its last write.
    pub fn new(dir: impl Into<PathBuf>, ttl: Duration) -> Self {
        FileStore {
            dir: dir.into().into(),
            ttl,
        }
    }

    /// The default directory: `$XDG_STATE_HOME/agent-hooks/sessions`, else
    /// `$HOME/.local/state/agent-hooks/sessions` (the XDG Base Directory
    /// specification's state directory); `None` when neither variable is
    /// set.
    pub fn default_dir() -> Option<PathBuf> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let base = var("XDG_STATE_HOME")
            .map(PathBuf::from)
            .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".local/state")))?;
        Some(base.join("agent-hooks").join("sessions"))
    }

    /// The directory of the session files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file that holds `session`'s state (it may not exist yet).
    pub fn session_file(&self, session: &str) -> PathBuf {
        Files::new(&self.dir, &session_key(session)).data
    }

    /// Runs `f` on tokio's blocking pool with this store's directory.
    fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Path) -> Result<T, StoreError> + Send + 'static,
    ) -> StoreFuture<'static, T> {
        let dir = Arc::clone(&self.dir);
        let task = tokio::task::spawn_blocking(move || f(&dir));
        Box::pin(async move {
            task.await.map_err(|e| StoreError::Io {
                path: PathBuf::new(),
                source: std::io::Error::other(e),
            })?
        })
    }

    /// Locks `session`, runs `f` on its state and, when `f` says it
    /// changed it, replaces the file; then sweeps the directory if it is
    /// due.
    fn update<T: Send + 'static>(
        &self,
        session: &str,
        f: impl FnOnce(&mut SessionState) -> (T, bool) + Send + 'static,
    ) -> StoreFuture<'static, T> {
        let session = session.to_owned();
        let ttl = self.ttl;
        self.blocking(move |dir| {
            let files = Files::new(dir, &session_key(&session));
            let lock = lock(dir, &files.lock)?;
            let mut state = read(&files.data)?;
            let (out, changed) = f(&mut state);
            if changed {
                write(&files, session, state)?;
            }
            drop(lock);
            if changed && sweep_due(dir, ttl) {
                expire_dir(dir, ttl)?;
            }
            Ok(out)
        })
    }
}

impl SessionStore for FileStore {
    fn load<'a>(&'a self, session: &'a str) -> StoreFuture<'a, SessionState> {
        let key = session_key(session);
        self.blocking(move |dir| read(&Files::new(dir, &key).data))
    }

    fn counter<'a>(&'a self, session: &'a str, counter: &'a str) -> StoreFuture<'a, u64> {
        let key = session_key(session);
        let counter = counter.to_owned();
        self.blocking(move |dir| {
            let state = read(&Files::new(dir, &key).data)?;
            Ok(state.counters.get(&counter).copied().unwrap_or(0))
        })
    }

    fn increment<'a>(
        &'a self,
        session: &'a str,
        counter: &'a str,
        by: u64,
    ) -> StoreFuture<'a, u64> {
        let counter = counter.to_owned();
        self.update(session, move |state| {
            let value = state.counters.entry(counter).or_insert(0);
            *value = value.saturating_add(by);
            (*value, true)
        })
    }

    fn reset<'a>(&'a self, session: &'a str, prefix: &'a str) -> StoreFuture<'a, usize> {
        let prefix = prefix.to_owned();
        self.update(session, move |state| {
            let before = state.counters.len();
            state.counters.retain(|name, _| !name.starts_with(&prefix));
            let removed = before - state.counters.len();
            (removed, removed > 0)
        })
    }

    fn put<'a>(&'a self, session: &'a str, key: &'a str, value: Value) -> StoreFuture<'a, ()> {
        let key = key.to_owned();
        self.update(session, move |state| {
            state.pending.insert(key, value);
            ((), true)
        })
    }

    fn take<'a>(&'a self, session: &'a str, key: &'a str) -> StoreFuture<'a, Option<Value>> {
        let key = key.to_owned();
        self.update(session, move |state| {
            let taken = state.pending.remove(&key);
            let changed = taken.is_some();
            (taken, changed)
        })
    }

    fn expire(&self) -> StoreFuture<'_, usize> {
        let ttl = self.ttl;
        self.blocking(move |dir| expire_dir(dir, ttl))
    }

    fn ttl(&self) -> Duration {
        self.ttl
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Opens and exclusively locks `path` (created in `dir` if missing). The
/// lock is released when the returned file is dropped.
///
/// The lock file is the same file as `path` when this returns: a sweep
/// removes an expired session's lock file while holding its lock, so a
/// process that was waiting on the removed file locks the new one instead.
fn lock(dir: &Path, path: &Path) -> Result<File, StoreError> {
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io(dir))?;
    loop {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(path)
            .map_err(io(path))?;
        flock(&file, FlockOperation::LockExclusive).map_err(|e| io(path)(e.into()))?;
        let held = file.metadata().map_err(io(path))?;
        match std::fs::metadata(path) {
            Ok(now) if now.ino() == held.ino() && now.dev() == held.dev() => return Ok(file),
            Ok(_) => continue,
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(e) => return Err(io(path)(e)),
        }
    }
}

/// The state in `path`; a missing file is the empty state.
fn read(path: &Path) -> Result<SessionState, StoreError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice::<SessionFile>(&bytes)
            .map(|file| file.state)
            .map_err(|source| StoreError::Corrupt {
                location: path.display().to_string(),
                source,
            }),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(SessionState::default()),
        Err(e) => Err(io(path)(e)),
    }
}

/// Writes `state` to the temporary file and renames it over the data file
/// (under the session's lock).
fn write(files: &Files, session_id: String, state: SessionState) -> Result<(), StoreError> {
    let file = SessionFile { session_id, state };
    let bytes = serde_json::to_vec(&file).map_err(|source| StoreError::Corrupt {
        location: files.data.display().to_string(),
        source,
    })?;
    let mut tmp = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&files.tmp)
        .map_err(io(&files.tmp))?;
    tmp.write_all(&bytes).map_err(io(&files.tmp))?;
    drop(tmp);
    std::fs::rename(&files.tmp, &files.data).map_err(io(&files.data))
}

/// Whether the directory was last swept longer ago than the sweep period
/// (or the TTL, when shorter); if so, marks it swept now.
fn sweep_due(dir: &Path, ttl: Duration) -> bool {
    let marker = dir.join(SWEEP_MARKER);
    let period = SWEEP_EVERY.min(ttl);
    let due = match std::fs::metadata(&marker).and_then(|m| m.modified()) {
        Ok(swept) => swept.elapsed().is_ok_and(|age| age > period),
        Err(_) => true,
    };
    if due {
        // Best effort: a marker that cannot be written means another sweep
        // soon, not a failed write.
        let _ = File::create(&marker).and_then(|f| f.set_modified(SystemTime::now()));
    }
    due
}

/// Removes every session in `dir` whose file was not written for longer
/// than `ttl` (each under its lock); returns how many.
fn expire_dir(dir: &Path, ttl: Duration) -> Result<usize, StoreError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(io(dir)(e)),
    };
    let mut keys: Vec<String> = entries
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            let (key, ext) = name.split_once('.')?;
            let ours = key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit());
            (ours && matches!(ext, "json" | "lock" | "tmp")).then(|| key.to_owned())
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    let mut removed = 0;
    for key in keys {
        let files = Files::new(dir, &key);
        let _lock = lock(dir, &files.lock)?;
        let written = match std::fs::metadata(&files.data) {
            Ok(meta) => meta.modified(),
            Err(e) if e.kind() == ErrorKind::NotFound => {
                std::fs::metadata(&files.lock).and_then(|m| m.modified())
            }
            Err(e) => Err(e),
        }
        .map_err(io(&files.data))?;
        if !written.elapsed().is_ok_and(|age| age > ttl) {
            continue;
        }
        for path in [&files.data, &files.tmp, &files.lock] {
            match std::fs::remove_file(path) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => return Err(io(path)(e)),
            }
        }
        removed += 1;
    }
    Ok(removed)
}
