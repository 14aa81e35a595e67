//! The exchange of one `http` hook: [`post`]. With the `http` feature only.

use std::sync::OnceLock;
use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use reqwest::redirect::Policy;
use tokio_util::sync::CancellationToken;

use super::Answer;
use crate::core::report::{Captured, FailureKind};

/// Most redirects followed when a hook allows them.
const MAX_REDIRECTS: usize = 10;

/// Installs rustls's `ring` crypto provider as the process default, unless
/// the application installed one (then this does nothing). Every reqwest
/// client of the workspace is built with rustls and no provider of its own
/// (`rustls-no-provider`: no aws-lc-rs, so no C toolchain beyond `cc`), and
/// panics at build time without a process default: call this before
/// building one (the `http` hooks' client and the OTLP exporter do).
pub fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The process-wide client for `follow_redirects` (one connection pool per
/// setting); built on first use, with rustls and its `ring` provider.
fn client(follow_redirects: bool) -> Result<&'static reqwest::Client, String> {
    static CLIENTS: [OnceLock<Result<reqwest::Client, String>>; 2] =
        [OnceLock::new(), OnceLock::new()];
    CLIENTS[usize::from(follow_redirects)]
        .get_or_init(|| {
            install_tls_provider();
            reqwest::Client::builder()
                .redirect(if follow_redirects {
                    Policy::limited(MAX_REDIRECTS)
                } else {
                    Policy::none()
                })
                .build()
                .map_err(|e| format!("the HTTP client could not be built: {}", describe(e)))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// POSTs `body` (JSON) to `url` with `headers`, reading at most `cap` bytes
/// of the response body (the rest is read and counted, then dropped), all
/// within `timeout` on the caller's clock, or until `cancel` fires.
///
/// # Errors
///
/// The failure kind and a detail that names neither header values nor the
/// body: `spawn_failed` (a header that is not valid HTTP, no client),
/// `connection_failed` (no connection, or it closed mid-body), `timed_out`
/// (the whole exchange, connect to last byte, took longer than `timeout`),
/// `cancelled`.
///
/// # Cancel safety
///
/// Dropping the future drops the request and closes its connection.
pub(crate) async fn post(
    url: &str,
    headers: &[(String, String)],
    follow_redirects: bool,
    body: Vec<u8>,
    timeout: Duration,
    cap: usize,
    cancel: &CancellationToken,
) -> Result<Answer, (FailureKind, String)> {
    if cancel.is_cancelled() {
        return Err((
            FailureKind::Cancelled,
            "cancelled before the request".to_owned(),
        ));
    }
    let client = client(follow_redirects).map_err(|e| (FailureKind::SpawnFailed, e))?;
    let mut map = HeaderMap::new();
    map.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    for (name, value) in headers {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            (
                FailureKind::SpawnFailed,
                format!("invalid header name `{name}`"),
            )
        })?;
        let mut value = HeaderValue::from_str(value).map_err(|_| {
            (
                FailureKind::SpawnFailed,
                format!("the value of header `{name}` is not a valid header value"),
            )
        })?;
        value.set_sensitive(true);
        map.insert(name, value);
    }
    let exchange = async {
        let mut response = client
            .post(url)
            .headers(map)
            .body(body)
            .send()
            .await
            .map_err(|e| {
                (
                    FailureKind::ConnectionFailed,
                    format!("the request failed: {}", describe(e)),
                )
            })?;
        let status = response.status().as_u16();
        let mut captured = Captured::default();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    let room = cap.saturating_sub(captured.bytes.len());
                    captured
                        .bytes
                        .extend_from_slice(&chunk[..room.min(chunk.len())]);
                    captured.total_len += chunk.len() as u64;
                }
                Ok(None) => break,
                Err(e) => {
                    return Err((
                        FailureKind::ConnectionFailed,
                        format!(
                            "the connection closed before the response body was complete (after {} bytes): {}",
                            captured.total_len,
                            describe(e)
                        ),
                    ));
                }
            }
        }
        captured.truncated = captured.total_len > captured.bytes.len() as u64;
        Ok(Answer {
            status,
            body: captured,
        })
    };
    tokio::select! {
        answer = tokio::time::timeout(timeout, exchange) => answer.unwrap_or_else(|_| Err((
            FailureKind::TimedOut,
            format!("timed out after {} ms", timeout.as_millis()),
        ))),
        () = cancel.cancelled() => Err((FailureKind::Cancelled, "cancelled during the request".to_owned())),
    }
}

/// A reqwest error and its sources, without the URL (which the record
/// does not need and the detail should not repeat).
fn describe(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut text = String::new();
    let mut source: Option<&dyn std::error::Error> = Some(&e);
    while let Some(err) = source {
        let part = err.to_string();
        if !text.contains(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
        source = err.source();
    }
    text
}
