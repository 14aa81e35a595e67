//! The example agent stops cleanly on SIGTERM: the tool it is running (a
//! shell with a background child, all in the tool's process group) is
//! killed, no process is left behind, its temporary workspace is removed
//! and it exits with 143.
//!
//! The agent runs in a child process: this test binary re-runs itself with
//! only the `child_agent` test selected and `AGENT_HOOKS_SIGNAL_CHILD` set.

#[allow(dead_code, reason = "the test uses the agent's `cli` only")]
#[path = "../examples/coding_agent/main.rs"]
mod coding_agent;

#[path = "common/procs.rs"]
mod procs;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use procs::{kill_all, processes_with, wait_until};

/// Set in the child: the `bash` command the agent runs first.
const CHILD: &str = "AGENT_HOOKS_SIGNAL_CHILD";

/// Not a test of its own: the agent, when this binary runs as the child.
#[test]
fn child_agent() {
    let Ok(command) = std::env::var(CHILD) else {
        return;
    };
    let records = std::env::temp_dir().join(format!("agent-signal-{}.jsonl", std::process::id()));
    let code = coding_agent::cli(
        [
            "--records".to_owned(),
            records.display().to_string(),
            "--first-command".to_owned(),
            command,
        ]
        .into_iter(),
    );
    let _ = std::fs::remove_file(records);
    std::process::exit(i32::from(code));
}

#[test]
fn sigterm_during_a_tool_leaves_no_orphan_and_no_workspace() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let needle = "sleep 97.5317";
    let mut child = Command::new(std::env::current_exe().expect("test binary"))
        .args(["child_agent", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "sleep 97.5317 & sleep 97.5318; wait")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the agent");
    let started = wait_until(Duration::from_secs(60), || {
        processes_with("sleep 97.531").len() >= 2
    });
    if !started {
        let _ = child.kill();
        let _ = child.wait();
        kill_all("sleep 97.531");
        panic!("the agent's tool never started");
    }
    // The tool runs in the workspace: its working directory is the root.
    let pid = processes_with(needle)[0];
    let workspace: PathBuf =
        std::fs::read_link(format!("/proc/{pid}/cwd")).expect("the tool's working directory");
    assert!(workspace.join("examples/hooks").is_dir(), "{workspace:?}");
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(sent.success());
    let mut status = None;
    wait_until(Duration::from_secs(20), || {
        status = child.try_wait().expect("try_wait");
        status.is_some()
    });
    let gone = wait_until(Duration::from_secs(3), || {
        processes_with("sleep 97.531").is_empty()
    });
    let left = processes_with("sleep 97.531");
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    kill_all("sleep 97.531");
    assert!(gone, "processes of the tool left after SIGTERM: {left:?}");
    assert_eq!(status.and_then(|s| s.code()), Some(143), "{status:?}");
    assert!(!workspace.exists(), "the workspace {workspace:?} is left");
}
