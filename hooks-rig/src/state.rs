//! Per-run state of the adapter, kept in the rig run's scratchpad.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use hooks_runtime::{ContextItem, HookContext};
use rig_agent::agent as rig;
use rig_core::effect::EffectId;
use serde_json::Value;

use crate::convert::Request;

/// What the adapter keeps for one rig run.
pub(crate) struct RunState {
    /// Our context for the run (its scratchpad is shared by all turns).
    ctx: HookContext,
    /// Context injected by hooks, for the next completion request.
    pending: Mutex<Vec<ContextItem>>,
    /// Stop resumes so far in this run (one user prompt).
    resumes: AtomicU32,
    /// The model's arguments of tool calls a hook rewrote, by dispatch.
    originals: Mutex<HashMap<EffectId, Value>>,
    /// Tool dispatches the adapter denied (no `after_tool` follows them).
    denied: Mutex<HashSet<EffectId>>,
    /// The model selection our hooks made for the coming model call
    /// (folded in `on_completion_call`, applied in `on_model_select`).
    choice: Mutex<Option<ModelChoice>>,
    /// The model the previous call went to, as far as the adapter knows.
    previous_model: Mutex<Option<Arc<str>>>,
    /// The last `before_completion` request a hook read, converted; the
    /// next call converts only the messages appended since.
    request: Mutex<Request>,
}

/// What our hooks chose for a model call.
#[derive(Debug, Clone)]
pub(crate) enum ModelChoice {
    /// This model (a `select_model`, or a `before_completion` patch's
    /// `model`).
    Select(Arc<str>),
    /// The model in use: a hook blocked the switch.
    Keep,
}

/// The scratchpad entry.
#[derive(Clone)]
struct Slot(Arc<RunState>);

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl RunState {
    /// The state of the run `ctx` belongs to, created on first use. rig
    /// calls the run's first hook points (run start, completion call) one at
    /// a time, before any tool dispatch, so creation does not race.
    pub(crate) fn of(ctx: &rig::HookContext) -> Arc<RunState> {
        if let Some(Slot(state)) = ctx.scratchpad().get::<Slot>() {
            return state;
        }
        let state = Arc::new(RunState {
            ctx: HookContext::new(ctx.run_id().to_string()),
            pending: Mutex::new(Vec::new()),
            resumes: AtomicU32::new(0),
            originals: Mutex::new(HashMap::new()),
            denied: Mutex::new(HashSet::new()),
            choice: Mutex::new(None),
            previous_model: Mutex::new(None),
            request: Mutex::new(Request::default()),
        });
        ctx.scratchpad().insert(Slot(Arc::clone(&state)));
        state
    }

    /// Our context for rig's current turn.
    pub(crate) fn turn(&self, ctx: &rig::HookContext) -> HookContext {
        self.ctx
            .for_turn(u32::try_from(ctx.turn()).unwrap_or(u32::MAX))
    }

    pub(crate) fn push_context(&self, items: &[ContextItem]) {
        if !items.is_empty() {
            lock(&self.pending).extend_from_slice(items);
        }
    }

    pub(crate) fn take_context(&self) -> Vec<ContextItem> {
        std::mem::take(&mut *lock(&self.pending))
    }

    pub(crate) fn resumes(&self) -> u32 {
        self.resumes.load(Ordering::Relaxed)
    }

    pub(crate) fn count_resume(&self) {
        self.resumes.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn remember_original(&self, id: EffectId, args: Value) {
        lock(&self.originals).insert(id, args);
    }

    pub(crate) fn take_original(&self, id: EffectId) -> Option<Value> {
        lock(&self.originals).remove(&id)
    }

    pub(crate) fn mark_denied(&self, id: EffectId) {
        lock(&self.denied).insert(id);
    }

    pub(crate) fn take_denied(&self, id: EffectId) -> bool {
        lock(&self.denied).remove(&id)
    }

    pub(crate) fn set_choice(&self, choice: Option<ModelChoice>) {
        *lock(&self.choice) = choice;
    }

    pub(crate) fn take_choice(&self) -> Option<ModelChoice> {
        lock(&self.choice).take()
    }

    pub(crate) fn previous_model(&self) -> Option<Arc<str>> {
        lock(&self.previous_model).clone()
    }

    pub(crate) fn set_previous_model(&self, model: Arc<str>) {
        *lock(&self.previous_model) = Some(model);
    }

    /// The run's kept request, taken out (so that no lock is held while
    /// hooks read it): give it back with [`RunState::keep_request`]. A
    /// request not given back (the fold was dropped) is converted again in
    /// full by the next call.
    pub(crate) fn take_request(&self) -> Request {
        std::mem::take(&mut *lock(&self.request))
    }

    pub(crate) fn keep_request(&self, request: Request) {
        *lock(&self.request) = request;
    }
}
