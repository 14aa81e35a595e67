//! The background hooks (`async: true`) of one runtime ([`Background`]):
//! started without the agent waiting ([`Background::start`]), bounded
//! (slots of their own, a queue), their context delivered with a later
//! event of their run ([`Background::deliver`]), cancelled when the run
//! ends ([`Background::end_run`]).
//!
//! # One record each
//!
//! Every background invocation writes exactly one hook record (with
//! `"async": true`): `refused` when the queue was full (or no tokio runtime
//! could run it), `failed` with `cancelled` when the run ended before it got
//! a slot, and otherwise the record of its run (`ok`, `failed`, ...; a
//! decision answered is an `invalid_output` failure), written when it ends.
//! Context it returned gets one injection record more: `injected` (with
//! `delivered_on`) when a later event of the run takes it, or `dropped`
//! when the run ended first or too many results of the run waited.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use hooks_plan::{FlowKind, Phase};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;

use super::call::{Call, Outcome};
use super::{Batch, Deferred, HookLimits, Invocation, SharedHook, ShellRuntime, ToolView};
use crate::core::diagnostic::Diagnostic;
use crate::core::fold::Fold;
use crate::shell::payload::ToolPathSettings;
use crate::shell::records::{InjectionRecord, InjectionStatus, Record, RecordStatus};
use crate::shell::redact::redact_sensitive_text;
use crate::{CancellationToken, ContextList, FailureKind, Flow, HookContext, HookId, OwnedEvent};

/// The background hooks of one [`ShellRuntime`]: slots
/// ([`HookLimits::max_async_hooks`]), the queue of those waiting for one
/// ([`HookLimits::max_async_queued`]), and per run its cancellation, its
/// tasks and its undelivered context.
pub(crate) struct Background {
    /// [`HookLimits::max_async_hooks`] permits, apart from the runtime's.
    slots: Arc<Semaphore>,
    state: Mutex<State>,
    /// Undelivered results over all runs: a fold checks this before
    /// anything else (one load when no background hook ever ran).
    pending: AtomicUsize,
    /// Runs with background hooks, not yet ended.
    runs: AtomicUsize,
}

#[derive(Default)]
struct State {
    /// Background hooks waiting for a slot.
    queued: usize,
    runs: HashMap<Arc<str>, Run>,
    /// Tells a run from a later one of the same id.
    generations: u64,
}

/// The background hooks of one run.
struct Run {
    generation: u64,
    /// A child of the runtime's token, cancelled when the run ends.
    cancel: CancellationToken,
    tasks: Vec<JoinHandle<()>>,
    /// Context waiting for an event that takes it, in the order the hooks
    /// ended.
    results: VecDeque<Delivery>,
    /// The turn `delivered` counts for.
    turn: u32,
    delivered: usize,
}

/// A background hook's context, waiting for delivery.
struct Delivery {
    hook: HookId,
    context: ContextList,
    /// Its `injected` record, held since the hook ended.
    injection: Box<InjectionRecord>,
}

/// What [`Background::start`] needs, owned: the hook (spec and cache, as
/// its table built them), its tool's path settings, the run's context and
/// the event.
pub(crate) struct Job {
    pub(crate) hook: SharedHook,
    pub(crate) paths: Option<ToolPathSettings>,
    pub(crate) ctx: HookContext,
    pub(crate) event: OwnedEvent,
}

/// How a background hook was started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Start {
    /// It runs.
    Running,
    /// It waits for a slot.
    Queued,
    /// It was not run (its `refused` record says why, as this message).
    Refused(String),
}

impl Background {
    /// No background hook yet, `limits.max_async_hooks` slots.
    pub(crate) fn new(limits: &HookLimits) -> Self {
        Background {
            slots: Arc::new(Semaphore::new(limits.max_async_hooks.max(1))),
            state: Mutex::new(State::default()),
            pending: AtomicUsize::new(0),
            runs: AtomicUsize::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts `job` in the background on `rt` (a tokio task): at once when
    /// a slot is free, else queued, else (the queue is full, or no tokio
    /// runtime is current) refused with a `refused` record. Does not wait.
    pub(crate) fn start(rt: &Arc<ShellRuntime>, job: Job) -> Start {
        let bg = &rt.background;
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            let message = "not run: no tokio runtime to run it in the background".to_owned();
            return refuse(rt, &job, message);
        };
        let permit = Arc::clone(&bg.slots).try_acquire_owned().ok();
        let mut state = bg.lock();
        let waits = permit.is_none();
        if waits && state.queued >= rt.limits.max_async_queued {
            drop(state);
            let limits = &rt.limits;
            let message = format!(
                "not run: {} background hooks run (`limits.max_async_hooks`) and {} wait (`limits.max_async_queued`)",
                limits.max_async_hooks, limits.max_async_queued
            );
            return refuse(rt, &job, message);
        }
        let place = waits.then(|| {
            state.queued += 1;
            QueuePlace(Arc::clone(rt))
        });
        let run_id: Arc<str> = Arc::from(job.ctx.run_id());
        let State {
            runs, generations, ..
        } = &mut *state;
        let run = runs.entry(Arc::clone(&run_id)).or_insert_with(|| {
            *generations += 1;
            bg.runs.fetch_add(1, Ordering::AcqRel);
            Run {
                generation: *generations,
                cancel: rt.cancel.child_token(),
                tasks: Vec::new(),
                results: VecDeque::new(),
                turn: job.ctx.turn(),
                delivered: 0,
            }
        });
        let (cancel, generation) = (run.cancel.clone(), run.generation);
        run.tasks.retain(|task| !task.is_finished());
        // Spawned unlocked: a runtime shutting down drops the task at once,
        // and its queue place locks the state to give itself up.
        drop(state);
        let slot = Slot { permit, place };
        let task = handle.spawn(run_job(Arc::clone(rt), job, slot, cancel, generation));
        if let Some(run) = bg
            .lock()
            .runs
            .get_mut(&*run_id)
            .filter(|run| run.generation == generation)
        {
            run.tasks.push(task);
        }
        if waits { Start::Queued } else { Start::Running }
    }

    /// Keeps what the background `invocation` of run `run_id` (its
    /// `generation`) returned for delivery, or, when the run ended or
    /// [`HookLimits::max_async_queued`] results of it already wait, drops
    /// it with a `dropped` injection record.
    fn finished(
        &self,
        rt: &ShellRuntime,
        run_id: &str,
        generation: u64,
        invocation: Invocation,
        deferred: Deferred,
    ) {
        let Some(injection) = deferred.injection else {
            return;
        };
        let context = match invocation.flow {
            Flow::InjectContext(items) => items,
            _ => invocation.context,
        };
        let mut state = self.lock();
        if let Some(run) = state
            .runs
            .get_mut(run_id)
            .filter(|run| run.generation == generation)
            && run.results.len() < rt.limits.max_async_queued
        {
            run.results.push_back(Delivery {
                hook: invocation.report.hook,
                context,
                injection,
            });
            self.pending.fetch_add(1, Ordering::AcqRel);
            return;
        }
        drop(state);
        let _ = write_injection(rt, *injection, InjectionStatus::Dropped, None);
    }

    /// Whether a fold of `phase` has something to do here: deliver context
    /// (results wait and the phase honours `inject_context`) or end runs
    /// (background hooks run and the event ends its run). Two loads.
    pub(crate) fn wants(&self, phase: Phase) -> bool {
        self.delivers_on(phase) || self.ends_on(phase)
    }

    fn delivers_on(&self, phase: Phase) -> bool {
        self.pending.load(Ordering::Acquire) > 0 && FlowKind::InjectContext.honoured_on(phase)
    }

    /// Whether an event of `phase` ends runs that have background hooks.
    pub(crate) fn ends_on(&self, phase: Phase) -> bool {
        !phase.capabilities().background && self.runs.load(Ordering::Acquire) > 0
    }

    /// Applies the context waiting for `ctx`'s run to `fold` (an event of
    /// that run), when its phase honours `inject_context` and the fold is
    /// not stopped: the oldest results first, at most
    /// [`HookLimits::max_async_deliveries_per_turn`] in `ctx`'s turn (the
    /// rest wait for the next turn), each as its hook's `InjectContext`
    /// (provenance and report name the hook), each writing its `injected`
    /// record with `delivered_on`. Returns whether something was applied.
    /// One load and nothing more when no result waits.
    pub(crate) fn deliver(
        &self,
        rt: &ShellRuntime,
        ctx: &HookContext,
        fold: &mut Fold<'_>,
    ) -> bool {
        let phase = fold.phase();
        if !self.delivers_on(phase) || fold.is_decided() {
            return false;
        }
        let taken: Vec<Delivery> = {
            let mut state = self.lock();
            let Some(run) = state.runs.get_mut(ctx.run_id()) else {
                return false;
            };
            if run.turn != ctx.turn() {
                run.turn = ctx.turn();
                run.delivered = 0;
            }
            let quota = rt.limits.max_async_deliveries_per_turn.max(1);
            let n = quota.saturating_sub(run.delivered).min(run.results.len());
            run.delivered += n;
            self.pending.fetch_sub(n, Ordering::AcqRel);
            run.results.drain(..n).collect()
        };
        let delivered = !taken.is_empty();
        for Delivery {
            hook,
            context,
            injection,
        } in taken
        {
            let lost = write_injection(rt, *injection, InjectionStatus::Injected, Some(phase));
            let _ = fold.apply(&hook, Flow::InjectContext(context));
            if let Some(message) = lost {
                let diagnostic = Diagnostic::Hook {
                    hook: hook.clone(),
                    message,
                };
                fold.diagnose_call(&hook, diagnostic);
            }
        }
        delivered
    }

    /// Ends run `run_id`'s background hooks ([`ShellRuntime::end_run`]).
    pub(crate) async fn end_run(&self, rt: &ShellRuntime, run_id: &str) {
        let Some(run) = self.lock().runs.remove(run_id) else {
            return;
        };
        self.runs.fetch_sub(1, Ordering::AcqRel);
        self.pending.fetch_sub(run.results.len(), Ordering::AcqRel);
        run.cancel.cancel();
        for delivery in run.results {
            let _ = write_injection(rt, *delivery.injection, InjectionStatus::Dropped, None);
        }
        for task in run.tasks {
            // A task that panicked has nothing left to record.
            let _ = task.await;
        }
    }

    /// Waits for run `run_id`'s background hooks
    /// ([`ShellRuntime::wait_background`]).
    pub(crate) async fn wait(&self, run_id: &str) {
        loop {
            let tasks = match self.lock().runs.get_mut(run_id) {
                Some(run) => std::mem::take(&mut run.tasks),
                None => return,
            };
            if tasks.is_empty() {
                return;
            }
            for task in tasks {
                let _ = task.await;
            }
        }
    }
}

/// A background hook's slot: the permit it got at once, or its place in
/// the queue until it gets one.
struct Slot {
    permit: Option<OwnedSemaphorePermit>,
    place: Option<QueuePlace>,
}

/// A place in the runtime's background queue, given up when dropped.
struct QueuePlace(Arc<ShellRuntime>);

impl Drop for QueuePlace {
    fn drop(&mut self) {
        let mut state = self.0.background.lock();
        state.queued = state.queued.saturating_sub(1);
    }
}

/// The task of a background hook: waits for its slot (unless it has one)
/// or the run's end, runs the hook with the run's token, then keeps or
/// drops its context ([`Background::finished`]).
async fn run_job(
    rt: Arc<ShellRuntime>,
    job: Job,
    slot: Slot,
    cancel: CancellationToken,
    generation: u64,
) {
    let (spec, cache) = &*job.hook;
    let event = job.event.as_step();
    let tools = ToolView {
        paths: job.paths.as_ref(),
        ..ToolView::default()
    };
    let batch = Batch {
        background: Some(&cancel),
        ..Batch::default()
    };
    let _permit = match slot.permit {
        Some(permit) => permit,
        None => {
            let waited = tokio::select! {
                biased;
                () = cancel.cancelled() => None,
                permit = Arc::clone(&rt.background.slots).acquire_owned() => permit.ok(),
            };
            drop(slot.place);
            let Some(permit) = waited else {
                // Ended (or the session cancelled) before a slot was free.
                let detail = "cancelled before a background slot was free: its run ended";
                let mut call = Call::begin(spec, cache, &rt, tools, batch, &job.ctx, &event);
                let settled = call
                    .apply_failure_policy(Outcome::Failed(FailureKind::Cancelled, detail.into()));
                let (settled, verdict) = call.apply_mode(settled);
                let _ = call.finish(settled, verdict);
                return;
            };
            permit
        }
    };
    let (invocation, deferred) =
        super::invoke(spec, cache, &rt, tools, batch, &job.ctx, event).await;
    rt.background
        .finished(&rt, job.ctx.run_id(), generation, invocation, deferred);
}

/// Writes the `refused` record of `job`, not run because of `message`.
fn refuse(rt: &ShellRuntime, job: &Job, message: String) -> Start {
    let (spec, cache) = &*job.hook;
    let tools = ToolView {
        paths: job.paths.as_ref(),
        ..ToolView::default()
    };
    let batch = Batch {
        background: Some(&rt.cancel),
        ..Batch::default()
    };
    let event = job.event.as_step();
    let mut call = Call::begin(spec, cache, rt, tools, batch, &job.ctx, &event);
    let mut record = call.record(RecordStatus::Refused);
    record.message = Some(message.clone());
    call.write(&Record::Hook(record));
    call.write_pending();
    Start::Refused(message)
}

/// Writes a background hook's held injection record with `status` (and,
/// delivered, the phase it was `delivered_on`); the (redacted) diagnostic
/// when it cannot be written.
fn write_injection(
    rt: &ShellRuntime,
    mut record: InjectionRecord,
    status: InjectionStatus,
    delivered_on: Option<Phase>,
) -> Option<String> {
    let writer = rt.records.as_ref()?;
    record.status = status;
    record.delivered_on = delivered_on;
    let err = writer
        .write(&Record::Injection(record), &rt.secrets)
        .err()?;
    Some(redact_sensitive_text(&writer.lost_records_message(&err), &rt.secrets).into_owned())
}
