//! The dispatch table: a compiled hook config that answers events
//! (DESIGN.md sections 2-6, issue 5).
//!
//! A [`Table`] holds a config's rules in declared order and, per phase, the
//! indices of its enabled rules. It is built two ways, into the same type:
//!
//! - `hooks!` (the `agent-hooks` facade's macro) generates it as `static`
//!   data: strings and lists are `&'static`, glob and regex automata are
//!   dense DFAs serialized at build time and deserialized, without
//!   allocating, on first use ([`StaticDfa`]);
//! - [`Table::load`] / [`Table::from_config`] build it at run time (owned
//!   strings, vectors and DFAs), through the same `hooks-schema` validation
//!   and the same [`hooks_schema::automata`] compilation.
//!
//! # Dispatch
//!
//! For an event of phase `p`:
//!
//! 1. no enabled rule for `p` → `Continue`; this is one check (an empty
//!    slice), and [`AgentHook::observes`](crate::AgentHook::observes) says
//!    `false` so a [`HookStack`](crate::HookStack) does not even call the table;
//! 2. each rule of `p`, in declared order, matches when the event's tool is
//!    included (exact names by string comparison, other patterns by DFA) and
//!    not excluded, and its `when` holds. Pointers address the tool's
//!    arguments (`before_tool`), its result (`after_tool`), the request
//!    (`before_completion`) or response (`after_completion`,
//!    `stream_finish`); on text events (prompt, deltas, reasoning, assistant
//!    text, stop text, invalid call's raw arguments, run output or error) the
//!    empty pointer `""` addresses the text and no other pointer resolves;
//! 3. a matching rule's action becomes a [`Flow`](crate::Flow): `block` →
//!    `Skip`, `terminate` → `Terminate`, `inject` → `InjectContext`,
//!    `patch` → `PatchRequest`, `rewrite` → `RewriteArgs` / `RewriteResult`;
//!    `run` goes to a [`ShellHook`](crate::ShellHook) on the bound
//!    [`ShellRuntime`](crate::ShellRuntime) (without one, it counts as a
//!    failure under the rule's failure policy). `mode: audit` turns the flow
//!    into `Continue`;
//! 4. flows fold exactly as in a [`HookStack`](crate::HookStack) (the same
//!    [`Fold`](crate::Fold)): a rule sees the value rewritten by the rules
//!    before it; `Skip` / `Terminate` stop.
//!
//! # Allocation
//!
//! Selecting rules ([`Table::matching`], [`Rule::matches`]) never
//! allocates: tool names, pointers (pre-split, unescaped at build time),
//! `equals` literals ([`Json`]) and DFAs are all compared in place. Dispatch
//! ([`AgentHook::on_event`](crate::AgentHook::on_event)) therefore allocates
//! nothing when no rule matches. When a declarative rule matches, the
//! resulting [`Flow`](crate::Flow) owns its data (`Flow::Skip { reason:
//! String }`, ...), so building it allocates that data (and the fold records
//! provenance); the first matching event also builds the table's hook ids
//! once. `tests/dispatch_alloc.rs` pins these claims down.

mod action;
mod data;
mod eval;
mod load;
mod run;

pub use action::{HISTORY_KEYS, rewrite};
pub use data::{
    ActionSpec, DEFAULT_LIMITS, Dfa, Json, List, PatchSpec, Pred, ProgramSpec, RewriteStep, Rule,
    RunSpec, StaticDfa, Table, Test, Text, ToolChoiceSpec, ToolPaths, ToolSet, phase_index,
};
pub use eval::{Subject, resolve, subject};
pub use load::{LoadError, json as json_literal};
pub use run::{Dispatcher, TableRef};
