//! `hooks-schema`: the config language v1 of agent-hooks.
//!
//! Types, YAML loading with locations, three-layer validation (YAML syntax,
//! JSON Schema, semantic rules) and JSON Schema generation. The `hooks!`
//! macro, the CLI and the runtime loader all go through this crate, so static
//! and loaded configs decide identically.

mod phase;

pub use phase::{FailurePolicy, Mode, OutcomeKind, PayloadMode, Phase, Protocol};
