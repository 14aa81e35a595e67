//! The `policy` action's body: `rego` (a non-empty list of workspace-relative
//! files) and `query` (`data.<package>.<rule>`). Loading and compiling the
//! files is the loader's ([`crate::policy`]), which knows the workspace.

use serde_json::Value;

use super::names::VOCABULARY;
use super::run::cwd_problem;
use super::walk::child;
use super::{At, Checker};
use crate::diagnostic::Layer;

/// Whether `query` is `data.` and at least a package and a rule, each a
/// Rego identifier ([`POLICY_QUERY_PATTERN`](crate::POLICY_QUERY_PATTERN)).
pub(crate) fn valid_query(query: &str) -> bool {
    let mut parts = query.split('.');
    parts.next() == Some("data") && {
        let rest: Vec<&str> = parts.collect();
        rest.len() >= 2
            && rest.iter().all(|p| {
                let mut c = p.chars();
                matches!(c.next(), Some(f) if f == '_' || f.is_ascii_alphabetic())
                    && c.all(|c| c == '_' || c.is_ascii_alphanumeric())
            })
    }
}

impl Checker<'_> {
    /// `policy: {rego: [FILES], query: "data.<package>.<rule>", timeout}`.
    pub(super) fn policy(&mut self, p: &str, v: &Value) {
        let Some(m) = self.object(p, v, "a mapping with `rego` and `query`") else {
            return;
        };
        self.unknown_keys(p, m, VOCABULARY.policy, "`policy`");
        match m.get("rego") {
            None => self.missing(p, "rego", "`policy`", None),
            Some(files) => self.rego_files(&child(p, "rego"), files),
        }
        if let Some(t) = m.get("timeout") {
            self.duration(&child(p, "timeout"), t);
        }
        match m.get("query") {
            None => self.missing(
                p,
                "query",
                "`policy`",
                Some("name the rule that decides, e.g. `query: data.agent.tools.decision`".into()),
            ),
            Some(q) => {
                if let Some(query) = self.nonempty_string(&child(p, "query"), q)
                    && !valid_query(query)
                {
                    self.report(
                        &child(p, "query"),
                        At::Value,
                        Layer::Schema,
                        "invalid-policy-query",
                        format!(
                            "invalid policy query `{query}`, expected `data.<package>.<rule>` (Rego identifiers joined by `.`)"
                        ),
                        Some("for `package agent.tools` and the rule `decision`, write `data.agent.tools.decision`".into()),
                    );
                }
            }
        }
    }

    /// A non-empty list of non-empty paths relative to the workspace root
    /// that stay inside it.
    fn rego_files(&mut self, p: &str, v: &Value) {
        self.string_list(p, v, true);
        let Some(items) = v.as_array() else {
            return;
        };
        for (i, item) in items.iter().enumerate() {
            let ip = format!("{p}/{i}");
            let Some(path) = item.as_str().filter(|s| !s.is_empty()) else {
                if item.as_str() == Some("") {
                    self.nonempty_string(&ip, item);
                }
                continue;
            };
            if let Some(why) = cwd_problem(path) {
                self.report(
                    &ip,
                    At::Value,
                    Layer::Semantic,
                    "policy-outside-workspace",
                    format!(
                        "policy file `{path}` must be relative to the workspace root and stay inside it ({why})"
                    ),
                    Some("policy files resolve against the workspace root, like a `run` hook's scripts".into()),
                );
            }
        }
    }
}
