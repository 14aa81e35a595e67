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
//! The config's table runs in the runtime's own dispatch and fold, under
//! the config's `limits`, with a record writer: the decision is the one the
//! agent loop would get from the driver, and every consulted rule
//! (declarative ones included) writes a record.
//!
//! Exit codes: 0 whatever the hooks decided (this is a probe: a block is a
//! result, not an error), 1 when the config has findings, 2 when the config
//! or the event cannot be read or parsed.

use std::io::Read;
use std::path::Path;

use agent_hooks::replay::{Event, Identity};
use hooks_runtime::{HookContext, StepEventKind};
use serde::Serialize;
use serde_json::Value;

use crate::Format;
use crate::cli::drive::{Bound, Outcome, RunRules, Verdict, drive, load_config, session_dir};
use crate::cli::{
    EXIT_OK, EXIT_USAGE, current_thread_runtime, emit_json, emit_redacted, run_interruptible, warn,
};

/// What `test --format json` prints.
#[derive(Debug, Serialize)]
struct Report {
    config: String,
    phase: StepEventKind,
    /// The typed decision the agent loop would apply.
    verdict: Verdict,
    /// Rules that matched and were consulted, in declared order.
    fired: Vec<String>,
    /// What the decision carries: patch, rewritten args/result/prompt,
    /// context, provenance and diagnostics.
    outcome: Outcome,
    /// The records the runtime wrote, one per consulted rule (declarative
    /// rules included) plus context injections.
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
    let mut bound = match Bound::new(table, session.path(), RunRules::Execute) {
        Ok(b) => b,
        Err(e) => {
            warn(&format!("error: {e}"));
            return EXIT_USAGE;
        }
    };
    let runtime = match current_thread_runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let (event, identity) = event;
    let ctx = identity.apply(HookContext::new("test"));
    let work = drive(&bound.stack, &ctx, &event);
    let applied = match run_interruptible(&runtime, bound.shell.cancel_token(), work) {
        Ok(done) => done,
        // `session` drops here: the session directory is removed.
        Err(code) => return code,
    };
    let records = bound.take_records();
    let fired = bound
        .consulted(&records)
        .into_iter()
        .map(str::to_owned)
        .collect();
    // Every invocation's diagnostics, from its report.
    let shell_diagnostics = applied
        .outcome
        .reports
        .iter()
        .flat_map(|r| r.diagnostics.iter().map(ToString::to_string))
        .collect();
    let report = Report {
        config: config.display().to_string(),
        phase: event.step().kind(),
        verdict: applied.verdict,
        fired,
        outcome: applied.outcome,
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
pub(crate) fn read_event(path: &Path) -> Result<(Event, Identity), String> {
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
    Event::from_json_with_identity(&text)
        .map_err(|e| format!("invalid event `{}`: {e}", path.display()))
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
    // A call's diagnostics are also the fold's: print each once.
    let folded: Vec<String> = o.diagnostics.iter().map(ToString::to_string).collect();
    for d in r.shell_diagnostics.iter().filter(|d| !folded.contains(d)) {
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
