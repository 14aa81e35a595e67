//! Reading recorded sessions into events: Claude Code transcripts and our own
//! event JSONL.
//!
//! `agent-hooks test`, `explain` and `replay` feed these events to a config.
//!
//! # Our event format (JSONL)
//!
//! One JSON object per line, each an [`OwnedEvent`] (its docs give the
//! shape of every phase), e.g.
//!
//! ```json
//! {"phase":"user_prompt","prompt":"fix the tests"}
//! {"phase":"before_tool","tool_name":"bash","call_id":"c1","args":{"command":"ls"}}
//! {"phase":"after_tool","tool_name":"bash","call_id":"c1","args":{"command":"ls"},"result":{"output":"a\n"},"outcome":"success"}
//! ```
//!
//! The tool's name is `tool_name`, as in the payload; files written with
//! the older key `tool` read the same.
//!
//! Any event may also carry the agent's session identity ([`Identity`]):
//! `session_id`, `transcript_path`, `cwd`, `permission_mode` (strings); the
//! hooks' [`HookContext`](hooks_runtime::HookContext) gets them, and
//! `protocol: claude` scripts receive them as Claude Code would send them.
//!
//! # Claude Code transcripts
//!
//! A Claude Code session file (`~/.claude/projects/.../<session>.jsonl`)
//! holds one record per line; [`read_session`] recognizes them per line (a
//! line with a `phase` key is ours; a line with `type` is Claude Code's) and
//! turns
//!
//! - a `user` record whose `message.content` is a string, or holds `text`
//!   items, into `user_prompt` (the texts joined by newlines), unless the
//!   record is marked `isMeta` (text Claude Code itself added, such as stop
//!   hook feedback or command caveats: no `UserPromptSubmit` fires for it);
//! - every `tool_use` item of an `assistant` record into `before_tool` (tool
//!   `name`, call `id`, arguments `input`);
//! - every `tool_result` item of a `user` record into `after_tool` for the
//!   `tool_use` of the same id, with the arguments of that call, the
//!   model-visible result as `{"output": TEXT}` (the `content` string, or its
//!   `text` items joined by newlines; images and other items are left out)
//!   and outcome `error` when `is_error` is true, else `success`.
//!
//! The session identity of a transcript ([`Session::identity`]): the first
//! record's `sessionId`, `cwd` and `permissionMode`, and as the transcript
//! path the file [`read_session`] read.
//!
//! Other records (`progress`, `system`, `summary`, `queue-operation`,
//! `file-history-snapshot`, assistant `text` and `thinking` items) carry no
//! hookable event here and are counted as skipped. Lines that are not JSON,
//! and records of neither shape, become warnings, never errors.

mod claude;
mod identity;

use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

pub use hooks_runtime::OwnedEvent;
use serde::Serialize;
use serde_json::Value;

pub use identity::{Identity, read_event_line};

/// Which formats a session file held.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Formats {
    /// Lines of our event format.
    pub events: usize,
    /// Claude Code transcript records (all types, hookable or not).
    pub claude: usize,
}

/// A session read into events.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Session {
    /// The events, in file order.
    pub events: Vec<OwnedEvent>,
    /// Lines of each format.
    pub formats: Formats,
    /// Claude Code records that carry no hookable event.
    pub skipped: usize,
    /// One message per line that could not be used (`line N: why`).
    pub warnings: Vec<String>,
    /// The agent's session identity: from the first event line or record
    /// that gives each field (see the [module docs](self)).
    pub identity: Identity,
}

/// Reads a session file (our event JSONL, a Claude Code transcript, or a mix)
/// into events; see the [module docs](self) for the mapping.
///
/// # Errors
///
/// The I/O error of opening or reading `path` (including invalid UTF-8).
/// Unusable lines are [`Session::warnings`], not errors.
pub fn read_session(path: &Path) -> io::Result<Session> {
    let file = std::fs::File::open(path)?;
    let mut session = parse_session(io::BufReader::new(file))?;
    if session.formats.claude > 0 {
        session.identity.or(Identity {
            transcript_path: Some(std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())),
            ..Identity::default()
        });
    }
    Ok(session)
}

/// As [`read_session`], from any reader.
///
/// # Errors
///
/// The reader's I/O error.
pub fn parse_session(reader: impl BufRead) -> io::Result<Session> {
    let mut session = Session::default();
    let mut calls = claude::Calls::new();
    for (index, line) in reader.lines().enumerate() {
        let line = line?;
        let n = index + 1;
        let text = line.trim().trim_start_matches('\u{feff}');
        if text.is_empty() {
            continue;
        }
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                session.warnings.push(format!("line {n}: not JSON: {e}"));
                continue;
            }
        };
        if value.get("phase").is_some() {
            let mut value = value;
            match Identity::take_from(&mut value) {
                Ok(identity) => session.identity.or(identity),
                Err(e) => session.warnings.push(format!("line {n}: {e}")),
            }
            match serde_json::from_value::<OwnedEvent>(value) {
                Ok(event) => {
                    session.formats.events += 1;
                    session.events.push(event);
                }
                Err(e) => session.warnings.push(format!("line {n}: {e}")),
            }
        } else if let Some(kind) = value.get("type").and_then(Value::as_str) {
            session.formats.claude += 1;
            let text_of = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
            session.identity.or(Identity {
                session_id: text_of("sessionId"),
                transcript_path: None,
                cwd: text_of("cwd").map(PathBuf::from),
                permission_mode: text_of("permissionMode"),
            });
            let before = session.events.len();
            claude::record(kind, &value, &mut calls, &mut session, n);
            if session.events.len() == before {
                session.skipped += 1;
            }
        } else {
            session.warnings.push(format!(
                "line {n}: neither an event (no `phase` key) nor a Claude Code record (no `type` key)"
            ));
        }
    }
    Ok(session)
}
