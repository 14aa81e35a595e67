//! The endpoints and the connection setup: `POST /v1/hooks/{agent}`,
//! `GET /healthz`, `GET /readyz`, `GET /metrics`, each connection served by
//! hyper's HTTP/1 builder with a header-read timeout and registered for
//! graceful shutdown.
//!
//! The limits are steps of the hook handler rather than `tower-http`
//! layers: the signature covers the body, so the body is read (bounded)
//! inside the handler; the concurrency limit answers `503` after a bounded
//! wait, which `ConcurrencyLimitLayer`'s unbounded queue does not; and the
//! deadline's answer is the engine's own (`Handler::deadline_passed`).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::Json;
use axum::Router;
use axum::extract::{Path, Request, State as Shared};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse as _, Response};
use axum::routing::{get, post};
use http_body_util::{BodyExt as _, LengthLimitError, Limited};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;

use super::auth::Denied;
use super::reload::State;
use super::{Agent, Handler};

type Shared_<H> = Shared<Arc<State<H>>>;

/// The server's routes over `state`.
pub(crate) fn router<H: Handler>(state: Arc<State<H>>) -> Router {
    Router::new()
        .route("/v1/hooks/{agent}", post(hook::<H>))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz::<H>))
        .route("/metrics", get(metrics::<H>))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
}

/// Any other path: `404` with `{"error": ...}`, as every error here.
async fn not_found() -> Response {
    json(
        StatusCode::NOT_FOUND,
        serde_json::json!({ "error": "no such endpoint (see docs/serve.md, \"Endpoints\")" }),
    )
}

/// A known path with another method: `405` with `{"error": ...}`.
async fn method_not_allowed() -> Response {
    json(
        StatusCode::METHOD_NOT_ALLOWED,
        serde_json::json!({ "error": "method not allowed (hooks are `POST /v1/hooks/{agent}`)" }),
    )
}

/// Serves one accepted connection on its own task: HTTP/1.1 with
/// keep-alive, the header-read timeout, a watch for graceful shutdown, and
/// `abandon` to drop it when the drain grace runs out.
pub(crate) fn serve_connection<H: Handler>(
    state: &Arc<State<H>>,
    router: &Router,
    graceful: &GracefulShutdown,
    abandon: &hooks_runtime::CancellationToken,
    stream: tokio::net::TcpStream,
) {
    let _ = stream.set_nodelay(true);
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(state.options.header_read_timeout);
    let connection = builder.serve_connection(
        TokioIo::new(stream),
        TowerToHyperService::new(router.clone()),
    );
    let connection = graceful.watch(connection);
    let abandon = abandon.clone();
    let open = Open::new(state);
    tokio::spawn(async move {
        let _open = open;
        // A client that goes away or times out is no error of ours; when
        // the drain grace runs out the connection is dropped mid-request.
        tokio::select! {
            _ = connection => {}
            () = abandon.cancelled() => {}
        }
    });
}

/// Counts a connection in [`State::connections`] while it lives.
struct Open<H: Handler>(Arc<State<H>>);

impl<H: Handler> Open<H> {
    fn new(state: &Arc<State<H>>) -> Open<H> {
        state.connections.fetch_add(1, Ordering::SeqCst);
        Open(Arc::clone(state))
    }
}

impl<H: Handler> Drop for Open<H> {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Ordering::SeqCst);
    }
}

fn json(status: StatusCode, body: serde_json::Value) -> Response {
    (status, Json(body)).into_response()
}

/// Counts a refusal and answers `{"error": message}`.
fn reject<H: Handler>(
    state: &State<H>,
    reason: &'static str,
    status: StatusCode,
    message: &str,
) -> Response {
    state.metrics.rejected(reason);
    let mut response = json(status, serde_json::json!({ "error": message }));
    if status == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
    }
    response
}

fn unauthorized<H: Handler>(state: &State<H>, denied: Denied) -> Response {
    let mut response = reject(
        state,
        "unauthorized",
        StatusCode::UNAUTHORIZED,
        denied.as_str(),
    );
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        header::HeaderValue::from_static("Bearer"),
    );
    response
}

fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

/// A hook slot, released (and counted) when the request ends, however it
/// ends (a client that disconnects drops the request's future).
struct Slot<'a, H: Handler> {
    state: &'a State<H>,
    _permit: tokio::sync::SemaphorePermit<'a>,
}

impl<H: Handler> Drop for Slot<'_, H> {
    fn drop(&mut self) {
        self.state.metrics.in_flight(false);
    }
}

/// `POST /v1/hooks/{agent}`: limits, authentication, then the handler
/// under the deadline (docs/serve.md, "A request's way").
async fn hook<H: Handler>(
    Shared(state): Shared_<H>,
    Path(agent): Path<String>,
    request: Request,
) -> Response {
    let Some(agent) = Agent::from_name(&agent) else {
        return reject(&state, "not_found", StatusCode::NOT_FOUND, "unknown agent");
    };
    let options = &state.options;
    let (parts, body) = request.into_parts();
    if declared_length(&parts.headers).is_some_and(|n| n > options.max_body as u64) {
        return reject(
            &state,
            "too_large",
            StatusCode::PAYLOAD_TOO_LARGE,
            "body too large",
        );
    }
    let auth = &options.auth;
    let bearer = auth.bearer_ok(&parts.headers);
    let signed = auth.is_required() && bearer != Some(true);
    if signed && !auth.has_secrets() {
        let denied = if bearer == Some(false) {
            Denied::BadToken
        } else {
            Denied::Missing
        };
        return unauthorized(&state, denied);
    }

    let Ok(Ok(permit)) = tokio::time::timeout(options.queue_wait, state.slots.acquire()).await
    else {
        return reject(
            &state,
            "overloaded",
            StatusCode::SERVICE_UNAVAILABLE,
            "too many requests in flight",
        );
    };
    state.metrics.in_flight(true);
    let _slot = Slot {
        state: &state,
        _permit: permit,
    };
    let deadline = tokio::time::Instant::now() + options.deadline;

    let read = tokio::time::timeout_at(deadline, Limited::new(body, options.max_body).collect());
    let bytes = match read.await {
        Err(_) => {
            return reject(
                &state,
                "body_timeout",
                StatusCode::REQUEST_TIMEOUT,
                "body not received in time",
            );
        }
        Ok(Err(err)) if err.downcast_ref::<LengthLimitError>().is_some() => {
            return reject(
                &state,
                "too_large",
                StatusCode::PAYLOAD_TOO_LARGE,
                "body too large",
            );
        }
        Ok(Err(_)) => {
            return reject(
                &state,
                "bad_body",
                StatusCode::BAD_REQUEST,
                "cannot read the body",
            );
        }
        Ok(Ok(collected)) => collected.to_bytes(),
    };

    if signed {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
        match auth.signature_ok(&parts.headers, &bytes, now) {
            Ok(()) => {}
            Err(Denied::Missing) if bearer == Some(false) => {
                return unauthorized(&state, Denied::BadToken);
            }
            Err(denied) => return unauthorized(&state, denied),
        }
    }

    if serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_err() {
        return reject(
            &state,
            "invalid_json",
            StatusCode::BAD_REQUEST,
            "the body is not JSON",
        );
    }

    let event = parts.uri.query().and_then(|query| {
        form_urlencoded::parse(query.as_bytes())
            .find(|(key, _)| key == "event")
            .map(|(_, value)| value.into_owned())
    });
    let handler = state.handler();
    let started = std::time::Instant::now();
    let answering = handler.answer(agent, event.as_deref(), bytes);
    let answer = match tokio::time::timeout_at(deadline, answering).await {
        Ok(answer) => answer,
        Err(_) => handler.deadline_passed(agent),
    };
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    state.metrics.run(agent, answer.status.as_u16(), elapsed_ms);
    json(answer.status, answer.body)
}

/// `GET /healthz`: the process serves HTTP.
async fn healthz() -> Response {
    json(StatusCode::OK, serde_json::json!({ "status": "ok" }))
}

/// `GET /readyz`: a handler is loaded and the server is not draining.
async fn readyz<H: Handler>(Shared(state): Shared_<H>) -> Response {
    if state.draining.load(Ordering::SeqCst) {
        json(
            StatusCode::SERVICE_UNAVAILABLE,
            serde_json::json!({ "status": "draining" }),
        )
    } else {
        json(StatusCode::OK, serde_json::json!({ "status": "ready" }))
    }
}

/// `GET /metrics`: the counters as JSON.
async fn metrics<H: Handler>(Shared(state): Shared_<H>) -> Response {
    json(StatusCode::OK, state.metrics.to_json())
}
