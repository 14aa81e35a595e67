//! What a session keeps for scoped and one-shot rules (`scope`, `once`):
//! the subagents running and skills active ([`ActiveScopes`]) and the
//! `once` rules that already ran. A run keeps them in its scratchpad
//! ([`SessionMarks`]); a [`HookStack`](crate::HookStack) with a session
//! store loads them from the store before each event and writes back what
//! the event changed, so that every process and replica of one session
//! sees the same scopes and runs a `once` rule once (docs/config.md's *Scoped
//! and one-shot hooks*).
//!
//! In the store they are counters (one name per fact, value 1):
//! `scope.subagent/["TYPE","ID"]`, `scope.skill/"NAME"` and `once/"ID"`
//! (JSON strings, so one name is never the prefix of another).

use std::collections::BTreeSet;
use std::sync::Arc;

use hooks_plan::{ActiveScopes, Admission, Facts, Mismatch, OutcomeKind, Plan, Rule};

use super::{SessionState, SessionStore, StoreError};
use crate::core::context::HookContext;
use crate::core::event::StepEvent;

/// The tool that loads a skill (Claude Code's `Skill`), and its argument
/// naming the skill.
const SKILL_TOOL: &str = "Skill";
const SKILL_ARG: &str = "skill";

const SUBAGENT_PREFIX: &str = "scope.subagent/";
const SKILL_PREFIX: &str = "scope.skill/";
const ONCE_PREFIX: &str = "once/";

/// A session's scopes and spent `once` rules, in a run's scratchpad.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SessionMarks {
    /// The active scopes.
    pub(crate) scopes: ActiveScopes,
    /// The `once` rules that ran or were claimed, by [`once_key`].
    pub(crate) spent: BTreeSet<String>,
}

/// The key of `once` rule `rule`: its hook id (unique in a stack, and the
/// same whatever path names its config).
pub(crate) fn once_key(rule: &Rule) -> String {
    rule.id.to_string()
}

/// The store counter of `once` rule `key`: `once/"KEY"` (a JSON string, so
/// that resetting one rule's counter resets no other).
fn once_counter(key: &str) -> String {
    let name = serde_json::to_string(key).unwrap_or_default();
    format!("{ONCE_PREFIX}{name}")
}

/// Whether `event` changes the active scopes: `subagent_start`,
/// `subagent_stop`, `user_prompt`, `after_tool`, `run_end`, `run_error`
/// (what a table with scoped rules observes).
pub(crate) fn is_transition(phase: hooks_plan::Phase) -> bool {
    use hooks_plan::Phase as P;
    matches!(
        phase,
        P::SubagentStart | P::SubagentStop | P::UserPrompt | P::AfterTool | P::RunEnd | P::RunError
    )
}

/// The scope changes of `event` before its hooks run: a subagent starts
/// (its own `subagent_start` hooks are in scope); a user prompt starts a
/// new turn, which no skill outlives.
pub(crate) fn enter(scopes: &mut ActiveScopes, event: &StepEvent<'_>) {
    match *event {
        StepEvent::SubagentStart {
            agent_id,
            agent_type,
        } => scopes.start_subagent(agent_id, agent_type),
        StepEvent::UserPrompt { .. } => scopes.skills.clear(),
        _ => {}
    }
}

/// What `event` changes after its hooks ran, computed before they run
/// (they may rewrite the event).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Exit {
    /// Nothing.
    None,
    /// This subagent stopped (its own `subagent_stop` hooks were in scope).
    StopSubagent(String),
    /// The `Skill` tool loaded this skill.
    LoadSkill(String),
    /// The run ended: nothing stays active.
    EndRun,
}

impl Exit {
    /// The change `event` makes once its hooks ran.
    pub(crate) fn of(event: &StepEvent<'_>) -> Exit {
        match *event {
            StepEvent::SubagentStop { agent_id, .. } => Exit::StopSubagent(agent_id.to_owned()),
            StepEvent::AfterTool {
                tool_name,
                args,
                outcome,
                ..
            } if tool_name == SKILL_TOOL && outcome.kind() == OutcomeKind::Success => args
                .get(SKILL_ARG)
                .and_then(serde_json::Value::as_str)
                .filter(|name| !name.is_empty())
                .map_or(Exit::None, |name| Exit::LoadSkill(name.to_owned())),
            StepEvent::RunEnd { .. } | StepEvent::RunError { .. } => Exit::EndRun,
            _ => Exit::None,
        }
    }

    /// Applies the change to `scopes`.
    pub(crate) fn apply(&self, scopes: &mut ActiveScopes) {
        match self {
            Exit::None => {}
            Exit::StopSubagent(id) => scopes.stop_subagent(id),
            Exit::LoadSkill(name) => scopes.load_skill(name),
            Exit::EndRun => *scopes = ActiveScopes::default(),
        }
    }
}

/// Whether `plan` has a scoped or `once` rule.
pub(crate) fn plan_is_marked(plan: &Plan) -> bool {
    plan.rules.iter().any(|r| r.scope.is_some() || r.once)
}

/// The marks of a session as the store holds them (counters of the names
/// in the module docs; other counters are ignored, a name that does not
/// parse is skipped).
pub(crate) fn from_state(state: &SessionState) -> SessionMarks {
    let mut marks = SessionMarks::default();
    for (name, &count) in &state.counters {
        if count == 0 {
            continue;
        }
        let text = |prefix: &str| {
            name.strip_prefix(prefix)
                .and_then(|rest| serde_json::from_str::<String>(rest).ok())
        };
        if let Some(rest) = name.strip_prefix(SUBAGENT_PREFIX) {
            if let Ok((agent_type, agent_id)) = serde_json::from_str::<(String, String)>(rest) {
                marks.scopes.subagents.push((agent_id, agent_type));
            }
        } else if let Some(skill) = text(SKILL_PREFIX) {
            marks.scopes.skills.push(skill);
        } else if let Some(key) = text(ONCE_PREFIX) {
            marks.spent.insert(key);
        }
    }
    marks
}

fn subagent_counter(agent_id: &str, agent_type: &str) -> String {
    let name = serde_json::to_string(&(agent_type, agent_id)).unwrap_or_default();
    format!("{SUBAGENT_PREFIX}{name}")
}

fn skill_counter(skill: &str) -> String {
    let name = serde_json::to_string(skill).unwrap_or_default();
    format!("{SKILL_PREFIX}{name}")
}

/// Claims `once` rule `key` for this session in `store`: `true` when this
/// call is the first (atomic across processes: the store's increment).
///
/// # Errors
///
/// The store's.
pub(crate) async fn claim(
    store: &dyn SessionStore,
    session: &str,
    key: &str,
) -> Result<bool, StoreError> {
    Ok(store.increment(session, &once_counter(key), 1).await? == 1)
}

/// Gives back the claim of `once` rule `key`: dispatch did not reach it
/// (an earlier hook ended the event, or its `when` failed on the event as
/// rewritten), so a later event may run it.
///
/// # Errors
///
/// The store's.
async fn release(store: &dyn SessionStore, session: &str, key: &str) -> Result<(), StoreError> {
    store.reset(session, &once_counter(key)).await.map(drop)
}

/// Writes to `store` what changed from `before` to `after` (scopes started
/// or stopped, skills loaded or cleared, `once` rules spent that `claimed`
/// does not already count) and releases the rules of `claimed` that
/// dispatch did not reach.
///
/// # Errors
///
/// The store's first error (the writes before it happened).
pub(crate) async fn write_back(
    store: &dyn SessionStore,
    session: &str,
    before: &SessionMarks,
    after: &SessionMarks,
    claimed: &[String],
) -> Result<(), StoreError> {
    let (b, a) = (&before.scopes, &after.scopes);
    for (id, ty) in a.subagents.iter().filter(|s| !b.subagents.contains(s)) {
        store
            .increment(session, &subagent_counter(id, ty), 1)
            .await?;
    }
    for (id, ty) in b.subagents.iter().filter(|s| !a.subagents.contains(s)) {
        store.reset(session, &subagent_counter(id, ty)).await?;
    }
    if b.skills.iter().any(|s| !a.skills.contains(s)) {
        store.reset(session, SKILL_PREFIX).await?;
        for skill in &a.skills {
            store.increment(session, &skill_counter(skill), 1).await?;
        }
    } else {
        for skill in a.skills.iter().filter(|s| !b.skills.contains(s)) {
            store.increment(session, &skill_counter(skill), 1).await?;
        }
    }
    for key in after.spent.difference(&before.spent) {
        if !claimed.contains(key) {
            store.increment(session, &once_counter(key), 1).await?;
        }
    }
    for key in claimed.iter().filter(|k| !after.spent.contains(*k)) {
        release(store, session, key).await?;
    }
    Ok(())
}

/// A stack's session marks for one event, as loaded from its store
/// ([`Synced::load`]), to write back once the event is folded
/// ([`Synced::finish`]).
pub(crate) struct Synced {
    store: Arc<dyn SessionStore>,
    before: SessionMarks,
    claimed: Vec<String>,
}

impl Synced {
    /// Loads the session's marks from `store` into the run's scratchpad
    /// and claims, in the store, each `once` rule of `plans` that has not
    /// run in the session and whose phase, tools and scope fit `event`
    /// (its `when` is judged later, on the event as the hooks before it
    /// rewrote it): a rule another process claimed first is marked spent,
    /// so the tables skip it; one this event claimed and dispatch then did
    /// not reach is released by [`Synced::finish`].
    ///
    /// # Errors
    ///
    /// The store's: the scratchpad keeps what the run had, and the rules
    /// are judged on that.
    pub(crate) async fn load<'p>(
        store: &Arc<dyn SessionStore>,
        plans: impl Iterator<Item = &'p Plan>,
        ctx: &HookContext,
        event: &StepEvent<'_>,
    ) -> Result<Synced, StoreError> {
        let session = ctx.session_id();
        let mut marks = from_state(&store.load(session).await?);
        let mut scopes = marks.scopes.clone();
        enter(&mut scopes, event);
        let judged = Facts {
            admission: Some(Admission {
                scopes: &scopes,
                once: &[],
            }),
            ..crate::dispatch::facts(event)
        };
        let mut claimed = Vec::new();
        for plan in plans {
            for &i in plan.rules_for(event.kind()) {
                let rule = &plan.rules[i as usize];
                let fits = matches!(
                    rule.mismatch(&judged),
                    Some(Mismatch::When | Mismatch::Spent)
                );
                if !rule.once || !fits {
                    continue;
                }
                let key = once_key(rule);
                if marks.spent.contains(&key) {
                    continue;
                }
                if claim(&**store, session, &key).await? {
                    claimed.push(key);
                } else {
                    marks.spent.insert(key);
                }
            }
        }
        ctx.update::<SessionMarks, _>(|run| run.clone_from(&marks));
        Ok(Synced {
            store: Arc::clone(store),
            before: marks,
            claimed,
        })
    }

    /// Writes back to the store what the event changed in the run's marks,
    /// and releases the claims of `once` rules dispatch did not reach.
    ///
    /// # Errors
    ///
    /// The store's (the writes before the failing one happened).
    pub(crate) async fn finish(self, ctx: &HookContext) -> Result<(), StoreError> {
        let after = ctx.get::<SessionMarks>().unwrap_or_default();
        write_back(
            &*self.store,
            ctx.session_id(),
            &self.before,
            &after,
            &self.claimed,
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::MemoryStore;
    use std::time::Duration;

    /// Scopes and spent rules survive the trip through a store's counters,
    /// names with `/`, quotes and `#` included; one id is not the prefix
    /// of another.
    #[tokio::test]
    async fn marks_round_trip_through_the_store() {
        let store = MemoryStore::new(Duration::from_secs(60));
        let empty = SessionMarks::default();
        let mut marks = SessionMarks::default();
        marks.scopes.start_subagent("a1", "code/\"reviewer\"");
        marks.scopes.start_subagent("a12", "Explore");
        marks.scopes.load_skill("pdf#tools");
        marks.spent.insert("greet".to_owned());
        write_back(&store, "s", &empty, &marks, &[])
            .await
            .expect("write");
        let loaded = from_state(&store.load("s").await.expect("load"));
        let mut want = marks.clone();
        want.scopes.subagents.sort();
        let mut got = loaded.clone();
        got.scopes.subagents.sort();
        assert_eq!(got, want);
        // Stopping `a1` keeps `a12`; a new prompt clears the skills.
        let mut after = loaded.clone();
        after.scopes.stop_subagent("a1");
        after.scopes.skills.clear();
        write_back(&store, "s", &loaded, &after, &[])
            .await
            .expect("write");
        let reloaded = from_state(&store.load("s").await.expect("load"));
        assert_eq!(
            reloaded.scopes.subagents,
            [("a12".into(), "Explore".into())]
        );
        assert!(reloaded.scopes.skills.is_empty());
        // A claimed rule is counted once.
        assert!(!claim(&store, "s", "greet").await.expect("claim"));
        assert!(claim(&store, "s", "other").await.expect("claim"));
        assert!(!claim(&store, "s", "other").await.expect("claim"));
        // A released claim can be made again; releasing `other` keeps
        // `other2`.
        assert!(claim(&store, "s", "other2").await.expect("claim"));
        release(&store, "s", "other").await.expect("release");
        assert!(claim(&store, "s", "other").await.expect("claim"));
        assert!(!claim(&store, "s", "other2").await.expect("claim"));
    }
}
