//! The `hooks!` proc-macro of agent-hooks (not yet implemented; see issue 5).
