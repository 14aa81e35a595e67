//! Rewrites checked against the tool catalogue at run time: after a
//! `rewrite` (declarative, or a shell hook's `rewrite_args` /
//! `rewrite_result`), the new arguments must fit the tool's input schema
//! and a new result its result schema, or the rewrite is an
//! `invalid_output` failure under the hook's failure policy instead of a
//! malformed tool call. The schemas are the plan's
//! ([`Plan::tool_schemas`](hooks_schema::plan::Plan::tool_schemas)),
//! compiled into validators once per table, when first needed.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use hooks_schema::Phase;
use hooks_schema::plan::Plan;
use serde_json::Value;

/// A compiled JSON Schema a rewritten value must fit (shared, cheap to
/// clone); what a [`ShellHookSpec`](crate::ShellHookSpec) checks its
/// hook's rewrites against.
#[derive(Clone)]
pub struct RewriteSchema {
    tool: Arc<str>,
    what: &'static str,
    schema: Arc<Value>,
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

/// A table's validators by tool: input schemas and result schemas.
#[derive(Debug, Default)]
pub(crate) struct Schemas {
    input: BTreeMap<Box<str>, RewriteSchema>,
    result: BTreeMap<Box<str>, RewriteSchema>,
}

impl Schemas {
    /// Compiles `plan`'s catalogue schemas (a schema that does not compile
    /// was refused when the config was checked, so it is skipped here).
    pub(crate) fn of(plan: &Plan) -> Schemas {
        let mut schemas = Schemas::default();
        for tool in plan.tool_schemas.iter() {
            let compile = |text: &str, what| {
                let value: Value = serde_json::from_str(text).ok()?;
                let validator = jsonschema::validator_for(&value).ok()?;
                Some(RewriteSchema {
                    tool: Arc::from(&*tool.tool),
                    what,
                    schema: Arc::new(value),
                    validator: Arc::new(validator),
                })
            };
            if let Some(s) = compile(&tool.input, "input") {
                schemas.input.insert(tool.tool.as_ref().into(), s);
            }
            if let Some(s) = tool.result.as_deref().and_then(|r| compile(r, "result")) {
                schemas.result.insert(tool.tool.as_ref().into(), s);
            }
        }
        schemas
    }

    /// The schema a rewrite of `tool` on `phase` must fit: the input
    /// schema on `before_tool` / `permission_request`, the result schema on
    /// `after_tool`; `None` for other phases and tools the catalogue lacks.
    pub(crate) fn for_rewrite(&self, phase: Phase, tool: &str) -> Option<&RewriteSchema> {
        match phase {
            Phase::BeforeTool | Phase::PermissionRequest => self.input.get(tool),
            Phase::AfterTool => self.result.get(tool),
            _ => None,
        }
    }
}
