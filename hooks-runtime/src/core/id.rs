//! [`HookId`]: the name a hook answers under, in provenance, reports and
//! diagnostics.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// The name of a hook in a stack (a config's rule `id`, or any name a Rust
/// hook is pushed under), used in provenance and diagnostics, and the name
/// of the config it comes from, when it comes from one
/// ([`HookId::source`]).
///
/// Cloning is one or two reference-count increments, so recording
/// provenance copies no text (a table builds its ids, and shares one
/// source name among them, once). Serialized as a plain string (the id);
/// two ids are equal, ordered and hashed by their text alone.
#[derive(Clone)]
pub struct HookId {
    id: Arc<str>,
    source: Option<Arc<str>>,
    layer: Option<Arc<str>>,
}

impl PartialEq for HookId {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for HookId {}

impl PartialOrd for HookId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for HookId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.id.cmp(&other.id)
    }
}

impl std::hash::Hash for HookId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

impl Serialize for HookId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.id)
    }
}

impl<'de> Deserialize<'de> for HookId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(HookId::from)
    }
}

impl HookId {
    /// A hook id with the text `id` and no source.
    pub fn new(id: impl Into<Arc<str>>) -> Self {
        HookId {
            id: id.into(),
            source: None,
            layer: None,
        }
    }

    /// The same id, naming `source` as the config it comes from (its file
    /// name, or `<inline>`): a table's rules carry the table's source.
    #[must_use]
    pub fn with_source(mut self, source: Option<Arc<str>>) -> Self {
        self.source = source;
        self
    }

    /// The same id, naming the layer of the config it comes from
    /// (`managed`, `project`, ...; docs/fleet.md, *Layers*): a table's
    /// rules carry the table's layer.
    #[must_use]
    pub fn with_layer(mut self, layer: Option<Arc<str>>) -> Self {
        self.layer = layer;
        self
    }

    /// The layer of the config the hook comes from; `None` for a hook
    /// built in code.
    pub fn layer(&self) -> Option<&str> {
        self.layer.as_deref()
    }

    /// The id's text.
    pub fn as_str(&self) -> &str {
        &self.id
    }

    /// The name of the config the hook comes from (a dispatch table's
    /// source, a shell hook spec's `config`); `None` for a hook built in
    /// code.
    pub fn source(&self) -> Option<&str> {
        self.source.as_deref()
    }
}

impl PartialEq<String> for HookId {
    fn eq(&self, other: &String) -> bool {
        *self.id == **other
    }
}

impl From<&str> for HookId {
    fn from(id: &str) -> Self {
        HookId::new(id)
    }
}

impl From<String> for HookId {
    fn from(id: String) -> Self {
        HookId::new(id)
    }
}

impl From<&HookId> for HookId {
    fn from(id: &HookId) -> Self {
        id.clone()
    }
}

impl fmt::Display for HookId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id)
    }
}

impl fmt::Debug for HookId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.id, f)
    }
}

impl PartialEq<str> for HookId {
    fn eq(&self, other: &str) -> bool {
        &*self.id == other
    }
}

impl PartialEq<&str> for HookId {
    fn eq(&self, other: &&str) -> bool {
        &*self.id == *other
    }
}
