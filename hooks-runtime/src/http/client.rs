//! The exchange of one `http` hook: [`post`]. With the `http` feature only.

use std::sync::OnceLock;
use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderMap, HeaderName, HeaderValue, LOCATION};
use reqwest::redirect::Policy;
use tokio_util::sync::CancellationToken;

use super::redirect::{check_allowed, follow, redirect, secret_names};

use crate::core::report::{Captured, FailureKind};

/// What the server answered: its status and the body, capped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Answer {
    /// The HTTP status code.
    pub(crate) status: u16,
    /// The first bytes of the body (at most the cap), its true length and
    /// whether it was cut.
    pub(crate) body: Captured,
}

/// Installs rustls's `ring` crypto provider as the process default, unless
/// the application installed one (then this does nothing). Every reqwest
/// client of the workspace is built with rustls and no provider of its own
/// (`rustls-no-provider`: no aws-lc-rs, so no C toolchain beyond `cc`), and
/// panics at build time without a process default: call this before
/// building one (the `http` hooks' client and the OTLP exporter do).
pub fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The process-wide client (one connection pool), built on first use, with
/// rustls and its `ring` provider. It follows no redirect: [`post`] does,
/// by the hook's policy ([`redirect`]).
fn client() -> Result<&'static reqwest::Client, String> {
    static CLIENT: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            install_tls_provider();
            reqwest::Client::builder()
                .redirect(Policy::none())
                .build()
                .map_err(|e| format!("the HTTP client could not be built: {}", describe(e)))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// What the requests of one `http` hook share, prepared once: the URL,
/// parsed (`None` when it does not parse: reqwest then says why on each
/// request, as for a URL given as text), its `Host` header when no
/// redirect can change the host, and the header map when no header value
/// references a variable (`None`: the values are resolved per request), or
/// why that map cannot be built; and, when redirects are followed, the
/// headers dropped on a change of origin.
#[derive(Debug)]
pub(crate) struct Prepared {
    url: Option<reqwest::Url>,
    host: Option<HeaderValue>,
    headers: Option<Result<HeaderMap, (FailureKind, String)>>,
    secret: Vec<HeaderName>,
}

impl Prepared {
    /// The parts of `target`'s requests that no event changes;
    /// `is_secret_name` says which header names hold a credential
    /// (dropped, with the headers from `env`, when a redirect changes the
    /// origin).
    pub(crate) fn of(target: &super::HttpTarget, is_secret_name: fn(&str) -> bool) -> Prepared {
        let url = reqwest::Url::parse(&target.url).ok();
        let host = url
            .as_ref()
            .filter(|_| !target.follow_redirects)
            .and_then(host_header);
        let headers = (!target.has_templates()).then(|| header_map(&target.headers, host.as_ref()));
        let secret = if target.follow_redirects {
            secret_names(&target.headers, is_secret_name)
        } else {
            Vec::new()
        };
        Prepared {
            url,
            host,
            headers,
            secret,
        }
    }

    /// The prepared header map, when the target's headers do not change
    /// per request.
    pub(crate) fn headers(&self) -> Option<&Result<HeaderMap, (FailureKind, String)>> {
        self.headers.as_ref()
    }
}

/// The `Host` header hyper writes for a request to `url`: its host, and
/// its port unless it is the scheme's default (which a parsed URL leaves
/// out); `None` for a URL without a host.
fn host_header(url: &reqwest::Url) -> Option<HeaderValue> {
    let host = url.host_str()?;
    let value = match url.port() {
        Some(port) => HeaderValue::from_str(&format!("{host}:{port}")),
        None => HeaderValue::from_str(host),
    };
    value.ok()
}

/// The headers of one request: prepared once, or resolved for it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Headers<'a> {
    /// [`Prepared::headers`].
    Prepared(&'a Result<HeaderMap, (FailureKind, String)>),
    /// Names and values resolved for this request.
    Resolved(&'a [(String, String)]),
}

/// The header map of a request: `Content-Type: application/json`, then
/// `headers` (a header named twice keeps its last value), each value
/// marked sensitive; then, unless `headers` names them, what the HTTP
/// stack would add to every request: reqwest's default `Accept: */*` and
/// hyper's `Host` (when `host` is given). With them already in place, the
/// copies reqwest and hyper take of the map need not grow to add them.
///
/// # Errors
///
/// `spawn_failed` naming the header whose name or value is not valid HTTP
/// (never the value).
fn header_map(
    headers: &[(String, String)],
    host: Option<&HeaderValue>,
) -> Result<HeaderMap, (FailureKind, String)> {
    // Room for what hyper adds too (`Content-Length`).
    let mut map = HeaderMap::with_capacity(headers.len() + 4);
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
    map.entry(ACCEPT).or_insert(HeaderValue::from_static("*/*"));
    if let Some(host) = host {
        map.entry(HOST).or_insert_with(|| host.clone());
    }
    Ok(map)
}

/// POSTs `body` (JSON) to `target`'s URL (parsed once in `prepared`) with
/// `headers`, reading at most `cap` bytes of the response body (the rest
/// is read and counted, then dropped), all within `timeout` on the
/// caller's clock, or until `cancel` fires. With `follow_redirects`, a
/// redirect is followed as [`redirect`] says, at most 10 times, the
/// secret headers dropped once the origin changes, and only to a URL the
/// managed layer's `switches` allow ([`check_allowed`]; the hook's own URL
/// is the caller's to check, before calling this).
///
/// # Errors
///
/// The failure kind and a detail that names neither header values nor the
/// body: `spawn_failed` (a header that is not valid HTTP, no client),
/// `connection_failed` (no connection, or it closed mid-body), `timed_out`
/// (the whole exchange, connect to last byte, redirects included, took
/// longer than `timeout`), `redirect_refused` (from `https` to `http`,
/// past 10, not to an `http(s)` URL), `not_allowed` (a redirect to a URL
/// `switches` do not allow: not followed), `cancelled`.
///
/// # Cancel safety
///
/// Dropping the future drops the request and closes its connection.
#[allow(
    clippy::too_many_arguments,
    reason = "the parts of one request, each from elsewhere"
)]
pub(crate) async fn post(
    target: &super::HttpTarget,
    prepared: &Prepared,
    headers: Headers<'_>,
    body: Vec<u8>,
    timeout: Duration,
    cap: usize,
    cancel: &CancellationToken,
    switches: Option<&hooks_plan::Switches>,
) -> Result<Answer, (FailureKind, String)> {
    if cancel.is_cancelled() {
        return Err((
            FailureKind::Cancelled,
            "cancelled before the request".to_owned(),
        ));
    }
    let client = client().map_err(|e| (FailureKind::SpawnFailed, e))?;
    let map = match headers {
        Headers::Prepared(map) => map.clone()?,
        Headers::Resolved(headers) => header_map(headers, prepared.host.as_ref())?,
    };
    let request = match &prepared.url {
        // The map becomes the request's own: a builder would copy it entry
        // by entry.
        Some(url) => {
            let mut request = reqwest::Request::new(reqwest::Method::POST, url.clone());
            *request.headers_mut() = map;
            *request.body_mut() = Some(body.into());
            Ok(request)
        }
        // reqwest says why the URL does not parse.
        None => client.post(&target.url).headers(map).body(body).build(),
    };
    let failed = |e: reqwest::Error| {
        (
            FailureKind::ConnectionFailed,
            format!("the request failed: {}", describe(e)),
        )
    };
    let exchange = async {
        let mut request = request.map_err(failed)?;
        let mut hops = 0;
        let mut response = loop {
            // A copy to redirect (the body is shared, not copied).
            let again = target
                .follow_redirects
                .then(|| request.try_clone())
                .flatten();
            let from = again.as_ref().map(|r| r.url().clone());
            let response = client.execute(request).await.map_err(failed)?;
            let (Some(mut again), Some(from)) = (again, from) else {
                break response;
            };
            let location = response.headers().get(LOCATION).map(HeaderValue::as_bytes);
            match redirect(response.status().as_u16(), location, &from, hops)? {
                None => break response,
                Some(hop) => {
                    check_allowed(&hop, switches)?;
                    follow(&mut again, hop, &prepared.secret);
                    request = again;
                    hops += 1;
                }
            }
        };
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
