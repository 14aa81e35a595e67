//! The redirect policy of `follow_redirects: true`: [`redirect`] decides
//! whether an answer is a redirect to follow and how; [`strip_secrets`]
//! drops the secret headers when the origin changes. With the `http`
//! feature only.

use hooks_plan::Switches;
use reqwest::header::{
    AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, COOKIE, HeaderMap, HeaderName, PROXY_AUTHORIZATION,
};
use reqwest::{Method, Request, Url};

use crate::core::report::FailureKind;

/// Most redirects followed when a hook allows them.
pub(crate) const MAX_REDIRECTS: usize = 10;

/// The next request of a redirect [`redirect`] allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hop {
    /// Where to.
    pub(crate) url: Url,
    /// `true` for 307 and 308: the same method with the same body; `false`
    /// for 301, 302 and 303: `GET` without a body (as browsers and reqwest
    /// do).
    pub(crate) keeps_body: bool,
    /// The origin (scheme, host, port) differs from the request's: the
    /// secret headers are dropped ([`strip_secrets`]).
    pub(crate) cross_origin: bool,
}

/// Whether an answer with `status` and `Location` header `location` to a
/// request for `from`, after `hops` redirects already followed, is a
/// redirect to follow: `Ok(None)` when it is the answer (not 301, 302,
/// 303, 307 or 308, or no `Location`: the status is then read as the
/// answer's), `Ok(Some(hop))` when it is followed.
///
/// # Errors
///
/// `redirect_refused` when the redirect is not followed: from `https` to
/// `http` (the request, its headers and the payload, would go out in
/// clear text), to another scheme, to a `Location` that is not a URL, or
/// past [`MAX_REDIRECTS`]. The detail names no URL (a query may hold a
/// secret).
pub(crate) fn redirect(
    status: u16,
    location: Option<&[u8]>,
    from: &Url,
    hops: usize,
) -> Result<Option<Hop>, (FailureKind, String)> {
    if !matches!(status, 301 | 302 | 303 | 307 | 308) {
        return Ok(None);
    }
    let Some(location) = location else {
        return Ok(None);
    };
    let refused = |why: String| Err((FailureKind::RedirectRefused, why));
    let Some(url) = std::str::from_utf8(location)
        .ok()
        .and_then(|l| from.join(l).ok())
    else {
        return refused(format!(
            "a redirect (status {status}) whose `Location` is not a URL"
        ));
    };
    if !matches!(url.scheme(), "http" | "https") {
        return refused(format!(
            "a redirect (status {status}) to a `{}` URL, expected `http` or `https`",
            url.scheme()
        ));
    }
    if from.scheme() == "https" && url.scheme() == "http" {
        return refused(format!(
            "a redirect (status {status}) from `https` to `http`: the request would go out in clear text"
        ));
    }
    if hops >= MAX_REDIRECTS {
        return refused(format!("more than {MAX_REDIRECTS} redirects"));
    }
    let cross_origin = url.scheme() != from.scheme()
        || url.host_str() != from.host_str()
        || url.port_or_known_default() != from.port_or_known_default();
    Ok(Some(Hop {
        url,
        keeps_body: matches!(status, 307 | 308),
        cross_origin,
    }))
}

/// Whether the managed layer's `switches` (none: every URL) let a hook
/// follow `hop`: its URL, parsed and joined as it will be requested
/// (lower-case host, no default port), must match
/// [`Switches::allowed_http_urls`].
///
/// # Errors
///
/// `not_allowed`, naming the target without its query
/// ([`shown_url`](super::shown_url)), when it does not: the redirect is not
/// followed.
pub(crate) fn check_allowed(
    hop: &Hop,
    switches: Option<&Switches>,
) -> Result<(), (FailureKind, String)> {
    match switches {
        Some(switches) if !switches.url_allowed(hop.url.as_str()) => Err((
            FailureKind::NotAllowed,
            format!(
                "the managed layer does not allow `http` hooks to call `{}` (`allowed_http_urls`): the redirect to it was not followed",
                super::shown_url(hop.url.as_str())
            ),
        )),
        _ => Ok(()),
    }
}

/// The headers of a hook's requests that are dropped on a change of
/// origin: every header whose value comes from `env` (`${NAME}`), every
/// header whose name `is_secret_name` says holds a credential, and the
/// standard credential headers (`Authorization`, `Proxy-Authorization`,
/// `Cookie`). Names that are not valid HTTP are left out (such a hook
/// never sends a request).
pub(crate) fn secret_names(
    headers: &[(String, String)],
    is_secret_name: fn(&str) -> bool,
) -> Vec<HeaderName> {
    let mut names = vec![AUTHORIZATION, PROXY_AUTHORIZATION, COOKIE];
    for (name, value) in headers {
        if (value.contains("${") || is_secret_name(name))
            && let Ok(name) = HeaderName::from_bytes(name.as_bytes())
            && !names.contains(&name)
        {
            names.push(name);
        }
    }
    names
}

/// Drops `secret` from `headers`.
pub(crate) fn strip_secrets(headers: &mut HeaderMap, secret: &[HeaderName]) {
    for name in secret {
        headers.remove(name);
    }
}

/// Turns `request` (a copy of the one answered with a redirect) into the
/// request of `hop`: its URL, `GET` without a body unless the redirect
/// keeps it, the secret headers dropped when the origin changes (for this
/// hop and every later one, even back to the first origin).
pub(crate) fn follow(request: &mut Request, hop: Hop, secret: &[HeaderName]) {
    if !hop.keeps_body {
        *request.method_mut() = Method::GET;
        *request.body_mut() = None;
        request.headers_mut().remove(CONTENT_TYPE);
        request.headers_mut().remove(CONTENT_LENGTH);
    }
    if hop.cross_origin {
        strip_secrets(request.headers_mut(), secret);
    }
    *request.url_mut() = hop.url;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn hop(status: u16, location: &str, from: &str) -> Result<Option<Hop>, (FailureKind, String)> {
        redirect(status, Some(location.as_bytes()), &url(from), 0)
    }

    #[test]
    fn https_to_http_is_refused() {
        let (kind, detail) = hop(302, "http://h/x", "https://h/x").unwrap_err();
        assert_eq!(kind, FailureKind::RedirectRefused);
        assert!(detail.contains("from `https` to `http`"), "{detail}");
        // A relative `Location` keeps the scheme.
        assert!(hop(307, "/y", "https://h/x").unwrap().is_some());
        // Upgrading is fine.
        let up = hop(308, "https://h/x", "http://h/x").unwrap().unwrap();
        assert!(up.cross_origin && up.keeps_body);
    }

    #[test]
    fn origins_are_scheme_host_and_port() {
        let same = hop(302, "http://h:80/y", "http://h/x").unwrap().unwrap();
        assert!(!same.cross_origin && !same.keeps_body);
        for to in ["http://h:8080/x", "http://other/x", "http://127.0.0.1/x"] {
            assert!(
                hop(307, to, "http://h/x").unwrap().unwrap().cross_origin,
                "{to}"
            );
        }
    }

    #[test]
    fn other_answers_and_other_schemes() {
        assert_eq!(hop(200, "http://h/y", "http://h/x"), Ok(None));
        assert_eq!(hop(304, "http://h/y", "http://h/x"), Ok(None));
        assert_eq!(redirect(302, None, &url("http://h/x"), 0), Ok(None));
        let (kind, _) = hop(302, "file:///etc/passwd", "http://h/x").unwrap_err();
        assert_eq!(kind, FailureKind::RedirectRefused);
        let (kind, detail) =
            redirect(302, Some(b"/y"), &url("http://h/x"), MAX_REDIRECTS).unwrap_err();
        assert_eq!(kind, FailureKind::RedirectRefused);
        assert!(detail.contains("more than 10"), "{detail}");
    }

    #[test]
    fn a_redirect_target_is_held_to_the_managed_urls_in_its_parsed_form() {
        let switches = Switches {
            allowed_http_urls: Some(["https://hooks.example/*".into()].into_iter().collect()),
            ..Switches::default()
        };
        let to = |location: &str| {
            hop(307, location, "https://hooks.example/a")
                .unwrap()
                .unwrap()
        };
        // Relative, and an upper-case host: both requested as allowed URLs.
        assert_eq!(check_allowed(&to("/b"), Some(&switches)), Ok(()));
        assert_eq!(
            check_allowed(&to("https://HOOKS.example:443/c"), Some(&switches)),
            Ok(())
        );
        let (kind, detail) = check_allowed(
            &to("https://u:pw@other.example/x?token=t0k3n"),
            Some(&switches),
        )
        .unwrap_err();
        assert_eq!(kind, FailureKind::NotAllowed);
        assert!(detail.contains("`https://other.example/x?…`"), "{detail}");
        assert!(
            !detail.contains("t0k3n") && !detail.contains("pw"),
            "{detail}"
        );
        // No switches: every target.
        assert_eq!(check_allowed(&to("https://other.example/"), None), Ok(()));
    }

    #[test]
    fn secret_headers_are_the_env_ones_the_credential_ones_and_the_standard_ones() {
        let headers = [
            ("X-Api-Key".to_owned(), "${TOKEN}".to_owned()),
            ("X-Tenant".to_owned(), "t-${TENANT}".to_owned()),
            ("X-Auth-Token".to_owned(), "literal".to_owned()),
            ("X-Trace".to_owned(), "plain".to_owned()),
        ];
        let names = secret_names(&headers, |n| n.to_ascii_lowercase().contains("auth"));
        let names: Vec<&str> = names.iter().map(HeaderName::as_str).collect();
        assert_eq!(
            names,
            [
                "authorization",
                "proxy-authorization",
                "cookie",
                "x-api-key",
                "x-tenant",
                "x-auth-token"
            ]
        );
    }
}
