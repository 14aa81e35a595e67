//! The `policy` action: a Rego policy evaluated in process ([`Policy`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The pattern of a policy query: `data.` followed by the package path and
/// the rule, each a Rego identifier (`data.agent.tools.decision`).
pub const POLICY_QUERY_PATTERN: &str = r"^data(\.[A-Za-z_][A-Za-z0-9_]*){2,}$";

/// Evaluate a Rego policy in process (with `regorus`) on the hook payload
/// as `input`. The query's value is read like a native `run` hook's stdout
/// object (`{"decision": "block", "reason": "..."}`, `rewrite_args`,
/// `context_items`, ...); an undefined value means `continue`. The files
/// are loaded and compiled when the config is checked, so a Rego syntax
/// error is a build error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// The Rego files of the policy, relative to the workspace root (like a
    /// `run` hook's scripts); all are loaded into one engine.
    #[schemars(
        length(min = 1),
        inner(length(min = 1)),
        extend("examples" = [["policies/tools.rego"]])
    )]
    pub rego: Vec<String>,
    /// The rule whose value decides: `data.<package>.<rule>`.
    #[schemars(
        regex(pattern = POLICY_QUERY_PATTERN),
        example = "data.agent.tools.decision"
    )]
    pub query: String,
    /// Deadline of one evaluation, e.g. `200ms`, `2s` (bounded
    /// `1ms`..`10m`), on the agent's clock: a policy still evaluating then
    /// is `timed_out` under the hook's failure policy. Default:
    /// `defaults.timeout`, else `30s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = super::Defaults::default_timeout_annotation(), "examples" = ["500ms"]))]
    pub timeout: Option<crate::duration::Duration>,
}

impl Policy {
    /// The package path of [`Policy::query`] with the `data.` root
    /// (`data.agent.tools` for `data.agent.tools.decision`): everything
    /// before the last segment.
    pub fn query_package(&self) -> &str {
        self.query
            .rsplit_once('.')
            .map_or(self.query.as_str(), |(package, _)| package)
    }
}
