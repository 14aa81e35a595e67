//! OPA's REST data API: `POST /v1/data/<path>` with `{"input": payload}`
//! answers `{"result": ..., "decision_id": ...}`.

use serde_json::Value;

/// The request body: `{"input": <payload>}` around the payload
/// document's JSON text (compact, as `serde_json` writes the wrapper).
pub(crate) fn request(payload: &[u8]) -> Vec<u8> {
    const OPEN: &[u8] = b"{\"input\":";
    let mut body = Vec::with_capacity(OPEN.len() + payload.len() + 1);
    body.extend_from_slice(OPEN);
    body.extend_from_slice(payload);
    body.push(b'}');
    body
}

/// What an OPA answer says: the `result` (`None` when the document is
/// undefined: continue), and the server's `decision_id` when decision
/// logging is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OpaAnswer {
    /// `result`, or `None` when undefined.
    pub(crate) result: Option<Value>,
    /// `decision_id`, if the server gave one.
    pub(crate) decision_id: Option<String>,
}

/// Reads an OPA data API answer.
///
/// # Errors
///
/// A message when the body is not a JSON object, or `decision_id` is not a
/// string.
pub(crate) fn answer(body: &[u8]) -> Result<OpaAnswer, String> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| format!("the OPA answer is not JSON: {e}"))?;
    let Value::Object(mut map) = value else {
        return Err("the OPA answer is not a JSON object".to_owned());
    };
    let decision_id = match map.remove("decision_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) => Some(id),
        Some(_) => return Err("the OPA answer's `decision_id` is not a string".to_owned()),
    };
    Ok(OpaAnswer {
        result: map.remove("result"),
        decision_id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_undefined_result_is_none() {
        let a = answer(br#"{"decision_id":"d-1"}"#).unwrap();
        assert_eq!(a.result, None);
        assert_eq!(a.decision_id.as_deref(), Some("d-1"));
        let a = answer(br#"{"result":{"decision":"block","reason":"no"}}"#).unwrap();
        assert_eq!(
            a.result,
            Some(serde_json::json!({"decision": "block", "reason": "no"}))
        );
        assert_eq!(a.decision_id, None);
        assert!(answer(b"[1]").is_err());
        assert!(answer(br#"{"decision_id":1}"#).is_err());
    }

    #[test]
    fn the_request_wraps_the_payload_as_input() {
        let payload = serde_json::json!({"phase": "before_tool"});
        let body = request(&serde_json::to_vec(&payload).unwrap());
        assert_eq!(body, br#"{"input":{"phase":"before_tool"}}"#);
        #[derive(serde::Serialize)]
        struct Request<'a> {
            input: &'a Value,
        }
        let wrapped = serde_json::to_vec(&Request { input: &payload }).unwrap();
        assert_eq!(body, wrapped);
    }
}
