//! Persistent workers (`run: {worker: true}`) through the whole stack: a
//! `hooks!` table, a table loaded at run time, and the CLI's `test`. One
//! process answers every event; `run_end` shuts it down (its group is gone).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_hooks::shell::{Executor, RecordWriter, SecretSet, ShellRuntime};
use agent_hooks::{Flow, HookContext, HookStack, StepEvent, Table};
use hooks_runtime::{Dispatcher, TableRef};
use serde_json::{Value, json};

agent_hooks::hooks!(name = Workers, "configs/workers.yaml");

/// The config `Workers` is generated from.
fn config() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/configs/workers.yaml");
    std::fs::read_to_string(path).expect("tests/configs/workers.yaml")
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("workspace");
    std::fs::write(dir.path().join("hooks.yaml"), config()).expect("config");
    dir
}

fn pids(root: &Path) -> Vec<u32> {
    std::fs::read_to_string(root.join("pids"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.parse().expect("a pid"))
        .collect()
}

/// Whether process group `pgid` still has a live (not zombie) member.
fn group_alive(pgid: u32) -> bool {
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/stat")).ok())
        .any(|stat| {
            let Some(close) = stat.rfind(')') else {
                return false;
            };
            let fields: Vec<&str> = stat[close + 2..].split(' ').collect();
            fields.len() > 2 && fields[0] != "Z" && fields[2] == pgid.to_string()
        })
}

fn wait_gone(pgid: u32) -> bool {
    let end = Instant::now() + Duration::from_secs(5);
    while group_alive(pgid) {
        if Instant::now() > end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// Three tool calls and the run's end through `stack`: one worker process
/// decides every call, one record per call, and `run_end` shuts it down.
fn drive(stack: &HookStack, shell: &ShellRuntime, root: &Path) {
    let rt = runtime();
    let ctx = HookContext::new("workers");
    let call = |command: &str| {
        let args = json!({ "command": command });
        let event = StepEvent::BeforeTool {
            tool_name: "bash",
            call_id: "c",
            args: &args,
        };
        rt.block_on(stack.fold(&ctx, event)).decision
    };
    assert_eq!(call("ls"), None);
    assert_eq!(call("sudo rm x"), Some(Flow::skip("no sudo")));
    assert_eq!(call("pwd"), None);
    let started = pids(root);
    assert_eq!(started.len(), 1, "one process for every call");
    assert!(group_alive(started[0]));
    let records = std::fs::read_to_string(root.join("records.jsonl")).expect("records");
    assert_eq!(
        records.lines().count(),
        3,
        "one record per request: {records}"
    );
    assert_eq!(shell.open_workers(), 1);
    let end = StepEvent::RunEnd {
        output: "done",
        reason: "other",
    };
    rt.block_on(stack.fold(&ctx, end));
    assert_eq!(shell.open_workers(), 0, "run_end shuts the workers down");
    assert!(wait_gone(started[0]), "the worker's group is gone");
}

fn shell(root: &Path) -> Arc<ShellRuntime> {
    let records =
        RecordWriter::open(root.join("records.jsonl"), SecretSet::new()).expect("records");
    Arc::new(ShellRuntime::new(Executor::new(root).expect("executor")).with_records(records))
}

#[test]
fn a_hooks_macro_worker_answers_every_call_and_stops_at_run_end() {
    let ws = workspace();
    let shell = shell(ws.path());
    let stack = HookStack::new().with("workers", Workers::new().with_shell(Arc::clone(&shell)));
    drive(&stack, &shell, ws.path());
}

#[test]
fn a_loaded_worker_answers_every_call_and_stops_at_run_end() {
    let ws = workspace();
    let table = Table::load_str(&config(), "hooks.yaml").expect("the config loads");
    let shell = shell(ws.path());
    let dispatcher =
        Dispatcher::new(TableRef::Shared(Arc::new(table))).with_shell(Arc::clone(&shell));
    let stack = HookStack::new().with("hooks.yaml", dispatcher);
    drive(&stack, &shell, ws.path());
}

#[test]
fn the_cli_test_runs_a_worker_and_leaves_no_process() {
    let ws = workspace();
    std::fs::write(
        ws.path().join("event.json"),
        r#"{"phase":"before_tool","tool":"bash","call_id":"c1","args":{"command":"sudo ls"}}"#,
    )
    .expect("event");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(ws.path())
        .args([
            "test",
            "hooks.yaml",
            "--event",
            "event.json",
            "--format",
            "json",
        ])
        .output()
        .expect("run agent-hooks");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(report["verdict"]["decision"], "skip", "{report}");
    assert_eq!(report["verdict"]["reason"], "no sudo");
    let records = report["records"].as_array().expect("records");
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["hook_id"], "policy");
    let started = pids(ws.path());
    assert_eq!(started.len(), 1);
    assert!(
        wait_gone(started[0]),
        "the worker did not outlive the command"
    );
}
