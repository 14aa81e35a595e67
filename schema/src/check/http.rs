//! The `http` action: `url` (scheme, host, OPA's data API path), `headers`
//! (names, values, `${NAME}` references to `env`), `env`, `timeout`,
//! `payload`, `protocol`, `follow_redirects`.

use serde_json::{Map, Value};

use super::names::VOCABULARY;
use super::run::valid_env_name;
use super::walk::child;
use super::{At, Checker};
use crate::config::{HeaderPart, HttpProtocol, header_parts};
use crate::diagnostic::Layer;

impl Checker<'_> {
    pub(super) fn http(&mut self, p: &str, v: &Value) {
        let Some(m) = self.object(p, v, "a mapping with `url`") else {
            return;
        };
        self.unknown_keys(p, m, VOCABULARY.http, "`http`");
        let protocol = self
            .enum_key(
                p,
                m,
                "protocol",
                "protocol",
                VOCABULARY.http_protocols,
                "unknown-protocol",
            )
            .and_then(|name| serde_json::from_value(Value::String(name)).ok())
            .unwrap_or_default();
        match m.get("url") {
            None => self.missing(p, "url", "`http`", None),
            Some(u) => self.url(&child(p, "url"), u, protocol),
        }
        let env = self.http_env(p, m);
        if let Some(h) = m.get("headers") {
            self.headers(&child(p, "headers"), h, &env);
        }
        if let Some(t) = m.get("timeout") {
            self.duration(&child(p, "timeout"), t);
        }
        self.payload_mode(p, m);
        self.booleans(p, m, &["follow_redirects"]);
    }

    /// Without the `http` feature only that `url` is a string: the hook
    /// is refused as a whole (`features::missing`).
    fn url(&mut self, up: &str, u: &Value, protocol: HttpProtocol) {
        #[cfg(not(feature = "http"))]
        let _ = (self.nonempty_string(up, u), protocol);
        #[cfg(feature = "http")]
        if let Some(url) = self.nonempty_string(up, u)
            && let Some(why) = crate::config::url_problem(url, protocol)
        {
            let hint = match protocol {
                HttpProtocol::Opa => {
                    "an OPA rule's URL looks like `http://HOST:8181/v1/data/agent/hooks/decision`"
                }
                _ => "write `http://HOST[:PORT]/PATH` or `https://...`",
            };
            self.report(
                up,
                At::Value,
                Layer::Semantic,
                "invalid-url",
                why,
                Some(hint.to_owned()),
            );
        }
    }

    /// `env`: a list of valid variable names; returns the names.
    fn http_env(&mut self, p: &str, m: &Map<String, Value>) -> Vec<String> {
        let Some(e) = m.get("env") else {
            return Vec::new();
        };
        let ep = child(p, "env");
        let Some(items) = self.array(&ep, e, "a list of variable names") else {
            return Vec::new();
        };
        let mut names = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let ip = format!("{ep}/{i}");
            if let Some(name) = self.string(&ip, item) {
                if valid_env_name(name) {
                    names.push(name.to_owned());
                } else {
                    self.bad_env_name(&ip, At::Value, name);
                }
            }
        }
        names
    }

    fn headers(&mut self, hp: &str, h: &Value, env: &[String]) {
        let Some(headers) = self.object(hp, h, "a mapping from header names to values") else {
            return;
        };
        for (name, value) in headers {
            let vp = child(hp, name);
            if http::HeaderName::from_bytes(name.as_bytes()).is_err() {
                self.report(
                    &vp,
                    At::Key,
                    Layer::Schema,
                    "invalid-header-name",
                    format!("invalid HTTP header name `{name}`, expected a token such as `Authorization` or `X-Request-Id`"),
                    None,
                );
            }
            let Some(text) = self.string(&vp, value) else {
                continue;
            };
            self.header_value(&vp, text, env);
        }
    }

    /// A header value: its `${NAME}` references name variables of `env`,
    /// and its literal text is a valid header value.
    fn header_value(&mut self, vp: &str, text: &str, env: &[String]) {
        let parts = match header_parts(text) {
            Ok(parts) => parts,
            Err(why) => {
                self.report(
                    vp,
                    At::Value,
                    Layer::Semantic,
                    "invalid-header-value",
                    format!("invalid header value: {why}"),
                    None,
                );
                return;
            }
        };
        for part in parts {
            match part {
                HeaderPart::Var(name) if !env.iter().any(|e| e == name) => self.report(
                    vp,
                    At::Value,
                    Layer::Semantic,
                    "header-env-not-allowed",
                    format!("the header references `${{{name}}}`, which is not listed in `env`"),
                    Some(format!(
                        "add `{name}` to the hook's `http.env`: only listed variables are read"
                    )),
                ),
                HeaderPart::Var(_) => {}
                HeaderPart::Literal(lit) => {
                    if http::HeaderValue::from_str(lit).is_err() {
                        self.report(
                            vp,
                            At::Value,
                            Layer::Semantic,
                            "invalid-header-value",
                            "invalid header value: control characters are not allowed".to_owned(),
                            None,
                        );
                    }
                }
            }
        }
    }
}
