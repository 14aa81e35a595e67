//! The top-level keys that place a config in a stack: `layer`, `mode`
//! (`shadow`) and the managed layer's `managed:` switches (docs/fleet.md,
//! *Layers*).

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use hooks_plan::{Layer, List, Switches};

/// The layer a config belongs to: a built-in one, or a named one with a
/// rank. Configs run from the lowest rank to the highest: a higher rank
/// has the last word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum LayerKey {
    /// A built-in layer.
    Builtin(BuiltinLayer),
    /// A layer of the config's own naming.
    Named(NamedLayer),
}

/// The built-in layers, highest rank first (Claude Code's settings
/// precedence).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BuiltinLayer {
    /// Rank 1000: the administrator's; runs last, its hooks cannot be
    /// redefined by another layer, and it alone may set `managed:`.
    Managed,
    /// Rank 300: one person's settings for one checkout.
    Local,
    /// Rank 200 (the default): the config checked into the project.
    Project,
    /// Rank 100: one person's settings for every project.
    User,
}

/// A layer of the config's own naming, ranked among the built-in ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NamedLayer {
    /// The layer's name (lowercase letters, digits, `-`, `_`); not a
    /// built-in layer's.
    #[schemars(regex(pattern = r"^[a-z][a-z0-9_-]*$"), extend("examples" = ["team"]))]
    pub name: String,
    /// Its rank, 1..=999, at no built-in layer's rank (user 100, project
    /// 200, local 300): configs of a higher rank run later, with the last
    /// word.
    #[schemars(range(min = 1, max = 999), extend("examples" = [250]))]
    pub rank: u16,
}

impl LayerKey {
    /// The plan's layer.
    pub fn layer(&self) -> Layer {
        match self {
            LayerKey::Builtin(b) => match b {
                BuiltinLayer::Managed => Layer::MANAGED,
                BuiltinLayer::Local => Layer::LOCAL,
                BuiltinLayer::Project => Layer::PROJECT,
                BuiltinLayer::User => Layer::USER,
            },
            LayerKey::Named(n) => Layer {
                name: Cow::Owned(n.name.clone()),
                rank: n.rank,
            },
        }
    }
}

/// Whether a config's hooks are enforced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConfigMode {
    /// Its hooks' decisions take effect.
    #[default]
    Enforce,
    /// Its hooks run and are recorded, as in a hook's `mode: audit`, but
    /// never take effect; `test` and `replay` show what they would have
    /// changed.
    Shadow,
}

/// The managed layer's switches (only in a config of `layer: managed`).
/// Claude Code's counterparts: `disableAllHooks`, `allowManagedHooksOnly`,
/// `allowedHttpHookUrls`, `httpHookAllowedEnvVars`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Managed {
    /// No hook of any layer runs, the managed layer's included.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[schemars(extend("default" = false))]
    pub disable_all_hooks: bool,
    /// Only the managed layer's hooks run; the other layers' configs are
    /// checked but not loaded.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[schemars(extend("default" = false))]
    pub managed_hooks_only: bool,
    /// The URLs `http` hooks of every layer may call and follow redirects
    /// to, each a pattern where `*` stands for any run of characters.
    /// Absent: any URL; an empty list: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("examples" = [["https://policy.example.com/*", "http://127.0.0.1:*/*"]]))]
    pub allowed_http_urls: Option<Vec<String>>,
    /// The environment variables `http` hooks' headers may read (each
    /// hook's `env` list). Absent: any; an empty list: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(inner(regex(pattern = crate::ENV_NAME_PATTERN)), extend("examples" = [["POLICY_TOKEN"]]))]
    pub allowed_header_env: Option<Vec<String>>,
}

impl Managed {
    /// The plan's switches.
    pub fn switches(&self) -> Switches {
        let texts = |items: &Option<Vec<String>>| {
            items
                .as_ref()
                .map(|items| List::Owned(items.iter().map(|s| Cow::Owned(s.clone())).collect()))
        };
        Switches {
            disable_all_hooks: self.disable_all_hooks,
            managed_hooks_only: self.managed_hooks_only,
            allowed_http_urls: texts(&self.allowed_http_urls),
            allowed_header_env: texts(&self.allowed_header_env),
        }
    }
}
