//! The server's shared state and hot reload: the handler behind an atomic
//! swap, rebuilt by the loader on request (SIGHUP in the binary) and when
//! a watched file's content digest changes.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, RwLock};

use hooks_runtime::{SecretSet, redact_sensitive_text};
use sha2::{Digest as _, Sha256};

use super::metrics::Metrics;
use super::{BoxError, Handler, Options};

/// Builds a handler (the loader [`Server::bind`](super::Server::bind) took).
pub(crate) type Loader<H> = Arc<dyn Fn() -> Result<H, BoxError> + Send + Sync>;

/// A reload failed; the previous handler keeps serving.
#[derive(Debug, thiserror::Error)]
#[error("reload failed, the previous hook engine keeps serving: {0}")]
pub struct ReloadError(#[source] pub BoxError);

/// What every request and the control handle share.
pub(crate) struct State<H> {
    /// The current handler: a request clones the `Arc` and keeps it to the
    /// end, so a swap never disturbs a running request.
    handler: RwLock<Arc<H>>,
    loader: Loader<H>,
    /// Held while a reload runs: reloads are serialized.
    reloading: tokio::sync::Mutex<()>,
    pub(crate) options: Options,
    pub(crate) metrics: Metrics,
    /// Set when shutdown was asked: `/readyz` answers 503.
    pub(crate) draining: AtomicBool,
    /// The concurrency slots of the hook endpoints.
    pub(crate) slots: tokio::sync::Semaphore,
    /// Connections being served (their tasks not ended).
    pub(crate) connections: std::sync::atomic::AtomicUsize,
    /// The watched files' digests when the first handler was loaded.
    watched: Vec<Option<[u8; 32]>>,
}

impl<H: Handler> State<H> {
    pub(crate) fn new(
        first: H,
        loader: Loader<H>,
        options: Options,
        watched: Vec<Option<[u8; 32]>>,
    ) -> State<H> {
        State {
            handler: RwLock::new(Arc::new(first)),
            loader,
            reloading: tokio::sync::Mutex::new(()),
            slots: tokio::sync::Semaphore::new(options.concurrency),
            options,
            metrics: Metrics::default(),
            draining: AtomicBool::new(false),
            watched,
            connections: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// The handler serving now.
    pub(crate) fn handler(&self) -> Arc<H> {
        // The lock only guards an `Arc` swap: a poisoned one still holds a
        // whole handler.
        Arc::clone(&self.handler.read().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Calls the loader on a blocking thread and swaps its handler in, or
/// reports its error (stderr, redacted, and the `failed` counter).
/// `cause` names what asked (`SIGHUP`, `file change`) in the report.
pub(crate) async fn reload<H: Handler>(
    state: &State<H>,
    cause: &str,
) -> Result<(), super::ReloadError> {
    let _serial = state.reloading.lock().await;
    let loader = Arc::clone(&state.loader);
    let loaded = match tokio::task::spawn_blocking(move || loader()).await {
        Ok(loaded) => loaded,
        Err(join) => Err(Box::new(join) as BoxError),
    };
    match loaded {
        Ok(handler) => {
            *state.handler.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(handler);
            state.metrics.reload(true);
            eprintln!("serve: reloaded the hook engine ({cause})");
            Ok(())
        }
        Err(err) => {
            state.metrics.reload(false);
            let text = format!(
                "serve: reload ({cause}) failed, the previous hook engine keeps serving: {err}"
            );
            eprintln!("{}", redact_sensitive_text(&text, &SecretSet::new()));
            Err(ReloadError(err))
        }
    }
}

/// The SHA-256 of each file's content (`None` for one that cannot be
/// read), in the order of `paths`.
pub(crate) fn fingerprint(paths: &[PathBuf]) -> Vec<Option<[u8; 32]>> {
    paths
        .iter()
        .map(|p| {
            std::fs::read(p)
                .ok()
                .map(|bytes| Sha256::digest(&bytes).into())
        })
        .collect()
}

/// Polls the watched files every `watch_interval` and reloads when their
/// digests change. A failed reload is not retried until the next change
/// (or SIGHUP): a half-written file fails, its completed write reloads.
pub(crate) async fn watch<H: Handler>(state: Arc<State<H>>) {
    if state.options.watch.is_empty() {
        return;
    }
    let paths = state.options.watch.clone();
    let read = |paths: Vec<PathBuf>| async move {
        tokio::task::spawn_blocking(move || fingerprint(&paths))
            .await
            .ok()
    };
    let mut last = state.watched.clone();
    let mut tick = tokio::time::interval(state.options.watch_interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(now) = read(paths.clone()).await else {
            continue;
        };
        if now != last {
            last = now;
            let _ = reload(&state, "file change").await;
        }
    }
}
