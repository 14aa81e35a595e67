//! `follow_redirects: true` against two loopback servers (two ports, two
//! origins): on a change of origin every header from `env` and every
//! credential header is dropped, not only `Authorization` and `Cookie`;
//! within one origin they are kept. (The refusal of `https` to `http` is
//! tested on the redirect policy itself, in `http/redirect.rs`.)

#[path = "common/http_server.rs"]
mod http_server;

use std::sync::Arc;

use hooks_runtime::{Executor, Flow, HookContext, ShellRuntime, StackOutcome, StepEvent, Table};
use http_server::{Reply, Server};
use serde_json::json;

/// A server redirecting `/moved` to `to` with `status`, answering a
/// decision on any other path.
async fn redirecting(status: u16, to: impl Fn() -> String + Send + Sync + 'static) -> Server {
    let to = Arc::new(to);
    Server::start(move |seen| {
        let to = Arc::clone(&to);
        async move {
            if seen.path == "/moved" {
                Reply {
                    status,
                    headers: vec![("location", to())],
                    body: Vec::new(),
                }
            } else {
                Reply::json(200, &json!({"decision": "block", "reason": "redirected"}))
            }
        }
    })
    .await
}

/// Folds a `bash` call through one `http` hook POSTing to `url` with
/// secret and plain headers, following redirects.
async fn fold(url: &str) -> StackOutcome {
    let config = format!(
        "version: 1\nhooks:\n  - id: h\n    phase: before_tool\n    failure_policy: warn\n    http:\n      url: \"{url}\"\n      follow_redirects: true\n      env: [PATH]\n      headers:\n        X-Api-Key: \"${{PATH}}\"\n        Authorization: \"Bearer ${{PATH}}\"\n        X-Session-Token: literal-session-value\n        X-Trace: plain\n"
    );
    let table = Table::load_str(&config, "redirects.yaml").expect("the config loads");
    let dir = tempfile::tempdir().expect("tempdir");
    let shell = Arc::new(ShellRuntime::new(
        Executor::new(dir.path()).expect("executor"),
    ));
    let args = json!({"command": "ls"});
    let event = StepEvent::BeforeTool {
        tool_name: "bash",
        call_id: "c1",
        args: &args,
    };
    table
        .fold(Some(&shell), &HookContext::new("run-1"), event)
        .await
}

const SECRET: [&str; 3] = ["x-api-key", "authorization", "x-session-token"];

#[tokio::test]
async fn a_change_of_origin_drops_every_secret_header() {
    let other = redirecting(200, String::new).await;
    let target = other.url("/target");
    let first = redirecting(307, move || target.clone()).await;
    let outcome = fold(&first.url("/moved")).await;
    assert_eq!(
        outcome.decision,
        Some(Flow::skip("redirected")),
        "{outcome:?}"
    );
    let path = std::env::var("PATH").expect("PATH is set");
    let sent = &first.seen()[0].headers;
    assert_eq!(sent["x-api-key"], path, "the first origin gets them");
    assert_eq!(sent["x-session-token"], "literal-session-value");
    let seen = other.seen();
    assert_eq!(seen.len(), 1);
    let moved = &seen[0];
    for name in SECRET {
        assert!(
            !moved.headers.contains_key(name),
            "{name} followed: {moved:?}"
        );
    }
    assert_eq!(moved.headers["x-trace"], "plain", "a plain header is kept");
    // 307 keeps the method and the payload.
    assert_eq!(moved.method, "POST");
    assert_eq!(moved.body["schema"], "agent-hooks/payload");
}

#[tokio::test]
async fn a_redirect_within_the_origin_keeps_them() {
    // A relative `Location`: the same origin.
    let server = redirecting(302, || "/target".to_owned()).await;
    let outcome = fold(&server.url("/moved")).await;
    assert_eq!(
        outcome.decision,
        Some(Flow::skip("redirected")),
        "{outcome:?}"
    );
    let seen = server.seen();
    assert_eq!(seen.len(), 2, "{seen:?}");
    for name in SECRET {
        assert!(
            seen[1].headers.contains_key(name),
            "{name} dropped: {seen:?}"
        );
    }
    // 302 turns the POST into a GET without the payload.
    assert_eq!(seen[1].method, "GET");
}
