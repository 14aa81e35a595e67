//! `hooks-schema`: the config language v1 of agent-hooks.
//!
//! Types, YAML loading with locations, three-layer validation (YAML syntax,
//! JSON Schema, semantic rules) and JSON Schema generation. The `hooks!`
//! macro, the CLI and the runtime loader all go through this crate, so static
//! and loaded configs decide identically.

mod output;
mod payload;
mod phase;

pub use output::{
    ContextRole, HookOutput, OUTPUT_SCHEMA_ID, OutputContextItem, OutputDecision, OutputPatch,
    output_schema,
};
pub use payload::{
    BinaryMeta, MAX_AFFECTED_PATH_CHARS, MAX_AFFECTED_PATHS, PAYLOAD_SCHEMA_ID, PAYLOAD_SCHEMA_NAME,
    PAYLOAD_VERSION, Payload, payload_schema,
};
pub use phase::{FailurePolicy, Mode, OutcomeKind, PayloadMode, Phase, Protocol};
