//! What the invocations of one spec build once and reuse ([`HookCache`]):
//! a dispatch table keeps one beside each rule's spec, a
//! [`ShellHook`](super::ShellHook) beside its own.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

#[cfg(feature = "http")]
use crate::http::{self, HttpTarget};
use crate::shell::exec::Prepared;
use crate::shell::exec::preflight::{Script, script_of};

use super::spec::ProcessTarget;

/// The per-spec state an invocation reuses: built on first use, for the
/// spec it sits beside (which never changes after), and checked on every
/// use against what it was built from where that is outside the spec
/// (the workspace, the environment).
#[derive(Default)]
pub(crate) struct HookCache {
    /// A one-shot process's command.
    pub(super) process: Prepared,
    /// The script a process's interpreter runs (checked to exist before
    /// every spawn).
    script: OnceLock<Option<Script>>,
    /// An `http` hook's URL and static headers.
    #[cfg(feature = "http")]
    http: OnceLock<http::Prepared>,
    /// The files the hook's process runs and the digests they were
    /// trusted with (a table loaded at run time), hashed again before
    /// every spawn; empty for hooks compiled in or built in code.
    pins: Arc<[Pin]>,
}

/// A file a trusted hook runs and the digest it was trusted with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pin {
    /// Absolute.
    pub(crate) path: PathBuf,
    /// [`hooks_plan::file_digest`] of the trusted bytes; `None`: trusted
    /// as missing.
    pub(crate) digest: Option<String>,
}

impl HookCache {
    /// An empty cache whose spawns check `pins` first.
    pub(crate) fn pinned(pins: Arc<[Pin]>) -> HookCache {
        HookCache {
            pins,
            ..HookCache::default()
        }
    }

    /// The first pinned file whose bytes now differ from those trusted
    /// (or that appeared or vanished): one read and one SHA-256 per file,
    /// in the order bound.
    pub(super) fn changed_pin(&self) -> Option<&Pin> {
        self.pins.iter().find(|pin| {
            let now = std::fs::read(&pin.path)
                .ok()
                .map(|b| hooks_plan::file_digest(&b));
            now != pin.digest
        })
    }

    /// The scripts `process` runs, found once (`var`: the variables the
    /// runtime sets for it, which depend on the spec and the workspace
    /// root only).
    pub(super) fn script(
        &self,
        process: &ProcessTarget,
        var: &dyn Fn(&str) -> Option<String>,
    ) -> Option<&Script> {
        self.script
            .get_or_init(|| script_of(&process.form, var))
            .as_ref()
    }
}

#[cfg(feature = "http")]
impl HookCache {
    /// What `target`'s requests share, prepared once.
    pub(super) fn http(&self, target: &HttpTarget) -> &http::Prepared {
        self.http
            .get_or_init(|| http::Prepared::of(target, crate::shell::redact::is_credential_name))
    }
}

impl Clone for HookCache {
    /// An empty cache with the same pins: a clone of a hook builds its
    /// own, and checks the same files.
    fn clone(&self) -> Self {
        HookCache::pinned(self.pins.clone())
    }
}

impl std::fmt::Debug for HookCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookCache").finish_non_exhaustive()
    }
}
