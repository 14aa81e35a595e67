//! `agent-hooks test CONFIG --event EVENT.json`: run a config's hooks on one
//! sample event and print the merged result and the records written.
//!
//! The event is one object of our event format ([`agent_hooks::replay`]);
//! `--event -` reads it from stdin. Declarative rules run in-process; `run`
//! rules run for real through the shell runtime, with the **current
//! directory as workspace root** (commands and `cwd`s resolve against it)
//! and a temporary session directory outside it (`agent-hooks-session-*`
//! in `$XDG_RUNTIME_DIR` or the temporary directory, mode 0700: payload
//! spill files, the records file), removed afterwards: hooks that inspect
//! the workspace (`git status`) do not see it.
//!
//! The config's table runs in the runtime's own dispatch and fold, under
//! the config's `limits`, with a record writer: the decision is the one the
//! agent loop would get from the driver, and every consulted rule
//! (declarative ones included) writes a record. What fired and the
//! diagnostics come from the reports returned with the decision; the
//! records are shown as the runtime wrote them.
//!
//! Background hooks (`async: true`) are waited for before the report, so
//! their records are shown; with no later event, their context is dropped
//! (a `dropped` injection record).
//!
//! SIGINT, SIGTERM or SIGHUP cancels the running hooks ([`run_interruptible`]);
//! the report is still printed, with `interrupted` naming the signal, the
//! partial decision and the records (`cancelled` for the stopped hooks),
//! before the session directory is removed. A `run_end` or `run_error`
//! event runs on the shutdown runtime: its hooks keep their declared
//! timeout after a first signal.
//!
//! With a config in `mode: shadow`, the event is also folded through the
//! what-if stack that enforces it ([`crate::cli::shadow`]; its `run` hooks
//! run a second time): the report adds what it would change against the
//! enforced result (`shadow`). The decision and the records shown stay
//! the enforced pass's.
//!
//! Exit codes: 0 whatever the hooks decided (this is a probe: a block is a
//! result, not an error), 1 when the config has findings, 2 when the config
//! or the event cannot be read or parsed, 130 / 143 / 129 after SIGINT / SIGTERM / SIGHUP.

use std::io::Read;
use std::path::Path;

use agent_hooks::replay::{Identity, read_event_line};
use hooks_runtime::{HookContext, OwnedEvent, StepEventKind};
use serde::Serialize;
use serde_json::Value;

use crate::Format;
use crate::cli::drive::{Applied, Outcome, RunRules, Source, Verdict, bind, drive, load, tables};
use crate::cli::report::{EventRow, SessionReport};
use crate::cli::shadow::{Change, ShadowConfig, WhatIfRun, WhatIfTables};
use crate::cli::{EXIT_OK, EXIT_USAGE, Ran, emit_json, emit_redacted, run_interruptible, warn};

/// What `test --format json` prints.
#[derive(Debug, Serialize)]
struct Report {
    config: String,
    phase: StepEventKind,
    /// `SIGINT`, `SIGTERM` or `SIGHUP` when a signal stopped the command: the
    /// records then say `cancelled` for the hooks it stopped, and the
    /// verdict and outcome are the partial ones of the cancelled run.
    #[serde(skip_serializing_if = "Option::is_none")]
    interrupted: Option<&'static str>,
    /// The typed decision the agent loop would apply; absent only when a
    /// second signal made the command drop the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<Verdict>,
    /// Rules that matched and were consulted, in declared order.
    fired: Vec<String>,
    /// What the decision carries: patch, rewritten args/result/prompt,
    /// context, provenance and diagnostics (absent like `verdict`).
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<Outcome>,
    /// The records the runtime wrote, one per consulted rule (declarative
    /// rules included) plus context injections.
    records: Vec<Value>,
    /// Runtime diagnostics of `run` rules (redacted).
    shell_diagnostics: Vec<String>,
    /// With a config in `mode: shadow`: what it would change against the
    /// enforced result, had it been enforced (empty: nothing); absent
    /// without one, and after a signal.
    #[serde(skip_serializing_if = "Option::is_none")]
    shadow: Option<Vec<Change>>,
    /// The configs in `mode: shadow` (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    shadow_configs: Option<Vec<ShadowConfig>>,
}

/// Runs `agent-hooks test`; returns the exit code. With `html`, the
/// event's timeline is also written there as HTML ([`SessionReport`]),
/// after the report; a failed write is [`EXIT_USAGE`].
pub(crate) fn run(source: Source<'_>, event: &Path, html: Option<&Path>, format: Format) -> u8 {
    let compiled = match load(source) {
        Ok(loaded) => loaded,
        Err(e) => {
            warn(&e.message);
            return e.code;
        }
    };
    let event_path = event;
    let event = match read_event(event) {
        Ok(e) => e,
        Err(message) => {
            warn(&format!("error: {message}"));
            return EXIT_USAGE;
        }
    };
    let what_if = match WhatIfTables::of(&compiled) {
        Ok(what_if) => what_if,
        Err(code) => return code,
    };
    let (session, bound, runtime) = match bind(tables(compiled), RunRules::Execute) {
        Ok(bound) => bound,
        Err(code) => return code,
    };
    let what_if = match what_if.map(|t| t.bind(&bound, session.path(), RunRules::Execute)) {
        None => None,
        Some(Ok(what_if)) => Some(what_if),
        Some(Err(code)) => return code,
    };
    let (event, identity) = event;
    let ctx = identity.apply(HookContext::new("test"));
    // The what-if pass's own run: same identity, its own scratchpad.
    let mut what_if_run = WhatIfRun::new(identity.apply(HookContext::new("test")));
    let work = async {
        let applied = drive(bound.stack_for(&event), &ctx, &event).await;
        let mut shadow = None;
        if let Some(w) = &what_if
            && !bound.run_cancelled()
        {
            shadow = w
                .follow(&mut what_if_run, 0, &event, &event, &applied)
                .await;
        }
        (applied, shadow)
    };
    let (applied, shadow, interrupted) = match run_interruptible(&runtime, bound.cancels(), work) {
        Ok(Ran::Done((applied, shadow))) => (Some(applied), shadow, None),
        // A cancelled what-if pass says nothing of the shadow configs.
        Ok(Ran::Interrupted(i)) => {
            let applied = i.partial.map(|(applied, _)| applied);
            (applied, None, Some((i.signal, i.code)))
        }
        Err(code) => return code,
    };
    // Background hooks (`async: true`) end before the report: their
    // records are shown, their context (no later event) dropped.
    runtime.block_on(bound.settle(ctx.run_id()));
    runtime.block_on(bound.shutdown_workers());
    if let Some(w) = &what_if {
        runtime.block_on(w.bound().settle(what_if_run.run_id()));
        runtime.block_on(w.bound().shutdown_workers());
    }
    let shadow_configs = what_if.as_ref().map(|w| w.configs().to_vec());
    let shadow = match (&what_if, interrupted) {
        (Some(_), None) => Some(shadow.unwrap_or_default()),
        _ => None,
    };
    // The records file's lines, shown as written; read before `session`
    // (which holds the file) is removed.
    let records = bound.take_records();
    // What fired and what each call said, from the reports the runtime
    // returned with its decision.
    let reports = applied.as_ref().map_or(&[][..], |a| &a.outcome.reports[..]);
    let fired = bound
        .consulted(reports)
        .into_iter()
        .map(str::to_owned)
        .collect();
    let shell_diagnostics = reports
        .iter()
        .flat_map(|r| r.diagnostics.iter().map(ToString::to_string))
        .collect();
    let timeline = html.map(|_| {
        let mut t = timeline(
            &source.name(),
            event_path,
            &event,
            applied.as_ref(),
            &records,
            interrupted.map(|(signal, _)| signal),
        );
        t.shadow.clone_from(&shadow_configs);
        if let (Some(row), Some(changes)) = (t.events.first_mut(), &shadow) {
            row.shadow.clone_from(changes);
        }
        t
    });
    let (verdict, outcome) = applied.map(|a| (a.verdict, a.outcome)).unzip();
    let report = Report {
        config: source.name(),
        phase: event.kind(),
        interrupted: interrupted.map(|(signal, _)| signal),
        verdict,
        fired,
        outcome,
        records,
        shell_diagnostics,
        shadow,
        shadow_configs,
    };
    match format {
        Format::Json => emit_json(&report),
        Format::Human => print_human(&report),
    }
    drop(what_if);
    drop(bound);
    drop(session);
    let code = interrupted.map_or(EXIT_OK, |(_, code)| code);
    if let (Some(path), Some(t)) = (html, timeline)
        && let Err(e) = t.write(path)
    {
        warn(&format!("error: {e}"));
        return if code == EXIT_OK { EXIT_USAGE } else { code };
    }
    code
}

/// The HTML report of one `test` run: one event, with the records the
/// runtime wrote. A run a second signal dropped has no decision: its
/// event is shown as `dropped`, with the records.
fn timeline(
    config: &str,
    event_path: &Path,
    event: &OwnedEvent,
    applied: Option<&Applied>,
    records: &[Value],
    interrupted: Option<&str>,
) -> SessionReport {
    let mut row = match applied {
        Some(applied) => EventRow::new(0, event, applied, |_| false),
        None => {
            let mut row = EventRow::not_replayed(0, event);
            "dropped".clone_into(&mut row.decision);
            row.reason = Some("a second signal dropped the run".to_owned());
            row
        }
    };
    row.records = records.to_vec();
    SessionReport {
        command: "test",
        config: config.to_owned(),
        inputs: vec![event_path.display().to_string()],
        exec: true,
        events: vec![row],
        notes: interrupted
            .map(|signal| format!("interrupted by {signal}: running hooks were cancelled"))
            .into_iter()
            .collect(),
        shadow: None,
    }
}

/// Reads one event of our format from `path`, or stdin when it is `-`.
pub(crate) fn read_event(path: &Path) -> Result<(OwnedEvent, Identity), String> {
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
    read_event_line(&text).map_err(|e| format!("invalid event `{}`: {e}", path.display()))
}

fn print_human(r: &Report) {
    let mut out = format!("event: {}\n", r.phase.as_str());
    if let Some(signal) = r.interrupted {
        out.push_str(&format!(
            "interrupted: {signal} (running hooks were cancelled)\n"
        ));
    }
    match &r.verdict {
        Some(v) => {
            out.push_str(&format!("decision: {}", v.decision));
            if let Some(reason) = &v.reason {
                out.push_str(&format!(" ({reason})"));
            }
            out.push('\n');
        }
        None => out.push_str("decision: none (the run was dropped)\n"),
    }
    if let (Some(changes), Some(configs)) = (&r.shadow, &r.shadow_configs) {
        for c in changes {
            out.push_str(&format!("{}\n", c.line()));
        }
        if changes.is_empty() {
            let names: Vec<String> = configs
                .iter()
                .map(|c| format!("layer {}, config {}", c.layer, c.config))
                .collect();
            out.push_str(&format!(
                "shadow ({}) would change: nothing\n",
                names.join("; ")
            ));
        }
    }
    if r.fired.is_empty() {
        out.push_str("hooks fired: none\n");
    } else {
        out.push_str(&format!("hooks fired: {}\n", r.fired.join(", ")));
    }
    let json = |v: &Value| serde_json::to_string(v).unwrap_or_default();
    if let Some(o) = &r.outcome {
        print_outcome(&mut out, o, &r.shell_diagnostics);
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

/// The outcome's lines of the human report.
fn print_outcome(out: &mut String, o: &Outcome, shell_diagnostics: &[String]) {
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
    if let Some(model) = &o.model {
        out.push_str(&format!("selected model: {model}\n"));
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
        let from = match (p.hook.source(), p.hook.layer()) {
            (Some(s), Some(layer)) => format!(" (from {s}, layer {layer})"),
            (Some(s), None) => format!(" (from {s})"),
            _ => String::new(),
        };
        out.push_str(&format!(
            "provenance: `{}`{from} {}\n",
            p.hook,
            json(&change)
        ));
    }
    for d in &o.diagnostics {
        out.push_str(&format!("diagnostic: {d}\n"));
    }
    // A call's diagnostics are also the fold's: print each once.
    let folded: Vec<String> = o.diagnostics.iter().map(ToString::to_string).collect();
    for d in shell_diagnostics.iter().filter(|d| !folded.contains(d)) {
        out.push_str(&format!("diagnostic: {d}\n"));
    }
}
