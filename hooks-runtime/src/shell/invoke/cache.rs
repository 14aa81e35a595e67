//! What the invocations of one spec build once and reuse ([`HookCache`]):
//! a dispatch table keeps one beside each rule's spec, a
//! [`ShellHook`](super::ShellHook) beside its own.

use std::sync::OnceLock;

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
}

impl HookCache {
    /// The script `process` runs an interpreter on, found once.
    pub(super) fn script(&self, process: &ProcessTarget) -> Option<&Script> {
        self.script
            .get_or_init(|| script_of(&process.form))
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
    /// An empty cache: a clone of a hook builds its own.
    fn clone(&self) -> Self {
        HookCache::default()
    }
}

impl std::fmt::Debug for HookCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookCache").finish_non_exhaustive()
    }
}
