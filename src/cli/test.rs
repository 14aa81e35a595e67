//! `agent-hooks test CONFIG --event EVENT.json`: run a config's hooks on one
//! sample event and print the merged result and the records written.
//!
//! The event is one object of our event format ([`agent_hooks::replay`]);
//! `--event -` reads it from stdin. Declarative rules run in-process; `run`
//! rules run for real through the shell runtime, with the **current
//! directory as workspace root** (commands and `cwd`s resolve against it)
//! and a temporary session directory inside it (`.agent-hooks-session-*`:
//! payload spill files, the records file), removed afterwards.
//!
//! Exit codes: 0 whatever the hooks decided (this is a probe: a block is a
//! result, not an error), 1 when the config has findings, 2 when the config
//! or the event cannot be read or parsed.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use agent_hooks::replay::Event;
use hooks_runtime::{Flow, HookContext, StackOutcome, StepEventKind};
use serde::Serialize;
use serde_json::Value;

use crate::Format;
use crate::cli::replay::{fold_event, load_config, session_dir, shell_runtime};
use crate::cli::{
    EXIT_OK, EXIT_USAGE, current_thread_runtime, emit_json, emit_redacted, run_interruptible, warn,
};

/// The typed decision of an event's fold, as the agent loop would apply it.
#[derive(Debug, Serialize)]
struct Verdict {
    /// `run`, `skip`, `terminate` (before_tool); `submit`, `drop`
    /// (user_prompt); `stop`, `resume` (stop); `fail`, `retry`, `repair`
    /// (invalid_tool_call); `continue` elsewhere.
    decision: &'static str,
    /// The reason, feedback or tool of the decision, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

fn verdict(phase: StepEventKind, outcome: &StackOutcome) -> Verdict {
    let (decision, reason) = match &outcome.decision {
        Some(Flow::Terminate { reason }) => ("terminate", Some(reason.clone())),
        Some(Flow::Skip { reason }) if phase == StepEventKind::UserPrompt => {
            ("drop", Some(reason.clone()))
        }
        Some(Flow::Skip { reason }) => ("skip", Some(reason.clone())),
        Some(Flow::Resume { reason }) => ("resume", Some(reason.clone())),
        Some(Flow::Retry { feedback }) => ("retry", Some(feedback.clone())),
        Some(Flow::Repair { tool_name }) => ("repair", Some(tool_name.clone())),
        Some(Flow::Fail) => ("fail", None),
        Some(_) | None => match phase {
            StepEventKind::BeforeTool => ("run", None),
            StepEventKind::UserPrompt => ("submit", None),
            StepEventKind::Stop => ("stop", None),
            StepEventKind::InvalidToolCall => ("fail", None),
            _ => ("continue", None),
        },
    };
    Verdict {
        decision,
        reason: reason.map(String::from),
    }
}

/// What `test --format json` prints.
#[derive(Debug, Serialize)]
struct Report {
    config: String,
    phase: StepEventKind,
    verdict: Verdict,
    /// Rules that matched and were consulted, in declared order.
    fired: Vec<String>,
    /// The fold: decision, patch, rewritten args/result/prompt, context,
    /// provenance and diagnostics.
    outcome: StackOutcome,
    /// The records the shell runtime wrote (one per `run` invocation).
    records: Vec<Value>,
    /// Runtime diagnostics of `run` rules (redacted).
    shell_diagnostics: Vec<String>,
}

/// Runs `agent-hooks test`; returns the exit code.
pub(crate) fn run(config: &Path, event: &Path, format: Format) -> u8 {
    let (_, table) = match load_config(config) {
        Ok(loaded) => loaded,
        Err(e) => {
            warn(&e.message);
            return e.code;
        }
    };
    let event = match read_event(event) {
        Ok(e) => e,
        Err(message) => {
            warn(&format!("error: {message}"));
            return EXIT_USAGE;
        }
    };
    let session = match session_dir() {
        Ok(d) => d,
        Err(e) => {
            warn(&format!("error: {e}"));
            return EXIT_USAGE;
        }
    };
    let shell = match shell_runtime(session.path()) {
        Ok(rt) => Arc::new(rt),
        Err(e) => {
            warn(&format!("error: {e}"));
            return EXIT_USAGE;
        }
    };
    let runtime = match current_thread_runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let ctx = HookContext::new("test");
    let step = event.step();
    let work = fold_event(&table, Some(&shell), &ctx, step);
    let (outcome, fold) = match run_interruptible(&runtime, shell.cancel_token(), work) {
        Ok(done) => done,
        // `session` drops here: the session directory is removed.
        Err(code) => return code,
    };
    let records = std::fs::read_to_string(session.path().join("records.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    // Every invocation's diagnostics, from its report.
    let shell_diagnostics = fold.messages;
    let report = Report {
        config: config.display().to_string(),
        phase: step.kind(),
        verdict: verdict(step.kind(), &outcome),
        fired: fold.fired,
        outcome,
        records,
        shell_diagnostics,
    };
    match format {
        Format::Json => emit_json(&report),
        Format::Human => print_human(&report),
    }
    EXIT_OK
}

/// Reads one event of our format from `path`, or stdin when it is `-`.
pub(crate) fn read_event(path: &Path) -> Result<Event, String> {
    let text = if path == Path::new("-") {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("cannot read the event from stdin: {e}"))?;
        s
    } else {
        std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read event `{}`: {e}", path.display()))?
    };
    Event::from_json(&text).map_err(|e| format!("invalid event `{}`: {e}", path.display()))
}

fn print_human(r: &Report) {
    let mut out = format!(
        "event: {}\ndecision: {}",
        r.phase.as_str(),
        r.verdict.decision
    );
    if let Some(reason) = &r.verdict.reason {
        out.push_str(&format!(" ({reason})"));
    }
    out.push('\n');
    if r.fired.is_empty() {
        out.push_str("hooks fired: none\n");
    } else {
        out.push_str(&format!("hooks fired: {}\n", r.fired.join(", ")));
    }
    let o = &r.outcome;
    let json = |v: &Value| serde_json::to_string(v).unwrap_or_default();
    if let Some(args) = &o.args {
        out.push_str(&format!("rewritten args: {}\n", json(args)));
    }
    if let Some(result) = &o.result {
        out.push_str(&format!("rewritten result: {}\n", json(result)));
    }
    if let Some(prompt) = &o.prompt {
        out.push_str(&format!("rewritten prompt: {prompt:?}\n"));
    }
    if !o.patch.is_empty() {
        let patch = serde_json::to_value(&o.patch).unwrap_or_default();
        out.push_str(&format!("patch: {}\n", json(&patch)));
    }
    for item in &o.context {
        out.push_str(&format!("injected context: {:?}\n", item.content));
    }
    for p in &o.provenance {
        let change = serde_json::to_value(&p.change).unwrap_or_default();
        out.push_str(&format!("provenance: `{}` {}\n", p.hook, json(&change)));
    }
    for d in &o.diagnostics {
        out.push_str(&format!("diagnostic: {d}\n"));
    }
    for d in &r.shell_diagnostics {
        out.push_str(&format!("diagnostic: {d}\n"));
    }
    if r.records.is_empty() {
        out.push_str("records: none\n");
    } else {
        out.push_str("records:\n");
        for rec in &r.records {
            out.push_str(&format!("  {}\n", json(rec)));
        }
    }
    emit_redacted(out.trim_end());
}
