//! [`Call::check_rewrite`]: a rewrite the hook's output asked for must fit
//! the tool catalogue's schema ([`ShellHookSpec::rewrite_schema`](super::ShellHookSpec::rewrite_schema)).

use super::call::{Call, Outcome};
use crate::{FailureKind, Flow};

impl Call<'_> {
    /// A decided `rewrite_args` / `rewrite_result` whose value does not fit
    /// the spec's rewrite schema becomes an `invalid_output` failure (the
    /// failure policy applies next); anything else is returned unchanged.
    pub(super) fn check_rewrite(&self, outcome: Outcome) -> Outcome {
        let (Some(schema), Outcome::Decided(decision)) = (&self.spec.rewrite_schema, &outcome)
        else {
            return outcome;
        };
        let (Flow::RewriteArgs(value) | Flow::RewriteResult(value)) = &decision.flow else {
            return outcome;
        };
        match schema.check(value) {
            Ok(()) => outcome,
            Err(detail) => Outcome::Failed(FailureKind::InvalidOutput, detail),
        }
    }
}
