//! The session's records file: one JSON line per hook invocation and per
//! context injection.
//!
//! One [`RecordWriter`] owns the file; clones share it. Each record is
//! serialized, passed through [`redact_sensitive_text`], and written with a
//! single `write_all` under a mutex on a file opened in append mode, so lines
//! of concurrent invocations never interleave.

use std::borrow::Cow;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use hooks_plan::{FailurePolicy, Mode, PathDiagnostic, Phase};
use serde::Serialize;

use crate::core::id::HookId;
use crate::core::report::{OutputSizes, StreamSize};
use crate::shell::redact::{SecretSet, redact_sensitive_text};

/// How one hook invocation ended, as recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordStatus {
    /// The hook ran and returned no decision (`continue`).
    Ok,
    /// The hook ran and returned a decision (see [`HookRecord::decision`]).
    Decision,
    /// The hook failed (see [`HookRecord::failure_kind`]); the failure
    /// policy decided what happened.
    Failed,
    /// The hook ran in `mode: audit`: its would-be decision is in
    /// [`HookRecord::decision`], the run continued.
    Audited,
    /// The hook was not run (for example, the stop-resume cap was reached
    /// and its resume was refused).
    Refused,
}

/// `hook_id`, and `config` and `layer` when the id names them.
fn hook_origin<S: serde::Serializer>(id: &HookId, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(None)?;
    map.serialize_entry("hook_id", id)?;
    if let Some(config) = id.source() {
        map.serialize_entry("config", config)?;
    }
    if let Some(layer) = id.layer() {
        map.serialize_entry("layer", layer)?;
    }
    map.end()
}

/// One line of the records file for one hook invocation.
///
/// JSON shape: `{"record":"hook","phase":"before_tool","hook_id":"guard",
/// "tool":"bash","status":"failed","decision":"skip","failure_kind":
/// "timed_out","policy":"block","mode":"enforce","elapsed_ms":3,
/// "target_ran":false,"message":"...","stdout":{"bytes":0,"truncated":false},
/// "stderr":{"bytes":52428800,"truncated":true},"path_diagnostics":
/// [{"kind":"outside_root","pointer":"/path","path":"/etc/passwd"}]}`;
/// absent optional fields are left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookRecord {
    /// Always `"hook"`.
    pub record: &'static str,
    /// The event's phase.
    pub phase: Phase,
    /// The hook's id (shared with the hook's spec: no copy per record),
    /// written as `hook_id`, with the `config` and `layer` it comes from
    /// when it names them (docs/fleet.md, *Layers*).
    #[serde(flatten, serialize_with = "hook_origin")]
    pub hook_id: HookId,
    /// The tool's name, on tool phases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// How the invocation ended.
    pub status: RecordStatus,
    /// The flow the hook's result amounted to (`skip`, `terminate`, ...), or
    /// in audit mode the flow it would have amounted to; absent for `continue`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<&'static str>,
    /// The named failure kind (`spawn_failed`, `timed_out`, ...), when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_kind: Option<&'static str>,
    /// The hook's failure policy.
    pub policy: FailurePolicy,
    /// The hook's mode (`enforce` or `audit`).
    pub mode: Mode,
    /// Wall-clock time of the invocation in milliseconds.
    pub elapsed_ms: u64,
    /// Whether the event's target already ran (after-phases).
    pub target_ran: bool,
    /// A short, redacted human-readable message (a failure's detail, a
    /// decision's reason); never command text or tool output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Redacted notes about output the hook's protocol accepted but
    /// ignored, such as an unknown Claude Code output field; absent when
    /// there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// How many bytes the hook's process wrote to stdout and stderr and
    /// whether either capture was cut at its cap (serialized flat, as
    /// `stdout` and `stderr` objects); absent when no process ran.
    #[serde(flatten)]
    pub output: Option<OutputSizes>,
    /// Findings about the tool call's affected paths (a path outside the
    /// workspace root, ...), as in the payload's `path_diagnostics`; absent
    /// when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub path_diagnostics: Vec<PathDiagnostic>,
    /// What an `http` hook's server answered: status, body size, OPA's
    /// decision id; absent for other hooks and when no answer came.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpExchange>,
    /// The policy a `policy` hook evaluated (its query and digest); absent
    /// for other hooks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rego: Option<Box<PolicyIdentity>>,
    /// Whether the hook ran in the background (`async: true`), serialized
    /// as `"async": true`; absent otherwise. Such a record is written when
    /// the hook ends, after the records of the events that came since it
    /// started.
    #[serde(rename = "async", skip_serializing_if = "is_false")]
    pub background: bool,
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde skip_serializing_if signature"
)]
const fn is_false(b: &bool) -> bool {
    !*b
}

/// What an `http` hook's server answered, in its record.
///
/// JSON shape: `{"status":200,"body":{"bytes":52,"truncated":false},
/// "decision_id":"4ca636c1-..."}` (`decision_id` only when the server gave
/// one: OPA with decision logging on).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HttpExchange {
    /// The HTTP status code.
    pub status: u16,
    /// How many bytes the body had and whether it was cut at the cap
    /// (`limits.max_output_bytes`, the stdout cap).
    pub body: StreamSize,
    /// The decision id OPA returned (`protocol: opa`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_id: Option<String>,
}

/// Which Rego policy decided, in a `policy` hook's record: the query and
/// the digest of its files (`sha256:...`, see
/// [`hooks_plan::policy_digest`]), so a decision can be traced
/// to the exact policy text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PolicyIdentity {
    /// The query, e.g. `data.agent.tools.decision`.
    pub query: String,
    /// The digest of the policy's files.
    pub digest: String,
}

/// Whether a hook's context items were added to the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InjectionStatus {
    /// All items were added.
    Injected,
    /// Items were refused: their total size was over `max_bytes`.
    TooLarge,
    /// Items were not added because the hook ran in audit mode.
    Audited,
    /// A background hook's items were not added: the run ended before an
    /// event that takes context came, or `limits.max_async_queued` results
    /// of the run already waited for delivery.
    Dropped,
}

/// One line of the records file for one context injection.
///
/// JSON shape: `{"record":"context_injection","phase":"after_tool",
/// "hook_id":"lint","status":"injected","item_count":1,"byte_count":42,
/// "max_bytes":16384,"injection_id":"run-1/3/lint/0"}`; a background hook's
/// delivered items add `"delivered_on":"before_tool"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InjectionRecord {
    /// Always `"context_injection"`.
    pub record: &'static str,
    /// The event's phase.
    pub phase: Phase,
    /// The hook's id.
    pub hook_id: String,
    /// Whether the items were added.
    pub status: InjectionStatus,
    /// How many items the hook gave.
    pub item_count: usize,
    /// Their total content size in bytes (UTF-8).
    pub byte_count: usize,
    /// The cap on `byte_count` (bytes).
    pub max_bytes: usize,
    /// A stable id of this injection: `<run_id>/<turn>/<hook_id>/<n>`.
    pub injection_id: String,
    /// For a background hook's items (`async: true`; `phase` is the phase
    /// the hook ran on): the phase of the later event they were delivered
    /// with; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivered_on: Option<Phase>,
}

/// Either kind of record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Record {
    /// A hook invocation.
    Hook(HookRecord),
    /// A context injection.
    Injection(InjectionRecord),
}

#[derive(Debug)]
struct Inner {
    path: PathBuf,
    file: Mutex<File>,
    secrets: SecretSet,
    /// Lines that could not be written (count).
    failed: AtomicU64,
    /// The most recent write failure, as text (`kind: message`).
    last_error: Mutex<Option<String>>,
}

/// The single writer of a session's records file. Cheap to clone; clones
/// share the file, its lock and its failure state.
///
/// # Errors
///
/// A record that cannot be written (disk full, `/dev/full`, file system
/// gone read-only, ...) is lost, but never silently: [`RecordWriter::write`]
/// returns the I/O error, the writer counts it ([`RecordWriter::failed_writes`])
/// and keeps the last one ([`RecordWriter::last_error`]), and a
/// [`ShellRuntime`](crate::ShellRuntime) turns it into a redacted diagnostic
/// of the call that wrote it (in its [`HookReport`](crate::HookReport) and
/// the fold's diagnostics) naming the records path and the OS
/// error, e.g. ``cannot write to the records file `/s/records.jsonl`: No
/// space left on device (os error 28); 1 record lost so far``.
#[derive(Debug, Clone)]
pub struct RecordWriter {
    inner: Arc<Inner>,
}

impl RecordWriter {
    /// Opens (creating, mode 0600, or appending to) the records file at
    /// `path`. `secrets` are redacted from every line in addition to the
    /// built-in token shapes.
    ///
    /// # Errors
    ///
    /// The I/O error of opening the file.
    pub fn open(path: impl AsRef<Path>, secrets: SecretSet) -> io::Result<Self> {
        use std::os::unix::fs::OpenOptionsExt;
        let path = path.as_ref().to_path_buf();
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&path)?;
        Ok(RecordWriter {
            inner: Arc::new(Inner {
                path,
                file: Mutex::new(file),
                secrets,
                failed: AtomicU64::new(0),
                last_error: Mutex::new(None),
            }),
        })
    }

    /// The records file's path.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Writes `record` as one line: serialized, redacted with the writer's
    /// secrets plus `extra` (for example the hook's own environment
    /// secrets), then written with one `write_all` under the writer's lock.
    ///
    /// # Errors
    ///
    /// The I/O error of writing the line (the record is lost; a partial line
    /// may remain). The failure is also counted ([`RecordWriter::failed_writes`])
    /// and kept ([`RecordWriter::last_error`]).
    pub fn write(&self, record: &Record, extra: &SecretSet) -> io::Result<()> {
        self.write_line(&self.render(record, extra))
    }

    /// Writes `line`, a record [`RecordWriter::render`] rendered, as
    /// [`RecordWriter::write`] does.
    pub(crate) fn write_line(&self, line: &str) -> io::Result<()> {
        self.write_lines(line, 1)
    }

    /// Writes `lines`, `count` rendered records one after another, with
    /// one `write_all` (one syscall when the file takes them at once): the
    /// records a decision produced, written together when it is made. On
    /// failure all `count` are counted as lost.
    pub(crate) fn write_lines(&self, lines: &str, count: u64) -> io::Result<()> {
        let result = {
            let mut file = self
                .inner
                .file
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            file.write_all(lines.as_bytes())
        };
        if let Err(err) = &result {
            self.inner.failed.fetch_add(count, Ordering::Relaxed);
            *self
                .inner
                .last_error
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(err.to_string());
        }
        result
    }

    /// The diagnostic for a write that failed with `err` (not yet
    /// redacted): the file, the OS error and how many records are lost so far.
    pub(crate) fn lost_records_message(&self, err: &io::Error) -> String {
        let lost = self.failed_writes();
        let plural = if lost == 1 { "" } else { "s" };
        format!(
            "cannot write to the records file `{}`: {err}; {lost} record{plural} lost so far",
            self.path().display()
        )
    }

    /// How many records could not be written since the file was opened
    /// (all clones together).
    pub fn failed_writes(&self) -> u64 {
        self.inner.failed.load(Ordering::Relaxed)
    }

    /// The OS error of the most recent failed write (its `Display` text,
    /// e.g. `No space left on device (os error 28)`), or `None` when every
    /// write so far succeeded.
    pub fn last_error(&self) -> Option<String> {
        self.inner
            .last_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The exact line [`RecordWriter::write`] writes for `record`, with its
    /// trailing `\n`.
    pub fn render(&self, record: &Record, extra: &SecretSet) -> String {
        match record {
            Record::Hook(h) => self.render_hook(h, extra),
            Record::Injection(i) => Self::line(serde_json::to_string(i), &self.secrets_with(extra)),
        }
    }

    /// [`RecordWriter::render`] of a hook record, without wrapping it in a
    /// [`Record`] (the record is copied only when a field is redacted).
    pub(crate) fn render_hook(&self, h: &HookRecord, extra: &SecretSet) -> String {
        let secrets = &*self.secrets_with(extra);
        let message = h
            .message
            .as_deref()
            .map(|m| redact_sensitive_text(m, secrets));
        let id = redact_sensitive_text(h.hook_id.as_str(), secrets);
        let tool = h.tool.as_deref().map(|t| redact_sensitive_text(t, secrets));
        let owned = |text: &Option<Cow<'_, str>>| matches!(text, Some(Cow::Owned(_)));
        let json = if owned(&message) || owned(&tool) || matches!(id, Cow::Owned(_)) {
            let mut redacted = h.clone();
            redacted.message = message.map(Cow::into_owned);
            if let Cow::Owned(id) = id {
                redacted.hook_id = id.into();
            }
            redacted.tool = tool.map(Cow::into_owned);
            serde_json::to_string(&redacted)
        } else {
            serde_json::to_string(h)
        };
        Self::line(json, secrets)
    }

    /// The writer's secrets, plus `extra` (copied only when `extra` adds
    /// to them).
    fn secrets_with<'s>(&'s self, extra: &SecretSet) -> Cow<'s, SecretSet> {
        let own = &self.inner.secrets;
        if extra.values().iter().all(|v| own.values().contains(v)) {
            Cow::Borrowed(own)
        } else {
            let mut secrets = own.clone();
            secrets.extend(extra);
            Cow::Owned(secrets)
        }
    }

    /// The record line of `json`, a record serialized: redacted as a
    /// whole, with its `\n`.
    fn line(json: serde_json::Result<String>, secrets: &SecretSet) -> String {
        let json =
            json.unwrap_or_else(|e| format!("{{\"record\":\"unserializable\",\"error\":\"{e}\"}}"));
        // A second pass over the whole line catches anything a field-level
        // pass missed; keep it only if the line is still one JSON document
        // (checked only when the pass changed something).
        let whole = match redact_sensitive_text(&json, secrets) {
            Cow::Owned(whole) => Some(whole),
            Cow::Borrowed(_) => None,
        };
        let mut line = match whole {
            Some(whole) if serde_json::from_str::<serde::de::IgnoredAny>(&whole).is_ok() => whole,
            _ => json,
        };
        line.push('\n');
        line
    }
}
