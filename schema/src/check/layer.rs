//! The keys that place a config in a stack: `layer`, `mode` and
//! `managed:` (docs/fleet.md, *Layers*). What only a stack can tell (a
//! managed hook redefined by another layer, an `http` hook outside the
//! managed allowlists) is in `lint_stack`.

use serde_json::{Map, Value};

use super::names::VOCABULARY;
use super::walk::child;
use super::{At, Checker};
use crate::diagnostic::Layer;

impl Checker<'_> {
    /// Checks `layer`, `mode` and `managed` of the config `root`.
    pub(super) fn layer_keys(&mut self, root: &Map<String, Value>) {
        let managed_layer = match root.get("layer") {
            Some(Value::Object(named)) => {
                self.named_layer("/layer", named);
                false
            }
            Some(v) => {
                self.enum_value("/layer", v, "layer", VOCABULARY.layers, "unknown-layer")
                    .as_deref()
                    == Some("managed")
            }
            None => false,
        };
        self.enum_key(
            "",
            root,
            "mode",
            "config mode",
            VOCABULARY.config_modes,
            "unknown-mode",
        );
        let Some(managed) = root.get("managed") else {
            return;
        };
        if !managed_layer {
            self.report(
                "/managed",
                At::Key,
                Layer::Semantic,
                "managed-switches-outside-managed-layer",
                "`managed` switches are allowed only in a config of `layer: managed`".to_owned(),
                Some(
                    "move them into the administrator's config (`layer: managed`, granted by its stack file)"
                        .to_owned(),
                ),
            );
        }
        let Some(m) = self.object("/managed", managed, "a mapping of switches") else {
            return;
        };
        self.unknown_keys("/managed", m, VOCABULARY.managed, "`managed`");
        self.booleans("/managed", m, &["disable_all_hooks", "managed_hooks_only"]);
        for key in ["allowed_http_urls", "allowed_header_env"] {
            if let Some(v) = m.get(key) {
                self.string_list(&child("/managed", key), v, false);
            }
        }
    }

    pub(super) fn named_layer(&mut self, p: &str, named: &Map<String, Value>) {
        self.unknown_keys(p, named, VOCABULARY.named_layer, "a named layer");
        match named.get("name") {
            None => self.missing(p, "name", "a named layer", None),
            Some(v) => {
                let Some(name) = self.string(&child(p, "name"), v) else {
                    return;
                };
                let valid = name.starts_with(|c: char| c.is_ascii_lowercase())
                    && name.chars().all(|c| {
                        c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_'
                    });
                if VOCABULARY.layers.contains(&name) {
                    self.report(
                        &child(p, "name"),
                        At::Value,
                        Layer::Semantic,
                        "builtin-layer-name",
                        format!("`{name}` is a built-in layer: write `layer: {name}`"),
                        None,
                    );
                } else if !valid {
                    self.report(
                        &child(p, "name"),
                        At::Value,
                        Layer::Schema,
                        "invalid-layer-name",
                        format!("layer name `{name}` must be lowercase letters, digits, `-` and `_`, starting with a letter"),
                        None,
                    );
                }
            }
        }
        match named.get("rank") {
            None => self.missing(
                p,
                "rank",
                "a named layer",
                Some(
                    "give it a rank between 1 and 999 (user 100, project 200, local 300)"
                        .to_owned(),
                ),
            ),
            Some(v) => {
                let rp = child(p, "rank");
                self.integer(&rp, v, (1, 999));
                if let Some(builtin) = v.as_u64().filter(|r| (1..=999).contains(r)).and_then(|r| {
                    hooks_plan::Layer::BUILTIN
                        .into_iter()
                        .find(|l| u64::from(l.rank) == r)
                }) {
                    self.report(
                        &rp,
                        At::Value,
                        Layer::Semantic,
                        "layer-rank-taken",
                        format!(
                            "rank {} is the `{}` layer's: two layers of one rank would have no order",
                            builtin.rank, builtin.name
                        ),
                        Some("pick another rank".to_owned()),
                    );
                }
            }
        }
    }
}
