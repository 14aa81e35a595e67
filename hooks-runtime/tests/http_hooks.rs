//! `http` hooks against real servers on loopback, started by each test:
//! a slow one (the deadline), a 500, an oversized body, a redirect, one that
//! closes mid-body, answers in Claude Code's shape, concurrency on an
//! observe-only phase, and a canary secret in a header that never reaches a
//! record or the output.

#[path = "common/http_server.rs"]
mod http_server;

use std::sync::Arc;
use std::time::{Duration, Instant};

use hooks_runtime::{
    Executor, Flow, HookContext, HookLimits, RecordWriter, SecretSet, ShellRuntime, StackOutcome,
    StepEvent, Table,
};
use http_server::{Reply, Server};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A workspace with a records file and a shell runtime with `limits`.
struct Agent {
    dir: tempfile::TempDir,
    shell: Arc<ShellRuntime>,
    table: Table,
}

impl Agent {
    fn new(config: &str, limits: HookLimits) -> Agent {
        let dir = tempfile::tempdir().expect("tempdir");
        let records = RecordWriter::open(dir.path().join("records.jsonl"), SecretSet::new())
            .expect("records");
        let shell = ShellRuntime::new(Executor::new(dir.path()).expect("executor"))
            .with_records(records)
            .with_limits(limits);
        let table = Table::load_str(config, "http.yaml").expect("the config loads");
        Agent {
            dir,
            shell: Arc::new(shell),
            table,
        }
    }

    async fn fold(&self, event: StepEvent<'_>) -> StackOutcome {
        self.table
            .fold(Some(&self.shell), &HookContext::new("run-1"), event)
            .await
    }

    fn records_text(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("records.jsonl")).unwrap_or_default()
    }

    fn records(&self) -> Vec<Value> {
        self.records_text()
            .lines()
            .map(|l| serde_json::from_str(l).expect("one JSON document per line"))
            .collect()
    }
}

/// A config of one `before_tool` hook `h` whose `http` action is `http`
/// (YAML flow mapping), plus `extra` hook keys.
fn one_hook(http: &str, extra: &str) -> String {
    format!("version: 1\nhooks:\n  - id: h\n    phase: before_tool\n    http: {http}\n{extra}")
}

fn bash(args: &Value) -> StepEvent<'_> {
    StepEvent::BeforeTool {
        tool_name: "bash",
        call_id: "c1",
        args,
    }
}

fn failure_kind(outcome: &StackOutcome) -> Option<String> {
    outcome.reports[0]
        .failure
        .map(|f| f.kind.as_str().to_owned())
}

#[tokio::test]
async fn a_native_answer_decides_and_the_payload_is_the_envelope() {
    let server = Server::start(|_| async {
        Reply::json(200, &json!({"decision": "block", "reason": "no rm here"}))
    })
    .await;
    let agent = Agent::new(
        &one_hook(&format!("{{ url: \"{}\" }}", server.url("/hook")), ""),
        HookLimits::default(),
    );
    let args = json!({"command": "rm -rf /"});
    let outcome = agent.fold(bash(&args)).await;
    assert_eq!(outcome.decision, Some(Flow::skip("no rm here")));
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].method, "POST");
    assert_eq!(seen[0].headers["content-type"], "application/json");
    assert_eq!(seen[0].body["schema"], "agent-hooks/payload");
    assert_eq!(seen[0].body["args"], args);
    let records = agent.records();
    assert_eq!(records[0]["status"], "decision");
    assert_eq!(records[0]["http"]["status"], 200);
    assert_eq!(records[0]["http"]["body"]["truncated"], false);
}

#[tokio::test]
async fn the_timeout_holds_against_a_slow_server() {
    let server = Server::start(|_| async {
        tokio::time::sleep(Duration::from_secs(20)).await;
        Reply::json(200, &json!({}))
    })
    .await;
    let agent = Agent::new(
        &one_hook(
            &format!("{{ url: \"{}\", timeout: 300ms }}", server.url("/slow")),
            "    failure_policy: block\n",
        ),
        HookLimits::default(),
    );
    let args = json!({"command": "ls"});
    let start = Instant::now();
    let outcome = agent.fold(bash(&args)).await;
    let wall = start.elapsed();
    assert_eq!(failure_kind(&outcome).as_deref(), Some("timed_out"));
    assert!(matches!(outcome.decision, Some(Flow::Skip { .. })));
    // The hook's own measure: it returned at the deadline, not when the
    // server answered (20 s) and not before the deadline.
    let elapsed = outcome.reports[0].elapsed;
    assert!(elapsed >= Duration::from_millis(300), "{elapsed:?}");
    assert!(elapsed < Duration::from_millis(1300), "{elapsed:?}");
    assert!(wall < Duration::from_millis(1500), "{wall:?}");
    let record = &agent.records()[0];
    assert_eq!(record["failure_kind"], "timed_out");
    let ms = record["elapsed_ms"].as_u64().expect("elapsed_ms");
    assert!((300..1300).contains(&ms), "{record}");
}

#[tokio::test]
async fn a_500_is_an_http_status_failure_under_the_policy() {
    let server = Server::start(|_| async { Reply::json(500, &json!({"error": "boom"})) }).await;
    let url = server.url("/err");
    // `warn`: continue, visibly.
    let agent = Agent::new(
        &one_hook(
            &format!("{{ url: \"{url}\" }}"),
            "    failure_policy: warn\n",
        ),
        HookLimits::default(),
    );
    let args = json!({"command": "ls"});
    let outcome = agent.fold(bash(&args)).await;
    assert_eq!(outcome.decision, None);
    assert_eq!(failure_kind(&outcome).as_deref(), Some("http_status"));
    assert!(!outcome.diagnostics.is_empty(), "warn is visible");
    let record = &agent.records()[0];
    assert_eq!(record["status"], "failed");
    assert_eq!(record["failure_kind"], "http_status");
    assert_eq!(record["policy"], "warn");
    assert_eq!(record["http"]["status"], 500);
    // Default on before_tool (native): `block`, fail closed.
    let agent = Agent::new(
        &one_hook(&format!("{{ url: \"{url}\" }}"), ""),
        HookLimits::default(),
    );
    let outcome = agent.fold(bash(&args)).await;
    assert!(matches!(outcome.decision, Some(Flow::Skip { .. })));
}

#[tokio::test]
async fn an_oversized_body_is_cut_at_the_cap_and_recorded_with_its_size() {
    let big = format!("{{\"reason\": \"{}\"}}", "x".repeat(256 * 1024));
    let len = big.len();
    let server = Server::start(move |_| {
        let big = big.clone();
        async move {
            Reply {
                status: 200,
                headers: Vec::new(),
                body: big.into_bytes(),
            }
        }
    })
    .await;
    let limits = HookLimits {
        stdout_cap: 4096,
        ..HookLimits::default()
    };
    let agent = Agent::new(
        &one_hook(
            &format!("{{ url: \"{}\" }}", server.url("/big")),
            "    failure_policy: warn\n",
        ),
        limits,
    );
    let args = json!({"command": "ls"});
    let outcome = agent.fold(bash(&args)).await;
    assert_eq!(failure_kind(&outcome).as_deref(), Some("output_too_large"));
    let record = &agent.records()[0];
    assert_eq!(record["http"]["body"]["bytes"], len);
    assert_eq!(record["http"]["body"]["truncated"], true);
}

#[tokio::test]
async fn redirects_are_followed_only_when_allowed() {
    let server = Server::start(|seen| async move {
        if seen.path == "/moved" {
            Reply {
                status: 302,
                headers: vec![("location", "/target".to_owned())],
                body: Vec::new(),
            }
        } else {
            Reply::json(
                200,
                &json!({"decision": "block", "reason": "from the target"}),
            )
        }
    })
    .await;
    let url = server.url("/moved");
    let args = json!({"command": "ls"});
    let refused = Agent::new(
        &one_hook(
            &format!("{{ url: \"{url}\" }}"),
            "    failure_policy: warn\n",
        ),
        HookLimits::default(),
    );
    let outcome = refused.fold(bash(&args)).await;
    assert_eq!(failure_kind(&outcome).as_deref(), Some("http_status"));
    assert_eq!(outcome.decision, None);
    let record = &refused.records()[0];
    assert_eq!(record["http"]["status"], 302);
    assert!(
        record["message"]
            .as_str()
            .is_some_and(|m| m.contains("follow_redirects")),
        "{record}"
    );
    assert_eq!(server.seen().len(), 1, "the target was not requested");
    let following = Agent::new(
        &one_hook(
            &format!("{{ url: \"{url}\", follow_redirects: true }}"),
            "    failure_policy: warn\n",
        ),
        HookLimits::default(),
    );
    let outcome = following.fold(bash(&args)).await;
    assert_eq!(outcome.decision, Some(Flow::skip("from the target")));
    assert_eq!(
        server.seen().last().map(|s| s.path.clone()).as_deref(),
        Some("/target")
    );
}

#[tokio::test]
async fn a_connection_closed_mid_body_or_refused_is_connection_failed() {
    // A hostile server: promises 1000 bytes, sends 10, closes.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let server = tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            // Read the head and the body the client announced.
            loop {
                let n = stream.read(&mut buf).await.unwrap_or(0);
                if n == 0 {
                    break;
                }
                request.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&request);
                if let Some(end) = text.find("\r\n\r\n") {
                    let length = text[..end]
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if request.len() >= end + 4 + length {
                        break;
                    }
                }
            }
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\n{\"decisio")
                .await;
            let _ = stream.shutdown().await;
        }
    });
    let agent = Agent::new(
        &one_hook(
            &format!("{{ url: \"http://{addr}/cut\" }}"),
            "    failure_policy: warn\n",
        ),
        HookLimits::default(),
    );
    let args = json!({"command": "ls"});
    let outcome = agent.fold(bash(&args)).await;
    assert_eq!(failure_kind(&outcome).as_deref(), Some("connection_failed"));
    let record = &agent.records()[0];
    assert!(
        record["message"]
            .as_str()
            .is_some_and(|m| m.contains("before the response body was complete")),
        "{record}"
    );
    server.abort();
    // Nothing listens any more: refused.
    let outcome = agent.fold(bash(&args)).await;
    assert_eq!(failure_kind(&outcome).as_deref(), Some("connection_failed"));
}

#[tokio::test]
async fn claude_shaped_hooks_follow_claude_codes_rules() {
    let server = Server::start(|seen| async move {
        match seen.path.as_str() {
            "/deny" => Reply::json(
                200,
                &json!({"hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": format!("no {}", seen.body["tool_input"]["command"].as_str().unwrap_or("?")),
                }}),
            ),
            _ => Reply::json(503, &json!({})),
        }
    })
    .await;
    let args = json!({"command": "rm -rf /"});
    let deny = Agent::new(
        &one_hook(
            &format!("{{ url: \"{}\", protocol: claude }}", server.url("/deny")),
            "",
        ),
        HookLimits::default(),
    );
    let outcome = deny.fold(bash(&args)).await;
    assert_eq!(outcome.decision, Some(Flow::skip("no rm -rf /")));
    let seen = server.seen();
    assert_eq!(seen[0].body["hook_event_name"], "PreToolUse");
    assert_eq!(seen[0].body["tool_name"], "bash");
    // A non-2xx answer is a non-blocking error: `warn` by default even on
    // `before_tool`, where a native hook fails closed.
    let down = Agent::new(
        &one_hook(
            &format!("{{ url: \"{}\", protocol: claude }}", server.url("/down")),
            "",
        ),
        HookLimits::default(),
    );
    let outcome = down.fold(bash(&args)).await;
    assert_eq!(outcome.decision, None);
    assert_eq!(failure_kind(&outcome).as_deref(), Some("http_status"));
    assert_eq!(down.records()[0]["policy"], "warn");
}

#[tokio::test]
async fn observe_only_phases_post_concurrently_and_merge_in_declared_order() {
    let server = Server::start(|seen| async move {
        let id = seen.body["hook_id"].as_str().unwrap_or("").to_owned();
        if id.starts_with("slow") {
            tokio::time::sleep(Duration::from_millis(600)).await;
        }
        Reply::json(
            200,
            &json!({"context_items": [{"role": "user", "content": id}]}),
        )
    })
    .await;
    let url = server.url("/ctx");
    let mut config = "version: 1\nhooks:\n".to_owned();
    for id in ["slow", "fast", "slow-too"] {
        config.push_str(&format!(
            "  - id: {id}\n    phase: after_assistant\n    http: {{ url: \"{url}\" }}\n"
        ));
    }
    let agent = Agent::new(&config, HookLimits::default());
    let start = Instant::now();
    let outcome = agent.fold(StepEvent::AfterAssistant { text: "done" }).await;
    let elapsed = start.elapsed();
    let contents: Vec<&str> = outcome.context.iter().map(|c| &*c.content).collect();
    assert_eq!(contents, ["slow", "fast", "slow-too"]);
    // Two 600 ms answers in parallel, not one after the other.
    assert!(elapsed < Duration::from_millis(1100), "{elapsed:?}");
}

const CANARY_ENV: &str = "HOOKS_HTTP_TEST_CANARY";
const CANARY: &str = "canary-7f3a9c2e51b84d06aa";

/// The canary is read from the environment, which a test cannot set in its
/// own process: the test runs itself again with the variable set.
#[test]
fn a_header_secret_from_env_never_reaches_records_or_output() {
    if std::env::var(CANARY_ENV).is_ok() {
        return canary_child();
    }
    let exe = std::env::current_exe().expect("the test binary");
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "a_header_secret_from_env_never_reaches_records_or_output",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CANARY_ENV, CANARY)
        .output()
        .expect("the child test runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("canary child ran"), "{text}");
    assert!(!text.contains(CANARY), "{text}");
}

fn canary_child() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        // The server echoes the header into every text it answers.
        let server = Server::start(|seen| async move {
            let auth = seen.headers.get("authorization").cloned().unwrap_or_default();
            match seen.path.as_str() {
                "/echo" => Reply::json(200, &json!({"decision": "block", "reason": format!("saw {auth}")})),
                _ => Reply::json(200, &json!({"decision": format!("weird {auth}")})),
            }
        })
        .await;
        // `bad` first (its answer is invalid: a failure, `warn`), so both run.
        let config = format!(
            "version: 1\nhooks:\n  - id: bad\n    phase: before_tool\n    failure_policy: warn\n    http: {{ url: \"{}\", headers: {{ X-Token: \"${{{CANARY_ENV}}}\" }}, env: [{CANARY_ENV}] }}\n  - id: echo\n    phase: before_tool\n    http: {{ url: \"{}\", headers: {{ Authorization: \"Bearer ${{{CANARY_ENV}}}\" }}, env: [{CANARY_ENV}] }}\n",
            server.url("/bad"),
            server.url("/echo"),
        );
        let agent = Agent::new(&config, HookLimits::default());
        let args = json!({"command": "ls"});
        let outcome = agent.fold(bash(&args)).await;
        let seen = server.seen();
        assert_eq!(seen.len(), 2, "both hooks ran");
        assert_eq!(seen[0].headers["x-token"], CANARY, "the header was sent");
        assert_eq!(seen[1].headers["authorization"], format!("Bearer {CANARY}"));
        let Some(Flow::Skip { reason }) = &outcome.decision else {
            panic!("echo blocks: {:?}", outcome.decision);
        };
        assert!(!reason.contains(CANARY), "{reason}");
        let shown = format!("{outcome:?}");
        assert!(!shown.contains(CANARY), "{shown}");
        let records = agent.records_text();
        assert!(records.contains("\"hook_id\":\"bad\""), "{records}");
        assert!(!records.contains(CANARY), "{records}");
        println!("canary child ran");
    });
}
