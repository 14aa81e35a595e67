//! A record that cannot be written is lost, but never silently: the write
//! failure becomes a diagnostic on the invocation naming the records path
//! and the OS error, and the writer counts it.
//!
//! Two ways to make every write fail: `/dev/full` (ENOSPC, os error 28),
//! when it is the real character device (some containers lack it, and
//! opening the path there would create a regular file), and a FIFO whose
//! only reader has gone (EPIPE, os error 32; Rust ignores SIGPIPE).

#![cfg(target_os = "linux")]

use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::sync::Arc;

use hooks_runtime::{
    Executor, Flow, HookContext, RecordWriter, SecretSet, ShellHook, ShellHookSpec, ShellRuntime,
    StepEvent,
};
use hooks_schema::Phase;
use serde_json::json;

fn spec(id: &str, command: &str) -> ShellHookSpec {
    let mut spec = ShellHookSpec::new(
        id,
        Phase::BeforeTool,
        hooks_runtime::CommandForm::Shell(command.to_owned()),
    );
    spec.timeout = std::time::Duration::from_secs(10);
    spec
}

/// Invokes hooks through a runtime whose records go to `writer` (every
/// write of which fails with `os_error`) and checks the failures are
/// visible: on the invocation, in the session's diagnostics and on the
/// writer.
async fn check_failures_are_visible(writer: RecordWriter, os_error: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = writer.path().display().to_string();
    assert_eq!(writer.failed_writes(), 0);
    assert_eq!(writer.last_error(), None);
    let runtime = Arc::new(
        ShellRuntime::new(Executor::new(dir.path()).expect("executor"))
            .with_records(writer.clone()),
    );
    let ctx = HookContext::new("run-1");
    let args = json!({"command": "ls"});
    let event = StepEvent::BeforeTool {
        tool_name: "bash",
        call_id: "c1",
        args: &args,
    };

    let inv = ShellHook::new(spec("quiet", "exit 0"), Arc::clone(&runtime))
        .invoke(&ctx, event)
        .await;
    // The hook's own result is unaffected.
    assert_eq!(inv.flow, Flow::Continue);
    let diagnostics = inv.diagnostics();
    let lost: Vec<&String> = diagnostics
        .iter()
        .filter(|d| d.contains("cannot write to the records file"))
        .collect();
    assert_eq!(lost.len(), 1, "{:?}", inv.diagnostics());
    assert!(lost[0].contains(&format!("`{path}`")), "{}", lost[0]);
    assert!(lost[0].contains(os_error), "{}", lost[0]);
    assert!(lost[0].contains("1 record lost so far"), "{}", lost[0]);
    // And the writer can be queried, through any clone.
    assert_eq!(writer.failed_writes(), 1);
    let last = runtime
        .records()
        .expect("records are on")
        .last_error()
        .expect("a last error");
    assert!(last.contains(os_error), "{last}");

    // Secrets in the hook's environment never reach the diagnostic, and the
    // count goes on.
    let mut secret_spec = spec("deny", "echo no >&2; exit 2");
    secret_spec.process_mut().expect("a run hook").env.set =
        vec![("DEPLOY_TOKEN".to_owned(), "opaque-secret-value".to_owned())];
    let inv = ShellHook::new(secret_spec, Arc::clone(&runtime))
        .invoke(&ctx, event)
        .await;
    assert_eq!(inv.flow, Flow::skip("no"));
    assert!(
        inv.diagnostics()
            .iter()
            .any(|d| d.contains("2 records lost so far")),
        "{:?}",
        inv.diagnostics()
    );
    assert!(
        inv.diagnostics()
            .iter()
            .all(|d| !d.contains("opaque-secret"))
    );
    assert_eq!(writer.failed_writes(), 2);
}

#[tokio::test]
async fn a_full_disk_is_a_diagnostic_naming_path_and_os_error() {
    let full = Path::new("/dev/full");
    let is_device = std::fs::metadata(full).is_ok_and(|m| m.file_type().is_char_device());
    if !is_device {
        eprintln!("skipped: /dev/full is not the character device here");
        return;
    }
    let writer = RecordWriter::open(full, SecretSet::new()).expect("open /dev/full");
    check_failures_are_visible(writer, "os error 28").await;
}

#[tokio::test]
async fn a_broken_pipe_is_a_diagnostic_naming_path_and_os_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("records.fifo");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("run mkfifo");
    assert!(status.success());
    // Opening a FIFO blocks until both ends are open: a reader opens it and
    // closes it again, so every later write finds no reader.
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || drop(std::fs::File::open(fifo).expect("open the reader")))
    };
    let writer = RecordWriter::open(&fifo, SecretSet::new()).expect("open the FIFO");
    reader.join().expect("the reader closed");
    check_failures_are_visible(writer, "os error 32").await;
}
