//! `agent-hooks replay CONFIG TRANSCRIPT...`: drive recorded sessions through
//! a config and summarize what its hooks would have done.
//!
//! Inputs are Claude Code transcripts and our event JSONL, recognized per
//! line ([`agent_hooks::replay`] documents both and the mapping). Every event
//! goes through the runtime's own dispatch and fold (the config's table in a
//! `HookStack`, the driver method of the event's phase), under the config's
//! `limits`: declarative rules (`block`, `rewrite`, `inject`, `patch`,
//! `terminate`) are always evaluated in-process. The counts come from the
//! typed decisions and the reports the runtime returns with them, one per
//! consulted rule (the records file is written too, never read back).
//! Each input is one run; each `user_prompt` starts a new
//! turn, so the runtime caps stop resumes per user turn
//! (`limits.max_stop_resumes_per_turn`).
//!
//! `run` rules are **not executed by default** (a dry run of the
//! dispatcher): a matching one is counted as "would run" and answers
//! `Continue`. Replaying someone else's session must
//! not run side-effecting hook commands (formatters, loggers, notifiers,
//! network calls) on this machine for events that happened elsewhere. With
//! `--exec` they run for real through the shell runtime, with the current
//! directory as workspace root and a temporary session directory outside
//! it (`agent-hooks-session-*` in `$XDG_RUNTIME_DIR` or the temporary
//! directory, mode 0700, removed afterwards).
//!
//! A tool call that a `before_tool` rule skipped or terminated did not run:
//! its recorded `after_tool` event is not replayed (counted as
//! `suppressed`). When `before_tool` rules rewrote a call's arguments, its
//! `after_tool` event carries the rewritten `args` and the recorded ones as
//! `original_args`, as the runtime would pass them.
//!
//! With a config in `mode: shadow`, every event is also folded through
//! the what-if stack that enforces it ([`crate::cli::shadow`]): the summary
//! counts the events it would change and lists the changes.
//!
//! SIGINT, SIGTERM or SIGHUP cancels the running hooks ([`run_interruptible`]) and
//! stops the replay after the current event; the interrupted run is then
//! ended with a `run_end` event (reason [`CANCELLED_REASON`]) unless it had
//! one, whose hooks run on the shutdown runtime with their declared
//! timeout. The summary of what was replayed is printed, with
//! `interrupted` naming the signal.
//!
//! Exit codes: 0 when every input was replayed (even when hooks blocked
//! things: this is a report), 1 when the config has findings, 2 when an
//! input or the config cannot be read, 130 / 143 / 129 after SIGINT / SIGTERM / SIGHUP.
//! Unparseable lines are warnings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use agent_hooks::replay::read_session;
use hooks_runtime::{HookContext, OwnedEvent};
use serde::Serialize;

use crate::Format;
use crate::cli::calls::Calls;
use crate::cli::drive::{Applied, Bound, RunRules, Source, bind, drive, load, tables};
use crate::cli::report::{EventRow, SessionReport};
use crate::cli::shadow::{ShadowSummary, WhatIfRun, WhatIfTables};
use crate::cli::{EXIT_OK, EXIT_USAGE, Ran, emit_json, emit_redacted, run_interruptible, warn};

/// One input file, as summarized.
#[derive(Debug, Serialize)]
struct FileSummary {
    path: String,
    /// Hookable events read.
    events: usize,
    /// Lines of our event format.
    event_lines: usize,
    /// Claude Code records.
    claude_records: usize,
    /// Claude Code records without a hookable event.
    skipped: usize,
    /// Unusable lines.
    warnings: Vec<String>,
}

/// The report `replay` prints.
#[derive(Debug, Default, Serialize)]
struct Summary {
    config: String,
    exec: bool,
    files: Vec<FileSummary>,
    /// Events driven through the config.
    events: usize,
    /// Events per phase.
    by_phase: BTreeMap<String, usize>,
    /// Rule matches (a rule counts once per event it answered).
    hooks_fired: usize,
    /// Matches per rule id; printed as a list of `{"hook": ID, "fired": N}`
    /// ([`fired_list`]).
    #[serde(serialize_with = "fired_list")]
    by_hook: BTreeMap<String, usize>,
    /// Tool calls or prompts skipped.
    blocked: usize,
    /// Events whose args, result or prompt were rewritten.
    rewritten: usize,
    /// Context items injected.
    injected: usize,
    /// Completion requests patched.
    patched: usize,
    /// Events that ended the run.
    terminated: usize,
    /// Stops turned into resumes.
    resumed: usize,
    /// Matches of `audit`-mode rules.
    audited: usize,
    /// `run` rules that matched but were not executed (no `--exec`).
    would_run: usize,
    /// `run` rules executed (`--exec`).
    executed: usize,
    /// Executed `run` rules that failed, plus fail-closed fold diagnostics.
    failures: usize,
    /// Those failures, one entry per hook, kind and message (redacted when
    /// printed), with how many times each happened, in that order.
    failed: Vec<Failed>,
    /// The same, counted while replaying.
    #[serde(skip)]
    failed_counts: BTreeMap<(String, String, String), usize>,
    /// `after_tool` events not replayed because `before_tool` stopped the call.
    suppressed: usize,
    /// Unusable input lines, over all files.
    warnings: usize,
    /// Wall-clock time of the replay, in milliseconds.
    elapsed_ms: u64,
    /// `SIGINT`, `SIGTERM` or `SIGHUP` when a signal stopped the replay (the counts
    /// are those of the events replayed before it).
    #[serde(skip_serializing_if = "Option::is_none")]
    interrupted: Option<&'static str>,
    /// Whether the interrupted run was ended with a `run_end` event
    /// (reason [`CANCELLED_REASON`]) after the signal; its hooks are counted.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    shutdown_run_end: bool,
    /// With a config in `mode: shadow`: the events it would change
    /// (docs/cli.md, *Shadow mode*); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    shadow: Option<ShadowSummary>,
}

/// Failures of one hook with one kind and message.
#[derive(Debug, Serialize)]
struct Failed {
    /// The hook's id; `-` for a fail-closed fold diagnostic without one.
    hook: String,
    /// The failure kind (`spawn_failed`, `timed_out`, ...) or `fail_closed`
    /// for a fold diagnostic that ended the run.
    kind: String,
    /// The hook's failure detail or the diagnostic.
    message: String,
    /// How many events it happened on.
    count: usize,
}

/// Per-hook counts as a list of `{"hook": ID, "fired": N}`, in id order.
/// Not an object keyed by id: output passes through `redact_json`, which
/// masks the value of every credential-like key, so a hook named `secret`
/// or `api-token` would turn its count into `"[REDACTED]"`.
fn fired_list<S: serde::Serializer>(
    counts: &BTreeMap<String, usize>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Fired<'a> {
        hook: &'a str,
        fired: usize,
    }
    serializer.collect_seq(counts.iter().map(|(hook, &fired)| Fired { hook, fired }))
}

/// The `reason` of the `run_end` event that ends a run interrupted by a
/// signal.
const CANCELLED_REASON: &str = "cancelled";

/// Runs `agent-hooks replay`; returns the exit code. With `report`, the
/// session's timeline is also written there as HTML ([`SessionReport`]),
/// after the summary; a failed write is [`EXIT_USAGE`].
pub(crate) fn run(
    source: Source<'_>,
    inputs: &[PathBuf],
    exec: bool,
    report: Option<&Path>,
    format: Format,
) -> u8 {
    let compiled = match load(source) {
        Ok(compiled) => compiled,
        Err(e) => {
            warn(&e.message);
            return e.code;
        }
    };
    let start = Instant::now();
    let mut summary = Summary {
        config: source.name(),
        exec,
        ..Summary::default()
    };
    let mut timeline = report.map(|_| SessionReport {
        command: "replay",
        config: source.name(),
        inputs: inputs.iter().map(|p| p.display().to_string()).collect(),
        exec,
        ..SessionReport::default()
    });
    let mut sessions = Vec::with_capacity(inputs.len());
    for path in inputs {
        match read_session(path) {
            Ok(s) => sessions.push(s),
            Err(e) => {
                warn(&format!("error: cannot read `{}`: {e}", path.display()));
                return EXIT_USAGE;
            }
        }
    }
    // With `--exec`, the session directory holds records and payload spill
    // files; a dry run only writes records.
    let run_rules = if exec {
        RunRules::Execute
    } else {
        RunRules::DryRun
    };
    let what_if = match WhatIfTables::of(&compiled) {
        Ok(what_if) => what_if,
        Err(code) => return code,
    };
    let (session, bound, runtime) = match bind(tables(compiled), run_rules) {
        Ok(bound) => bound,
        Err(code) => return code,
    };
    let what_if = match what_if.map(|t| t.bind(&bound, session.path(), run_rules)) {
        None => None,
        Some(Ok(what_if)) => Some(what_if),
        Some(Err(code)) => return code,
    };
    summary.shadow = what_if.as_ref().map(ShadowSummary::new);
    if let Some(t) = &mut timeline {
        t.shadow = summary.shadow.as_ref().map(|s| s.configs.clone());
    }
    let total: usize = sessions.iter().map(|s| s.events.len()).sum();
    // Draws on stderr only when it is a terminal (indicatif hides otherwise).
    let progress = indicatif::ProgressBar::new(total as u64);
    let cancels = bound.cancels();
    let replayed = run_interruptible(&runtime, cancels, async {
        for (input, (path, session)) in inputs.iter().zip(&sessions).enumerate() {
            // Each input is its own run; each prompt starts a user turn
            // (the runtime caps stop resumes per turn).
            let run = session.identity.apply(HookContext::new("replay"));
            let mut turn = run.for_turn(0);
            let mut prompts = 0u32;
            let mut ended = false;
            let mut calls = Calls::default();
            // The what-if pass's own run (shadow mode).
            let mut what_if_run = what_if
                .as_ref()
                .map(|_| WhatIfRun::new(session.identity.apply(HookContext::new("replay"))));
            let file = path.display().to_string();
            for (n, event) in session.events.iter().enumerate() {
                if bound.run_cancelled() {
                    break;
                }
                if let OwnedEvent::UserPrompt { .. } = event {
                    if prompts > 0 {
                        turn = run.for_turn(prompts);
                    }
                    prompts += 1;
                }
                progress.inc(1);
                let Some(event_in) = calls.event(event) else {
                    summary.suppressed += 1;
                    if let Some(t) = &mut timeline {
                        t.events.push(EventRow::not_replayed(input, event));
                    }
                    continue;
                };
                let event_in = &*event_in;
                summary.events += 1;
                *summary
                    .by_phase
                    .entry(event_in.kind().as_str().to_owned())
                    .or_default() += 1;
                ended |= matches!(
                    event_in,
                    OwnedEvent::RunEnd { .. } | OwnedEvent::RunError { .. }
                );
                let applied = drive(bound.stack_for(event_in), &turn, event_in).await;
                tally(&mut summary, &applied, &bound);
                let mut changes = Vec::new();
                if let (Some(w), Some(r)) = (&what_if, &mut what_if_run) {
                    let turn = turn.turn();
                    changes =
                        (w.follow(r, turn, event, event_in, &applied).await).unwrap_or_default();
                }
                if let Some(s) = &mut summary.shadow {
                    s.add(&file, n + 1, event_in, &changes);
                }
                if let Some(t) = &mut timeline {
                    let mut row = row(input, event_in, &applied, &bound, exec);
                    row.shadow = changes;
                    t.events.push(row);
                }
                if matches!(
                    event_in,
                    OwnedEvent::RunEnd { .. } | OwnedEvent::RunError { .. }
                ) {
                    // Ran on the shutdown runtime: end the run's
                    // background hooks on the run's.
                    bound.end_run(run.run_id()).await;
                }
                calls.decided(event, &applied);
            }
            summary.warnings += session.warnings.len();
            summary.files.push(FileSummary {
                path: path.display().to_string(),
                events: session.events.len(),
                event_lines: session.formats.events,
                claude_records: session.formats.claude,
                skipped: session.skipped,
                warnings: session.warnings.clone(),
            });
            if bound.run_cancelled() {
                // The interrupted run still ends: its `run_end` hooks run on
                // the shutdown runtime, with their declared timeout.
                if !ended {
                    let end = OwnedEvent::RunEnd {
                        output: String::new(),
                        reason: CANCELLED_REASON.to_owned(),
                    };
                    let applied = drive(bound.stack_for(&end), &turn, &end).await;
                    tally(&mut summary, &applied, &bound);
                    let mut changes = Vec::new();
                    if let (Some(w), Some(r)) = (&what_if, &mut what_if_run) {
                        let turn = turn.turn();
                        changes =
                            (w.follow(r, turn, &end, &end, &applied).await).unwrap_or_default();
                    }
                    if let Some(s) = &mut summary.shadow {
                        s.add(&file, 0, &end, &changes);
                    }
                    if let Some(t) = &mut timeline {
                        let mut row = row(input, &end, &applied, &bound, exec);
                        row.shadow = changes;
                        t.events.push(row);
                    }
                    summary.shutdown_run_end = true;
                }
                bound.end_run(run.run_id()).await;
                if let Some(w) = &what_if {
                    w.bound().end_run(run.run_id()).await;
                }
                break;
            }
            // Each input is its own run: what its background hooks left
            // is not the next input's.
            bound.end_run(run.run_id()).await;
            if let Some(w) = &what_if {
                w.bound().end_run(run.run_id()).await;
            }
        }
    });
    progress.finish_and_clear();
    let code = match replayed {
        Ok(Ran::Done(())) => EXIT_OK,
        // What was replayed before the signal is reported; the records of
        // the hooks it stopped say `cancelled`.
        Ok(Ran::Interrupted(i)) => {
            summary.interrupted = Some(i.signal);
            i.code
        }
        Err(code) => return code,
    };
    runtime.block_on(bound.shutdown_workers());
    if let Some(w) = &what_if {
        runtime.block_on(w.bound().shutdown_workers());
    }
    drop(what_if);
    drop(bound);
    drop(session);
    summary.elapsed_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    summary.failed = std::mem::take(&mut summary.failed_counts)
        .into_iter()
        .map(|((hook, kind, message), count)| Failed {
            hook,
            kind,
            message,
            count,
        })
        .collect();
    match format {
        Format::Json => emit_json(&summary),
        Format::Human => print_human(&summary),
    }
    if let (Some(path), Some(mut t)) = (report, timeline) {
        t.notes = notes(&summary);
        if let Err(e) = t.write(path) {
            warn(&format!("error: {e}"));
            return if code == EXIT_OK { EXIT_USAGE } else { code };
        }
    }
    code
}

/// The report's row of `event`: a hook is "would run" when it is a `run`
/// rule and the replay is a dry run.
fn row(input: usize, event: &OwnedEvent, applied: &Applied, bound: &Bound, exec: bool) -> EventRow {
    EventRow::new(input, event, applied, |id| !exec && bound.is_run_rule(id))
}

/// The lines the report shows above its timeline: an interruption, the
/// unusable input lines.
fn notes(s: &Summary) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(signal) = s.interrupted {
        notes.push(format!(
            "interrupted by {signal}: the timeline ends with the events replayed before it"
        ));
    }
    for f in &s.files {
        for w in &f.warnings {
            notes.push(format!("warning: {}: {w}", f.path));
        }
    }
    notes
}

/// Adds one event's decision and the reports of its rules to `summary`.
fn tally(summary: &mut Summary, applied: &Applied, bound: &Bound) {
    let reports = &applied.outcome.reports;
    for id in bound.consulted(reports) {
        summary.hooks_fired += 1;
        *summary.by_hook.entry(id.to_owned()).or_default() += 1;
        if bound.is_run_rule(id) {
            if summary.exec {
                summary.executed += 1;
            } else {
                summary.would_run += 1;
            }
        }
        if bound.is_audit_rule(id) {
            summary.audited += 1;
        }
    }
    let o = &applied.outcome;
    for r in reports {
        if let Some(failure) = &r.failure {
            summary.failures += 1;
            let message = r.message.as_deref().unwrap_or_default().to_owned();
            let key = (
                r.hook.to_string(),
                failure.kind.as_str().to_owned(),
                message,
            );
            *summary.failed_counts.entry(key).or_default() += 1;
        }
    }
    for d in o.diagnostics.iter().filter(|d| d.fails_closed()) {
        summary.failures += 1;
        let key = ("-".to_owned(), "fail_closed".to_owned(), d.to_string());
        *summary.failed_counts.entry(key).or_default() += 1;
    }
    match applied.verdict.decision {
        "skip" | "drop" | "block" => summary.blocked += 1,
        "terminate" => summary.terminated += 1,
        "resume" => summary.resumed += 1,
        _ => {}
    }
    if o.args.is_some() || o.result.is_some() || o.prompt.is_some() || o.model.is_some() {
        summary.rewritten += 1;
    }
    if !o.patch.is_empty() {
        summary.patched += 1;
    }
    summary.injected += o.context.len();
}

fn print_human(s: &Summary) {
    let mut out = String::new();
    if let Some(signal) = s.interrupted {
        out.push_str(&format!(
            "interrupted: {signal} (running hooks were cancelled; the counts cover the events replayed before it)\n"
        ));
        if s.shutdown_run_end {
            out.push_str(&format!(
                "the interrupted run was ended with `run_end` (reason `{CANCELLED_REASON}`)\n"
            ));
        }
    }
    for f in &s.files {
        out.push_str(&format!(
            "{}: {} events ({} event lines, {} Claude Code records, {} without a hookable event)\n",
            f.path, f.events, f.event_lines, f.claude_records, f.skipped
        ));
        for w in &f.warnings {
            out.push_str(&format!("warning: {}: {w}\n", f.path));
        }
    }
    let phases: Vec<String> = s.by_phase.iter().map(|(p, n)| format!("{p} {n}")).collect();
    out.push_str(&format!(
        "replayed {} events through `{}` in {} ms ({})\n",
        s.events,
        s.config,
        s.elapsed_ms,
        phases.join(", ")
    ));
    out.push_str(&format!(
        "hooks fired: {}  blocked: {}  rewritten: {}  injected: {}  patched: {}  terminated: {}  resumed: {}  audited: {}\n",
        s.hooks_fired, s.blocked, s.rewritten, s.injected, s.patched, s.terminated, s.resumed, s.audited
    ));
    if s.exec {
        out.push_str(&format!(
            "shell hooks run: {}  failures: {}\n",
            s.executed, s.failures
        ));
    } else {
        out.push_str(&format!(
            "shell hooks that would run: {} (not executed; pass `--exec` to run them)  failures: {}\n",
            s.would_run, s.failures
        ));
    }
    for f in &s.failed {
        let message = if f.message.is_empty() {
            String::new()
        } else {
            format!(": {}", f.message)
        };
        out.push_str(&format!(
            "  failed: `{}` {} ({} time{}){message}\n",
            f.hook,
            f.kind,
            f.count,
            if f.count == 1 { "" } else { "s" }
        ));
    }
    if s.suppressed > 0 {
        out.push_str(&format!(
            "after_tool events not replayed (their call was stopped): {}\n",
            s.suppressed
        ));
    }
    if s.warnings > 0 {
        out.push_str(&format!("warnings: {} unusable lines\n", s.warnings));
    }
    if let Some(shadow) = &s.shadow {
        shadow.human(&mut out);
    }
    // Written like the failures: `ID: N` would read as an assignment to
    // the redaction when the id is `secret` or `password`.
    for (id, n) in &s.by_hook {
        out.push_str(&format!(
            "  fired: `{id}` ({n} time{})\n",
            if *n == 1 { "" } else { "s" }
        ));
    }
    emit_redacted(out.trim_end());
}
