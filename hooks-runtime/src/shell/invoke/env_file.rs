//! Claude Code's `CLAUDE_ENV_FILE` for `run_start` hooks of `protocol:
//! claude`: the runtime hands each such hook an empty file in the session
//! directory, named by the variable, and reads back the `export NAME=VALUE`
//! lines it wrote ([`env_assignments`]) as the variables the hook sets
//! ([`Flow::SetEnv`](crate::Flow::SetEnv)). Source: Claude Code's hooks
//! reference, *SessionStart* ("Persist environment variables").

use hooks_plan::{Phase, Protocol, script::env_assignments};

use super::ProcessTarget;
use super::call::Call;
use crate::EnvVars;
use crate::shell::payload::{SpillFile, create_hook_file};

/// The variable naming the file, as Claude Code sets it.
pub(super) const CLAUDE_ENV_FILE: &str = "CLAUDE_ENV_FILE";

/// The most of the file read back (64 KiB).
const MAX_ENV_FILE_BYTES: u64 = 64 * 1024;

impl Call<'_> {
    /// An empty environment file for this call of `process`, when it is a
    /// one-shot `protocol: claude` process on `run_start` and the runtime
    /// has a session directory; `None` otherwise, or when the file cannot
    /// be created (a diagnostic says so, and the hook runs without it).
    pub(super) fn env_file(&mut self, process: &ProcessTarget) -> Option<SpillFile> {
        let wanted = self.phase == Phase::RunStart
            && self.spec.protocol == Protocol::Claude
            && process.worker.is_none();
        let dir = self.rt.session_dir.as_deref().filter(|_| wanted)?;
        let root = self.rt.executor.workspace_root();
        match create_hook_file(dir, root, &self.spec.id, "env", ".sh") {
            Ok(file) => Some(file),
            Err(e) => {
                let message = format!("no {CLAUDE_ENV_FILE} for the hook: {e}");
                let redacted = self.redact(&message);
                self.diagnostics.push(redacted);
                None
            }
        }
    }

    /// Reads back what the hook wrote into `file` and removes it: the
    /// variables it sets (values expanded from the agent's environment,
    /// [`env_assignments`]) into [`Call::env_set`]; the lines it could not
    /// read into [`Call::env_notes`], for the record.
    pub(super) fn read_env_file(&mut self, file: SpillFile) {
        let bytes = match file.read_back(MAX_ENV_FILE_BYTES) {
            Ok(bytes) => bytes,
            Err(e) => {
                let message = format!("{CLAUDE_ENV_FILE} not read: {e}");
                let redacted = self.redact(&message);
                self.env_notes.push(redacted.clone());
                self.diagnostics.push(redacted);
                return;
            }
        };
        let _ = file.remove();
        let text = String::from_utf8_lossy(&bytes);
        let (set, skipped) = env_assignments(&text, &|name| std::env::var(name).ok());
        self.env_notes = skipped
            .into_iter()
            .map(|line| format!("{CLAUDE_ENV_FILE}: skipped {line}"))
            .collect();
        self.env_set = set.into_iter().collect::<EnvVars>();
    }
}
