//! `http` hooks of `protocol: opa` against an OPA-shaped server started by
//! the test: it serves OPA's REST data API by evaluating
//! `examples/policies/fleet.rego` with `regorus`, and two agents (two
//! tables, two shell runtimes) share it and see the same decisions; a third
//! agent evaluating the same file in process (a `policy` hook) decides
//! alike, so a policy moves between the two without a rewrite.

#[path = "common/http_server.rs"]
mod http_server;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use hooks_runtime::{
    Executor, Flow, HookContext, HookLimits, RecordWriter, SecretSet, ShellRuntime, StackOutcome,
    StepEvent, Table,
};
use http_server::{Reply, Seen, Server};
use serde_json::{Value, json};

const POLICY: &str = include_str!("../../examples/policies/fleet.rego");

/// OPA's data API over `POLICY`: `POST /v1/data/a/b/c` evaluates
/// `data.a.b.c` with the body's `input`; the answer carries `result` unless
/// the document is undefined, and a fresh `decision_id`.
async fn opa_server() -> Server {
    let mut engine = regorus::Engine::new();
    engine
        .add_policy("fleet.rego".to_owned(), POLICY.to_owned())
        .expect("the policy compiles");
    let engine = Arc::new(Mutex::new(engine));
    let ids = Arc::new(AtomicU64::new(0));
    Server::start(move |seen: Seen| {
        let (engine, ids) = (Arc::clone(&engine), Arc::clone(&ids));
        async move {
            let Some(document) = seen.path.strip_prefix("/v1/data/") else {
                return Reply::json(404, &json!({"code": "not_found"}));
            };
            let rule = format!("data.{}", document.trim_matches('/').replace('/', "."));
            let mut engine = engine.lock().expect("engine").clone();
            let input = regorus::Value::from_json_str(&seen.body["input"].to_string())
                .expect("the input is JSON");
            engine.set_input(input);
            // As in OPA, a document no rule defines is undefined.
            let value = engine.eval_rule(rule).unwrap_or(regorus::Value::Undefined);
            let id = format!("decision-{}", ids.fetch_add(1, Ordering::Relaxed));
            let mut answer = json!({"decision_id": id});
            if value != regorus::Value::Undefined {
                answer["result"] =
                    serde_json::from_str(&value.to_json_str().expect("JSON")).expect("JSON");
            }
            Reply::json(200, &answer)
        }
    })
    .await
}

struct Agent {
    dir: tempfile::TempDir,
    shell: Arc<ShellRuntime>,
    table: Table,
}

impl Agent {
    /// An agent asking the OPA-shaped server at `url`.
    fn new(url: &str) -> Agent {
        let config = format!(
            "version: 1\nhooks:\n  - id: fleet\n    phase: before_tool\n    http: {{ url: \"{url}\", protocol: opa, timeout: 5s }}\n"
        );
        Agent::with(Table::load_str(&config, "fleet.yaml").expect("the config loads"))
    }

    /// An agent evaluating `POLICY` in process with a `policy` hook.
    fn in_process() -> Agent {
        let config = "version: 1\nhooks:\n  - id: fleet\n    phase: before_tool\n    policy: { rego: [examples/policies/fleet.rego], query: data.agent.hooks.decision }\n";
        let compiled = hooks_schema::Loader::new()
            .workspace(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .compile_str(config, "fleet.yaml")
            .expect("the config and its policy compile");
        Agent::with(Table::from_plan(compiled.plan))
    }

    fn with(table: Table) -> Agent {
        let dir = tempfile::tempdir().expect("tempdir");
        let records = RecordWriter::open(dir.path().join("records.jsonl"), SecretSet::new())
            .expect("records");
        let shell = ShellRuntime::new(Executor::new(dir.path()).expect("executor"))
            .with_records(records)
            .with_limits(HookLimits::default());
        Agent {
            dir,
            shell: Arc::new(shell),
            table,
        }
    }

    async fn decide(&self, command: &str) -> StackOutcome {
        let args = json!({ "command": command });
        let event = StepEvent::BeforeTool {
            tool_name: "bash",
            call_id: "c1",
            args: &args,
        };
        self.table
            .fold(Some(&self.shell), &HookContext::new("run"), event)
            .await
    }

    fn records(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.path().join("records.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON line"))
            .collect()
    }
}

#[tokio::test]
async fn two_agents_sharing_one_policy_server_see_the_same_decisions() {
    let server = opa_server().await;
    let url = server.url("/v1/data/agent/hooks/decision");
    let (a, b) = (Agent::new(&url), Agent::new(&url));
    let commands = ["rm -rf /", "ls", "rm x", "cargo test"];
    let mut decisions = Vec::new();
    for command in commands {
        let (da, db) = tokio::join!(a.decide(command), b.decide(command));
        assert_eq!(da.decision, db.decision, "`{command}`");
        decisions.push(da.decision);
    }
    assert_eq!(
        decisions,
        [
            Some(Flow::skip("refused by the fleet policy: `rm -rf /`")),
            None,
            Some(Flow::skip("refused by the fleet policy: `rm x`")),
            None,
        ]
    );
    // OPA's request shape: the payload envelope as `input`.
    let seen = server.seen();
    assert_eq!(seen.len(), 8);
    assert!(
        seen.iter()
            .all(|s| s.body["input"]["schema"] == "agent-hooks/payload")
    );
    // Each record names the server's decision, allowed or not.
    let mut ids: Vec<String> = [a.records(), b.records()]
        .concat()
        .iter()
        .map(|r| {
            assert_eq!(r["http"]["status"], 200, "{r}");
            r["http"]["decision_id"]
                .as_str()
                .expect("decision_id")
                .to_owned()
        })
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 8, "one decision per request: {ids:?}");
}

#[tokio::test]
async fn the_policy_in_process_and_behind_the_server_decides_alike() {
    let server = opa_server().await;
    let central = Agent::new(&server.url("/v1/data/agent/hooks/decision"));
    let local = Agent::in_process();
    for command in ["rm -rf /", "ls", "rm x", "cargo test", "echo rm"] {
        let (c, l) = tokio::join!(central.decide(command), local.decide(command));
        assert_eq!(c.decision, l.decision, "`{command}`: {:?}", l.diagnostics);
        assert!(
            l.reports[0].failure.is_none(),
            "`{command}`: {:?}",
            l.reports
        );
    }
    assert_eq!(server.seen().len(), 5);
    // Each side's records name its policy: the server's decision, the
    // file's digest.
    assert!(
        central
            .records()
            .iter()
            .all(|r| r["http"]["decision_id"].is_string())
    );
    let digest = hooks_schema::policy::policy_digest([("examples/policies/fleet.rego", POLICY)]);
    let local_records = local.records();
    assert_eq!(local_records.len(), 5);
    assert!(
        local_records
            .iter()
            .all(|r| r["rego"]["digest"] == digest.as_str()),
        "{local_records:?}"
    );
}

#[tokio::test]
async fn an_undefined_document_continues() {
    let server = opa_server().await;
    // `data.agent.hooks.nothing` is undefined: continue, like empty stdout.
    let undefined = Agent::new(&server.url("/v1/data/agent/hooks/nothing"));
    let outcome = undefined.decide("rm -rf /").await;
    assert_eq!(outcome.decision, None);
    assert!(outcome.reports[0].failure.is_none());
    assert_eq!(undefined.records()[0]["status"], "ok");
}
