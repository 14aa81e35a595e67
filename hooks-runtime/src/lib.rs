//! `hooks-runtime`: the shared runtime of agent-hooks.
