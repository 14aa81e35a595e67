//! The arguments and results of the example agent's three tools, as Rust
//! types. `tests/example_catalogue.rs` generates `examples/tools.catalogue.json`
//! from them ([`catalogue`]), the file `examples/hooks.yaml` names under
//! `catalogue:` — the build step a `hooks!` user writes, since the macro
//! cannot see Rust types.

use hooks_schema::Catalogue;
use schemars::JsonSchema;

/// `bash`: run a shell command in the workspace.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(dead_code, reason = "schema-only type")]
pub(crate) struct BashArgs {
    /// The command line, run with `sh -c`.
    pub command: String,
    /// Timeout in milliseconds (default 10000).
    pub timeout_ms: Option<u64>,
}

/// What `bash` returns.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(dead_code, reason = "schema-only type")]
pub(crate) struct BashResult {
    /// The exit code, when the command exited.
    pub exit_code: Option<i32>,
    /// Stdout followed by stderr, capped at 64 KiB each.
    pub output: String,
    /// Why the command did not exit (timeout, cancelled, ...).
    pub error: Option<String>,
    /// Whether the command was left running in the background.
    pub background: Option<bool>,
}

/// `read_file`: read a file inside the workspace.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(dead_code, reason = "schema-only type")]
pub(crate) struct ReadFileArgs {
    /// The path, relative to the workspace root.
    pub path: String,
    /// Read at most this many bytes.
    pub max_bytes: Option<u64>,
    /// The text encoding the model asked for (ignored: files are read as UTF-8).
    pub encoding: Option<String>,
}

/// What `read_file` returns.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(dead_code, reason = "schema-only type")]
pub(crate) struct ReadFileResult {
    /// The text read (lossy UTF-8).
    pub content: Option<String>,
    /// How many bytes were kept.
    pub bytes: Option<u64>,
    /// Whether `max_bytes` cut the file short.
    pub truncated: Option<bool>,
    /// Why the file could not be read.
    pub error: Option<String>,
}

/// `write_file`: write a file inside the workspace.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(dead_code, reason = "schema-only type")]
pub(crate) struct WriteFileArgs {
    /// The path, relative to the workspace root.
    pub path: String,
    /// The new content of the file.
    pub content: String,
}

/// What `write_file` returns.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(dead_code, reason = "schema-only type")]
pub(crate) struct WriteFileResult {
    /// The path written.
    pub path: Option<String>,
    /// How many bytes were written.
    pub bytes_written: Option<u64>,
    /// Why the file could not be written.
    pub error: Option<String>,
}

/// The catalogue of the three tools.
pub(crate) fn catalogue() -> Catalogue {
    Catalogue::new()
        .with_tool_result::<BashArgs, BashResult>("bash")
        .with_tool_result::<ReadFileArgs, ReadFileResult>("read_file")
        .with_tool_result::<WriteFileArgs, WriteFileResult>("write_file")
}
