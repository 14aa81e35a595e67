//! SIGINT and SIGTERM stop `agent-hooks test` and `replay --exec` cleanly:
//! the running hook's process is killed, the `.agent-hooks-session-*`
//! directory is removed and the exit code is 128 + the signal.
//! Also: each shell diagnostic of `test` is printed exactly once.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A temporary workspace with `hooks.yaml` (one before_tool hook running
/// `command`) and `event.json` (one bash call).
fn workspace(command: &str, timeout: &str, policy: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = format!(
        "version: 1\nhooks:\n  - id: hang\n    phase: before_tool\n    failure_policy: {policy}\n    run:\n      command: \"{command}\"\n      timeout: {timeout}\n"
    );
    std::fs::write(dir.path().join("hooks.yaml"), config).expect("write config");
    std::fs::write(
        dir.path().join("event.json"),
        r#"{"phase":"before_tool","tool":"bash","call_id":"c1","args":{"command":"ls"}}"#,
    )
    .expect("write event");
    dir
}

/// Pids of live processes whose command line contains `needle`.
fn processes_with(needle: &str) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("read /proc").flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(needle) {
            pids.push(pid);
        }
    }
    pids
}

/// Polls `check` every 20 ms until it holds or `limit` passes.
fn wait_until(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    check()
}

fn session_dirs(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("read workspace")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".agent-hooks-session-"))
        .collect()
}

/// Kills (SIGKILL) and reaps whatever is left, so a failing test leaves no
/// process behind.
fn cleanup(child: &mut Child, needle: &str) {
    let _ = child.kill();
    let _ = child.wait();
    for pid in processes_with(needle) {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
}

/// Starts `args` in `dir`, waits for the hook (`needle`) to run, sends
/// `signal`, and checks exit code, process and session-dir cleanup.
fn interrupt(args: &[&str], needle: &str, signal: &str, code: i32) {
    let dir = workspace(needle, "60s", "block");
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir.path())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn agent-hooks");
    let started = wait_until(Duration::from_secs(20), || {
        !processes_with(needle).is_empty()
    });
    if !started {
        cleanup(&mut child, needle);
        panic!("the hook `{needle}` never started");
    }
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(sent.success());
    let mut status = None;
    wait_until(Duration::from_secs(10), || {
        status = child.try_wait().expect("try_wait");
        status.is_some()
    });
    let Some(status) = status else {
        cleanup(&mut child, needle);
        panic!("agent-hooks did not exit after {signal}");
    };
    let gone = wait_until(Duration::from_secs(3), || processes_with(needle).is_empty());
    let left = processes_with(needle);
    cleanup(&mut child, needle);
    assert_eq!(status.code(), Some(code), "{signal}: {status:?}");
    assert!(gone, "hook processes left after {signal}: {left:?}");
    assert_eq!(session_dirs(dir.path()), Vec::<String>::new(), "{signal}");
}

#[test]
fn sigint_stops_test_kills_the_hook_and_removes_the_session_dir() {
    interrupt(
        &["test", "hooks.yaml", "--event", "event.json"],
        "sleep 97.123",
        "-INT",
        130,
    );
}

#[test]
fn sigterm_stops_test_with_143() {
    interrupt(
        &["test", "hooks.yaml", "--event", "event.json"],
        "sleep 97.456",
        "-TERM",
        143,
    );
}

#[test]
fn sigint_stops_replay_exec() {
    interrupt(
        &["replay", "hooks.yaml", "event.json", "--exec"],
        "sleep 97.789",
        "-INT",
        130,
    );
}

#[test]
fn each_shell_diagnostic_is_printed_once() {
    let dir = workspace("sleep 96.321", "300ms", "warn");
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
            .current_dir(dir.path())
            .args(["test", "hooks.yaml", "--event", "event.json"])
            .args(extra)
            .output()
            .expect("run agent-hooks");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let human = run(&[]);
    let lines: Vec<&str> = human
        .lines()
        .filter(|l| l.starts_with("diagnostic: hook `hang`"))
        .collect();
    assert_eq!(lines.len(), 1, "{human}");
    assert!(lines[0].contains("timed_out"), "{human}");

    let json: serde_json::Value = serde_json::from_str(&run(&["--format", "json"])).expect("JSON");
    let diags = json["shell_diagnostics"]
        .as_array()
        .expect("shell_diagnostics");
    let hang = diags
        .iter()
        .filter(|d| d.as_str().is_some_and(|d| d.contains("`hang`")))
        .count();
    assert_eq!(hang, 1, "{diags:?}");
    let mut unique = diags.clone();
    unique.dedup();
    assert_eq!(&unique, diags, "no duplicates");
    assert!(processes_with("sleep 96.321").is_empty());
}
