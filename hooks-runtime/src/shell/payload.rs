//! Building a shell hook's stdin payload from a [`StepEvent`]: the envelope
//! v1 ([`hooks_schema::Payload`])
//! or Claude Code's input object, binary data as metadata, affected paths,
//! modes `full` / `redacted`, and the spill to a payload-ref file over the
//! stdin cap.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use base64::Engine as _;
use hooks_schema::{
    BinaryMeta, MAX_AFFECTED_PATH_CHARS, MAX_AFFECTED_PATHS, PAYLOAD_SCHEMA_NAME, PAYLOAD_VERSION,
    PathDiagnostic, PathDiagnosticKind, Payload, PayloadMode, Phase, Protocol,
};
use rustix::fs::{AtFlags, Mode, OFlags};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::shell::protocol::claude;
use crate::shell::redact::{SecretSet, redact_json, redact_sensitive_text};
use crate::{FlowKind, HookContext, StepEvent, ToolOutcome};

/// The environment variable that tells a hook the path of its payload-ref
/// file, when the payload spilled.
pub const PAYLOAD_REF_ENV: &str = "AGENT_HOOKS_PAYLOAD_REF";

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
            stdin_cap: usize::try_from(hooks_schema::Limits::DEFAULT.max_payload_bytes)
                .unwrap_or(usize::MAX),
            spill_cap: 16 << 20,
        }
    }
}

/// A tool's path settings (the config's `tool_settings`): which argument
/// pointers hold paths, whether absolute paths are allowed, whether the tool
/// writes. They drive [`Payload::affected_paths`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolPathSettings {
    /// RFC 6901 pointers into the tool's arguments whose values are a path
    /// (a string) or paths (an array of strings).
    pub path_pointers: Vec<String>,
    /// Whether the tool may touch paths outside the workspace root (the
    /// config's `allow_absolute_paths`). Such a path is flagged
    /// ([`PathDiagnosticKind::OutsideRoot`]) either way; when this is `false`
    /// and the tool writes, the call is refused (see [`BuiltPayload::refusal`]).
    pub allow_absolute: bool,
    /// Whether the tool writes its paths.
    pub writes: bool,
}

/// Why a payload could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PayloadError {
    /// The session directory resolves outside the workspace root.
    #[error(
        "session directory `{dir}` resolves to `{resolved}`, outside the workspace root `{root}`"
    )]
    SessionDirOutsideRoot {
        /// The configured session directory.
        dir: PathBuf,
        /// What it resolves to after canonicalization.
        resolved: PathBuf,
        /// The canonical workspace root.
        root: PathBuf,
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

/// Checks that `session_dir` resolves (symlinks followed) inside `root`;
/// returns the canonical session directory.
///
/// # Errors
///
/// [`PayloadError::SessionDirOutsideRoot`] when it does not,
/// [`PayloadError::Spill`] when it cannot be canonicalized.
pub(crate) fn check_session_dir(session_dir: &Path, root: &Path) -> Result<PathBuf, PayloadError> {
    let spill_err = |source| PayloadError::Spill {
        dir: session_dir.to_path_buf(),
        source,
    };
    let root = root.canonicalize().map_err(spill_err)?;
    let resolved = session_dir.canonicalize().map_err(spill_err)?;
    if !resolved.starts_with(&root) {
        return Err(PayloadError::SessionDirOutsideRoot {
            dir: session_dir.to_path_buf(),
            resolved,
            root,
        });
    }
    Ok(resolved)
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
    /// The canonical workspace root the session directory must lie in.
    pub root: &'a Path,
    /// Size limits.
    pub limits: PayloadLimits,
}

/// A built payload.
#[derive(Debug)]
pub struct BuiltPayload {
    /// The bytes for stdin (without the trailing `\n` the executor adds).
    pub stdin: Vec<u8>,
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
    /// workspace root. `None` otherwise.
    pub refusal: Option<String>,
}

/// A payload-ref file: mode 0600, created exclusively (`O_EXCL`,
/// `O_NOFOLLOW`) in the session directory, which is opened component by
/// component from the workspace root without following symlinks, so a
/// symlink swapped in after the check cannot redirect it. Dropping it
/// removes it (best effort, relative to that directory); [`SpillFile::remove`]
/// reports a failure.
#[derive(Debug)]
pub struct SpillFile {
    path: PathBuf,
    /// The session directory as opened, and the file's name in it.
    entry: Option<(OwnedFd, OsString)>,
}

impl SpillFile {
    /// The file's absolute path (also in [`PAYLOAD_REF_ENV`]).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the file.
    ///
    /// # Errors
    ///
    /// The I/O error of removing it (the caller turns it into a diagnostic).
    pub fn remove(mut self) -> io::Result<()> {
        match self.entry.take() {
            Some((dir, name)) => Ok(rustix::fs::unlinkat(
                &dir,
                name.as_os_str(),
                AtFlags::empty(),
            )?),
            None => Ok(()),
        }
    }
}

impl Drop for SpillFile {
    fn drop(&mut self) {
        if let Some((dir, name)) = self.entry.take() {
            let _ = rustix::fs::unlinkat(&dir, name.as_os_str(), AtFlags::empty());
        }
    }
}

/// Builds the stdin payload of one hook invocation for `event`.
///
/// Binary blobs in the event's JSON values (objects with `type` `image`,
/// `audio`, `file`, `bytes` or `binary` and a base64 string `data` or
/// `source.data`; `data:` URLs) are replaced by `{"$binary": N}` and listed
/// in [`Payload::binary`] with kind, decoded length and SHA-256. In
/// `redacted` mode every value goes through [`redact_json`] /
/// [`redact_sensitive_text`] with `input.secrets`.
///
/// When the serialized payload is over `limits.stdin_cap` bytes it is
/// written to a new payload-ref file under the session directory (mode 0600,
/// `create_new`, containment in the root checked after canonicalization)
/// and stdin gets the envelope with `elided: true` and `payload_ref`; over
/// `limits.spill_cap` (or with no session directory) the ref is left out.
///
/// # Errors
///
/// [`PayloadError`] when the session directory is outside the root or the
/// spill file cannot be written.
pub fn build(
    event: &StepEvent<'_>,
    input: &PayloadInput<'_>,
) -> Result<BuiltPayload, PayloadError> {
    let phase = event.kind();
    let mut diagnostics = Vec::new();
    let mut binary = Vec::new();
    let redact = input.mode == PayloadMode::Redacted;
    let mut prep = |value: &Value, root: &str| -> Value {
        if nests_deeper_than(value, MAX_DEPTH) {
            diagnostics.push(format!(
                "`{root}` nests deeper than {MAX_DEPTH} levels: elided from the payload"
            ));
            return Value::String(format!("[elided: nested deeper than {MAX_DEPTH} levels]"));
        }
        let mut v = value.clone();
        extract_binary(&mut v, root, &mut binary);
        if redact {
            redact_json(&v, input.secrets)
        } else {
            v
        }
    };
    let text = |s: &str| -> String {
        if redact {
            redact_sensitive_text(s, input.secrets).into_owned()
        } else {
            s.to_owned()
        }
    };
    let mut args = None;
    let mut result = None;
    let mut outcome = None;
    let mut prompt = None;
    let mut loop_count = None;
    let mut data = Map::new();
    match *event {
        StepEvent::RunStart => {}
        StepEvent::UserPrompt { prompt: p } => prompt = Some(text(p)),
        StepEvent::BeforeCompletion { request } => {
            data.insert("request".into(), prep(request, "/data/request"));
        }
        StepEvent::AfterCompletion { response } | StepEvent::StreamFinish { response } => {
            data.insert("response".into(), prep(response, "/data/response"));
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
                data.insert("suggestions".into(), prep(suggestions, "/data/suggestions"));
            }
        }
        StepEvent::AfterToolBatch { calls } => {
            data.insert("calls".into(), prep(calls, "/data/calls"));
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
                    prep(original_args, "/data/original_args"),
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
    let paths = match (input.tool_paths, event) {
        (
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
        .and_then(|_| {
            let outside = paths
                .diagnostics
                .iter()
                .find(|d| d.kind == PathDiagnosticKind::OutsideRoot)?;
            Some(format!(
                "refused: the tool writes `{}` (at `{}`), outside the workspace root, and its settings do not allow paths outside it",
                outside.path, outside.pointer
            ))
        });
    let AffectedPaths {
        paths: affected_paths,
        diagnostics: path_diagnostics,
    } = paths;
    let cwd = input.cwd.to_string_lossy().into_owned();
    let data = (!data.is_empty()).then_some(Value::Object(data));
    let full: Value = match input.protocol {
        Protocol::Native => {
            let payload = Payload {
                schema: PAYLOAD_SCHEMA_NAME.to_owned(),
                version: PAYLOAD_VERSION,
                phase,
                hook_id: input.hook_id.to_owned(),
                run_id: input.ctx.run_id().to_owned(),
                turn: u64::from(input.ctx.turn()),
                cwd: cwd.clone(),
                target_ran: target_ran(phase),
                mode: input.mode,
                tool_name: event.tool_name().map(str::to_owned),
                call_id: event.call_id().map(str::to_owned),
                args,
                result,
                outcome,
                prompt,
                data,
                affected_paths,
                path_diagnostics: path_diagnostics.clone(),
                binary,
                loop_count,
                payload_ref: None,
                elided: false,
            };
            serde_json::to_value(&payload).unwrap_or(Value::Null)
        }
        Protocol::Claude => {
            let mut v =
                claude::stdin_payload(event, input.ctx, &cwd, args.as_ref(), result.as_ref());
            if let (Some(map), Some(p)) = (v.as_object_mut(), prompt) {
                map.insert("prompt".into(), p.into());
            }
            if redact {
                // Also covers the fields `stdin_payload` copies from the event.
                v = redact_json(&v, input.secrets);
            }
            v
        }
    };
    let bytes = serde_json::to_vec(&full).unwrap_or_default();
    if bytes.len() <= input.limits.stdin_cap {
        return Ok(BuiltPayload {
            stdin: bytes,
            spill: None,
            diagnostics,
            path_diagnostics,
            refusal,
        });
    }
    // Over the stdin cap: spill the whole payload, send an elided envelope.
    let spill = match input.session_dir {
        // A refused call runs nothing: nothing to spill.
        _ if refusal.is_some() => None,
        Some(dir) if bytes.len() <= input.limits.spill_cap => {
            Some(write_spill(dir, input, &bytes)?)
        }
        Some(_) => {
            diagnostics.push(format!(
                "payload of hook `{}` is {} bytes, over the spill cap of {} bytes: sent without `payload_ref`",
                input.hook_id,
                bytes.len(),
                input.limits.spill_cap
            ));
            None
        }
        None => {
            diagnostics.push(format!(
                "payload of hook `{}` is {} bytes, over the stdin cap, and no session directory is configured: sent without `payload_ref`",
                input.hook_id,
                bytes.len()
            ));
            None
        }
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
        match input.protocol {
            Protocol::Native => {
                map.insert("elided".into(), true.into());
            }
            Protocol::Claude => {
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
    Ok(BuiltPayload {
        stdin: serde_json::to_vec(&stub).unwrap_or_default(),
        spill,
        diagnostics,
        path_diagnostics,
        refusal,
    })
}

fn target_ran(phase: Phase) -> bool {
    phase.is_after_phase()
}

static SPILL_COUNTER: AtomicU64 = AtomicU64::new(0);

fn write_spill(
    dir: &Path,
    input: &PayloadInput<'_>,
    bytes: &[u8],
) -> Result<SpillFile, PayloadError> {
    let err = |source| PayloadError::Spill {
        dir: dir.to_path_buf(),
        source,
    };
    let checked = check_session_dir(dir, input.root)?;
    let root = input.root.canonicalize().map_err(err)?;
    let n = SPILL_COUNTER.fetch_add(1, Ordering::Relaxed);
    let safe_id: String = input
        .hook_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    let name = format!("payload-{}-{safe_id}-{n}.json", std::process::id());
    create_spill(&root, &checked, name.as_ref(), bytes).map_err(err)
}

/// Creates the payload-ref file `name` (mode 0600) in `dir`, a session
/// directory already checked to lie in `root` (both canonical), and writes
/// `bytes` to it. `dir` is opened from `root` one component at a time with
/// `O_NOFOLLOW`, and the file with `O_CREAT | O_EXCL | O_NOFOLLOW` in that
/// directory: a component or the file swapped for a symlink since the check
/// makes this fail instead of writing elsewhere.
fn create_spill(root: &Path, dir: &Path, name: &OsStr, bytes: &[u8]) -> io::Result<SpillFile> {
    let rel = dir.strip_prefix(root).map_err(|_| {
        io::Error::new(
            io::ErrorKind::PermissionDenied,
            "the session directory is not inside the workspace root",
        )
    })?;
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let mut fd = rustix::fs::open(root, dir_flags, Mode::empty())?;
    for part in rel.components() {
        let Component::Normal(part) = part else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the session directory path is not canonical",
            ));
        };
        fd = rustix::fs::openat(&fd, part, dir_flags | OFlags::NOFOLLOW, Mode::empty())?;
    }
    let file_fd = rustix::fs::openat(
        &fd,
        name,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )?;
    let spill = SpillFile {
        path: dir.join(name),
        entry: Some((fd, name.to_owned())),
    };
    let mut file = std::fs::File::from(file_fd);
    file.write_all(bytes)?;
    file.flush()?;
    Ok(spill)
}

/// The affected paths of a tool call and the findings about them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AffectedPaths {
    /// The resolved paths, at most [`MAX_AFFECTED_PATHS`], without duplicates.
    pub paths: Vec<String>,
    /// One finding per path outside the root, too long or past the cap.
    pub diagnostics: Vec<PathDiagnostic>,
}

/// Resolves the affected paths of a tool call: the strings (or arrays of
/// strings) at `settings.path_pointers` in `args`, relative ones joined to
/// `cwd`, each resolved against the real file system (`..` and
/// the symlinks of every component). A path that resolves outside `root` is
/// listed and flagged [`PathDiagnosticKind::OutsideRoot`]; paths longer than
/// 1024 characters and entries past the 16th are left out and flagged.
pub fn affected_paths(
    args: &Value,
    settings: &ToolPathSettings,
    cwd: &Path,
    root: &Path,
) -> AffectedPaths {
    let root = resolve(root);
    let mut out = AffectedPaths::default();
    for pointer in &settings.path_pointers {
        let raw: Vec<&str> = match args.pointer(pointer) {
            Some(Value::String(s)) => vec![s.as_str()],
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        for p in raw {
            let resolved = resolve(&cwd.join(p));
            let s = resolved.to_string_lossy().into_owned();
            let finding = |kind| PathDiagnostic {
                kind,
                pointer: pointer.clone(),
                path: s.chars().take(MAX_AFFECTED_PATH_CHARS).collect(),
            };
            if s.chars().count() > MAX_AFFECTED_PATH_CHARS {
                out.diagnostics.push(finding(PathDiagnosticKind::TooLong));
                continue;
            }
            if out.paths.contains(&s) {
                continue;
            }
            if out.paths.len() == MAX_AFFECTED_PATHS {
                out.diagnostics.push(finding(PathDiagnosticKind::TooMany));
                continue;
            }
            if !resolved.starts_with(&root) {
                out.diagnostics
                    .push(finding(PathDiagnosticKind::OutsideRoot));
            }
            out.paths.push(s);
        }
    }
    out
}

/// The operator's text for a path finding.
fn describe(d: &PathDiagnostic) -> String {
    let (pointer, path) = (&d.pointer, &d.path);
    match d.kind {
        PathDiagnosticKind::OutsideRoot => {
            format!("affected path at `{pointer}` resolves to `{path}`, outside the workspace root")
        }
        PathDiagnosticKind::TooLong => format!(
            "affected path at `{pointer}` is longer than {MAX_AFFECTED_PATH_CHARS} characters: left out"
        ),
        _ => format!(
            "affected path `{path}` at `{pointer}` is past the first {MAX_AFFECTED_PATHS}: left out"
        ),
    }
}

/// Most symlinks [`resolve`] follows for one path (Linux's limit).
const MAX_SYMLINKS: usize = 40;

/// Resolves an absolute `path` as the OS would open it: `.` dropped, each
/// symlink (in any component, dangling or not) replaced by its target, `..`
/// taken against what the path resolved to so far; the components that do
/// not exist are kept as written (a `..` after one removes it). After
/// [`MAX_SYMLINKS`] symlinks the rest is appended lexically. A snapshot: the
/// file system may change afterwards.
pub(crate) fn resolve(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    let mut todo: VecDeque<OsString> = VecDeque::new();
    push_front(&mut todo, path);
    let mut followed = 0;
    while let Some(part) = todo.pop_front() {
        if part == ".." {
            out.pop();
            continue;
        }
        let next = out.join(&part);
        let link = (followed < MAX_SYMLINKS)
            .then(|| std::fs::read_link(&next).ok())
            .flatten();
        match link {
            Some(target) => {
                followed += 1;
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                push_front(&mut todo, &target);
            }
            None => out = next,
        }
    }
    out
}

/// Puts the normal and `..` components of `path` in front of `todo`.
fn push_front(todo: &mut VecDeque<OsString>, path: &Path) {
    for c in path.components().rev() {
        match c {
            Component::Normal(part) => todo.push_front(part.to_owned()),
            Component::ParentDir => todo.push_front("..".into()),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
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
            kind,
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
                let key = hooks_schema::automata::escape_token(k);
                extract_binary(v, &format!("{at}/{key}"), out);
            }
        }
        _ => {}
    }
}

/// `(kind, base64 text)` when `value` is a binary blob.
fn binary_blob(value: &Value) -> Option<(String, String)> {
    match value {
        Value::String(s) if s.starts_with("data:") => {
            let (head, data) = s.split_once(',')?;
            let mime = head.strip_prefix("data:")?.strip_suffix(";base64")?;
            let kind = if mime.is_empty() { "bytes" } else { mime };
            Some((kind.to_owned(), data.to_owned()))
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
            Some((mime.unwrap_or(ty).to_owned(), data.to_owned()))
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
/// found without recursion.
fn nests_deeper_than(value: &Value, max: usize) -> bool {
    let mut stack = vec![(value, 1usize)];
    while let Some((v, depth)) = stack.pop() {
        if depth > max {
            return true;
        }
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|i| (i, depth + 1))),
            _ => {}
        }
    }
    false
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

    fn settings(pointers: &[&str], writes: bool) -> ToolPathSettings {
        ToolPathSettings {
            path_pointers: pointers.iter().map(|p| (*p).to_owned()).collect(),
            allow_absolute: false,
            writes,
        }
    }

    /// A canonical temporary workspace root.
    fn workspace() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        (dir, root)
    }

    #[test]
    fn dot_dot_out_of_the_root_is_resolved_and_flagged() {
        let (_dir, root) = workspace();
        let cwd = root.join("sub");
        std::fs::create_dir(&cwd).unwrap();
        let args = json!({"path": "../../etc/passwd"});
        let got = affected_paths(&args, &settings(&["/path"], false), &cwd, &root);
        let want = root.parent().unwrap().join("etc/passwd");
        assert_eq!(got.paths, vec![want.to_string_lossy().into_owned()]);
        assert_eq!(
            got.diagnostics,
            vec![PathDiagnostic {
                kind: PathDiagnosticKind::OutsideRoot,
                pointer: "/path".into(),
                path: want.to_string_lossy().into_owned(),
            }]
        );
    }

    #[test]
    fn a_symlinked_parent_is_resolved_and_flagged() {
        let (_dir, root) = workspace();
        std::os::unix::fs::symlink("/etc", root.join("linkdir")).unwrap();
        // Also through a relative link and a link chain.
        std::fs::create_dir(root.join("d")).unwrap();
        std::os::unix::fs::symlink("../linkdir", root.join("d/up")).unwrap();
        let args = json!({"paths": ["linkdir/passwd", "d/up/hosts", "d/../linkdir/x/../y"]});
        let got = affected_paths(&args, &settings(&["/paths"], false), &root, &root);
        assert_eq!(got.paths, ["/etc/passwd", "/etc/hosts", "/etc/y"]);
        assert_eq!(got.diagnostics.len(), 3, "{:?}", got.diagnostics);
        assert!(
            got.diagnostics
                .iter()
                .all(|d| d.kind == PathDiagnosticKind::OutsideRoot)
        );
    }

    #[test]
    fn a_dangling_symlink_resolves_to_its_target() {
        let (_dir, root) = workspace();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().canonicalize().unwrap().join("new.txt");
        std::os::unix::fs::symlink(&target, root.join("out")).unwrap();
        let got = affected_paths(&json!({"p": "out"}), &settings(&["/p"], true), &root, &root);
        assert_eq!(got.paths, vec![target.to_string_lossy().into_owned()]);
        assert_eq!(got.diagnostics[0].kind, PathDiagnosticKind::OutsideRoot);
    }

    #[test]
    fn an_absolute_path_inside_the_root_is_kept_unflagged() {
        let (_dir, root) = workspace();
        std::fs::create_dir(root.join("src")).unwrap();
        std::os::unix::fs::symlink("src", root.join("alias")).unwrap();
        let abs = root.join("src/lib.rs").to_string_lossy().into_owned();
        let via_link = root.join("alias/lib.rs").to_string_lossy().into_owned();
        let args = json!({"paths": [abs, via_link, "src/./new/../lib.rs", "c"]});
        let got = affected_paths(&args, &settings(&["/paths"], true), &root, &root);
        let p = |s: &str| root.join(s).to_string_lossy().into_owned();
        assert_eq!(got.paths, vec![p("src/lib.rs"), p("c")]);
        assert!(got.diagnostics.is_empty(), "{:?}", got.diagnostics);
    }

    #[test]
    fn paths_past_the_cap_or_too_long_are_left_out_and_flagged() {
        let (_dir, root) = workspace();
        let many = json!({"paths": (0..20).map(|i| format!("f{i}")).collect::<Vec<_>>()});
        let got = affected_paths(&many, &settings(&["/paths"], false), &root, &root);
        assert_eq!(got.paths.len(), MAX_AFFECTED_PATHS);
        assert_eq!(got.diagnostics.len(), 4);
        assert!(
            got.diagnostics
                .iter()
                .all(|d| d.kind == PathDiagnosticKind::TooMany)
        );
        let long = json!({"p": "x".repeat(2000)});
        let got = affected_paths(&long, &settings(&["/p"], false), &root, &root);
        assert!(got.paths.is_empty());
        assert_eq!(got.diagnostics[0].kind, PathDiagnosticKind::TooLong);
    }

    #[test]
    fn a_session_dir_swapped_for_a_symlink_after_the_check_is_not_followed() {
        let (_dir, root) = workspace();
        std::fs::create_dir(root.join("session")).unwrap();
        let checked = check_session_dir(&root.join("session"), &root).unwrap();
        // Swap: the checked directory becomes a symlink to a directory
        // outside the root.
        let outside = tempfile::tempdir().unwrap();
        std::fs::rename(root.join("session"), root.join("old")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("session")).unwrap();
        let got = create_spill(&root, &checked, "p.json".as_ref(), b"{}");
        assert!(got.is_err(), "{got:?}");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
        // A parent of the session directory swapped likewise.
        std::fs::create_dir_all(root.join("a/s")).unwrap();
        let checked = check_session_dir(&root.join("a/s"), &root).unwrap();
        std::fs::create_dir(outside.path().join("s")).unwrap();
        std::fs::rename(root.join("a"), root.join("old-a")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("a")).unwrap();
        assert!(create_spill(&root, &checked, "p.json".as_ref(), b"{}").is_err());
        assert_eq!(
            std::fs::read_dir(outside.path().join("s")).unwrap().count(),
            0
        );
    }

    #[test]
    fn a_symlink_planted_at_the_ref_file_name_is_not_followed() {
        let (_dir, root) = workspace();
        let session = root.join("session");
        std::fs::create_dir(&session).unwrap();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("stolen.json");
        std::os::unix::fs::symlink(&target, session.join("p.json")).unwrap();
        assert!(create_spill(&root, &session, "p.json".as_ref(), b"{}").is_err());
        assert!(!target.exists());
        // Unplanted, the file is created 0600 and removed relative to the
        // directory it was created in.
        use std::os::unix::fs::PermissionsExt;
        let spill = create_spill(&root, &session, "q.json".as_ref(), b"{}").unwrap();
        let mode = std::fs::metadata(spill.path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(std::fs::read(spill.path()).unwrap(), b"{}");
        let path = spill.path().to_path_buf();
        spill.remove().unwrap();
        assert!(!path.exists());
    }
}
