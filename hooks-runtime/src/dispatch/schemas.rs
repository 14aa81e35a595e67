//! Rewrites checked against the tool catalogue at run time: after a
//! `rewrite` (declarative, or a shell hook's `rewrite_args` /
//! `rewrite_result`), the new arguments must fit the tool's input schema
//! and a new result its result schema, or the rewrite is an
//! `invalid_output` failure under the hook's failure policy instead of a
//! malformed tool call. The schemas are the plan's
//! ([`Plan::tool_schemas`](hooks_plan::Plan::tool_schemas)),
//! compiled into validators once per table, when first needed.

use std::collections::BTreeMap;

use hooks_plan::Phase;
use hooks_plan::Plan;

pub use crate::shell::invoke::{RewriteMismatch, RewriteSchema};

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
            let compile = |text: &str, what| RewriteSchema::compile(&tool.tool, what, text);
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
