//! `serve` under faults: a slow-loris client, a config replaced by an
//! invalid one under load, shutdown under load, more requests than slots,
//! a handler past its deadline.

mod serve_support;

use std::time::{Duration, Instant};

use agent_hooks::serve::{BoxError, Drain, Options};
use hyper::StatusCode;
use serde_json::{Value, json};
use serve_support::{Echo, bash, get, post, start, start_with};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

/// A payload that keeps the handler busy for `ms`.
fn slow(ms: u64) -> Value {
    let mut payload = bash("ls");
    payload["sleep_ms"] = json!(ms);
    payload
}

/// Polls `cond` every 20 ms for up to 10 s.
async fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(Instant::now() < until, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_slow_loris_client_is_cut_off_while_others_are_served() {
    let mut options = Options::default();
    options.header_read_timeout = Duration::from_millis(500);
    let server = start(options, "v1").await;

    let stream = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    let (mut read, mut write) = stream.into_split();
    // 120 header bytes, one every 100 ms: 12 s to send them all.
    let head = format!(
        "POST /v1/hooks/claude HTTP/1.1\r\nhost: test\r\nx-padding: {}\r\n",
        "a".repeat(60)
    );
    let loris = tokio::spawn(async move {
        for byte in head.bytes() {
            if write.write_all(&[byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    let started = Instant::now();

    // Others are served meanwhile.
    for _ in 0..3 {
        let reply = post(server.addr, "/v1/hooks/claude", &[], &bash("rm -rf /")).await;
        assert_eq!(reply.json["decision"], "block");
    }

    // The slow client's connection is closed (EOF or reset), long before
    // its headers could be complete; at most a 408 is written first.
    let mut seen = Vec::new();
    let mut buf = [0_u8; 1024];
    loop {
        match tokio::time::timeout(Duration::from_secs(8), read.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => seen.extend_from_slice(&buf[..n]),
            Err(_) => panic!("the slow client was not cut off within 8 s"),
        }
    }
    let closed_after = started.elapsed();
    loris.abort();
    assert!(
        closed_after < Duration::from_secs(8),
        "closed after {closed_after:?}"
    );
    let seen = String::from_utf8_lossy(&seen);
    assert!(
        seen.is_empty() || seen.starts_with("HTTP/1.1 408"),
        "{seen}"
    );
}

/// A loader that reads `{"version": ...}` from `path`; anything else is
/// an error (an invalid config).
fn file_loader(
    path: std::path::PathBuf,
) -> impl Fn() -> Result<Echo, BoxError> + Send + Sync + 'static {
    move || {
        let text = std::fs::read_to_string(&path)?;
        let config: Value = serde_json::from_str(&text)?;
        let version = config["version"]
            .as_str()
            .ok_or("config without a `version`")?;
        Ok(Echo {
            version: version.to_owned(),
        })
    }
}

#[tokio::test]
async fn an_invalid_config_under_load_keeps_the_old_one_serving_and_is_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("hooks.json");
    std::fs::write(&config, r#"{"version": "v1"}"#).expect("write config");
    let mut options = Options::default();
    options.watch = vec![config.clone()];
    options.watch_interval = Duration::from_millis(50);
    let server = start_with(options, file_loader(config.clone())).await;
    let addr = server.addr;
    let version = || async move {
        post(addr, "/v1/hooks/claude", &[], &bash("ls")).await.json["version"].clone()
    };
    assert_eq!(version().await, "v1");

    // A valid change is picked up by the watcher.
    std::fs::write(&config, r#"{"version": "v2"}"#).expect("write config");
    let until = Instant::now() + Duration::from_secs(10);
    while version().await != "v2" {
        assert!(Instant::now() < until, "v2 never served");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // Load: 8 clients sending requests while the config turns invalid.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let clients: Vec<_> = (0..8)
        .map(|_| {
            let stop = std::sync::Arc::clone(&stop);
            tokio::spawn(async move {
                let mut answers = Vec::new();
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    let reply = serve_support::send(
                        addr,
                        "POST",
                        "/v1/hooks/claude",
                        &[],
                        bash("ls").to_string().into_bytes(),
                    )
                    .await;
                    answers.push(
                        reply
                            .map(|r| (r.status, r.json["version"].clone()))
                            .map_err(|e| e.to_string()),
                    );
                }
                answers
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Successful reloads so far (the watcher may see the v2 write twice:
    // once truncated, loading the completed file anyway, once whole).
    let ok_before = server.control.metrics()["hooks.serve.reload"]["ok"].clone();
    assert!(ok_before.as_u64() >= Some(1), "{ok_before}");
    std::fs::write(&config, "version: [this is not JSON").expect("write config");
    let control = server.control.clone();
    eventually("the failed reload to be counted", || {
        control.metrics()["hooks.serve.reload"]["failed"].as_u64() >= Some(1)
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut total = 0;
    for client in clients {
        for answer in client.await.expect("client task") {
            assert_eq!(answer, Ok((StatusCode::OK, json!("v2"))));
            total += 1;
        }
    }
    assert!(total > 8, "only {total} requests under load");
    // An explicit reload (SIGHUP in the binary) fails the same way.
    assert!(server.control.reload().await.is_err());
    assert_eq!(version().await, "v2");
    assert_eq!(
        server.control.metrics()["hooks.serve.reload"]["ok"],
        ok_before,
        "no reload succeeded while the config was invalid"
    );

    // Fixing the file recovers.
    std::fs::write(&config, r#"{"version": "v3"}"#).expect("write config");
    let until = Instant::now() + Duration::from_secs(10);
    while version().await != "v3" {
        assert!(Instant::now() < until, "v3 never served");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn shutdown_under_load_finishes_in_flight_requests_and_refuses_new_ones() {
    let mut server = start(Options::default(), "v1").await;
    let addr = server.addr;
    let in_flight: Vec<_> = (0..5)
        .map(|_| tokio::spawn(async move { post(addr, "/v1/hooks/claude", &[], &slow(800)).await }))
        .collect();
    let control = server.control.clone();
    eventually("5 requests in flight", || {
        control.metrics()["hooks.serve.in_flight"] == 5
    })
    .await;

    server.shutdown();
    let until = Instant::now() + Duration::from_secs(5);
    while tokio::net::TcpStream::connect(addr).await.is_ok() {
        assert!(
            Instant::now() < until,
            "still accepting connections after shutdown"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!server.control.ready());
    for request in in_flight {
        let reply = request.await.expect("request task");
        assert_eq!(
            (reply.status, reply.json["decision"].as_str()),
            (StatusCode::OK, Some("allow"))
        );
    }
    assert_eq!(server.task.await.expect("server task"), Drain::Complete);
}

#[tokio::test]
async fn readyz_fails_during_the_drain_delay_and_the_grace_bounds_the_drain() {
    let mut options = Options::default();
    options.drain_delay = Duration::from_millis(600);
    options.drain_grace = Duration::from_millis(300);
    let mut server = start(options, "v1").await;
    let addr = server.addr;
    let stuck = tokio::spawn(async move {
        serve_support::send(
            addr,
            "POST",
            "/v1/hooks/claude",
            &[],
            slow(10_000).to_string().into_bytes(),
        )
        .await
    });
    let control = server.control.clone();
    eventually("the slow request in flight", || {
        control.metrics()["hooks.serve.in_flight"] == 1
    })
    .await;

    server.shutdown();
    eventually("readiness to drop", || !control.ready()).await;
    // Still accepting during the delay, but not ready.
    let ready = get(addr, "/readyz").await;
    assert_eq!(
        (ready.status, ready.json["status"].as_str()),
        (StatusCode::SERVICE_UNAVAILABLE, Some("draining"))
    );
    assert_eq!(get(addr, "/healthz").await.status, StatusCode::OK);

    let drained = tokio::time::timeout(Duration::from_secs(5), server.task).await;
    assert_eq!(
        drained
            .expect("drained within the grace")
            .expect("server task"),
        Drain::TimedOut { dropped: 1 }
    );
    assert!(
        stuck.await.expect("request task").is_err(),
        "the stuck request's connection was dropped"
    );
}

#[tokio::test]
async fn excess_requests_wait_for_a_slot_then_get_503() {
    let mut options = Options::default();
    options.concurrency = 2;
    options.queue_wait = Duration::from_millis(300);
    let server = start(options, "v1").await;
    let addr = server.addr;
    let busy: Vec<_> = (0..2)
        .map(|_| {
            tokio::spawn(async move { post(addr, "/v1/hooks/claude", &[], &slow(1500)).await })
        })
        .collect();
    let control = server.control.clone();
    eventually("both slots taken", || {
        control.metrics()["hooks.serve.in_flight"] == 2
    })
    .await;

    let asked = Instant::now();
    let refused = post(addr, "/v1/hooks/claude", &[], &bash("ls")).await;
    let waited = asked.elapsed();
    assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        refused.headers.get("retry-after").map(|v| v.as_bytes()),
        Some(&b"1"[..])
    );
    assert!(
        waited >= Duration::from_millis(250),
        "answered after {waited:?}, before the queue wait"
    );
    // Health checks do not queue behind hook requests.
    assert_eq!(get(addr, "/healthz").await.status, StatusCode::OK);
    for request in busy {
        assert_eq!(request.await.expect("request task").status, StatusCode::OK);
    }
    assert_eq!(
        server.control.metrics()["hooks.serve.rejected"]["overloaded"],
        1
    );

    // A request that waits less than the queue wait gets its slot.
    let mut options = Options::default();
    options.concurrency = 1;
    options.queue_wait = Duration::from_secs(5);
    let server = start(options, "v1").await;
    let addr = server.addr;
    let first = tokio::spawn(async move { post(addr, "/v1/hooks/claude", &[], &slow(300)).await });
    let control = server.control.clone();
    eventually("the slot taken", || {
        control.metrics()["hooks.serve.in_flight"] == 1
    })
    .await;
    let queued = post(addr, "/v1/hooks/claude", &[], &bash("ls")).await;
    assert_eq!(queued.status, StatusCode::OK);
    assert_eq!(first.await.expect("request task").status, StatusCode::OK);
}

#[tokio::test]
async fn a_handler_past_the_deadline_is_dropped_and_answered_for() {
    let mut options = Options::default();
    options.deadline = Duration::from_millis(200);
    let server = start(options, "v1").await;
    let asked = Instant::now();
    let reply = post(server.addr, "/v1/hooks/claude", &[], &slow(10_000)).await;
    assert!(asked.elapsed() < Duration::from_secs(5));
    assert_eq!(reply.status, StatusCode::GATEWAY_TIMEOUT);
    assert_eq!(reply.json["error"], "deadline exceeded");
    let metrics = server.control.metrics();
    assert_eq!(
        metrics["hooks.run"],
        json!([{ "agent": "claude", "status": 504, "count": 1 }])
    );
    assert_eq!(metrics["hooks.serve.in_flight"], 0);
}
