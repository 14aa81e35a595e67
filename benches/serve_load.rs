//! `cargo bench --features cli --bench serve_load`: `agent-hooks serve` on
//! loopback with a 100-rule config under 20,000 Claude Code `PreToolUse`
//! requests at concurrency 64, beside `agent-hooks hook --agent claude`
//! per request, a Claude-style Node command hook and a bare process start,
//! in the same run (BENCHMARKS.md, "The hook command and the server").
//!
//! A bench target of the root package (not of `benches/Cargo.toml`'s
//! crate) so that it runs the `agent-hooks` binary built in the same
//! (release) profile. Not a test: it prints figures and fails only when a
//! request fails or the server's memory grows past 10 % between the
//! 10,000th and the 20,000th request.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

const RULES: usize = 100;
const REQUESTS: usize = 20_000;
const CONCURRENCY: usize = 64;
/// Processes started per one-shot comparison (hook command, Node, bare).
const SPAWNS: usize = 200;

/// 100 `before_tool` rules on Bash, each blocking one command family
/// (`rm-0` .. `rm-99`): what a deny list grown over time looks like.
fn config() -> String {
    let mut yaml = String::from("version: 1\nhooks:\n");
    for i in 0..RULES {
        yaml.push_str(&format!(
            "  - id: deny-{i}\n    phase: before_tool\n    include_tools: [Bash]\n    when: {{ pointer: /command, matches: '\\btool{i}\\s+--force\\b' }}\n    block: {{ reason: \"tool{i} --force is for a person\" }}\n"
        ));
    }
    yaml
}

/// The same deny list as a Claude Code command hook in Node, as people
/// write them: read the payload, test each pattern, print the decision.
fn node_hook() -> String {
    let patterns: Vec<String> = (0..RULES)
        .map(|i| format!("/\\btool{i}\\s+--force\\b/"))
        .collect();
    format!(
        "const pats = [{}];\nlet s = '';\nprocess.stdin.on('data', d => s += d);\nprocess.stdin.on('end', () => {{\n  const p = JSON.parse(s);\n  const c = (p.tool_input || {{}}).command || '';\n  for (let i = 0; i < pats.length; i++) {{\n    if (pats[i].test(c)) {{\n      console.log(JSON.stringify({{hookSpecificOutput: {{hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'tool' + i + ' --force is for a person'}}}}));\n      return;\n    }}\n  }}\n  console.log('{{}}');\n}});\n",
        patterns.join(", ")
    )
}

/// Request `i`'s payload: every tenth one is denied.
fn payload(i: usize) -> Value {
    let command = if i.is_multiple_of(10) {
        format!("tool{} --force", i % RULES)
    } else {
        format!("ls -la src/{i}")
    };
    json!({
        "session_id": format!("bench-{}", i % CONCURRENCY),
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": { "command": command },
    })
}

/// Kills the server when the bench ends, whatever happens.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_server(dir: &Path) -> (Server, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir)
        .env("AGENT_HOOKS_SESSION_STORE", dir.join("state"))
        .env("AGENT_HOOKS_CACHE", dir.join("cache"))
        .args(["serve", "--listen", "127.0.0.1:0", "--watch-interval", "0s"])
        .arg("hooks.yaml")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn agent-hooks serve");
    let stderr = child.stderr.take().expect("stderr");
    let server = Server(child);
    let mut lines = BufReader::new(stderr).lines();
    let addr = loop {
        let line = lines
            .next()
            .expect("serve printed its address")
            .expect("stderr");
        if let Some(url) = line.strip_prefix("serve: listening on http://") {
            break url.parse().expect("an address");
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    (server, addr)
}

/// The resident set of process `pid`, in kB.
fn rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// Sends requests `from..to` over `CONCURRENCY` keep-alive connections;
/// returns each request's latency and the number of failed requests
/// (transport error or a status other than 200).
async fn load(addr: SocketAddr, from: usize, to: usize) -> (Vec<Duration>, usize) {
    let next = Arc::new(AtomicUsize::new(from));
    let mut tasks = Vec::new();
    for _ in 0..CONCURRENCY {
        let next = Arc::clone(&next);
        tasks.push(tokio::spawn(async move {
            let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
            let (mut sender, connection) =
                hyper::client::conn::http1::handshake(TokioIo::new(stream))
                    .await
                    .expect("handshake");
            tokio::spawn(connection);
            let (mut latencies, mut errors) = (Vec::new(), 0);
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= to {
                    return (latencies, errors);
                }
                let body = Bytes::from(payload(i).to_string());
                let request = hyper::Request::post("/v1/hooks/claude")
                    .header("host", addr.to_string())
                    .header("content-type", "application/json")
                    .body(Full::new(body))
                    .expect("request");
                let start = Instant::now();
                let ok = match sender.send_request(request).await {
                    Ok(response) => {
                        let status = response.status();
                        let body = response.into_body().collect().await;
                        status == 200 && body.is_ok()
                    }
                    Err(_) => false,
                };
                latencies.push(start.elapsed());
                if !ok {
                    errors += 1;
                }
            }
        }));
    }
    let (mut latencies, mut errors) = (Vec::new(), 0);
    for task in tasks {
        let (l, e) = task.await.expect("a client task");
        latencies.extend(l);
        errors += e;
    }
    (latencies, errors)
}

/// The `q` quantile of `samples` (sorted here).
fn quantile(samples: &mut [Duration], q: f64) -> Duration {
    samples.sort_unstable();
    let i = ((samples.len() as f64 - 1.0) * q).round() as usize;
    samples[i]
}

/// Runs `command` `SPAWNS` times with `stdin` (one process per call, as
/// an agent runs a command hook); returns the latencies.
fn spawn_each(dir: &Path, command: &[&str], stdin: &[u8], env: &[(&str, &Path)]) -> Vec<Duration> {
    (0..SPAWNS)
        .map(|_| {
            let start = Instant::now();
            let mut cmd = Command::new(command[0]);
            cmd.args(&command[1..])
                .current_dir(dir)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null());
            for (k, v) in env {
                cmd.env(k, v);
            }
            let mut child = cmd.spawn().expect("spawn");
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(stdin)
                .expect("write stdin");
            let out = child.wait_with_output().expect("wait");
            assert!(out.status.success(), "{command:?}: {:?}", out.status);
            start.elapsed()
        })
        .collect()
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("hooks.yaml"), config()).expect("config");
    std::fs::write(dir.path().join("hook.js"), node_hook()).expect("node hook");
    let (server, addr) = start_server(dir.path());
    let pid = server.0.id();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");

    // Warm up: one connection's worth, not counted.
    let _ = runtime.block_on(load(addr, REQUESTS, REQUESTS + CONCURRENCY * 4));
    let start = Instant::now();
    let (mut first, errors_first) = runtime.block_on(load(addr, 0, REQUESTS / 2));
    let rss_half = rss_kb(pid);
    let (second, errors_second) = runtime.block_on(load(addr, REQUESTS / 2, REQUESTS));
    let elapsed = start.elapsed();
    let rss_all = rss_kb(pid);
    first.extend(second);
    let mut latencies = first;
    let errors = errors_first + errors_second;
    let rps = REQUESTS as f64 / elapsed.as_secs_f64();
    let (p50, p99) = (
        quantile(&mut latencies, 0.50),
        quantile(&mut latencies, 0.99),
    );
    drop(server);

    let denied = payload(0).to_string().into_bytes();
    let exe = env!("CARGO_BIN_EXE_agent-hooks");
    let state = dir.path().join("hook-state");
    let mut hook = spawn_each(
        dir.path(),
        &[exe, "hook", "--agent", "claude", "hooks.yaml"],
        &denied,
        &[
            ("AGENT_HOOKS_SESSION_STORE", &state),
            ("AGENT_HOOKS_CACHE", &dir.path().join("cache")),
        ],
    );
    let mut node = spawn_each(dir.path(), &["node", "hook.js"], &denied, &[]);
    let mut bare = spawn_each(dir.path(), &["/bin/cat"], &denied, &[]);

    println!("serve_load: {RULES}-rule config, {REQUESTS} requests at concurrency {CONCURRENCY}");
    println!(
        "  serve:   {errors} errors, {rps:.0} requests/s, p50 {}, p99 {}",
        ms(p50),
        ms(p99)
    );
    println!(
        "  serve RSS: {rss_half} kB after {} requests, {rss_all} kB after {REQUESTS} ({:+.1} %)",
        REQUESTS / 2,
        (rss_all as f64 / rss_half as f64 - 1.0) * 100.0
    );
    for (name, samples) in [
        ("hook --agent claude", &mut hook),
        ("node command hook", &mut node),
        ("bare process (cat)", &mut bare),
    ] {
        println!(
            "  {name}: {SPAWNS} calls one after another, p50 {}, p99 {}",
            ms(quantile(samples, 0.50)),
            ms(quantile(samples, 0.99))
        );
    }
    assert_eq!(errors, 0, "failed requests");
    assert!(
        rss_all as f64 <= rss_half as f64 * 1.10,
        "RSS grew from {rss_half} kB to {rss_all} kB"
    );
}
