//! The hook stdin payload envelope, version 1.
//!
//! A shell hook of protocol `native` receives one JSON object of type
//! [`Payload`] on stdin, followed by `\n`. The generated JSON Schema
//! ([`payload_schema`]) is committed as `schema/payload.schema.json` so hook
//! authors get editor completion.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{OutcomeKind, PayloadMode, Phase};

/// The value of [`Payload::schema`]: names the envelope format.
pub const PAYLOAD_SCHEMA_NAME: &str = "agent-hooks/payload";

/// The value of [`Payload::version`]: the envelope format's version.
pub const PAYLOAD_VERSION: u32 = 1;

/// Most affected paths a payload lists; further paths are dropped.
pub const MAX_AFFECTED_PATHS: usize = 16;

/// Longest affected path, in characters, a payload lists; longer paths are dropped.
pub const MAX_AFFECTED_PATH_CHARS: usize = 1024;

/// The stable `$id` of the payload schema.
pub const PAYLOAD_SCHEMA_ID: &str = "https://agent-hooks.invalid/schema/payload-v1.json";

/// The JSON object a shell hook (protocol `native`) reads from stdin.
///
/// Optional fields are left out, not `null`, when they do not apply to the
/// event's phase. Binary data (bytes, images, audio) never travels through the
/// pipe: each blob is replaced in place by `{"$binary": N}`, where `N` indexes
/// [`Payload::binary`], which carries its metadata.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "agent-hooks hook payload v1")]
pub struct Payload {
    /// The envelope format's name, always `"agent-hooks/payload"`.
    #[schemars(extend("const" = "agent-hooks/payload"))]
    pub schema: String,
    /// The envelope format's version, always `1`.
    #[schemars(extend("const" = 1))]
    pub version: u32,
    /// The phase of the event that triggered the hook.
    pub phase: Phase,
    /// The `id` of the hook in its config.
    pub hook_id: String,
    /// The id of the agent run the event belongs to.
    pub run_id: String,
    /// The turn number within the run, counting from 0.
    pub turn: u64,
    /// The hook's working directory, canonicalized (absolute).
    pub cwd: String,
    /// Whether the event's target already ran: `true` on after-phases
    /// (`after_tool`, `after_completion`, ...), `false` before it.
    pub target_ran: bool,
    /// How much of the event this payload carries: `full`, or `redacted`
    /// (credential-like keys masked, sensitive values summarized).
    pub mode: PayloadMode,
    /// The tool's name, on tool phases (`before_tool`, `permission_request`,
    /// `after_tool`) and `invalid_tool_call`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// The id the model gave the tool call, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The tool call's arguments (a JSON value, usually an object), on tool
    /// phases. On `after_tool` these are the effective arguments the tool ran with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<serde_json::Value>,
    /// The tool's model-visible result, on `after_tool`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<serde_json::Value>,
    /// How the tool call ended, on `after_tool`: `success`, `timeout`,
    /// `not_found`, `denied` or `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<OutcomeKind>,
    /// The user's prompt text, on `user_prompt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Other event data of the phase (for example the model's text on
    /// `after_assistant`, the error on `run_error`, the model selection
    /// `{from, to, source, ...}` as `selection` on `before_model_select`
    /// and `after_model_select`), as a JSON object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
    /// Paths the tool call affects, taken from its arguments at the config's
    /// `tool_settings.<tool>.path_pointers` and resolved against the real
    /// file system: a relative path is joined to `cwd`, then `..` and every
    /// symlink (in any component, also a dangling one) are resolved as the
    /// OS would, the part that does not exist yet appended as written. A
    /// path that resolves outside the workspace root is listed (so a hook
    /// that guards paths sees it) and flagged in `path_diagnostics`. At most
    /// 16 entries of at most 1024 characters each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 16), inner(length(max = 1024)))]
    pub affected_paths: Vec<String>,
    /// What was wrong with the affected paths: one entry per path that
    /// resolves outside the workspace root, is too long, or is past the
    /// 16th. Also in the hook's record.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub path_diagnostics: Vec<PathDiagnostic>,
    /// Metadata of the binary blobs removed from `args`, `result` and `data`;
    /// each blob was replaced in place by `{"$binary": N}` with `N` its index here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub binary: Vec<BinaryMeta>,
    /// On `stop`: how many times hooks already made the agent resume in this
    /// turn (0 on the first stop of a turn). Claude Code calls the non-zero
    /// case `stop_hook_active`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loop_count: Option<u32>,
    /// When the payload was larger than the 1 MiB stdin cap: absolute path of
    /// a file (mode 0600, removed when the invocation ends) holding the whole
    /// payload. Also given in the environment variable `AGENT_HOOKS_PAYLOAD_REF`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_ref: Option<String>,
    /// `true` when `args`, `result`, `prompt` and `data` (and any other field
    /// over 512 bytes of JSON) were left out of this stdin copy because the
    /// payload was over the stdin cap. The whole payload
    /// is then in the file at `payload_ref`, or, when `payload_ref` is absent,
    /// was too large even to spill and is not available.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub elided: bool,
}

/// A named finding about one affected path (see [`Payload::path_diagnostics`]).
///
/// JSON shape: `{"kind":"outside_root","pointer":"/path",
/// "path":"/etc/passwd"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathDiagnostic {
    /// What is wrong with the path.
    pub kind: PathDiagnosticKind,
    /// The RFC 6901 pointer into the tool's arguments the path came from.
    pub pointer: String,
    /// The resolved path (absolute), cut to 1024 characters (for
    /// `nul_byte`, the path as given, cut; for `not_a_path`, the JSON
    /// type of the value found: `number`, `object`, `array`, ...).
    pub path: String,
}

/// The kinds of [`PathDiagnostic`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PathDiagnosticKind {
    /// The path resolves outside the workspace root. It is still listed in
    /// `affected_paths`; for a tool whose settings say `writes: true` and
    /// not `allow_absolute_paths: true`, the hook is not run and the tool
    /// call is refused before it runs.
    OutsideRoot,
    /// The path is longer than 1024 characters: left out of
    /// `affected_paths`. A writing tool's call is refused as for
    /// `outside_root`: a path the hook cannot see is not checked.
    TooLong,
    /// The path is past the 16th: left out of `affected_paths`. A writing
    /// tool's call is refused as for `outside_root`.
    TooMany,
    /// The path holds a NUL byte, which no file name can: left out of
    /// `affected_paths` (`path` is the text as given, cut). A program
    /// that reads the path as a C string stops at the NUL and opens
    /// another file than the one resolved, so a writing tool's call is
    /// refused as for `outside_root`.
    NulByte,
    /// The value at the pointer is not a path: not a string (a number, an
    /// object, `null`, an array where an element was expected, or an
    /// array holding something else than strings). `pointer` says where it
    /// is, `path` its JSON type. Nothing checks where such a value would
    /// make the tool write, so a writing tool's call is refused as for
    /// `outside_root`.
    NotAPath,
}

impl PathDiagnosticKind {
    /// The snake_case name used in payloads and records, e.g. `outside_root`.
    pub const fn as_str(self) -> &'static str {
        match self {
            PathDiagnosticKind::OutsideRoot => "outside_root",
            PathDiagnosticKind::TooLong => "too_long",
            PathDiagnosticKind::TooMany => "too_many",
            PathDiagnosticKind::NulByte => "nul_byte",
            PathDiagnosticKind::NotAPath => "not_a_path",
        }
    }
}

/// Metadata standing in for a binary blob (bytes, an image, audio), which is
/// never sent through the hook's stdin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BinaryMeta {
    /// Where the blob was, as an RFC 6901 JSON pointer into the payload
    /// (for example `/result/content/1`).
    pub pointer: String,
    /// What the blob is: a MIME type when one was given (`image/png`), else
    /// `image`, `audio`, `file` or `bytes`.
    pub kind: String,
    /// The blob's decoded length in bytes.
    pub len_bytes: u64,
    /// SHA-256 of the blob's decoded bytes, as 64 lowercase hex digits.
    pub sha256: String,
}

/// The JSON Schema (draft 2020-12) of [`Payload`], with `$id`
/// [`PAYLOAD_SCHEMA_ID`]. Generated from the Rust types; the committed copy is
/// `schema/payload.schema.json`.
pub fn payload_schema() -> serde_json::Value {
    crate::output::finish_schema(
        schemars::generate::SchemaSettings::draft2020_12()
            .into_generator()
            .into_root_schema_for::<Payload>(),
        PAYLOAD_SCHEMA_ID,
    )
}
