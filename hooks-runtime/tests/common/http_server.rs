//! A loopback HTTP server for the `http` hook tests, started by the test
//! on its own runtime (hyper, HTTP/1.1): each request is recorded and
//! answered by the test's handler. Include with
//! `#[path = "common/http_server.rs"] mod http_server;`.

#![allow(dead_code, reason = "each test binary uses a subset")]

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// One request the server received.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub(crate) method: String,
    pub(crate) path: String,
    /// Header names lowercased.
    pub(crate) headers: BTreeMap<String, String>,
    pub(crate) body: serde_json::Value,
}

/// What the handler answers: status, extra headers, body.
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(&'static str, String)>,
    pub(crate) body: Vec<u8>,
}

impl Reply {
    /// `status` with a JSON body.
    pub(crate) fn json(status: u16, body: &serde_json::Value) -> Reply {
        Reply {
            status,
            headers: vec![("content-type", "application/json".to_owned())],
            body: serde_json::to_vec(body).expect("JSON"),
        }
    }
}

type Handler = Arc<dyn Fn(Seen) -> Pin<Box<dyn Future<Output = Reply> + Send>> + Send + Sync>;

/// A running server; it stops when dropped.
pub(crate) struct Server {
    pub(crate) addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
    task: JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Server {
    /// Starts a server on `127.0.0.1:0` answering every request with
    /// `handler`. Call from inside a tokio runtime.
    pub(crate) async fn start<F, Fut>(handler: F) -> Server
    where
        F: Fn(Seen) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Reply> + Send + 'static,
    {
        let handler: Handler = Arc::new(move |seen| Box::pin(handler(seen)));
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let task = tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            while let Ok((stream, _)) = listener.accept().await {
                let (handler, log) = (Arc::clone(&handler), Arc::clone(&log));
                connections.spawn(async move {
                    let service = service_fn(move |req: Request<Incoming>| {
                        let (handler, log) = (Arc::clone(&handler), Arc::clone(&log));
                        async move {
                            let seen = read(req).await;
                            log.lock().expect("log").push(seen.clone());
                            let reply = handler(seen).await;
                            let mut response = Response::builder().status(reply.status);
                            for (k, v) in reply.headers {
                                response = response.header(k, v);
                            }
                            Ok::<_, Infallible>(
                                response
                                    .body(Full::new(Bytes::from(reply.body)))
                                    .expect("response"),
                            )
                        }
                    });
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Server { addr, seen, task }
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The requests received so far, in order.
    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("log").clone()
    }
}

async fn read(req: Request<Incoming>) -> Seen {
    let (parts, body) = req.into_parts();
    let bytes = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    Seen {
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        headers: parts
            .headers
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
            .collect(),
        body: serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null),
    }
}
