//! Who may call the hook endpoints: a bearer token, and requests signed
//! per Standard Webhooks (<https://www.standardwebhooks.com/>, "Verifying
//! webhook authenticity"): `webhook-id`, `webhook-timestamp` (Unix
//! seconds) and `webhook-signature` (space-separated `v1,<base64>`
//! values, each an HMAC-SHA256 of `{id}.{timestamp}.{body}` under a secret
//! written `whsec_<base64 key>`).

use std::time::Duration;

use axum::http::HeaderMap;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit as _, Mac as _};
use sha2::{Digest as _, Sha256};
use subtle::ConstantTimeEq as _;

/// The default largest difference between a signed request's
/// `webhook-timestamp` and the server's clock: 5 minutes, the Standard
/// Webhooks recommendation.
pub const DEFAULT_TOLERANCE: Duration = Duration::from_secs(5 * 60);

/// A Standard Webhooks signing secret: the key bytes of `whsec_<base64>`.
/// Its `Debug` form never shows the key.
#[derive(Clone)]
pub struct WebhookSecret {
    key: Vec<u8>,
}

impl std::fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WebhookSecret(<redacted>)")
    }
}

/// Why a signing secret was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SecretError {
    /// It does not start with `whsec_`.
    #[error("a webhook secret starts with `whsec_`")]
    Prefix,
    /// What follows `whsec_` is not standard base64.
    #[error("a webhook secret is `whsec_` and standard base64")]
    Base64,
    /// The key is shorter than 16 bytes.
    #[error("a webhook secret's key has at least 16 bytes")]
    Short,
}

impl WebhookSecret {
    /// Parses `whsec_<base64>` (the key at least 16 bytes; Standard
    /// Webhooks generates 24 to 64).
    ///
    /// # Errors
    ///
    /// [`SecretError`] when the prefix, the base64 or the length is wrong.
    pub fn parse(text: &str) -> Result<WebhookSecret, SecretError> {
        let encoded = text
            .trim()
            .strip_prefix("whsec_")
            .ok_or(SecretError::Prefix)?;
        let key = STANDARD.decode(encoded).map_err(|_| SecretError::Base64)?;
        if key.len() < 16 {
            return Err(SecretError::Short);
        }
        Ok(WebhookSecret { key })
    }

    fn mac(&self, id: &str, timestamp: &str, body: &[u8]) -> Hmac<Sha256> {
        // HMAC takes a key of any length: this cannot fail.
        let mut mac = <Hmac<Sha256>>::new_from_slice(&self.key)
            .unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
        mac.update(id.as_bytes());
        mac.update(b".");
        mac.update(timestamp.as_bytes());
        mac.update(b".");
        mac.update(body);
        mac
    }

    /// The `webhook-signature` value (`v1,<base64>`) of `body` sent with
    /// `id` and `timestamp` (Unix seconds): what a client signing its
    /// requests sends.
    pub fn sign(&self, id: &str, timestamp: i64, body: &[u8]) -> String {
        let tag = self
            .mac(id, &timestamp.to_string(), body)
            .finalize()
            .into_bytes();
        format!("v1,{}", STANDARD.encode(tag))
    }
}

/// Who may call the hook endpoints. With neither a token nor a secret
/// (the default), anyone; otherwise a request passes with a valid
/// `Authorization: Bearer` token *or* a valid signature under one of the
/// secrets (several during a rotation). Its `Debug` form never shows them.
#[derive(Clone)]
pub struct Auth {
    /// SHA-256 of the token: compared in constant time, and equal-length
    /// whatever the token's length.
    bearer: Option<[u8; 32]>,
    secrets: Vec<WebhookSecret>,
    tolerance: Duration,
}

impl Default for Auth {
    fn default() -> Auth {
        Auth {
            bearer: None,
            secrets: Vec::new(),
            tolerance: DEFAULT_TOLERANCE,
        }
    }
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auth")
            .field("bearer", &self.bearer.map(|_| "<redacted>"))
            .field("secrets", &self.secrets.len())
            .field("tolerance", &self.tolerance)
            .finish()
    }
}

/// Why a request was refused (the `401` body and the
/// `hooks.serve.rejected` reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Denied {
    /// Neither a bearer token nor the three signature headers.
    Missing,
    /// A bearer token that is not the configured one.
    BadToken,
    /// No signature matches under any secret (or the headers are malformed).
    BadSignature,
    /// The timestamp is outside the tolerance.
    Expired,
}

impl Denied {
    /// The reason as the `401` body says it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Denied::Missing => "missing credentials",
            Denied::BadToken => "bad bearer token",
            Denied::BadSignature => "bad signature",
            Denied::Expired => "timestamp outside the tolerance",
        }
    }
}

impl Auth {
    /// Accept requests carrying `Authorization: Bearer <token>`.
    pub fn with_bearer(mut self, token: &str) -> Auth {
        self.bearer = Some(Sha256::digest(token.as_bytes()).into());
        self
    }

    /// Accept requests signed with `secret` (call again for each secret
    /// of a rotation).
    pub fn with_webhook_secret(mut self, secret: WebhookSecret) -> Auth {
        self.secrets.push(secret);
        self
    }

    /// The largest accepted difference between `webhook-timestamp` and
    /// the clock, either way ([`DEFAULT_TOLERANCE`] unless set).
    pub fn with_tolerance(mut self, tolerance: Duration) -> Auth {
        self.tolerance = tolerance;
        self
    }

    /// Whether requests must authenticate (a token or a secret is set).
    pub fn is_required(&self) -> bool {
        self.bearer.is_some() || !self.secrets.is_empty()
    }

    /// Whether signing secrets are configured.
    pub(crate) fn has_secrets(&self) -> bool {
        !self.secrets.is_empty()
    }

    /// Whether the bearer token in `headers` is valid: `Some(true)` valid,
    /// `Some(false)` present and wrong, `None` absent or not configured.
    /// Checked before the body is read.
    pub(crate) fn bearer_ok(&self, headers: &HeaderMap) -> Option<bool> {
        let expected = self.bearer?;
        let value = headers.get(axum::http::header::AUTHORIZATION)?;
        let token = value.to_str().ok()?.strip_prefix("Bearer ")?;
        let given: [u8; 32] = Sha256::digest(token.trim().as_bytes()).into();
        Some(bool::from(given.ct_eq(&expected)))
    }

    /// Checks the Standard Webhooks headers against `body` at `now`
    /// (Unix seconds). `Err(Missing)` when the headers are absent or no
    /// secret is configured.
    pub(crate) fn signature_ok(
        &self,
        headers: &HeaderMap,
        body: &[u8],
        now: i64,
    ) -> Result<(), Denied> {
        if self.secrets.is_empty() {
            return Err(Denied::Missing);
        }
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let (Some(id), Some(timestamp), Some(signatures)) = (
            header("webhook-id"),
            header("webhook-timestamp"),
            header("webhook-signature"),
        ) else {
            return Err(Denied::Missing);
        };
        let sent: i64 = timestamp.trim().parse().map_err(|_| Denied::BadSignature)?;
        let tolerance = i64::try_from(self.tolerance.as_secs()).unwrap_or(i64::MAX);
        if now.abs_diff(sent) > tolerance.unsigned_abs() {
            return Err(Denied::Expired);
        }
        let tags: Vec<Vec<u8>> = signatures
            .split(' ')
            .filter_map(|s| s.strip_prefix("v1,"))
            .filter_map(|b64| STANDARD.decode(b64).ok())
            .collect();
        for secret in &self.secrets {
            let mac = secret.mac(id, timestamp.trim(), body);
            // `verify_slice` compares in constant time.
            if tags.iter().any(|tag| mac.clone().verify_slice(tag).is_ok()) {
                return Ok(());
            }
        }
        Err(Denied::BadSignature)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_webhooks_example_verifies() {
        // The example of the Standard Webhooks reference libraries' tests.
        let secret =
            WebhookSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").expect("secret");
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            secret.sign("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn secrets_need_the_prefix_and_base64() {
        assert_eq!(
            WebhookSecret::parse("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").err(),
            Some(SecretError::Prefix)
        );
        assert_eq!(
            WebhookSecret::parse("whsec_not base64!").err(),
            Some(SecretError::Base64)
        );
        assert_eq!(
            WebhookSecret::parse("whsec_c2hvcnQ=").err(),
            Some(SecretError::Short)
        );
    }
}
