//! OPA's REST data API: `POST /v1/data/<path>` with `{"input": payload}`
//! answers `{"result": ..., "decision_id": ...}`.

use serde_json::Value;

/// The request body: `{"input": <payload>}`.
///
/// # Errors
///
/// A message when `payload` is not JSON (the payload builder always
/// produces JSON, so this is an internal error).
pub(crate) fn request(payload: &[u8]) -> Result<Vec<u8>, String> {
    let input: Value =
        serde_json::from_slice(payload).map_err(|e| format!("the payload is not JSON: {e}"))?;
    serde_json::to_vec(&serde_json::json!({ "input": input }))
        .map_err(|e| format!("the OPA request could not be built: {e}"))
}

/// What an OPA answer says: the `result` as the JSON text a native hook
/// would print (empty when the document is undefined: continue), and the
/// server's `decision_id` when decision logging is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OpaAnswer {
    /// `result` serialized, or empty when undefined.
    pub(crate) output: Vec<u8>,
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
    let output = match map.remove("result") {
        None => Vec::new(),
        Some(result) => serde_json::to_vec(&result)
            .map_err(|e| format!("the OPA result could not be read: {e}"))?,
    };
    Ok(OpaAnswer {
        output,
        decision_id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_undefined_result_is_an_empty_output() {
        let a = answer(br#"{"decision_id":"d-1"}"#).unwrap();
        assert!(a.output.is_empty());
        assert_eq!(a.decision_id.as_deref(), Some("d-1"));
        let a = answer(br#"{"result":{"decision":"block","reason":"no"}}"#).unwrap();
        assert_eq!(a.output, br#"{"decision":"block","reason":"no"}"#);
        assert_eq!(a.decision_id, None);
        assert!(answer(b"[1]").is_err());
        assert!(answer(br#"{"decision_id":1}"#).is_err());
    }

    #[test]
    fn the_request_wraps_the_payload_as_input() {
        let body = request(b"{\"phase\":\"before_tool\"}\n").unwrap();
        assert_eq!(body, br#"{"input":{"phase":"before_tool"}}"#);
    }
}
