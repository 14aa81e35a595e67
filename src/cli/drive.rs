//! The one way the CLI runs a config: its dispatch table as a
//! [`Dispatcher`] in a [`HookStack`], bound to a shell runtime built from
//! the table ([`Table::shell_runtime`]: the config's `limits`) with a
//! record writer, and every event through the stack's driver method for
//! its phase. The decision, the rewrites and the records are the
//! runtime's; this module only turns the typed decisions into what the
//! commands print.

use std::borrow::Cow;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_hooks::agent::{Decision, decide};
use hooks_runtime::{
    CompletionDecision, ContextList, Decided, Diagnostic, Dispatcher, Executor, HookContext,
    HookReport, HookStack, InvalidCallDecision, ModelDecision, OwnedEvent, PermissionDecision,
    PromptDecision, ProvenanceList, RecordWriter, ReportList, RequestPatch, SecretSet, SessionDir,
    ShellRuntime, StackTables, StepEventKind, Table, TableRef, ToolDecision,
};
use hooks_schema::Compiled;
use serde::Serialize;
use serde_json::Value;

use crate::cli::{Cancels, EXIT_FINDINGS, EXIT_USAGE, current_thread_runtime, warn};

/// Why a config could not be used: the exit code and the message.
pub(crate) struct ConfigError {
    pub(crate) code: u8,
    pub(crate) message: String,
}

/// What a command runs: one config file, or the configs of a stack file
/// (`--stack`, docs/fleet.md's *Layers*) and then the config, if both are
/// given.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Source<'a> {
    /// The config named on the command line.
    pub(crate) config: Option<&'a Path>,
    /// The stack file given with `--stack`.
    pub(crate) stack: Option<&'a Path>,
}

impl Source<'_> {
    /// The name reports and summaries give it: the stack file's, else the
    /// config's.
    pub(crate) fn name(&self) -> String {
        self.stack
            .or(self.config)
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    }

    /// The files named on the command line (what `--report` and `--junit`
    /// must not overwrite).
    pub(crate) fn files(&self) -> Vec<&Path> {
        self.stack.into_iter().chain(self.config).collect()
    }
}

/// Loads `source` as the checked configs (for their patterns' text) and
/// the dispatch tables built from them
/// ([`agent_hooks::agent::compile_stack`], with the current directory as
/// the workspace root): unreadable, [`EXIT_USAGE`]; invalid, alone or
/// together, [`EXIT_FINDINGS`].
pub(crate) fn load(source: Source<'_>) -> Result<Vec<Compiled>, ConfigError> {
    let configs: Vec<PathBuf> = source.config.map(Path::to_owned).into_iter().collect();
    let workspace = std::env::current_dir().map_err(|e| ConfigError {
        code: EXIT_USAGE,
        message: format!("error: cannot read the current directory: {e}"),
    })?;
    agent_hooks::agent::stack_entries(&configs, source.stack)
        .and_then(|entries| agent_hooks::agent::compile_stack(&entries, &workspace))
        .map_err(|e| {
            let unreadable = matches!(&e, agent_hooks::agent::ConfigError::Invalid(d)
                if d.iter().any(|d| d.layer == hooks_schema::Layer::Io));
            ConfigError {
                code: if unreadable {
                    EXIT_USAGE
                } else {
                    EXIT_FINDINGS
                },
                message: e.to_string(),
            }
        })
}

/// The dispatch tables of `compiled` configs.
pub(crate) fn tables(compiled: Vec<Compiled>) -> Vec<Table> {
    compiled
        .into_iter()
        .map(|c| Table::from_plan(c.plan))
        .collect()
}

/// The command's session directory: records and payload-ref files, private
/// to the user and outside the workspace, the current directory
/// ([`SessionDir::create_outside`]: `$XDG_RUNTIME_DIR`, the temporary
/// directory or `/tmp`, whichever first lies outside it), so hooks that
/// inspect the workspace (`git status`) do not see it; removed when dropped.
pub(crate) fn session_dir() -> Result<SessionDir, String> {
    let workspace =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    SessionDir::create_outside(&workspace)
        .map_err(|e| format!("cannot create a session directory: {e}"))
}

/// A command's binding of `tables`: its private session directory
/// ([`session_dir`]), the tables bound there ([`Bound::new`]) and a
/// current-thread runtime to drive it, in the order they must be dropped
/// last to first. `Err` is the exit code, after a warning.
pub(crate) fn bind(
    tables: Vec<Table>,
    run: RunRules,
) -> Result<(SessionDir, Bound, tokio::runtime::Runtime), u8> {
    let bound = session_dir().and_then(|dir| Ok((Bound::new(tables, dir.path(), run)?, dir)));
    let (bound, session) = bound.map_err(|e| {
        warn(&format!("error: {e}"));
        EXIT_USAGE
    })?;
    let runtime = current_thread_runtime()?;
    Ok((session, bound, runtime))
}

/// The name of the records file a command's binding writes in its
/// session directory.
const RECORDS_FILE: &str = "records.jsonl";

/// Whether `run` rules execute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RunRules {
    /// For real, through the shell runtime.
    Execute,
    /// Not at all: a dry run ([`Dispatcher::dry_run`]).
    DryRun,
}

/// The configs of a stack bound to the runtime: the stacks the commands
/// drive, their shell runtimes, and the records file the runtime writes.
///
/// Shutdown phases (`run_end`, `run_error`) run on shell runtimes of
/// their own, with their own cancellation token: an interrupted command
/// cancels the run's token first, so the shutdown hooks still get their
/// declared timeout ([`crate::cli::run_interruptible`]).
pub(crate) struct Bound {
    /// One [`Dispatcher`] per table, named after its config file, for
    /// every phase but the shutdown ones (the stack runs them by layer).
    stack: HookStack,
    /// The shell runtimes of [`Bound::stack`], one per table (its limits,
    /// the record writer, the token a first signal cancels).
    shells: Vec<Arc<ShellRuntime>>,
    /// The same dispatchers for `run_end` and `run_error`.
    shutdown_stack: HookStack,
    /// Their shell runtimes: the same limits, records and session
    /// directory, a token only a second signal cancels.
    shutdown_shells: Vec<Arc<ShellRuntime>>,
    cancels: Cancels,
    /// The tables, in the order the stack runs them.
    tables: Vec<Arc<Table>>,
    records: std::cell::RefCell<RecordsTail>,
}

impl Bound {
    /// Binds `tables` (the configs of one stack) after the managed
    /// layer's switches ([`StackTables::new`]): the current directory is
    /// the workspace root; records go to `records.jsonl` in `dir`, which
    /// is also the session directory (payload spill files) when `run`
    /// rules execute, and must then lie inside the current directory or be
    /// private to the user ([`session_dir`]).
    pub(crate) fn new(tables: Vec<Table>, dir: &Path, run: RunRules) -> Result<Bound, String> {
        let cancels = Cancels {
            run: hooks_runtime::CancellationToken::new(),
            shutdown: hooks_runtime::CancellationToken::new(),
        };
        Bound::with_records(tables, dir, run, RECORDS_FILE, cancels)
    }

    /// Binds `tables` beside this binding, as [`Bound::new`] does but with
    /// their records in `records` (a file name in `dir`) and this
    /// binding's cancellation tokens: a signal stops both. The what-if
    /// stack of shadow mode ([`crate::cli::shadow`]) is bound so.
    pub(crate) fn beside(
        &self,
        tables: Vec<Table>,
        dir: &Path,
        run: RunRules,
        records: &str,
    ) -> Result<Bound, String> {
        Bound::with_records(tables, dir, run, records, self.cancels.clone())
    }

    fn with_records(
        tables: Vec<Table>,
        dir: &Path,
        run: RunRules,
        records: &str,
        cancels: Cancels,
    ) -> Result<Bound, String> {
        let cwd = std::env::current_dir()
            .map_err(|e| format!("cannot read the current directory: {e}"))?;
        let executor = Executor::new(&cwd)
            .map_err(|e| format!("cannot use `{}` as workspace root: {e}", cwd.display()))?;
        let path = dir.join(records);
        let writer = RecordWriter::open(&path, SecretSet::new())
            .map_err(|e| format!("cannot open the records file: {e}"))?;
        let StackTables {
            tables, switches, ..
        } = StackTables::new(tables);
        let mut tables: Vec<Arc<Table>> = tables.into_iter().map(Arc::new).collect();
        // The order the stack runs them: by layer, lowest first.
        tables.sort_by_key(|t| t.layer().rank);
        let shell_runtime = |table: &Table, cancel: &hooks_runtime::CancellationToken| {
            let mut shell = table
                .shell_runtime(executor.clone())
                .with_records(writer.clone())
                .with_cancel(cancel.clone());
            if let Some(switches) = &switches {
                shell = shell.with_switches(Arc::clone(switches));
            }
            if let Some(argv) = super::policy_process() {
                shell = shell.with_policy_process(argv);
            }
            let shell = match run {
                RunRules::Execute => shell
                    .with_session_dir(dir)
                    .map_err(|e| format!("cannot use the session directory: {e}"))?,
                RunRules::DryRun => shell,
            };
            Ok::<_, String>(Arc::new(shell))
        };
        let bind = |cancel: &hooks_runtime::CancellationToken| {
            let mut stack = HookStack::new();
            let mut shells = Vec::with_capacity(tables.len());
            for table in &tables {
                let shell = shell_runtime(table, cancel)?;
                let mut dispatcher = Dispatcher::new(TableRef::Shared(Arc::clone(table)))
                    .with_shell(Arc::clone(&shell));
                if run == RunRules::DryRun {
                    dispatcher = dispatcher.dry_run();
                }
                stack.push(table.source().to_owned(), dispatcher);
                shells.push(shell);
            }
            Ok::<_, String>((stack, shells))
        };
        let (stack, shells) = bind(&cancels.run)?;
        let (shutdown_stack, shutdown_shells) = bind(&cancels.shutdown)?;
        Ok(Bound {
            stack,
            shells,
            shutdown_stack,
            shutdown_shells,
            cancels,
            tables,
            records: std::cell::RefCell::new(RecordsTail { path, offset: 0 }),
        })
    }

    /// The stack of every phase but the shutdown ones.
    pub(crate) fn stack(&self) -> &HookStack {
        &self.stack
    }

    /// The stack that drives `event`: the shutdown one for `run_end` and
    /// `run_error`, the run's otherwise.
    pub(crate) fn stack_for(&self, event: &OwnedEvent) -> &HookStack {
        match event {
            OwnedEvent::RunEnd { .. } | OwnedEvent::RunError { .. } => &self.shutdown_stack,
            _ => &self.stack,
        }
    }

    /// Whether the run was cancelled (a first signal): later events would
    /// only fail as `cancelled`.
    pub(crate) fn run_cancelled(&self) -> bool {
        self.cancels.run.is_cancelled()
    }

    /// Every shell runtime, the run's then the shutdown ones.
    fn all_shells(&self) -> impl Iterator<Item = &Arc<ShellRuntime>> {
        self.shells.iter().chain(&self.shutdown_shells)
    }

    /// Shuts down the persistent workers of every shell runtime
    /// ([`ShellRuntime::shutdown_workers`]): their processes get their
    /// stdin closed and a short grace, then their groups are killed.
    pub(crate) async fn shutdown_workers(&self) {
        for shell in self.all_shells() {
            shell.shutdown_workers().await;
        }
    }

    /// Ends run `run_id`'s background hooks (`async: true`) on every shell
    /// runtime ([`ShellRuntime::end_run`]): after its `run_end` or
    /// `run_error`, which runs on the shutdown runtimes while they run on
    /// the run's, and after each replayed input.
    pub(crate) async fn end_run(&self, run_id: &str) {
        for shell in self.all_shells() {
            shell.end_run(run_id).await;
        }
    }

    /// Waits for run `run_id`'s background hooks, then ends the run
    /// ([`Bound::end_run`]): `test` shows their records.
    pub(crate) async fn settle(&self, run_id: &str) {
        for shell in &self.shells {
            shell.wait_background(run_id).await;
        }
        self.end_run(run_id).await;
    }

    /// The tokens [`crate::cli::run_interruptible`] cancels.
    pub(crate) fn cancels(&self) -> Cancels {
        self.cancels.clone()
    }

    /// The records written since the last call, in the order written: what
    /// `test` shows of the records file. Everything the commands count or
    /// decide comes from the reports and decisions the runtime returned.
    pub(crate) fn take_records(&self) -> Vec<Value> {
        self.records.borrow_mut().take()
    }

    /// The rules `reports` say were consulted (one report each), in
    /// declared order.
    pub(crate) fn consulted<'r>(&self, reports: &'r [HookReport]) -> Vec<&'r str> {
        let mut ids: Vec<&str> = reports.iter().map(|r| r.hook.as_str()).collect();
        ids.sort_by_key(|id| self.rule(id).map(|(position, _)| position));
        ids
    }

    /// The position (in the order the stack runs them) and rule of id
    /// `id`: ids are unique across a stack's configs.
    fn rule(&self, id: &str) -> Option<(usize, &hooks_schema::plan::Rule)> {
        self.tables
            .iter()
            .flat_map(|table| table.rules())
            .enumerate()
            .find(|(_, rule)| &*rule.id == id)
    }

    /// Whether rule `id` is a `run` rule.
    pub(crate) fn is_run_rule(&self, id: &str) -> bool {
        self.rule(id)
            .is_some_and(|(_, rule)| !rule.action.is_declarative())
    }

    /// Whether rule `id` runs in `mode: audit`.
    pub(crate) fn is_audit_rule(&self, id: &str) -> bool {
        self.rule(id)
            .is_some_and(|(_, rule)| rule.mode == hooks_schema::Mode::Audit)
    }
}

/// Reads what the record writer appended since the last read.
struct RecordsTail {
    path: PathBuf,
    offset: u64,
}

impl RecordsTail {
    fn take(&mut self) -> Vec<Value> {
        let mut text = String::new();
        let read = std::fs::File::open(&self.path).and_then(|mut file| {
            file.seek(SeekFrom::Start(self.offset))?;
            file.read_to_string(&mut text)
        });
        if read.is_err() {
            return Vec::new();
        }
        // Only whole lines: every record of an event is written by the
        // time its driver call returns.
        let whole = text.rfind('\n').map_or(0, |i| i + 1);
        self.offset += whole as u64;
        text[..whole]
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }
}

/// The decision as the agent loop applies it.
#[derive(Debug, Serialize)]
pub(crate) struct Verdict {
    /// `run`, `skip`, `terminate` (before_tool); `submit`, `drop`
    /// (user_prompt); `stop`, `resume` (stop); `select` (the model, as
    /// reason), `block` (before_model_select);
    /// `fail`, `retry`, `repair` (invalid_tool_call); `continue` elsewhere.
    pub(crate) decision: &'static str,
    /// The reason, feedback or tool of the decision, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
}

/// What the decision carries besides the verdict.
#[derive(Debug, Serialize)]
pub(crate) struct Outcome {
    /// The event's phase.
    pub(crate) phase: StepEventKind,
    /// The merged request patch (before_completion).
    pub(crate) patch: RequestPatch,
    /// The arguments, when hooks rewrote them (before_tool).
    pub(crate) args: Option<Value>,
    /// The result, when hooks rewrote it (after_tool).
    pub(crate) result: Option<Value>,
    /// The prompt, when hooks rewrote it (user_prompt).
    pub(crate) prompt: Option<String>,
    /// The model, when hooks chose another one (before_model_select).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) model: Option<String>,
    /// Context items for the model's next turn.
    pub(crate) context: ContextList,
    /// The names of the environment variables hooks set (run_start); the
    /// values are never printed, they may be secrets.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) env: Vec<String>,
    /// Which hook set or rewrote what.
    pub(crate) provenance: ProvenanceList,
    /// Conflicts and fail-closed reasons.
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// What each consulted rule decided, in declared order.
    #[serde(skip)]
    pub(crate) reports: ReportList,
}

/// One event's typed decision, as printed.
#[derive(Debug)]
pub(crate) struct Applied {
    pub(crate) verdict: Verdict,
    pub(crate) outcome: Outcome,
}

/// The provenance and diagnostics of a [`Decided`], beside its decision.
struct Extras {
    phase: StepEventKind,
    context: ContextList,
    env: Vec<String>,
    provenance: ProvenanceList,
    diagnostics: Vec<Diagnostic>,
    reports: ReportList,
}

fn split<D>(phase: StepEventKind, decided: Decided<D>) -> (D, Extras) {
    let Decided {
        decision,
        context,
        env,
        provenance,
        diagnostics,
        reports,
    } = decided;
    (
        decision,
        Extras {
            phase,
            context,
            env: env.into_keys().collect(),
            provenance,
            diagnostics,
            reports,
        },
    )
}

impl Extras {
    fn applied(self, decision: &'static str, reason: Option<&str>) -> Applied {
        Applied {
            verdict: Verdict {
                decision,
                reason: reason.map(str::to_owned),
            },
            outcome: Outcome {
                phase: self.phase,
                patch: RequestPatch::default(),
                args: None,
                result: None,
                prompt: None,
                model: None,
                context: self.context,
                env: self.env,
                provenance: self.provenance,
                diagnostics: self.diagnostics,
                reports: self.reports,
            },
        }
    }
}

/// `Some` of a value hooks rewrote (owned), `None` when it is the input.
fn rewritten<T: ToOwned + ?Sized>(value: Cow<'_, T>) -> Option<T::Owned> {
    match value {
        Cow::Owned(v) => Some(v),
        Cow::Borrowed(_) => None,
    }
}

/// Drives `event` through `stack` with the driver method of its phase
/// ([`agent_hooks::agent::decide`], shared with the hook command and the
/// server) and returns what the commands print of the typed decision.
///
/// # Cancel safety
///
/// As the driver methods: dropping the future kills a running hook's
/// process group and applies nothing.
pub(crate) async fn drive(stack: &HookStack, ctx: &HookContext, event: &OwnedEvent) -> Applied {
    let phase = event.as_step().kind();
    let (decision, extras) = split(phase, decide(stack, ctx, event).await);
    let (label, reason) = decision.verdict();
    let mut a = extras.applied(label, reason);
    match decision {
        Decision::Prompt(PromptDecision::Send { prompt }) => a.outcome.prompt = rewritten(prompt),
        Decision::Completion(CompletionDecision::Send { patch }) => a.outcome.patch = patch,
        Decision::Tool(
            ToolDecision::Run { args }
            | ToolDecision::Skip { args, .. }
            | ToolDecision::Ask { args, .. },
        )
        | Decision::Permission(
            PermissionDecision::Allow { args } | PermissionDecision::Ask { args, .. },
        ) => a.outcome.args = rewritten(args),
        Decision::AfterTool(decision) => a.outcome.result = rewritten(decision.result),
        Decision::InvalidCall(InvalidCallDecision::Repair { args, .. }) => a.outcome.args = args,
        Decision::Model(ModelDecision::Select { model }) => a.outcome.model = rewritten(model),
        _ => {}
    }
    a
}
