//! The agent's session identity an event line or a transcript gives.

use std::path::PathBuf;

use hooks_runtime::{HookContext, OwnedEvent};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Parses one event line that may carry session identity keys
/// ([`Identity::KEYS`]) beside the event's own: the event, and the
/// identity. A leading byte order mark is skipped.
///
/// # Errors
///
/// As [`OwnedEvent::from_json`]; an identity key that is not a string.
pub fn read_event_line(text: &str) -> Result<(OwnedEvent, Identity), serde_json::Error> {
    let mut value: Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))?;
    let identity = Identity::take_from(&mut value)?;
    Ok((serde_json::from_value(value)?, identity))
}

/// The agent's session identity an event line or a transcript gives: what
/// [`HookContext`]'s `with_session_id`, `with_transcript_path`, `with_cwd`
/// and `with_permission_mode` set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Identity {
    /// The session id (`session_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The transcript path (`transcript_path`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<PathBuf>,
    /// The agent's working directory (`cwd`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// The permission mode (`permission_mode`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<String>,
}

impl Identity {
    /// The keys of an event line that belong to the identity.
    pub const KEYS: [&'static str; 4] = ["session_id", "transcript_path", "cwd", "permission_mode"];

    /// Removes the identity keys from the JSON object `value` and returns
    /// them (nothing when `value` is not an object).
    ///
    /// # Errors
    ///
    /// A key whose value is not a string.
    pub fn take_from(value: &mut Value) -> Result<Identity, serde_json::Error> {
        let mut taken = serde_json::Map::new();
        if let Some(map) = value.as_object_mut() {
            for key in Identity::KEYS {
                if let Some(v) = map.remove(key) {
                    taken.insert(key.to_owned(), v);
                }
            }
        }
        serde_json::from_value(Value::Object(taken))
    }

    /// Fills the fields `self` lacks from `other`.
    pub(super) fn or(&mut self, other: Identity) {
        self.session_id = self.session_id.take().or(other.session_id);
        self.transcript_path = self.transcript_path.take().or(other.transcript_path);
        self.cwd = self.cwd.take().or(other.cwd);
        self.permission_mode = self.permission_mode.take().or(other.permission_mode);
    }

    /// `ctx` with the fields this identity sets.
    #[must_use]
    pub fn apply(&self, mut ctx: HookContext) -> HookContext {
        if let Some(id) = &self.session_id {
            ctx = ctx.with_session_id(id.as_str());
        }
        if let Some(path) = &self.transcript_path {
            ctx = ctx.with_transcript_path(path);
        }
        if let Some(cwd) = &self.cwd {
            ctx = ctx.with_cwd(cwd);
        }
        if let Some(mode) = &self.permission_mode {
            ctx = ctx.with_permission_mode(mode.as_str());
        }
        ctx
    }
}
