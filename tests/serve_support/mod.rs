//! What the `serve_*` tests share: a handler that decides from the body,
//! a server on a loopback port, and a hyper client.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::Duration;

use agent_hooks::serve::{
    Agent, BoxError, Control, Drain, Handler, HandlerAnswer, Options, Server,
};
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::StatusCode;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

/// Blocks a Bash command containing `rm -rf`, allows everything else; a
/// `sleep_ms` field makes it take that long (a slow engine). Its answer
/// names the agent and the handler's `version`, so a reload shows.
#[derive(Debug)]
pub(crate) struct Echo {
    pub(crate) version: String,
}

impl Handler for Echo {
    async fn answer(&self, agent: Agent, _event: Option<&str>, body: Bytes) -> HandlerAnswer {
        let payload: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if let Some(ms) = payload["sleep_ms"].as_u64() {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
        let command = payload["tool_input"]["command"].as_str().unwrap_or("");
        let decision = if payload["tool_name"] == "Bash" && command.contains("rm -rf") {
            "block"
        } else {
            "allow"
        };
        HandlerAnswer::new(
            StatusCode::OK,
            json!({ "decision": decision, "agent": agent.name(), "version": self.version }),
        )
    }
}

/// A server under test: its address, control handle, and the way to stop it.
pub(crate) struct Running {
    pub(crate) addr: SocketAddr,
    pub(crate) control: Control<Echo>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    pub(crate) task: tokio::task::JoinHandle<Drain>,
}

impl Running {
    /// Asks the server to drain (what SIGTERM does in the binary).
    pub(crate) fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    /// The URL path's full address, for messages.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

/// Starts a server on a free loopback port with `options` and a loader
/// that returns `Echo { version }`.
pub(crate) async fn start(options: Options, version: &str) -> Running {
    let version = version.to_owned();
    start_with(options, move || {
        Ok::<_, BoxError>(Echo {
            version: version.clone(),
        })
    })
    .await
}

/// Starts a server on a free loopback port with `options` and `loader`.
pub(crate) async fn start_with<E, L>(options: Options, loader: L) -> Running
where
    E: Into<BoxError>,
    L: Fn() -> Result<Echo, E> + Send + Sync + 'static,
{
    let addr: SocketAddr = "127.0.0.1:0".parse().expect("an address");
    let server = Server::bind(addr, options, loader)
        .await
        .expect("server binds");
    let addr = server.local_addr().expect("bound address");
    let control = server.control();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(server.run(async {
        let _ = stopped.await;
    }));
    Running {
        addr,
        control,
        stop: Some(stop),
        task,
    }
}

/// A response: status, headers, and the body parsed as JSON (`Null` when
/// it is not JSON).
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: StatusCode,
    pub(crate) headers: hyper::HeaderMap,
    pub(crate) json: Value,
}

/// Sends one request on a new connection.
///
/// # Errors
///
/// The connection's or the request's error (refused, reset).
pub(crate) async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: Vec<u8>,
) -> Result<Reply, Box<dyn std::error::Error + Send + Sync>> {
    let stream = tokio::net::TcpStream::connect(addr).await?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(connection);
    let mut request = hyper::Request::builder()
        .method(method)
        .uri(path)
        .header("host", addr.to_string())
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let request = request.body(Full::new(Bytes::from(body)))?;
    let response = sender.send_request(request).await?;
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await?.to_bytes();
    let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Ok(Reply {
        status,
        headers,
        json,
    })
}

/// POSTs `body` as JSON to `path`, expecting an answer.
pub(crate) async fn post(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, String)],
    body: &Value,
) -> Reply {
    send(addr, "POST", path, headers, body.to_string().into_bytes())
        .await
        .expect("the server answers")
}

/// GETs `path`, expecting an answer.
pub(crate) async fn get(addr: SocketAddr, path: &str) -> Reply {
    send(addr, "GET", path, &[], Vec::new())
        .await
        .expect("the server answers")
}

/// A Claude Code `PreToolUse` payload running `command` in Bash.
pub(crate) fn bash(command: &str) -> Value {
    json!({
        "session_id": "s1",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": { "command": command },
    })
}
