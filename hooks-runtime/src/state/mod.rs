//! Session state that outlives one call: counters and pending values per
//! agent session, in a [`SessionStore`].
//!
//! An agent that runs its hooks as a command (`agent-hooks hook`) starts a
//! new process per event, and a fleet runs several `agent-hooks serve`
//! replicas behind a load balancer: what one call learns about a session
//! (how many times its stop hooks resumed the agent in this user turn, an
//! approval still pending) must reach the next call, in another process or
//! on another machine. A [`SessionStore`] keeps it, keyed by the agent's
//! session id ([`HookContext::session_id`](crate::HookContext::session_id)):
//!
//! - [`MemoryStore`]: in this process only (one long-running agent, tests);
//! - [`FileStore`]: one file per session in the user's state directory,
//!   locked with `flock` and replaced atomically, so separate processes on
//!   one machine share it (the default of `agent-hooks hook`);
//! - `RedisStore` (the `redis` feature): one Redis server shared by every
//!   replica.
//!
//! Every store expires a session that was not written for its TTL
//! ([`SessionStore::ttl`]). [`HookStack::with_session_store`](crate::HookStack::with_session_store)
//! makes the stop-resume cap count through a store. `docs/session-state.md`
//! in the repository says where the files live and how to configure Redis.
//!
//! ```
//! use std::time::Duration;
//! use hooks_runtime::state::{MemoryStore, SessionStore};
//!
//! let runtime = tokio::runtime::Builder::new_current_thread().build()?;
//! runtime.block_on(async {
//!     let store = MemoryStore::new(Duration::from_secs(3600));
//!     assert_eq!(store.increment("session-1", "retries", 1).await?, 1);
//!     assert_eq!(store.increment("session-1", "retries", 2).await?, 3);
//!     store.put("session-1", "approval/call-7", serde_json::json!({"tool": "bash"})).await?;
//!     let state = store.load("session-1").await?;
//!     assert_eq!(state.counters["retries"], 3);
//!     assert!(store.take("session-1", "approval/call-7").await?.is_some());
//!     assert!(store.take("session-1", "approval/call-7").await?.is_none());
//!     Ok::<_, hooks_runtime::state::StoreError>(())
//! })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

mod file;
pub(crate) mod marks;
mod memory;
#[cfg(feature = "redis")]
mod redis;

pub use file::FileStore;
pub use memory::MemoryStore;
#[cfg(feature = "redis")]
pub use redis::RedisStore;

/// The environment variable that picks the store of [`from_env`]: a
/// `redis://` or `rediss://` URL (the `redis` feature), else a directory
/// for a [`FileStore`]. Unset or empty: [`FileStore::default_dir`].
pub const SESSION_STORE_ENV: &str = "AGENT_HOOKS_SESSION_STORE";

/// How long a session is kept after its last write unless configured
/// otherwise: 7 days (an agent session can be resumed days later).
pub const DEFAULT_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

/// The counter of the agent's own stop resumes in the current user turn;
/// a subagent's is this name, `/` and its id ([`stop_resumes_counter`]).
/// Counter names starting with `stop.` are the runtime's.
pub const STOP_RESUMES: &str = "stop.resumes";

/// The counter name of the stop resumes of `agent` (`""`: the agent
/// itself, [`STOP_RESUMES`]; else `stop.resumes/<agent>`).
pub fn stop_resumes_counter(agent: &str) -> String {
    if agent.is_empty() {
        STOP_RESUMES.to_owned()
    } else {
        format!("{STOP_RESUMES}/{agent}")
    }
}

/// What a store knows about one session. A session never written reads as
/// the empty state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionState {
    /// Counters by name; a counter never incremented (or reset) is absent.
    #[serde(default)]
    pub counters: BTreeMap<String, u64>,
    /// Pending values by key ([`SessionStore::put`]), until taken.
    #[serde(default)]
    pub pending: BTreeMap<String, Value>,
}

/// Why a store could not read or write a session.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// A file of a [`FileStore`] could not be read, written, locked or
    /// removed.
    #[error("session state `{}`: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A session file or a pending value in Redis is not what the store
    /// wrote (edited or truncated by something else).
    #[error("session state `{location}` is not valid: {source}")]
    Corrupt {
        /// The file, or the Redis key and field.
        location: String,
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// No state directory: neither `$XDG_STATE_HOME` nor `$HOME` is set.
    #[error(
        "no directory for session state: set `XDG_STATE_HOME` or `HOME`, or `{SESSION_STORE_ENV}`"
    )]
    NoStateDir,
    /// A URL in `AGENT_HOOKS_SESSION_STORE` names Redis and this build has
    /// no `redis` feature.
    #[error(
        "`{SESSION_STORE_ENV}` is a Redis URL, and this build of agent-hooks has no `redis` feature"
    )]
    RedisOff,
    /// The Redis server refused or failed a command, or could not be
    /// reached.
    #[cfg(feature = "redis")]
    #[error("session state in Redis: {0}")]
    Redis(#[from] ::redis::RedisError),
}

/// The future a [`SessionStore`] returns (boxed: the trait is used as
/// `dyn SessionStore`, and a store call costs a file or network round trip
/// anyway).
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Per-session state shared by the calls of one agent session: counters
/// updated atomically, pending values put once and taken once, and expiry
/// of idle sessions.
///
/// `session` is the agent's session id as it sent it (any string: stores
/// hash it for file names and keys). A write (`increment`, `reset`, `put`,
/// a `take` that found a value) renews the session's TTL.
///
/// # Errors
///
/// Every operation fails with a [`StoreError`] when the backing file or
/// server fails; the operation then did not happen (a file store writes a
/// session's new state atomically, Redis runs each operation as one
/// transaction or script).
///
/// # Cancel safety
///
/// Dropping a returned future may leave the operation done or not done,
/// never half done.
pub trait SessionStore: Send + Sync {
    /// Everything the store has on `session` (the empty state if nothing).
    fn load<'a>(&'a self, session: &'a str) -> StoreFuture<'a, SessionState>;

    /// The value of `counter` of `session` (0 if it was never incremented).
    fn counter<'a>(&'a self, session: &'a str, counter: &'a str) -> StoreFuture<'a, u64>;

    /// Adds `by` to `counter` of `session` atomically (concurrent
    /// increments from any number of tasks or processes all count) and
    /// returns the new value (saturating at `i64::MAX` in Redis and at
    /// `u64::MAX` elsewhere).
    fn increment<'a>(&'a self, session: &'a str, counter: &'a str, by: u64)
    -> StoreFuture<'a, u64>;

    /// Resets to 0 (removes) every counter of `session` whose name starts
    /// with `prefix` (a full name resets that counter), atomically, and
    /// returns how many there were.
    fn reset<'a>(&'a self, session: &'a str, prefix: &'a str) -> StoreFuture<'a, usize>;

    /// Stores `value` under `key` for `session`, replacing any pending
    /// value of that key.
    fn put<'a>(&'a self, session: &'a str, key: &'a str, value: Value) -> StoreFuture<'a, ()>;

    /// Removes and returns the value pending under `key` for `session`:
    /// of several concurrent takes, exactly one gets it.
    fn take<'a>(&'a self, session: &'a str, key: &'a str) -> StoreFuture<'a, Option<Value>>;

    /// Removes every session not written for longer than [`SessionStore::ttl`]
    /// and returns how many it removed (Redis expires keys itself: 0).
    /// A [`FileStore`] also runs this on its own, at most once an hour.
    fn expire(&self) -> StoreFuture<'_, usize>;

    /// How long a session is kept after its last write.
    fn ttl(&self) -> Duration;
}

/// The store `AGENT_HOOKS_SESSION_STORE` names ([`SESSION_STORE_ENV`]): a
/// [`RedisStore`](crate::state) for a `redis://` or `rediss://` URL, else a
/// [`FileStore`] in that directory, else (unset or empty) a
/// [`FileStore`] in [`FileStore::default_dir`]; sessions kept for `ttl`
/// after their last write.
///
/// # Errors
///
/// [`StoreError::NoStateDir`] without a directory, [`StoreError::RedisOff`]
/// for a Redis URL in a build without the `redis` feature, and the Redis
/// client's error when the URL is invalid or the server cannot be reached.
///
/// # Cancel safety
///
/// Dropping the future drops a connection being opened.
pub async fn from_env(ttl: Duration) -> Result<Arc<dyn SessionStore>, StoreError> {
    let chosen = std::env::var(SESSION_STORE_ENV).unwrap_or_default();
    if chosen.starts_with("redis://") || chosen.starts_with("rediss://") {
        #[cfg(feature = "redis")]
        return Ok(Arc::new(RedisStore::connect(&chosen, ttl).await?));
        #[cfg(not(feature = "redis"))]
        return Err(StoreError::RedisOff);
    }
    let dir = if chosen.is_empty() {
        FileStore::default_dir().ok_or(StoreError::NoStateDir)?
    } else {
        PathBuf::from(chosen)
    };
    Ok(Arc::new(FileStore::new(dir, ttl)))
}

/// The key of `session` in file names and Redis keys: the SHA-256 of its
/// bytes in lowercase hex (64 characters), so any id — with `/`, `..`,
/// control characters, thousands of bytes — is one safe name.
fn session_key(session: &str) -> String {
    let digest = Sha256::digest(session.as_bytes());
    let mut hex = String::with_capacity(64);
    for byte in digest {
        use std::fmt::Write as _;
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_keys_are_hex_digests_whatever_the_id() {
        for id in ["", "a", "../../etc/passwd", "a/b", "\u{1}\u{7f}é", "x y"] {
            let key = session_key(id);
            assert_eq!(key.len(), 64, "{id:?}");
            assert!(key.bytes().all(|b| b.is_ascii_hexdigit()), "{id:?}");
        }
        assert_ne!(session_key("a/b"), session_key("a_b"));
    }

    #[test]
    fn subagent_counters_are_under_the_agents_prefix() {
        assert_eq!(stop_resumes_counter(""), STOP_RESUMES);
        assert_eq!(stop_resumes_counter("sub-1"), "stop.resumes/sub-1");
    }
}
