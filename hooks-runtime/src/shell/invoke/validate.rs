//! [`Call::check_rewrite`]: a rewrite the hook's output asked for must fit
//! the tool catalogue's schema ([`ShellHookSpec::rewrite_schema`](super::ShellHookSpec::rewrite_schema)),
//! and the compiled schema itself, [`RewriteSchema`], with what it refuses,
//! [`RewriteMismatch`].

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use super::call::{Call, Outcome};
use crate::{FailureKind, Flow};

/// A compiled JSON Schema a rewritten value must fit (shared, cheap to
/// clone); what a [`ShellHookSpec`](crate::ShellHookSpec) checks its
/// hook's rewrites against.
#[derive(Clone)]
pub struct RewriteSchema {
    tool: Arc<str>,
    what: &'static str,
    schema: Arc<Value>,
    #[cfg(feature = "rewrite-check")]
    validator: Arc<jsonschema::Validator>,
}

impl PartialEq for RewriteSchema {
    /// The same tool's same schema (the validator follows from it).
    fn eq(&self, other: &Self) -> bool {
        self.tool == other.tool && self.what == other.what && self.schema == other.schema
    }
}

impl fmt::Debug for RewriteSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RewriteSchema")
            .field("tool", &self.tool)
            .field("what", &self.what)
            .finish_non_exhaustive()
    }
}

/// A rewritten value that does not fit its tool's catalogue schema: the
/// first violation ([`RewriteSchema::check`]). Shown in words: ``the
/// rewritten arguments of `bash` do not fit its input schema at
/// `/timeout`: "thirty" is not of type "integer"``.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the rewritten {} of `{tool}` do not fit its {what} schema at `{instance_path}`: {message}",
    rewritten(what)
)]
pub struct RewriteMismatch {
    /// The tool whose schema refused the value.
    pub tool: String,
    /// Which schema: `input` (a rewrite of the arguments) or `result`.
    pub what: &'static str,
    /// The JSON pointer of the offending part of the value (`""`: all of it).
    pub instance_path: String,
    /// The validator's message for it.
    pub message: String,
}

/// What a rewrite checked against the `what` schema rewrote.
fn rewritten(what: &str) -> &'static str {
    if what == "input" {
        "arguments"
    } else {
        "result"
    }
}

impl RewriteSchema {
    /// Whether `value` fits.
    ///
    /// # Errors
    ///
    /// [`RewriteMismatch`] for the first violation.
    #[cfg(feature = "rewrite-check")]
    pub fn check(&self, value: &Value) -> Result<(), RewriteMismatch> {
        match self.validator.iter_errors(value).next() {
            None => Ok(()),
            Some(e) => Err(RewriteMismatch {
                tool: self.tool.to_string(),
                what: self.what,
                instance_path: e.instance_path().to_string(),
                message: e.to_string(),
            }),
        }
    }
}

impl RewriteSchema {
    /// Without the `rewrite-check` feature no schema is compiled: a table
    /// built by `hooks!` or `Table::load` has no catalogue then (both refuse
    /// one without the feature).
    #[cfg(not(feature = "rewrite-check"))]
    pub fn check(&self, value: &Value) -> Result<(), RewriteMismatch> {
        let _ = value;
        Ok(())
    }

    /// Without the `rewrite-check` feature: `None`, so no rewrite is
    /// checked (and none of the above is ever called).
    #[cfg(not(feature = "rewrite-check"))]
    pub(crate) fn compile(_tool: &str, _what: &'static str, _text: &str) -> Option<RewriteSchema> {
        None
    }

    /// The validator of `tool`'s `what` (`input` or `result`) schema,
    /// `text` (JSON); `None` when it is not JSON or does not compile (the
    /// config check refused such a schema already).
    #[cfg(feature = "rewrite-check")]
    pub(crate) fn compile(tool: &str, what: &'static str, text: &str) -> Option<RewriteSchema> {
        let value: Value = serde_json::from_str(text).ok()?;
        let validator = jsonschema::validator_for(&value).ok()?;
        Some(RewriteSchema {
            tool: Arc::from(tool),
            what,
            schema: Arc::new(value),
            validator: Arc::new(validator),
        })
    }
}

impl Call<'_> {
    /// In a parallel group ([`Call::group`]), a decided flow that chains
    /// (a rewrite of the arguments, result or prompt, see
    /// [`FlowKind::chains`](hooks_plan::FlowKind::chains)), or new
    /// arguments beside a grant, becomes an `invalid_output` failure (the
    /// failure policy applies next): the hooks started with it cannot see
    /// the value. Anything else is returned unchanged.
    pub(super) fn refuse_chaining(&self, outcome: Outcome) -> Outcome {
        let Outcome::Decided(decision) = &outcome else {
            return outcome;
        };
        if !self.group {
            return outcome;
        }
        let kind = decision.flow.kind();
        let what = if kind.chains() {
            kind.as_str()
        } else if decision.args.is_some() {
            "updated arguments"
        } else {
            return outcome;
        };
        Outcome::Failed(
            FailureKind::InvalidOutput,
            format!(
                "hook `{}` is `parallel: true` and cannot answer with {what}: \
                 the hooks run at once with it would not see the new value",
                self.spec.id
            ),
        )
    }

    /// In a background invocation ([`Call::background`]), a decided flow
    /// other than context ([`FlowKind::background`](hooks_plan::FlowKind::background):
    /// `continue`, `inject_context`), new arguments or environment
    /// variables, becomes an
    /// `invalid_output` failure (the failure policy applies next): the
    /// agent went on without waiting for the hook, so a decision on the
    /// event that started it cannot be applied. Anything else is returned
    /// unchanged.
    pub(super) fn refuse_decision(&self, outcome: Outcome) -> Outcome {
        let Outcome::Decided(decision) = &outcome else {
            return outcome;
        };
        if !self.background {
            return outcome;
        }
        let kind = decision.flow.kind();
        let what = if !kind.background() {
            kind.as_str()
        } else if decision.args.is_some() {
            "updated arguments"
        } else if !decision.env.is_empty() {
            "environment variables"
        } else {
            return outcome;
        };
        Outcome::Failed(
            FailureKind::InvalidOutput,
            format!(
                "hook `{}` is `async: true` and cannot answer with {what}: \
                 the agent did not wait for it; only context can be delivered later",
                self.spec.id
            ),
        )
    }

    /// A decided `rewrite_args` / `rewrite_result` whose value does not fit
    /// the spec's rewrite schema becomes an `invalid_output` failure (the
    /// failure policy applies next); anything else is returned unchanged.
    pub(super) fn check_rewrite(&self, outcome: Outcome) -> Outcome {
        let (Some(schema), Outcome::Decided(decision)) = (self.tools.rewrite, &outcome) else {
            return outcome;
        };
        let value = match (&decision.flow, &decision.args) {
            (Flow::RewriteArgs(value) | Flow::RewriteResult(value), _) | (_, Some(value)) => value,
            _ => return outcome,
        };
        match schema.check(value) {
            Ok(()) => outcome,
            Err(mismatch) => Outcome::Failed(FailureKind::InvalidOutput, mismatch.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_misfit_names_the_tool_the_schema_and_the_place() {
        let schema = r#"{"type": "object", "properties": {"timeout": {"type": "integer"}}}"#;
        let input = RewriteSchema::compile("bash", "input", schema).expect("compiles");
        assert_eq!(input.check(&json!({"timeout": 30})), Ok(()));
        let misfit = input.check(&json!({"timeout": "thirty"})).unwrap_err();
        assert_eq!(
            misfit,
            RewriteMismatch {
                tool: "bash".into(),
                what: "input",
                instance_path: "/timeout".into(),
                message: r#""thirty" is not of type "integer""#.into(),
            }
        );
        assert_eq!(
            misfit.to_string(),
            r#"the rewritten arguments of `bash` do not fit its input schema at `/timeout`: "thirty" is not of type "integer""#
        );
        let result =
            RewriteSchema::compile("bash", "result", r#"{"type": "string"}"#).expect("compiles");
        let misfit = result.check(&json!(1)).unwrap_err();
        assert_eq!(
            misfit.to_string(),
            r#"the rewritten result of `bash` do not fit its result schema at ``: 1 is not of type "string""#
        );
    }
}
