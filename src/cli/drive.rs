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
    ShellRuntime, StepEventKind, Table, TableRef, ToolDecision,
};
use serde::Serialize;
use serde_json::Value;

use crate::cli::{Cancels, EXIT_FINDINGS, EXIT_USAGE, current_thread_runtime, warn};

/// Why a config could not be used: the exit code and the message.
pub(crate) struct ConfigError {
    pub(crate) code: u8,
    pub(crate) message: String,
}

/// Reads `path` (unreadable: [`EXIT_USAGE`]) and loads it as the checked
/// config (for its patterns' text) and the dispatch table built from it
/// (invalid: [`EXIT_FINDINGS`]).
pub(crate) fn load_config(path: &Path) -> Result<(hooks_schema::Config, Table), ConfigError> {
    let name = path.display().to_string();
    let source = std::fs::read_to_string(path).map_err(|e| ConfigError {
        code: EXIT_USAGE,
        message: format!("error: cannot read config `{name}`: {e}"),
    })?;
    // The one way through: validation and the lowering (`compile_str`), so a
    // pattern group too large to compile is a located finding, as in `check`.
    let compiled = hooks_schema::compile_str(&source, &name).map_err(|d| ConfigError {
        code: EXIT_FINDINGS,
        message: d.to_string(),
    })?;
    Ok((compiled.config, Table::from_plan(compiled.plan)))
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

/// A command's binding of `table`: its private session directory
/// ([`session_dir`]), the table bound there ([`Bound::new`]) and a
/// current-thread runtime to drive it, in the order they must be dropped
/// last to first. `Err` is the exit code, after a warning.
pub(crate) fn bind(
    table: Table,
    run: RunRules,
) -> Result<(SessionDir, Bound, tokio::runtime::Runtime), u8> {
    let bound = session_dir().and_then(|dir| Ok((Bound::new(table, dir.path(), run)?, dir)));
    let (bound, session) = bound.map_err(|e| {
        warn(&format!("error: {e}"));
        EXIT_USAGE
    })?;
    let runtime = current_thread_runtime()?;
    Ok((session, bound, runtime))
}

/// Whether `run` rules execute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RunRules {
    /// For real, through the shell runtime.
    Execute,
    /// Not at all: a dry run ([`Dispatcher::dry_run`]).
    DryRun,
}

/// A config bound to the runtime: the stacks the commands drive, their
/// shell runtimes, and the records file the runtime writes.
///
/// Shutdown phases (`run_end`, `run_error`) run on a shell runtime of
/// their own, with its own cancellation token: an interrupted command
/// cancels the run's token first, so the shutdown hooks still get their
/// declared timeout ([`crate::cli::run_interruptible`]).
pub(crate) struct Bound {
    /// One [`Dispatcher`] over the table, named after the config file,
    /// for every phase but the shutdown ones.
    stack: HookStack,
    /// The shell runtime of [`Bound::stack`] (the config's limits, the
    /// record writer, the cancellation token a first signal cancels).
    shell: Arc<ShellRuntime>,
    /// The same dispatcher for `run_end` and `run_error`.
    shutdown_stack: HookStack,
    /// Its shell runtime: the same limits, records and session directory,
    /// a token only a second signal cancels.
    shutdown_shell: Arc<ShellRuntime>,
    table: Arc<Table>,
    records: std::cell::RefCell<RecordsTail>,
}

impl Bound {
    /// Binds `table`: the current directory is the workspace root; records
    /// go to `records.jsonl` in `dir`, which is also the session directory
    /// (payload spill files) when `run` rules execute, and must then lie
    /// inside the current directory or be private to the user
    /// ([`session_dir`]).
    pub(crate) fn new(table: Table, dir: &Path, run: RunRules) -> Result<Bound, String> {
        let cwd = std::env::current_dir()
            .map_err(|e| format!("cannot read the current directory: {e}"))?;
        let executor = Executor::new(&cwd)
            .map_err(|e| format!("cannot use `{}` as workspace root: {e}", cwd.display()))?;
        let path = dir.join("records.jsonl");
        let writer = RecordWriter::open(&path, SecretSet::new())
            .map_err(|e| format!("cannot open the records file: {e}"))?;
        let table = Arc::new(table);
        let shell_runtime = || {
            let mut shell = table
                .shell_runtime(executor.clone())
                .with_records(writer.clone());
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
        let stack_over = |shell: &Arc<ShellRuntime>| {
            let mut dispatcher =
                Dispatcher::new(TableRef::Shared(Arc::clone(&table))).with_shell(Arc::clone(shell));
            if run == RunRules::DryRun {
                dispatcher = dispatcher.dry_run();
            }
            HookStack::new().with(table.source().to_owned(), dispatcher)
        };
        let shell = shell_runtime()?;
        let shutdown_shell = shell_runtime()?;
        Ok(Bound {
            stack: stack_over(&shell),
            shell,
            shutdown_stack: stack_over(&shutdown_shell),
            shutdown_shell,
            table,
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
        self.shell.cancel_token().is_cancelled()
    }

    /// Shuts down the persistent workers of both shell runtimes
    /// ([`ShellRuntime::shutdown_workers`]): their processes get their
    /// stdin closed and a short grace, then their groups are killed.
    pub(crate) async fn shutdown_workers(&self) {
        self.shell.shutdown_workers().await;
        self.shutdown_shell.shutdown_workers().await;
    }

    /// Ends run `run_id`'s background hooks (`async: true`) on both shell
    /// runtimes ([`ShellRuntime::end_run`]): after its `run_end` or
    /// `run_error`, which runs on the shutdown runtime while they run on
    /// the run's, and after each replayed input.
    pub(crate) async fn end_run(&self, run_id: &str) {
        self.shell.end_run(run_id).await;
        self.shutdown_shell.end_run(run_id).await;
    }

    /// Waits for run `run_id`'s background hooks, then ends the run
    /// ([`Bound::end_run`]): `test` shows their records.
    pub(crate) async fn settle(&self, run_id: &str) {
        self.shell.wait_background(run_id).await;
        self.end_run(run_id).await;
    }

    /// The tokens [`crate::cli::run_interruptible`] cancels.
    pub(crate) fn cancels(&self) -> Cancels {
        Cancels {
            run: self.shell.cancel_token().clone(),
            shutdown: self.shutdown_shell.cancel_token().clone(),
        }
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

    /// The position and rule of id `id` in the table.
    fn rule(&self, id: &str) -> Option<(usize, &hooks_schema::plan::Rule)> {
        self.table
            .rules()
            .iter()
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
