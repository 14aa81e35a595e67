//! `agent-hooks replay CONFIG TRANSCRIPT...`: drive recorded sessions through
//! a config and summarize what its hooks would have done.
//!
//! Inputs are Claude Code transcripts and our event JSONL, recognized per
//! line ([`agent_hooks::replay`] documents both and the mapping). Every event
//! is folded through the config's rules in declared order, exactly as the
//! runtime folds them ([`Fold`]): declarative rules (`block`, `rewrite`,
//! `inject`, `patch`, `terminate`) are always evaluated in-process.
//!
//! `run` rules are **not executed by default**: a matching one is counted as
//! "would run" and answers `Continue`. Replaying someone else's session must
//! not run side-effecting hook commands (formatters, loggers, notifiers,
//! network calls) on this machine for events that happened elsewhere. With
//! `--exec` they run for real through the shell runtime, with the current
//! directory as workspace root and a temporary session directory
//! (`.agent-hooks-session-*` in the current directory, removed afterwards).
//!
//! A tool call that a `before_tool` rule skipped or terminated did not run:
//! its recorded `after_tool` event is not replayed (counted as
//! `suppressed`). When `before_tool` rules rewrote a call's arguments, its
//! `after_tool` event carries the rewritten `args` and the recorded ones as
//! `original_args`, as the runtime would pass them.
//!
//! Exit codes: 0 when every input was replayed (even when hooks blocked
//! things: this is a report), 1 when the config has findings, 2 when an
//! input or the config cannot be read. Unparseable lines are warnings.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use agent_hooks::replay::{Event, read_session};
use hooks_runtime::dispatch::{ActionSpec, Table};
use hooks_runtime::{
    CancellationToken, Executor, Flow, Fold, HookContext, HookId, RecordWriter, SecretSet,
    ShellHook, ShellRuntime, StackOutcome, StepEvent,
};
use hooks_schema::Mode;
use serde::Serialize;
use serde_json::Value;

use crate::Format;
use crate::cli::{
    EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, current_thread_runtime, emit_json, emit_redacted,
    run_interruptible, warn,
};

/// Why a config could not be used: the exit code and the message.
pub(crate) struct ConfigError {
    pub(crate) code: u8,
    pub(crate) message: String,
}

/// Loads `path` twice over the same source: the checked config (for its
/// patterns' text) and the dispatch table built from it.
pub(crate) fn load_config(path: &Path) -> Result<(hooks_schema::Config, Table), ConfigError> {
    let name = path.display().to_string();
    let source = std::fs::read_to_string(path).map_err(|e| ConfigError {
        code: EXIT_USAGE,
        message: format!("error: cannot read config `{name}`: {e}"),
    })?;
    let config = hooks_schema::load_str(&source, &name).map_err(|d| ConfigError {
        code: EXIT_FINDINGS,
        message: d.to_string(),
    })?;
    let table = Table::from_config(&config, &name).map_err(|e| ConfigError {
        code: EXIT_FINDINGS,
        message: format!("error: {e}"),
    })?;
    Ok((config, table))
}

/// A temporary session directory inside the current directory (the
/// workspace root: the runtime requires payload spill files to lie inside
/// it), named `.agent-hooks-session-*`, removed when dropped.
pub(crate) fn session_dir() -> Result<tempfile::TempDir, String> {
    tempfile::Builder::new()
        .prefix(".agent-hooks-session-")
        .tempdir_in(".")
        .map_err(|e| format!("cannot create a session directory in the current directory: {e}"))
}

/// A shell runtime rooted at the current directory, writing records to
/// `records.jsonl` in `session`.
pub(crate) fn shell_runtime(session: &Path) -> Result<ShellRuntime, String> {
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let executor = Executor::new(&cwd)
        .map_err(|e| format!("cannot use `{}` as workspace root: {e}", cwd.display()))?;
    let records = RecordWriter::open(session.join("records.jsonl"), SecretSet::new())
        .map_err(|e| format!("cannot open the records file: {e}"))?;
    ShellRuntime::new(executor)
        .with_records(records)
        .with_session_dir(session)
        .map_err(|e| format!("cannot use the session directory: {e}"))
}

/// What one event's fold did, beside its outcome.
#[derive(Debug, Default)]
pub(crate) struct FoldReport {
    /// Ids of the rules that matched and were consulted, in order.
    pub(crate) fired: Vec<String>,
    /// `run` rules that matched but were not executed (no shell).
    pub(crate) would_run: usize,
    /// `run` rules executed.
    pub(crate) executed: usize,
    /// Matching rules in `audit` mode.
    pub(crate) audited: usize,
    /// Executed `run` rules that failed (spawn, exit, timeout, output...).
    pub(crate) failed: usize,
    /// Runtime diagnostics of executed `run` rules.
    pub(crate) messages: Vec<String>,
}

/// Folds `event` through `table` like the runtime ([`Table::fold`]), but
/// with `run` rules executed only when `shell` is given; otherwise they
/// answer `Continue` and are counted in [`FoldReport::would_run`].
///
/// # Cancel safety
///
/// Dropping the future kills a running hook's process group.
pub(crate) async fn fold_event(
    table: &Table,
    shell: Option<&Arc<ShellRuntime>>,
    ctx: &HookContext,
    event: StepEvent<'_>,
) -> (StackOutcome, FoldReport) {
    let mut report = FoldReport::default();
    let mut fold = Fold::new(event);
    for &i in table.rules_for(event.kind()) {
        let rule = &table.rules()[i as usize];
        let current = fold.event();
        if !rule.matches(&current) {
            continue;
        }
        report.fired.push(rule.id.to_string());
        if rule.mode == Mode::Audit {
            report.audited += 1;
        }
        let flow = match (&rule.action, shell) {
            (ActionSpec::Run(_), None) => {
                report.would_run += 1;
                Flow::Continue
            }
            (ActionSpec::Run(_), Some(rt)) => {
                let Some(spec) = rule.shell_spec(table, current.tool_name()) else {
                    continue;
                };
                report.executed += 1;
                let done = ShellHook::new(spec, Arc::clone(rt))
                    .invoke(ctx, current)
                    .await;
                if done.record.failure_kind.is_some() {
                    report.failed += 1;
                }
                report.messages.extend(done.diagnostics());
                done.flow
            }
            (_, _) if rule.mode == Mode::Audit => Flow::Continue,
            (_, _) => rule.declarative_flow(&current).unwrap_or_default(),
        };
        if fold.apply(&HookId::new(&*rule.id), flow).is_break() {
            break;
        }
    }
    (fold.finish(), report)
}

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
    /// Matches per rule id.
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
    /// `after_tool` events not replayed because `before_tool` stopped the call.
    suppressed: usize,
    /// Unusable input lines, over all files.
    warnings: usize,
    /// Wall-clock time of the replay, in milliseconds.
    elapsed_ms: u64,
}

/// Runs `agent-hooks replay`; returns the exit code.
pub(crate) fn run(config: &Path, inputs: &[PathBuf], exec: bool, format: Format) -> u8 {
    let table = match load_config(config) {
        Ok((_, table)) => table,
        Err(e) => {
            warn(&e.message);
            return e.code;
        }
    };
    let start = Instant::now();
    let mut summary = Summary {
        config: config.display().to_string(),
        exec,
        ..Summary::default()
    };
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
    let mut session = None;
    let shell = if exec {
        match session_dir().and_then(|dir| {
            let rt = shell_runtime(dir.path())?;
            session = Some(dir);
            Ok(rt)
        }) {
            Ok(rt) => Some(Arc::new(rt)),
            Err(e) => {
                warn(&format!("error: {e}"));
                return EXIT_USAGE;
            }
        }
    } else {
        None
    };
    let runtime = match current_thread_runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let total: usize = sessions.iter().map(|s| s.events.len()).sum();
    // Draws on stderr only when it is a terminal (indicatif hides otherwise).
    let progress = indicatif::ProgressBar::new(total as u64);
    let ctx = HookContext::new("replay");
    let cancel = shell
        .as_ref()
        .map_or_else(CancellationToken::new, |rt| rt.cancel_token().clone());
    let replayed = run_interruptible(&runtime, &cancel, async {
        for (path, session) in inputs.iter().zip(&sessions) {
            let mut stopped: HashSet<&str> = HashSet::new();
            let mut rewritten: HashMap<&str, Value> = HashMap::new();
            for event in &session.events {
                progress.inc(1);
                let mut with_rewrite = None;
                if let Event::AfterTool { call_id, .. } = event {
                    if stopped.contains(call_id.as_str()) {
                        summary.suppressed += 1;
                        continue;
                    }
                    if let Some(args) = rewritten.get(call_id.as_str()) {
                        with_rewrite = Some(with_args(event, args.clone()));
                    }
                }
                let step = with_rewrite.as_ref().unwrap_or(event).step();
                summary.events += 1;
                *summary
                    .by_phase
                    .entry(step.kind().as_str().to_owned())
                    .or_default() += 1;
                let (outcome, report) = fold_event(&table, shell.as_ref(), &ctx, step).await;
                tally(&mut summary, &outcome, &report);
                if let Event::BeforeTool { call_id, .. } = event {
                    if outcome.decision.is_some() {
                        stopped.insert(call_id);
                    } else if let Some(args) = &outcome.args {
                        rewritten.insert(call_id, args.clone());
                    }
                }
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
        }
    });
    progress.finish_and_clear();
    // On SIGINT/SIGTERM the hooks were stopped; `session` drops on return,
    // removing the session directory.
    if let Err(code) = replayed {
        return code;
    }
    drop(session);
    summary.elapsed_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    match format {
        Format::Json => emit_json(&summary),
        Format::Human => print_human(&summary),
    }
    EXIT_OK
}

/// `event` (an `after_tool`) with `args` as the arguments the tool ran with
/// and its recorded ones as `original_args`.
fn with_args(event: &Event, args: Value) -> Event {
    let mut event = event.clone();
    if let Event::AfterTool {
        args: ran,
        original_args,
        ..
    } = &mut event
    {
        let recorded = std::mem::replace(ran, args);
        original_args.get_or_insert(recorded);
    }
    event
}

fn tally(summary: &mut Summary, outcome: &StackOutcome, report: &FoldReport) {
    summary.hooks_fired += report.fired.len();
    for id in &report.fired {
        *summary.by_hook.entry(id.clone()).or_default() += 1;
    }
    summary.would_run += report.would_run;
    summary.executed += report.executed;
    summary.audited += report.audited;
    summary.failures += report.failed
        + outcome
            .diagnostics
            .iter()
            .filter(|d| d.fails_closed())
            .count();
    match &outcome.decision {
        Some(Flow::Skip { .. }) => summary.blocked += 1,
        Some(Flow::Terminate { .. }) => summary.terminated += 1,
        Some(Flow::Resume { .. }) => summary.resumed += 1,
        _ => {}
    }
    if outcome.args.is_some() || outcome.result.is_some() || outcome.prompt.is_some() {
        summary.rewritten += 1;
    }
    if !outcome.patch.is_empty() {
        summary.patched += 1;
    }
    summary.injected += outcome.context.len();
}

fn print_human(s: &Summary) {
    let mut out = String::new();
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
    if s.suppressed > 0 {
        out.push_str(&format!(
            "after_tool events not replayed (their call was stopped): {}\n",
            s.suppressed
        ));
    }
    if s.warnings > 0 {
        out.push_str(&format!("warnings: {} unusable lines\n", s.warnings));
    }
    for (id, n) in &s.by_hook {
        out.push_str(&format!("  {id}: {n}\n"));
    }
    emit_redacted(out.trim_end());
}
