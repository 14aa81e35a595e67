//! Layers ([`Layer`]): where a config comes from (the organisation, the
//! project, the user) and how it ranks against the other configs of one
//! stack; and the managed layer's switches ([`Switches`]).
//!
//! The rules (docs/fleet.md, *Layers*): the configs of a stack run from
//! the lowest rank to the highest (`managed` last, with the last word),
//! configs of one rank in the order they were given; within a config, in
//! declared order. The
//! names and ranks follow Claude Code's settings precedence (managed >
//! local > project > user).

use std::borrow::Cow;

use crate::data::{List, Text};

/// The layer of a config: a name and a rank (a higher rank runs later,
/// with the last word).
///
/// Built-in layers: `managed` (rank 1000), `local` (300), `project` (200,
/// the default of a config that declares none) and `user` (100). A named
/// layer ranks between 1 and 999, at no built-in layer's rank.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layer {
    /// The layer's name: a built-in one or the config's own.
    pub name: Text,
    /// Its rank: configs of a higher rank run later.
    pub rank: u16,
}

impl Layer {
    /// The managed layer (rank 1000): an administrator's; its hooks cannot
    /// be redefined by another layer and it alone may set [`Switches`].
    pub const MANAGED: Layer = Layer::builtin("managed", 1000);
    /// The local layer (rank 300): one person's settings for one checkout.
    pub const LOCAL: Layer = Layer::builtin("local", 300);
    /// The project layer (rank 200), the default: a config checked into
    /// the repository.
    pub const PROJECT: Layer = Layer::builtin("project", 200);
    /// The user layer (rank 100): one person's settings for every project.
    pub const USER: Layer = Layer::builtin("user", 100);
    /// The built-in layers, highest rank first.
    pub const BUILTIN: [Layer; 4] = [Layer::MANAGED, Layer::LOCAL, Layer::PROJECT, Layer::USER];

    const fn builtin(name: &'static str, rank: u16) -> Layer {
        Layer {
            name: Cow::Borrowed(name),
            rank,
        }
    }

    /// The built-in layer called `name`, if any.
    pub fn builtin_named(name: &str) -> Option<Layer> {
        Layer::BUILTIN.into_iter().find(|l| l.name == name)
    }

    /// Whether this is the managed layer.
    pub fn is_managed(&self) -> bool {
        self.name == "managed"
    }
}

impl Default for Layer {
    fn default() -> Self {
        Layer::PROJECT
    }
}

impl std::fmt::Display for Layer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

/// The switches of the managed layer (the config key `managed:`), which
/// the other layers cannot override. Claude Code's counterparts:
/// `disableAllHooks`, `allowManagedHooksOnly`, `allowedHttpHookUrls`,
/// `httpHookAllowedEnvVars`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Switches {
    /// No hook of any layer runs, the managed layer's included.
    pub disable_all_hooks: bool,
    /// Only the managed layer's hooks run; the other layers' configs are
    /// checked but not loaded.
    pub managed_hooks_only: bool,
    /// The URLs `http` hooks may call (and follow redirects to), each a
    /// pattern where `*` stands for any run of characters, within the host
    /// part for a `*` there ([`url_matches`]); `None`: any URL. An empty
    /// list allows none.
    pub allowed_http_urls: Option<List<Text>>,
    /// The environment variables `http` hooks' headers may read (their
    /// `env` list); `None`: any. An empty list allows none.
    pub allowed_header_env: Option<List<Text>>,
}

impl Switches {
    /// Whether the hooks of a config in `layer` run under these switches:
    /// none with `disable_all_hooks`, only the managed layer's with
    /// `managed_hooks_only`.
    pub fn runs(&self, layer: &Layer) -> bool {
        !self.disable_all_hooks && (!self.managed_hooks_only || layer.is_managed())
    }

    /// Whether an `http` hook may call `url` ([`Switches::allowed_http_urls`],
    /// matched by [`url_matches`]): the URL as it will be requested (parsed
    /// per the WHATWG URL standard, as the HTTP client parses it: `\`
    /// read as `/`, dot segments and `%2e` resolved, the host lower-cased,
    /// a default port dropped). A URL that does not parse is not allowed
    /// while there is a list.
    pub fn url_allowed(&self, url: &str) -> bool {
        let Some(patterns) = &self.allowed_http_urls else {
            return true;
        };
        let Ok(parsed) = url::Url::parse(url) else {
            return false;
        };
        patterns.iter().any(|p| url_matches(p, parsed.as_str()))
    }

    /// Whether an `http` hook's headers may read the environment variable
    /// `name` ([`Switches::allowed_header_env`]).
    pub fn header_env_allowed(&self, name: &str) -> bool {
        self.allowed_header_env
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
    }
}

/// Whether `url` matches `pattern` ([`Switches::allowed_http_urls`]): `*`
/// stands for any run of characters, but in the scheme and authority (up
/// to the first `/`, `?` or `#` after `://`) it never crosses the path's
/// start or a `@`, so `https://*.example.com/*` matches
/// `https://api.example.com/v1` and neither `https://evil.test/.example.com/`
/// nor `https://x.example.com@evil.test/`.
pub fn url_matches(pattern: &str, url: &str) -> bool {
    let (pattern_head, pattern_rest) = split_authority(pattern);
    let (url_head, url_rest) = split_authority(url);
    let mut patterns = pattern_head.split('@');
    let mut parts = url_head.split('@');
    loop {
        match (patterns.next(), parts.next()) {
            (Some(p), Some(t)) if wildcard_match(p, t) => {}
            (None, None) => break,
            _ => return false,
        }
    }
    wildcard_match(pattern_rest, url_rest)
}

/// `s` split where its path, query or fragment starts after `scheme://`
/// (the whole of `s` is the head when it has none).
fn split_authority(s: &str) -> (&str, &str) {
    let from = s.find("://").map_or(0, |i| i + 3);
    match s[from..].find(['/', '?', '#']) {
        Some(i) => s.split_at(from + i),
        None => (s, ""),
    }
}

/// Whether `text` matches `pattern`, where `*` stands for any run of
/// characters (none included) and every other character for itself.
/// Allocates nothing; linear in practice (one backtracking point).
pub fn wildcard_match(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut i, mut j) = (0, 0);
    // The last `*` seen and the text position its match ends at.
    let mut star: Option<(usize, usize)> = None;
    while j < t.len() {
        if i < p.len() && p[i] == b'*' {
            star = Some((i, j));
            i += 1;
        } else if i < p.len() && p[i] == t[j] {
            i += 1;
            j += 1;
        } else if let Some((si, sj)) = star {
            // The last `*` takes one more character.
            star = Some((si, sj + 1));
            i = si + 1;
            j = sj + 1;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_any_run_of_characters() {
        assert!(wildcard_match(
            "https://a.example/*",
            "https://a.example/x/y"
        ));
        assert!(wildcard_match("https://a.example/*", "https://a.example/"));
        assert!(!wildcard_match(
            "https://a.example/*",
            "https://a.example.evil/"
        ));
        assert!(!wildcard_match("https://a.example/*", "http://a.example/"));
        assert!(wildcard_match(
            "http://127.0.0.1:*/v1/*",
            "http://127.0.0.1:8181/v1/data"
        ));
        assert!(!wildcard_match(
            "http://127.0.0.1:*/v1/*",
            "http://127.0.0.1:8181/v2/data"
        ));
        assert!(wildcard_match("exact", "exact"));
        assert!(!wildcard_match("exact", "exactly"));
        assert!(wildcard_match("*", ""));
        assert!(wildcard_match("a*b*a", "aba"));
        assert!(!wildcard_match("a*a", "a"));
    }

    #[test]
    fn a_star_in_the_host_stays_in_the_host() {
        let p = "https://*.example.com/*";
        assert!(url_matches(p, "https://api.example.com/v1"));
        assert!(url_matches(p, "https://a.b.example.com/"));
        assert!(!url_matches(p, "https://evil.test/.example.com/"));
        assert!(!url_matches(p, "https://x.example.com@evil.test/"));
        assert!(!url_matches(p, "https://evil.test?.example.com/"));
        assert!(!url_matches(p, "http://api.example.com/"));
        assert!(url_matches(
            "http://127.0.0.1:*/*",
            "http://127.0.0.1:8181/v1/data"
        ));
        assert!(!url_matches(
            "http://127.0.0.1:*/*",
            "http://127.0.0.1:80@evil.test/"
        ));
        assert!(url_matches("https://u@h.test/*", "https://u@h.test/x"));
        assert!(url_matches("https://h.test", "https://h.test"));
        assert!(!url_matches("https://h.test", "https://h.test/x"));
    }

    #[test]
    fn urls_are_matched_as_they_will_be_requested() {
        let list = |p: &str| Switches {
            allowed_http_urls: Some(List::Owned(vec![Cow::Owned(p.to_owned())])),
            ..Switches::default()
        };
        let hosts = list("http://*.example.com/*");
        assert!(hosts.url_allowed("http://API.Example.com:80/x"));
        assert!(!hosts.url_allowed("http://127.0.0.1:8765\\.example.com/x"));
        assert!(!hosts.url_allowed("http://[::1]:8765\\.example.com/"));
        assert!(!hosts.url_allowed("not a url"));
        let path = list("http://127.0.0.2:8766/allowed/*");
        assert!(path.url_allowed("http://127.0.0.2:8766/allowed/x"));
        assert!(!path.url_allowed("http://127.0.0.2:8766/allowed/../x"));
        assert!(!path.url_allowed("http://127.0.0.2:8766/allowed/%2e%2e/y"));
        assert!(!path.url_allowed("http://127.0.0.2:8766/allowed/%2E%2e/y"));
    }

    #[test]
    fn absent_lists_allow_everything_and_empty_ones_nothing() {
        let open = Switches::default();
        assert!(open.url_allowed("https://anything/"));
        assert!(open.header_env_allowed("TOKEN"));
        let closed = Switches {
            allowed_http_urls: Some(List::EMPTY),
            allowed_header_env: Some(List::EMPTY),
            ..Switches::default()
        };
        assert!(!closed.url_allowed("https://anything/"));
        assert!(!closed.header_env_allowed("TOKEN"));
    }

    #[test]
    fn builtin_layers_rank_as_claude_code_settings() {
        let ranks: Vec<u16> = Layer::BUILTIN.iter().map(|l| l.rank).collect();
        assert!(ranks.windows(2).all(|w| w[0] > w[1]));
        assert_eq!(Layer::builtin_named("local"), Some(Layer::LOCAL));
        assert_eq!(Layer::builtin_named("team"), None);
        assert_eq!(Layer::default(), Layer::PROJECT);
    }
}
