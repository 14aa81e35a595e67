//! SIGHUP, SIGINT and SIGTERM stop `agent-hooks test` and `replay --exec`
//! cleanly: the running hook's process is killed, what the command has (the
//! records saying `cancelled`, the partial outcome) is printed, the session
//! directory (in `$XDG_RUNTIME_DIR`, here a private directory beside the
//! workspace) is removed after that and the exit code is 128 + the signal.
//! `run_end` hooks keep their declared timeout
//! after a first signal (a second one cuts them); an interrupted replay
//! still ends its run with `run_end`; eight concurrent hooks are cancelled
//! within the kill grace plus one second.
//! Also: each shell diagnostic of `test` is printed exactly once, and a
//! signal during a long `policy` evaluation is not lost.

#[path = "common/procs.rs"]
mod procs;

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use agent_hooks::shell::Executor;
use procs::{kill_all, processes_with, wait_until};

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

/// The private directory `start` gives the command as `$XDG_RUNTIME_DIR`
/// (beside the workspace `dir`, outside it).
fn runtime_dir(dir: &Path) -> std::path::PathBuf {
    dir.with_extension("run")
}

/// Session directories left in the workspace `dir` (the old place) or in
/// its runtime directory (removed when empty).
fn session_dirs(dir: &Path) -> Vec<String> {
    let in_workspace = std::fs::read_dir(dir)
        .expect("read workspace")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".agent-hooks-session-"));
    let runtime = runtime_dir(dir);
    let in_runtime: Vec<String> = std::fs::read_dir(&runtime)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    if in_runtime.is_empty() {
        let _ = std::fs::remove_dir(&runtime);
    }
    in_workspace.chain(in_runtime).collect()
}

/// Kills (SIGKILL) and reaps whatever is left, so a failing test leaves no
/// process behind.
fn cleanup(child: &mut Child, needle: &str) {
    let _ = child.kill();
    let _ = child.wait();
    kill_all(needle);
}

/// `agent-hooks ARGS` started in `dir`, its stdout read by a thread (so
/// a full pipe cannot block it).
struct Running {
    child: Child,
    stdout: std::thread::JoinHandle<String>,
}

fn start(dir: &Path, args: &[&str]) -> Running {
    use std::os::unix::fs::DirBuilderExt;
    let runtime = runtime_dir(dir);
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&runtime)
        .expect("create the runtime dir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir)
        .env("XDG_RUNTIME_DIR", &runtime)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn agent-hooks");
    let mut pipe = child.stdout.take().expect("stdout");
    let stdout = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = pipe.read_to_string(&mut text);
        text
    });
    Running { child, stdout }
}

impl Running {
    /// Waits until every needle names a live process (cleaning up and
    /// panicking after 20 s).
    fn wait_for_hooks(&mut self, needles: &[&str]) {
        let started = wait_until(Duration::from_secs(20), || {
            needles.iter().all(|n| !processes_with(n).is_empty())
        });
        if !started {
            self.cleanup(needles);
            panic!("the hooks {needles:?} never started");
        }
    }

    fn signal(&self, signal: &str) {
        let sent = Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(sent.success());
    }

    /// Waits up to `limit` for the exit; the status and the stdout.
    fn wait(mut self, limit: Duration, needles: &[&str]) -> (std::process::ExitStatus, String) {
        let mut status = None;
        wait_until(limit, || {
            status = self.child.try_wait().expect("try_wait");
            status.is_some()
        });
        let Some(status) = status else {
            self.cleanup(needles);
            panic!("agent-hooks did not exit within {limit:?}");
        };
        let stdout = self.stdout.join().expect("stdout reader");
        (status, stdout)
    }

    fn cleanup(&mut self, needles: &[&str]) {
        for needle in needles {
            cleanup(&mut self.child, needle);
        }
    }
}

/// Starts `args` in `dir`, waits for the hook (`needle`) to run, sends
/// `signal`, and checks exit code, process and session-dir cleanup;
/// returns what the command printed.
fn interrupt(args: &[&str], needle: &str, signal: &str, code: i32) -> String {
    let dir = workspace(needle, "60s", "block");
    let mut running = start(dir.path(), args);
    running.wait_for_hooks(&[needle]);
    running.signal(signal);
    let (status, stdout) = running.wait(Duration::from_secs(10), &[needle]);
    let gone = wait_until(Duration::from_secs(3), || processes_with(needle).is_empty());
    let left = processes_with(needle);
    assert_eq!(status.code(), Some(code), "{signal}: {status:?}");
    assert!(gone, "hook processes left after {signal}: {left:?}");
    assert_eq!(session_dirs(dir.path()), Vec::<String>::new(), "{signal}");
    stdout
}

/// The records `test --format json` printed.
fn records(stdout: &str) -> Vec<serde_json::Value> {
    let report: serde_json::Value = serde_json::from_str(stdout).expect("a JSON report");
    report["records"].as_array().expect("records").clone()
}

/// A temporary workspace with `config` as `hooks.yaml` and `event` as
/// `event.json`.
fn workspace_with(config: &str, event: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("hooks.yaml"), config).expect("write config");
    std::fs::write(dir.path().join("event.json"), event).expect("write event");
    dir
}

#[test]
fn sigint_stops_test_kills_the_hook_and_removes_the_session_dir() {
    let stdout = interrupt(
        &["test", "hooks.yaml", "--event", "event.json"],
        "sleep 97.123",
        "-INT",
        130,
    );
    assert!(stdout.contains("interrupted: SIGINT"), "{stdout}");
}

#[test]
fn sigterm_stops_test_with_143_and_prints_the_cancelled_record() {
    let stdout = interrupt(
        &[
            "test",
            "hooks.yaml",
            "--event",
            "event.json",
            "--format",
            "json",
        ],
        "sleep 97.456",
        "-TERM",
        143,
    );
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("a JSON report");
    assert_eq!(report["interrupted"], "SIGTERM", "{stdout}");
    // The partial outcome: the cancelled hook under `block` skips the call.
    assert_eq!(report["verdict"]["decision"], "skip", "{stdout}");
    let records = records(&stdout);
    assert_eq!(records.len(), 1, "{stdout}");
    assert_eq!(records[0]["hook_id"], "hang", "{stdout}");
    assert_eq!(records[0]["failure_kind"], "cancelled", "{stdout}");
}

/// A hang-up (the terminal closed, the SSH session dropped) is handled like
/// SIGTERM: every process of the hook's group (here the hook and a
/// background child of it) is killed, the cancelled record is printed, the
/// session directory is removed and the exit code is 129. Without a handler
/// the command died at once, printed nothing, and left the hook's group
/// running and the session directory behind.
#[test]
fn sighup_stops_test_with_129_kills_the_hook_group_and_removes_the_session_dir() {
    let dir = workspace("sleep 97.2461 & sleep 97.2462; wait", "60s", "block");
    let needles = ["sleep 97.2461", "sleep 97.2462"];
    let mut running = start(
        dir.path(),
        &[
            "test",
            "hooks.yaml",
            "--event",
            "event.json",
            "--format",
            "json",
        ],
    );
    running.wait_for_hooks(&needles);
    running.signal("-HUP");
    let (status, stdout) = running.wait(Duration::from_secs(10), &needles);
    let gone = wait_until(Duration::from_secs(3), || {
        processes_with("sleep 97.246").is_empty()
    });
    let left = processes_with("sleep 97.246");
    kill_all("sleep 97.246");
    assert!(gone, "hook processes left after SIGHUP: {left:?}");
    assert_eq!(status.code(), Some(129), "{status:?}");
    assert_eq!(session_dirs(dir.path()), Vec::<String>::new());
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("a JSON report");
    assert_eq!(report["interrupted"], "SIGHUP", "{stdout}");
    let records = records(&stdout);
    assert_eq!(records.len(), 1, "{stdout}");
    assert_eq!(records[0]["hook_id"], "hang", "{stdout}");
    assert_eq!(records[0]["failure_kind"], "cancelled", "{stdout}");
}

#[test]
fn sigint_stops_replay_exec_and_prints_the_summary() {
    let stdout = interrupt(
        &["replay", "hooks.yaml", "event.json", "--exec"],
        "sleep 97.789",
        "-INT",
        130,
    );
    assert!(stdout.contains("interrupted: SIGINT"), "{stdout}");
    assert!(
        stdout.contains("shell hooks run: 1  failures: 1"),
        "{stdout}"
    );
}

/// Eight `run` rules on `run_start` (an observe-only phase: they run
/// concurrently), each a shell ignoring SIGTERM (so only the SIGKILL after
/// the kill grace ends it) with a background `sleep` and a foreground one,
/// both named by its needle.
fn eight_hooks() -> (tempfile::TempDir, Vec<String>) {
    let needles: Vec<String> = (0..8).map(|i| format!("sleep 94.5{i}")).collect();
    let mut config = String::from("version: 1\nhooks:\n");
    for (i, needle) in needles.iter().enumerate() {
        config.push_str(&format!(
            "  - id: h{i}\n    phase: run_start\n    run:\n      command: \"trap '' TERM; {needle}2 & {needle}1\"\n      timeout: 60s\n"
        ));
    }
    (workspace_with(&config, r#"{"phase":"run_start"}"#), needles)
}

#[test]
fn cancelling_eight_concurrent_hooks_is_bounded_and_reported() {
    let (dir, needles) = eight_hooks();
    let needles: Vec<&str> = needles.iter().map(String::as_str).collect();
    let mut running = start(
        dir.path(),
        &[
            "test",
            "hooks.yaml",
            "--event",
            "event.json",
            "--format",
            "json",
        ],
    );
    running.wait_for_hooks(&needles);
    let sent = Instant::now();
    running.signal("-TERM");
    let (status, stdout) = running.wait(Duration::from_secs(10), &needles);
    let took = sent.elapsed();
    let left: Vec<u32> = needles.iter().flat_map(|n| processes_with(n)).collect();
    println!("cancelling 8 concurrent hooks took {} ms", took.as_millis());
    assert_eq!(status.code(), Some(143), "{status:?}");
    assert!(
        took <= Executor::DEFAULT_KILL_GRACE + Duration::from_secs(1),
        "took {took:?}"
    );
    // Every process group was killed before the command returned.
    assert_eq!(left, Vec::<u32>::new(), "leaked hook processes");
    let records = records(&stdout);
    let mut ids: Vec<&str> = records
        .iter()
        .filter(|r| r["failure_kind"] == "cancelled")
        .filter_map(|r| r["hook_id"].as_str())
        .collect();
    ids.sort_unstable();
    let expected: Vec<String> = (0..8).map(|i| format!("h{i}")).collect();
    assert_eq!(ids, expected, "one cancelled record per hook: {stdout}");
    assert_eq!(records.len(), 8, "{stdout}");
    assert_eq!(session_dirs(dir.path()), Vec::<String>::new());
}

/// A config whose `run_end` hook sleeps `secs` (the needle names it), then
/// writes `ended.txt`; timeout 30 s.
fn run_end_config(needle: &str, secs: &str) -> String {
    format!(
        "version: 1\nhooks:\n  - id: hang\n    phase: before_tool\n    run:\n      command: \"sleep 92.123\"\n      timeout: 60s\n  - id: farewell\n    phase: run_end\n    run:\n      command: \"sleep {secs} && echo {needle} > ended.txt\"\n      timeout: 30s\n"
    )
}

#[test]
fn run_end_hooks_keep_their_timeout_after_a_signal() {
    let needle = "echo farewell-93.1";
    let dir = workspace_with(
        &run_end_config("farewell-93.1", "1.5"),
        r#"{"phase":"run_end","output":"done"}"#,
    );
    let mut running = start(
        dir.path(),
        &[
            "test",
            "hooks.yaml",
            "--event",
            "event.json",
            "--format",
            "json",
        ],
    );
    running.wait_for_hooks(&[needle]);
    running.signal("-TERM");
    let (status, stdout) = running.wait(Duration::from_secs(20), &[needle]);
    assert_eq!(status.code(), Some(143), "{status:?}");
    // Not cut by the cancellation: the hook ran to its end.
    let ended = std::fs::read_to_string(dir.path().join("ended.txt")).unwrap_or_default();
    assert_eq!(ended.trim(), "farewell-93.1", "{stdout}");
    let records = records(&stdout);
    assert_eq!(records.len(), 1, "{stdout}");
    assert_eq!(records[0]["status"], "ok", "{stdout}");
}

#[test]
fn a_second_signal_cuts_the_run_end_hooks() {
    let needle = "echo farewell-93.2";
    let dir = workspace_with(
        &run_end_config("farewell-93.2", "91.2"),
        r#"{"phase":"run_end","output":"done"}"#,
    );
    let mut running = start(
        dir.path(),
        &[
            "test",
            "hooks.yaml",
            "--event",
            "event.json",
            "--format",
            "json",
        ],
    );
    running.wait_for_hooks(&[needle]);
    running.signal("-TERM");
    std::thread::sleep(Duration::from_millis(300));
    running.signal("-TERM");
    let (status, stdout) = running.wait(Duration::from_secs(10), &[needle]);
    let gone = wait_until(Duration::from_secs(3), || processes_with(needle).is_empty());
    assert_eq!(status.code(), Some(143), "{status:?}");
    assert!(gone, "the run_end hook was left running");
    let records = records(&stdout);
    assert_eq!(records.len(), 1, "{stdout}");
    assert_eq!(records[0]["failure_kind"], "cancelled", "{stdout}");
}

#[test]
fn an_interrupted_replay_still_ends_its_run() {
    let dir = workspace_with(
        &run_end_config("farewell-93.3", "0.1"),
        "{\"phase\":\"run_start\"}\n{\"phase\":\"before_tool\",\"tool\":\"bash\",\"call_id\":\"c1\",\"args\":{}}\n{\"phase\":\"run_end\",\"output\":\"done\"}\n",
    );
    let needle = "sleep 92.123";
    let mut running = start(
        dir.path(),
        &[
            "replay",
            "hooks.yaml",
            "event.json",
            "--exec",
            "--format",
            "json",
        ],
    );
    running.wait_for_hooks(&[needle]);
    running.signal("-INT");
    let (status, stdout) = running.wait(Duration::from_secs(20), &[needle]);
    assert_eq!(status.code(), Some(130), "{status:?}");
    let ended = std::fs::read_to_string(dir.path().join("ended.txt")).unwrap_or_default();
    assert_eq!(ended.trim(), "farewell-93.3", "{stdout}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).expect("a JSON summary");
    assert_eq!(summary["interrupted"], "SIGINT", "{stdout}");
    assert_eq!(summary["shutdown_run_end"], true, "{stdout}");
    // run_start, the cancelled before_tool; the recorded run_end is not
    // replayed (the run was cut), the shutdown one ran `farewell`.
    assert_eq!(summary["events"], 2, "{stdout}");
    let farewell = summary["by_hook"]
        .as_array()
        .and_then(|hooks| hooks.iter().find(|h| h["hook"] == "farewell"))
        .map(|h| &h["fired"]);
    assert_eq!(farewell, Some(&serde_json::json!(1)), "{stdout}");
    assert_eq!(session_dirs(dir.path()), Vec::<String>::new());
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

/// Whether process `pid` has a thread named `name` (as `comm` shows it:
/// the first 15 bytes).
fn has_thread(pid: u32, name: &str) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    let shown = &name[..name.len().min(15)];
    tasks.flatten().any(|t| {
        std::fs::read_to_string(t.path().join("comm")).is_ok_and(|comm| comm.trim_end() == shown)
    })
}

#[test]
fn sigint_during_a_long_policy_exits_130_at_once() {
    // N² steps: minutes, unbounded; the hook's timeout is a minute.
    let rego = "package slow\n\
        n := 5000\n\
        decision := {\"decision\": \"block\", \"reason\": sprintf(\"%d\", [count([1 | some i in numbers.range(1, n); some j in numbers.range(1, n)])])}\n";
    let config = "version: 1\nhooks:\n  - id: slow\n    phase: before_tool\n    policy:\n      rego: [slow.rego]\n      query: data.slow.decision\n      timeout: 60s\n";
    let dir = workspace_with(
        config,
        r#"{"phase":"before_tool","tool":"bash","call_id":"c1","args":{"command":"ls"}}"#,
    );
    std::fs::write(dir.path().join("slow.rego"), rego).expect("write policy");
    let running = start(
        dir.path(),
        &[
            "test",
            "hooks.yaml",
            "--event",
            "event.json",
            "--format",
            "json",
        ],
    );
    // The evaluation's thread; a build that evaluates on the async
    // runtime has none, and gets the signal 5 s in.
    let pid = running.child.id();
    wait_until(Duration::from_secs(5), || {
        has_thread(pid, "agent-hooks-policy")
    });
    running.signal("-INT");
    let started = Instant::now();
    // A needle that matches nothing: on a timeout only the child is killed.
    let (status, stdout) = running.wait(Duration::from_secs(10), &["no process h25a"]);
    assert_eq!(status.code(), Some(130), "{status:?} {stdout}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let records = records(&stdout);
    assert_eq!(records.len(), 1, "{stdout}");
    assert_eq!(records[0]["failure_kind"], "cancelled", "{stdout}");
    assert_eq!(session_dirs(dir.path()), Vec::<String>::new());
}
