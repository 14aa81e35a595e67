//! agent-hooks: declared, checked and compiled hooks for AI agents.
//!
//! This facade re-exports [`hooks_schema`] and [`hooks_runtime`].

pub use hooks_runtime as runtime;
pub use hooks_schema as schema;
