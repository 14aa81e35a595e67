//! The native payload envelope as a view of the event ([`Envelope`]):
//! [`hooks_plan::Payload`]'s fields, borrowed where the event or the hook
//! already holds them, so a payload is serialized straight into the bytes
//! (or the policy input) a hook gets, with no owned copy in between.

use std::borrow::Cow;

use hooks_plan::{BinaryMeta, OutcomeKind, PathDiagnostic, PayloadMode, Phase};
use serde::Serialize;
use serde_json::Value;

/// [`hooks_plan::Payload`] as borrowed parts: serializes to the same JSON
/// (same fields, order and omissions; `payload_ref` and `elided` are never
/// set on a payload before the stdin cap elides it, so they are left out).
#[derive(Debug, Serialize)]
pub(crate) struct Envelope<'a> {
    pub(crate) schema: &'static str,
    pub(crate) version: u32,
    pub(crate) phase: Phase,
    pub(crate) hook_id: &'a str,
    pub(crate) run_id: &'a str,
    pub(crate) turn: u64,
    pub(crate) cwd: &'a str,
    pub(crate) target_ran: bool,
    pub(crate) mode: PayloadMode,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tool_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) call_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) args: Option<Cow<'a, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) result: Option<Cow<'a, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) outcome: Option<OutcomeKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) prompt: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) data: Option<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) affected_paths: Vec<String>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub(crate) path_diagnostics: &'a [PathDiagnostic],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) binary: Vec<BinaryMeta>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) loop_count: Option<u32>,
}

/// A payload document: the native envelope, or Claude Code's input object
/// (built as a value: its shape follows the event).
#[derive(Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "one per payload, on the stack and borrowed: a box would cost the allocation this view saves"
)]
pub(crate) enum Document<'a> {
    /// `protocol: native`.
    Native(Envelope<'a>),
    /// `protocol: claude`.
    Claude(Value),
}

impl Document<'_> {
    /// A lower bound of the document's compact JSON length (bytes), from
    /// the lengths of its strings and the punctuation of its containers,
    /// without escaping anything: when it is already over the stdin cap,
    /// the payload is streamed into its payload-ref file without being
    /// serialized once more to be measured.
    pub(crate) fn min_json_len(&self) -> usize {
        match self {
            Document::Native(e) => [e.args.as_deref(), e.result.as_deref(), e.data.as_ref()]
                .into_iter()
                .flatten()
                .map(min_json_len)
                .sum::<usize>()
                .saturating_add(e.prompt.as_ref().map_or(0, |p| p.len() + 2)),
            Document::Claude(value) => min_json_len(value),
        }
    }
}

/// [`Document::min_json_len`] of one value: a string is at least its bytes
/// and two quotes, a container its brackets, separators and members.
fn min_json_len(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(_) => 1,
        Value::String(s) => s.len() + 2,
        Value::Array(items) => {
            items
                .iter()
                .map(|v| min_json_len(v) + 1)
                .sum::<usize>()
                .max(1)
                + 1
        }
        Value::Object(map) => {
            map.iter()
                .map(|(k, v)| k.len() + 4 + min_json_len(v))
                .sum::<usize>()
                .max(1)
                + 1
        }
    }
}

impl Serialize for Document<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Document::Native(envelope) => envelope.serialize(serializer),
            Document::Claude(value) => value.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hooks_plan::{PAYLOAD_SCHEMA_NAME, PAYLOAD_VERSION, PathDiagnosticKind, Payload};
    use serde_json::json;

    /// The lower bound never exceeds the real length, and is exact where
    /// nothing needs escaping (so a payload it puts over the cap is over).
    #[test]
    fn min_json_len_is_a_tight_lower_bound() {
        let plain = json!({"a": [1, "xyz", null, true, false, [], {}], "b": {"c": "d"}});
        let doc = Document::Claude(plain.clone());
        assert_eq!(
            doc.min_json_len(),
            serde_json::to_vec(&plain).unwrap().len()
        );
        let escaped = json!({"q\"k": "line\nbreak \u{1} é", "n": 12345});
        let doc = Document::Claude(escaped.clone());
        assert!(doc.min_json_len() < serde_json::to_vec(&escaped).unwrap().len());
    }

    /// Every field of the envelope set: the view and the plan's payload
    /// serialize to the same bytes (so the view cannot drift from the
    /// schema the payload is documented by).
    #[test]
    fn the_view_serializes_as_the_payload() {
        let args = json!({"command": "ls", "n": [1, 2.5, null, true]});
        let result = json!({"ok": "yes"});
        let data = json!({"text": "hi"});
        let diagnostics = vec![PathDiagnostic {
            kind: PathDiagnosticKind::OutsideRoot,
            pointer: "/path".into(),
            path: "/etc/passwd".into(),
        }];
        let binary = vec![BinaryMeta {
            pointer: "/args/x".into(),
            kind: "image/png".into(),
            len_bytes: 3,
            sha256: "ab".into(),
        }];
        let view = Envelope {
            schema: PAYLOAD_SCHEMA_NAME,
            version: PAYLOAD_VERSION,
            phase: Phase::AfterTool,
            hook_id: "h",
            run_id: "r",
            turn: 3,
            cwd: "/w",
            target_ran: true,
            mode: PayloadMode::Redacted,
            tool_name: Some("bash"),
            call_id: Some("c1"),
            args: Some(Cow::Borrowed(&args)),
            result: Some(Cow::Owned(result.clone())),
            outcome: Some(OutcomeKind::Success),
            prompt: Some(Cow::Borrowed("p")),
            data: Some(data.clone()),
            affected_paths: vec!["/w/a".into()],
            path_diagnostics: &diagnostics,
            binary: binary.clone(),
            loop_count: Some(2),
        };
        let payload = Payload {
            schema: PAYLOAD_SCHEMA_NAME.into(),
            version: PAYLOAD_VERSION,
            phase: Phase::AfterTool,
            hook_id: "h".into(),
            run_id: "r".into(),
            turn: 3,
            cwd: "/w".into(),
            target_ran: true,
            mode: PayloadMode::Redacted,
            tool_name: Some("bash".into()),
            call_id: Some("c1".into()),
            args: Some(args.clone()),
            result: Some(result),
            outcome: Some(OutcomeKind::Success),
            prompt: Some("p".into()),
            data: Some(data),
            affected_paths: vec!["/w/a".into()],
            path_diagnostics: diagnostics.clone(),
            binary,
            loop_count: Some(2),
            payload_ref: None,
            elided: false,
        };
        let expected = serde_json::to_string(&payload).unwrap();
        assert_eq!(serde_json::to_string(&view).unwrap(), expected);
        let doc = Document::Native(view);
        assert_eq!(serde_json::to_string(&doc).unwrap(), expected);
        // And with every optional field absent.
        let bare = Envelope {
            tool_name: None,
            call_id: None,
            args: None,
            result: None,
            outcome: None,
            prompt: None,
            data: None,
            affected_paths: Vec::new(),
            path_diagnostics: &[],
            binary: Vec::new(),
            loop_count: None,
            ..match doc {
                Document::Native(view) => view,
                Document::Claude(_) => unreachable!(),
            }
        };
        let payload = Payload {
            tool_name: None,
            call_id: None,
            args: None,
            result: None,
            outcome: None,
            prompt: None,
            data: None,
            affected_paths: Vec::new(),
            path_diagnostics: Vec::new(),
            binary: Vec::new(),
            loop_count: None,
            ..payload
        };
        assert_eq!(
            serde_json::to_string(&bare).unwrap(),
            serde_json::to_string(&payload).unwrap()
        );
    }
}
