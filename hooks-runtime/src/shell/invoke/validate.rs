//! [`Call::check_rewrite`]: a rewrite the hook's output asked for must fit
//! the tool catalogue's schema ([`ShellHookSpec::rewrite_schema`](super::ShellHookSpec::rewrite_schema)),
//! and the compiled schema itself, [`RewriteSchema`].

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

impl RewriteSchema {
    /// Whether `value` fits.
    ///
    /// # Errors
    ///
    /// The first violation, in words (`the rewritten arguments of `bash`
    /// do not fit its input schema at `/timeout`: "thirty" is not of type
    /// "integer"`).
    #[cfg(feature = "rewrite-check")]
    pub fn check(&self, value: &Value) -> Result<(), String> {
        match self.validator.iter_errors(value).next() {
            None => Ok(()),
            Some(e) => Err(format!(
                "the rewritten {} of `{}` do not fit its {} schema at `{}`: {e}",
                if self.what == "input" {
                    "arguments"
                } else {
                    "result"
                },
                self.tool,
                self.what,
                e.instance_path()
            )),
        }
    }
}

impl RewriteSchema {
    /// Without the `rewrite-check` feature no schema is compiled: a table
    /// built by `hooks!` or `Table::load` has no catalogue then (both refuse
    /// one without the feature).
    #[cfg(not(feature = "rewrite-check"))]
    pub fn check(&self, value: &Value) -> Result<(), String> {
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
    /// A decided `rewrite_args` / `rewrite_result` whose value does not fit
    /// the spec's rewrite schema becomes an `invalid_output` failure (the
    /// failure policy applies next); anything else is returned unchanged.
    pub(super) fn check_rewrite(&self, outcome: Outcome) -> Outcome {
        let (Some(schema), Outcome::Decided(decision)) = (self.tools.rewrite, &outcome) else {
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
