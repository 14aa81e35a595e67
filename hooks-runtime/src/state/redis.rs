//! [`RedisStore`]: session state in a Redis server shared by several
//! replicas (the `redis` feature).

use std::collections::HashMap;
use std::time::Duration;

use redis::aio::ConnectionManager;
use redis::{Client, Script};
use serde_json::Value;

use super::{SessionState, SessionStore, StoreError, StoreFuture, session_key};

/// Resets the counters of a session whose names start with a prefix, in
/// one step, and renews the session's keys.
/// `KEYS`: counters hash, pending hash; `ARGV`: prefix, TTL in ms.
const RESET: &str = r"
local removed = 0
local prefix = ARGV[1]
for _, name in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(name, 1, string.len(prefix)) == prefix then
    redis.call('HDEL', KEYS[1], name)
    removed = removed + 1
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return removed
";

/// Session state in Redis, for several `agent-hooks serve` replicas behind
/// a load balancer (or several machines running `agent-hooks hook`).
///
/// Session `id` is two hashes, `<namespace>:{<sha256(id)>}:counters`
/// (counter name → integer) and `<namespace>:{<sha256(id)>}:pending` (key
/// → JSON text); the braces make both one hash slot in a Redis Cluster.
/// Increments are `HINCRBY`, a take is `HGET` and `HDEL` in one
/// `MULTI`/`EXEC` transaction, a reset one Lua script, so every operation
/// is atomic across replicas. Every write renews both keys' expiry
/// (`PEXPIRE` with the TTL): Redis removes an idle session itself, and
/// [`SessionStore::expire`] has nothing to do.
///
/// The connection is a [`ConnectionManager`]: shared by clones of the
/// store, reconnecting after a failure (the operation that met the failure
/// returns it).
#[derive(Clone)]
pub struct RedisStore {
    conn: ConnectionManager,
    namespace: String,
    ttl: Duration,
    reset: Script,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("namespace", &self.namespace)
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// Connects to the server at `url` (`redis://[user:password@]host:port[/db]`,
    /// `rediss://` for TLS is not built in), keeping a session for `ttl`
    /// after its last write, under the namespace `agent-hooks`.
    ///
    /// # Errors
    ///
    /// [`StoreError::Redis`] when the URL is invalid or the server cannot
    /// be reached.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future drops the connection being opened.
    pub async fn connect(url: &str, ttl: Duration) -> Result<Self, StoreError> {
        let client = Client::open(url)?;
        let conn = ConnectionManager::new(client).await?;
        Ok(RedisStore {
            conn,
            namespace: "agent-hooks".to_owned(),
            ttl,
            reset: Script::new(RESET),
        })
    }

    /// The same store with its keys under `namespace` (several deployments
    /// sharing one server).
    #[must_use]
    pub fn with_namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = namespace.into();
        self
    }

    /// The counters and pending keys of `session`.
    fn keys(&self, session: &str) -> (String, String) {
        let key = session_key(session);
        let ns = &self.namespace;
        (
            format!("{ns}:{{{key}}}:counters"),
            format!("{ns}:{{{key}}}:pending"),
        )
    }

    /// The TTL in milliseconds, at least 1.
    fn ttl_ms(&self) -> i64 {
        i64::try_from(self.ttl.as_millis())
            .unwrap_or(i64::MAX)
            .max(1)
    }
}

/// `text`, the pending value stored under `field` of `key`, parsed.
fn parse(key: &str, field: &str, text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(|source| StoreError::Corrupt {
        location: format!("{key} {field}"),
        source,
    })
}

impl SessionStore for RedisStore {
    fn load<'a>(&'a self, session: &'a str) -> StoreFuture<'a, SessionState> {
        Box::pin(async move {
            let (counters, pending) = self.keys(session);
            let mut conn = self.conn.clone();
            let (counts, values): (HashMap<String, u64>, HashMap<String, String>) = redis::pipe()
                .atomic()
                .hgetall(&counters)
                .hgetall(&pending)
                .query_async(&mut conn)
                .await?;
            let mut state = SessionState::default();
            state.counters.extend(counts);
            for (field, text) in values {
                let value = parse(&pending, &field, &text)?;
                state.pending.insert(field, value);
            }
            Ok(state)
        })
    }

    fn counter<'a>(&'a self, session: &'a str, counter: &'a str) -> StoreFuture<'a, u64> {
        Box::pin(async move {
            let (counters, _) = self.keys(session);
            let mut conn = self.conn.clone();
            let value: Option<u64> = redis::cmd("HGET")
                .arg(&counters)
                .arg(counter)
                .query_async(&mut conn)
                .await?;
            Ok(value.unwrap_or(0))
        })
    }

    fn increment<'a>(
        &'a self,
        session: &'a str,
        counter: &'a str,
        by: u64,
    ) -> StoreFuture<'a, u64> {
        Box::pin(async move {
            let (counters, pending) = self.keys(session);
            let by = i64::try_from(by).unwrap_or(i64::MAX);
            let ms = self.ttl_ms();
            let mut conn = self.conn.clone();
            let (value,): (u64,) = redis::pipe()
                .atomic()
                .hincr(&counters, counter, by)
                .pexpire(&counters, ms)
                .ignore()
                .pexpire(&pending, ms)
                .ignore()
                .query_async(&mut conn)
                .await?;
            Ok(value)
        })
    }

    fn reset<'a>(&'a self, session: &'a str, prefix: &'a str) -> StoreFuture<'a, usize> {
        Box::pin(async move {
            let (counters, pending) = self.keys(session);
            let mut conn = self.conn.clone();
            let removed: usize = self
                .reset
                .key(&counters)
                .key(&pending)
                .arg(prefix)
                .arg(self.ttl_ms())
                .invoke_async(&mut conn)
                .await?;
            Ok(removed)
        })
    }

    fn put<'a>(&'a self, session: &'a str, key: &'a str, value: Value) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let (counters, pending) = self.keys(session);
            let ms = self.ttl_ms();
            let mut conn = self.conn.clone();
            let () = redis::pipe()
                .atomic()
                .hset(&pending, key, value.to_string())
                .ignore()
                .pexpire(&pending, ms)
                .ignore()
                .pexpire(&counters, ms)
                .ignore()
                .query_async(&mut conn)
                .await?;
            Ok(())
        })
    }

    fn take<'a>(&'a self, session: &'a str, key: &'a str) -> StoreFuture<'a, Option<Value>> {
        Box::pin(async move {
            let (counters, pending) = self.keys(session);
            let ms = self.ttl_ms();
            let mut conn = self.conn.clone();
            let (text,): (Option<String>,) = redis::pipe()
                .atomic()
                .hget(&pending, key)
                .hdel(&pending, key)
                .ignore()
                .pexpire(&pending, ms)
                .ignore()
                .pexpire(&counters, ms)
                .ignore()
                .query_async(&mut conn)
                .await?;
            text.map(|text| parse(&pending, key, &text)).transpose()
        })
    }

    fn expire(&self) -> StoreFuture<'_, usize> {
        Box::pin(std::future::ready(Ok(0)))
    }

    fn ttl(&self) -> Duration {
        self.ttl
    }
}
