//! `http` hooks: the payload POSTed to a URL, the response body read with
//! the output protocols of a `run` hook's stdout.
//!
//! An `http` hook is a [`ShellHookSpec`](crate::ShellHookSpec) whose
//! target is [`HookTarget::Http`](crate::HookTarget::Http): it shares the
//! other hooks' pipeline (payload, protocol, failure policy, mode, context
//! cap, records, redaction), and only the exchange differs: [`post`] sends
//! the payload with a deadline on the agent's clock and reads at most the
//! stdout cap of the body, which the protocol reads as the hook's output
//! document. `protocol: opa` wraps the payload as OPA's `{"input": ...}`
//! and reads `result` as a JSON value ([`opa`]).
//!
//! Depends on the core only (failure kinds, [`Captured`](crate::Captured)).
//! The exchange itself (reqwest) is the `http` feature's; without it an
//! `http` hook fails with [`FEATURE_OFF`] (a table built by `hooks!` or
//! `Table::load` never holds one then: both refuse it).

#[cfg(feature = "http")]
mod client;
#[cfg(feature = "http")]
pub(crate) mod opa;
#[cfg(feature = "http")]
mod redirect;

#[cfg(feature = "http")]
use std::borrow::Cow;

#[cfg(feature = "http")]
pub use client::install_tls_provider;
#[cfg(feature = "http")]
pub(crate) use client::{Answer, Headers, Prepared, post};

/// The failure detail of an `http` hook in a build without the `http`
/// feature.
#[cfg(not(feature = "http"))]
pub(crate) const FEATURE_OFF: &str = "this build of agent-hooks has no `http` feature";

use hooks_plan::HttpProtocol;
#[cfg(feature = "http")]
use hooks_plan::{HeaderPart, header_parts};

/// `url` as a message shows it: without its query and fragment (either
/// may hold a secret), and without user information (`user:password@`)
/// when it parses; `?…` marks a query left out.
#[cfg(feature = "http")]
pub(crate) fn shown_url(url: &str) -> String {
    use std::fmt::Write as _;
    match reqwest::Url::parse(url) {
        Ok(parsed) => {
            let mut shown = format!("{}://", parsed.scheme());
            if let Some(host) = parsed.host_str() {
                shown.push_str(host);
            }
            if let Some(port) = parsed.port() {
                let _ = write!(shown, ":{port}");
            }
            shown.push_str(parsed.path());
            if parsed.query().is_some() {
                shown.push_str("?…");
            }
            shown
        }
        Err(_) => {
            let end = url.find(['?', '#']).unwrap_or(url.len());
            let mut shown = url[..end].to_owned();
            if url[end..].starts_with('?') {
                shown.push_str("?…");
            }
            shown
        }
    }
}

/// Where and how an `http` hook sends its payload (the config's `http`
/// action, in runtime form).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpTarget {
    /// The URL POSTed to (`http` or `https`).
    pub url: String,
    /// Header names and value templates: `${NAME}` is replaced by the
    /// value of variable `NAME`, which must be listed in `env`.
    pub headers: Vec<(String, String)>,
    /// The environment variables header values may reference. Their values
    /// are secrets: redacted from every record and diagnostic.
    pub env: Vec<String>,
    /// `native`, `claude` or `opa`.
    pub protocol: HttpProtocol,
    /// Whether redirects are followed (at most 10, never from `https` to
    /// `http`: that is a `redirect_refused` failure; on a change of origin
    /// the headers from `env` and the credential headers are dropped);
    /// otherwise a 3xx answer is an `http_status` failure.
    pub follow_redirects: bool,
}

impl HttpTarget {
    /// A target POSTing to `url` with no headers, `native` protocol, no
    /// redirects.
    pub fn new(url: impl Into<String>) -> Self {
        HttpTarget {
            url: url.into(),
            headers: Vec::new(),
            env: Vec::new(),
            protocol: HttpProtocol::Native,
            follow_redirects: false,
        }
    }

    /// The values of the `env` variables that are set, as `(name, value)`.
    pub(crate) fn env_values(&self) -> impl Iterator<Item = (&str, String)> {
        self.env
            .iter()
            .filter_map(|name| std::env::var(name).ok().map(|v| (name.as_str(), v)))
    }

    /// Why the managed layer's `switches` refuse this target before any
    /// request, or `None` when they allow it: its URL (as it will be
    /// requested, [`Switches::url_allowed`](hooks_plan::Switches::url_allowed),
    /// what the loader checks too) must match an allowed pattern, and every
    /// variable of `env` (the only ones a header can read) must be an
    /// allowed one. The message names the URL without its query and
    /// fragment ([`shown_url`]), or the variable (never its value).
    #[cfg(feature = "http")]
    pub(crate) fn refusal(&self, switches: &hooks_plan::Switches) -> Option<String> {
        if !switches.url_allowed(&self.url) {
            return Some(format!(
                "the managed layer does not allow `http` hooks to call `{}` (`allowed_http_urls`); nothing was sent",
                shown_url(&self.url)
            ));
        }
        let var = self
            .env
            .iter()
            .find(|name| !switches.header_env_allowed(name))?;
        Some(format!(
            "the managed layer does not allow `http` hooks' headers to read `{var}` (`allowed_header_env`); nothing was sent"
        ))
    }

    /// Whether a header value references a variable (`${NAME}`): its
    /// value is then resolved on every request, from the environment then.
    #[cfg(feature = "http")]
    pub(crate) fn has_templates(&self) -> bool {
        self.headers.iter().any(|(_, value)| value.contains("${"))
    }

    /// The headers with their `${NAME}` references replaced (the headers
    /// themselves, borrowed, when none has one).
    ///
    /// # Errors
    ///
    /// A message (naming the header and the variable, never a value) when a
    /// value references a variable not listed in `env` or not set, or a
    /// template does not split ([`header_parts`]).
    #[cfg(feature = "http")]
    pub(crate) fn resolved_headers(&self) -> Result<Cow<'_, [(String, String)]>, String> {
        if !self.has_templates() {
            return Ok(Cow::Borrowed(&self.headers));
        }
        let env: Vec<(&str, String)> = self.env_values().collect();
        self.headers
            .iter()
            .map(|(name, template)| {
                let mut value = String::new();
                for part in header_parts(template).map_err(|e| format!("header `{name}`: {e}"))? {
                    match part {
                        HeaderPart::Literal(text) => value.push_str(text),
                        HeaderPart::Var(var) => match env.iter().find(|(n, _)| *n == var) {
                            Some((_, v)) => value.push_str(v),
                            None if self.env.iter().any(|n| n == var) => {
                                return Err(format!(
                                    "header `{name}` references `${{{var}}}`, which is not set"
                                ));
                            }
                            None => {
                                return Err(format!(
                                    "header `{name}` references `${{{var}}}`, which is not listed in `env`"
                                ));
                            }
                        },
                    }
                }
                Ok((name.clone(), value))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Cow::Owned)
    }
}
