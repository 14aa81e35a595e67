//! `hooks-schema`: the config language v1 of agent-hooks.
//!
//! Types, YAML loading with locations, three-layer validation (YAML syntax,
//! JSON Schema, semantic rules) and JSON Schema generation. The `hooks!`
//! macro, the CLI and the runtime loader all go through this crate, so static
//! and loaded configs decide identically.
//!
//! # Loading
//!
//! [`load_str`] and [`load_file`] run three layers and report every finding
//! at once, sorted by position, as [`Diagnostics`]:
//!
//! 1. **YAML syntax** (`serde-saphyr`): YAML 1.2 core booleans, duplicate
//!    keys and merge keys rejected, budgets on size ([`MAX_CONFIG_BYTES`]),
//!    nesting ([`MAX_DEPTH`]) and aliases ([`MAX_ALIASES`],
//!    [`MAX_ALIAS_REPLAY_EVENTS`]) so an alias bomb or a huge file fails fast.
//! 2. **JSON Schema**: the document must match [`config_schema`] (the
//!    committed `schema/hooks.schema.json`), including the per-phase rules.
//! 3. **Semantic rules** the schema cannot express: unique ids, regexes and
//!    globs that compile.
//!
//! A walk over the document reports layer-2 findings in precise words
//! (``unknown phase `PreToolCall`, expected one of: ...``) located at the
//! offending key or value; the schema's own generic message is kept only for
//! what the walk did not already report. Contract, tested on the fixture
//! corpus and on generated configs: what the schema rejects, the loader
//! rejects; what the loader accepts, the schema accepts.
//!
//! ```
//! let config = hooks_schema::load_str(
//!     "version: 1\nhooks:\n  - id: no-rm\n    phase: before_tool\n    block: { reason: no }\n",
//!     "hooks.yaml",
//! )
//! .unwrap();
//! assert_eq!(config.hooks[0].action().name(), "block");
//!
//! let err = hooks_schema::load_str("version: 1\nhooks: [{id: x, phase: PreToolCall, terminate: {reason: r}}]\n", "h.yaml")
//!     .unwrap_err();
//! assert!(err.first().render(None).starts_with("h.yaml:2:"));
//! ```

// Table internals, shared by the `hooks!` macro and the runtime (the macro
// cannot link the runtime, so they live here): the matchers compiled once,
// and the dispatch plan the one lowering produces. Public for those two
// crates, not a stable API.
#[doc(hidden)]
pub mod automata;
pub use hooks_plan::capability;
mod catalogue;
mod check;
mod config;
mod config_cache;
mod dfa_cache;
mod diagnostic;
mod duration;
mod features;
mod load;
mod matcher;
pub mod permission;
/// The phases and small enums, from `hooks-plan` (one definition for the
/// config and the runtime).
use hooks_plan as phase;
#[doc(hidden)]
pub mod plan;
pub mod policy;
mod schema;
mod script;
mod yaml;

pub use capability::{
    ActionKind, ActionSet, CAPABILITIES, Capabilities, FlowKind, FlowSet, SubjectKind,
};
pub use catalogue::{
    Catalogue, CatalogueError, CatalogueSource, SchemaSource, ToolEntry, ToolSchemas,
};
pub use check::{
    StackEntry, check_stack, check_stack_texts, cwd_problem, read_stack_file, stack_findings,
    valid_env_name,
};
#[cfg(feature = "http")]
pub use config::url_problem;
pub use config::{
    ACTION_KEYS, Action, ArgTest, BuiltinLayer, Config, ConfigMode, Defaults, Env, Grant,
    HeaderPart, HeaderTemplateError, HistoryPatch, Hook, HookScope, Http, HttpProtocol, Inject,
    LayerKey, Limits, Managed, NamedLayer, OPA_DATA_PATH, POLICY_QUERY_PATTERN, PointerSubject,
    Policy, Predicate, Program, Reason, RegexPattern, RequestPatch, RewriteOp, Run, SelectModel,
    SpecificTools, ToolChoice, ToolChoiceMode, ToolPattern, ToolSettings, Version, header_parts,
};
pub use dfa_cache::use_compile_cache;
pub use diagnostic::{Diagnostic, Diagnostics, Layer, Severity};
pub use duration::{DURATION_PATTERN, Duration, DurationError};
pub use features::FEATURE_OFF;
pub use hooks_plan::automata::PatternError;
pub use hooks_plan::script::sub_commands;
#[cfg(feature = "rewrite-check")]
pub use load::schema_accepts;
pub use load::{Compiled, Loader, compile_file, compile_str, load_file, load_str, parse_document};
pub use matcher::{check_regex, glob_to_regex};
pub use schema::{CONFIG_SCHEMA_ID, config_schema};
pub use script::{
    BoundFile, CWD_ESCAPES_WORKSPACE, HookBinding, MISSING_SCRIPT, MissingScript, UNBOUND_SCRIPT,
    add_binding_warnings, add_script_warnings, cwd_warnings, hook_bindings, hook_scripts,
    missing_scripts, script_warnings,
};
pub use yaml::{MAX_ALIAS_REPLAY_EVENTS, MAX_ALIASES, MAX_CONFIG_BYTES, MAX_DEPTH};

/// JSON Schema `pattern` of a hook id: lowercase letters, digits, `_`, `-`.
pub const ID_PATTERN: &str = "^[a-z0-9_-]+$";
/// JSON Schema `pattern` of an environment variable name.
pub const ENV_NAME_PATTERN: &str = "^[A-Za-z_][A-Za-z0-9_]*$";
/// JSON Schema `pattern` of an HTTP header name (an RFC 9110 token).
pub const HEADER_NAME_PATTERN: &str = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";
/// JSON Schema `pattern` of an RFC 6901 JSON pointer: empty (the whole
/// value) or `/`-separated tokens in which `~` appears only as `~0` or `~1`.
pub const POINTER_PATTERN: &str = "^(/([^~/]|~[01])*)*$";

pub use hooks_plan::CLAUDE_CODE_EVENTS;
pub use hooks_plan::{
    BinaryMeta, ContextRole, FailurePolicy, HookOutput, MAX_AFFECTED_PATH_CHARS,
    MAX_AFFECTED_PATHS, Mode, OUTPUT_SCHEMA_ID, OutcomeKind, OutputContextItem, OutputDecision,
    OutputPatch, PAYLOAD_SCHEMA_ID, PAYLOAD_SCHEMA_NAME, PAYLOAD_VERSION, PathDiagnostic,
    PathDiagnosticKind, Payload, PayloadMode, Phase, Protocol, output_schema, payload_schema,
};
