//! A rig agent whose hooks come from `examples/hooks.yaml` through `hooks!`
//! and [`hooks_rig::RigHooks`] — the second main job
//! (`cargo run -p hooks-rig --example rig_agent`).
//!
//! The agent is a plain rig agent (`rig_agent::AgentBuilder`) with real
//! tools in a temporary workspace:
//!
//! - `bash {command}` runs through our shared shell [`Executor`] (the same
//!   preflight, environment allowlist, process group and timeout handling
//!   as shell hooks; 10 s timeout);
//! - `read_file {path, max_bytes?}` reads at most `max_bytes` bytes;
//! - `write_file {path, content}` writes a file, creating its directories.
//!
//! Paths are relative to the workspace and may not leave it. The model is
//! rig's scripted completion model (`rig_core::test_utils`): no network,
//! no key, deterministic. The transcript prints, per folded event, what the
//! adapter told rig and which rules were consulted, then a summary: a
//! block, a rewrite, patched requests, injected context and a stop capped
//! by `limits.max_stop_resumes_per_turn`.

use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_hooks::HookStack;
use agent_hooks::report::Verdict;
use agent_hooks::shell::{ExecRequest, ExecStatus, Executor, SessionDir, ShellRuntime};
use hooks_rig::{Applied, RigHooks};
use rig_agent::AgentBuilder;
use rig_agent::tool::{Tool, ToolContext, ToolExecutionError};
use rig_core::test_utils::{MockCompletionModel, MockTurn};
use serde_json::{Value, json};

agent_hooks::hooks!(name = ExampleHooks, "../../examples/hooks.yaml");

/// The hooks directory copied into the workspace.
// `hooks-rig/examples/hooks` links to the repository's `examples/hooks`, so
// `hooks!` finds the scripts the config names under this package too.
const HOOK_SCRIPTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/hooks");

/// The workspace the tools act on.
#[derive(Clone)]
struct Workspace {
    root: PathBuf,
    executor: Executor,
    shell: Arc<ShellRuntime>,
}

impl Workspace {
    /// `path` inside the workspace, or an error when it is absolute or climbs out.
    fn confine(&self, path: &Value) -> Result<PathBuf, ToolExecutionError> {
        let path = Path::new(path.as_str().unwrap_or_default());
        if path.as_os_str().is_empty()
            || !path
                .components()
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err(ToolExecutionError::refused(
                "the path must be relative and stay inside the workspace",
            ));
        }
        Ok(self.root.join(path))
    }
}

/// Declares a tool over the workspace: name, description, JSON Schema.
macro_rules! workspace_tool {
    ($ty:ident, $name:literal, $description:literal, $schema:expr) => {
        struct $ty(Workspace);

        impl Tool for $ty {
            const NAME: &'static str = $name;
            type Args = Value;
            type Output = Value;
            type Error = ToolExecutionError;

            fn description(&self) -> String {
                $description.into()
            }

            fn parameters(&self) -> Value {
                $schema
            }

            async fn call(&self, _: &mut ToolContext, args: Value) -> Result<Value, Self::Error> {
                self.run(&args).await
            }
        }
    };
}

workspace_tool!(
    Bash,
    "bash",
    "Runs a shell command in the workspace.",
    json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]})
);
workspace_tool!(
    ReadFile,
    "read_file",
    "Reads a file of the workspace.",
    json!({"type": "object", "properties": {"path": {"type": "string"}, "max_bytes": {"type": "integer"}}, "required": ["path"]})
);
workspace_tool!(
    WriteFile,
    "write_file",
    "Writes a file of the workspace.",
    json!({"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]})
);

impl Bash {
    async fn run(&self, args: &Value) -> Result<Value, ToolExecutionError> {
        let mut req = ExecRequest::shell(args["command"].as_str().unwrap_or_default());
        req.timeout = Duration::from_secs(10);
        req.stdout_cap = 64 << 10;
        req.stderr_cap = 64 << 10;
        let out = self.0.executor.run(&req, self.0.shell.cancel_token()).await;
        let mut output = String::from_utf8_lossy(&out.stdout.bytes).into_owned();
        output.push_str(&String::from_utf8_lossy(&out.stderr.bytes));
        match out.status {
            ExecStatus::Exited(code) => Ok(json!({"exit_code": code, "output": output})),
            other => {
                let why = other.failure().map_or_else(
                    || "the command did not run".to_owned(),
                    |f| format!("{} ({})", f.kind, f.detail),
                );
                Err(ToolExecutionError::new(
                    rig_agent::tool::ToolErrorKind::Other,
                    format!("{why}: {output}"),
                ))
            }
        }
    }
}

impl ReadFile {
    async fn run(&self, args: &Value) -> Result<Value, ToolExecutionError> {
        let bytes = std::fs::read(self.0.confine(&args["path"])?)
            .map_err(ToolExecutionError::from_error)?;
        let max = args["max_bytes"]
            .as_u64()
            .map_or(bytes.len(), |m| usize::try_from(m).unwrap_or(usize::MAX));
        let kept = &bytes[..bytes.len().min(max)];
        Ok(json!({"content": String::from_utf8_lossy(kept), "truncated": kept.len() < bytes.len()}))
    }
}

impl WriteFile {
    async fn run(&self, args: &Value) -> Result<Value, ToolExecutionError> {
        let path = self.0.confine(&args["path"])?;
        let content = args["content"].as_str().unwrap_or_default();
        path.parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, content))
            .map_err(ToolExecutionError::from_error)?;
        Ok(json!({"path": args["path"], "bytes_written": content.len()}))
    }
}

/// The scripted model's turns: a rewritten read, a blocked delete, two
/// writes (one injects context), then text the stop hook keeps resuming.
fn script() -> Vec<MockTurn> {
    let todo = "add a test for src/greet.sh\nupdate README.md\nrun shellcheck\nask for review\n";
    vec![
        MockTurn::tool_call(
            "c1",
            "read_file",
            json!({"path": "README.md", "encoding": "latin1"}),
        ),
        MockTurn::tool_call("c2", "bash", json!({"command": "rm -rf build"})),
        MockTurn::tool_call(
            "c3",
            "write_file",
            json!({"path": "src/greet.sh", "content": "#!/bin/sh\necho \"hello, ${1:-world}\"\n"}),
        ),
        MockTurn::tool_call(
            "c4",
            "write_file",
            json!({"path": ".agent/TODO", "content": todo}),
        ),
        MockTurn::text("Done: src/greet.sh greets whoever it is given."),
        MockTurn::text("Working on the test for src/greet.sh."),
        MockTurn::text("Updated the README."),
        MockTurn::text("shellcheck is clean."),
        MockTurn::text("(never asked: the run ended)"),
    ]
}

/// Where the transcript goes: stdout, or the lines a test reads.
#[derive(Clone, Default)]
pub(crate) struct Out(Option<Arc<Mutex<Vec<String>>>>);

impl Out {
    /// An output that keeps its lines in `lines`.
    #[allow(
        dead_code,
        reason = "hooks-rig/tests/rig_example.rs includes this file and calls it"
    )]
    pub(crate) fn into_lines(lines: Arc<Mutex<Vec<String>>>) -> Out {
        Out(Some(lines))
    }

    fn line(&self, text: impl Into<String>) {
        let text = text.into();
        match &self.0 {
            None => println!("{text}"),
            Some(lines) => lines
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(text),
        }
    }
}

/// Counts of what the hooks did.
#[derive(Debug, Default)]
struct Summary {
    blocked: u32,
    rewritten: u32,
    patched: u32,
    injected: u32,
    resumes: u32,
    capped: u32,
}

/// Prints one folded event and counts it.
fn print_applied(out: &Out, summary: &Mutex<Summary>, applied: &Applied<'_>) {
    let mut s = summary
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let action = applied.action;
    let counter = match action.split(':').next().unwrap_or_default() {
        "deny" => Some(&mut s.blocked),
        "patch args" => Some(&mut s.rewritten),
        "patch" => Some(&mut s.patched),
        _ if action.starts_with("retry") => Some(&mut s.resumes),
        _ if action.contains("capped") => Some(&mut s.capped),
        _ => None,
    };
    if let Some(counter) = counter {
        *counter += 1;
    }
    // The same rule patches every request: show it once.
    if action.starts_with("patch:") && s.patched > 1 && applied.context.is_empty() {
        return;
    }
    let tool = applied
        .tool_name
        .map(|t| format!(" {t}"))
        .unwrap_or_default();
    out.line(format!("  {}{tool} => {action}", applied.phase.as_str()));
    for report in applied
        .reports
        .iter()
        .filter(|r| r.verdict != Verdict::Continue)
    {
        // `rule block-rm-rf: skip (recursive forced deletes ...)`.
        let why = report
            .message
            .as_deref()
            .map(|m| format!(" ({m})"))
            .unwrap_or_default();
        out.line(format!(
            "      rule {}: {}{why}",
            report.hook, report.verdict
        ));
    }
    for item in applied.context.iter() {
        s.injected += 1;
        out.line(format!(
            "      context for the next request: {}",
            item.content
        ));
    }
}

fn prepare_workspace(root: &Path) -> std::io::Result<()> {
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
    std::fs::write(root.join("README.md"), "# demo\n\nA tiny shell project.\n")
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::var_os("OPENAI_API_KEY").is_some()
        || std::env::var_os("ANTHROPIC_API_KEY").is_some()
    {
        println!(
            "note: a provider key is set, but this build has no HTTP provider: using the scripted model"
        );
    }
    run(Out::default()).await
}

/// Runs the scripted session, writing the transcript and the summary to
/// `out`.
pub(crate) async fn run(out: Out) -> Result<(), Box<dyn std::error::Error>> {
    let workspace = tempfile::tempdir()?;
    let root = workspace.path().canonicalize()?;
    prepare_workspace(&root)?;
    let executor = Executor::new(&root)?;
    // Payload-ref files go to a private directory outside the workspace,
    // so hooks that inspect the workspace do not see them.
    let session = SessionDir::create()?;
    let shell =
        Arc::new(ExampleHooks::shell_runtime(executor.clone()).with_session_dir(session.path())?);
    let tools = Workspace {
        root: root.clone(),
        executor,
        shell: Arc::clone(&shell),
    };

    let summary = Arc::new(Mutex::new(Summary::default()));
    let printer = Arc::clone(&summary);
    let hooks = RigHooks::new(HookStack::new().with(
        "examples/hooks.yaml",
        ExampleHooks::new().with_shell(Arc::clone(&shell)),
    ))
    .on_applied({
        let out = out.clone();
        move |applied| print_applied(&out, &printer, applied)
    });

    let table = ExampleHooks::table();
    out.line("rig agent: scripted model, real tools, hooks from examples/hooks.yaml");
    out.line(format!(
        "config: {}; stop resumes capped at {} per prompt",
        table.source(),
        table.limits().max_stop_resumes_per_turn
    ));
    out.line("");

    let model = MockCompletionModel::from_turns(script());
    let agent = AgentBuilder::new(model.clone())
        .preamble("You are a coding agent.")
        .tool(Bash(tools.clone()))
        .tool(ReadFile(tools.clone()))
        .tool(WriteFile(tools))
        .add_hook(hooks)
        .build();
    let prompt = "Add a greeting script with a test, and clean up the build directory.";
    let response = agent.prompt(prompt).max_turns(12).await?;
    out.line("");
    out.line(format!("final answer: {}", response.output()));

    let requests = model.requests();
    if let Some(first) = requests.first() {
        let unset = || "unset".to_owned();
        out.line(format!(
            "first request as the model got it: temperature {}, max_tokens {}, {} tool(s)",
            first.temperature.map_or_else(unset, |t| t.to_string()),
            first.max_tokens.map_or_else(unset, |m| m.to_string()),
            first.tools.len()
        ));
    }
    let s = summary
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    out.line(format!(
        "summary: {} model request(s); blocked {}, rewritten {}, patched {}, context items {}, resumes {}, capped stops {}",
        requests.len(),
        s.blocked,
        s.rewritten,
        s.patched,
        s.injected,
        s.resumes,
        s.capped
    ));
    out.line(format!(
        "build/ still there: {}; src/greet.sh written: {}",
        root.join("build/app.o").exists(),
        root.join("src/greet.sh").exists()
    ));
    Ok(())
}
