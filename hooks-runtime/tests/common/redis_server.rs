//! A throwaway `redis-server` on loopback for tests of the Redis session
//! store. Include with `#[path = "common/redis_server.rs"] mod redis_server;`
//! (from another crate's tests, by the path to this file).
//!
//! Without `redis-server` on `PATH` a test fails with a clear message when
//! the `CI` environment variable is set (CI installs it: `.ci/run`), and
//! prints a visible skip line otherwise.

#![allow(dead_code, reason = "each test binary uses a subset")]

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `redis-server` (no persistence), killed and reaped on drop.
pub(crate) struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    /// Starts a server on a free loopback port; `None` (after printing a
    /// skip line) when `redis-server` is not installed and `CI` is unset.
    ///
    /// # Panics
    ///
    /// When `redis-server` is missing and `CI` is set, or when it does not
    /// answer `PING` within 20 s.
    pub(crate) fn start(test: &str) -> Option<RedisServer> {
        if Command::new("redis-server")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_err()
        {
            let message = format!(
                "{test}: `redis-server` is not installed (`apt-get install -y redis-server`); the Redis session store is not tested"
            );
            assert!(
                std::env::var_os("CI").is_none(),
                "{message} (CI is set: failing)"
            );
            eprintln!("SKIP {message}");
            return None;
        }
        for _ in 0..5 {
            let port = TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .expect("a free loopback port")
                .port();
            let child = Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args([
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--protected-mode",
                    "yes",
                ])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("redis-server starts");
            let mut server = RedisServer { child, port };
            if server.wait_ready(Duration::from_secs(20)) {
                return Some(server);
            }
            // The port was taken in between (or the server died): another.
        }
        panic!("{test}: redis-server did not answer PING on any of 5 ports within 20 s each");
    }

    /// `redis://127.0.0.1:<port>/`.
    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Whether the server answers `PING` before `limit`; false as soon as
    /// it exited.
    fn wait_ready(&mut self, limit: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < limit {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return false;
            }
            if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) {
                let mut line = String::new();
                let pong = stream.write_all(b"PING\r\n").is_ok()
                    && BufReader::new(&stream).read_line(&mut line).is_ok()
                    && line.starts_with("+PONG");
                if pong {
                    return true;
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
