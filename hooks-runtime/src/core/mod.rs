//! The core: events, flows, hooks, request patches, the fold and the driver.
//!
//! Modules depend on each other in one direction only, bottom to top:
//! `event` (and `owned`, the same events owning their data, in the event
//! JSON), `context` and `id` (hook names); `patch` (request patch data);
//! `flow`; `diagnostic` and `report`; `outcome` (what a fold yields,
//! with provenance); `merge` (patches merged field by field); `fold`
//! (flows merged one hook at a time); `hook` (the `AgentHook` trait);
//! `stack` (`HookStack`); `driver` (typed decisions); `approval` (asks
//! resolved by the agent's approver). Nothing here depends on the dispatch table or the shell
//! hooks.

pub(crate) mod approval;
pub(crate) mod context;
pub(crate) mod diagnostic;
pub(crate) mod driver;
pub(crate) mod event;
pub(crate) mod flow;
pub(crate) mod fold;
pub(crate) mod hook;
pub(crate) mod id;
pub(crate) mod merge;
pub(crate) mod outcome;
pub(crate) mod owned;
pub(crate) mod patch;
pub(crate) mod report;
pub(crate) mod stack;
pub(crate) mod telemetry;
