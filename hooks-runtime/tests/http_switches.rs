//! The managed layer's `http` switches enforced at run time
//! (`ShellRuntime::with_switches`), against loopback servers started by
//! each test, on tables loaded without any switches (as a table loaded
//! before them, or built by `hooks!`, would be) and on a hook built in
//! code: an allowed URL is called; a refused one, a redirect to a refused
//! one, and a header reading a refused variable send nothing there and
//! fail as `not_allowed` under the hook's failure policy; absent lists
//! allow everything.

#[path = "common/http_server.rs"]
mod http_server;

use std::sync::Arc;

use hooks_plan::{List, Phase, Switches, Text};
use hooks_runtime::{
    Executor, Flow, HookContext, HookLimits, HttpTarget, RecordWriter, SecretSet, ShellHook,
    ShellHookSpec, ShellRuntime, StackOutcome, StepEvent, Table,
};
use http_server::{Reply, Server};
use serde_json::{Value, json};

/// A server answering `block` on every path but `/moved`, which
/// redirects (307) to `to`, if given.
async fn server(to: Option<String>) -> Server {
    Server::start(move |seen| {
        let to = to.clone();
        async move {
            match to {
                Some(to) if seen.path == "/moved" => Reply {
                    status: 307,
                    headers: vec![("location", to)],
                    body: Vec::new(),
                },
                _ => Reply::json(200, &json!({"decision": "block", "reason": "answered"})),
            }
        }
    })
    .await
}

/// Allowed URL patterns or variable names.
fn list(items: &[&str]) -> Option<List<Text>> {
    Some(items.iter().map(|s| Text::from(s.to_string())).collect())
}

/// A workspace with a records file, a runtime under `switches` (none:
/// the default runtime) and the table of `config`.
struct Agent {
    dir: tempfile::TempDir,
    shell: Arc<ShellRuntime>,
    table: Table,
}

impl Agent {
    fn new(config: &str, switches: Option<Switches>) -> Agent {
        let dir = tempfile::tempdir().expect("tempdir");
        let records = RecordWriter::open(dir.path().join("records.jsonl"), SecretSet::new())
            .expect("records");
        let mut shell = ShellRuntime::new(Executor::new(dir.path()).expect("executor"))
            .with_records(records)
            .with_limits(HookLimits::default());
        if let Some(switches) = switches {
            shell = shell.with_switches(Arc::new(switches));
        }
        let table = Table::load_str(config, "switches.yaml").expect("the config loads");
        Agent {
            dir,
            shell: Arc::new(shell),
            table,
        }
    }

    async fn fold(&self) -> StackOutcome {
        let args = json!({"command": "ls"});
        let event = StepEvent::BeforeTool {
            tool_name: "bash",
            call_id: "c1",
            args: &args,
        };
        self.table
            .fold(Some(&self.shell), &HookContext::new("run-1"), event)
            .await
    }

    fn records_text(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("records.jsonl")).unwrap_or_default()
    }

    fn record(&self) -> Value {
        let text = self.records_text();
        let line = text.lines().next().expect("one record");
        serde_json::from_str(line).expect("a JSON record")
    }
}

/// One `before_tool` hook `h` POSTing to `url` with `http` keys `extra`
/// (YAML flow mapping entries) and failure policy `policy`.
fn config(url: &str, extra: &str, policy: &str) -> String {
    format!(
        "version: 1\nhooks:\n  - id: h\n    phase: before_tool\n    failure_policy: {policy}\n    http: {{ url: \"{url}\"{extra} }}\n"
    )
}

/// A header reading `PATH` (set in every test environment).
const PATH_HEADER: &str = ", env: [PATH], headers: { X-Api-Key: \"${PATH}\" }";

fn failure_kind(outcome: &StackOutcome) -> Option<&'static str> {
    outcome.reports[0].failure.map(|f| f.kind.as_str())
}

#[tokio::test]
async fn an_allowed_url_and_variable_are_called() {
    let server = server(None).await;
    let switches = Switches {
        allowed_http_urls: list(&["https://other.example/*", "http://127.0.0.1:*/hook"]),
        allowed_header_env: list(&["HOME", "PATH"]),
        ..Switches::default()
    };
    let agent = Agent::new(
        &config(&server.url("/hook"), PATH_HEADER, "block"),
        Some(switches),
    );
    let outcome = agent.fold().await;
    assert_eq!(
        outcome.decision,
        Some(Flow::skip("answered")),
        "{outcome:?}"
    );
    assert_eq!(failure_kind(&outcome), None);
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    let path = std::env::var("PATH").expect("PATH is set");
    assert_eq!(seen[0].headers["x-api-key"], path);
}

#[tokio::test]
async fn a_refused_url_sends_nothing_and_fails_under_the_policy() {
    let server = server(None).await;
    let switches = Switches {
        allowed_http_urls: list(&["https://hooks.example/*", "http://127.0.0.1:*/other"]),
        ..Switches::default()
    };
    // The query holds a token: the message names the URL without it.
    let url = server.url("/hook?token=q5e7r9t1y3");
    let agent = Agent::new(&config(&url, "", "block"), Some(switches.clone()));
    let outcome = agent.fold().await;
    assert!(server.seen().is_empty(), "{:?}", server.seen());
    assert_eq!(failure_kind(&outcome), Some("not_allowed"));
    // `block` on `before_tool`: the call is denied.
    assert!(
        matches!(outcome.decision, Some(Flow::Skip { .. })),
        "{outcome:?}"
    );
    let record = agent.record();
    assert_eq!(record["status"], "failed");
    assert_eq!(record["failure_kind"], "not_allowed");
    assert!(record.get("http").is_none(), "no answer: {record}");
    let message = record["message"].as_str().expect("a message");
    assert!(
        message.contains(&format!("`{}?…`", server.url("/hook"))),
        "{message}"
    );
    assert!(message.contains("allowed_http_urls"), "{message}");
    assert!(!agent.records_text().contains("q5e7r9t1y3"), "{record}");

    // Under `warn` the call goes on, and still nothing is sent.
    let agent = Agent::new(&config(&url, "", "warn"), Some(switches));
    let outcome = agent.fold().await;
    assert_eq!(outcome.decision, None, "{outcome:?}");
    assert_eq!(failure_kind(&outcome), Some("not_allowed"));
    assert!(server.seen().is_empty());
}

#[tokio::test]
async fn a_redirect_to_a_refused_url_is_not_followed() {
    let refused = server(None).await;
    let first = server(Some(refused.url("/target?sig=z8x6c4v2b0"))).await;
    let switches = Switches {
        allowed_http_urls: list(&[&format!("http://{}/*", first.addr)]),
        ..Switches::default()
    };
    let agent = Agent::new(
        &config(&first.url("/moved"), ", follow_redirects: true", "block"),
        Some(switches),
    );
    let outcome = agent.fold().await;
    assert_eq!(first.seen().len(), 1, "the allowed URL is called");
    assert!(refused.seen().is_empty(), "{:?}", refused.seen());
    assert_eq!(failure_kind(&outcome), Some("not_allowed"));
    assert!(
        matches!(outcome.decision, Some(Flow::Skip { .. })),
        "{outcome:?}"
    );
    let record = agent.record();
    let message = record["message"].as_str().expect("a message");
    assert!(
        message.contains(&format!("`{}?…`", refused.url("/target"))),
        "{message}"
    );
    assert!(message.contains("redirect"), "{message}");
    assert!(!message.contains("z8x6c4v2b0"), "{message}");

    // A redirect within the allowed pattern is followed.
    let within = server(Some("/target".to_owned())).await;
    let switches = Switches {
        allowed_http_urls: list(&[&format!("http://{}/*", within.addr)]),
        ..Switches::default()
    };
    let agent = Agent::new(
        &config(&within.url("/moved"), ", follow_redirects: true", "block"),
        Some(switches),
    );
    let outcome = agent.fold().await;
    assert_eq!(
        outcome.decision,
        Some(Flow::skip("answered")),
        "{outcome:?}"
    );
    assert_eq!(within.seen().len(), 2);
}

#[tokio::test]
async fn a_header_reading_a_refused_variable_sends_nothing() {
    let server = server(None).await;
    let switches = Switches {
        allowed_header_env: list(&["HOOK_TOKEN"]),
        ..Switches::default()
    };
    let agent = Agent::new(
        &config(&server.url("/hook"), PATH_HEADER, "block"),
        Some(switches),
    );
    let outcome = agent.fold().await;
    assert!(server.seen().is_empty(), "{:?}", server.seen());
    assert_eq!(failure_kind(&outcome), Some("not_allowed"));
    assert!(
        matches!(outcome.decision, Some(Flow::Skip { .. })),
        "{outcome:?}"
    );
    let record = agent.record();
    let message = record["message"].as_str().expect("a message");
    assert!(message.contains("`PATH`"), "{message}");
    assert!(message.contains("allowed_header_env"), "{message}");

    // An empty list allows no variable at all.
    let switches = Switches {
        allowed_header_env: Some(List::EMPTY),
        ..Switches::default()
    };
    let agent = Agent::new(
        &config(&server.url("/hook"), PATH_HEADER, "block"),
        Some(switches),
    );
    assert_eq!(failure_kind(&agent.fold().await), Some("not_allowed"));
    assert!(server.seen().is_empty());
}

#[tokio::test]
async fn absent_lists_allow_every_url_redirect_and_variable() {
    let other = server(None).await;
    let first = server(Some(other.url("/target"))).await;
    let extra = format!("{PATH_HEADER}, follow_redirects: true");
    for switches in [
        None,
        Some(Switches::default()),
        Some(Switches {
            disable_all_hooks: false,
            managed_hooks_only: true,
            ..Switches::default()
        }),
    ] {
        let agent = Agent::new(&config(&first.url("/moved"), &extra, "block"), switches);
        let outcome = agent.fold().await;
        assert_eq!(
            outcome.decision,
            Some(Flow::skip("answered")),
            "{outcome:?}"
        );
        assert_eq!(failure_kind(&outcome), None);
    }
    assert_eq!(first.seen().len(), 3);
    assert_eq!(other.seen().len(), 3);
}

#[tokio::test]
async fn an_empty_url_list_refuses_every_url() {
    let server = server(None).await;
    let switches = Switches {
        allowed_http_urls: Some(List::EMPTY),
        ..Switches::default()
    };
    let agent = Agent::new(&config(&server.url("/hook"), "", "block"), Some(switches));
    assert_eq!(failure_kind(&agent.fold().await), Some("not_allowed"));
    assert!(server.seen().is_empty());
}

#[tokio::test]
async fn an_opa_hook_is_held_to_the_same_urls() {
    let server = server(None).await;
    let switches = Switches {
        allowed_http_urls: list(&["http://opa.internal:8181/v1/data/*"]),
        ..Switches::default()
    };
    let agent = Agent::new(
        &config(
            &server.url("/v1/data/agent/decision"),
            ", protocol: opa",
            "block",
        ),
        Some(switches),
    );
    let outcome = agent.fold().await;
    assert_eq!(failure_kind(&outcome), Some("not_allowed"));
    assert!(server.seen().is_empty(), "{:?}", server.seen());
}

#[tokio::test]
async fn a_hook_built_in_code_is_held_to_them_too() {
    let server = server(None).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let switches = Switches {
        allowed_http_urls: list(&["https://hooks.example/*"]),
        ..Switches::default()
    };
    let shell = ShellRuntime::new(Executor::new(dir.path()).expect("executor"))
        .with_switches(Arc::new(switches));
    assert!(shell.switches().is_some());
    let spec = ShellHookSpec::http(
        "built",
        Phase::BeforeTool,
        HttpTarget::new(server.url("/hook")),
    );
    let hook = ShellHook::new(spec, Arc::new(shell));
    let args = json!({"command": "ls"});
    let event = StepEvent::BeforeTool {
        tool_name: "bash",
        call_id: "c1",
        args: &args,
    };
    let invocation = hook.invoke(&HookContext::new("run-1"), event).await;
    assert_eq!(
        invocation.report.failure.map(|f| f.kind.as_str()),
        Some("not_allowed")
    );
    assert!(
        matches!(invocation.flow, Flow::Skip { .. }),
        "{:?}",
        invocation.flow
    );
    assert!(server.seen().is_empty());
}
