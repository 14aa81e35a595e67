//! The per-run context every hook receives: run id, turn, the session
//! identity the agent reports (session id, transcript path, cwd, permission
//! mode) and a typed, run-scoped scratchpad shared by all hooks.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// What a hook knows about the run it is called in.
///
/// Cloning is cheap (three reference-count increments) and the clone shares the
/// scratchpad: an agent loop keeps one context per run and derives a context
/// per turn with [`HookContext::for_turn`].
///
/// The session identity (set with the `with_*` builder methods) is what
/// `protocol: claude` hook scripts receive as `session_id`,
/// `transcript_path`, `cwd` and `permission_mode`; docs/protocols.md's *Claude
/// Code compatibility* section says which scripts need which.
#[derive(Clone)]
pub struct HookContext {
    run_id: Arc<str>,
    turn: u32,
    session: Arc<Session>,
    scratchpad: Arc<Scratchpad>,
}

/// The session identity an agent reports to its hooks (all optional).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Session {
    id: Option<Arc<str>>,
    transcript_path: Option<PathBuf>,
    cwd: Option<PathBuf>,
    permission_mode: Option<Arc<str>>,
}

impl HookContext {
    /// A context for a new run with an empty scratchpad, at turn 0, with no
    /// session identity beyond the run id (see [`HookContext::session_id`]).
    pub fn new(run_id: impl Into<Arc<str>>) -> Self {
        HookContext {
            run_id: run_id.into(),
            turn: 0,
            session: Arc::new(Session::default()),
            scratchpad: Arc::new(Scratchpad::default()),
        }
    }

    /// The same run (same id, session identity and scratchpad) at `turn`.
    #[must_use]
    pub fn for_turn(&self, turn: u32) -> Self {
        HookContext {
            run_id: Arc::clone(&self.run_id),
            turn,
            session: Arc::clone(&self.session),
            scratchpad: Arc::clone(&self.scratchpad),
        }
    }

    /// Sets the agent's session id (Claude Code's `session_id`: scripts key
    /// per-session state files by it). Default: the run id.
    #[must_use]
    pub fn with_session_id(mut self, id: impl Into<Arc<str>>) -> Self {
        Arc::make_mut(&mut self.session).id = Some(id.into());
        self
    }

    /// Sets the path of the agent's conversation transcript (Claude Code's
    /// `transcript_path`, a JSONL file scripts read). Default: none, sent as
    /// an empty string.
    #[must_use]
    pub fn with_transcript_path(mut self, path: impl Into<PathBuf>) -> Self {
        Arc::make_mut(&mut self.session).transcript_path = Some(path.into());
        self
    }

    /// Sets the agent's working directory (Claude Code's `cwd`). Default:
    /// none, meaning the hook's own working directory (the workspace root
    /// unless the hook sets `cwd`).
    #[must_use]
    pub fn with_cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        Arc::make_mut(&mut self.session).cwd = Some(cwd.into());
        self
    }

    /// Sets the agent's permission mode (Claude Code's `permission_mode`:
    /// `default`, `plan`, `acceptEdits`, `auto`, `dontAsk`,
    /// `bypassPermissions`; passed through as given). Default: `default`.
    #[must_use]
    pub fn with_permission_mode(mut self, mode: impl Into<Arc<str>>) -> Self {
        Arc::make_mut(&mut self.session).permission_mode = Some(mode.into());
        self
    }

    /// The session id: as set with [`HookContext::with_session_id`], else
    /// the run id.
    pub fn session_id(&self) -> &str {
        self.session.id.as_deref().unwrap_or(&self.run_id)
    }

    /// The transcript path, when the agent set one.
    pub fn transcript_path(&self) -> Option<&Path> {
        self.session.transcript_path.as_deref()
    }

    /// The agent's working directory, when it set one.
    pub fn cwd(&self) -> Option<&Path> {
        self.session.cwd.as_deref()
    }

    /// The permission mode: as set, else `default`.
    pub fn permission_mode(&self) -> &str {
        self.session.permission_mode.as_deref().unwrap_or("default")
    }

    /// The run's id, as given to [`HookContext::new`].
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The turn (0-based model turn of the run).
    pub fn turn(&self) -> u32 {
        self.turn
    }

    /// The run-scoped scratchpad shared by every hook of the run.
    pub fn scratchpad(&self) -> &Scratchpad {
        &self.scratchpad
    }

    /// A clone of the scratchpad's value of type `T`, if one was stored.
    /// Shorthand for `self.scratchpad().get::<T>()`.
    pub fn get<T: Clone + Send + Sync + 'static>(&self) -> Option<T> {
        self.scratchpad.get::<T>()
    }

    /// Updates the scratchpad's value of type `T` (starting from
    /// `T::default()` when none is stored) and returns what `f` returns.
    /// Shorthand for `self.scratchpad().update::<T, R>(f)`.
    ///
    /// # Panics
    ///
    /// Deadlocks or panics if `f` accesses the scratchpad itself (see
    /// [`Scratchpad::update`]).
    pub fn update<T, R>(&self, f: impl FnOnce(&mut T) -> R) -> R
    where
        T: Default + Send + Sync + 'static,
    {
        self.scratchpad.update::<T, R>(f)
    }
}

impl fmt::Debug for HookContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookContext")
            .field("run_id", &self.run_id)
            .field("turn", &self.turn)
            .field("session", &self.session)
            .field("scratchpad", &self.scratchpad)
            .finish()
    }
}

type Slot = Box<dyn Any + Send + Sync>;

/// A type map: at most one value per Rust type, shared by all hooks of a run.
///
/// Keys are types, so hooks that define their own key types (for example a
/// `struct TimeoutCount(u32)`) never collide. Access is synchronized by a
/// mutex held only for the duration of one [`get`](Scratchpad::get),
/// [`update`](Scratchpad::update), [`with`](Scratchpad::with),
/// [`set`](Scratchpad::set) or [`remove`](Scratchpad::remove) call, never
/// across an `.await`. A panic inside an earlier closure does not poison the
/// scratchpad for later calls.
#[derive(Default)]
pub struct Scratchpad {
    slots: Mutex<HashMap<TypeId, Slot>>,
}

impl Scratchpad {
    fn lock(&self) -> MutexGuard<'_, HashMap<TypeId, Slot>> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A clone of the stored value of type `T`, or `None`.
    pub fn get<T: Clone + Send + Sync + 'static>(&self) -> Option<T> {
        self.with::<T, _>(|value| value.cloned())
    }

    /// Calls `f` with a reference to the stored value of type `T` (or `None`)
    /// and returns its result; avoids cloning large values.
    ///
    /// # Panics
    ///
    /// `f` runs with the scratchpad locked: calling back into the scratchpad
    /// from `f` deadlocks or panics.
    pub fn with<T: Send + Sync + 'static, R>(&self, f: impl FnOnce(Option<&T>) -> R) -> R {
        let slots = self.lock();
        f(slots
            .get(&TypeId::of::<T>())
            .and_then(|slot| slot.downcast_ref::<T>()))
    }

    /// Updates the stored value of type `T` in place, inserting `T::default()`
    /// first when none is stored, and returns what `f` returns.
    ///
    /// # Panics
    ///
    /// `f` runs with the scratchpad locked: calling back into the scratchpad
    /// from `f` deadlocks or panics.
    pub fn update<T, R>(&self, f: impl FnOnce(&mut T) -> R) -> R
    where
        T: Default + Send + Sync + 'static,
    {
        let mut slots = self.lock();
        let slot = slots
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Box::new(T::default()));
        match slot.downcast_mut::<T>() {
            Some(value) => f(value),
            // The map is keyed by `TypeId::of::<T>()`, so the slot always holds a `T`.
            None => unreachable!("scratchpad slot keyed by a type holds another type"),
        }
    }

    /// Stores `value`, returning the previous value of type `T`, if any.
    pub fn set<T: Send + Sync + 'static>(&self, value: T) -> Option<T> {
        let previous = self.lock().insert(TypeId::of::<T>(), Box::new(value));
        previous.and_then(|slot| slot.downcast::<T>().ok().map(|boxed| *boxed))
    }

    /// Removes and returns the stored value of type `T`, if any.
    pub fn remove<T: Send + Sync + 'static>(&self) -> Option<T> {
        let previous = self.lock().remove(&TypeId::of::<T>());
        previous.and_then(|slot| slot.downcast::<T>().ok().map(|boxed| *boxed))
    }

    /// How many values are stored.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl fmt::Debug for Scratchpad {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scratchpad")
            .field("values", &self.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, Clone, PartialEq)]
    struct Count(u32);

    #[derive(Debug, Default, Clone, PartialEq)]
    struct Other(u32);

    #[test]
    fn values_are_keyed_by_type_and_shared_across_turns() {
        let ctx = HookContext::new("run-1");
        assert_eq!(ctx.get::<Count>(), None);
        let after = ctx.update::<Count, u32>(|c| {
            c.0 += 2;
            c.0
        });
        assert_eq!(after, 2);
        let next = ctx.for_turn(3);
        assert_eq!(next.turn(), 3);
        assert_eq!(next.run_id(), "run-1");
        next.update::<Count, ()>(|c| c.0 += 1);
        assert_eq!(ctx.get::<Count>(), Some(Count(3)));
        assert_eq!(ctx.get::<Other>(), None);
        assert_eq!(ctx.scratchpad().set(Other(7)), None);
        assert_eq!(ctx.scratchpad().set(Other(8)), Some(Other(7)));
        assert_eq!(
            ctx.scratchpad().with::<Other, _>(|o| o.map(|o| o.0)),
            Some(8)
        );
        assert_eq!(ctx.scratchpad().len(), 2);
        assert_eq!(ctx.scratchpad().remove::<Count>(), Some(Count(3)));
        assert_eq!(ctx.get::<Count>(), None);
    }

    #[test]
    fn session_identity_defaults_and_survives_turns() {
        let ctx = HookContext::new("run-1");
        assert_eq!(ctx.session_id(), "run-1");
        assert_eq!(ctx.transcript_path(), None);
        assert_eq!(ctx.cwd(), None);
        assert_eq!(ctx.permission_mode(), "default");
        let ctx = ctx
            .with_session_id("sess-9")
            .with_transcript_path("/t/sess-9.jsonl")
            .with_cwd("/w")
            .with_permission_mode("plan");
        let next = ctx.for_turn(2);
        assert_eq!(next.session_id(), "sess-9");
        assert_eq!(next.transcript_path(), Some(Path::new("/t/sess-9.jsonl")));
        assert_eq!(next.cwd(), Some(Path::new("/w")));
        assert_eq!(next.permission_mode(), "plan");
        assert_eq!(next.run_id(), "run-1");
    }

    #[test]
    fn a_panicking_update_does_not_poison_the_scratchpad() {
        let ctx = HookContext::new("run");
        let shared = ctx.clone();
        let joined = std::thread::spawn(move || {
            shared.update::<Count, ()>(|_| panic!("hook bug"));
        })
        .join();
        assert!(joined.is_err());
        ctx.update::<Count, ()>(|c| c.0 += 1);
        assert_eq!(ctx.get::<Count>(), Some(Count(1)));
    }

    #[test]
    fn context_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<HookContext>();
    }
}
