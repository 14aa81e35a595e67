//! The request patch vocabulary, defined in `hooks-plan` so that a table
//! compiled by `hooks!` holds the very [`RequestPatch`] its `patch` rules
//! return (no per-event conversion).

pub use hooks_plan::{HISTORY_KEYS, History, Params, PatchField, RequestPatch, ToolChoice};
