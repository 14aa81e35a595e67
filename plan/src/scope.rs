//! What scoped and one-shot rules are matched against: the session's active
//! subagents and skills ([`ActiveScopes`]) and the `once` rules an event
//! may run ([`Admission`]). The runtime keeps both per session (see
//! docs/config.md's *Scoped and one-shot hooks*); the plan only reads them.

use serde::{Deserialize, Serialize};

use crate::data::{Scope, ScopeKind, Text};

/// The subagents running and the skills active in a session, as the
/// runtime tracked them from its events.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActiveScopes {
    /// The running subagents: `(agent_id, agent_type)`, in start order.
    pub subagents: Vec<(String, String)>,
    /// The active skills' names, in load order, each once.
    pub skills: Vec<String>,
}

impl ActiveScopes {
    /// Whether `scope` is active: a subagent of its type runs, or its skill
    /// is loaded. Never allocates.
    pub fn is_active(&self, scope: &Scope) -> bool {
        match scope.kind {
            ScopeKind::Subagent => self.subagents.iter().any(|(_, t)| *t == *scope.name),
            ScopeKind::Skill => self.skills.iter().any(|s| *s == *scope.name),
        }
    }

    /// Whether nothing is active.
    pub fn is_empty(&self) -> bool {
        self.subagents.is_empty() && self.skills.is_empty()
    }

    /// Subagent `agent_id` of type `agent_type` started (a second start of
    /// the same id changes nothing).
    pub fn start_subagent(&mut self, agent_id: &str, agent_type: &str) {
        if !self.subagents.iter().any(|(id, _)| id == agent_id) {
            self.subagents
                .push((agent_id.to_owned(), agent_type.to_owned()));
        }
    }

    /// Subagent `agent_id` stopped.
    pub fn stop_subagent(&mut self, agent_id: &str) {
        self.subagents.retain(|(id, _)| id != agent_id);
    }

    /// Skill `name` was loaded (again: no change).
    pub fn load_skill(&mut self, name: &str) {
        if !self.skills.iter().any(|s| s == name) {
            self.skills.push(name.to_owned());
        }
    }
}

/// What scoped and `once` rules are judged against on one event: the
/// session's [`ActiveScopes`] and the ids of the table's `once` rules this
/// event claimed (a `once` rule not among them does not match:
/// [`Mismatch::Spent`](crate::Mismatch::Spent)).
#[derive(Debug, Clone, Copy)]
pub struct Admission<'a> {
    /// The active scopes.
    pub scopes: &'a ActiveScopes,
    /// The `once` rules (by id) this event may run.
    pub once: &'a [Text],
}
