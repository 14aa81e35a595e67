//! A table's scoped and `once` rules on one event: the session's scopes
//! after the event's own change, the `once` rules not yet run (claimed when
//! dispatch reaches one: [`claimed`]), and the change the event makes once
//! the table's rules ran. The marks live in the run's scratchpad; a stack
//! with a session store syncs them (`state/marks.rs`).

use hooks_plan::{ActiveScopes, Admission, Text};

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
    /// applies the event's scope change to the run's marks and lists the
    /// table's `once` rules of the phase that have not run in the session
    /// (each is claimed only when dispatch reaches it: [`claimed`]).
    pub(super) fn enter(table: &Table, ctx: &HookContext, event: &StepEvent<'_>) -> Marked {
        let exit = Exit::of(event);
        ctx.update::<SessionMarks, _>(|session| {
            marks::enter(&mut session.scopes, event);
            let once = table
                .rules_for(event.kind())
                .iter()
                .map(|&i| &table.rules()[i as usize])
                .filter(|rule| rule.once && !session.spent.contains(&once_key(rule)))
                .map(|rule| rule.id.clone())
                .collect();
            Marked {
                scopes: session.scopes.clone(),
                once,
                exit,
            }
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

/// Whether rule `i` of `table`, which dispatch just matched, is consulted:
/// a `once` rule is claimed in the run's marks now, atomically for the
/// run's tasks (`false`: an event of the session claimed it first, or there
/// is no run context to count in). Other rules: `true`, one check.
pub(super) fn claimed(table: &Table, ctx: Option<&HookContext>, i: u32) -> bool {
    let rule = &table.rules()[i as usize];
    if !rule.once {
        return true;
    }
    ctx.is_some_and(|ctx| {
        ctx.update::<SessionMarks, _>(|session| session.spent.insert(once_key(rule)))
    })
}
