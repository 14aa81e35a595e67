//! The dispatch plan: a validated config lowered once for dispatch, shared by
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

mod data;
mod eval;
mod index;
mod lower;

pub use data::{
    ActionSpec, BuiltDfa, ContextItem, Dfa, HttpSpec, Json, List, PatchSpec, Plan, PolicyModule,
    PolicySpec, Pred, ProgramSpec, RewriteStep, Role, Rule, RunSpec, StaticDfa, Test, Text,
    ToolChoiceSpec, ToolPaths, ToolSchema, ToolSet,
};
pub use eval::{Facts, Mismatch, Subject, resolve, rewrite};
pub use index::{Bits, Cursor, Gate, PatternGroup, PhaseIndex};
pub use lower::{DfaCache, LowerError, json, lower};
