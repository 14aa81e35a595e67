//! A deterministic coding agent whose hooks come from `examples/hooks.yaml`
//! through `hooks!` — the project's main job (`cargo run --example
//! coding_agent`).
//!
//! The "model" is a fixed script of turns (assistant text plus tool calls):
//! no network, no randomness. The tools are real and run in a temporary
//! workspace:
//!
//! - `bash {command, timeout_ms?}` runs through the shared shell
//!   [`Executor`] (the same preflight, environment allowlist, process group
//!   and timeout handling as shell hooks); default timeout 10 s;
//! - `read_file {path, max_bytes?, encoding?}` reads at most `max_bytes`
//!   bytes (UTF-8, lossy);
//! - `write_file {path, content}` writes a file, creating its directories;
//!   paths are relative to the workspace root and may not leave it.
//!
//! Hook scripts are addressed relative to the workspace root (`sh
//! examples/hooks/guard.sh`) and run with it as their working directory, so
//! the agent copies `examples/hooks/` into the temporary workspace before
//! the run.
//!
//! Every event goes through one [`HookStack`] holding the compiled config;
//! the transcript shows, per event, the report of each rule that was
//! consulted (its verdict, failure, message, elapsed time and diagnostics,
//! straight from the decision's [`HookReport`]s), then a summary. The
//! records file (one JSON line per rule consulted, written by the runtime)
//! is written next to the example binary, under `target/` (or to
//! `--records PATH`); the transcript only prints its path.
//!
//! SIGINT, SIGTERM and SIGHUP stop the agent cleanly: the shell runtime's
//! cancellation stops the running tool and hooks (SIGTERM to each one's
//! process group, SIGKILL after the executor's kill grace), no later tool
//! or hook starts, the run ends, the temporary workspace is removed and
//! the agent exits with 128 + the signal's number (130, 143, 129).
//!
//! A tool call skipped by a hook does not run, so no `after_tool` event
//! follows it. The stop-resume cap counts resumes per user prompt: the
//! agent passes that count as the stop event's `loop_count`.
//!
//! This file holds the agent loop; `model.rs` is the scripted model (and
//! how a request patch is applied), `tools.rs` the real tools and
//! `print.rs` the transcript.

mod model;
mod print;
mod tools;

use std::borrow::Cow;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_hooks::shell::{Executor, RecordWriter, SecretSet, SessionDir, ShellRuntime};
use agent_hooks::{
    CompletionDecision, HookContext, HookStack, PromptDecision, StepEvent, StopDecision, ToolCall,
    ToolDecision,
};
use serde_json::{Value, json};

use model::{apply_patch, script};
use print::{brief, print_summary};

agent_hooks::hooks!(name = ExampleHooks, "../hooks.yaml");

/// The hooks directory copied into the workspace.
const HOOK_SCRIPTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/hooks");

/// How to run the agent.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    /// Where to write the records file; `None` = next to the executable.
    pub(crate) records: Option<PathBuf>,
    /// A `bash` command the model runs before its script
    /// (`--first-command`; the signal tests hold a tool running with it).
    pub(crate) first_command: Option<String>,
}

/// How long a stopped run gets to end (its running tool and hooks are
/// killed within the executor's kill grace) before it is dropped, which
/// SIGKILLs their process groups.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// The agent was stopped by a signal: `run`'s error, which `main` turns
/// into the exit code 128 + the signal's number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Interrupted {
    /// `SIGINT`, `SIGTERM` or `SIGHUP`.
    pub(crate) signal: &'static str,
    /// 130, 143 or 129.
    pub(crate) code: u8,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "interrupted by {}", self.signal)
    }
}

impl std::error::Error for Interrupted {}

/// What happened during a run (counts of the transcript's events).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Summary {
    /// Events emitted to the hooks.
    pub(crate) events: u32,
    /// Hook reports (rules consulted, in-process or shell).
    pub(crate) hooks_fired: u32,
    /// Tool calls a hook blocked (skipped).
    pub(crate) blocked: u32,
    /// Tool calls whose arguments a hook rewrote.
    pub(crate) rewritten: u32,
    /// Completion requests a hook patched.
    pub(crate) patched: u32,
    /// Context items injected by hooks.
    pub(crate) injected: u32,
    /// Decisions recorded but not enforced (`mode: audit`).
    pub(crate) audited: u32,
    /// Times a stop hook made the agent resume.
    pub(crate) resumes: u32,
    /// Resumes refused by the stop-resume cap.
    pub(crate) capped_stops: u32,
    /// Hook calls that failed (their failure policy applied).
    pub(crate) failures: u32,
    /// Total elapsed time of the consulted hooks.
    pub(crate) hook_time: Duration,
    /// Tool calls that ran.
    pub(crate) tools_run: u32,
    /// Lines of the audit log the `audit-log` hook wrote in the workspace.
    pub(crate) audit_log_lines: usize,
    /// The records file.
    pub(crate) records_path: PathBuf,
}

/// The agent: hooks, tools, transcript and records.
struct Agent<'w> {
    out: &'w mut dyn Write,
    stack: HookStack,
    shell: Arc<ShellRuntime>,
    executor: Executor,
    root: PathBuf,
    summary: Summary,
}

impl Agent<'_> {
    /// Folds an event without a dedicated driver method.
    async fn observe(&mut self, turn: &HookContext, event: StepEvent<'_>) -> io::Result<()> {
        writeln!(self.out, "  [{}] {}", turn.turn(), event.kind())?;
        let start = Instant::now();
        let decided = self.stack.observe(turn, event).await;
        self.report(&decided, start.elapsed())?;
        if let Some(reason) = decided.decision.terminate {
            writeln!(self.out, "      => terminate: {reason}")?;
        }
        Ok(())
    }

    /// One tool call: before_tool, the tool, after_tool. Returns the
    /// messages for the model and whether the run must end.
    async fn tool_call(
        &mut self,
        turn: &HookContext,
        call_id: &str,
        tool: &str,
        args: &Value,
        messages: &mut Vec<Value>,
    ) -> io::Result<Option<String>> {
        if self.shell.cancel_token().is_cancelled() {
            return Ok(Some(String::from("interrupted")));
        }
        writeln!(self.out, "  [{}] before_tool {tool} {args}", turn.turn())?;
        let call = ToolCall {
            tool_name: tool,
            call_id,
            args,
        };
        let start = Instant::now();
        let decided = self.stack.before_tool(turn, call).await;
        // This agent has no one to ask: a hook's `ask` is refused (fail closed).
        let decided = decided.resolve(turn, call, None).await;
        self.report(&decided, start.elapsed())?;
        let before_context = decided.context;
        let run_args: Cow<'_, Value> = match decided.decision {
            ToolDecision::Run { args: run_args } => run_args,
            ToolDecision::Skip { reason, .. } | ToolDecision::Ask { reason, .. } => {
                self.summary.blocked += 1;
                writeln!(self.out, "      => blocked: {reason}")?;
                messages.push(json!({"role": "tool", "tool_call_id": call_id, "content": reason}));
                return Ok(None);
            }
            ToolDecision::Terminate { reason } => {
                writeln!(self.out, "      => terminate: {reason}")?;
                return Ok(Some(reason.into_owned()));
            }
        };
        if let Cow::Owned(rewritten) = &run_args {
            self.summary.rewritten += 1;
            writeln!(self.out, "      => rewritten args: {rewritten}")?;
        }
        let (result, outcome) = self.run_tool(tool, &run_args).await;
        self.summary.tools_run += 1;
        writeln!(
            self.out,
            "      => ran {tool}: {} {}",
            outcome.label(),
            brief(&result)
        )?;

        writeln!(
            self.out,
            "  [{}] after_tool {tool} ({})",
            turn.turn(),
            outcome.label()
        )?;
        let ran = ToolCall {
            tool_name: tool,
            call_id,
            args: &run_args,
        };
        let start = Instant::now();
        let after = self
            .stack
            .after_tool(turn, ran, args, &result, &outcome)
            .await;
        self.report(&after, start.elapsed())?;
        messages.push(
            json!({"role": "tool", "tool_call_id": call_id, "content": after.decision.result}),
        );
        for item in before_context.iter().chain(&after.context) {
            self.summary.injected += 1;
            writeln!(
                self.out,
                "      => context for the model: {:?}",
                item.content
            )?;
            messages.push(json!({"role": "user", "content": item.content}));
        }
        if let Some(reason) = after.decision.terminate {
            writeln!(self.out, "      => terminate: {reason}")?;
            return Ok(Some(reason.into_owned()));
        }
        Ok(None)
    }
}

/// Copies the hook scripts and a small project into `root`.
fn prepare_workspace(root: &Path) -> io::Result<()> {
    let scripts = root.join("examples/hooks");
    std::fs::create_dir_all(&scripts)?;
    for entry in std::fs::read_dir(HOOK_SCRIPTS)? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            std::fs::copy(entry.path(), scripts.join(entry.file_name()))?;
        }
    }
    std::fs::create_dir_all(root.join("build"))?;
    std::fs::write(root.join("build/app.o"), "object code\n")?;
    std::fs::create_dir_all(root.join("src"))?;
    std::fs::write(
        root.join("README.md"),
        "# demo\n\nA tiny shell project the agent works on.\n",
    )?;
    Ok(())
}

/// Runs the agent, printing the transcript to `out`.
///
/// # Errors
///
/// I/O errors (workspace, records file, transcript) and a workspace the
/// executor refuses.
pub(crate) fn run(
    options: &Options,
    out: &mut dyn Write,
) -> Result<Summary, Box<dyn std::error::Error>> {
    let workspace = tempfile::tempdir()?;
    let root = workspace.path().canonicalize()?;
    prepare_workspace(&root)?;

    let records_path = match &options.records {
        Some(path) => path.clone(),
        None => std::env::current_exe()?
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
            .join("coding_agent-records.jsonl"),
    };
    match std::fs::remove_file(&records_path) {
        Err(err) if err.kind() != io::ErrorKind::NotFound => return Err(err.into()),
        _ => {}
    }
    let records = RecordWriter::open(&records_path, SecretSet::new())?;
    let table = ExampleHooks::table();
    let executor = Executor::new(&root)?;
    // Payload-ref files go to a private directory outside the workspace
    // (removed when `session` drops), so hooks that inspect the workspace
    // (`git status`) do not see them.
    let session = SessionDir::create()?;
    let shell = Arc::new(
        // The config's `limits` (payload, output and context caps, stop
        // resumes) come with the runtime the generated type builds.
        ExampleHooks::shell_runtime(executor.clone())
            .with_records(records)
            .with_session_dir(session.path())?,
    );
    let stack = HookStack::new().with(
        "examples/hooks.yaml",
        // The generated type applies its rules to the stack's fold
        // (`AgentHook::fold_into`): provenance names the config's rules and
        // a rewrite made before a skip is kept.
        ExampleHooks::new().with_shell(Arc::clone(&shell)),
    );

    writeln!(
        out,
        "coding agent: scripted model, real tools, hooks from examples/hooks.yaml"
    )?;
    writeln!(
        out,
        "config: {}; stop resumes capped at {} per turn (one user prompt here)",
        table.source(),
        table.limits().max_stop_resumes_per_turn
    )?;
    writeln!(
        out,
        "workspace: a temporary directory (hook scripts copied to examples/hooks/)"
    )?;
    writeln!(out)?;

    let mut agent = Agent {
        out,
        stack,
        shell: Arc::clone(&shell),
        executor,
        root: root.clone(),
        summary: Summary::default(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let first_command = options.first_command.as_deref();
    let stopped = runtime.block_on(interruptible(&mut agent, first_command))?;
    if let Some(interrupted) = stopped {
        writeln!(agent.out, "{interrupted}")?;
        // Dropping the runtime kills what is left (worker pools, a hook
        // past the grace); returning drops `workspace`, which removes it.
        drop(runtime);
        return Err(interrupted.into());
    }

    agent.summary.audit_log_lines = std::fs::read_to_string(root.join(".agent/audit.jsonl"))
        .map_or(0, |log| log.lines().count());
    agent.summary.records_path = records_path;
    let summary = agent.summary.clone();
    print_summary(agent.out, &summary)?;
    drop(workspace);
    Ok(summary)
}

/// Runs the agent loop until it ends or a signal comes; on SIGINT, SIGTERM
/// or SIGHUP, cancels the shell runtime (the running tool and hooks are
/// killed, nothing new starts) and gives the loop [`STOP_GRACE`] to end.
async fn interruptible(
    agent: &mut Agent<'_>,
    first_command: Option<&str>,
) -> io::Result<Option<Interrupted>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut int = signal(SignalKind::interrupt())?;
    let mut term = signal(SignalKind::terminate())?;
    let mut hup = signal(SignalKind::hangup())?;
    let cancel = agent.shell.cancel_token().clone();
    let mut work = std::pin::pin!(agent_loop(agent, first_command));
    let interrupted = tokio::select! {
        out = &mut work => return out.map(|()| None),
        _ = int.recv() => Interrupted { signal: "SIGINT", code: 130 },
        _ = term.recv() => Interrupted { signal: "SIGTERM", code: 143 },
        _ = hup.recv() => Interrupted { signal: "SIGHUP", code: 129 },
    };
    cancel.cancel();
    let _ = tokio::time::timeout(STOP_GRACE, work).await;
    Ok(Some(interrupted))
}

async fn agent_loop(agent: &mut Agent<'_>, first_command: Option<&str>) -> io::Result<()> {
    let ctx = HookContext::new("coding-agent");
    agent.observe(&ctx, StepEvent::RUN_START).await?;

    let prompt = "Add a greeting script with a test, and clean up the build directory.";
    writeln!(agent.out, "  [0] user_prompt {prompt:?}")?;
    let start = Instant::now();
    let decided = agent.stack.user_prompt(&ctx, prompt).await;
    agent.report(&decided, start.elapsed())?;
    let label = decided.decision.label();
    let prompt = match decided.decision {
        PromptDecision::Send { prompt } => prompt.into_owned(),
        PromptDecision::Skip { reason } | PromptDecision::Terminate { reason } => {
            writeln!(agent.out, "      => prompt refused ({label}): {reason}")?;
            return Ok(());
        }
    };

    let mut messages = vec![json!({"role": "user", "content": prompt})];
    let mut model = script(first_command).into_iter();
    let mut resumes = 0u32;
    let mut end: Option<String> = None;
    let mut turn_no = 0u32;
    while end.is_none() && !agent.shell.cancel_token().is_cancelled() {
        let turn = ctx.for_turn(turn_no);
        turn_no += 1;
        writeln!(agent.out)?;
        writeln!(agent.out, "── model turn {} ──", turn.turn())?;

        let mut request = json!({
            "model": "scripted",
            "messages": messages,
            "tools": ["bash", "read_file", "write_file"],
            "temperature": 1.0,
            "max_tokens": 1024,
        });
        writeln!(
            agent.out,
            "  [{}] before_completion ({} messages)",
            turn.turn(),
            messages.len()
        )?;
        let start = Instant::now();
        let decided = agent.stack.before_completion(&turn, &request).await;
        agent.report(&decided, start.elapsed())?;
        match decided.decision {
            CompletionDecision::Send { patch } => {
                if !patch.is_empty() {
                    agent.summary.patched += 1;
                    let lines = apply_patch(&mut request, &patch);
                    if agent.summary.patched == 1 {
                        for line in &lines {
                            writeln!(agent.out, "      => patched {line}")?;
                        }
                    } else {
                        // The same rule patches every request: show what changes.
                        let history = lines.iter().find(|l| l.starts_with("history"));
                        writeln!(
                            agent.out,
                            "      => patched {} field(s) as above{}",
                            lines.len(),
                            history.map(|h| format!("; {h}")).unwrap_or_default()
                        )?;
                    }
                }
            }
            CompletionDecision::Terminate { reason } => {
                writeln!(agent.out, "      => terminate: {reason}")?;
                break;
            }
        }

        let Some(answer) = model.next() else {
            writeln!(agent.out, "  the scripted model has nothing more to say")?;
            break;
        };
        writeln!(
            agent.out,
            "  model: {:?} ({} tool call(s))",
            answer.text,
            answer.calls.len()
        )?;
        let response = json!({
            "text": answer.text,
            "tool_calls": answer.calls.iter().map(|c| json!({"name": c.tool, "args": c.args})).collect::<Vec<_>>(),
        });
        agent
            .observe(
                &turn,
                StepEvent::AfterCompletion {
                    response: &response,
                },
            )
            .await?;
        messages.push(json!({"role": "assistant", "content": answer.text}));

        for (i, c) in answer.calls.iter().enumerate() {
            let call_id = format!("call-{}-{i}", turn.turn());
            if let Some(reason) = agent
                .tool_call(&turn, &call_id, c.tool, &c.args, &mut messages)
                .await?
            {
                end = Some(reason);
                break;
            }
        }
        if end.is_some() {
            break;
        }
        agent
            .observe(&turn, StepEvent::AfterAssistant { text: answer.text })
            .await?;
        if !answer.calls.is_empty() {
            continue;
        }

        writeln!(
            agent.out,
            "  [{}] stop (resumed {resumes} time(s) so far)",
            turn.turn()
        )?;
        let start = Instant::now();
        // The runtime counts resumes per user turn itself; `resumes` is
        // only this loop's own tally for printing.
        let stop = agent.stack.stop(&turn, 0, answer.text).await;
        agent.report(&stop, start.elapsed())?;
        match stop.decision {
            StopDecision::Resume { reason } => {
                resumes += 1;
                agent.summary.resumes += 1;
                writeln!(agent.out, "      => resume ({resumes}): {reason}")?;
                messages.push(json!({"role": "user", "content": reason}));
            }
            StopDecision::Capped { cap, resumes, .. } => {
                agent.summary.capped_stops += 1;
                writeln!(
                    agent.out,
                    "      => stop: capped ({resumes} resume(s) in this turn, the cap is {cap}: the stop hooks were not run)"
                )?;
                end = Some(String::from("stopped"));
            }
            StopDecision::Stop => {
                writeln!(agent.out, "      => stop")?;
                end = Some(String::from("stopped"));
            }
            StopDecision::Terminate { reason } => {
                writeln!(agent.out, "      => terminate: {reason}")?;
                end = Some(reason.into_owned());
            }
        }
    }
    writeln!(agent.out)?;
    let output = end.unwrap_or_default();
    agent
        .observe(
            &ctx.for_turn(turn_no),
            StepEvent::RunEnd {
                output: &output,
                reason: "other",
            },
        )
        .await?;
    Ok(())
}

#[allow(
    dead_code,
    reason = "the example binary's entry point; tests call `run`"
)]
fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(cli(std::env::args().skip(1)))
}

/// The example's command line: `[--records PATH] [--first-command CMD]`;
/// the exit code (0, 1 on an error, 2 on a usage error, 128 + the signal's
/// number when a signal stopped it).
pub(crate) fn cli(mut args: impl Iterator<Item = String>) -> u8 {
    let mut options = Options::default();
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--records", Some(path)) => options.records = Some(PathBuf::from(path)),
            ("--first-command", Some(command)) => options.first_command = Some(command),
            _ => {
                eprintln!(
                    "error: unexpected argument `{arg}`; usage: coding_agent [--records PATH] [--first-command CMD]"
                );
                return 2;
            }
        }
    }
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match run(&options, &mut out) {
        Ok(_) => 0,
        Err(err) => {
            eprintln!("error: {err}");
            err.downcast_ref::<Interrupted>().map_or(1, |i| i.code)
        }
    }
}
