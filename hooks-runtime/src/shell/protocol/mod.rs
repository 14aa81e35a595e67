//! Output protocols: how what a hook's target produced becomes a
//! [`Flow`]. Each protocol reads either a process's exit code with its
//! stdout and stderr (`parse`), an output document (`read_output`: stdout
//! after exit 0, an `http` hook's response body) or, for the native
//! protocol, a JSON value (`native::read_value`: a policy's value, OPA's
//! `result`).
//!
//! Two protocols share the framing rules of [`frame_json`] and the exit-code
//! table of [`exit2_flow`]:
//! - [`native`]: this project's output object ([`hooks_plan::HookOutput`]);
//! - [`claude`]: Claude Code's hook protocol, so existing scripts run unmodified.
//!
//! Exit codes (both protocols): `0` = the stdout decides; `2` = an explicit
//! deny with stderr as the reason (`protocol: claude` takes the reason of a
//! blocking decision in stdout's JSON first, as Claude Code does);
//! anything else is a [`FailureKind::NonzeroExit`] failure, which the hook's
//! failure policy handles (Claude Code would treat it as a non-blocking
//! error; our policy `warn` is the equivalent, `block` fails closed).
//!
//! Output caps and secrets: stdout cut at its cap is always an
//! `output_too_large` failure whose detail holds only byte counts, never the
//! output. Stderr cut at its cap (64 KiB by default) still gives a reason or
//! a failure detail, but the capture may stop inside a token, leaving a
//! prefix (`ghp_abc`) too short for redaction to recognise. So when stderr
//! was cut, `captured_text` drops the trailing run of non-whitespace bytes
//! (the partial word, however long) and marks the cut with `…`; only whole
//! words reach redaction, the model, records and diagnostics.

pub(crate) mod claude;
pub(crate) mod copilot;
pub(crate) mod gemini;
pub(crate) mod native;

use hooks_plan::Phase;
use serde_json::Value;

use crate::{Captured, ContextItem, FailureKind, Flow, FlowKind};

/// What a hook's output amounted to when it followed the protocol.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ProtocolDecision {
    /// The flow the hook asks for.
    pub flow: Flow,
    /// Context items beside a flow that is not `Continue` or
    /// `InjectContext` (Claude Code's `additionalContext` next to an allow
    /// with `updatedInput`, a deny or a result rewrite): the shell hook's
    /// fold applies them before the flow. Empty otherwise (see
    /// [`ProtocolDecision::with_context`]).
    pub context: Vec<ContextItem>,
    /// New tool arguments to apply before a flow that is not a rewrite
    /// (Claude Code's PermissionRequest `decision.behavior: "allow"` with
    /// `updatedInput`: the call is granted with the new input). `None`
    /// otherwise.
    pub args: Option<Value>,
    /// Environment variables to set beside the flow (`run_start`: the
    /// native `env` field, a Claude Code script's `CLAUDE_ENV_FILE`);
    /// empty otherwise.
    pub env: crate::EnvVars,
    /// Messages for the operator that are not failures (Claude Code's
    /// `systemMessage`, an exit 2 on an event that cannot be denied).
    /// Unredacted: callers pass them through redaction before showing them.
    pub diagnostics: Vec<String>,
    /// Notes for the record about output that was accepted but ignored
    /// (unknown fields). Unredacted, like `diagnostics`.
    pub notes: Vec<String>,
}

impl ProtocolDecision {
    pub(crate) fn flow(flow: Flow) -> Self {
        ProtocolDecision {
            flow,
            ..ProtocolDecision::default()
        }
    }

    /// Adds `items` (the context the hook's output asked for) to the
    /// decision on `phase`: a `Continue` flow becomes `InjectContext(items)`,
    /// an `InjectContext` flow gets them appended, any other flow keeps them
    /// beside it in [`ProtocolDecision::context`]. On a phase that does not
    /// honour `inject_context` they are dropped with a diagnostic.
    pub(crate) fn with_context(mut self, phase: Phase, items: Vec<ContextItem>) -> Self {
        if items.is_empty() {
            return self;
        }
        if !FlowKind::InjectContext.honoured_on(phase) {
            self.diagnostics.push(format!(
                "{} context item(s) dropped: `{phase}` does not honour `inject_context`",
                items.len()
            ));
            return self;
        }
        match &mut self.flow {
            Flow::Continue => self.flow = Flow::InjectContext(items.into()),
            Flow::InjectContext(list) => list.extend(items),
            _ => self.context.extend(items),
        }
        self
    }
}

/// A protocol failure: the hook did not follow the protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProtocolFailure {
    /// [`FailureKind::InvalidOutput`], [`FailureKind::OutputTooLarge`] or
    /// [`FailureKind::NonzeroExit`].
    pub kind: FailureKind,
    /// Lowercase, rustc-style description, e.g.
    /// ``trailing text after the JSON object at byte 17``.
    pub detail: String,
    /// The byte offset into stdout the failure is about, when there is one.
    pub offset: Option<usize>,
}

impl ProtocolFailure {
    pub(crate) fn invalid(detail: impl Into<String>, offset: Option<usize>) -> Self {
        ProtocolFailure {
            kind: FailureKind::InvalidOutput,
            detail: detail.into(),
            offset,
        }
    }
}

impl std::fmt::Display for ProtocolFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind, self.detail)
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Strips a UTF-8 byte-order mark and surrounding ASCII whitespace; returns
/// the rest and the offset of its first byte in `bytes`.
pub(crate) fn trim_frame(bytes: &[u8]) -> (&[u8], usize) {
    let mut start = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    while start < bytes.len() && bytes[start].is_ascii_whitespace() {
        start += 1;
    }
    let mut end = bytes.len();
    while end > start && bytes[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    (&bytes[start..end], start)
}

/// Parses stdout as at most one JSON object.
///
/// Accepted: empty or whitespace-only stdout (`Ok(None)`); one JSON object,
/// optionally preceded by a UTF-8 byte-order mark and surrounded by
/// whitespace. Refused with [`FailureKind::InvalidOutput`] and the byte
/// offset into `stdout`: malformed JSON, a value that is not an object, a
/// second JSON document, trailing text (a log line after the object).
///
/// # Errors
///
/// [`ProtocolFailure`] as above.
pub(crate) fn frame_json(
    stdout: &[u8],
) -> Result<Option<serde_json::Map<String, Value>>, ProtocolFailure> {
    let (body, start) = trim_frame(stdout);
    if body.is_empty() {
        return Ok(None);
    }
    let mut stream = serde_json::Deserializer::from_slice(body).into_iter::<Value>();
    let value = match stream.next() {
        Some(Ok(value)) => value,
        Some(Err(err)) => {
            let offset = start + line_col_to_offset(body, err.line(), err.column());
            return Err(ProtocolFailure::invalid(
                format!("stdout is not valid JSON at byte {offset}: {err}"),
                Some(offset),
            ));
        }
        None => return Ok(None),
    };
    let end = stream.byte_offset();
    let rest = &body[end..];
    let skipped = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
    if skipped < rest.len() {
        let offset = start + end + skipped;
        let what = if matches!(rest[skipped], b'{' | b'[' | b'"') || rest[skipped].is_ascii_digit()
        {
            "a second JSON document"
        } else {
            "trailing text"
        };
        return Err(ProtocolFailure::invalid(
            format!(
                "{what} after the JSON object at byte {offset}: print exactly one JSON object on stdout and send logs to stderr"
            ),
            Some(offset),
        ));
    }
    match value {
        Value::Object(map) => Ok(Some(map)),
        other => Err(ProtocolFailure::invalid(
            format!(
                "stdout must be a JSON object, found {} at byte {start}",
                json_type(&other)
            ),
            Some(start),
        )),
    }
}

/// The length of `value` serialized as compact JSON (bytes), counted
/// without building the text: what a value's size is measured by against
/// a cap (a payload's stdin cap, a policy value's stdout cap).
pub(crate) fn json_len<T: serde::Serialize + ?Sized>(value: &T) -> usize {
    json_len_within(value, usize::MAX).unwrap_or(0)
}

/// [`json_len`], but counting stops as soon as the text is over `cap`
/// bytes (`None`, as for a value that does not serialize): a payload over
/// the stdin cap is not serialized whole twice.
pub(crate) fn json_len_within<T: serde::Serialize + ?Sized>(
    value: &T,
    cap: usize,
) -> Option<usize> {
    let mut count = Capped::new(std::io::sink(), cap);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => Some(count.written),
        Err(_) => None,
    }
}

/// A writer that passes at most `cap` bytes to `inner` and refuses the
/// write that would pass it (`FileTooLarge`, [`Capped::over`] set):
/// serializing into it stops at the cap.
pub(crate) struct Capped<W> {
    inner: W,
    cap: usize,
    /// Bytes `inner` took.
    pub(crate) written: usize,
    /// Whether a write was refused for the cap.
    pub(crate) over: bool,
}

impl<W> Capped<W> {
    pub(crate) fn new(inner: W, cap: usize) -> Self {
        Capped {
            inner,
            cap,
            written: 0,
            over: false,
        }
    }

    /// The inner writer.
    pub(crate) fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: std::io::Write> std::io::Write for Capped<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() > self.cap - self.written {
            self.over = true;
            return Err(std::io::ErrorKind::FileTooLarge.into());
        }
        let n = self.inner.write(buf)?;
        self.written += n;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn line_col_to_offset(body: &[u8], line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (i, l) in body.split(|b| *b == b'\n').enumerate() {
        if i + 1 == line {
            return (offset + column.saturating_sub(1)).min(body.len());
        }
        offset += l.len() + 1;
    }
    body.len()
}

pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "`null`",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The text of a captured stream (stderr), lossily decoded as UTF-8 and
/// trimmed like [`trim_frame`].
///
/// When the capture was cut at its cap ([`Captured::truncated`]) the cut may
/// fall inside a secret; redaction cannot recognise a partial token, so the
/// trailing run of non-whitespace bytes at the cut is dropped (everything,
/// when the kept bytes hold no ASCII whitespace) and `…` is appended to show
/// that text is missing. A character split by the cut is inside that run, so
/// no U+FFFD replacement character is left at the end either.
pub(crate) fn captured_text(captured: &Captured) -> String {
    let mut bytes = captured.bytes.as_slice();
    if captured.truncated {
        let keep = bytes
            .iter()
            .rposition(u8::is_ascii_whitespace)
            .map_or(0, |i| i + 1);
        bytes = &bytes[..keep];
    }
    let mut text = String::from_utf8_lossy(trim_frame(bytes).0).into_owned();
    if captured.truncated {
        text.push('…');
    }
    text
}

/// The flow an exit code 2 (an explicit deny) selects on `phase`, with
/// `reason`: `json_reason` when the protocol found one in stdout, else the
/// hook's stderr per `captured_text` (trimmed, a partial word at the
/// stderr cap dropped; a generic text when empty).
///
/// | phase | flow | as in Claude Code |
/// | --- | --- | --- |
/// | `before_tool` | `Skip {reason}`: the tool does not run | PreToolUse: blocks the call |
/// | `user_prompt` | `Skip {reason}`: the prompt is dropped | UserPromptSubmit: erases the prompt |
/// | `stop`, `subagent_stop` | `Resume {reason}`: keep working | Stop, SubagentStop: blocks stopping |
/// | `before_compaction` | `Skip {reason}`: no compaction | PreCompact: blocks compaction |
/// | `before_model_select` | `Skip {reason}`: the model is not switched | PreModelSwitch: blocks the switch |
/// | `after_tool_batch` | `Terminate {reason}` | PostToolBatch: stops the agentic loop |
/// | after-phases that take context | `InjectContext([user: reason])` | PostToolUse: stderr shown to the model |
/// | `invalid_tool_call` | `Fail` | — |
/// | `before_completion` | `Terminate {reason}`: the request is not sent | — |
/// | others (`run_start`, `permission_request`, `notification`, `subagent_start`, `after_model_select`, `after_compaction`, deltas, `stream_finish`, `run_end`, `run_error`) | `Continue` plus a diagnostic: nothing to deny | PermissionRequest: exit 2 is not honoured; SessionStart, PostModelSwitch, SessionEnd and the others: shown to the user only |
pub(crate) fn exit2_flow(
    phase: Phase,
    json_reason: Option<String>,
    stderr: &Captured,
    hook_id: &str,
) -> ProtocolDecision {
    let text = json_reason.unwrap_or_else(|| captured_text(stderr));
    let reason = if text.is_empty() || text == "…" {
        format!("denied by hook `{hook_id}` (exit code 2)")
    } else {
        text
    };
    match phase {
        Phase::BeforeTool
        | Phase::UserPrompt
        | Phase::BeforeCompaction
        | Phase::BeforeModelSelect => ProtocolDecision::flow(Flow::skip(reason)),
        Phase::Stop | Phase::SubagentStop => ProtocolDecision::flow(Flow::resume(reason)),
        Phase::AfterToolBatch => ProtocolDecision::flow(Flow::terminate(reason)),
        p if p.is_after_phase()
            && p != Phase::AfterModelSelect
            && FlowKind::InjectContext.honoured_on(p) =>
        {
            ProtocolDecision::flow(Flow::InjectContext(vec![ContextItem::user(reason)].into()))
        }
        Phase::InvalidToolCall => ProtocolDecision::flow(Flow::Fail),
        Phase::BeforeCompletion => ProtocolDecision::flow(Flow::terminate(reason)),
        _ => ProtocolDecision {
            flow: Flow::Continue,
            diagnostics: vec![format!(
                "hook `{hook_id}` exited with code 2 on `{phase}`, which cannot be denied: {reason}"
            )],
            ..ProtocolDecision::default()
        },
    }
}

/// The failure for an exit code other than 0 and 2: `nonzero_exit`, with
/// the whole first line of stderr (bounded only by the stderr cap; a
/// partial word at the cap dropped, see `captured_text`).
///
/// Not cut here: callers redact the whole detail first and cut it after
/// (`redact::redact_and_truncate`), so a secret straddling the cut-off is
/// never left half in clear.
pub(crate) fn nonzero_exit(code: i32, stderr: &Captured) -> ProtocolFailure {
    let text = captured_text(stderr);
    let first = text.lines().next().unwrap_or("");
    let detail = if first.is_empty() {
        format!("exited with code {code}")
    } else {
        format!("exited with code {code}: {first}")
    };
    ProtocolFailure {
        kind: FailureKind::NonzeroExit,
        detail,
        offset: None,
    }
}

/// The failure for stdout cut at the cap: `output_too_large`.
pub(crate) fn too_large(stdout: &Captured) -> ProtocolFailure {
    ProtocolFailure {
        kind: FailureKind::OutputTooLarge,
        detail: format!(
            "stdout was {} bytes, over the cap of {} bytes",
            stdout.total_len,
            stdout.bytes.len()
        ),
        offset: Some(stdout.bytes.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn captured(bytes: &[u8], truncated: bool) -> Captured {
        Captured {
            bytes: bytes.to_vec(),
            total_len: bytes.len() as u64 + u64::from(truncated),
            truncated,
        }
    }

    #[test]
    fn a_cut_capture_loses_its_partial_word() {
        assert_eq!(
            captured_text(&captured(b" whole ghp_ab\n", false)),
            "whole ghp_ab"
        );
        assert_eq!(
            captured_text(&captured(b"kept words ghp_ab", true)),
            "kept words…"
        );
        assert_eq!(
            captured_text(&captured(b"line\nBearer abc", true)),
            "line\nBearer…"
        );
        assert_eq!(captured_text(&captured(b"ghp_abcdef", true)), "…");
        // A character split by the cut goes with its word.
        assert_eq!(captured_text(&captured(b"ok caf\xC3", true)), "ok…");
        let deny = exit2_flow(Phase::BeforeTool, None, &captured(b"sk-abc", true), "h");
        assert_eq!(deny.flow, Flow::skip("denied by hook `h` (exit code 2)"));
        let failed = nonzero_exit(1, &captured(b"token ghp_abc", true));
        assert_eq!(failed.detail, "exited with code 1: token…");
    }

    #[test]
    fn framing_accepts_bom_and_whitespace() {
        assert_eq!(frame_json(b"").unwrap(), None);
        assert_eq!(frame_json(b" \n\t").unwrap(), None);
        let m = frame_json(b"\xEF\xBB\xBF  {\"a\":1}\n").unwrap().unwrap();
        assert_eq!(m["a"], 1);
    }

    #[test]
    fn framing_reports_offsets() {
        let err = frame_json(b"{\"a\":1}\n{\"b\":2}").unwrap_err();
        assert_eq!(err.offset, Some(8));
        assert!(
            err.detail.contains("second JSON document"),
            "{}",
            err.detail
        );
        let err = frame_json(b"\xEF\xBB\xBF{}\ndone\n").unwrap_err();
        assert_eq!(err.offset, Some(6));
        assert!(err.detail.contains("trailing text"), "{}", err.detail);
        let err = frame_json(b"[1]").unwrap_err();
        assert!(err.detail.contains("an array"), "{}", err.detail);
        let err = frame_json(b"{\"a\":\n  ?}").unwrap_err();
        assert_eq!(err.offset, Some(8));
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any bytes: framing never panics, and an error's offset lies inside stdout.
        #[test]
        fn framing_is_total(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            if let Err(e) = frame_json(&bytes)
                && let Some(offset) = e.offset
            {
                prop_assert!(offset <= bytes.len());
            }
        }

        /// One object with any whitespace and an optional BOM parses back.
        #[test]
        fn one_object_round_trips(
            key in "[a-z]{1,8}",
            value in ".{0,20}",
            pre in "[ \t\r\n]{0,3}",
            post in "[ \t\r\n]{0,3}",
            bom in any::<bool>(),
        ) {
            let mut bytes = if bom { BOM.to_vec() } else { Vec::new() };
            bytes.extend_from_slice(pre.as_bytes());
            let doc = serde_json::json!({ key.clone(): value.clone() });
            bytes.extend_from_slice(doc.to_string().as_bytes());
            bytes.extend_from_slice(post.as_bytes());
            let map = frame_json(&bytes).unwrap().unwrap();
            prop_assert_eq!(&map[&key], &Value::String(value));
        }
    }
}
