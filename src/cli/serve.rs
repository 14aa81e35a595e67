//! `agent-hooks serve`: the hook engine over HTTP (docs/serve.md).
//!
//! SIGTERM and SIGINT drain the server (exit 0 when every in-flight
//! request finished, else 143 / 130 as the other commands exit on those
//! signals); SIGHUP reloads the configs (it does not stop the server, as
//! it does the other commands).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use agent_hooks::agent::{
    self as engine, Engine, EngineOptions, load_tables, runs_processes, stack_entries,
};
use agent_hooks::replay::read_event_line;
use agent_hooks::serve::{
    Agent, Auth, BoxError, Drain, Handler, HandlerAnswer, Options, Server, WebhookSecret,
};
use axum::http::StatusCode;
use hooks_runtime::state::{self, SessionStore};
use hooks_runtime::{HookContext, SecretSet, SessionDir, redact_json, redact_sensitive_text};

use super::drive::drive;
use super::{EXIT_OK, EXIT_SIGINT, EXIT_SIGTERM, EXIT_USAGE, warn};

/// The flags of `agent-hooks serve`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The hook configs the engine runs, as one stack (by layer, lowest
    /// first); a change of any reloads them.
    #[arg(required_unless_present = "stack", value_name = "CONFIG")]
    configs: Vec<PathBuf>,
    /// A stack file (docs/fleet.md, "Layers"): its configs run before those
    /// named, in one stack; a change of it or of one of them reloads.
    #[arg(long, value_name = "STACK")]
    stack: Option<PathBuf>,
    /// The address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8787")]
    listen: SocketAddr,
    /// Require `Authorization: Bearer <token>`, the token read from this
    /// environment variable (never from the command line, never printed).
    #[arg(long, value_name = "NAME")]
    token_env: Option<String>,
    /// Accept requests signed per Standard Webhooks with the `whsec_...`
    /// secret(s) in this environment variable (several, space-separated,
    /// during a rotation). Repeatable.
    #[arg(long, value_name = "NAME")]
    webhook_secret_env: Vec<String>,
    /// The largest request body: bytes, or with a `KiB` / `MiB` suffix.
    #[arg(long, value_name = "SIZE", default_value = "1MiB", value_parser = parse_size)]
    max_body: usize,
    /// How many hook requests run at once.
    #[arg(long, value_name = "N", default_value_t = 64)]
    concurrency: usize,
    /// How long an excess request waits for a slot before `503`.
    #[arg(long, value_name = "TIME", default_value = "1s", value_parser = parse_duration)]
    queue_wait: Duration,
    /// Per request: reading the body and the engine's answer (`500ms`, `30s`).
    #[arg(long, value_name = "TIME", default_value = "30s", value_parser = parse_duration)]
    deadline: Duration,
    /// How long a client may take to send a request's headers.
    #[arg(long, value_name = "TIME", default_value = "10s", value_parser = parse_duration)]
    header_timeout: Duration,
    /// On SIGTERM: how long `/readyz` says 503 before the listener closes.
    #[arg(long, value_name = "TIME", default_value = "0s", value_parser = parse_duration)]
    drain_delay: Duration,
    /// On SIGTERM: how long in-flight requests may take to finish.
    #[arg(long, value_name = "TIME", default_value = "30s", value_parser = parse_duration)]
    drain_grace: Duration,
    /// How often the configs are checked for changes (`0s`: never; SIGHUP
    /// still reloads).
    #[arg(long, value_name = "TIME", default_value = "1s", value_parser = parse_duration)]
    watch_interval: Duration,
}

/// `1048576`, `512KiB`, `1MiB`.
fn parse_size(text: &str) -> Result<usize, String> {
    let (digits, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => text.split_at(i),
        None => (text, ""),
    };
    let n: usize = digits
        .parse()
        .map_err(|_| format!("not a size: `{text}`"))?;
    let unit = match unit {
        "" | "B" => 1,
        "KiB" => 1024,
        "MiB" => 1024 * 1024,
        _ => return Err(format!("unknown size unit in `{text}` (B, KiB, MiB)")),
    };
    n.checked_mul(unit)
        .ok_or_else(|| format!("size too large: `{text}`"))
}

/// `250ms`, `30s`.
fn parse_duration(text: &str) -> Result<Duration, String> {
    if let Some(ms) = text.strip_suffix("ms") {
        return ms
            .parse()
            .map(Duration::from_millis)
            .map_err(|_| format!("not a duration: `{text}`"));
    }
    if let Some(s) = text.strip_suffix('s') {
        return s
            .parse()
            .map(Duration::from_secs)
            .map_err(|_| format!("not a duration: `{text}`"));
    }
    Err(format!("a duration needs a unit, `ms` or `s`: `{text}`"))
}

/// The hook engine behind the server: one [`Engine`] per config
/// generation (built at start and on every reload), answering each
/// agent's payloads in its format with status 200 (Claude Code's `http`
/// hooks read a decision only from a 2xx JSON body). An input that is no
/// event of that agent (not JSON, no event name, an agent whose protocol
/// is not spoken yet) is a `400` with `{"error": ...}`. A `native`
/// payload is one event of this project's format (as `test --event`
/// reads it), answered with the `verdict` and `outcome` `test --format
/// json` prints for it, redacted.
struct EngineHandler {
    engine: Engine,
    /// The payload spill directory of `run` hooks, removed when the
    /// generation's engine is dropped.
    _session: Option<SessionDir>,
}

impl Handler for EngineHandler {
    async fn answer(&self, agent: Agent, event: Option<&str>, body: bytes::Bytes) -> HandlerAnswer {
        let agent = match agent {
            Agent::Claude => engine::Agent::Claude,
            Agent::Codex => engine::Agent::Codex,
            Agent::Gemini => engine::Agent::Gemini,
            Agent::Copilot => engine::Agent::Copilot,
            _ => return self.answer_native(&body).await,
        };
        let answer = self.engine.answer(agent, event, &body).await;
        if answer.exit_code == 0 {
            HandlerAnswer::new(StatusCode::OK, answer.json)
        } else {
            HandlerAnswer::new(
                StatusCode::BAD_REQUEST,
                serde_json::json!({ "error": answer.stderr }),
            )
        }
    }
}

impl EngineHandler {
    /// The answer to a native payload: `{"verdict": ..., "outcome": ...}`
    /// as `test --format json` shows them (200), or a `400` naming why
    /// the body is no event.
    async fn answer_native(&self, body: &[u8]) -> HandlerAnswer {
        let read = std::str::from_utf8(body)
            .map_err(|e| e.to_string())
            .and_then(|text| read_event_line(text).map_err(|e| e.to_string()));
        let (event, identity) = match read {
            Ok(read) => read,
            Err(e) => {
                let error = format!("invalid event: {e}");
                let error = redact_sensitive_text(&error, &SecretSet::new()).into_owned();
                return HandlerAnswer::new(
                    StatusCode::BAD_REQUEST,
                    serde_json::json!({ "error": error }),
                );
            }
        };
        let ctx = identity.apply(HookContext::new("serve"));
        let applied = drive(self.engine.stack(), &ctx, &event).await;
        let answer = serde_json::json!({ "verdict": applied.verdict, "outcome": applied.outcome });
        HandlerAnswer::new(StatusCode::OK, redact_json(&answer, &SecretSet::new()))
    }
}

/// Builds the engine that answers agent payloads from `configs`
/// (compiled and checked; named on the command line, so trusted), with
/// the workspace root the current directory and `store` keeping session
/// state across requests (and replicas, with Redis). Called at start and
/// on every reload; an error keeps the running generation.
fn load_handler(
    configs: &[PathBuf],
    stack: Option<&Path>,
    store: &Arc<dyn SessionStore>,
) -> Result<EngineHandler, BoxError> {
    let workspace = std::env::current_dir()?;
    let tables = load_tables(&stack_entries(configs, stack)?, &workspace)?;
    let session = if runs_processes(&tables) {
        Some(SessionDir::create_outside(&workspace)?)
    } else {
        None
    };
    let options = EngineOptions {
        workspace,
        session_dir: session.as_ref().map(|s| s.path().to_owned()),
        records: None,
        cancel: hooks_runtime::CancellationToken::new(),
        policy_process: super::policy_process(),
    };
    let engine = Engine::new(tables, &options)?.with_session_store(Arc::clone(store));
    Ok(EngineHandler {
        engine,
        _session: session,
    })
}

/// The environment variable `name`, or an error naming it (not its value).
fn env(name: &str) -> Result<String, String> {
    match std::env::var(name) {
        Ok(value) if !value.trim().is_empty() => Ok(value),
        _ => Err(format!(
            "error: environment variable `{name}` is not set or empty"
        )),
    }
}

fn auth(args: &Args) -> Result<Auth, String> {
    let mut auth = Auth::default();
    if let Some(name) = &args.token_env {
        auth = auth.with_bearer(env(name)?.trim());
    }
    for name in &args.webhook_secret_env {
        for text in env(name)?.split_whitespace() {
            let secret = WebhookSecret::parse(text).map_err(|e| format!("error: `{name}`: {e}"))?;
            auth = auth.with_webhook_secret(secret);
        }
    }
    Ok(auth)
}

/// Runs `agent-hooks serve`; returns the exit code.
pub(crate) fn run(args: Args) -> u8 {
    let auth = match auth(&args) {
        Ok(auth) => auth,
        Err(message) => {
            warn(&message);
            return EXIT_USAGE;
        }
    };
    if !auth.is_required() && !args.listen.ip().is_loopback() {
        warn(&format!(
            "warning: listening on {} without --token-env or --webhook-secret-env: anyone who reaches it can call the hooks",
            args.listen
        ));
    }
    let mut options = Options::default();
    options.max_body = args.max_body;
    options.concurrency = args.concurrency;
    options.queue_wait = args.queue_wait;
    options.deadline = args.deadline;
    options.header_read_timeout = args.header_timeout;
    options.drain_delay = args.drain_delay;
    options.drain_grace = args.drain_grace;
    if !args.watch_interval.is_zero() {
        options.watch = watched(&args.configs, args.stack.as_deref());
        options.watch_interval = args.watch_interval;
    }
    options.auth = auth;
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            warn(&format!("error: cannot start the async runtime: {e}"));
            return EXIT_USAGE;
        }
    };
    runtime.block_on(serve(args.listen, options, args.configs, args.stack))
}

/// The files whose change reloads: `configs`, the stack file and the
/// configs it lists at start (a config added to the stack file later is
/// loaded on the stack file's change, and watched after a restart).
fn watched(configs: &[PathBuf], stack: Option<&Path>) -> Vec<PathBuf> {
    let mut files = configs.to_vec();
    if let Some(stack) = stack {
        files.push(stack.to_owned());
        if let Ok(entries) = hooks_schema::read_stack_file(stack) {
            files.extend(entries.into_iter().map(|e| e.config));
        }
    }
    files
}

async fn serve(
    listen: SocketAddr,
    options: Options,
    configs: Vec<PathBuf>,
    stack: Option<PathBuf>,
) -> u8 {
    let (mut int, mut term, mut hup) = match super::signals() {
        Ok(signals) => signals,
        Err(code) => return code,
    };
    engine::use_cache_from_env();
    let store = match state::from_env(state::DEFAULT_TTL).await {
        Ok(store) => store,
        Err(e) => {
            warn(&format!("error: cannot open the session state store: {e}"));
            return EXIT_USAGE;
        }
    };
    let server = match Server::bind(listen, options, move || {
        load_handler(&configs, stack.as_deref(), &store)
    })
    .await
    {
        Ok(server) => server,
        Err(e) => {
            warn(&format!("error: {e}"));
            return EXIT_USAGE;
        }
    };
    match server.local_addr() {
        Ok(addr) => eprintln!("serve: listening on http://{addr}"),
        Err(_) => eprintln!("serve: listening"),
    }
    let control = server.control();
    let signal_code = Arc::new(AtomicU8::new(EXIT_OK));
    let code = Arc::clone(&signal_code);
    let shutdown = async move {
        loop {
            tokio::select! {
                _ = int.recv() => { code.store(EXIT_SIGINT, Ordering::SeqCst); break; }
                _ = term.recv() => { code.store(EXIT_SIGTERM, Ordering::SeqCst); break; }
                // The failure is reported by `reload` (stderr and metrics).
                _ = hup.recv() => { let _ = control.reload().await; }
            }
        }
        eprintln!("serve: draining");
    };
    match server.run(shutdown).await {
        Drain::Complete => {
            eprintln!("serve: drained, every in-flight request answered");
            EXIT_OK
        }
        Drain::TimedOut { dropped } => {
            warn(&format!(
                "serve: drain grace ran out, {dropped} connection(s) dropped"
            ));
            signal_code.load(Ordering::SeqCst)
        }
        _ => signal_code.load(Ordering::SeqCst),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_durations_parse() {
        assert_eq!(parse_size("1MiB"), Ok(1024 * 1024));
        assert_eq!(parse_size("512KiB"), Ok(512 * 1024));
        assert_eq!(parse_size("100"), Ok(100));
        assert!(parse_size("1GB").is_err());
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert!(parse_duration("30").is_err());
    }
}
