//! The dispatch plan (its types are `hooks-plan`'s): a validated config
//! lowered once for dispatch, shared by
//! the `hooks!` macro (which quotes it as `static` data) and the runtime's
//! loader (which keeps it owned).
//!
//! `lower` applies the config's defaults, splits and unescapes pointers,
//! compiles every glob and regex into a dense DFA and indexes the enabled
//! rules per phase, by tool and by `when` leaf ([`PhaseIndex`]), so that
//! an event visits only the rules that can match it ([`Cursor`]). The types are the runtime's own dispatch-table types:
//! every text is a [`Text`] (`Cow<'static, str>`) and every sequence a
//! [`List`] (a `'static` slice or a `Vec`), so one [`Plan`] type holds both a
//! compiled-in and a loaded table, and two plans of one config compare equal
//! whichever way they were built. Matching ([`Rule::matches`],
//! [`Pred::eval`], [`ToolSet::matches`]) never allocates.
//!
//! `docs/architecture.md` in the repository shows where the plan sits on an
//! event's way from YAML to decision.

mod index_build;
mod lower;

pub use hooks_plan::{
    ActionSpec, ActiveScopes, Admission, Bits, BuiltDfa, ContextItem, Cursor, Dfa, Facts, Gate,
    History, HttpSpec, Json, Layer, List, Mismatch, Params, PatternGroup, PermissionRule,
    PhaseIndex, Plan, PolicyModule, PolicySpec, Pred, ProgramSpec, RequestPatch, RewriteStep, Role,
    Rule, RunSpec, Scope, ScopeKind, Specifier, StaticDfa, Subject, Switches, Test, Text,
    ToolChoice, ToolPaths, ToolSchema, ToolSet, resolve, rewrite,
};
pub use lower::{DfaCache, LowerError, json, lower};
