//! A policy evaluated in a child process: the request a `policy` hook
//! sends to its runtime's policy process
//! ([`ShellRuntime::with_policy_process`](crate::ShellRuntime::with_policy_process))
//! and the answer that process gives ([`answer_policy_request`]). With
//! the `policy` feature only.
//!
//! The request is one line of JSON, `{"query": Q, "modules": [[PATH,
//! TEXT], ...]}` (the policy's files as checked when the config was built:
//! nothing is read again), then the payload document's JSON text, the
//! policy's `input`. The answer is the query's value as JSON text on
//! stdout, nothing when it is undefined; a failed evaluation is its
//! message on stderr and exit code 1.

use std::sync::Arc;

use serde_json::{Value, json};

use super::{PolicyEvalError, RegoPolicy};

/// The request for `policy` with `payload` (the payload document's JSON
/// text) as its input.
pub(crate) fn policy_request(policy: &RegoPolicy, payload: &[u8]) -> Vec<u8> {
    let header = json!({ "query": policy.query(), "modules": &*policy.modules });
    let mut request = header.to_string().into_bytes();
    request.push(b'\n');
    request.extend_from_slice(payload);
    request
}

/// Evaluates one request of a policy process (see the module docs for
/// its shape): compiles the request's modules, evaluates its query with
/// the rest of the request as `input`, and returns the query's value
/// (`None`: undefined). What `agent-hooks policy-eval` runs; the process
/// has no deadline of its own (its parent kills it at the hook's).
///
/// # Errors
///
/// [`PolicyEvalError::Eval`] when the request is not of that shape, and
/// the errors of [`RegoPolicy::evaluate`].
pub fn answer_policy_request(request: &[u8]) -> Result<Option<Value>, PolicyEvalError> {
    let malformed = |message: String| PolicyEvalError::Eval {
        query: String::new(),
        message: format!("not a policy request: {message}"),
    };
    let split = request
        .iter()
        .position(|&b| b == b'\n')
        .ok_or_else(|| malformed("no header line".to_owned()))?;
    #[derive(serde::Deserialize)]
    struct Header {
        query: String,
        modules: Vec<(Arc<str>, Arc<str>)>,
    }
    let header: Header =
        serde_json::from_slice(&request[..split]).map_err(|e| malformed(e.to_string()))?;
    let input = std::str::from_utf8(&request[split + 1..]).map_err(|e| malformed(e.to_string()))?;
    let input = regorus::Value::from_json_str(input).map_err(|e| malformed(e.to_string()))?;
    RegoPolicy::new(header.query, header.modules).evaluate_input(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_evaluates_as_in_process() {
        let policy = RegoPolicy::new(
            "data.agent.decision",
            [(
                "p.rego",
                "package agent\ndecision := {\"decision\": \"deny\", \"reason\": input.tool} if input.tool == \"Bash\"\n",
            )],
        );
        let payload = json!({"tool": "Bash"});
        let request = policy_request(&policy, payload.to_string().as_bytes());
        let answer = answer_policy_request(&request).expect("evaluates");
        assert_eq!(answer, policy.evaluate(payload).expect("evaluates"));
        assert_eq!(answer, Some(json!({"decision": "deny", "reason": "Bash"})));

        let other = policy_request(&policy, br#"{"tool": "Read"}"#);
        assert_eq!(answer_policy_request(&other), Ok(None));

        let err = answer_policy_request(b"{}").unwrap_err();
        assert!(err.to_string().contains("not a policy request"), "{err}");
    }
}
