//! The `otlp` feature end to end: `agent-hooks test`, configured by the
//! standard `OTEL_EXPORTER_OTLP_ENDPOINT`, exports one span per hook
//! invocation (a `run` hook, a `policy` hook, a declarative rule), each a
//! child of the event's fold span, and the invocation counter, to an OTLP
//! receiver this test runs on loopback; no attribute holds the canary
//! secret the hooks saw.
//!
//! Cargo gives an integration test only its own package's binaries, so the
//! binary is the facade's, built beside this test's executable by the same
//! `cargo test --workspace`, which unifies features: the `otlp` this package
//! turns on is in it. Alone: `cargo build -p agent-hooks --features otlp &&
//! cargo test -p agent-hooks-otlp-tests`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::metric;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

/// A GitHub-token-shaped secret every hook sees or says.
const CANARY: &str = "ghp_CanaryCanaryCanaryCanaryCanary123456";

/// The bodies POSTed to the receiver, by path.
type Received = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// An OTLP/HTTP receiver on loopback: answers 200 to every POST and keeps
/// the bodies until `stop` is set.
fn receiver() -> (u16, Received, Arc<AtomicBool>, std::thread::JoinHandle<()>) {
    let server = tiny_http::Server::http("127.0.0.1:0").expect("a loopback port");
    let port = server.server_addr().to_ip().expect("an IP listener").port();
    let received: Received = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let (kept, stopping) = (Arc::clone(&received), Arc::clone(&stop));
    let thread = std::thread::spawn(move || {
        while !stopping.load(Ordering::SeqCst) {
            let Ok(Some(mut request)) = server.recv_timeout(Duration::from_millis(50)) else {
                continue;
            };
            let mut body = Vec::new();
            let _ = request.as_reader().read_to_end(&mut body);
            kept.lock()
                .expect("not poisoned")
                .push((request.url().to_owned(), body));
            let header = tiny_http::Header::from_bytes("Content-Type", "application/x-protobuf")
                .expect("a valid header");
            let _ = request.respond(tiny_http::Response::empty(200).with_header(header));
        }
    });
    (port, received, stop, thread)
}

/// The facade's `agent-hooks` binary: `target/<profile>/agent-hooks`, beside
/// this test's `target/<profile>/deps/otlp-<hash>`.
fn agent_hooks_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test runs from target/<profile>/deps/")
        .join(format!("agent-hooks{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.is_file(),
        "{} is missing: run `cargo test --workspace`, which builds it with the `otlp` feature",
        bin.display()
    );
    bin
}

fn text(value: Option<&AnyValue>) -> Option<String> {
    match value?.value.as_ref()? {
        any_value::Value::StringValue(s) => Some(s.clone()),
        other => Some(format!("{other:?}")),
    }
}

fn attributes(list: &[KeyValue]) -> BTreeMap<String, String> {
    list.iter()
        .map(|kv| (kv.key.clone(), text(kv.value.as_ref()).unwrap_or_default()))
        .collect()
}

const CONFIG: &str = r#"version: 1
hooks:
  - id: leaky-script
    phase: before_tool
    run:
      command: 'echo "token $GITHUB_TOKEN" >&2; exit 1'
      env: { set: { GITHUB_TOKEN: "ghp_CanaryCanaryCanaryCanaryCanary123456" } }
      timeout: 10s
    failure_policy: warn
  - id: tool-policy
    phase: before_tool
    policy:
      rego: [policies/tools.rego]
      query: data.agent.tools.decision
  - id: refuse
    phase: before_tool
    block: { reason: "refused, token ghp_CanaryCanaryCanaryCanaryCanary123456" }
"#;

const POLICY: &str = r#"package agent.tools

decision := {"context_items": [{"role": "user", "content": "policy saw ghp_CanaryCanaryCanaryCanaryCanary123456"}]} if {
	input.tool_name == "bash"
}
"#;

#[test]
fn every_invocation_is_one_exported_span_without_the_canary() {
    let dir = tempfile::tempdir().expect("a workspace");
    std::fs::create_dir(dir.path().join("policies")).expect("creatable");
    std::fs::write(dir.path().join("policies/tools.rego"), POLICY).expect("writable");
    std::fs::write(dir.path().join("hooks.yaml"), CONFIG).expect("writable");
    std::fs::write(
        dir.path().join("event.json"),
        r#"{"phase":"before_tool","tool":"bash","call_id":"c1","args":{"command":"ls"}}"#,
    )
    .expect("writable");

    let (port, received, stop, thread) = receiver();
    let mut child = Command::new(agent_hooks_bin())
        .args(["test", "hooks.yaml", "--event", "event.json"])
        .current_dir(dir.path())
        .env(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            format!("http://127.0.0.1:{port}"),
        )
        .env("OTEL_EXPORTER_OTLP_TIMEOUT", "5000")
        .env("OTEL_SERVICE_NAME", "otlp-test")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Bounded: the command and its exports end well within the deadline.
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("waitable") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`agent-hooks test` did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = child.wait_with_output().expect("output");
    stop.store(true, Ordering::SeqCst);
    thread.join().expect("the receiver thread");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(status.success(), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");

    let received = received.lock().expect("not poisoned");
    assert!(
        !received.is_empty(),
        "no OTLP request arrived: was the binary built without the `otlp` feature \
         (an older `cargo build`)? Run `cargo test --workspace`"
    );
    let mut spans: Vec<Span> = Vec::new();
    let mut all_attributes: Vec<BTreeMap<String, String>> = Vec::new();
    let mut invocations = 0.0;
    for (path, body) in received.iter() {
        match path.as_str() {
            "/v1/traces" => {
                let request = ExportTraceServiceRequest::decode(body.as_slice()).expect("OTLP");
                for resource in request.resource_spans {
                    if let Some(r) = &resource.resource {
                        all_attributes.push(attributes(&r.attributes));
                    }
                    for scope in resource.scope_spans {
                        spans.extend(scope.spans);
                    }
                }
            }
            "/v1/metrics" => {
                let request =
                    ExportMetricsServiceRequest::decode(body.as_slice()).expect("OTLP metrics");
                for scope in request
                    .resource_metrics
                    .into_iter()
                    .flat_map(|r| r.scope_metrics)
                {
                    for m in scope.metrics {
                        if m.name != "agent_hooks.hook.invocations" {
                            continue;
                        }
                        if let Some(metric::Data::Sum(sum)) = m.data {
                            for point in sum.data_points {
                                all_attributes.push(attributes(&point.attributes));
                                invocations += match point.value {
                                    Some(v) => match v {
                                        opentelemetry_proto::tonic::metrics::v1::number_data_point::Value::AsInt(i) => i as f64,
                                        opentelemetry_proto::tonic::metrics::v1::number_data_point::Value::AsDouble(d) => d,
                                    },
                                    None => 0.0,
                                };
                            }
                        }
                    }
                }
            }
            other => panic!("unexpected OTLP path {other}"),
        }
    }
    for span in &spans {
        all_attributes.push(attributes(&span.attributes));
        for event in &span.events {
            all_attributes.push(attributes(&event.attributes));
        }
    }

    let hooks: Vec<(&Span, BTreeMap<String, String>)> = spans
        .iter()
        .filter(|s| s.name == "agent_hooks.hook")
        .map(|s| (s, attributes(&s.attributes)))
        .collect();
    let mut ids: Vec<&str> = hooks.iter().map(|(_, a)| a["hook.id"].as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["leaky-script", "refuse", "tool-policy"], "{spans:#?}");
    let by_id = |id: &str| {
        &hooks
            .iter()
            .find(|(_, a)| a["hook.id"] == id)
            .expect("a span")
            .1
    };
    let script = by_id("leaky-script");
    assert_eq!(script["hook.action"], "run");
    assert_eq!(script["hook.outcome"], "failed");
    assert_eq!(script["hook.failure_kind"], "nonzero_exit");
    assert_eq!(script["hook.phase"], "before_tool");
    assert_eq!(script["hook.config"], "hooks.yaml");
    assert_eq!(script["hook.layer"], "project");
    let policy = by_id("tool-policy");
    assert_eq!(policy["hook.action"], "policy");
    assert_eq!(policy["hook.decision"], "inject_context");
    let refuse = by_id("refuse");
    assert_eq!(refuse["hook.action"], "block");
    assert_eq!(refuse["hook.decision"], "skip");
    assert!(
        refuse["hook.message"].starts_with("refused, token "),
        "{refuse:?}"
    );
    for (_, a) in &hooks {
        assert!(a.contains_key("hook.elapsed_ms"), "{a:?}");
        assert_eq!(a["hook.truncated"], "BoolValue(false)", "{a:?}");
    }

    // The event's fold is the parent of every invocation.
    let folds: Vec<&Span> = spans
        .iter()
        .filter(|s| s.name == "agent_hooks.fold")
        .collect();
    assert_eq!(folds.len(), 1, "{spans:#?}");
    for (span, _) in &hooks {
        assert_eq!(span.parent_span_id, folds[0].span_id);
        assert_eq!(span.trace_id, folds[0].trace_id);
    }

    assert_eq!(invocations, 3.0, "one count per invocation");
    for attrs in &all_attributes {
        for (key, value) in attrs {
            assert!(!value.contains(CANARY), "{key} = {value}");
        }
    }
}
