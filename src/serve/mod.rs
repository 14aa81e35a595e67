//! The hook engine over HTTP (the `server` cargo feature): what
//! `agent-hooks serve` runs, for a fleet of agents whose hooks POST their
//! payloads to one service. See `docs/serve.md` for the endpoints, the
//! authentication, the limits, reload and drain, and a deployment.
//!
//! The server is generic over a [`Handler`], the thing that answers one
//! agent payload; [`Server::bind`] takes a *loader* that builds it (from
//! the config files, say) and calls it again on every reload. Everything
//! else (routing, body and concurrency limits, deadlines, authentication,
//! draining, metrics) is the server's.
//!
//! ```no_run
//! use agent_hooks::serve::{Agent, Handler, HandlerAnswer, Options, Server};
//! use axum::http::StatusCode;
//!
//! struct Allow;
//! impl Handler for Allow {
//!     async fn answer(&self, _agent: Agent, _event: Option<&str>, _body: bytes::Bytes) -> HandlerAnswer {
//!         HandlerAnswer::new(StatusCode::OK, serde_json::json!({}))
//!     }
//! }
//!
//! # async fn run() -> Result<(), agent_hooks::serve::ServeError> {
//! let server = Server::bind("127.0.0.1:8787".parse().expect("an address"), Options::default(), || {
//!     Ok::<_, std::io::Error>(Allow)
//! })
//! .await?;
//! let drain = server.run(async { let _ = tokio::signal::ctrl_c().await; }).await;
//! # let _ = drain; Ok(()) }
//! ```

mod auth;
mod metrics;
mod reload;
mod routes;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::http::StatusCode;
use bytes::Bytes;

pub use auth::{Auth, DEFAULT_TOLERANCE, SecretError, WebhookSecret};
pub use reload::ReloadError;

use reload::State;

/// An error a loader returns: any error type, boxed.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The agent whose payload format a request carries: the last segment of
/// `POST /v1/hooks/{agent}`. [`Agent::Native`] is this project's own event
/// JSON (the format `agent-hooks test` reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Agent {
    /// Claude Code (`type: http` hooks POST their payload as is).
    Claude,
    /// OpenAI Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// GitHub Copilot / VS Code agent hooks.
    Copilot,
    /// This project's event JSON.
    Native,
}

impl Agent {
    /// Every agent, in the order of their path segments in the docs.
    pub const ALL: [Agent; 5] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Copilot,
        Agent::Native,
    ];

    /// The path segment: `claude`, `codex`, `gemini`, `copilot`, `native`.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Copilot => "copilot",
            Agent::Native => "native",
        }
    }

    /// The agent of a path segment ([`Agent::name`]), `None` for any other.
    pub fn from_name(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// What a [`Handler`] answers: the HTTP status and the JSON body, in the
/// requesting agent's output format (for Claude Code's `http` hooks: 2xx
/// with the hook output JSON; a non-2xx status is a non-blocking error
/// there, so a decision to block is a 200 with `decision: "block"` or a
/// `permissionDecision`, not a 4xx).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct HandlerAnswer {
    /// The response status.
    pub status: StatusCode,
    /// The response body, sent as `application/json`.
    pub body: serde_json::Value,
}

impl HandlerAnswer {
    /// An answer of `status` with `body`.
    pub fn new(status: StatusCode, body: serde_json::Value) -> HandlerAnswer {
        HandlerAnswer { status, body }
    }
}

/// Answers one agent payload: the hook engine, as the server calls it.
///
/// The server has checked the request (authentication, size, that the
/// body is JSON) before it calls [`answer`](Handler::answer); whether the
/// JSON is a valid payload of that agent's format is the handler's to say
/// (a 400 answer, say). One handler value serves every request until a
/// reload replaces it; requests that started with the old one finish with
/// it.
pub trait Handler: Send + Sync + 'static {
    /// The answer to `body`, a JSON document in `agent`'s payload format;
    /// `event` is the request's `?event=` (the event's name for a payload
    /// that does not name it: the Copilot CLI's camelCase format).
    ///
    /// # Cancel safety
    ///
    /// The server drops the future when the request's deadline passes
    /// ([`Options::deadline`]) and answers [`Handler::deadline_passed`]
    /// instead: whatever the future started must stop when dropped (the
    /// runtime's hooks do: dropping a running hook kills its process
    /// group).
    fn answer(
        &self,
        agent: Agent,
        event: Option<&str>,
        body: Bytes,
    ) -> impl Future<Output = HandlerAnswer> + Send;

    /// The answer when [`answer`](Handler::answer) did not finish within
    /// the deadline: where the engine's fail-open or fail-closed choice
    /// goes (fail-closed answers a block in `agent`'s format). The default
    /// is a `504 Gateway Timeout` with `{"error": "deadline exceeded"}`,
    /// which Claude Code treats as a non-blocking error (fail-open).
    fn deadline_passed(&self, agent: Agent) -> HandlerAnswer {
        let _ = agent;
        HandlerAnswer::new(
            StatusCode::GATEWAY_TIMEOUT,
            serde_json::json!({ "error": "deadline exceeded" }),
        )
    }
}

/// The server's limits, authentication and reload settings. Every field
/// has a default ([`Options::default`]); change the ones you need.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// The largest request body in bytes; a larger one is answered `413`
    /// (at once when its `Content-Length` says so, else when the limit is
    /// reached while reading). Default 1 MiB.
    pub max_body: usize,
    /// How many hook requests run at once. Default 64.
    pub concurrency: usize,
    /// How long a hook request waits for one of the
    /// [`concurrency`](Options::concurrency) slots before it is answered
    /// `503` with `Retry-After: 1`. Default 1 s.
    pub queue_wait: Duration,
    /// Per request, from taking a slot: reading the body and the
    /// handler's answer. A body not read by then is `408`; a handler not
    /// done by then is dropped and [`Handler::deadline_passed`] answers.
    /// Default 30 s.
    pub deadline: Duration,
    /// How long a client may take to send a request's headers (hyper's
    /// `header_read_timeout`, against slow-loris clients); the connection
    /// is closed after it. The clock starts when the server waits for a
    /// request, so it also closes a keep-alive connection idle that long.
    /// Default 10 s.
    pub header_read_timeout: Duration,
    /// After shutdown is asked: how long `/readyz` answers `503` while the
    /// server still accepts connections, so a load balancer stops sending
    /// new ones first. Default 0.
    pub drain_delay: Duration,
    /// After the listener is closed: how long in-flight requests may take
    /// to finish before their connections are dropped. Default 30 s.
    pub drain_grace: Duration,
    /// Files whose change (content digest) reloads the handler.
    pub watch: Vec<PathBuf>,
    /// How often [`watch`](Options::watch) is polled. Default 1 s.
    pub watch_interval: Duration,
    /// Who may call the hook endpoints. Default: anyone.
    pub auth: Auth,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_body: 1024 * 1024,
            concurrency: 64,
            queue_wait: Duration::from_secs(1),
            deadline: Duration::from_secs(30),
            header_read_timeout: Duration::from_secs(10),
            drain_delay: Duration::ZERO,
            drain_grace: Duration::from_secs(30),
            watch: Vec::new(),
            watch_interval: Duration::from_secs(1),
            auth: Auth::default(),
        }
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The listen address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The bind error.
        source: std::io::Error,
    },
    /// The first call of the loader failed: there is nothing to serve.
    #[error("cannot load the hook engine: {0}")]
    Load(BoxError),
    /// An option is out of range (a zero concurrency or body limit).
    #[error("invalid server option: {0}")]
    Option(&'static str),
}

/// How [`Server::run`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Drain {
    /// Every in-flight request finished within [`Options::drain_grace`].
    Complete,
    /// The grace ran out: this many connections were dropped with their
    /// requests unanswered.
    TimedOut {
        /// Connections still open when the grace ran out.
        dropped: usize,
    },
}

/// A bound server with its first handler loaded, ready to [`run`](Server::run).
pub struct Server<H: Handler> {
    listener: tokio::net::TcpListener,
    state: Arc<State<H>>,
}

impl<H: Handler> std::fmt::Debug for Server<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("listener", &self.listener)
            .finish_non_exhaustive()
    }
}

/// A handle on a running server: reload, readiness and metrics, for the
/// code that owns the server (signal handlers, tests). Cheap to clone.
pub struct Control<H: Handler> {
    state: Arc<State<H>>,
}

impl<H: Handler> Clone for Control<H> {
    fn clone(&self) -> Self {
        Control {
            state: Arc::clone(&self.state),
        }
    }
}

impl<H: Handler> std::fmt::Debug for Control<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control").finish_non_exhaustive()
    }
}

impl<H: Handler> Server<H> {
    /// Calls `loader` for the first handler, then binds `addr`.
    ///
    /// `loader` runs again on every reload ([`Control::reload`], a change
    /// of a watched file), on a blocking thread: it may read and compile
    /// configs. It should check what it loads as strictly as a first load
    /// (trust included): an error keeps the previous handler serving.
    ///
    /// # Errors
    ///
    /// [`ServeError::Load`] when the loader fails, [`ServeError::Bind`]
    /// when `addr` cannot be bound, [`ServeError::Option`] for a zero
    /// `concurrency` or `max_body`.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime (the loader runs on its blocking pool).
    pub async fn bind<E, L>(
        addr: SocketAddr,
        options: Options,
        loader: L,
    ) -> Result<Self, ServeError>
    where
        E: Into<BoxError>,
        L: Fn() -> Result<H, E> + Send + Sync + 'static,
    {
        if options.concurrency == 0 {
            return Err(ServeError::Option("concurrency must be at least 1"));
        }
        if options.max_body == 0 {
            return Err(ServeError::Option("max body must be at least 1 byte"));
        }
        let loader: reload::Loader<H> = Arc::new(move || loader().map_err(Into::into));
        let (first, watched) = {
            let loader = Arc::clone(&loader);
            let paths = options.watch.clone();
            // The files' digests before the first load: a change made
            // while it runs, or later, reloads.
            tokio::task::spawn_blocking(move || (reload::fingerprint(&paths), loader()))
                .await
                .map(|(watched, first)| first.map(|first| (first, watched)))
                .map_err(|e| ServeError::Load(Box::new(e)))?
                .map_err(ServeError::Load)?
        };
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Bind { addr, source })?;
        Ok(Server {
            listener,
            state: Arc::new(State::new(first, loader, options, watched)),
        })
    }

    /// The address the server listens on (the port, when bound to port 0).
    ///
    /// # Errors
    ///
    /// The socket's error when it has no local address.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The handle to reload the handler and read the metrics.
    pub fn control(&self) -> Control<H> {
        Control {
            state: Arc::clone(&self.state),
        }
    }

    /// Serves until `shutdown` completes, then drains: `/readyz` answers
    /// `503` at once; after [`Options::drain_delay`] the listener is closed
    /// (new connections are refused), idle connections are closed, and
    /// in-flight requests finish, for at most [`Options::drain_grace`].
    /// Watched files are polled while serving.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future closes the listener and leaves the spawned
    /// connections to finish on their own: use `shutdown` to drain.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime (connections are tasks of its own).
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send) -> Drain {
        let Server { listener, state } = self;
        let router = routes::router(Arc::clone(&state));
        let graceful = hyper_util::server::graceful::GracefulShutdown::new();
        // Cancelled when the drain grace runs out: drops every connection.
        let abandon = hooks_runtime::CancellationToken::new();
        let watcher = tokio::spawn(reload::watch(Arc::clone(&state)));
        let accept = |accepted: std::io::Result<(tokio::net::TcpStream, SocketAddr)>| {
            let state = &state;
            let router = &router;
            let graceful = &graceful;
            let abandon = &abandon;
            async move {
                match accepted {
                    Ok((stream, _)) => {
                        routes::serve_connection(state, router, graceful, abandon, stream)
                    }
                    // Out of file descriptors and the like: back off
                    // instead of spinning.
                    Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                }
            }
        };
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            tokio::select! {
                biased;
                () = &mut shutdown => break,
                accepted = listener.accept() => accept(accepted).await,
            }
        }
        state.draining.store(true, Ordering::SeqCst);
        let delay = tokio::time::sleep(state.options.drain_delay);
        let mut delay = std::pin::pin!(delay);
        loop {
            tokio::select! {
                biased;
                () = &mut delay => break,
                accepted = listener.accept() => accept(accepted).await,
            }
        }
        drop(listener);
        watcher.abort();
        let grace = state.options.drain_grace;
        match tokio::time::timeout(grace, graceful.shutdown()).await {
            Ok(()) => Drain::Complete,
            Err(_) => {
                let dropped = state.connections.load(Ordering::SeqCst);
                abandon.cancel();
                Drain::TimedOut { dropped }
            }
        }
    }
}

impl<H: Handler> Control<H> {
    /// Calls the loader and, when it succeeds, swaps the new handler in
    /// atomically (requests already running finish with the old one).
    /// Reloads are serialized. A failure keeps the current handler, is
    /// written to stderr (redacted) and counted
    /// (`hooks.serve.reload` `failed` in `/metrics`).
    ///
    /// # Errors
    ///
    /// [`ReloadError`] with the loader's error.
    pub async fn reload(&self) -> Result<(), ReloadError> {
        reload::reload(&self.state, "request").await
    }

    /// Whether `/readyz` answers `200`: a handler is loaded and the server
    /// is not draining.
    pub fn ready(&self) -> bool {
        !self.state.draining.load(Ordering::SeqCst)
    }

    /// The metrics as `/metrics` serves them (docs/serve.md, "Metrics").
    pub fn metrics(&self) -> serde_json::Value {
        self.state.metrics.to_json()
    }
}
