//! The native output protocol: stdout is empty, `{}` or one
//! [`HookOutput`] object (schema: `schema/output.schema.json`).
//!
//! Which field asks for which flow is [`FlowKind::native_output`]; which
//! flows a phase honours is the capability table
//! ([`Phase::capabilities`](hooks_plan::Phase::capabilities)), so the
//! table below is derived, not a second copy:
//!
//! | stdout field | phases | flow |
//! | --- | --- | --- |
//! | none, `{}`, `decision: continue` | all | `Continue` |
//! | `decision: block` + `reason` | `before_tool`, `permission_request`, `user_prompt`, `invalid_tool_call`, `before_compaction`, `before_model_select` | `Skip {reason}` |
//! | `decision: terminate` + `reason` | all | `Terminate {reason}` |
//! | `decision: resume` + `reason` | `stop` | `Resume {reason}` |
//! | `decision: fail` | `invalid_tool_call` | `Fail` |
//! | `decision: retry` + `feedback` | `invalid_tool_call` | `Retry {feedback}` |
//! | `decision: repair` + `tool_name` (+ `rewrite_args`, the corrected arguments) | `invalid_tool_call` | `Repair {tool_name, args}` |
//! | `rewrite_args` (an object) | `before_tool` | `RewriteArgs` |
//! | `rewrite_result` | `after_tool` | `RewriteResult` |
//! | `rewrite_prompt` | `user_prompt` | `RewritePrompt` |
//! | `patch` | `before_completion` | `PatchRequest` |
//! | `context_items` | after-phases | `InjectContext` |
//! | `env` (beside any of the above) | `run_start` | `SetEnv` |
//! | `model` | `before_model_select` | `SelectModel` |
//!
//! Anything else — an unknown field, a field on a phase not listed for it,
//! two of the change fields together, a change field with a decision other
//! than `continue`, a missing or superfluous `reason` — is an
//! `invalid_output` failure, never silently ignored.

use hooks_plan::{FlowKind, HookOutput, OutputDecision, Phase};

use serde_json::{Map, Value};

use super::{
    ProtocolDecision, ProtocolFailure, exit2_flow, frame_json, json_type, nonzero_exit, too_large,
};
use crate::{Captured, ContextItem, Flow, RequestPatch};

/// Reads a native hook process's exit code, stdout and stderr into a
/// [`ProtocolDecision`] flow: exit 0 reads stdout ([`read_output`]), exit 2
/// is a deny with stderr as its reason.
///
/// `exit_code` is the hook's exit code; `hook_id` names the hook in
/// generated reasons.
///
/// # Errors
///
/// [`ProtocolFailure`]: `output_too_large` when stdout was cut at its cap
/// (exit 0 only), `nonzero_exit` for exit codes other than 0 and 2,
/// `invalid_output` for framing errors and misplaced fields.
pub(crate) fn parse(
    phase: Phase,
    exit_code: i32,
    stdout: &Captured,
    stderr: &Captured,
    hook_id: &str,
) -> Result<ProtocolDecision, ProtocolFailure> {
    match exit_code {
        0 => {}
        2 => return Ok(exit2_flow(phase, None, stderr, hook_id)),
        code => return Err(nonzero_exit(code, stderr)),
    }
    read_output(phase, stdout)
}

/// Reads an output document (a process's stdout after exit 0, an `http`
/// hook's response body): empty, or one framed JSON object
/// ([`frame_json`]) read by [`read_value`].
///
/// # Errors
///
/// [`ProtocolFailure`]: `output_too_large` when the output was cut at its
/// cap, `invalid_output` for framing errors and misplaced fields.
pub(crate) fn read_output(
    phase: Phase,
    output: &Captured,
) -> Result<ProtocolDecision, ProtocolFailure> {
    if output.truncated {
        return Err(too_large(output));
    }
    read_object(phase, frame_json(&output.bytes)?)
}

/// Reads a JSON value (a `policy` hook's value, OPA's `result`): `None`
/// (undefined) is `continue`, an object is read as an output object.
///
/// # Errors
///
/// [`ProtocolFailure`] `invalid_output` when the value is not an object or
/// has misplaced fields.
#[cfg(any(feature = "http", feature = "policy"))]
pub(crate) fn read_value(
    phase: Phase,
    value: Option<Value>,
) -> Result<ProtocolDecision, ProtocolFailure> {
    match value {
        None => Ok(ProtocolDecision::default()),
        Some(Value::Object(map)) => read_object(phase, Some(map)),
        Some(other) => Err(ProtocolFailure::invalid(
            format!(
                "the value must be a JSON object, found {}",
                json_type(&other)
            ),
            None,
        )),
    }
}

/// Reads an output object (`None`: no output, `continue`).
fn read_object(
    phase: Phase,
    map: Option<Map<String, Value>>,
) -> Result<ProtocolDecision, ProtocolFailure> {
    let Some(map) = map else {
        return Ok(ProtocolDecision::default());
    };
    let mut output: HookOutput = serde_json::from_value(Value::Object(map))
        .map_err(|e| ProtocolFailure::invalid(format!("invalid output object: {e}"), None))?;
    let env = std::mem::take(&mut output.env);
    let flow = to_flow(phase, output).map_err(|d| ProtocolFailure::invalid(d, None))?;
    let mut decision = ProtocolDecision::flow(flow);
    decision.env = read_env(phase, env).map_err(|d| ProtocolFailure::invalid(d, None))?;
    Ok(decision)
}

/// The `env` field of an output on `phase`: allowed where `SetEnv` is
/// honoured, with names a shell accepts.
///
/// # Errors
///
/// What is wrong with the field, for an `invalid_output` failure.
pub(crate) fn read_env(
    phase: Phase,
    env: std::collections::BTreeMap<String, String>,
) -> Result<crate::EnvVars, String> {
    if env.is_empty() {
        return Ok(env);
    }
    if !FlowKind::SetEnv.honoured_on(phase) {
        return Err(format!(
            "`env` is not allowed on `{phase}`; only on `run_start`"
        ));
    }
    if let Some(bad) = env.keys().find(|k| !hooks_plan::script::valid_env_name(k)) {
        return Err(format!(
            "`env` name `{bad}` is not a variable name (letters, digits and `_`, not starting with a digit)"
        ));
    }
    Ok(env)
}

/// Maps a well-formed output object to a flow for `phase`, checking the
/// table in this module's documentation.
///
/// # Errors
///
/// The rustc-style description of the first misplaced field.
pub(crate) fn to_flow(phase: Phase, out: HookOutput) -> Result<Flow, String> {
    let decision = out.decision.unwrap_or(OutputDecision::Continue);
    // The change fields, each named by the flow it asks for.
    let present = [
        (FlowKind::RewriteArgs, out.rewrite_args.is_some()),
        (FlowKind::RewriteResult, out.rewrite_result.is_some()),
        (FlowKind::RewritePrompt, out.rewrite_prompt.is_some()),
        (FlowKind::PatchRequest, out.patch.is_some()),
        (FlowKind::InjectContext, !out.context_items.is_empty()),
        (FlowKind::SelectModel, out.model.is_some()),
    ];
    let changes: Vec<&str> = present
        .iter()
        .filter(|(_, here)| *here)
        .map(|(kind, _)| kind.native_output())
        .collect();
    if changes.len() > 1 {
        let all: Vec<String> = present
            .iter()
            .map(|(kind, _)| format!("`{}`", kind.native_output()))
            .collect();
        return Err(format!(
            "`{}` and `{}` cannot be combined: give at most one of {}",
            changes[0],
            changes[1],
            all.join(", ")
        ));
    }
    // `repair` may carry the corrected arguments in `rewrite_args`.
    let repaired_args = decision == OutputDecision::Repair && changes == ["rewrite_args"];
    if let Some(change) = changes.first()
        && decision != OutputDecision::Continue
        && !repaired_args
    {
        return Err(format!(
            "`{change}` goes only with decision `continue`, not `{}`",
            decision.as_str()
        ));
    }
    let needs_reason = matches!(
        decision,
        OutputDecision::Block
            | OutputDecision::Terminate
            | OutputDecision::Resume
            | OutputDecision::Ask
    );
    let reason = match (&out.reason, needs_reason) {
        (Some(r), true) => r.clone(),
        (None, true) => {
            return Err(format!("decision `{}` needs a `reason`", decision.as_str()));
        }
        (Some(_), false) if decision != OutputDecision::Fail => {
            return Err(format!(
                "`reason` goes only with decisions `block`, `terminate`, `resume`, `ask` and `fail`, not `{}`",
                decision.as_str()
            ));
        }
        _ => String::new(),
    };
    if out.feedback.is_some() != (decision == OutputDecision::Retry) {
        return Err("`feedback` goes with decision `retry`, and `retry` needs it".to_owned());
    }
    if out.tool_name.is_some() != (decision == OutputDecision::Repair) {
        return Err("`tool_name` goes with decision `repair`, and `repair` needs it".to_owned());
    }
    if out
        .tool_name
        .as_deref()
        .is_some_and(|t| t.trim().is_empty() || t.contains('\0'))
    {
        return Err("`tool_name` must name a tool (not empty, no NUL)".to_owned());
    }
    if let Some(args) = out.rewrite_args.as_ref().filter(|v| !v.is_object()) {
        return Err(format!(
            "`rewrite_args` must be a JSON object (the tool's new arguments), found {}",
            json_type(args)
        ));
    }
    let flow = match decision {
        OutputDecision::Continue => {
            if let Some(v) = out.rewrite_args {
                Flow::RewriteArgs(v)
            } else if let Some(v) = out.rewrite_result {
                Flow::RewriteResult(v)
            } else if let Some(v) = out.rewrite_prompt {
                Flow::RewritePrompt(v.into())
            } else if let Some(p) = out.patch {
                let value = serde_json::to_value(&p).map_err(|e| e.to_string())?;
                let patch: RequestPatch =
                    serde_json::from_value(value).map_err(|e| format!("invalid `patch`: {e}"))?;
                Flow::PatchRequest(patch)
            } else if !out.context_items.is_empty() {
                let items = out
                    .context_items
                    .into_iter()
                    .map(|i| ContextItem::user(i.content))
                    .collect::<Vec<_>>();
                Flow::InjectContext(items.into())
            } else if let Some(model) = out.model {
                Flow::SelectModel(model.into())
            } else {
                Flow::Continue
            }
        }
        OutputDecision::Block => Flow::skip(reason),
        OutputDecision::Terminate => Flow::terminate(reason),
        OutputDecision::Resume => Flow::resume(reason),
        OutputDecision::Fail => Flow::Fail,
        OutputDecision::Ask => Flow::ask(reason),
        OutputDecision::Allow => Flow::Allow,
        OutputDecision::Retry => Flow::Retry {
            feedback: out.feedback.unwrap_or_default().into(),
        },
        OutputDecision::Repair => Flow::Repair {
            tool_name: out.tool_name.unwrap_or_default().into(),
            args: out.rewrite_args,
        },
    };
    let kind: FlowKind = flow.kind();
    if !kind.honoured_on(phase) {
        let field = kind.native_output();
        let allowed: Vec<String> = phase
            .capabilities()
            .native_outputs()
            .map(|a| format!("`{a}`"))
            .collect();
        return Err(format!(
            "`{field}` is not allowed on `{phase}`; allowed there: {}",
            allowed.join(", ")
        ));
    }
    Ok(flow)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(json: &str) -> HookOutput {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn decisions_map_to_flows_on_their_phases() {
        assert_eq!(
            to_flow(
                Phase::BeforeTool,
                out(r#"{"decision":"block","reason":"no"}"#)
            )
            .unwrap(),
            Flow::skip("no")
        );
        assert_eq!(
            to_flow(
                Phase::Stop,
                out(r#"{"decision":"resume","reason":"tests"}"#)
            )
            .unwrap(),
            Flow::resume("tests")
        );
        assert_eq!(
            to_flow(
                Phase::AfterTool,
                out(r#"{"context_items":[{"role":"user","content":"c"}]}"#)
            )
            .unwrap(),
            Flow::inject("c")
        );
        assert_eq!(to_flow(Phase::RunEnd, out("{}")).unwrap(), Flow::Continue);
        // An invalid call is repaired with corrected arguments, or skipped.
        assert_eq!(
            to_flow(
                Phase::InvalidToolCall,
                out(r#"{"decision":"repair","tool_name":"read_file","rewrite_args":{"path":"a"}}"#)
            )
            .unwrap(),
            Flow::Repair {
                tool_name: "read_file".into(),
                args: Some(serde_json::json!({"path": "a"})),
            }
        );
        assert_eq!(
            to_flow(
                Phase::InvalidToolCall,
                out(r#"{"decision":"block","reason":"not now"}"#)
            )
            .unwrap(),
            Flow::skip("not now")
        );
        let err = to_flow(
            Phase::InvalidToolCall,
            out(r#"{"decision":"repair","tool_name":"t","rewrite_args":[1]}"#),
        )
        .unwrap_err();
        assert!(err.contains("must be a JSON object"), "{err}");
        // `env` beside context on run_start; a bad name is refused.
        let map = serde_json::from_str(
            r#"{"env":{"API_BASE":"http://x"},"context_items":[{"role":"user","content":"c"}]}"#,
        )
        .unwrap();
        let read = read_object(Phase::RunStart, Some(map)).unwrap();
        assert_eq!(read.flow, Flow::inject("c"));
        assert_eq!(
            read.env.get("API_BASE").map(String::as_str),
            Some("http://x")
        );
        let map = serde_json::from_str(r#"{"env":{"1X":"v"}}"#).unwrap();
        let err = read_object(Phase::RunStart, Some(map)).unwrap_err();
        assert!(err.detail.contains("not a variable name"), "{err:?}");
    }

    #[test]
    fn a_patch_becomes_a_request_patch() {
        let flow = to_flow(
            Phase::BeforeCompletion,
            out(r#"{"patch":{"temperature":0.1,"tool_choice":"none","extra_context":[{"role":"user","content":"x"}]}}"#),
        )
        .unwrap();
        let Flow::PatchRequest(patch) = flow else {
            panic!("{flow:?}")
        };
        assert_eq!(patch.temperature, Some(0.1));
        assert_eq!(patch.extra_context, vec![ContextItem::user("x")]);
        assert!(patch.tool_choice.is_some());
    }

    #[test]
    fn misplaced_fields_are_errors() {
        let err = to_flow(
            Phase::AfterTool,
            out(r#"{"rewrite_result":{},"context_items":[{"role":"user","content":"c"}]}"#),
        )
        .unwrap_err();
        assert_eq!(
            err,
            "`rewrite_result` and `context_items` cannot be combined: give at most one of `rewrite_args`, `rewrite_result`, `rewrite_prompt`, `patch`, `context_items`, `model`"
        );
        let err = to_flow(Phase::AfterTool, out(r#"{"rewrite_args":{}}"#)).unwrap_err();
        assert!(
            err.starts_with("`rewrite_args` is not allowed on `after_tool`"),
            "{err}"
        );
        assert!(err.contains("`rewrite_result`"), "{err}");
        let err = to_flow(
            Phase::PermissionRequest,
            out(r#"{"context_items":[{"role":"user","content":"c"}]}"#),
        )
        .unwrap_err();
        assert!(err.contains("not allowed on `permission_request`"), "{err}");
        let err = to_flow(Phase::BeforeTool, out(r#"{"decision":"block"}"#)).unwrap_err();
        assert_eq!(err, "decision `block` needs a `reason`");
        let err = to_flow(
            Phase::BeforeTool,
            out(r#"{"decision":"block","reason":"x","rewrite_args":{}}"#),
        )
        .unwrap_err();
        assert!(err.contains("goes only with decision `continue`"), "{err}");
        let err = to_flow(Phase::Stop, out(r#"{"decision":"continue","reason":"x"}"#)).unwrap_err();
        assert!(err.contains("`reason` goes only with"), "{err}");
    }

    /// An output object asking for a flow of `kind`.
    fn asking_for(kind: FlowKind) -> &'static str {
        match kind {
            FlowKind::Continue => r#"{"decision":"continue"}"#,
            FlowKind::Terminate => r#"{"decision":"terminate","reason":"r"}"#,
            FlowKind::Skip => r#"{"decision":"block","reason":"r"}"#,
            FlowKind::Resume => r#"{"decision":"resume","reason":"r"}"#,
            FlowKind::Fail => r#"{"decision":"fail"}"#,
            FlowKind::Retry => r#"{"decision":"retry","feedback":"f"}"#,
            FlowKind::Repair => r#"{"decision":"repair","tool_name":"t"}"#,
            FlowKind::Ask => r#"{"decision":"ask","reason":"r"}"#,
            FlowKind::Allow => r#"{"decision":"allow"}"#,
            FlowKind::RewriteArgs => r#"{"rewrite_args":{"a":1}}"#,
            FlowKind::RewriteResult => r#"{"rewrite_result":{"a":1}}"#,
            FlowKind::RewritePrompt => r#"{"rewrite_prompt":"p"}"#,
            FlowKind::PatchRequest => r#"{"patch":{"temperature":0.5}}"#,
            FlowKind::InjectContext => r#"{"context_items":[{"role":"user","content":"c"}]}"#,
            FlowKind::SetEnv => r#"{"env":{"A":"1"}}"#,
            FlowKind::SelectModel => r#"{"model":"m"}"#,
        }
    }

    /// The native protocol accepts, on each phase, exactly the outputs whose
    /// flow the capability table lets that phase honour, and names them.
    #[test]
    fn allowed_fields_are_the_capability_tables() {
        for phase in Phase::ALL {
            let caps = phase.capabilities();
            for kind in FlowKind::ALL {
                if kind == FlowKind::SetEnv {
                    // Beside any flow: read with the object, not by `to_flow`.
                    let map = serde_json::from_str(asking_for(kind)).unwrap();
                    let read = read_object(phase, Some(map));
                    assert_eq!(read.is_ok(), caps.flows.contains(kind), "{phase} {kind}");
                    continue;
                }
                let result = to_flow(phase, out(asking_for(kind)));
                assert_eq!(result.is_ok(), caps.flows.contains(kind), "{phase} {kind}");
                match result {
                    Ok(flow) => assert_eq!(flow.kind(), kind),
                    Err(e) => {
                        let listed = e.split("allowed there: ").nth(1).unwrap_or_default();
                        let expected: Vec<String> =
                            caps.native_outputs().map(|f| format!("`{f}`")).collect();
                        assert_eq!(listed, expected.join(", "), "{phase} {kind}");
                        assert!(e.starts_with(&format!("`{}`", kind.native_output())), "{e}");
                    }
                }
            }
        }
    }
}
