//! The hook engine for the agents people already run: one payload of an
//! agent's hook event in, that agent's answer out. `agent-hooks hook
//! --agent NAME CONFIG...` is this engine behind a command hook; a server
//! behind the agents' `http` hooks calls the same [`Engine`].
//!
//! An [`Engine`] holds compiled configs ([`Table`]s, loaded once:
//! [`load_tables`], with the compiled-config cache of [`cache`]), each as a
//! [`Dispatcher`] in one [`HookStack`], in the order given, bound to a
//! shell runtime with the config's `limits`. [`Engine::answer`] reads the
//! agent's payload as our event and hook context (the agent's table of
//! event names and fields, shared with the script protocols:
//! [`hooks_runtime::claude_code`]), runs it through the stack's driver
//! method for its phase (the runtime's own dispatch and fold; nothing is
//! decided here) and writes the typed decision in the agent's output
//! format ([`claude`]).
//!
//! # JSON first
//!
//! Every decision an agent's protocol can express in its output object is
//! answered that way, with exit code 0: the same [`Answer::json`] is the
//! stdout of a command hook and the 2xx body of an `http` hook (Claude
//! Code's `type: http` hooks read decisions only from a 2xx JSON body,
//! never from a status code). Exit code 2 with stderr is kept for what
//! JSON cannot express: an input that cannot be read as any event (not
//! JSON, no event name), answered fail-closed. An error on a readable
//! event (an invalid config, a field of the wrong type) is answered in
//! JSON too: a deny or block on the events that gate something, a
//! `systemMessage` elsewhere ([`Engine::error_answer`]).

pub mod cache;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod gemini;
mod verdict;

pub use verdict::DECISION_NAMES;

use std::path::PathBuf;
use std::sync::Arc;

use hooks_runtime::state::SessionStore;
use hooks_runtime::{
    AfterToolDecision, CompactionDecision, CompletionDecision, Decided, Dispatcher, Executor,
    HookContext, HookStack, InvalidCallDecision, ModelDecision, Observed, OwnedEvent,
    PermissionDecision, PromptDecision, RecordWriter, ShellRuntime, StackTables, StepEvent,
    StopDecision, Table, TableRef, ToolCall, ToolDecision,
};
use serde_json::Value;

pub use cache::{
    CACHE_ENV, ConfigError, compile_stack, load_tables, stack_entries, use_cache_from_env,
};

/// An agent whose hook protocol the engine speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Agent {
    /// Claude Code (`settings.json` hooks; command and `http` hooks).
    Claude,
    /// OpenAI Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// GitHub Copilot (VS Code agent hooks, the Copilot CLI).
    Copilot,
}

impl Agent {
    /// Every agent, in the order of the `--agent` values.
    pub const ALL: [Agent; 4] = [Agent::Claude, Agent::Codex, Agent::Gemini, Agent::Copilot];

    /// The name used on the command line and in `POST /v1/hooks/{agent}`:
    /// `claude`, `codex`, `gemini`, `copilot`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Copilot => "copilot",
        }
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An agent name that is not one of [`Agent::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown agent `{0}`, expected one of: claude, codex, gemini, copilot")]
pub struct UnknownAgent(pub String);

impl std::str::FromStr for Agent {
    type Err = UnknownAgent;

    fn from_str(s: &str) -> Result<Agent, UnknownAgent> {
        Agent::ALL
            .into_iter()
            .find(|a| a.as_str() == s)
            .ok_or_else(|| UnknownAgent(s.to_owned()))
    }
}

/// An agent's answer to one hook event.
///
/// `json` is the agent's output object: a command hook prints it as
/// `stdout`, an `http` hook returns it as the 2xx body. `stderr` and
/// `exit_code` are the command hook's (`exit_code` 0 unless the input
/// could not be read as any event: 2, with the reason on `stderr`, as the
/// agent's protocol reads a blocking error). Every text in it passed
/// through redaction ([`hooks_runtime::redact_sensitive_text`]); tool
/// arguments and results the hooks rewrote are passed as they are.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The agent's output object (`{}`: nothing to say).
    pub json: Value,
    /// What a command hook prints on stdout: `json` on one line, or empty
    /// when `exit_code` is 2.
    pub stdout: String,
    /// What a command hook prints on stderr.
    pub stderr: String,
    /// A command hook's exit code: 0, or 2 (see [`Answer`]).
    pub exit_code: u8,
    /// Environment variables the hooks set for the agent's later tool
    /// calls (`run_start`, [`Decided::env`]); the `hook` command appends
    /// them to Claude Code's `CLAUDE_ENV_FILE`. Never printed.
    pub env: hooks_runtime::EnvVars,
}

impl Answer {
    /// An exit-0 answer of `json` (printed on one line).
    pub fn json(json: Value) -> Answer {
        let stdout = serde_json::to_string(&json).unwrap_or_default();
        Answer {
            json,
            stdout,
            stderr: String::new(),
            exit_code: 0,
            env: hooks_runtime::EnvVars::new(),
        }
    }

    /// The blocking error of an input that is no event: exit 2, `message`
    /// (redacted) on stderr, `{}` as JSON.
    pub fn blocking_error(message: &str) -> Answer {
        Answer {
            json: Value::Object(serde_json::Map::new()),
            stdout: String::new(),
            stderr: redact(message),
            exit_code: 2,
            env: hooks_runtime::EnvVars::new(),
        }
    }
}

/// One event read from an agent's payload: our event and the hook
/// context of its session. A caller may adjust both between
/// [`Engine::read`] and [`Engine::decide`] (a session state store setting
/// `stop`'s loop count, seeding the scratchpad).
#[derive(Debug, Clone)]
pub struct Request {
    /// The agent the payload came from.
    pub agent: Agent,
    /// The event.
    pub event: OwnedEvent,
    /// The hook context: run and session id, transcript path, cwd,
    /// permission mode.
    pub ctx: HookContext,
    /// The Claude Code name of the event (`PreToolUse`,
    /// `PostToolUseFailure`, ...) whose answer the agent's is written
    /// from ([`claude::answer`]).
    pub event_name: String,
    /// The event's name in the agent's own terms, as the payload (or the
    /// caller) gave it: `BeforeTool` for Gemini CLI, `preToolUse` for the
    /// Copilot CLI's format; Claude Code's and Codex's are `event_name`.
    pub agent_event: String,
}

/// Why an [`Engine::read`] found no event to decide.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The payload is not JSON.
    #[error("the hook input is not JSON: {0}")]
    NotJson(String),
    /// The agent's payload could not be read (see
    /// [`hooks_runtime::claude_code::PayloadError`]).
    #[error(transparent)]
    Payload(#[from] hooks_runtime::claude_code::PayloadError),
    /// A Copilot CLI payload (camelCase: it names no event) came without
    /// the event's name.
    #[error(
        "the Copilot payload names no event: run `agent-hooks hook --agent copilot --event NAME` (a server: `POST /v1/hooks/copilot?event=NAME`), as `agent-hooks init --agent copilot` writes it"
    )]
    NoEvent,
}

/// Where an [`Engine`] runs hooks and what it keeps.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// The workspace root `run` hooks run in (commands and their `cwd`
    /// resolve against it; `CLAUDE_PROJECT_DIR`).
    pub workspace: PathBuf,
    /// The session directory for payload spill files (private to the
    /// user, outside the workspace; [`hooks_runtime::SessionDir`]); needed
    /// only when a config has `run` hooks.
    pub session_dir: Option<PathBuf>,
    /// Where every consulted hook writes its record, if anywhere.
    pub records: Option<RecordWriter>,
    /// Cancelling it stops every running hook (SIGTERM, the executor's
    /// kill grace, SIGKILL to its process group) and fails later ones as
    /// `cancelled`: a command on a signal, a server draining.
    pub cancel: hooks_runtime::CancellationToken,
    /// The command `policy` hooks evaluate in under a memory cap
    /// ([`ShellRuntime::with_policy_process`]); `None`: in process.
    pub policy_process: Option<Vec<String>>,
}

/// Why an [`Engine`] could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// The workspace root cannot be used (see [`Executor::new`]).
    #[error("cannot use `{path}` as workspace root: {source}")]
    Workspace {
        /// The workspace root.
        path: PathBuf,
        /// Why.
        #[source]
        source: hooks_runtime::PreflightError,
    },
    /// The session directory cannot be used.
    #[error("cannot use the session directory: {0}")]
    SessionDir(String),
}

/// Compiled configs bound to the runtime, answering agents' hook events.
/// Build it once (a command hook: per process; a server: per config
/// generation) and call [`Engine::answer`] for each event; it is `Send +
/// Sync`, and concurrent calls share nothing but the configs and the
/// shell runtimes (each call has its own [`HookContext`]).
pub struct Engine {
    stack: HookStack,
    shells: Vec<Arc<ShellRuntime>>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("stack", &self.stack)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// Binds `tables` (one [`Dispatcher`] each, named after its config's
    /// source, in one [`HookStack`], which runs them by layer, lowest
    /// first) to shell runtimes built from each table's `limits`
    /// ([`Table::shell_runtime`]) in `options.workspace`, after the
    /// managed layer's switches ([`StackTables::new`]): with
    /// `disable_all_hooks` no table runs, with `managed_hooks_only` only
    /// the managed layer's.
    ///
    /// # Errors
    ///
    /// [`EngineError`]: the workspace root or the session directory
    /// cannot be used.
    pub fn new(tables: Vec<Table>, options: &EngineOptions) -> Result<Engine, EngineError> {
        let executor =
            Executor::new(&options.workspace).map_err(|source| EngineError::Workspace {
                path: options.workspace.clone(),
                source,
            })?;
        let mut stack = HookStack::new();
        let StackTables {
            tables, switches, ..
        } = StackTables::new(tables);
        let mut shells = Vec::with_capacity(tables.len());
        for table in tables {
            let table = Arc::new(table);
            let mut shell = table
                .shell_runtime(executor.clone())
                .with_cancel(options.cancel.clone());
            if let Some(switches) = &switches {
                shell = shell.with_switches(Arc::clone(switches));
            }
            if let Some(records) = &options.records {
                shell = shell.with_records(records.clone());
            }
            if let Some(argv) = &options.policy_process {
                shell = shell.with_policy_process(argv.clone());
            }
            if let Some(dir) = &options.session_dir {
                shell = shell
                    .with_session_dir(dir)
                    .map_err(|e| EngineError::SessionDir(e.to_string()))?;
            }
            let shell = Arc::new(shell);
            let id = table.source().to_owned();
            let dispatcher =
                Dispatcher::new(TableRef::Shared(table)).with_shell(Arc::clone(&shell));
            stack = stack.with(id, dispatcher);
            shells.push(shell);
        }
        Ok(Engine { stack, shells })
    }

    /// The engine with `store` keeping each session's state across calls
    /// (the stop-resume cap counted per `session_id`, reset on a user
    /// prompt: [`HookStack::with_session_store`], docs/session-state.md).
    /// Without it the cap counts within one call only, which a command
    /// hook (a process per event) never reaches.
    pub fn with_session_store(mut self, store: Arc<dyn SessionStore>) -> Engine {
        self.stack = self.stack.with_session_store(store);
        self
    }

    /// The stack the engine drives (its stop cap, its hooks).
    pub fn stack(&self) -> &HookStack {
        &self.stack
    }

    /// Reads `payload` (the agent's hook input, JSON) as a [`Request`].
    /// `event` names the event of a payload that does not name it itself
    /// (the Copilot CLI's: [`copilot`]); a payload's own name wins.
    ///
    /// # Errors
    ///
    /// [`ReadError`]: not JSON, not an input of `agent`'s protocol, no
    /// event name.
    pub fn read(
        &self,
        agent: Agent,
        event: Option<&str>,
        payload: &[u8],
    ) -> Result<Request, ReadError> {
        read(agent, event, payload)
    }

    /// Decides `request` through the stack and answers in its agent's
    /// format.
    ///
    /// # Cancel safety
    ///
    /// As [`HookStack::fold`]: dropping the future kills a running hook's
    /// process group and answers nothing.
    pub async fn decide(&self, request: &Request) -> Answer {
        let decided = decide(&self.stack, &request.ctx, &request.event).await;
        let mut answer = match request.agent {
            Agent::Claude => claude::answer(request, &decided),
            Agent::Codex => codex::answer(request, &decided),
            Agent::Gemini => gemini::answer(request, &decided),
            Agent::Copilot => copilot::answer(request, &decided),
        };
        answer.env = decided.env;
        answer
    }

    /// [`Engine::read`] then [`Engine::decide`]: the answer to one
    /// payload. An event the agent has but we have no phase for is
    /// answered with `{}` (nothing to decide); a payload that cannot be
    /// read is answered by [`Engine::error_answer`].
    ///
    /// # Cancel safety
    ///
    /// As [`Engine::decide`].
    pub async fn answer(&self, agent: Agent, event: Option<&str>, payload: &[u8]) -> Answer {
        match self.read(agent, event, payload) {
            Ok(request) => self.decide(&request).await,
            Err(e) => Engine::error_answer(agent, event, payload, &e),
        }
    }

    /// The answer when no decision could be made for `payload`: `{}` for
    /// an event without a phase here; otherwise `error` answered in the
    /// agent's format, fail-closed where the event gates something (see
    /// [`claude::error_answer`]). Also what a caller answers when the
    /// configs cannot be loaded.
    pub fn error_answer(
        agent: Agent,
        event: Option<&str>,
        payload: &[u8],
        error: &dyn std::fmt::Display,
    ) -> Answer {
        match agent {
            // Claude Code's fail-closed fields (deny, block) are ones Codex
            // enforces too.
            Agent::Claude | Agent::Codex => claude::error_answer(payload, error),
            Agent::Gemini => gemini::error_answer(payload, error),
            Agent::Copilot => copilot::error_answer(payload, event, error),
        }
    }

    /// Waits for the background hooks (`async: true`) of run `run_id` on
    /// every shell runtime ([`ShellRuntime::wait_background`]), then ends
    /// the run there ([`ShellRuntime::end_run`]: context not delivered is
    /// dropped, with a record): what a process that answers one event (the
    /// `hook` command) does before it exits, so its background hooks end
    /// with their records instead of being killed with the process.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future stops waiting; cancelling the engine's token
    /// cancels the hooks.
    pub async fn settle(&self, run_id: &str) {
        for shell in &self.shells {
            shell.wait_background(run_id).await;
            shell.end_run(run_id).await;
        }
    }

    /// Shuts down the persistent workers of every shell runtime
    /// ([`ShellRuntime::shutdown_workers`]).
    pub async fn shutdown(&self) {
        for shell in &self.shells {
            shell.shutdown_workers().await;
        }
    }
}

fn read(agent: Agent, event: Option<&str>, payload: &[u8]) -> Result<Request, ReadError> {
    let text = payload.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(payload);
    let value: Value =
        serde_json::from_slice(text).map_err(|e| ReadError::NotJson(e.to_string()))?;
    // Codex sends Claude Code's input format (`codex`'s module docs); a
    // Gemini CLI or Copilot payload is read as the Claude Code one it
    // corresponds to (their module docs).
    let (value, agent_event) = match agent {
        Agent::Claude | Agent::Codex => (value, None),
        Agent::Gemini => {
            let name = value
                .get("hook_event_name")
                .and_then(Value::as_str)
                .map(str::to_owned);
            (
                hooks_runtime::gemini_cli::to_claude_payload(&value).unwrap_or(value),
                name,
            )
        }
        Agent::Copilot => {
            let (value, name) = copilot::to_claude(&value, event)?;
            (value, Some(name))
        }
    };
    let (event, ctx) = hooks_runtime::claude_code::read_payload(&value)?;
    let event_name = hooks_runtime::claude_code::hook_event_name(&event.as_step()).to_owned();
    Ok(Request {
        agent,
        agent_event: agent_event.unwrap_or_else(|| event_name.clone()),
        event,
        ctx,
        event_name,
    })
}

/// The typed decision of one event: the driver method's result for its
/// phase. Exhaustive: a new phase's decision is a new variant every
/// caller (the hook command, the server, the CLI's `test`) must answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision<'a> {
    /// `user_prompt`.
    Prompt(PromptDecision<'a>),
    /// `before_completion`.
    Completion(CompletionDecision),
    /// `before_tool`.
    Tool(ToolDecision<'a>),
    /// `permission_request`.
    Permission(PermissionDecision<'a>),
    /// `after_tool`.
    AfterTool(AfterToolDecision<'a>),
    /// `invalid_tool_call`.
    InvalidCall(InvalidCallDecision),
    /// `stop`, `subagent_stop`.
    Stop(StopDecision),
    /// `before_compaction`.
    Compaction(CompactionDecision),
    /// `before_model_select`.
    Model(ModelDecision<'a>),
    /// Every other phase.
    Observed(Observed),
}

/// `decided` with its decision wrapped by `wrap`.
fn wrap<D, E>(decided: Decided<D>, wrap: impl FnOnce(D) -> E) -> Decided<E> {
    let Decided {
        decision,
        context,
        env,
        provenance,
        diagnostics,
        reports,
    } = decided;
    Decided {
        decision: wrap(decision),
        context,
        env,
        provenance,
        diagnostics,
        reports,
    }
}

/// Drives `event` through `stack` with the driver method of its phase.
///
/// # Cancel safety
///
/// As the driver methods.
pub async fn decide<'a>(
    stack: &HookStack,
    ctx: &HookContext,
    event: &'a OwnedEvent,
) -> Decided<Decision<'a>> {
    let step = event.as_step();
    match step {
        StepEvent::UserPrompt { prompt } => {
            wrap(stack.user_prompt(ctx, prompt).await, Decision::Prompt)
        }
        StepEvent::BeforeCompletion { request } => wrap(
            stack.before_completion(ctx, request).await,
            Decision::Completion,
        ),
        StepEvent::BeforeTool {
            tool_name,
            call_id,
            args,
        } => {
            let call = ToolCall {
                tool_name,
                call_id,
                args,
            };
            wrap(stack.before_tool(ctx, call).await, Decision::Tool)
        }
        StepEvent::PermissionRequest {
            tool_name,
            call_id,
            args,
            suggestions,
        } => {
            let call = ToolCall {
                tool_name,
                call_id,
                args,
            };
            wrap(
                stack.permission_request(ctx, call, suggestions).await,
                Decision::Permission,
            )
        }
        StepEvent::AfterTool { .. } => {
            wrap(stack.after_tool_event(ctx, step).await, Decision::AfterTool)
        }
        StepEvent::InvalidToolCall {
            tool_name,
            call_id,
            raw_args,
            error,
        } => wrap(
            stack
                .invalid_tool_call(ctx, tool_name, call_id, raw_args, error)
                .await,
            Decision::InvalidCall,
        ),
        StepEvent::Stop { .. } | StepEvent::SubagentStop { .. } => {
            wrap(stack.stop_event(ctx, step).await, Decision::Stop)
        }
        StepEvent::BeforeModelSelect { selection } => wrap(
            stack.before_model_select(ctx, selection).await,
            Decision::Model,
        ),
        StepEvent::BeforeCompaction {
            trigger,
            instructions,
        } => wrap(
            stack.before_compaction(ctx, trigger, instructions).await,
            Decision::Compaction,
        ),
        other => wrap(stack.observe(ctx, other).await, Decision::Observed),
    }
}

/// `text` through the project's one redaction function.
pub(crate) fn redact(text: &str) -> String {
    hooks_runtime::redact_sensitive_text(text, &hooks_runtime::SecretSet::new()).into_owned()
}

impl Engine {
    /// Whether `request` needs the session store: every event when a
    /// config has scoped or `once` hooks (their scopes and claims live in
    /// the store), else the events whose decision reads or resets
    /// per-session state (`stop`, `subagent_stop`: the stop-resume cap;
    /// `user_prompt`: its reset). Others run without one, so a command
    /// hook opens the store only when it matters.
    pub fn needs_session_state(&self, request: &Request) -> bool {
        self.stack.has_scoped_hooks()
            || matches!(
                request.event.as_step(),
                StepEvent::Stop { .. }
                    | StepEvent::SubagentStop { .. }
                    | StepEvent::UserPrompt { .. }
            )
    }
}

/// Whether any of `tables` has a `run` rule (which needs a session
/// directory for payload spill files).
pub fn runs_processes(tables: &[Table]) -> bool {
    tables
        .iter()
        .any(|t| t.rules().iter().any(|r| !r.action.is_declarative()))
}
