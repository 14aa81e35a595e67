//! `hooks-plan`: what an agent-hooks dispatch table executes.
//!
//! A hook config (YAML) is checked and lowered by `hooks-schema` into a
//! [`Plan`]; the `hooks!` macro quotes that plan as `static` data and the
//! runtime's loader keeps it owned. This crate holds the plan's types and
//! everything the runtime needs to run one, and nothing that compiles a
//! config: no YAML parser, no JSON Schema validator, no Rego compiler, no
//! async runtime. An agent that only uses `hooks!` links this crate and the
//! runtime, not the config compiler.
//!
//! - phases and the small config enums ([`Phase`], [`FailurePolicy`], ...),
//!   and what each phase allows, stated once as data ([`capability`]);
//! - the plan data ([`Plan`], [`Rule`], [`ActionSpec`], ...): every text a
//!   [`Text`] (`Cow<'static, str>`) and every sequence a [`List`], so one
//!   type holds a compiled-in and a loaded table;
//! - matching without allocation ([`Rule::matches`], [`Pred::eval`]) and the
//!   per-phase index ([`PhaseIndex`], [`Cursor`]); the DFA search and its
//!   fallback ([`automata`]);
//! - the flow vocabulary a plan's rules return as they are: the
//!   [`RequestPatch`] of a `patch` rule (with [`Params`], [`ToolChoice`],
//!   [`History`]);
//! - the hook payload envelope and the native output object ([`Payload`],
//!   [`HookOutput`]) with their JSON Schemas;
//! - the files a command runs ([`script`]) and a policy's identity
//!   ([`policy_digest`]).
//!
//! See `docs/architecture.md` in the repository for where the plan sits on
//! an event's way from YAML to decision.

pub mod automata;
pub mod capability;
mod data;
mod digest;
mod eval;
mod index;
mod layer;
mod lazy;
mod limits;
mod output;
mod patch;
mod payload;
mod phase;
mod plan;
pub mod rego;
mod scope;
pub mod script;

pub use capability::{
    ActionKind, ActionSet, CAPABILITIES, Capabilities, FlowKind, FlowSet, SubjectKind,
};
pub use data::{
    ActionSpec, BuiltDfa, ContextItem, Dfa, HttpSpec, Json, List, PermissionRule, PolicyModule,
    PolicySpec, Pred, ProgramSpec, RewriteStep, Role, Rule, RunSpec, Scope, ScopeKind, Specifier,
    StaticDfa, Test, Text, ToolPaths, ToolSet,
};
pub use digest::{file_digest, policy_digest};
pub use eval::{Facts, Mismatch, Subject, resolve, rewrite};
pub use index::{Bits, Gate, PatternGroup, PhaseIndex};
pub use layer::{Layer, Switches, url_matches, wildcard_match};
pub use lazy::LazySet;
pub use limits::{
    DEFAULT_TIMEOUT_MS, HeaderPart, HeaderTemplateError, HttpProtocol, Limits, header_parts,
};
pub use output::{
    ContextRole, HookOutput, OUTPUT_SCHEMA_ID, OutputContextItem, OutputDecision, OutputPatch,
    finish_schema, output_schema,
};
pub use patch::{HISTORY_KEYS, History, Params, PatchField, RequestPatch, ToolChoice};
pub use payload::{
    BinaryMeta, MAX_AFFECTED_PATH_CHARS, MAX_AFFECTED_PATHS, PAYLOAD_SCHEMA_ID,
    PAYLOAD_SCHEMA_NAME, PAYLOAD_VERSION, PathDiagnostic, PathDiagnosticKind, Payload,
    payload_schema,
};
pub use phase::{
    CLAUDE_CODE_EVENTS, FailurePolicy, Mode, OutcomeKind, PayloadMode, Phase, Protocol,
};
pub use plan::{Cursor, Plan, ToolSchema};
pub use scope::{ActiveScopes, Admission};
pub use script::valid_env_name;
