//! `serve`: the endpoints, authentication (bearer, Standard Webhooks
//! signatures with a rotation) and the request checks (size, JSON).

mod serve_support;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use agent_hooks::serve::{Auth, Options, WebhookSecret};
use hyper::StatusCode;
use serde_json::json;
use serve_support::{bash, get, post, start};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

const SECRET_A: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const SECRET_B: &str = "whsec_c2Vjb25kLXNlY3JldC1mb3Itcm90YXRpb24=";
const SECRET_C: &str = "whsec_dGhpcmQtc2VjcmV0LW5vdC1jb25maWd1cmVk";

fn now() -> i64 {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_secs();
    i64::try_from(secs).expect("seconds fit i64")
}

fn secret(text: &str) -> WebhookSecret {
    WebhookSecret::parse(text).expect("a valid secret")
}

/// The Standard Webhooks headers of `body` signed at `timestamp` with
/// the given signature header value.
fn signed(id: &str, timestamp: i64, signature: String) -> Vec<(&'static str, String)> {
    vec![
        ("webhook-id", id.to_owned()),
        ("webhook-timestamp", timestamp.to_string()),
        ("webhook-signature", signature),
    ]
}

#[tokio::test]
async fn each_agent_endpoint_answers_and_health_endpoints_report() {
    let server = start(Options::default(), "v1").await;
    assert_eq!(get(server.addr, "/healthz").await.status, StatusCode::OK);
    let ready = get(server.addr, "/readyz").await;
    assert_eq!(
        (ready.status, ready.json["status"].as_str()),
        (StatusCode::OK, Some("ready"))
    );

    let blocked = post(server.addr, "/v1/hooks/claude", &[], &bash("rm -rf /")).await;
    assert_eq!(blocked.status, StatusCode::OK);
    assert_eq!(
        blocked.json,
        json!({ "decision": "block", "agent": "claude", "version": "v1" })
    );
    for agent in ["codex", "gemini", "copilot", "native"] {
        let reply = post(server.addr, &format!("/v1/hooks/{agent}"), &[], &bash("ls")).await;
        assert_eq!(reply.json["decision"], "allow", "{agent}");
        assert_eq!(reply.json["agent"], agent);
    }
    let unknown = post(server.addr, "/v1/hooks/cursor", &[], &bash("ls")).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    // Every error is JSON `{"error": ...}`, the router's own ones too.
    let slash = post(server.addr, "/v1/hooks/claude/", &[], &bash("ls")).await;
    assert_eq!(slash.status, StatusCode::NOT_FOUND);
    assert!(slash.json["error"].is_string(), "{:?}", slash.json);
    let wrong_method = get(server.addr, "/v1/hooks/claude").await;
    assert_eq!(wrong_method.status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(
        wrong_method.json["error"].is_string(),
        "{:?}",
        wrong_method.json
    );

    let metrics = get(server.addr, "/metrics").await.json;
    let runs = metrics["hooks.run"].as_array().expect("hooks.run");
    let total: u64 = runs.iter().filter_map(|r| r["count"].as_u64()).sum();
    assert_eq!(total, 5, "{metrics}");
    assert_eq!(metrics["hooks.run.duration_ms"]["claude"]["count"], 1);
    assert_eq!(metrics["hooks.serve.rejected"]["not_found"], 1);
}

#[tokio::test]
async fn a_bearer_token_is_required_when_configured() {
    let mut options = Options::default();
    options.auth = Auth::default().with_bearer("s3cret-t0ken-for-tests");
    let server = start(options, "v1").await;
    let body = bash("ls");

    let missing = post(server.addr, "/v1/hooks/claude", &[], &body).await;
    assert_eq!(missing.status, StatusCode::UNAUTHORIZED);
    assert_eq!(missing.json["error"], "missing credentials");
    let wrong = [("authorization", "Bearer s3cret-t0ken-for-test".to_owned())];
    let wrong = post(server.addr, "/v1/hooks/claude", &wrong, &body).await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert_eq!(wrong.json["error"], "bad bearer token");
    let right = [("authorization", "Bearer s3cret-t0ken-for-tests".to_owned())];
    let right = post(server.addr, "/v1/hooks/claude", &right, &body).await;
    assert_eq!(right.status, StatusCode::OK);
    assert_eq!(right.json["decision"], "allow");
    // Health and readiness stay open to the load balancer.
    assert_eq!(get(server.addr, "/readyz").await.status, StatusCode::OK);
    let metrics = server.control.metrics();
    assert_eq!(metrics["hooks.serve.rejected"]["unauthorized"], 2);
}

#[tokio::test]
async fn signed_requests_verify_under_either_secret_of_a_rotation() {
    let mut options = Options::default();
    options.auth = Auth::default()
        .with_webhook_secret(secret(SECRET_A))
        .with_webhook_secret(secret(SECRET_B));
    let server = start(options, "v1").await;
    let body = bash("rm -rf /tmp/x");
    let bytes = body.to_string().into_bytes();
    let ts = now();
    let path = "/v1/hooks/claude";

    for (name, key) in [("old secret", SECRET_A), ("new secret", SECRET_B)] {
        let headers = signed("msg_1", ts, secret(key).sign("msg_1", ts, &bytes));
        let reply = post(server.addr, path, &headers, &body).await;
        assert_eq!(reply.status, StatusCode::OK, "{name}: {:?}", reply.json);
        assert_eq!(reply.json["decision"], "block");
    }
    // Several signatures in one header: one valid is enough.
    let both = format!(
        "{} {}",
        secret(SECRET_C).sign("msg_2", ts, &bytes),
        secret(SECRET_B).sign("msg_2", ts, &bytes)
    );
    let reply = post(server.addr, path, &signed("msg_2", ts, both), &body).await;
    assert_eq!(reply.status, StatusCode::OK);

    let refused = |headers: Vec<(&'static str, String)>| {
        let body = body.clone();
        let addr = server.addr;
        async move { post(addr, path, &headers, &body).await }
    };
    let unknown_secret = refused(signed(
        "msg_3",
        ts,
        secret(SECRET_C).sign("msg_3", ts, &bytes),
    ))
    .await;
    assert_eq!(
        (unknown_secret.status, unknown_secret.json["error"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("bad signature"))
    );
    // Signed for another id: the id is part of what is signed.
    let other_id = refused(signed(
        "msg_4",
        ts,
        secret(SECRET_A).sign("msg_5", ts, &bytes),
    ))
    .await;
    assert_eq!(other_id.status, StatusCode::UNAUTHORIZED);
    // Signed over another body.
    let other_body = bash("ls").to_string().into_bytes();
    let tampered = refused(signed(
        "msg_6",
        ts,
        secret(SECRET_A).sign("msg_6", ts, &other_body),
    ))
    .await;
    assert_eq!(tampered.json["error"], "bad signature");
    // Ten minutes old, and ten minutes ahead: outside the 5-minute tolerance.
    for skew in [-600, 600] {
        let at = ts + skew;
        let expired = refused(signed(
            "msg_7",
            at,
            secret(SECRET_A).sign("msg_7", at, &bytes),
        ))
        .await;
        assert_eq!(
            (expired.status, expired.json["error"].as_str()),
            (
                StatusCode::UNAUTHORIZED,
                Some("timestamp outside the tolerance")
            ),
            "skew {skew}"
        );
    }
    let missing = post(server.addr, path, &[], &body).await;
    assert_eq!(missing.json["error"], "missing credentials");
    let no_signature = refused(signed("msg_8", ts, String::new())).await;
    assert_eq!(no_signature.json["error"], "bad signature");
}

#[tokio::test]
async fn invalid_json_is_a_400_and_never_reaches_the_handler() {
    let server = start(Options::default(), "v1").await;
    let reply = serve_support::send(
        server.addr,
        "POST",
        "/v1/hooks/claude",
        &[],
        b"{\"tool_name\": ".to_vec(),
    )
    .await
    .expect("an answer");
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json["error"], "the body is not JSON");
    let metrics = server.control.metrics();
    assert_eq!(metrics["hooks.run"], json!([]));
    assert_eq!(metrics["hooks.serve.rejected"]["invalid_json"], 1);
}

/// Sends a 10 MB body on a raw connection (declared by `Content-Length`,
/// or chunked) and returns the status line of the answer, read while the
/// body is still being written.
async fn ten_megabytes(addr: std::net::SocketAddr, chunked: bool) -> String {
    const TEN_MB: usize = 10 * 1024 * 1024;
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (mut read, mut write) = stream.into_split();
    let framing = if chunked {
        "transfer-encoding: chunked".to_owned()
    } else {
        format!("content-length: {TEN_MB}")
    };
    let head = format!(
        "POST /v1/hooks/claude HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\n{framing}\r\n\r\n"
    );
    write.write_all(head.as_bytes()).await.expect("headers");
    let writer = tokio::spawn(async move {
        let block = vec![b' '; 64 * 1024];
        for _ in 0..TEN_MB / block.len() {
            let sent = if chunked {
                let mut chunk = format!("{:x}\r\n", block.len()).into_bytes();
                chunk.extend_from_slice(&block);
                chunk.extend_from_slice(b"\r\n");
                write.write_all(&chunk).await
            } else {
                write.write_all(&block).await
            };
            if sent.is_err() {
                break; // the server closed the connection: expected
            }
        }
    });
    let mut answer = Vec::new();
    let mut buf = [0_u8; 4096];
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !answer.windows(2).any(|w| w == b"\r\n") {
        match tokio::time::timeout_at(deadline, read.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => answer.extend_from_slice(&buf[..n]),
            _ => break,
        }
    }
    writer.abort();
    String::from_utf8_lossy(&answer)
        .lines()
        .next()
        .unwrap_or("")
        .to_owned()
}

#[tokio::test]
async fn a_ten_megabyte_body_is_a_413() {
    let server = start(Options::default(), "v1").await;
    assert_eq!(
        ten_megabytes(server.addr, false).await,
        "HTTP/1.1 413 Payload Too Large"
    );
    assert_eq!(
        ten_megabytes(server.addr, true).await,
        "HTTP/1.1 413 Payload Too Large"
    );
    // The server still serves.
    let reply = post(server.addr, "/v1/hooks/claude", &[], &bash("ls")).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        server.control.metrics()["hooks.serve.rejected"]["too_large"],
        2
    );
}
