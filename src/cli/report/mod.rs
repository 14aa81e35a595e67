//! `--report FILE.html` of `replay` and `test`: the session as one
//! self-contained HTML page (styles and a small filter script inline, no
//! network resource), a timeline of every event with the hooks consulted
//! for it, their verdicts, failure kinds and latencies, and what each
//! changed.
//!
//! The commands collect one [`EventRow`] per event from the decision the
//! runtime returned ([`Applied`]: its verdict, its reports, its provenance
//! and rewrites) and, for `test`, the records the runtime wrote; [`html`]
//! renders them. Every text of the page passes through the project's
//! redaction function before it is escaped, as everything the CLI prints.

mod escape;
mod html;

use std::path::Path;

use hooks_runtime::OwnedEvent;
use serde_json::Value;

use crate::cli::drive::Applied;
use crate::cli::shadow::{Change, ShadowConfig};

/// The whole report: which command, which config, which inputs, and the
/// events in the order they were driven.
#[derive(Debug, Default)]
pub(crate) struct SessionReport {
    /// `replay` or `test`.
    pub(crate) command: &'static str,
    /// The config's path.
    pub(crate) config: String,
    /// The input files (`replay`) or the event file (`test`).
    pub(crate) inputs: Vec<String>,
    /// Whether `run` hooks were executed (`false`: a dry run, counted as
    /// "would run").
    pub(crate) exec: bool,
    /// The events, in order.
    pub(crate) events: Vec<EventRow>,
    /// Lines shown above the timeline: an interruption, unusable input
    /// lines.
    pub(crate) notes: Vec<String>,
    /// The configs in `mode: shadow` (docs/cli.md, *Shadow mode*); `None`
    /// when there is none.
    pub(crate) shadow: Option<Vec<ShadowConfig>>,
}

/// One event and what the hooks did with it.
#[derive(Debug)]
pub(crate) struct EventRow {
    /// Which input it comes from (an index into [`SessionReport::inputs`]).
    pub(crate) input: usize,
    /// The event's phase (`before_tool`, ...).
    pub(crate) phase: String,
    /// The tool, on tool phases.
    pub(crate) tool: Option<String>,
    /// The decision as the agent loop applies it (`run`, `skip`,
    /// `continue`, ...), or `not_replayed` for an `after_tool` whose call a
    /// `before_tool` hook stopped.
    pub(crate) decision: String,
    /// The decision's reason, feedback or tool.
    pub(crate) reason: Option<String>,
    /// The event as driven (our event format).
    pub(crate) event: Value,
    /// The hooks consulted, in the order the runtime reported them.
    pub(crate) hooks: Vec<HookRow>,
    /// What the hooks changed, one line per provenance entry.
    pub(crate) changes: Vec<ChangeRow>,
    /// Rewritten values, as `(what, before, after)`: args, result, prompt,
    /// model.
    pub(crate) rewrites: Vec<(&'static str, Option<Value>, Value)>,
    /// Context items injected for the model's next turn.
    pub(crate) context: Vec<Value>,
    /// The merged request patch, when not empty (before_completion).
    pub(crate) patch: Option<Value>,
    /// The fold's diagnostics (conflicts, fail-closed reasons).
    pub(crate) diagnostics: Vec<String>,
    /// The records the runtime wrote for the event (`test` only).
    pub(crate) records: Vec<Value>,
    /// What the shadow configs would change, had they been enforced.
    pub(crate) shadow: Vec<Change>,
}

/// One consulted hook on one event, from the runtime's report.
#[derive(Debug)]
pub(crate) struct HookRow {
    /// The hook's id.
    pub(crate) id: String,
    /// The config file it comes from (`None` for a hook built in code).
    pub(crate) source: Option<String>,
    /// The layer of its config (docs/fleet.md, *Layers*); `None` for a
    /// hook built in code.
    pub(crate) layer: Option<String>,
    /// Its verdict (`continue`, `skip`, ``audited: would `skip` ``, ...).
    pub(crate) verdict: String,
    /// How it failed (`timed_out`, `spawn_failed`, ...) and the failure
    /// policy, when it did.
    pub(crate) failure: Option<(String, String)>,
    /// Wall-clock time of the call, in milliseconds.
    pub(crate) elapsed_ms: f64,
    /// Its message: a block's reason, a failure's detail.
    pub(crate) message: Option<String>,
    /// Whether it is a `run` hook that was only counted (dry run).
    pub(crate) would_run: bool,
}

/// One provenance entry: which hook changed what.
#[derive(Debug)]
pub(crate) struct ChangeRow {
    /// The hook's id.
    pub(crate) hook: String,
    /// What it changed, as the runtime serializes it.
    pub(crate) change: Value,
}

impl EventRow {
    /// The row of `event` (as driven) from input `input`, from what the
    /// runtime decided; `is_dry_run_rule` says whether a hook id is a `run`
    /// rule that was not executed.
    pub(crate) fn new(
        input: usize,
        event: &OwnedEvent,
        applied: &Applied,
        is_dry_run_rule: impl Fn(&str) -> bool,
    ) -> EventRow {
        let o = &applied.outcome;
        let event_json = serde_json::to_value(event).unwrap_or_default();
        let before = |key: &str| event_json.get(key).cloned();
        let mut rewrites = Vec::new();
        if let Some(args) = &o.args {
            rewrites.push(("args", before("args"), args.clone()));
        }
        if let Some(result) = &o.result {
            rewrites.push(("result", before("result"), result.clone()));
        }
        if let Some(prompt) = &o.prompt {
            rewrites.push(("prompt", before("prompt"), Value::from(prompt.as_str())));
        }
        if let Some(model) = &o.model {
            rewrites.push(("model", None, Value::from(model.as_str())));
        }
        let hooks = o
            .reports
            .iter()
            .map(|r| HookRow {
                id: r.hook.as_str().to_owned(),
                source: r.hook.source().map(str::to_owned),
                layer: r.hook.layer().map(str::to_owned),
                verdict: r.verdict.to_string(),
                failure: r
                    .failure
                    .as_ref()
                    .map(|f| (f.kind.as_str().to_owned(), f.policy.as_str().to_owned())),
                elapsed_ms: r.elapsed.as_secs_f64() * 1000.0,
                message: r.message.as_deref().map(str::to_owned),
                would_run: is_dry_run_rule(r.hook.as_str()),
            })
            .collect();
        let changes = o
            .provenance
            .iter()
            .map(|p| ChangeRow {
                hook: p.hook.as_str().to_owned(),
                change: serde_json::to_value(&p.change).unwrap_or_default(),
            })
            .collect();
        EventRow {
            input,
            phase: event.kind().as_str().to_owned(),
            tool: event.as_step().tool_name().map(str::to_owned),
            decision: applied.verdict.decision.to_owned(),
            reason: applied.verdict.reason.clone(),
            hooks,
            changes,
            rewrites,
            context: o
                .context
                .iter()
                .map(|c| serde_json::to_value(c).unwrap_or_default())
                .collect(),
            patch: (!o.patch.is_empty())
                .then(|| serde_json::to_value(&o.patch).unwrap_or_default()),
            diagnostics: o.diagnostics.iter().map(ToString::to_string).collect(),
            records: Vec::new(),
            shadow: Vec::new(),
            event: event_json,
        }
    }

    /// The row of an `after_tool` event that was not replayed because a
    /// `before_tool` hook stopped its call.
    pub(crate) fn not_replayed(input: usize, event: &OwnedEvent) -> EventRow {
        EventRow {
            input,
            phase: event.kind().as_str().to_owned(),
            tool: event.as_step().tool_name().map(str::to_owned),
            decision: "not_replayed".to_owned(),
            reason: Some("its call was stopped before the tool ran".to_owned()),
            event: serde_json::to_value(event).unwrap_or_default(),
            hooks: Vec::new(),
            changes: Vec::new(),
            rewrites: Vec::new(),
            context: Vec::new(),
            patch: None,
            diagnostics: Vec::new(),
            records: Vec::new(),
            shadow: Vec::new(),
        }
    }
}

impl SessionReport {
    /// Writes the page to `path`.
    ///
    /// # Errors
    ///
    /// The message of a failed write, naming the file.
    pub(crate) fn write(&self, path: &Path) -> Result<(), String> {
        std::fs::write(path, html::render(self))
            .map_err(|e| format!("cannot write the report `{}`: {e}", path.display()))
    }
}
