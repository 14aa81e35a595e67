//! `agent-hooks schema [config|payload|output]`.

use crate::SchemaKind;
use crate::cli::{EXIT_OK, emit};

/// Prints the requested schema as pretty JSON on stdout.
pub(crate) fn run(kind: SchemaKind) -> u8 {
    let schema = match kind {
        SchemaKind::Config => hooks_schema::config_schema(),
        SchemaKind::Payload => hooks_schema::payload_schema(),
        SchemaKind::Output => hooks_schema::output_schema(),
    };
    // serde_json::Value always serializes.
    let text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    emit(&text);
    EXIT_OK
}
