//! [`HookId`]: the name a hook answers under, in provenance, reports and
//! diagnostics.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// The name of a hook in a stack (a config's rule `id`, or any name a Rust
/// hook is pushed under), used in provenance and diagnostics.
///
/// Cloning is a reference-count increment, so recording provenance copies no
/// text. Serialized as a plain string.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HookId(Arc<str>);

impl Serialize for HookId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for HookId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(HookId::from)
    }
}

impl HookId {
    /// A hook id with the text `id`.
    pub fn new(id: impl Into<Arc<str>>) -> Self {
        HookId(id.into())
    }

    /// The id's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl PartialEq<String> for HookId {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
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
        f.write_str(&self.0)
    }
}

impl fmt::Debug for HookId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl PartialEq<str> for HookId {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for HookId {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}
