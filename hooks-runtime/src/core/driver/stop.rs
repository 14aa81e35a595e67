//! The driver methods of the `stop` and `subagent_stop` events: the
//! per-turn count of resumes and its cap.

use hooks_plan::Phase;
use serde_json::Value;

use super::{Decided, not_this, unexpected};
use crate::core::context::HookContext;
use crate::core::diagnostic::Diagnostic;
use crate::core::event::StepEvent;
use crate::core::flow::{Flow, Text};
use crate::core::fold::Fold;
use crate::core::stack::HookStack;
use crate::state::{STOP_RESUMES, StoreError, stop_resumes_counter};

/// What to do when the agent (or a subagent) is about to stop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopDecision {
    /// Stop as planned.
    Stop,
    /// Keep working; give the model `reason`.
    Resume {
        /// Why the agent must continue.
        reason: Text,
    },
    /// The agent already resumed `cap` times in this user turn
    /// ([`HookStack::stop_cap`]): stop, without consulting the hooks (no
    /// stop hook is spawned). Not the same as [`StopDecision::Stop`],
    /// where the hooks were consulted and none asked to keep working.
    Capped {
        /// Why the agent stops (the text of [`Diagnostic::StopCapped`]).
        reason: Text,
        /// The cap per user turn.
        cap: u32,
        /// Resumes already granted in this user turn (`>= cap`).
        resumes: u32,
    },
    /// End the run (as an error).
    Terminate {
        /// Why.
        reason: Text,
    },
}

impl StopDecision {
    /// The decision's name: `stop`, `resume`, `capped` or `terminate`.
    pub const fn label(&self) -> &'static str {
        match self {
            StopDecision::Stop => "stop",
            StopDecision::Resume { .. } => "resume",
            StopDecision::Capped { .. } => "capped",
            StopDecision::Terminate { .. } => "terminate",
        }
    }
}

impl HookStack {
    /// Folds a `stop` event; `text` is the assistant's last text.
    ///
    /// The runtime counts the resumes of each user turn itself (in the
    /// run's scratchpad, reset by [`HookStack::user_prompt`]), whatever the
    /// agent's turn bookkeeping: the event's `loop_count` is that count, or
    /// `loop_count` when the agent passes a larger one (an agent resuming a
    /// recorded session). Once the count reached [`HookStack::stop_cap`]
    /// no hook is consulted (no stop hook is spawned, no record written):
    /// the decision is [`StopDecision::Capped`], with a
    /// [`Diagnostic::StopCapped`] in the diagnostics.
    ///
    /// # Cancel safety
    ///
    /// As [`HookStack::fold`]; a dropped fold counts no resume.
    pub async fn stop(
        &self,
        ctx: &HookContext,
        loop_count: u32,
        text: &str,
    ) -> Decided<StopDecision> {
        let event = StepEvent::Stop {
            loop_count,
            text,
            background_tasks: &Value::Null,
            session_crons: &Value::Null,
        };
        self.stop_event(ctx, event).await
    }

    /// Folds a `stop` or `subagent_stop` event the agent built itself, with
    /// what it reports beside the text (`background_tasks`,
    /// `session_crons`, a subagent's `agent_transcript_path`); otherwise
    /// as [`HookStack::stop`] and [`HookStack::subagent_stop`] (the
    /// event's `loop_count` is raised to the runtime's count, the cap
    /// applies). Any other event is not folded: the decision terminates,
    /// naming it (fail closed).
    ///
    /// # Cancel safety
    ///
    /// As [`HookStack::fold`]; a dropped fold counts no resume.
    pub async fn stop_event(
        &self,
        ctx: &HookContext,
        event: StepEvent<'_>,
    ) -> Decided<StopDecision> {
        let (agent, reported) = match event {
            StepEvent::Stop { loop_count, .. } => ("", loop_count),
            StepEvent::SubagentStop {
                agent_id,
                loop_count,
                ..
            } => (agent_id, loop_count),
            other => {
                let reason = not_this(other, "stop_event", "a `stop` or `subagent_stop`");
                let decision = StopDecision::Terminate { reason };
                return Decided::new(decision, Fold::new(other).finish());
            }
        };
        let counted = match self.resumes_so_far(ctx, agent).await {
            Ok(counted) => counted,
            Err(error) => {
                let message = format!(
                    "cannot read the stop resumes of session `{}`: {error}; the agent stops without running the stop hooks (fail closed)",
                    ctx.session_id()
                );
                let mut outcome = Fold::new(event).finish();
                outcome
                    .diagnostics
                    .push(Diagnostic::SessionStore { message });
                return Decided::new(StopDecision::Stop, outcome);
            }
        };
        let loop_count = counted.max(reported);
        let event = with_loop_count(event, loop_count);
        if let Some(capped) = self.capped(event, loop_count) {
            return capped;
        }
        let mut outcome = self.fold(ctx, event).await;
        let decision = stop_decision(outcome.decision.take(), event.kind());
        let decision = match self
            .count_resume(ctx, agent, counted, loop_count, decision)
            .await
        {
            Ok(decision) => decision,
            Err(error) => {
                let message = format!(
                    "cannot count a stop resume of session `{}`: {error}; the agent stops instead (fail closed)",
                    ctx.session_id()
                );
                outcome
                    .diagnostics
                    .push(Diagnostic::SessionStore { message });
                StopDecision::Stop
            }
        };
        Decided::new(decision, outcome)
    }

    /// The decision of a stop `event` after `resumes` resumes in this user
    /// turn, when that is at or over [`HookStack::stop_cap`]: `Capped`, with
    /// a [`Diagnostic::StopCapped`], and no hook consulted (a stop hook is
    /// not spawned once the cap is reached). `None` below the cap.
    fn capped(&self, event: StepEvent<'_>, resumes: u32) -> Option<Decided<StopDecision>> {
        let cap = self.stop_cap();
        if resumes < cap {
            return None;
        }
        let diagnostic = Diagnostic::StopCapped { cap, resumes };
        let decision = StopDecision::Capped {
            reason: diagnostic.to_string().into(),
            cap,
            resumes,
        };
        let mut outcome = Fold::new(event).finish();
        outcome.diagnostics.push(diagnostic);
        Some(Decided::new(decision, outcome))
    }

    /// A `Resume` (below the cap: [`HookStack::capped`] answered at or over
    /// it without consulting the hooks) is counted for `agent` (`""`: the
    /// agent itself): the count becomes `resumes + 1` (`counted`: what the
    /// session store held, when the stack has one).
    async fn count_resume(
        &self,
        ctx: &HookContext,
        agent: &str,
        counted: u32,
        resumes: u32,
        decision: StopDecision,
    ) -> Result<StopDecision, StoreError> {
        if let StopDecision::Resume { .. } = decision {
            match self.session_store() {
                None => ctx.update::<StopResumes, ()>(|counts| {
                    counts.0.insert(agent.into(), resumes + 1);
                }),
                Some(store) => {
                    let by = u64::from(resumes + 1 - counted);
                    let name = stop_resumes_counter(agent);
                    store.increment(ctx.session_id(), &name, by).await?;
                }
            }
        }
        Ok(decision)
    }

    /// How many times hooks resumed `agent` in this user turn: in the
    /// session store when the stack has one, else in the run's scratchpad
    /// (no allocation).
    async fn resumes_so_far(&self, ctx: &HookContext, agent: &str) -> Result<u32, StoreError> {
        let Some(store) = self.session_store() else {
            return Ok(ctx
                .scratchpad()
                .with::<StopResumes, _>(|counts| counts.and_then(|c| c.0.get(agent).copied()))
                .unwrap_or(0));
        };
        let name = stop_resumes_counter(agent);
        let count = store.counter(ctx.session_id(), &name).await?;
        Ok(u32::try_from(count).unwrap_or(u32::MAX))
    }

    /// A new user turn: the stop-resume counts of the agent and its
    /// subagents go back to 0; a store that fails is reported.
    pub(super) async fn reset_stop_resumes(&self, ctx: &HookContext) -> Option<Diagnostic> {
        let Some(store) = self.session_store() else {
            ctx.scratchpad().remove::<StopResumes>();
            return None;
        };
        let error = store.reset(ctx.session_id(), STOP_RESUMES).await.err()?;
        let message = format!(
            "cannot reset the stop resumes of session `{}` for the new user turn: {error}",
            ctx.session_id()
        );
        Some(Diagnostic::SessionStore { message })
    }

    /// Folds a `subagent_stop` event: as [`HookStack::stop`], for the
    /// subagent `agent_id` of type `agent_type`, whose resumes are counted
    /// on their own (`agent_id` must not be empty).
    ///
    /// # Cancel safety
    ///
    /// As [`HookStack::fold`].
    pub async fn subagent_stop(
        &self,
        ctx: &HookContext,
        agent_id: &str,
        agent_type: &str,
        loop_count: u32,
        text: &str,
    ) -> Decided<StopDecision> {
        let event = StepEvent::SubagentStop {
            agent_id,
            agent_type,
            loop_count,
            text,
            agent_transcript_path: "",
            background_tasks: &Value::Null,
            session_crons: &Value::Null,
        };
        self.stop_event(ctx, event).await
    }
}

/// Resumes granted in the current user turn, per agent (`""`: the agent
/// itself, else a subagent's id); kept in the run's scratchpad.
#[derive(Debug, Default)]
struct StopResumes(std::collections::BTreeMap<Box<str>, u32>);

/// `event` (a `stop` or `subagent_stop`) with its `loop_count` set to
/// `loop_count`.
fn with_loop_count(event: StepEvent<'_>, loop_count: u32) -> StepEvent<'_> {
    match event {
        StepEvent::Stop {
            text,
            background_tasks,
            session_crons,
            ..
        } => StepEvent::Stop {
            loop_count,
            text,
            background_tasks,
            session_crons,
        },
        StepEvent::SubagentStop {
            agent_id,
            agent_type,
            text,
            agent_transcript_path,
            background_tasks,
            session_crons,
            ..
        } => StepEvent::SubagentStop {
            agent_id,
            agent_type,
            loop_count,
            text,
            agent_transcript_path,
            background_tasks,
            session_crons,
        },
        other => other,
    }
}

/// The stop decision of a `stop` or `subagent_stop` fold.
fn stop_decision(decision: Option<Flow>, phase: Phase) -> StopDecision {
    match decision {
        None => StopDecision::Stop,
        Some(Flow::Resume { reason }) => StopDecision::Resume { reason },
        Some(Flow::Terminate { reason }) => StopDecision::Terminate { reason },
        Some(other) => StopDecision::Terminate {
            reason: unexpected(other, phase),
        },
    }
}
