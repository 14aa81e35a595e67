//! [`MemoryStore`]: session state in this process's memory.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{SessionState, SessionStore, StoreFuture};

/// Session state in this process only: for one long-running agent (or one
/// `serve` replica alone) and for tests. Every operation is atomic (one
/// mutex, never held across an `.await`); nothing is shared with other
/// processes or survives this one.
#[derive(Debug)]
pub struct MemoryStore {
    sessions: Mutex<HashMap<String, Entry>>,
    ttl: Duration,
}

#[derive(Debug)]
struct Entry {
    state: SessionState,
    written: Instant,
}

impl MemoryStore {
    /// An empty store that keeps a session for `ttl` after its last write
    /// (removed by [`SessionStore::expire`]).
    pub fn new(ttl: Duration) -> Self {
        MemoryStore {
            sessions: Mutex::new(HashMap::new()),
            ttl,
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on `session`'s state, created empty if absent, and marks
    /// it written now.
    fn write<R>(&self, session: &str, f: impl FnOnce(&mut SessionState) -> R) -> R {
        let mut sessions = self.lock();
        let entry = sessions.entry(session.to_owned()).or_insert_with(|| Entry {
            state: SessionState::default(),
            written: Instant::now(),
        });
        entry.written = Instant::now();
        f(&mut entry.state)
    }
}

impl SessionStore for MemoryStore {
    fn load<'a>(&'a self, session: &'a str) -> StoreFuture<'a, SessionState> {
        let state = self.lock().get(session).map(|e| e.state.clone());
        Box::pin(std::future::ready(Ok(state.unwrap_or_default())))
    }

    fn counter<'a>(&'a self, session: &'a str, counter: &'a str) -> StoreFuture<'a, u64> {
        let value = self
            .lock()
            .get(session)
            .and_then(|e| e.state.counters.get(counter).copied());
        Box::pin(std::future::ready(Ok(value.unwrap_or(0))))
    }

    fn increment<'a>(
        &'a self,
        session: &'a str,
        counter: &'a str,
        by: u64,
    ) -> StoreFuture<'a, u64> {
        let value = self.write(session, |state| {
            let value = state.counters.entry(counter.to_owned()).or_insert(0);
            *value = value.saturating_add(by);
            *value
        });
        Box::pin(std::future::ready(Ok(value)))
    }

    fn reset<'a>(&'a self, session: &'a str, prefix: &'a str) -> StoreFuture<'a, usize> {
        let removed = self.write(session, |state| {
            let before = state.counters.len();
            state.counters.retain(|name, _| !name.starts_with(prefix));
            before - state.counters.len()
        });
        Box::pin(std::future::ready(Ok(removed)))
    }

    fn put<'a>(&'a self, session: &'a str, key: &'a str, value: Value) -> StoreFuture<'a, ()> {
        self.write(session, |state| {
            state.pending.insert(key.to_owned(), value);
        });
        Box::pin(std::future::ready(Ok(())))
    }

    fn take<'a>(&'a self, session: &'a str, key: &'a str) -> StoreFuture<'a, Option<Value>> {
        let mut sessions = self.lock();
        let taken = sessions.get_mut(session).and_then(|entry| {
            let value = entry.state.pending.remove(key)?;
            entry.written = Instant::now();
            Some(value)
        });
        Box::pin(std::future::ready(Ok(taken)))
    }

    fn expire(&self) -> StoreFuture<'_, usize> {
        let mut sessions = self.lock();
        let before = sessions.len();
        sessions.retain(|_, entry| entry.written.elapsed() <= self.ttl);
        let removed = before - sessions.len();
        Box::pin(std::future::ready(Ok(removed)))
    }

    fn ttl(&self) -> Duration {
        self.ttl
    }
}
