//! A table's scoped and `once` rules on one event: the session's scopes
//! after the event's own change ([`marks::enter`](crate::state::marks)),
//! the `once` rules the event claims, and the change the event makes once
//! the table's rules ran. The marks live in the run's scratchpad; a stack
//! with a session store syncs them (`state/marks.rs`).

use hooks_plan::{ActiveScopes, Admission, Facts, Mismatch, Text};

use super::eval::facts;
use super::table::Table;
use crate::core::context::HookContext;
use crate::core::event::StepEvent;
use crate::state::marks::{self, Exit, SessionMarks, once_key};

/// No scope active and no `once` rule admitted: what a table with scoped
/// or `once` rules is judged against without a run context.
pub(super) static NOTHING_ACTIVE: ActiveScopes = ActiveScopes {
    subagents: Vec::new(),
    skills: Vec::new(),
};

/// A marked table's view of the session for one event.
#[derive(Debug)]
pub(super) struct Marked {
    scopes: ActiveScopes,
    once: Vec<Text>,
    exit: Exit,
}

impl Marked {
    /// Enters `event` (as the hooks before the table left it) for `table`:
    /// applies the event's scope change to the run's marks and claims each
    /// of the table's `once` rules that matches it and has not run in the
    /// session (atomically for the run's tasks: the scratchpad's lock).
    pub(super) fn enter(table: &Table, ctx: &HookContext, event: &StepEvent<'_>) -> Marked {
        let exit = Exit::of(event);
        ctx.update::<SessionMarks, _>(|session| {
            marks::enter(&mut session.scopes, event);
            let scopes = session.scopes.clone();
            let admission = Admission {
                scopes: &scopes,
                once: &[],
            };
            let judged = Facts {
                admission: Some(admission),
                ..facts(event)
            };
            let mut once = Vec::new();
            for &i in table.rules_for(event.kind()) {
                let rule = &table.rules()[i as usize];
                if rule.once
                    && rule.mismatch(&judged) == Some(Mismatch::Spent)
                    && session.spent.insert(once_key(table.source(), rule))
                {
                    once.push(rule.id.clone());
                }
            }
            Marked { scopes, once, exit }
        })
    }

    /// What scoped and `once` rules are judged against on this event.
    pub(super) fn admission(&self) -> Admission<'_> {
        Admission {
            scopes: &self.scopes,
            once: &self.once,
        }
    }

    /// The event's change once the table's rules ran (a subagent stopped,
    /// a skill loaded, the run ended).
    pub(super) fn leave(&self, ctx: &HookContext) {
        if self.exit != Exit::None {
            ctx.update::<SessionMarks, _>(|session| self.exit.apply(&mut session.scopes));
        }
    }
}
