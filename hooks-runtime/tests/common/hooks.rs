//! Fixtures for the shell hook layer's integration tests (`hook_*.rs`).
//! Include with `#[path = "common/hooks.rs"] mod hooks;`.

#![allow(dead_code, reason = "each test binary uses a subset")]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hooks_runtime::{
    CommandForm, Executor, HookContext, HookLimits, Invocation, RecordWriter, SecretSet, ShellHook,
    ShellHookSpec, ShellRuntime, StepEvent, ToolOutcome,
};
use hooks_schema::Phase;
use serde_json::Value;

/// A temporary workspace root with a records file and a session directory.
pub(crate) struct Fixture {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) runtime: Arc<ShellRuntime>,
}

impl Fixture {
    pub(crate) fn new() -> Self {
        Self::with_limits(HookLimits::default())
    }

    pub(crate) fn with_limits(limits: HookLimits) -> Self {
        Self::build(limits, |rt| rt)
    }

    pub(crate) fn build(limits: HookLimits, f: impl FnOnce(ShellRuntime) -> ShellRuntime) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("session")).expect("session dir");
        let executor = Executor::new(dir.path()).expect("executor");
        let records =
            RecordWriter::open(dir.path().join("session/records.jsonl"), SecretSet::new())
                .expect("records file");
        let runtime = ShellRuntime::new(executor)
            .with_records(records)
            .with_limits(limits)
            .with_session_dir(dir.path().join("session"))
            .expect("session dir inside the root");
        Fixture {
            dir,
            runtime: Arc::new(f(runtime)),
        }
    }

    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub(crate) fn hook(&self, spec: ShellHookSpec) -> ShellHook {
        ShellHook::new(spec, Arc::clone(&self.runtime))
    }

    /// Runs the hook `spec` describes once on `event`, in a fresh context of
    /// run `run-1` (tests that share a context across calls keep their own).
    pub(crate) async fn invoke(&self, spec: ShellHookSpec, event: StepEvent<'_>) -> Invocation {
        self.hook(spec)
            .invoke(&HookContext::new("run-1"), event)
            .await
    }

    /// The records file's text.
    pub(crate) fn records_text(&self) -> String {
        std::fs::read_to_string(self.path("session/records.jsonl")).unwrap_or_default()
    }

    /// The records file, one parsed JSON value per line.
    pub(crate) fn records(&self) -> Vec<serde_json::Value> {
        self.records_text()
            .lines()
            .map(|l| serde_json::from_str(l).expect("each record line is one JSON document"))
            .collect()
    }
}

/// A `before_tool` event of `tool_name`, call `call_id`, with `args`.
pub(crate) fn before_tool<'a>(
    tool_name: &'a str,
    call_id: &'a str,
    args: &'a Value,
) -> StepEvent<'a> {
    StepEvent::BeforeTool {
        tool_name,
        call_id,
        args,
    }
}

/// An `after_tool` event of `tool_name`, call `call_id`, whose args were not
/// rewritten (`original_args` is `args`).
pub(crate) fn after_tool<'a>(
    tool_name: &'a str,
    call_id: &'a str,
    args: &'a Value,
    result: &'a Value,
    outcome: &'a ToolOutcome,
) -> StepEvent<'a> {
    StepEvent::AfterTool {
        tool_name,
        call_id,
        args,
        original_args: args,
        result,
        outcome,
        duration_ms: None,
    }
}

/// A shell-form spec with a 10 s timeout.
pub(crate) fn sh(id: &str, phase: Phase, command: &str) -> ShellHookSpec {
    let mut spec = ShellHookSpec::new(id, phase, CommandForm::Shell(command.to_owned()));
    spec.timeout = Duration::from_secs(10);
    spec
}

/// An exec-form spec with a 10 s timeout.
pub(crate) fn exec(id: &str, phase: Phase, argv: &[&str]) -> ShellHookSpec {
    let mut spec = ShellHookSpec::new(
        id,
        phase,
        CommandForm::Exec(argv.iter().map(|s| (*s).to_owned()).collect()),
    );
    spec.timeout = Duration::from_secs(10);
    spec
}

/// Absolute path of a fixture script in `tests/scripts/`.
pub(crate) fn script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scripts")
        .join(name)
        .to_string_lossy()
        .into_owned()
}
