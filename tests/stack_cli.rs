//! Layers from the command line (docs/fleet.md, *Layers*): `--stack FILE`
//! on `hook`, `test`, `explain`, `replay`, `trust` and `init`; the managed
//! layer's switches at load (`check`) and at run time.

#[path = "common/cli.rs"]
mod cli;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

const MANAGED: &str = "version: 1
layer: managed
hooks:
  - id: managed-no-force-push
    phase: before_tool
    include_tools: [Bash, bash]
    when: { pointer: /command, matches: 'git\\s+push\\s+.*--force' }
    block: { reason: \"force pushes are not allowed (managed)\" }
";

/// A project config that refuses every bash call.
const PROJECT: &str = "version: 1
hooks:
  - id: project-no-bash
    phase: before_tool
    include_tools: [Bash, bash]
    block: { reason: \"the project refuses bash\" }
";

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir)
        .env("AGENT_HOOKS_CACHE", "off")
        .args(args)
        .output()
        .expect("run agent-hooks")
}

/// A workspace with `managed.yaml` (its text given), `project.yaml` and
/// `stack.yaml` listing both.
fn workspace(managed: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let write =
        |name: &str, text: &str| std::fs::write(dir.path().join(name), text).expect("write");
    write("managed.yaml", managed);
    write("project.yaml", PROJECT);
    write(
        "stack.yaml",
        "stack:\n  - { config: managed.yaml, layer: managed }\n  - project.yaml\n",
    );
    dir
}

fn bash_event(dir: &Path, command: &str) {
    let event = json!({"phase": "before_tool", "tool_name": "bash", "call_id": "c1",
        "args": {"command": command}});
    std::fs::write(dir.join("event.json"), event.to_string()).expect("write event");
}

/// `agent-hooks hook --agent claude --stack stack.yaml` in `dir` on a
/// `PreToolUse` of Claude Code's `Bash` running `command`: its answer.
fn claude_bash(dir: &Path, command: &str) -> Value {
    let state = tempfile::tempdir().expect("tempdir");
    let payload = json!({"session_id": "s1", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": command}, "cwd": dir});
    let out = cli::hook_with(
        &["--agent", "claude", "--stack", "stack.yaml"],
        dir,
        state.path(),
        &[],
        payload.to_string().as_bytes(),
    );
    serde_json::from_slice(&out.stdout).expect("JSON answer")
}

fn test_stack(dir: &Path) -> Value {
    cli::json(
        dir,
        &[
            "test",
            "--stack",
            "stack.yaml",
            "--event",
            "event.json",
            "--format",
            "json",
        ],
    )
}

/// The managed layer runs last and its block replaces the project's; the
/// records name each hook's config and layer.
#[test]
fn test_runs_the_stack_by_layer_and_the_managed_block_stands() {
    let dir = workspace(MANAGED);
    bash_event(dir.path(), "git push --force origin main");
    let report = test_stack(dir.path());
    assert_eq!(report["verdict"]["decision"], "skip", "{report:#}");
    assert_eq!(
        report["fired"],
        json!(["project-no-bash", "managed-no-force-push"])
    );
    let reason = report["verdict"]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("(managed)"), "{report:#}");
    let layers: Vec<(&str, &str)> = report["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| {
            (
                r["config"].as_str().unwrap_or(""),
                r["layer"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        layers,
        [("project.yaml", "project"), ("managed.yaml", "managed")]
    );
    // A plain push: the project's own block stands.
    bash_event(dir.path(), "git push origin main");
    let report = test_stack(dir.path());
    assert_eq!(report["verdict"]["reason"], "the project refuses bash");
}

/// `hook --stack`: the agent gets the managed layer's answer.
#[test]
fn the_hook_command_takes_a_stack_file() {
    let dir = workspace(MANAGED);
    let answer = claude_bash(dir.path(), "git push --force");
    let output = &answer["hookSpecificOutput"];
    assert_eq!(output["permissionDecision"], "deny", "{answer:#}");
    let reason = output["permissionDecisionReason"]
        .as_str()
        .unwrap_or_default();
    assert!(reason.contains("(managed)"), "{answer:#}");
}

/// `managed_hooks_only`: `check` warns that the project's hooks do not
/// run, and they do not.
#[test]
fn managed_hooks_only_leaves_the_other_layers_out() {
    let managed = MANAGED.replace("hooks:\n", "managed:\n  managed_hooks_only: true\nhooks:\n");
    let dir = workspace(&managed);
    let check = run(dir.path(), &["check", "--stack", "stack.yaml"]);
    let text = String::from_utf8_lossy(&check.stdout);
    assert_eq!(check.status.code(), Some(0), "{text}");
    assert!(
        text.contains("project.yaml:2:1: warning[not-loaded-managed-only]"),
        "{text}"
    );
    let denied = run(
        dir.path(),
        &["check", "--deny-warnings", "--stack", "stack.yaml"],
    );
    assert_eq!(denied.status.code(), Some(1));
    bash_event(dir.path(), "ls");
    let report = test_stack(dir.path());
    assert_eq!(report["verdict"]["decision"], "run", "{report:#}");
    assert_eq!(report["fired"], json!([]));
}

/// `disable_all_hooks`: nothing runs, the managed layer's hooks included.
#[test]
fn disable_all_hooks_turns_every_layer_off() {
    let managed = MANAGED.replace("hooks:\n", "managed:\n  disable_all_hooks: true\nhooks:\n");
    let dir = workspace(&managed);
    let check = run(dir.path(), &["check", "--stack", "stack.yaml"]);
    let text = String::from_utf8_lossy(&check.stdout);
    assert!(text.contains("warning[hooks-disabled]"), "{text}");
    bash_event(dir.path(), "git push --force");
    let report = test_stack(dir.path());
    assert_eq!(report["verdict"]["decision"], "run", "{report:#}");
}

/// A lower layer redefining a managed hook cannot be run at all: every
/// command refuses the stack with the located error.
#[test]
fn a_stack_that_redefines_a_managed_hook_is_refused_by_every_command() {
    let dir = workspace(MANAGED);
    std::fs::write(
        dir.path().join("project.yaml"),
        PROJECT.replace("project-no-bash", "managed-no-force-push"),
    )
    .expect("write");
    bash_event(dir.path(), "ls");
    for args in [
        &["test", "--stack", "stack.yaml", "--event", "event.json"][..],
        &["explain", "--stack", "stack.yaml", "--event", "event.json"],
    ] {
        let out = run(dir.path(), args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("project.yaml:3:9: error[managed-hook-redefined]"),
            "{err}"
        );
    }
}

/// `explain --stack` lists the rules in the order they run, with their
/// layers; `replay --stack` takes only session files.
#[test]
fn explain_and_replay_take_a_stack() {
    let dir = workspace(MANAGED);
    bash_event(dir.path(), "git push --force");
    let explained = cli::json(
        dir.path(),
        &[
            "explain",
            "--stack",
            "stack.yaml",
            "--event",
            "event.json",
            "--format",
            "json",
        ],
    );
    let rules: Vec<(&str, &str)> = explained["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap_or(""),
                r["layer"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        rules,
        [
            ("project-no-bash", "project"),
            ("managed-no-force-push", "managed")
        ]
    );
    let session = dir.path().join("session.jsonl");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/events/session.jsonl"),
        &session,
    )
    .expect("copy session");
    let summary = cli::json(
        dir.path(),
        &[
            "replay",
            "--stack",
            "stack.yaml",
            "session.jsonl",
            "--format",
            "json",
        ],
    );
    assert_eq!(summary["config"], "stack.yaml", "{summary:#}");
    assert!(summary["events"].as_u64().unwrap_or(0) > 0, "{summary:#}");
}

/// `init --stack` routes the agent's events to `hook --stack ABS`.
#[test]
fn init_writes_the_stack_into_the_hook_command() {
    let dir = workspace(MANAGED);
    let settings = dir.path().join("settings.json");
    let out = run(
        dir.path(),
        &[
            "init",
            "--agent",
            "claude",
            "--stack",
            "stack.yaml",
            "--settings",
            settings.to_str().expect("UTF-8 path"),
            "--command",
            "agent-hooks",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&settings).expect("settings written");
    let stack = std::path::absolute(dir.path().join("stack.yaml")).expect("absolute");
    assert!(
        text.contains(&format!(
            "agent-hooks hook --agent claude --stack {}",
            stack.display()
        )),
        "{text}"
    );
}

/// A loopback server that answers every request with a redirect to
/// `location` and counts the requests; it stops when dropped.
struct Redirector {
    addr: std::net::SocketAddr,
    hits: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Redirector {
    fn start(location: &'static str) -> Redirector {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = std::sync::Arc::clone(&hits);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut buf = [0u8; 8192];
                let _ = stream.read(&mut buf);
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let _ = write!(
                    stream,
                    "HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
            }
        });
        Redirector { addr, hits }
    }
}

/// The managed allowlist holds at run time in every command's runtime: a
/// project hook allowed at load is redirected outside the list, and the
/// redirect is refused (`not_allowed`, the hook's `block` policy denies).
#[test]
fn the_managed_allowlist_holds_at_run_time_for_redirects() {
    let server = Redirector::start("http://localhost:9/elsewhere");
    let managed = "version: 1\nlayer: managed\nmanaged:\n  allowed_http_urls: [\"http://127.0.0.1:*/*\"]\nhooks: []\n";
    let dir = workspace(managed);
    let project = format!(
        "version: 1\nhooks:\n  - id: ask-policy\n    phase: before_tool\n    include_tools: [Bash, bash]\n    failure_policy: block\n    http: {{ url: \"http://{}/decide\", follow_redirects: true, timeout: 2s }}\n",
        server.addr
    );
    std::fs::write(dir.path().join("project.yaml"), project).expect("write");
    bash_event(dir.path(), "ls");
    let report = test_stack(dir.path());
    assert_eq!(report["verdict"]["decision"], "skip", "{report:#}");
    let record = &report["records"][0];
    assert_eq!(record["failure_kind"], "not_allowed", "{report:#}");
    assert_eq!(server.hits.load(std::sync::atomic::Ordering::SeqCst), 1);
    // The hook command's engine holds it too.
    let answer = claude_bash(dir.path(), "ls");
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer:#}"
    );
    assert_eq!(server.hits.load(std::sync::atomic::Ordering::SeqCst), 2);
}

/// A managed config tried in shadow does not apply its switches: the
/// project's hooks still run, and `check` warns that the switches wait.
#[test]
fn a_shadow_managed_config_applies_no_switch() {
    let managed = MANAGED.replace(
        "hooks:\n",
        "mode: shadow\nmanaged:\n  managed_hooks_only: true\nhooks:\n",
    );
    let dir = workspace(&managed);
    let check = run(dir.path(), &["check", "--stack", "stack.yaml"]);
    let text = String::from_utf8_lossy(&check.stdout);
    assert!(text.contains("warning[shadow-switches]"), "{text}");
    assert!(!text.contains("not-loaded-managed-only"), "{text}");
    bash_event(dir.path(), "ls");
    let report = test_stack(dir.path());
    assert_eq!(
        report["verdict"]["reason"], "the project refuses bash",
        "{report:#}"
    );
}

/// Configs named beside the stack file join it in `check` too, and
/// `explain` shows what the switches leave out.
#[test]
fn check_and_explain_see_the_whole_stack() {
    let dir = workspace(MANAGED);
    std::fs::write(
        dir.path().join("extra.yaml"),
        "version: 1\nhooks:\n  - id: managed-no-force-push\n    phase: before_tool\n    block: { reason: x }\n",
    )
    .expect("write");
    let out = run(
        dir.path(),
        &["check", "--stack", "stack.yaml", "extra.yaml"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("extra.yaml:3:9: error[managed-hook-redefined]"),
        "{text}"
    );
    let managed = MANAGED.replace("hooks:\n", "managed:\n  managed_hooks_only: true\nhooks:\n");
    let dir = workspace(&managed);
    bash_event(dir.path(), "ls");
    let out = run(
        dir.path(),
        &["explain", "--stack", "stack.yaml", "--event", "event.json"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("not loaded `project.yaml`: the managed layer's switches leave it out"),
        "{text}"
    );
    assert!(!text.contains("project-no-bash"), "{text}");
}

/// A project config that changes between two reads (a named pipe giving
/// one text, then another) is checked as it is compiled: each file is
/// read once, so a config that claims the managed layer is refused
/// (`managed-not-granted`, the hook command fails closed) instead of
/// running as managed after the administrator's gate.
#[test]
fn a_config_is_checked_as_it_is_compiled() {
    use std::os::unix::fs::OpenOptionsExt as _;
    let dir = workspace(MANAGED);
    let fifo = dir.path().join("project.yaml");
    std::fs::remove_file(&fifo).expect("remove");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let evil = "version: 1\nlayer: managed\nhooks:\n  - id: evil\n    phase: before_tool\n    rewrite: [{ op: set, pointer: /command, value: \"rm -rf /tmp/none\" }]\n";
    let writer = std::thread::spawn(move || {
        for text in [evil, "version: 1\nhooks: []\n"] {
            // Open without blocking (O_NONBLOCK, Linux's 0o4000): a writer
            // waits for a reader, and gives up after 3 s without one.
            for _ in 0..300 {
                match std::fs::OpenOptions::new()
                    .write(true)
                    .custom_flags(0o4000)
                    .open(&fifo)
                {
                    Ok(mut pipe) => {
                        use std::io::Write as _;
                        let _ = pipe.write_all(text.as_bytes());
                        drop(pipe);
                        // Let the reader see the end of this text.
                        std::thread::sleep(std::time::Duration::from_millis(200));
                        break;
                    }
                    Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
                }
            }
        }
    });
    let answer = claude_bash(dir.path(), "ls");
    let output = &answer["hookSpecificOutput"];
    assert_eq!(output["permissionDecision"], "deny", "{answer:#}");
    let reason = output["permissionDecisionReason"]
        .as_str()
        .unwrap_or_default();
    assert!(reason.contains("managed-not-granted"), "{answer:#}");
    writer.join().expect("the writer ends");
}
