//! `agent-hooks schema [config|payload|output] [--tools CATALOG]`.

use std::path::Path;

use hooks_schema::{Catalogue, Loader};

use crate::SchemaKind;
use crate::cli::{EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, emit, warn};

/// Prints the requested schema as pretty JSON on stdout; with `tools`, the
/// config schema for that tool catalogue (`Catalogue::config_schema`).
/// Exits 2 when `tools` is given with another kind or cannot be read, 1 when
/// it is a config that does not check.
pub(crate) fn run(kind: SchemaKind, tools: Option<&Path>) -> u8 {
    let schema = match (kind, tools) {
        (SchemaKind::Config, Some(path)) => match catalogue(path) {
            Ok(catalogue) => catalogue.config_schema(),
            Err(code) => return code,
        },
        (_, Some(_)) => {
            warn("error: `--tools` applies to the `config` schema only");
            return EXIT_USAGE;
        }
        (SchemaKind::Config, None) => hooks_schema::config_schema(),
        (SchemaKind::Payload, None) => hooks_schema::payload_schema(),
        (SchemaKind::Output, None) => hooks_schema::output_schema(),
    };
    // serde_json::Value always serializes.
    let text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    emit(&text);
    EXIT_OK
}

/// The catalogue of `path`: a JSON catalogue file, else a hook config's
/// `catalogue:` (the config is checked as `check` does).
fn catalogue(path: &Path) -> Result<Catalogue, u8> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        warn(&format!("error: cannot read `{}`: {e}", path.display()));
        EXIT_USAGE
    })?;
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(&text)
        && let Ok(catalogue) = Catalogue::from_json(&json)
    {
        return Ok(catalogue);
    }
    match Loader::new().compile_file(path) {
        Ok(compiled) => compiled.catalogue.ok_or_else(|| {
            warn(&format!(
                "error: `{}` is neither a JSON tool catalogue nor a config with a `catalogue:` key",
                path.display()
            ));
            EXIT_USAGE
        }),
        Err(diagnostics) => {
            warn(&diagnostics.render(Some(&text)));
            Err(EXIT_FINDINGS)
        }
    }
}
