//! Converting other agents' hook configurations into agent-hooks configs.
//!
//! - [`claude`]: the `hooks` section of a Claude Code settings file (or a
//!   plugin's `hooks/hooks.json`), as `agent-hooks import claude` runs it.

pub mod claude;
