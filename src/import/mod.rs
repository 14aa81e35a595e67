//! Converting other agents' hook configurations into agent-hooks configs.
//!
//! - [`claude`]: the `hooks` section of a Claude Code settings file (or a
//!   plugin's `hooks/hooks.json`), as `agent-hooks import claude` runs it,
//!   and, in another [`claude::Dialect`], the hook files of OpenAI Codex,
//!   Gemini CLI and the GitHub Copilot CLI (`agent-hooks import codex`,
//!   `import gemini`, `import copilot`).

pub mod claude;
