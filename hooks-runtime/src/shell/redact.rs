//! Redaction: the one function every record, diagnostic and redacted payload
//! goes through.
//!
//! [`redact_sensitive_text`] replaces well-known token shapes and declared
//! secret values with [`REDACTED`]; [`redact_json`] does the same inside a
//! JSON value and masks every value whose key looks credential-like.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// What a redacted value is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// Shortest declared secret value that is redacted, in bytes; shorter values
/// (`1`, `yes`) would blank out ordinary text.
pub const MIN_SECRET_LEN: usize = 6;

/// Declared secret values: redacted wherever they occur, whatever their shape.
///
/// Typically the values of the environment variables a hook is given whose
/// names look credential-like ([`is_credential_name`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecretSet {
    values: Vec<String>,
}

/// `s` as it appears between the quotes of a JSON string.
fn json_escaped(s: &str) -> String {
    let quoted = serde_json::to_string(s).unwrap_or_default();
    quoted
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .unwrap_or(&quoted)
        .to_owned()
}

impl SecretSet {
    /// An empty set.
    pub fn new() -> Self {
        SecretSet::default()
    }

    /// Adds `value` (ignored when shorter than [`MIN_SECRET_LEN`] bytes or
    /// already present), and the forms it takes inside JSON text escaped
    /// once and twice (a hook that logs its payload with `json.dumps`, a
    /// record quoting that log), when those differ: a secret holding `"`
    /// or `\` is redacted however it was printed.
    pub fn add(&mut self, value: impl Into<String>) {
        let value = value.into();
        if value.len() < MIN_SECRET_LEN {
            return;
        }
        let once = json_escaped(&value);
        let twice = json_escaped(&once);
        for form in [value, once, twice] {
            if !self.values.contains(&form) {
                self.values.push(form);
            }
        }
        // Longest first, so a secret containing another is redacted whole.
        self.values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    }

    /// Adds the value of every `(name, value)` pair whose name looks
    /// credential-like ([`is_credential_name`]).
    pub fn add_env<'a>(&mut self, pairs: impl IntoIterator<Item = (&'a str, &'a str)>) {
        for (name, value) in pairs {
            if is_credential_name(name) {
                self.add(value);
            }
        }
    }

    /// Adds every value of `other`.
    pub fn extend(&mut self, other: &SecretSet) {
        for value in &other.values {
            self.add(value.clone());
        }
    }

    /// The declared values, longest first.
    pub fn values(&self) -> &[String] {
        &self.values
    }

    /// Whether no value is declared.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// Whether a variable or key name looks like it holds a credential: it
/// contains (ASCII case-insensitively) `token`, `secret`, `password`,
/// `passwd`, `credential`, `api_key`/`apikey`, `private_key`, `auth`, or
/// ends in `key` (`AWS_SECRET_ACCESS_KEY`, `OPENAI_API_KEY`, `key`).
///
/// `tokens` (plural) is a count, not a credential: `max_tokens`,
/// `prompt_tokens` and the like are left alone, so a request patch or a
/// usage report stays readable.
pub fn is_credential_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let singular_token = lower
        .match_indices("token")
        .any(|(i, _)| !lower[i + "token".len()..].starts_with('s'));
    const PARTS: [&str; 8] = [
        "secret",
        "password",
        "passwd",
        "credential",
        "api_key",
        "apikey",
        "private_key",
        "auth",
    ];
    singular_token || PARTS.iter().any(|p| lower.contains(p)) || lower.ends_with("key")
}

struct Patterns {
    /// Token shapes, each with its replacement template (`$keep` is kept).
    tokens: Vec<Regex>,
    /// `name<sep>value`: the value (group `value`) is replaced.
    assignment: Regex,
    /// Every pattern above in one set: most texts (a record line, a hook's
    /// output) match none, which one search of the set tells, instead of
    /// one search per pattern.
    any: regex::RegexSet,
}

/// One regex per shape: each starts with a literal, so the regex crate's
/// prefilter skips ordinary text quickly (one alternation of all of them
/// would not).
const TOKEN_PATTERNS: [&str; 11] = [
    r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)",
    r"(?-u:\b)sk-[A-Za-z0-9_\-]{16,}",
    r"(?-u:\b)gh[pousr]_[A-Za-z0-9]{20,}",
    r"(?-u:\b)github_pat_[A-Za-z0-9_]{20,}",
    r"(?-u:\b)(?:AKIA|ASIA)[A-Z0-9]{16}(?-u:\b)",
    r"(?-u:\b)xox[abposr]-[A-Za-z0-9\-]{10,}",
    r"(?-u:\b)(?P<keep>(?i:bearer)[ \t]+)[A-Za-z0-9._~+/=\-]{8,}",
    // GitLab personal, project and group access tokens.
    r"(?-u:\b)glpat-[A-Za-z0-9_\-]{20,}",
    // A JSON Web Token on its own: base64url `{"...` header and payload.
    r"(?-u:\b)eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
    // HTTP Basic credentials in an `Authorization` header (RFC 7617).
    r#"(?P<keep>(?i:authorization)["']?[ \t]*[:=][ \t]*["']?(?i:basic)[ \t]+)[A-Za-z0-9+/=]{8,}"#,
    // The password of a URL's user information (RFC 3986 §3.2.1).
    r"(?-u:\b)(?P<keep>[a-zA-Z][a-zA-Z0-9+.\-]*://[^/?#\s:@]+:)[^/?#\s@]+(?P<tail>@)",
];

/// `name<sep>value` with a credential-like name: the value (group
/// `value`) is replaced.
const ASSIGNMENT_PATTERN: &str = concat!(
    // `token` but not `tokens` (a count such as `max_tokens`).
    r#"(?i)(?-u:\b)[a-z0-9_\-]*(?:(?:password|passwd|secret|api[_\-]?key|access[_\-]?key|private[_\-]?key|credential)[a-z0-9_\-]*|token(?:[a-rt-z0-9_\-][a-z0-9_\-]*)?)"#,
    r#"["']?[ \t]*[=:][ \t]*"#,
    // A value already redacted (a token shape, a declared secret) is
    // matched whole, marker and all, so it is not redacted twice
    // (`[REDACTED]]`). A quoted value without its closing quote (cut
    // off, or a typo) runs to the end of the line: it is redacted, not
    // skipped.
    r#"(?P<value>\[REDACTED\][^\s&;,'"\]\}\)]*|"(?:[^"\\\n]|\\.)*"?|'[^'\n]*'?|[^\s&;,'"\]\}\)]+)"#,
);

static PATTERNS: LazyLock<Patterns> = LazyLock::new(|| {
    let built =
        |p: &str| Regex::new(p).unwrap_or_else(|e| unreachable!("built-in redaction pattern: {e}"));
    Patterns {
        tokens: TOKEN_PATTERNS.iter().map(|p| built(p)).collect(),
        assignment: built(ASSIGNMENT_PATTERN),
        any: regex::RegexSet::new(TOKEN_PATTERNS.iter().chain([&ASSIGNMENT_PATTERN]))
            .unwrap_or_else(|e| unreachable!("built-in redaction patterns: {e}")),
    }
});

/// Redacts credentials from `text`: the token shapes below, `name=value` /
/// `name: value` assignments whose name looks credential-like, and every
/// value declared in `secrets`. Returns `text` borrowed when nothing matched.
///
/// Token shapes: OpenAI/Anthropic-style `sk-…`, GitHub `ghp_…` (and `gho_`,
/// `ghu_`, `ghs_`, `ghr_`) and `github_pat_…`, GitLab `glpat-…`, AWS
/// access key ids `AKIA…` / `ASIA…`, Slack `xoxb-…`/`xoxp-…`, `Bearer …`
/// tokens (the word `Bearer` is kept), JSON Web Tokens (`eyJ….eyJ….…`),
/// `Authorization: Basic …` credentials, the password of a URL
/// (`https://user:PASSWORD@host`: user and host are kept), and PEM
/// `-----BEGIN … PRIVATE KEY-----` blocks (to the matching END line, or
/// to the end of the text when it is cut off).
///
/// Each match becomes [`REDACTED`]; quotes around an assigned value are
/// replaced with it, so redacting JSON text keeps it valid JSON.
pub fn redact_sensitive_text<'a>(text: &'a str, secrets: &SecretSet) -> Cow<'a, str> {
    let mut out = Cow::Borrowed(text);
    for secret in secrets.values() {
        if out.contains(secret.as_str()) {
            out = Cow::Owned(out.replace(secret.as_str(), REDACTED));
        }
    }
    let p = &*PATTERNS;
    if !p.any.is_match(&out) {
        return out;
    }
    for re in &p.tokens {
        if re.is_match(&out) {
            let replaced = re
                .replace_all(&out, |caps: &regex::Captures<'_>| {
                    let keep = caps.name("keep").map_or("", |m| m.as_str());
                    let tail = caps.name("tail").map_or("", |m| m.as_str());
                    format!("{keep}{REDACTED}{tail}")
                })
                .into_owned();
            out = Cow::Owned(replaced);
        }
    }
    if p.assignment.is_match(&out) {
        let replaced = p
            .assignment
            .replace_all(&out, |caps: &regex::Captures<'_>| {
                let whole = &caps[0];
                let value = caps.name("value").map_or("", |m| m.as_str());
                let keep = &whole[..whole.len() - value.len()];
                if value.trim_matches(['"', '\'']) == REDACTED {
                    return whole.to_owned();
                }
                if value.starts_with('"') {
                    format!("{keep}\"{REDACTED}\"")
                } else if value.starts_with('\'') {
                    format!("{keep}'{REDACTED}'")
                } else {
                    format!("{keep}{REDACTED}")
                }
            })
            .into_owned();
        out = Cow::Owned(replaced);
    }
    out
}

/// Redacts the whole of `text` with [`redact_sensitive_text`], *then* cuts
/// it to at most `max_chars` characters (Unicode scalar values) plus a `…`.
///
/// Redacting first means a secret straddling the cut-off is still matched
/// whole (cutting first would leave a prefix such as `ghp_abcdefghijklmno`,
/// too short for its token shape, in clear). The cut falls on a char
/// boundary and never inside a [`REDACTED`] marker: a marker that would be
/// split is dropped whole, so no partial marker or raw prefix remains.
pub(crate) fn redact_and_truncate(text: &str, secrets: &SecretSet, max_chars: usize) -> String {
    let redacted = redact_sensitive_text(text, secrets);
    truncate_outside_markers(&redacted, max_chars)
}

/// Cuts `text` to at most `max_chars` characters plus a `…`, moving the cut
/// back to the start of a [`REDACTED`] marker it would split.
pub(crate) fn truncate_outside_markers(text: &str, max_chars: usize) -> String {
    let Some((mut cut, _)) = text.char_indices().nth(max_chars) else {
        return text.to_owned();
    };
    for (start, marker) in text.match_indices(REDACTED) {
        if start >= cut {
            break;
        }
        if start + marker.len() > cut {
            cut = start;
            break;
        }
    }
    let mut out = String::with_capacity(cut + '…'.len_utf8());
    out.push_str(&text[..cut]);
    out.push('…');
    out
}

/// Passes every string of `value` (object keys and string leaves, at any
/// depth) through [`redact_sensitive_text`] in place. Unlike
/// [`redact_json`], values under credential-like keys are *not* masked
/// wholesale: this is for JSON a hook hands to the model (a rewritten tool
/// result, a replacement history), whose shape must stay usable, not for
/// payloads. Key order is kept.
pub(crate) fn redact_json_strings(value: &mut Value, secrets: &SecretSet) {
    match value {
        Value::String(s) => {
            if let Cow::Owned(red) = redact_sensitive_text(s, secrets) {
                *s = red;
            }
        }
        Value::Array(items) => {
            for item in items {
                redact_json_strings(item, secrets);
            }
        }
        Value::Object(map) => {
            let keys_clean = map
                .keys()
                .all(|k| matches!(redact_sensitive_text(k, secrets), Cow::Borrowed(_)));
            if keys_clean {
                for v in map.values_mut() {
                    redact_json_strings(v, secrets);
                }
            } else {
                *map = std::mem::take(map)
                    .into_iter()
                    .map(|(k, mut v)| {
                        redact_json_strings(&mut v, secrets);
                        (redact_sensitive_text(&k, secrets).into_owned(), v)
                    })
                    .collect();
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// A copy of `value` with every value under a credential-like key
/// ([`is_credential_name`]) replaced by the string [`REDACTED`] and every
/// string passed through [`redact_sensitive_text`]. Keys are kept.
pub fn redact_json(value: &Value, secrets: &SecretSet) -> Value {
    match value {
        Value::String(s) => Value::String(redact_sensitive_text(s, secrets).into_owned()),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| redact_json(v, secrets)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if is_credential_name(k) && !v.is_null() {
                        Value::String(REDACTED.to_owned())
                    } else {
                        redact_json(v, secrets)
                    };
                    (redact_sensitive_text(k, secrets).into_owned(), v)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(text: &str) -> String {
        redact_sensitive_text(text, &SecretSet::new()).into_owned()
    }

    #[test]
    fn token_counts_are_not_credentials() {
        assert!(!is_credential_name("max_tokens"));
        assert!(!is_credential_name("prompt_tokens"));
        assert!(is_credential_name("access_token"));
        assert!(is_credential_name("GITHUB_TOKEN"));
        assert!(is_credential_name("token_tokens"));
        assert_eq!(r(r#"{"max_tokens": 100}"#), r#"{"max_tokens": 100}"#);
        assert_eq!(r("max_tokens=4096"), "max_tokens=4096");
        assert!(!r("access_token=abcdef123456").contains("abcdef123456"));
        assert!(!r("token: abcdef123456").contains("abcdef123456"));
        let patch = serde_json::json!({"max_tokens": 100, "api_token": "abcdef123456"});
        let red = redact_json(&patch, &SecretSet::new());
        assert_eq!(red["max_tokens"], 100);
        assert_eq!(red["api_token"], REDACTED);
    }

    #[test]
    fn token_shapes_are_redacted() {
        let cases = [
            ("key sk-proj-abcdefghijklmnop1234 end", "key [REDACTED] end"),
            ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED]"),
            ("github_pat_11ABCDEFG0123456789_abcdefghij", "[REDACTED]"),
            ("id AKIAIOSFODNN7EXAMPLE.", "id [REDACTED]."),
            ("xoxb-1234567890-abcdef", "[REDACTED]"),
            (
                "Authorization: Bearer eyJhbGciOi.JIUzI1.NiJ9",
                "Authorization: Bearer [REDACTED]",
            ),
            ("glpat-ABCDEFGHIJKLMNOPQRST12 x", "[REDACTED] x"),
            (
                "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlMTIz end",
                "jwt [REDACTED] end",
            ),
            (
                "Authorization: Basic dXNlcjpwYXNzd29yZA==",
                "Authorization: Basic [REDACTED]",
            ),
            (
                r#"{"Authorization": "Basic dXNlcjpwYXNzd29yZA=="}"#,
                r#"{"Authorization": "Basic [REDACTED]"}"#,
            ),
            (
                "clone https://bob:hunter2secret@git.example.com/r.git",
                "clone https://bob:[REDACTED]@git.example.com/r.git",
            ),
            // Not credentials: a basic word, a URL without a password.
            ("a basic understanding", "a basic understanding"),
            (
                "see https://example.com:8080/a@b and http://u@h/",
                "see https://example.com:8080/a@b and http://u@h/",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(r(input), want, "{input}");
        }
    }

    #[test]
    fn private_key_blocks_are_redacted_even_when_cut_off() {
        let text = "a\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNz\n-----END OPENSSH PRIVATE KEY-----\nz";
        assert_eq!(r(text), "a\n[REDACTED]\nz");
        assert_eq!(r("x -----BEGIN RSA PRIVATE KEY-----\nMIIE"), "x [REDACTED]");
    }

    #[test]
    fn assignments_keep_the_name_and_json_stays_valid() {
        assert_eq!(r("password=hunter2 next"), "password=[REDACTED] next");
        assert_eq!(r("DB_PASSWORD: 'x y'"), "DB_PASSWORD: '[REDACTED]'");
        let json = r#"{"api_key": "abc123", "n": 1}"#;
        let out = r(json);
        assert_eq!(out, r#"{"api_key": "[REDACTED]", "n": 1}"#);
        serde_json::from_str::<Value>(&out).unwrap();
        assert_eq!(r("nothing to see"), "nothing to see");
        assert!(matches!(
            redact_sensitive_text("plain", &SecretSet::new()),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn unterminated_quoted_values_are_redacted() {
        assert_eq!(r(r#"password="abc def"#), r#"password="[REDACTED]""#);
        assert_eq!(r("api_key='abc\nnext"), "api_key='[REDACTED]'\nnext");
        assert_eq!(r(r#"{"token": "abc"}"#), r#"{"token": "[REDACTED]"}"#);
    }

    #[test]
    fn an_assigned_token_is_redacted_once() {
        let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
        assert_eq!(r(&format!("token={token}; next")), "token=[REDACTED]; next");
        // The rest of an assigned value after a token is part of the value.
        assert_eq!(r(&format!("token={token}-x1 y")), "token=[REDACTED] y");
        let mut secrets = SecretSet::new();
        secrets.add("opaque-value-42");
        assert_eq!(
            redact_sensitive_text("password=opaque-value-42tail, ok", &secrets),
            "password=[REDACTED], ok"
        );
    }

    #[test]
    fn json_strings_are_redacted_in_place_without_masking_keys() {
        let mut secrets = SecretSet::new();
        secrets.add("opaque-value-42");
        let mut v = serde_json::json!({
            "author": "ann",
            "out": ["ok", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", 3],
            "opaque-value-42": {"note": "x opaque-value-42 y"},
        });
        redact_json_strings(&mut v, &secrets);
        assert_eq!(
            v,
            serde_json::json!({
                "author": "ann",
                "out": ["ok", REDACTED, 3],
                REDACTED: {"note": "x [REDACTED] y"},
            })
        );
    }

    #[test]
    fn declared_secrets_are_redacted_and_short_ones_ignored() {
        let mut secrets = SecretSet::new();
        secrets.add_env([("MY_TOKEN", "opaque-value-42"), ("HOME", "/root/home")]);
        secrets.add("abc");
        assert_eq!(secrets.values(), ["opaque-value-42"]);
        assert_eq!(
            redact_sensitive_text("x opaque-value-42 /root/home", &secrets),
            "x [REDACTED] /root/home"
        );
    }

    #[test]
    fn json_values_mask_credential_keys() {
        let v = serde_json::json!({
            "headers": {"Authorization": "Basic abc", "accept": "json"},
            "cmd": "curl -H 'token: ghp_abcdefghijklmnopqrstuvwxyz0123'",
            "aws_secret_access_key": {"nested": 1},
        });
        let out = redact_json(&v, &SecretSet::new());
        assert_eq!(out["headers"]["Authorization"], REDACTED);
        assert_eq!(out["headers"]["accept"], "json");
        assert_eq!(out["aws_secret_access_key"], REDACTED);
        assert!(!out["cmd"].as_str().unwrap().contains("ghp_"));
    }

    #[test]
    fn redaction_happens_before_the_cut() {
        let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
        for pad in 0..60 {
            let text = format!("{} {token} tail", "x".repeat(pad));
            let out = redact_and_truncate(&text, &SecretSet::new(), 40);
            assert!(!out.contains("ghp_"), "{pad}: {out}");
            assert!(out.chars().count() <= 41, "{pad}: {out}");
        }
    }

    #[test]
    fn the_cut_never_splits_a_marker() {
        let text = format!("ab{REDACTED}cd");
        for max in 0..text.len() + 2 {
            let out = truncate_outside_markers(&text, max);
            let body = out.strip_suffix('…').unwrap_or(&out);
            assert!(
                !body.contains('[') || body.contains(REDACTED),
                "{max}: {out}"
            );
            assert!(text.starts_with(body), "{max}: {out}");
        }
        assert_eq!(truncate_outside_markers("héllo", 2), "hé…");
        assert_eq!(truncate_outside_markers("short", 5), "short");
        assert_eq!(truncate_outside_markers(&text, 4), "ab…");
    }

    #[test]
    fn credential_names() {
        for name in [
            "GITHUB_TOKEN",
            "OPENAI_API_KEY",
            "db_password",
            "Authorization",
            "key",
        ] {
            assert!(is_credential_name(name), "{name}");
        }
        for name in ["PATH", "HOME", "command", "keyboard"] {
            assert!(!is_credential_name(name), "{name}");
        }
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A declared secret never survives redaction, wherever it sits.
        #[test]
        fn declared_secrets_never_survive(
            secret in "[A-Za-z0-9]{6,24}",
            before in ".{0,40}",
            after in ".{0,40}",
        ) {
            let mut secrets = SecretSet::new();
            secrets.add(secret.clone());
            let text = format!("{before}{secret}{after}");
            let out = redact_sensitive_text(&text, &secrets);
            prop_assert!(!out.contains(secret.as_str()), "{out}");
        }

        /// Redacting the JSON text of a string-valued object keeps it valid JSON.
        #[test]
        fn redacted_json_text_stays_json(
            key in prop_oneof!["token", "db_password", "API_KEY", "[a-z_]{1,12}"],
            value in "[ -~]{0,40}",
        ) {
            let text = serde_json::json!({ key: value }).to_string();
            let out = redact_sensitive_text(&text, &SecretSet::new());
            prop_assert!(serde_json::from_str::<Value>(&out).is_ok(), "{out}");
        }
    }
}
