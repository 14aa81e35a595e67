//! The top level of a config and its settings: `version`, `defaults`,
//! `limits`, `tool_settings`, the `hooks` list and unique ids.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::names::VOCABULARY;
use super::walk::{child, quoted_list};
use super::{At, Checker};
use crate::capability::{CAPABILITIES, describe_phases};
use crate::config::Limits;
use crate::diagnostic::Layer;
use crate::phase::FailurePolicy;

/// The failure policies every phase allows (those `defaults` may name), in
/// declaration order.
pub(super) fn policies_allowed_everywhere() -> Vec<&'static str> {
    policies_allowed(|p| CAPABILITIES.iter().all(|c| c.allows_failure_policy(p)))
}

/// The failure policies for which `allowed` holds, in declaration order.
pub(super) fn policies_allowed(allowed: impl Fn(FailurePolicy) -> bool) -> Vec<&'static str> {
    VOCABULARY
        .failure_policies
        .iter()
        .copied()
        .filter(|name| policy(name).is_some_and(&allowed))
        .collect()
}

/// The failure policy named `name`, if any.
pub(super) fn policy(name: &str) -> Option<FailurePolicy> {
    serde_json::from_value(Value::String(name.to_owned())).ok()
}

impl Checker<'_> {
    /// Checks the whole document.
    pub(crate) fn check_document(&mut self, doc: &Value) {
        let Some(root) = self.object("", doc, "a mapping with `version` and `hooks`") else {
            return;
        };
        if root.contains_key("stack") && !root.contains_key("hooks") {
            self.report(
                "/stack",
                At::Key,
                Layer::Schema,
                "stack-file-as-config",
                "this is a stack file (a list of configs), not a hook config".to_owned(),
                Some("pass it with `--stack FILE` (docs/fleet.md, \"Layers\")".to_owned()),
            );
            return;
        }
        self.unknown_keys("", root, VOCABULARY.top, "the config");
        self.version(root);
        if let Some(d) = root.get("defaults") {
            self.defaults("/defaults", d);
        }
        if let Some(l) = root.get("limits") {
            self.limits("/limits", l);
        }
        if let Some(t) = root.get("tool_settings") {
            self.tool_settings("/tool_settings", t);
        }
        if let Some(c) = root.get("catalogue") {
            self.catalogue_key("/catalogue", c);
        }
        self.layer_keys(root);
        self.hooks(root);
    }

    fn version(&mut self, root: &Map<String, Value>) {
        match root.get("version") {
            None => self.missing(
                "",
                "version",
                "the config",
                Some("add `version: 1` at the top".to_owned()),
            ),
            Some(v) if v.as_u64() == Some(1) => {}
            Some(v) => self.report(
                "/version",
                At::Value,
                Layer::Schema,
                "unsupported-version",
                format!(
                    "unsupported config version `{}`, expected `1`",
                    v.to_string().trim_matches('"')
                ),
                None,
            ),
        }
    }

    fn hooks(&mut self, root: &Map<String, Value>) {
        let Some(h) = root.get("hooks") else {
            self.missing(
                "",
                "hooks",
                "the config",
                Some("add a `hooks:` list (it may be empty: `hooks: []`)".to_owned()),
            );
            return;
        };
        let Some(hooks) = self.array("/hooks", h, "a list of hooks") else {
            return;
        };
        for (i, hook) in hooks.iter().enumerate() {
            self.check_hook(&format!("/hooks/{i}"), hook);
        }
        self.unique_ids(hooks);
        self.injections_fit(root, hooks);
    }

    /// Each `inject` content within `limits.max_context_bytes` (the cap the
    /// runtime enforces on every injection): a declarative item over it
    /// could never be injected.
    fn injections_fit(&mut self, root: &Map<String, Value>, hooks: &[Value]) {
        let cap = root
            .get("limits")
            .and_then(|l| l.get("max_context_bytes"))
            .and_then(Value::as_u64)
            .unwrap_or(Limits::DEFAULT.max_context_bytes);
        for (i, hook) in hooks.iter().enumerate() {
            let Some(content) = hook.pointer("/inject/content").and_then(Value::as_str) else {
                continue;
            };
            let bytes = content.len() as u64;
            if bytes > cap {
                self.report(
                    &format!("/hooks/{i}/inject/content"),
                    At::Value,
                    Layer::Semantic,
                    "inject-over-cap",
                    format!(
                        "`inject` content of {bytes} bytes is over `limits.max_context_bytes` ({cap} bytes): it could never be injected"
                    ),
                    Some("shorten the content or raise `limits.max_context_bytes`".to_owned()),
                );
            }
        }
    }

    fn unique_ids(&mut self, hooks: &[Value]) {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, hook) in hooks.iter().enumerate() {
            let Some(id) = hook.get("id").and_then(Value::as_str) else {
                continue;
            };
            if let Some(first) = seen.get(id) {
                let first_line = self.positions.value_pos(&format!("/hooks/{first}/id")).line;
                self.report(
                    &format!("/hooks/{i}/id"),
                    At::Value,
                    Layer::Semantic,
                    "duplicate-id",
                    format!("duplicate hook id `{id}`"),
                    Some(format!(
                        "first defined on line {first_line}; ids must be unique"
                    )),
                );
            } else {
                seen.insert(id, i);
            }
        }
    }

    fn defaults(&mut self, p: &str, v: &Value) {
        let Some(m) = self.object(p, v, "a mapping") else {
            return;
        };
        self.unknown_keys(p, m, VOCABULARY.defaults, "`defaults`");
        if let Some(t) = m.get("timeout") {
            self.duration(&child(p, "timeout"), t);
        }
        if let Some(f) = m.get("failure_policy") {
            self.default_failure_policy(&child(p, "failure_policy"), f);
        }
        self.payload_mode(p, m);
    }

    /// `defaults.failure_policy`: one every phase allows.
    fn default_failure_policy(&mut self, fp: &str, f: &Value) {
        let everywhere = policies_allowed_everywhere();
        match f.as_str().and_then(policy) {
            Some(restricted) if !everywhere.contains(&restricted.as_str()) => {
                let name = restricted.as_str();
                let phases = describe_phases(|c| c.allows_failure_policy(restricted));
                self.report(
                    fp,
                    At::Value,
                    Layer::Schema,
                    &format!("{name}-policy-in-defaults"),
                    format!(
                        "failure policy `{name}` is not allowed in `defaults`, expected one of: {}",
                        quoted_list(&everywhere)
                    ),
                    Some(format!(
                        "`{name}` only makes sense on {phases} hooks, which already default to it"
                    )),
                );
            }
            _ => {
                self.enum_value(
                    fp,
                    f,
                    "failure policy",
                    &everywhere,
                    "unknown-failure-policy",
                );
            }
        }
    }

    /// Checks the `payload` key of the mapping `m` at `pointer`, when present
    /// (in `defaults` and in `run`).
    pub(super) fn payload_mode(&mut self, pointer: &str, m: &Map<String, Value>) {
        self.enum_key(
            pointer,
            m,
            "payload",
            "payload mode",
            VOCABULARY.payloads,
            "unknown-payload-mode",
        );
    }

    fn limits(&mut self, p: &str, v: &Value) {
        let Some(m) = self.object(p, v, "a mapping") else {
            return;
        };
        self.unknown_keys(p, m, VOCABULARY.limits, "`limits`");
        for key in VOCABULARY.limits {
            if let Some(v) = m.get(*key) {
                self.integer(&child(p, key), v, VOCABULARY.int_range("Limits", key));
            }
        }
    }

    fn tool_settings(&mut self, p: &str, v: &Value) {
        let Some(m) = self.object(p, v, "a mapping from tool names to settings") else {
            return;
        };
        for (tool, settings) in m {
            self.tool_setting(&child(p, tool), tool, settings);
        }
    }

    fn tool_setting(&mut self, tp: &str, tool: &str, settings: &Value) {
        let Some(s) = self.object(tp, settings, "a mapping") else {
            return;
        };
        self.unknown_keys(
            tp,
            s,
            VOCABULARY.tool_settings,
            &format!("the settings of tool `{tool}`"),
        );
        if let Some(pp) = s.get("path_pointers") {
            let ppp = child(tp, "path_pointers");
            if let Some(items) = self.array(&ppp, pp, "a list of JSON pointers") {
                for (i, item) in items.iter().enumerate() {
                    self.pointer_value(&format!("{ppp}/{i}"), item);
                }
            }
        }
        self.booleans(tp, s, &["allow_absolute_paths", "writes"]);
    }
}
