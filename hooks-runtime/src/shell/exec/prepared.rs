//! A command built once and spawned for many runs of the same request
//! ([`Prepared`]): a hook that runs one process per event would otherwise
//! rebuild its argv, environment and cwd (and copy them into the standard
//! library's `Command`) on every event.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::process::{Child, Command};

use super::command::ExecRequest;
use super::executor::{Executor, spawn};
use super::outcome::ExecFailure;
use super::preflight::resolve_cwd;
use crate::core::report::FailureKind;

/// The command of one request shape, kept between runs
/// ([`Executor::run_prepared`]).
///
/// Each run checks first that what the command was built from is still
/// what a fresh build would read: the executor's workspace root, the
/// canonical cwd (resolved again, so a cwd that was removed or now leads
/// outside the root is refused as by [`Executor::run`]), and the parent's
/// value of every environment variable the build read (`PATH` among them).
/// When something changed the command is built again; otherwise it is
/// spawned as it is (the standard library respawns a `Command`, with new
/// pipes, as often as asked). Concurrent runs spawn one at a time.
///
/// The exec form's program, looked up in the child's `PATH` when the
/// command was built, is not looked up again on every run (that costs a
/// `statx` per `PATH` entry before the match): the lookup depends only on
/// the child's `PATH` and the cwd, both compared above, and on the file
/// system. A program removed or moved since makes the spawn fail; the
/// command is then built again (looking the name up afresh) and spawned
/// once more, so the run fails only when a fresh build would. A program
/// installed since in an earlier `PATH` entry, shadowing the one found,
/// is used from the next build on (a change of environment or cwd).
#[derive(Default)]
pub(crate) struct Prepared {
    slot: Mutex<Option<Entry>>,
}

/// A built command and what it was built from.
struct Entry {
    root: Arc<Path>,
    req: ExecRequest,
    cwd: PathBuf,
    /// Each variable the environment was built from, with the parent's
    /// value then, in the order they were read.
    parent: Vec<(String, Option<OsString>)>,
    command: Command,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared").finish_non_exhaustive()
    }
}

impl Prepared {
    /// Spawns the command of the request `shape` builds (called only when
    /// there is no command for `executor`'s root yet), building it first
    /// when needed; the request's stdin decides whether stdin is piped.
    /// `stdin` is written as the executor's `spawn` writes it: returns the
    /// child and what is still to write.
    ///
    /// # Errors
    ///
    /// A `spawn_failed` failure: a preflight refusal (its message, as
    /// [`Executor::run`] reports it) or the OS's spawn error.
    pub(crate) fn spawn<'s>(
        &self,
        executor: &Executor,
        shape: impl FnOnce() -> ExecRequest,
        stdin: Option<&'s [u8]>,
    ) -> Result<(Child, Option<&'s [u8]>), ExecFailure> {
        let refused = |err: super::PreflightError| {
            ExecFailure::new(FailureKind::SpawnFailed, err.to_string())
        };
        let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
        let req = match slot.take() {
            Some(mut entry) if *entry.root == *executor.workspace_root() => {
                match entry.fits(executor.workspace_root()) {
                    Ok(true) => match spawn(&mut entry.command, stdin) {
                        Ok(child) => {
                            *slot = Some(entry);
                            return Ok(child);
                        }
                        // Built again below: the program may have moved.
                        Err(_) => entry.req,
                    },
                    Ok(false) => entry.req,
                    Err(err) => {
                        *slot = Some(entry);
                        return Err(refused(err));
                    }
                }
            }
            _ => shape(),
        };
        let mut parent = Vec::new();
        let built = executor
            .command_reading(&req, |name| {
                let value = std::env::var_os(name);
                parent.push((name.to_owned(), value.clone()));
                value
            })
            .map_err(refused)?;
        let mut entry = Entry {
            root: Arc::clone(executor.root()),
            req,
            cwd: built.cwd,
            parent,
            command: built.command,
        };
        let child = spawn(&mut entry.command, stdin);
        *slot = Some(entry);
        child
    }
}

impl Entry {
    /// Whether a build now, under `root`, would read what this command was
    /// built from.
    ///
    /// # Errors
    ///
    /// The cwd's preflight refusal, as a build would report it.
    fn fits(&self, root: &Path) -> Result<bool, super::PreflightError> {
        if let Some(cwd) = self.req.cwd.as_deref()
            && resolve_cwd(root, Some(cwd))? != self.cwd
        {
            return Ok(false);
        }
        Ok(!self
            .parent
            .iter()
            .any(|(name, value)| std::env::var_os(name) != *value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CancellationToken;
    use crate::shell::exec::executor::Launch;
    use crate::shell::exec::outcome::ExecStatus;

    fn launch(stdin: &[u8]) -> Launch<'_> {
        Launch {
            stdin: Some(stdin),
            timeout: std::time::Duration::from_secs(10),
            stdout_cap: 1024,
            stderr_cap: 1024,
        }
    }

    /// The command is built once and respawned; a cwd that went away is
    /// refused like a fresh build refuses it, and one that came back is
    /// used again.
    #[tokio::test]
    async fn respawns_and_follows_its_cwd() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let executor = Executor::new(dir.path()).unwrap();
        let prepared = Prepared::default();
        let cancel = CancellationToken::new();
        let shapes = std::cell::Cell::new(0);
        let shape = || {
            shapes.set(shapes.get() + 1);
            let mut req = ExecRequest::shell("read -r line; printf '%s:' \"$line\"; pwd");
            req.cwd = Some("sub".into());
            req.stdin = Some(Vec::new());
            req
        };
        for input in [&b"one"[..], b"two"] {
            let out = executor
                .run_prepared(&prepared, shape, launch(input), &cancel)
                .await;
            assert_eq!(out.status, ExecStatus::Exited(0), "{out:?}");
            let expected = format!(
                "{}:{}\n",
                String::from_utf8_lossy(input),
                executor.workspace_root().join("sub").display()
            );
            assert_eq!(String::from_utf8_lossy(&out.stdout.bytes), expected);
        }
        assert_eq!(shapes.get(), 1, "the request is shaped once");
        std::fs::remove_dir(dir.path().join("sub")).unwrap();
        let out = executor
            .run_prepared(&prepared, shape, launch(b"x"), &cancel)
            .await;
        let failure = out.status.failure().expect("a missing cwd is refused");
        assert_eq!(failure.kind, FailureKind::SpawnFailed);
        let fresh = executor.run(&shape(), &cancel).await;
        assert_eq!(
            Some(&failure.detail),
            fresh.status.failure().map(|f| &f.detail)
        );
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let out = executor
            .run_prepared(&prepared, shape, launch(b"back"), &cancel)
            .await;
        assert_eq!(out.status, ExecStatus::Exited(0), "{out:?}");
    }

    /// The exec form's program is not looked up again while the child's
    /// `PATH` and cwd stay the same; moved to another `PATH` entry, it is
    /// found again (the failed spawn rebuilds the command); removed, the
    /// run fails as a fresh build's does.
    #[tokio::test]
    async fn a_moved_program_is_found_again() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        std::fs::write(a.join("prog"), "#!/bin/sh\necho ran\n").unwrap();
        std::fs::set_permissions(a.join("prog"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let executor = Executor::new(dir.path()).unwrap();
        let prepared = Prepared::default();
        let cancel = CancellationToken::new();
        let shapes = std::cell::Cell::new(0);
        let shape = || {
            shapes.set(shapes.get() + 1);
            let mut req = ExecRequest::exec(["prog"]);
            req.env.set.push((
                "PATH".into(),
                format!("{}:{}:/usr/bin:/bin", a.display(), b.display()),
            ));
            req.stdin = Some(Vec::new());
            req
        };
        let run = || executor.run_prepared(&prepared, shape, launch(b""), &cancel);
        let out = run().await;
        assert_eq!(out.status, ExecStatus::Exited(0), "{out:?}");
        assert_eq!(out.stdout.bytes, b"ran\n");
        std::fs::rename(a.join("prog"), b.join("prog")).unwrap();
        let out = run().await;
        assert_eq!(out.status, ExecStatus::Exited(0), "{out:?}");
        assert_eq!(shapes.get(), 1, "rebuilt from the kept request");
        std::fs::remove_file(b.join("prog")).unwrap();
        let out = run().await;
        let failure = out.status.failure().expect("a removed program fails");
        assert_eq!(failure.kind, FailureKind::SpawnFailed);
        let fresh = executor.run(&shape(), &cancel).await;
        assert_eq!(
            Some(&failure.detail),
            fresh.status.failure().map(|f| &f.detail)
        );
    }

    /// A cancelled token fails the run before anything is spawned.
    #[tokio::test]
    async fn a_cancelled_run_spawns_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let executor = Executor::new(dir.path()).unwrap();
        let cancel = CancellationToken::new();
        cancel.cancel();
        let out = executor
            .run_prepared(
                &Prepared::default(),
                || unreachable!("nothing is built"),
                launch(b""),
                &cancel,
            )
            .await;
        assert_eq!(out.pid, None);
        assert_eq!(out.status.failure().unwrap().kind, FailureKind::Cancelled);
    }
}
