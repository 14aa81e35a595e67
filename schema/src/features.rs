//! Which parts of the config language this build can run: `http` hooks,
//! `policy` hooks and a `catalogue:` (whose schemas rewrites are checked
//! against at run time) each need a cargo feature of `agent-hooks`
//! (`http`, `policy`, `rewrite-check`; see docs/embedding.md, "Cargo features").
//! Without it, a config that uses the part is a located error naming the
//! feature, from [`missing`]: the one place the rule lives, read by
//! `hooks!` (whose features mirror the facade's) and `Table::load`.

use crate::config::{Action, Config};
use crate::diagnostic::{Diagnostic, Layer};
use crate::yaml::{Anchor, Positions};

/// The diagnostics code of a config that needs a feature this build lacks.
pub const FEATURE_OFF: &str = "feature-off";

/// One located error for each use of a part this build was compiled
/// without: an enabled `http` hook (feature `http`), an enabled `policy`
/// hook (`policy`), a `catalogue:` (`rewrite-check`). A disabled hook
/// never runs, so it needs no feature (its config is still checked).
pub(crate) fn missing(config: &Config, positions: &Positions, file: &str) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let mut at = |pointer: &str, feature: &str, what: String| {
        found.push(
            positions
                .error_at(
                    file,
                    pointer,
                    Anchor::Key,
                    Layer::Semantic,
                    FEATURE_OFF,
                    format!("{what} needs the `{feature}` feature of agent-hooks, which this build does not enable"),
                )
            .with_hint(format!(
                "add `\"{feature}\"` to the `features` of the `agent-hooks` dependency in Cargo.toml: `agent-hooks = {{ ..., features = [\"{feature}\"] }}`"
            )),
        );
    };
    for (i, hook) in config.hooks.iter().enumerate().filter(|(_, h)| h.enabled) {
        match hook.action() {
            Action::Http(_) if !cfg!(feature = "http") => at(
                &format!("/hooks/{i}/http"),
                "http",
                format!("hook `{}`: an `http` hook", hook.id),
            ),
            Action::Policy(_) if !cfg!(feature = "policy") => at(
                &format!("/hooks/{i}/policy"),
                "policy",
                format!("hook `{}`: a `policy` hook", hook.id),
            ),
            _ => {}
        }
    }
    if config.catalogue.is_some() && !cfg!(feature = "rewrite-check") {
        at(
            "/catalogue",
            "rewrite-check",
            "a `catalogue:` (rewrites are checked against its schemas at run time)".to_owned(),
        );
    }
    found
}
