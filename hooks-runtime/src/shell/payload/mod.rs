//! Building a shell hook's stdin payload from a [`StepEvent`]: the envelope
//! v1 ([`hooks_plan::Payload`])
//! or Claude Code's input object, binary data as metadata, affected paths,
//! modes `full` / `redacted`, and the spill to a payload-ref file over the
//! stdin cap.

mod envelope;
mod paths;
mod session;
mod spill;

use std::borrow::Cow;
use std::io;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use hooks_plan::{
    BinaryMeta, PAYLOAD_SCHEMA_NAME, PAYLOAD_VERSION, PathDiagnostic, PayloadMode, Phase, Protocol,
};
use serde::Serialize;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use self::envelope::{Document, Envelope};
pub use self::paths::affected_paths;
use self::paths::describe;
pub(crate) use self::paths::{AffectedPaths, Resolved};
pub use self::session::SessionDir;
pub(crate) use self::session::check_session_dir;
use self::spill::write_spill;
pub(crate) use self::spill::{SpillFile, create_hook_file};
use crate::shell::protocol::{claude, json_len, json_len_within};
use crate::shell::redact::{SecretSet, redact_json, redact_sensitive_text};
use crate::{FlowKind, HookContext, StepEvent, ToolOutcome};

/// The environment variable that tells a hook the path of its payload-ref
/// file, when the payload spilled.
pub const PAYLOAD_REF_ENV: &str = "AGENT_HOOKS_PAYLOAD_REF";

/// The largest top-level field (bytes of compact JSON) an elided stdin copy
/// keeps ([`PayloadLimits::stdin_cap`]): larger ones are only in the
/// payload-ref file.
pub(crate) const ELIDED_FIELD_MAX: usize = 512;

/// Size limits of a payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PayloadLimits {
    /// Largest payload sent through stdin, in bytes (default: the config
    /// language's `max_payload_bytes`, 1 MiB). A larger
    /// payload spills to a payload-ref file.
    pub stdin_cap: usize,
    /// Largest payload written to a payload-ref file, in bytes (default 16
    /// MiB). A larger payload is not spilled: the hook gets the elided
    /// envelope without `payload_ref`.
    pub spill_cap: usize,
}

impl Default for PayloadLimits {
    fn default() -> Self {
        PayloadLimits {
            stdin_cap: usize::try_from(hooks_plan::Limits::DEFAULT.max_payload_bytes)
                .unwrap_or(usize::MAX),
            spill_cap: 16 << 20,
        }
    }
}

/// A tool's path settings (the config's `tool_settings`): which argument
/// pointers hold paths, whether absolute paths are allowed, whether the tool
/// writes. They drive
/// [`Payload::affected_paths`](hooks_plan::Payload::affected_paths).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolPathSettings {
    /// RFC 6901 pointers into the tool's arguments whose values are a path
    /// (a string) or paths (an array of strings).
    pub path_pointers: Vec<String>,
    /// Whether the tool may touch paths outside the workspace root (the
    /// config's `allow_absolute_paths`). Such a path is flagged
    /// ([`PathDiagnosticKind::OutsideRoot`](hooks_plan::PathDiagnosticKind::OutsideRoot)) either way; when this is `false`
    /// and the tool writes, the call is refused, as it is when a path is
    /// left unchecked (see [`BuiltPayload::refusal`]).
    pub allow_absolute: bool,
    /// Whether the tool writes its paths.
    pub writes: bool,
}

/// Why a payload could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PayloadError {
    /// The session directory is a symlink that resolves outside the
    /// workspace root.
    #[error(
        "session directory `{dir}` is a symlink to `{resolved}`, outside the workspace root `{root}`"
    )]
    SessionDirOutsideRoot {
        /// The configured session directory.
        dir: PathBuf,
        /// What it resolves to after canonicalization.
        resolved: PathBuf,
        /// The canonical workspace root.
        root: PathBuf,
    },
    /// The session directory lies outside the workspace root and is not
    /// private to the user: not owned by the effective user, or giving
    /// group or others a permission bit.
    #[error(
        "session directory `{dir}` lies outside the workspace root and is not private to the user (mode {mode:o}, owner uid {owner}): create it mode 0700"
    )]
    SessionDirNotPrivate {
        /// The configured session directory.
        dir: PathBuf,
        /// Its permission bits.
        mode: u32,
        /// Its owner's uid.
        owner: u32,
    },
    /// An I/O error preparing the payload-ref file.
    #[error("cannot write the payload-ref file under `{dir}`: {source}")]
    Spill {
        /// The session directory.
        dir: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
}

/// Everything [`build`] needs besides the event.
#[derive(Debug, Clone, Copy)]
pub struct PayloadInput<'a> {
    /// The hook's id.
    pub hook_id: &'a str,
    /// The run's context: run id, turn and the session identity
    /// (`protocol: claude` sends its session id, transcript path, cwd and
    /// permission mode).
    pub ctx: &'a HookContext,
    /// The hook's canonical working directory.
    pub cwd: &'a Path,
    /// `full` or `redacted`.
    pub mode: PayloadMode,
    /// Which stdin format: the envelope v1 or Claude Code's object.
    pub protocol: Protocol,
    /// The tool's path settings, when the config has some for it.
    pub tool_paths: Option<&'a ToolPathSettings>,
    /// Secrets redacted in `redacted` mode (besides the token shapes).
    pub secrets: &'a SecretSet,
    /// Where payload-ref files go; `None` disables spilling (an oversized
    /// payload is then elided without a ref).
    pub session_dir: Option<&'a Path>,
    /// The canonical workspace root (a session directory outside it must be
    /// private to the user).
    pub root: &'a Path,
    /// Size limits.
    pub limits: PayloadLimits,
}

/// A built payload: its document rendered for the hook's target (`D`:
/// its JSON text by default; a policy's input value) and what building
/// it found.
#[derive(Debug)]
pub struct BuiltPayload<D = Vec<u8>> {
    /// The document the hook gets: the whole payload, or the elided
    /// envelope when the payload was over the stdin cap. A process reads
    /// its JSON text on stdin ([`BuiltPayload::stdin`]), an `http` hook as
    /// its request body, a `policy` hook as its `input` (a value rendered
    /// straight from the payload, never parsed from text).
    pub(crate) document: D,
    /// The payload-ref file, when the payload spilled; remove it with
    /// `SpillFile::remove` when the invocation ends.
    pub spill: Option<SpillFile>,
    /// Affected paths left out or outside the root, and other notes for the
    /// operator (unredacted).
    pub diagnostics: Vec<String>,
    /// The named findings about the affected paths (also in the payload's
    /// `path_diagnostics`), for the record.
    pub path_diagnostics: Vec<PathDiagnostic>,
    /// Why the tool call is refused without running the hook: on a phase
    /// where `skip` is honoured before the tool runs (`before_tool`,
    /// `permission_request`), a tool whose settings say `writes: true` and
    /// not `allow_absolute_paths` has an affected path outside the
    /// workspace root, or one left unchecked (longer than 1024 characters,
    /// past the 16th, holding a NUL byte). `None` otherwise.
    pub refusal: Option<String>,
}

impl BuiltPayload {
    /// A copy of the document's JSON text, as stdin bytes (without the
    /// trailing `\n` the executor adds).
    pub fn stdin(&self) -> Vec<u8> {
        self.document.clone()
    }
}

/// How a payload document is rendered for the target that reads it.
pub(crate) trait Render {
    /// The rendered document.
    type Output;
    /// `doc`, whose compact JSON text is `len` bytes, as the target takes it.
    fn render<S: Serialize + ?Sized>(&self, doc: &S, len: usize) -> Self::Output;

    /// `doc` rendered when its compact JSON text is at most `cap` bytes
    /// (`hint`: a lower bound of its length), else `None`. Default: the
    /// text is measured ([`json_len_within`]), then rendered.
    fn render_within<S: Serialize + ?Sized>(
        &self,
        doc: &S,
        cap: usize,
        hint: usize,
    ) -> Option<Self::Output> {
        let _ = hint;
        json_len_within(doc, cap).map(|len| self.render(doc, len))
    }
}

/// The document as compact JSON text.
pub(crate) struct Json;

impl Render for Json {
    type Output = Vec<u8>;
    fn render<S: Serialize + ?Sized>(&self, doc: &S, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len);
        // Writing a serializable value into a vector cannot fail.
        let _ = serde_json::to_writer(&mut out, doc);
        out
    }

    /// Serialized once, into a buffer that stops at the cap (measuring
    /// first would serialize the document twice).
    fn render_within<S: Serialize + ?Sized>(
        &self,
        doc: &S,
        cap: usize,
        hint: usize,
    ) -> Option<Vec<u8>> {
        // Room for the envelope's short fields beside the long ones.
        let room = hint.saturating_add(hint / 8).saturating_add(512).min(cap);
        let mut out = crate::shell::protocol::Capped::new(Vec::with_capacity(room), cap);
        serde_json::to_writer(&mut out, doc).ok()?;
        Some(out.into_inner())
    }
}

/// Builds the stdin payload of one hook invocation for `event`.
///
/// Binary blobs in the event's JSON values (objects with `type` `image`,
/// `audio`, `file`, `bytes` or `binary` and a base64 string `data` or
/// `source.data`; `data:` URLs) are replaced by `{"$binary": N}` and listed
/// in [`Payload::binary`](hooks_plan::Payload::binary) with kind, decoded
/// length and SHA-256. In `redacted` mode every value goes through
/// [`redact_json`] / [`redact_sensitive_text`] with `input.secrets`.
///
/// When the serialized payload is over `limits.stdin_cap` bytes it is
/// written to a new payload-ref file under the session directory (mode 0600,
/// `create_new`, containment in the root checked after canonicalization)
/// and stdin gets the envelope with `elided: true` and `payload_ref`; over
/// `limits.spill_cap` (or with no session directory) the ref is left out.
///
/// The payload is serialized once, straight from the event (borrowed where
/// no blob, redaction or depth cut changes a value) into its JSON text.
///
/// # Errors
///
/// [`PayloadError`] when the session directory is outside the root or the
/// spill file cannot be written.
pub fn build(
    event: &StepEvent<'_>,
    input: &PayloadInput<'_>,
) -> Result<BuiltPayload, PayloadError> {
    build_as(event, input, &Json, None)
}

/// [`build`] with the document rendered by `render` (a policy's input
/// value, for instance) instead of as JSON text, and the affected paths
/// taken from `resolved` when dispatch resolved them from the same cwd
/// (for the same arguments) instead of resolving them again.
///
/// # Errors
///
/// As [`build`].
pub(crate) fn build_as<'e, R: Render>(
    event: &StepEvent<'e>,
    input: &PayloadInput<'_>,
    render: &R,
    resolved: Option<&Resolved>,
) -> Result<BuiltPayload<R::Output>, PayloadError> {
    let phase = event.kind();
    let mut diagnostics = Vec::new();
    let mut binary = Vec::new();
    let redact = input.mode == PayloadMode::Redacted;
    // A value is copied only when a blob, redaction or the depth cut
    // changes it.
    let mut prep = |value: &'e Value, root: &str| -> Cow<'e, Value> {
        if nests_deeper_than(value, MAX_DEPTH) {
            diagnostics.push(format!(
                "`{root}` nests deeper than {MAX_DEPTH} levels: elided from the payload"
            ));
            return Cow::Owned(Value::String(format!(
                "[elided: nested deeper than {MAX_DEPTH} levels]"
            )));
        }
        if !redact && !has_binary(value) {
            return Cow::Borrowed(value);
        }
        let mut v = value.clone();
        extract_binary(&mut v, root, &mut binary);
        Cow::Owned(if redact {
            redact_json(&v, input.secrets)
        } else {
            v
        })
    };
    let text = |s: &'e str| -> Cow<'e, str> {
        if redact {
            redact_sensitive_text(s, input.secrets)
        } else {
            Cow::Borrowed(s)
        }
    };
    let mut args = None;
    let mut result = None;
    let mut outcome = None;
    let mut prompt = None;
    let mut loop_count = None;
    let mut data = Map::new();
    match *event {
        StepEvent::RunStart { .. } => {}
        StepEvent::UserPrompt { prompt: p } => prompt = Some(text(p)),
        StepEvent::BeforeCompletion { request } => {
            data.insert(
                "request".into(),
                prep(request, "/data/request").into_owned(),
            );
        }
        StepEvent::BeforeModelSelect { selection } | StepEvent::AfterModelSelect { selection } => {
            data.insert(
                "selection".into(),
                prep(selection, "/data/selection").into_owned(),
            );
        }
        StepEvent::AfterCompletion { response } | StepEvent::StreamFinish { response } => {
            data.insert(
                "response".into(),
                prep(response, "/data/response").into_owned(),
            );
        }
        StepEvent::TextDelta { delta } | StepEvent::ToolCallDelta { delta, .. } => {
            data.insert("delta".into(), text(delta).into());
        }
        StepEvent::AfterReasoning { reasoning } => {
            data.insert("reasoning".into(), text(reasoning).into());
        }
        StepEvent::AfterAssistant { text: t } => {
            data.insert("text".into(), text(t).into());
        }
        StepEvent::BeforeTool { args: a, .. } => args = Some(prep(a, "/args")),
        StepEvent::PermissionRequest {
            args: a,
            suggestions,
            ..
        } => {
            args = Some(prep(a, "/args"));
            if !suggestions.is_null() {
                data.insert(
                    "suggestions".into(),
                    prep(suggestions, "/data/suggestions").into_owned(),
                );
            }
        }
        StepEvent::AfterToolBatch { calls } => {
            data.insert("calls".into(), prep(calls, "/data/calls").into_owned());
        }
        StepEvent::Notification {
            notification_type,
            title,
            message,
        } => {
            data.insert("notification_type".into(), text(notification_type).into());
            data.insert("title".into(), text(title).into());
            data.insert("message".into(), text(message).into());
        }
        StepEvent::SubagentStart {
            agent_id,
            agent_type,
        } => {
            data.insert("agent_id".into(), text(agent_id).into());
            data.insert("agent_type".into(), text(agent_type).into());
        }
        StepEvent::SubagentStop {
            agent_id,
            agent_type,
            loop_count: n,
            text: t,
            ..
        } => {
            loop_count = Some(n);
            data.insert("agent_id".into(), text(agent_id).into());
            data.insert("agent_type".into(), text(agent_type).into());
            data.insert("text".into(), text(t).into());
        }
        StepEvent::BeforeCompaction {
            trigger,
            instructions,
        } => {
            data.insert("trigger".into(), text(trigger).into());
            data.insert("instructions".into(), text(instructions).into());
        }
        StepEvent::AfterCompaction { trigger, summary } => {
            data.insert("trigger".into(), text(trigger).into());
            data.insert("summary".into(), text(summary).into());
        }
        StepEvent::AfterTool {
            args: a,
            original_args,
            result: r,
            outcome: o,
            ..
        } => {
            args = Some(prep(a, "/args"));
            result = Some(prep(r, "/result"));
            outcome = Some(o.kind());
            // Compared only when both are shallow enough (`==` recurses).
            let comparable =
                !nests_deeper_than(original_args, MAX_DEPTH) && !nests_deeper_than(a, MAX_DEPTH);
            if !std::ptr::eq(original_args, a) && (!comparable || original_args != a) {
                data.insert(
                    "original_args".into(),
                    prep(original_args, "/data/original_args").into_owned(),
                );
            }
            if let ToolOutcome::Failed {
                message: Some(m), ..
            } = o
            {
                data.insert("outcome_message".into(), text(m).into());
            }
        }
        StepEvent::InvalidToolCall {
            raw_args, error, ..
        } => {
            data.insert("raw_args".into(), text(raw_args).into());
            data.insert("error".into(), text(error).into());
        }
        StepEvent::Stop {
            loop_count: n,
            text: t,
            ..
        } => {
            loop_count = Some(n);
            data.insert("text".into(), text(t).into());
        }
        StepEvent::RunEnd { output, reason } => {
            data.insert("output".into(), text(output).into());
            data.insert("reason".into(), text(reason).into());
        }
        StepEvent::RunError { error } => {
            data.insert("error".into(), text(error).into());
        }
    }
    // Resolved once per event by dispatch, when from the same cwd.
    let reused = resolved.filter(|r| input.tool_paths.is_some() && r.cwd == input.cwd);
    let paths = match (reused, input.tool_paths, event) {
        (Some(r), _, _) => r.paths.clone(),
        (
            None,
            Some(settings),
            StepEvent::BeforeTool { args: a, .. }
            | StepEvent::PermissionRequest { args: a, .. }
            | StepEvent::AfterTool { args: a, .. },
        ) => affected_paths(a, settings, input.cwd, input.root),
        _ => AffectedPaths::default(),
    };
    diagnostics.extend(paths.diagnostics.iter().map(describe));
    let refusal = input
        .tool_paths
        .filter(|t| t.writes && !t.allow_absolute && FlowKind::Skip.honoured_on(phase))
        .and_then(|_| paths.write_refusal());
    let AffectedPaths {
        paths: affected_paths,
        diagnostics: path_diagnostics,
    } = paths;
    let cwd = input.cwd.to_string_lossy();
    let data = (!data.is_empty()).then_some(Value::Object(data));
    let doc = match input.protocol {
        Protocol::Native => Document::Native(Envelope {
            schema: PAYLOAD_SCHEMA_NAME,
            version: PAYLOAD_VERSION,
            phase,
            hook_id: input.hook_id,
            run_id: input.ctx.run_id(),
            turn: u64::from(input.ctx.turn()),
            cwd: &cwd,
            target_ran: target_ran(phase),
            mode: input.mode,
            tool_name: event.tool_name(),
            call_id: event.call_id(),
            args,
            result,
            outcome,
            prompt,
            data,
            affected_paths,
            path_diagnostics: &path_diagnostics,
            binary,
            loop_count,
        }),
        protocol => {
            let mut v = match protocol {
                Protocol::Gemini => crate::shell::protocol::gemini::stdin_payload(
                    event,
                    input.ctx,
                    &cwd,
                    args.as_deref(),
                    result.as_deref(),
                ),
                Protocol::Copilot => crate::shell::protocol::copilot::stdin_payload(
                    event,
                    input.ctx,
                    &cwd,
                    args.as_deref(),
                    result.as_deref(),
                ),
                _ => claude::stdin_payload(
                    event,
                    input.ctx,
                    &cwd,
                    args.as_deref(),
                    result.as_deref(),
                ),
            };
            if let (Protocol::Codex, Some(map)) = (protocol, v.as_object_mut()) {
                // Codex's input names the turn beside Claude Code's fields.
                let turn = format!("{}:{}", input.ctx.run_id(), input.ctx.turn());
                map.insert("turn_id".into(), turn.into());
            }
            if let (Some(map), Some(p)) = (v.as_object_mut(), prompt) {
                map.insert("prompt".into(), p.into_owned().into());
            }
            if redact {
                // Also covers the fields `stdin_payload` copies from the event.
                v = redact_json(&v, input.secrets);
            }
            Document::Claude(v)
        }
    };
    // Measured only when it may fit: a document whose strings alone are
    // over the cap spills without a pass to count it.
    let hint = doc.min_json_len();
    let fits = (hint <= input.limits.stdin_cap)
        .then(|| render.render_within(&doc, input.limits.stdin_cap, hint))
        .flatten();
    if let Some(document) = fits {
        drop(doc);
        return Ok(BuiltPayload {
            document,
            spill: None,
            diagnostics,
            path_diagnostics,
            refusal,
        });
    }
    // Over the stdin cap: the whole payload is serialized once, straight
    // into a payload-ref file (no escaped copy in memory, no copy of the
    // value), and stdin gets an elided envelope.
    let spill = match input.session_dir {
        // A refused call runs nothing: nothing to spill.
        _ if refusal.is_some() => None,
        Some(dir) => {
            let spill = write_spill(dir, input, &doc, input.limits.spill_cap)?;
            if spill.is_none() {
                diagnostics.push(format!(
                    "payload of hook `{}` is {} bytes, over the spill cap of {} bytes: sent without `payload_ref`",
                    input.hook_id,
                    json_len(&doc),
                    input.limits.spill_cap
                ));
            }
            spill
        }
        None => {
            diagnostics.push(format!(
                "payload of hook `{}` is {} bytes, over the stdin cap, and no session directory is configured: sent without `payload_ref`",
                input.hook_id,
                json_len(&doc)
            ));
            None
        }
    };
    let full = match doc {
        // The elided fields are dropped before the envelope becomes a
        // value; a small stand-in keeps each present key in its place, so
        // the envelope reads as before (the keys are removed below).
        Document::Native(mut envelope) => {
            let stand_in = || Cow::Owned(Value::Null);
            envelope.args = envelope.args.map(|_| stand_in());
            envelope.result = envelope.result.map(|_| stand_in());
            envelope.prompt = envelope.prompt.map(|_| Cow::Borrowed(""));
            envelope.data = envelope.data.map(|_| Value::Null);
            serde_json::to_value(&envelope).unwrap_or(Value::Null)
        }
        Document::Claude(value) => value,
    };
    let mut stub = full;
    if let Some(map) = stub.as_object_mut() {
        for key in [
            "args",
            "result",
            "prompt",
            "data",
            "binary",
            "tool_input",
            "tool_response",
        ] {
            map.remove(key);
        }
        // Every protocol names its large fields its own way (Copilot's
        // `toolArgs`, Claude Code's `request`, `permission_suggestions`,
        // ...): any other field over the bound is left out too, so the
        // stdin copy keeps the ids, names and paths and stays small.
        map.retain(|_, value| json_len_within(value, ELIDED_FIELD_MAX).is_some());
        match input.protocol {
            Protocol::Native => {
                map.insert("elided".into(), true.into());
            }
            Protocol::Claude | Protocol::Codex | Protocol::Gemini | Protocol::Copilot => {
                map.insert("payload_elided".into(), true.into());
            }
        }
        if let Some(s) = &spill {
            map.insert(
                "payload_ref".into(),
                s.path().to_string_lossy().into_owned().into(),
            );
        }
    }
    let document = render.render(&stub, json_len(&stub));
    Ok(BuiltPayload {
        document,
        spill,
        diagnostics,
        path_diagnostics,
        refusal,
    })
}

fn target_ran(phase: Phase) -> bool {
    phase.is_after_phase()
}

const BINARY_TYPES: [&str; 5] = ["image", "audio", "file", "bytes", "binary"];

/// Replaces binary blobs inside `value` (at JSON pointer `at`) by
/// `{"$binary": N}` and appends their metadata to `out`.
fn extract_binary(value: &mut Value, at: &str, out: &mut Vec<BinaryMeta>) {
    if let Some((kind, data)) = binary_blob(value) {
        let (len, digest) = match base64::engine::general_purpose::STANDARD.decode(data.as_bytes())
        {
            Ok(bytes) => (bytes.len(), Sha256::digest(&bytes)),
            Err(_) => (data.len(), Sha256::digest(data.as_bytes())),
        };
        let sha256 = digest.iter().map(|b| format!("{b:02x}")).collect();
        out.push(BinaryMeta {
            pointer: at.to_owned(),
            kind: kind.to_owned(),
            len_bytes: len as u64,
            sha256,
        });
        *value = json!({ "$binary": out.len() - 1 });
        return;
    }
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                extract_binary(item, &format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                let key = hooks_plan::automata::escape_token(k);
                extract_binary(v, &format!("{at}/{key}"), out);
            }
        }
        _ => {}
    }
}

/// Whether `value` holds a binary blob ([`extract_binary`] would change
/// it), found without copying anything. `value` nests at most
/// [`MAX_DEPTH`] levels (the recursion is bounded by it).
fn has_binary(value: &Value) -> bool {
    binary_blob(value).is_some()
        || match value {
            Value::Array(items) => items.iter().any(has_binary),
            Value::Object(map) => map.values().any(has_binary),
            _ => false,
        }
}

/// `(kind, base64 text)` when `value` is a binary blob.
fn binary_blob(value: &Value) -> Option<(&str, &str)> {
    match value {
        Value::String(s) if s.starts_with("data:") => {
            let (head, data) = s.split_once(',')?;
            let mime = head.strip_prefix("data:")?.strip_suffix(";base64")?;
            let kind = if mime.is_empty() { "bytes" } else { mime };
            Some((kind, data))
        }
        Value::Object(map) => {
            let ty = map.get("type")?.as_str()?;
            if !BINARY_TYPES.contains(&ty) {
                return None;
            }
            let data = map
                .get("data")
                .and_then(Value::as_str)
                .or_else(|| map.get("source")?.get("data")?.as_str())?;
            let mime = ["mime_type", "mimeType", "media_type"]
                .iter()
                .find_map(|k| map.get(*k).and_then(Value::as_str))
                .or_else(|| map.get("source")?.get("media_type")?.as_str());
            Some((mime.unwrap_or(ty), data))
        }
        _ => None,
    }
}

/// Most levels of nesting a payload keeps of an event's JSON value (a
/// scalar is one level). Deeper values are elided with a diagnostic: hooks
/// could not read them (serde_json's parser stops at 128 levels, and the
/// payload wraps the value in two more), and copying, redacting and
/// serializing them recurses once per level, which on a thread's stack
/// (2 MiB by default) would overflow and abort the process.
pub(crate) const MAX_DEPTH: usize = 100;

/// Whether `value` nests more than `max` levels (a scalar is 1 level),
/// found without allocating: the recursion stops `max + 1` levels down,
/// however deep `value` is.
fn nests_deeper_than(value: &Value, max: usize) -> bool {
    let Some(below) = max.checked_sub(1) else {
        return true;
    };
    match value {
        Value::Array(items) => items.iter().any(|i| nests_deeper_than(i, below)),
        Value::Object(map) => map.values().any(|i| nests_deeper_than(i, below)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_blobs_become_metadata() {
        let mut v = json!({"content": [
            {"type": "text", "text": "hi"},
            {"type": "image", "data": "AQID", "mime_type": "image/png"},
        ], "raw": "data:application/octet-stream;base64,AAAA"});
        let mut out = Vec::new();
        extract_binary(&mut v, "/result", &mut out);
        assert_eq!(v["content"][1], json!({"$binary": 0}));
        assert_eq!(v["raw"], json!({"$binary": 1}));
        assert_eq!(out[0].pointer, "/result/content/1");
        assert_eq!(out[0].kind, "image/png");
        assert_eq!(out[0].len_bytes, 3);
        assert_eq!(
            out[0].sha256,
            "039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81"
        );
        assert_eq!(out[1].len_bytes, 3);
        assert_eq!(v["content"][0]["text"], "hi");
    }
}
