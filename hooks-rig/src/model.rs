//! Model selection: `before_model_select` and `after_model_select` folded
//! in `on_completion_call` (rig's `on_model_select` is synchronous and
//! must not block, so no hook can run there), and the decision handed to
//! rig by `on_model_select` (the crate docs' *Model selection*).

use std::borrow::Cow;
use std::sync::{Arc, Mutex, PoisonError};

use hooks_runtime::AgentHook as _;
use hooks_runtime::{HookContext, ModelDecision, StepEvent, StepEventKind as Phase};
use rig_agent::agent as rig;
use serde_json::{Value, json};

use crate::RigHooks;
use crate::state::{ModelChoice, RunState};

/// The label of the agent's own model (rig's default): given with
/// [`RigHooks::with_model`], else learned at rig's first model selection.
#[derive(Debug, Default)]
pub(crate) struct DefaultModel(Mutex<Option<Arc<str>>>);

impl DefaultModel {
    fn get(&self) -> Option<Arc<str>> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn learn(&self, label: &str) {
        let mut known = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if known.as_deref() != Some(label) {
            *known = Some(Arc::from(label));
        }
    }
}

/// A selection as the hooks see it: `{"from", "to", "source": "call"}`,
/// `null` for what the adapter does not know yet.
fn selection(from: Option<&str>, to: Option<&str>) -> Value {
    json!({"from": from, "to": to, "source": "call"})
}

impl RigHooks {
    /// Names the agent's own model: the label rig registered
    /// `AgentBuilder::new`'s model under (rig's default model), so that
    /// `before_model_select` hooks see it as the selection's `from` and
    /// `to` from the first model call on. Without it the adapter learns
    /// the label when rig first selects a model; until then (the first
    /// call) `from` and `to` are `null` unless a hook chose a model.
    #[must_use]
    pub fn with_model(self, label: impl Into<Arc<str>>) -> Self {
        self.default_model.learn(&label.into());
        self
    }

    /// Whether the coming model call's selection concerns our hooks: a
    /// selection phase has hooks, or a `before_completion` patch chose the
    /// model (`requested`).
    pub(crate) fn selects(&self, requested: Option<&str>) -> bool {
        requested.is_some()
            || self.stack.observes(Phase::BeforeModelSelect)
            || self.stack.observes(Phase::AfterModelSelect)
    }

    /// Folds `before_model_select` for the coming model call and, when
    /// its model differs from the previous call's, `after_model_select`
    /// (its context goes with this call's request); leaves the choice
    /// for [`RigHooks::model_action`]. `requested`: the model a
    /// `before_completion` patch set. Returns the reason when a hook
    /// ended the run.
    pub(crate) async fn select_model(
        &self,
        run: &RunState,
        turn: &HookContext,
        requested: Option<&str>,
    ) -> Option<String> {
        let default = self.default_model.get();
        let from = run.previous_model().or_else(|| default.clone());
        let candidate = requested.map(Arc::from).or(default);
        let mut choice = requested.map(|m| ModelChoice::Select(Arc::from(m)));
        if self.stack.observes(Phase::BeforeModelSelect) {
            let before = selection(from.as_deref(), candidate.as_deref());
            let decided = self.stack.before_model_select(turn, &before).await;
            let label = match &decided.decision {
                ModelDecision::Select {
                    model: Cow::Owned(model),
                } => {
                    choice = Some(ModelChoice::Select(Arc::from(model.as_str())));
                    format!("select: {model}")
                }
                ModelDecision::Select { .. } => String::from("continue"),
                ModelDecision::Block { reason } => {
                    choice = Some(ModelChoice::Keep);
                    format!("keep the current model: {reason}")
                }
                ModelDecision::Terminate { reason } => {
                    let reason = reason.to_string();
                    self.report(
                        Phase::BeforeModelSelect,
                        None,
                        &format!("stop: {reason}"),
                        &decided,
                    );
                    run.set_choice(None);
                    return Some(reason);
                }
            };
            self.report(Phase::BeforeModelSelect, None, &label, &decided);
        }
        let to = match &choice {
            Some(ModelChoice::Select(model)) => Some(Arc::clone(model)),
            Some(ModelChoice::Keep) => from.clone(),
            None => candidate,
        };
        run.set_choice(choice);
        let switched = to.as_ref().is_some_and(|to| from.as_ref() != Some(to));
        if switched && self.stack.observes(Phase::AfterModelSelect) {
            let after = selection(from.as_deref(), to.as_deref());
            let event = StepEvent::AfterModelSelect { selection: &after };
            return self.observe(run, turn, event).await;
        }
        None
    }

    /// What `on_model_select` tells rig: the model our hooks chose (a
    /// `select_model`, a patch's `model`), the model in use for a block
    /// (the previous call's, else rig's default), else `Continue`. Records
    /// the model the call goes to, as far as the adapter knows, for the
    /// next call's `from`.
    pub(crate) fn model_action(
        &self,
        run: &RunState,
        event: &rig::ModelSelection<'_>,
    ) -> rig::ModelSelectionAction {
        self.default_model.learn(event.default_model.as_str());
        let selected = event.selected_model.as_str();
        let target = match run.take_choice() {
            Some(ModelChoice::Select(model)) => Some(model),
            Some(ModelChoice::Keep) => Some(Arc::from(
                event.previous_model.unwrap_or(event.default_model).as_str(),
            )),
            None => None,
        };
        match target.filter(|model| &**model != selected) {
            Some(model) => {
                run.set_previous_model(Arc::clone(&model));
                rig::ModelSelectionAction::select(&*model)
            }
            None => {
                run.set_previous_model(Arc::from(selected));
                rig::ModelSelectionAction::continue_run()
            }
        }
    }
}
