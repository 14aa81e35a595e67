//! The driver method of the `before_model_select` event: a gate on the
//! model the agent switches to, which hooks may also choose.

use std::borrow::Cow;

use hooks_plan::Phase;
use serde_json::Value;

use super::{Decided, unexpected};
use crate::core::context::HookContext;
use crate::core::event::StepEvent;
use crate::core::flow::{Flow, Text};
use crate::core::stack::HookStack;

/// What to do with a model selection ([`HookStack::before_model_select`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelDecision<'a> {
    /// Use `model`: the selection's `to` (borrowed) when no hook chose
    /// another, else the last model a hook chose, in declared order.
    Select {
        /// The model to use.
        model: Cow<'a, str>,
    },
    /// Do not switch: keep the model in use (the selection's `from`); show
    /// `reason` to the user (or, inside an agent that cannot keep its
    /// previous model, stop with it).
    Block {
        /// Why.
        reason: Text,
    },
    /// End the run.
    Terminate {
        /// Why.
        reason: Text,
    },
}

impl ModelDecision<'_> {
    /// The decision's name: `select`, `block` or `terminate`.
    pub const fn label(&self) -> &'static str {
        match self {
            ModelDecision::Select { .. } => "select",
            ModelDecision::Block { .. } => "block",
            ModelDecision::Terminate { .. } => "terminate",
        }
    }
}

impl HookStack {
    /// Folds a `before_model_select` event for `selection`, a JSON object
    /// `{"from": ..., "to": ..., "source": ...}` (built with
    /// [`model_selection`](crate::model_selection); other keys the agent
    /// reports pass through to the hooks).
    ///
    /// Hooks run in declared order and each sees the selection as chosen
    /// by the hooks before it (`to` replaced by a
    /// [`Flow::SelectModel`]); a `Skip` (block) stops the fold and wins
    /// over any choice made before it, as does a `Terminate`.
    ///
    /// # Cancel safety
    ///
    /// As [`HookStack::fold`].
    pub async fn before_model_select<'a>(
        &self,
        ctx: &HookContext,
        selection: &'a Value,
    ) -> Decided<ModelDecision<'a>> {
        let event = StepEvent::BeforeModelSelect { selection };
        let mut outcome = self.fold(ctx, event).await;
        let decision = match outcome.decision.take() {
            Some(Flow::Skip { reason }) => ModelDecision::Block { reason },
            Some(Flow::Terminate { reason }) => ModelDecision::Terminate { reason },
            Some(other) => ModelDecision::Terminate {
                reason: unexpected(other, Phase::BeforeModelSelect),
            },
            None => ModelDecision::Select {
                model: match outcome.model.take() {
                    Some(chosen) => Cow::Owned(chosen.into_owned()),
                    None => Cow::Borrowed(event.selected_model().unwrap_or_default()),
                },
            },
        };
        Decided::new(decision, outcome)
    }
}
