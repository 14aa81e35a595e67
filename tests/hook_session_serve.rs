//! The hook command and the server as one engine: the stop-resume cap
//! holds across `agent-hooks hook` processes of one session (the session
//! state store, docs/session-state.md), and `agent-hooks serve` answers
//! every real Claude Code payload exactly as the hook command does.

#[path = "common/cli.rs"]
mod cli;
#[path = "common/real.rs"]
mod real;
#[path = "../hooks-runtime/tests/common/redis_server.rs"]
mod redis_server;
mod serve_support;

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

const CLAUDE_CONFIG: &str = "tests/configs/agent/claude.yaml";

/// A stop hook that always keeps the agent working, under a cap of 2
/// resumes per user turn.
const ALWAYS_RESUME: &str = r#"version: 1
limits: { max_stop_resumes_per_turn: 2 }
hooks:
  - id: keep-working
    phase: stop
    run:
      argv: [sh, -c, "cat >/dev/null; echo '{\"decision\":\"block\",\"reason\":\"keep going\"}'"]
      protocol: claude
"#;

fn manifest(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// `agent-hooks hook --agent claude config` on `payload`, in `workspace`,
/// with the session state store in `state`; the JSON answer (exit 0).
fn hook(workspace: &Path, state: &Path, config: &Path, payload: &Value) -> Value {
    hook_as("claude", workspace, state, config, payload)
}

/// [`hook`] for `agent`.
fn hook_as(agent: &str, workspace: &Path, state: &Path, config: &Path, payload: &Value) -> Value {
    cli::hook_json(
        agent,
        workspace,
        state,
        &[config.to_owned()],
        payload.to_string().as_bytes(),
    )
}

/// A `Stop` payload; `active`: Claude Code's `stop_hook_active`, true
/// once a stop hook kept the agent working in this turn.
fn stop(session: &str, active: bool) -> Value {
    json!({"session_id": session, "transcript_path": "/t", "cwd": "/p",
        "hook_event_name": "Stop", "stop_hook_active": active})
}

fn prompt(session: &str) -> Value {
    json!({"session_id": session, "transcript_path": "/t", "cwd": "/p",
        "hook_event_name": "UserPromptSubmit", "prompt": "go on"})
}

#[test]
fn the_stop_cap_holds_across_hook_processes_per_session() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("resume.yaml");
    std::fs::write(&config, ALWAYS_RESUME).expect("write the config");
    let state = dir.path().join("state");
    let workspace = dir.path().join("ws");
    std::fs::create_dir(&workspace).expect("workspace");
    let kept_working = |answer: &Value| answer["decision"] == "block";

    // Two resumes in a turn, then the cap lets the agent stop.
    assert!(kept_working(&hook(
        &workspace,
        &state,
        &config,
        &stop("s1", false)
    )));
    assert!(kept_working(&hook(
        &workspace,
        &state,
        &config,
        &stop("s1", true)
    )));
    let capped = hook(&workspace, &state, &config, &stop("s1", true));
    assert!(
        !kept_working(&capped),
        "the third resume is capped: {capped}"
    );
    // Another session has its own count.
    assert!(kept_working(&hook(
        &workspace,
        &state,
        &config,
        &stop("s2", false)
    )));
    // A user prompt starts a new turn: the count starts again.
    hook(&workspace, &state, &config, &prompt("s1"));
    assert!(kept_working(&hook(
        &workspace,
        &state,
        &config,
        &stop("s1", false)
    )));
    // Without the shared store each process would count from zero: the
    // cap is in the store, not in the process.
    let fresh = dir.path().join("fresh");
    assert!(kept_working(&hook(
        &workspace,
        &fresh,
        &config,
        &stop("s1", true)
    )));
}

/// `agent-hooks serve` on a free loopback port; kills it when dropped.
struct Serve(Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `serve` with `config` in `workspace` and returns it with its
/// address (read from its `listening on` line).
fn serve(
    workspace: &Path,
    store: impl AsRef<std::ffi::OsStr>,
    config: &Path,
) -> (Serve, std::net::SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(workspace)
        .env("AGENT_HOOKS_SESSION_STORE", store)
        .env("AGENT_HOOKS_CACHE", "off")
        .args(["serve", "--listen", "127.0.0.1:0", "--watch-interval", "0s"])
        .arg(config)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn agent-hooks serve");
    let stderr = child.stderr.take().expect("stderr");
    let server = Serve(child);
    let mut lines = BufReader::new(stderr).lines();
    let addr = loop {
        let line = lines
            .next()
            .expect("serve printed its address before exiting")
            .expect("read stderr");
        if let Some(url) = line.strip_prefix("serve: listening on http://") {
            break url.parse().expect("an address");
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    (server, addr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_answers_every_real_payload_as_the_hook_command_does() {
    let Some(files) = real_payloads() else {
        return;
    };
    let config = manifest(CLAUDE_CONFIG);
    let (tmp, workspace, _server, addr) = served(&config);
    for (i, file) in files.iter().enumerate() {
        let mut payload: Value =
            serde_json::from_slice(&std::fs::read(file).expect("read")).expect("payload JSON");
        // Each payload its own session (several real ones share an id),
        // in the server's store and in a fresh store of the command's.
        payload["session_id"] = json!(format!("payload-{i}"));
        let state = tmp.path().join(format!("hook-state-{i}"));
        let by_command = hook(&workspace, &state, &config, &payload);
        let reply = serve_support::post(addr, "/v1/hooks/claude", &[], &payload).await;
        assert_eq!(reply.status, 200, "{}", file.display());
        assert_eq!(reply.json, by_command, "{}", file.display());
        // Codex sends the same format for its events (src/agent/codex.rs).
        if payload["hook_event_name"]
            .as_str()
            .is_some_and(|e| cli::CODEX_EVENTS.contains(&e))
        {
            payload["session_id"] = json!(format!("codex-payload-{i}"));
            let by_command = hook_as("codex", &workspace, &state, &config, &payload);
            let reply = serve_support::post(addr, "/v1/hooks/codex", &[], &payload).await;
            assert_eq!(reply.status, 200, "codex {}", file.display());
            assert_eq!(reply.json, by_command, "codex {}", file.display());
        }
    }
    // An input that is no Claude Code event is a 400 naming why; so is a
    // Copilot CLI payload that names no event and calls no tool.
    let reply = serve_support::post(addr, "/v1/hooks/claude", &[], &json!({"x": 1})).await;
    assert_eq!(reply.status, 400, "{:?}", reply.json);
    let reply =
        serve_support::post(addr, "/v1/hooks/copilot", &[], &json!({"sessionId": "s"})).await;
    assert_eq!(reply.status, 400, "{:?}", reply.json);
    assert!(
        reply.json["error"]
            .as_str()
            .is_some_and(|e| e.contains("?event=")),
        "{:?}",
        reply.json
    );
}

/// The real Claude Code payloads (`../shared/real/hook-scripts/payloads/`,
/// at least 50), sorted; `None` (with a visible line) where the folder is
/// missing.
fn real_payloads() -> Option<Vec<PathBuf>> {
    let dir = real::dir("hook-scripts/payloads")?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read the payload folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 50, "{} payloads", files.len());
    Some(files)
}

/// A temporary directory with a workspace `ws` in it, and an `agent-hooks
/// serve` of `config` there (its state store in `serve-state`).
fn served(config: &Path) -> (tempfile::TempDir, PathBuf, Serve, std::net::SocketAddr) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let workspace = tmp.path().join("ws");
    std::fs::create_dir(&workspace).expect("workspace");
    let (server, addr) = serve(&workspace, tmp.path().join("serve-state"), config);
    (tmp, workspace, server, addr)
}

/// The Copilot CLI's name of a Claude Code event, where it has one (the
/// Copilot CLI hooks reference).
fn copilot_event(claude: &str) -> Option<&'static str> {
    Some(match claude {
        "SessionStart" => "sessionStart",
        "SessionEnd" => "sessionEnd",
        "UserPromptSubmit" => "userPromptSubmitted",
        "PreToolUse" => "preToolUse",
        "PermissionRequest" => "permissionRequest",
        "PostToolUse" => "postToolUse",
        "PostToolUseFailure" => "postToolUseFailure",
        "Stop" => "agentStop",
        "SubagentStart" => "subagentStart",
        "SubagentStop" => "subagentStop",
        "PreCompact" => "preCompact",
        _ => return None,
    })
}

/// A Claude Code payload in the Copilot CLI's camelCase format: no event
/// name, camelCase fields, `toolArgs` / `toolResult` / `agentName`.
fn camel(payload: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for (key, value) in payload.as_object().expect("an object") {
        let key = match key.as_str() {
            "hook_event_name" => continue,
            "tool_input" => "toolArgs".to_owned(),
            "tool_response" => "toolResult".to_owned(),
            "agent_type" => "agentName".to_owned(),
            other => {
                let mut parts = other.split('_');
                let mut name = parts.next().unwrap_or_default().to_owned();
                for part in parts {
                    let mut chars = part.chars();
                    if let Some(first) = chars.next() {
                        name.push(first.to_ascii_uppercase());
                        name.extend(chars);
                    }
                }
                name
            }
        };
        out.insert(key, value.clone());
    }
    Value::Object(out)
}

/// Every real payload through `serve`'s `/v1/hooks/copilot` and `hook
/// --agent copilot`, in both of Copilot's formats: as it is (the VS
/// Code-compatible format, `hook_event_name` and snake_case) and in the
/// CLI's camelCase format with the event named by `?event=` / `--event`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_answers_copilot_payloads_as_the_hook_command_does() {
    let Some(files) = real_payloads() else {
        return;
    };
    let config = manifest(CLAUDE_CONFIG);
    let (tmp, workspace, _server, addr) = served(&config);
    let mut camel_cases = 0;
    for (i, file) in files.iter().enumerate() {
        let mut payload: Value =
            serde_json::from_slice(&std::fs::read(file).expect("read")).expect("payload JSON");
        payload["session_id"] = json!(format!("copilot-{i}"));
        let state = tmp.path().join(format!("hook-state-{i}"));
        let by_command = hook_as("copilot", &workspace, &state, &config, &payload);
        let reply = serve_support::post(addr, "/v1/hooks/copilot", &[], &payload).await;
        assert_eq!(reply.status, 200, "{}", file.display());
        assert_eq!(reply.json, by_command, "{}", file.display());
        let Some(event) = payload["hook_event_name"].as_str().and_then(copilot_event) else {
            continue;
        };
        let mut payload = camel(&payload);
        payload["sessionId"] = json!(format!("copilot-cli-{i}"));
        let out = cli::hook_with(
            &["--agent", "copilot", "--event", event],
            &workspace,
            &state,
            std::slice::from_ref(&config),
            payload.to_string().as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", file.display());
        let by_command: Value = serde_json::from_slice(&out.stdout).expect("a JSON answer");
        let path = format!("/v1/hooks/copilot?event={event}");
        let reply = serve_support::post(addr, &path, &[], &payload).await;
        assert_eq!(reply.status, 200, "{event} {}", file.display());
        assert_eq!(reply.json, by_command, "{event} {}", file.display());
        camel_cases += 1;
    }
    assert!(camel_cases >= 40, "{camel_cases} CLI-format payloads");
}

/// Every real payload with a Gemini CLI event, in Gemini CLI's shape (its
/// event name, `prompt_response`, a failure as `tool_response.error`),
/// through `serve`'s `/v1/hooks/gemini` and `hook --agent gemini`: the
/// same answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_answers_gemini_payloads_as_the_hook_command_does() {
    let Some(files) = real_payloads() else {
        return;
    };
    let config = manifest("tests/configs/agent/gemini.yaml");
    let (tmp, workspace, _server, addr) = served(&config);
    let mut cases = 0;
    for (i, file) in files.iter().enumerate() {
        let mut payload: Value =
            serde_json::from_slice(&std::fs::read(file).expect("read")).expect("payload JSON");
        let claude = payload["hook_event_name"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let lookup = if claude == "PostToolUseFailure" {
            "PostToolUse"
        } else {
            claude.as_str()
        };
        let Some((gemini, _)) = hooks_runtime::gemini_cli::EVENTS
            .iter()
            .find(|(_, c)| *c == lookup)
        else {
            continue;
        };
        let Some(map) = payload.as_object_mut() else {
            continue;
        };
        map.insert("hook_event_name".into(), (*gemini).into());
        map.insert("session_id".into(), format!("gemini-{i}").into());
        if let Some(text) = map.remove("last_assistant_message") {
            map.insert("prompt_response".into(), text);
        }
        if claude == "PostToolUseFailure" {
            let error = map.remove("error").unwrap_or_default();
            map.insert("tool_response".into(), json!({"error": error}));
        }
        let state = tmp.path().join(format!("hook-state-{i}"));
        let by_command = hook_as("gemini", &workspace, &state, &config, &payload);
        let reply = serve_support::post(addr, "/v1/hooks/gemini", &[], &payload).await;
        assert_eq!(reply.status, 200, "{gemini} {}", file.display());
        assert_eq!(reply.json, by_command, "{gemini} {}", file.display());
        cases += 1;
    }
    assert!(cases >= 40, "{cases} Gemini CLI payloads");
}

/// A native event (this project's format) through `serve` gets exactly
/// the verdict and outcome `agent-hooks test --format json` prints for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_answers_native_events_as_the_test_command_does() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let workspace = tmp.path().join("ws");
    std::fs::create_dir(&workspace).expect("workspace");
    let config = manifest(CLAUDE_CONFIG);
    let (_server, addr) = serve(&workspace, tmp.path().join("serve-state"), &config);
    let events = [
        json!({"phase": "before_tool", "tool": "Bash", "call_id": "c1", "args": {"command": "git push origin main"}}),
        json!({"phase": "before_tool", "tool": "Bash", "call_id": "c2", "args": {"command": "git commit -m x"}}),
        json!({"phase": "before_tool", "tool": "Bash", "call_id": "c3", "args": {"command": "ls"}}),
        json!({"phase": "before_tool", "tool": "mcp__tavily__extract", "call_id": "c4", "args": {"urls": ["https://example.com"]}}),
        json!({"phase": "user_prompt", "prompt": "go", "session_id": "native-1"}),
    ];
    let mut decisions = Vec::new();
    for event in &events {
        std::fs::write(workspace.join("event.json"), event.to_string()).expect("write event");
        let config = config.to_str().expect("UTF-8 path");
        let by_test = cli::json(
            &workspace,
            &["test", config, "--event", "event.json", "--format", "json"],
        );
        let reply = serve_support::post(addr, "/v1/hooks/native", &[], event).await;
        assert_eq!(reply.status, 200, "{event} {:?}", reply.json);
        assert_eq!(reply.json["verdict"], by_test["verdict"], "{event}");
        assert_eq!(reply.json["outcome"], by_test["outcome"], "{event}");
        decisions.push(reply.json["verdict"]["decision"].clone());
    }
    // The events cover a block, an ask, a run and a rewrite.
    assert_eq!(decisions[0], "skip", "{decisions:?}");
    assert_eq!(decisions[2], "run", "{decisions:?}");
    let reply = serve_support::post(addr, "/v1/hooks/native", &[], &json!({"x": 1})).await;
    assert_eq!(reply.status, 400, "{:?}", reply.json);
    assert!(
        reply.json["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("invalid event")),
        "{:?}",
        reply.json
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stop_cap_holds_across_two_serve_replicas_sharing_redis() {
    let Some(redis) = redis_server::RedisServer::start("serve replicas") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("resume.yaml");
    std::fs::write(&config, ALWAYS_RESUME).expect("write the config");
    let workspace = dir.path().join("ws");
    std::fs::create_dir(&workspace).expect("workspace");
    let (_a, a) = serve(&workspace, redis.url(), &config);
    let (_b, b) = serve(&workspace, redis.url(), &config);
    let ask = |addr, payload: Value| async move {
        let reply = serve_support::post(addr, "/v1/hooks/claude", &[], &payload).await;
        assert_eq!(reply.status, 200, "{:?}", reply.json);
        reply.json["decision"] == "block"
    };
    // One resume on each replica: the cap of 2 is reached whichever
    // replica answers the third.
    assert!(ask(a, stop("r1", false)).await);
    assert!(ask(b, stop("r1", true)).await);
    assert!(!ask(a, stop("r1", true)).await, "capped on replica a");
    assert!(!ask(b, stop("r1", true)).await, "capped on replica b");
    // A prompt on one replica starts the turn for both.
    ask(b, prompt("r1")).await;
    assert!(ask(a, stop("r1", false)).await);
}
