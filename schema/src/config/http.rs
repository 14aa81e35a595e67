//! The `http` action: POST the hook payload to a URL and read the response
//! body like a `run` hook's stdout ([`Http`], [`HttpProtocol`]).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Defaults, is_default};
use crate::duration::Duration;
use crate::phase::PayloadMode;
pub use hooks_plan::{HeaderPart, HeaderTemplateError, HttpProtocol, header_parts};

/// The path every `protocol: opa` URL starts with: OPA's REST data API.
pub const OPA_DATA_PATH: &str = "/v1/data/";

/// POST the hook payload to a URL and read the response body with the same
/// output protocols as a `run` hook's stdout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Http {
    /// The URL to POST to: `http://` or `https://` (TLS by rustls) and a
    /// host. Under `protocol: opa`, OPA's data API URL of the rule:
    /// `http://HOST:8181/v1/data/<package path>/<rule>`.
    #[schemars(
        length(min = 1),
        extend("examples" = ["https://hooks.example.com/pre-tool", "http://127.0.0.1:8181/v1/data/agent/hooks/decision"])
    )]
    pub url: String,
    /// Request headers (names are HTTP tokens). A value may reference a
    /// variable of `env` as `${NAME}`; those values are secrets, redacted
    /// from every record and diagnostic.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(extend(
        "propertyNames" = {"pattern": crate::HEADER_NAME_PATTERN},
        "examples" = [{"Authorization": "Bearer ${HOOKS_TOKEN}"}]
    ))]
    pub headers: BTreeMap<String, String>,
    /// The environment variables header values may reference as `${NAME}`
    /// (`[A-Za-z_][A-Za-z0-9_]*`); no other variable is read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(inner(regex(pattern = crate::ENV_NAME_PATTERN)), extend("examples" = [["HOOKS_TOKEN"]]))]
    pub env: Vec<String>,
    /// Deadline of the whole exchange (connect, send, read the body), e.g.
    /// `500ms`, `5s` (bounded `1ms`..`10m`), on the agent's clock. Default:
    /// `defaults.timeout`, else `30s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = Defaults::default_timeout_annotation(), "examples" = ["2s"]))]
    pub timeout: Option<Duration>,
    /// What the body carries: `full` or `redacted` payload. Default:
    /// `defaults.payload`, else `full`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "full"))]
    pub payload: Option<PayloadMode>,
    /// `native` (default), `claude` (Claude Code's HTTP hooks) or `opa`
    /// (OPA's REST data API).
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(extend("default" = "native"))]
    pub protocol: HttpProtocol,
    /// Follow redirects: at most 10, never from `https` to `http` (a
    /// `redirect_refused` failure); when the origin (scheme, host, port)
    /// changes, every header from `env`, every credential-named header
    /// and `Cookie` are dropped. Default `false`: a 3xx answer is an
    /// `http_status` failure.
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(extend("default" = false))]
    pub follow_redirects: bool,
}

/// Why `url` cannot be an `http` hook's URL under `protocol`, if it cannot:
/// it must parse, use `http` or `https`, name a host, carry no credentials
/// (put them in `headers`, from `env`) and no fragment; under
/// `protocol: opa` its path must be OPA's data API ([`OPA_DATA_PATH`]) and
/// name a document. With the `http` feature only.
#[cfg(feature = "http")]
pub fn url_problem(url: &str, protocol: HttpProtocol) -> Option<String> {
    let parsed = match url::Url::parse(url) {
        Ok(u) => u,
        Err(e) => return Some(format!("`{url}` is not a URL ({e})")),
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return Some(format!(
            "unsupported URL scheme `{}`, expected one of: `http`, `https`",
            parsed.scheme()
        ));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Some(format!("the URL `{url}` names no host"));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Some("the URL carries credentials; send them in `headers` from `env`".to_owned());
    }
    if parsed.fragment().is_some() {
        return Some("the URL has a fragment (`#...`), which is never sent".to_owned());
    }
    if protocol == HttpProtocol::Opa {
        let document = parsed.path().strip_prefix(OPA_DATA_PATH);
        if document.is_none_or(|d| d.trim_matches('/').is_empty()) {
            return Some(format!(
                "a `protocol: opa` URL must address a document of OPA's data API, `{OPA_DATA_PATH}<path>`, found path `{}`",
                parsed.path()
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_values_split_into_literals_and_references() {
        assert_eq!(
            header_parts("Bearer ${TOKEN}").unwrap(),
            [HeaderPart::Literal("Bearer "), HeaderPart::Var("TOKEN")]
        );
        assert_eq!(
            header_parts("$x ${A}${B}!").unwrap(),
            [
                HeaderPart::Literal("$x "),
                HeaderPart::Var("A"),
                HeaderPart::Var("B"),
                HeaderPart::Literal("!")
            ]
        );
        let unclosed = header_parts("Bearer ${TOKEN").unwrap_err();
        assert_eq!(unclosed, HeaderTemplateError { offset: 7 });
        assert_eq!(unclosed.to_string(), "`${` without a closing `}`");
    }

    #[cfg(feature = "http")]
    #[test]
    fn urls_need_a_scheme_a_host_and_for_opa_the_data_api() {
        let native = HttpProtocol::Native;
        assert_eq!(url_problem("https://hooks.example.com/x", native), None);
        assert!(url_problem("ftp://h/x", native).unwrap().contains("`ftp`"));
        assert!(url_problem("hooks.example.com/x", native).is_some());
        assert!(
            url_problem("http://u:p@h/x", native)
                .unwrap()
                .contains("credentials")
        );
        let opa = HttpProtocol::Opa;
        assert_eq!(
            url_problem("http://127.0.0.1:8181/v1/data/agent/allow", opa),
            None
        );
        assert!(url_problem("http://127.0.0.1:8181/v1/data/", opa).is_some());
        assert!(url_problem("http://127.0.0.1:8181/agent", opa).is_some());
    }
}
