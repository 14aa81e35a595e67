//! Heap allocations per steady-state event for each kind of hook target,
//! through a dispatch table bound to a shell runtime (no record writer):
//! a declarative `block` rule (a `hooks!` table), a `run` hook (a
//! one-shot `sh` script answering `{}`), an `http` hook (a loopback
//! server answering `{}`) and a `policy` hook (a small Rego file). One
//! warm-up event first (it builds the table's hook ids, the HTTP client
//! and its connection, the compiled policy), then the mean over the
//! measured events. Every allocation of the process counts, on any thread
//! (`stats_alloc`'s instrumented global allocator; a reallocation counts as
//! one, as a moved block): the runtime is current-thread, a policy's
//! evaluation runs on the runtime's Rego thread and counts too, and the
//! loopback server is a child process (this binary run with `--serve`), so
//! only the hook's own work is counted.
//!
//! Two reference lines follow, no hook involved: the floor of a `run`
//! hook's spawn on the same runtime. `bare spawn` is tokio's
//! `Command::new("sh").arg("-c").arg("echo {}").output()` (the parent's
//! environment inherited, no stdin); `prepared spawn` spawns one command
//! built once the way the executor builds it (cleared environment with
//! the executor's base variables, cwd, process group, piped stdin, stdout
//! and stderr), writes `{}` to stdin and reads both outputs into buffers
//! on the stack.
//!
//! Run with `cargo bench --bench hook_allocs` (add `-- --quick` for fewer
//! events); figures are in BENCHMARKS.md, "Hook allocations".
//!
//! `-- --only CASE --events N` (CASE: `block`, `run`, `http`, `policy`)
//! runs the warm-up and N events of one case and counts nothing: under a
//! call profiler, the difference between N = 2 and N = 1 is what one
//! steady-state event executes (BENCHMARKS.md, "Files one event runs").

use std::path::Path;
use std::sync::Arc;

use agent_hooks::shell::Executor;
use agent_hooks::{Flow, HookContext, StepEvent, Table};
use hooks_runtime::{Dispatcher, StackOutcome, TableRef};
use serde_json::json;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

agent_hooks::hooks!(name = Blocks, "hook_allocs.yaml");

#[global_allocator]
static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// Heap allocations (and reallocations) per call of `f` over `calls`
/// calls, made by any thread of the process.
fn allocations(calls: u64, mut f: impl FnMut()) -> f64 {
    let region = Region::new(GLOBAL);
    for _ in 0..calls {
        f();
    }
    let stats = region.change();
    (stats.allocations + stats.reallocations) as f64 / calls as f64
}

/// A loaded table of `config`, `policy` files resolved against `root`.
fn loaded(root: &Path, config: &str) -> Arc<Table> {
    let compiled = hooks_schema::Loader::new()
        .workspace(root)
        .compile_str(config, "hook_allocs.yaml")
        .expect("the bench config compiles");
    Arc::new(Table::from_plan(compiled.plan))
}

/// A loopback HTTP server answering every POST with `{}` (keep-alive):
/// this binary run with `--serve`, which prints its URL; killed on drop.
struct Server {
    child: std::process::Child,
    url: String,
}

impl Server {
    fn start() -> Server {
        use std::io::BufRead;
        let exe = std::env::current_exe().expect("the bench binary");
        let mut child = std::process::Command::new(exe)
            .arg("--serve")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("the server process");
        let mut url = String::new();
        std::io::BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut url)
            .expect("the server's URL");
        Server {
            child,
            url: url.trim().to_owned(),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `--serve` mode: serves until killed.
fn serve() {
    let server = tiny_http::Server::http("127.0.0.1:0").expect("a loopback port");
    println!("http://{}/hook", server.server_addr());
    for mut request in server.incoming_requests() {
        let mut body = Vec::new();
        let _ = request.as_reader().read_to_end(&mut body);
        let header = tiny_http::Header::from_bytes("Content-Type", "application/json")
            .expect("a valid header");
        let _ = request.respond(tiny_http::Response::from_string("{}").with_header(header));
    }
}

/// The small policy of the `policy` hook: blocks `rm -rf`, else undefined.
const POLICY: &str = "package bench\n\ndecision := {\"decision\": \"block\", \"reason\": \"no\"} if {\n\tcontains(input.args.command, \"rm -rf\")\n}\n";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--serve") {
        return serve();
    }
    let quick = args.iter().any(|a| a == "--quick");
    let (warm, mut events) = if quick { (1, 20) } else { (1, 200) };
    let after = |flag: &str| {
        let i = args.iter().position(|a| a == flag)?;
        args.get(i + 1).cloned()
    };
    let only = after("--only");
    if let Some(n) = after("--events") {
        events = n.parse().expect("--events takes a number");
    }
    let root = tempfile::tempdir().expect("a workspace root");
    std::fs::write(root.path().join("bench.rego"), POLICY).expect("the policy file");
    let server = Server::start();
    let url = &server.url;
    let hook = |action: &str| {
        format!(
            "version: 1\nhooks:\n  - id: h\n    phase: before_tool\n    failure_policy: warn\n    {action}\n"
        )
    };
    let tables: [(&str, TableRef); 4] = [
        ("declarative block", TableRef::Static(Blocks::table())),
        (
            "run (sh, one-shot)",
            TableRef::Shared(loaded(root.path(), &hook("run: { command: \"echo {}\" }"))),
        ),
        (
            "http (loopback)",
            TableRef::Shared(loaded(
                root.path(),
                &hook(&format!("http: {{ url: \"{url}\" }}")),
            )),
        ),
        (
            "policy (Rego)",
            TableRef::Shared(loaded(
                root.path(),
                &hook("policy: { rego: [bench.rego], query: data.bench.decision }"),
            )),
        ),
    ];
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let ctx = HookContext::new("bench");
    let args = json!({"command": "rm -rf build"});
    let event = StepEvent::BeforeTool {
        tool_name: "bash",
        call_id: "c1",
        args: &args,
    };
    println!("hook allocations per steady-state event ({events} events after {warm} warm-up)");
    for (name, table) in tables {
        if only
            .as_deref()
            .is_some_and(|o| !name.starts_with(o) && !name.ends_with(o))
        {
            continue;
        }
        let shell = Arc::new(table.shell_runtime(Executor::new(root.path()).expect("executor")));
        let dispatcher = Dispatcher::new(table).with_shell(shell);
        let fold = || -> StackOutcome { rt.block_on(dispatcher.fold(&ctx, event)) };
        for _ in 0..warm {
            let outcome = fold();
            assert!(
                outcome.diagnostics.is_empty(),
                "{name}: {:?}",
                outcome.diagnostics
            );
            let expected = match name {
                "declarative block" | "policy (Rego)" => Some(Flow::skip("no")),
                _ => None,
            };
            assert_eq!(outcome.decision, expected, "{name}");
        }
        if only.is_some() {
            for _ in 0..events {
                std::hint::black_box(fold());
            }
            continue;
        }
        let per_event = allocations(events, || {
            std::hint::black_box(fold());
        });
        println!("  {name:<22} {per_event:>8.1} allocations/event");
    }
    if only.is_some() {
        return;
    }
    let bare = || {
        // `output()` spawns when called: inside the runtime.
        let output = rt.block_on(async {
            tokio::process::Command::new("sh")
                .arg("-c")
                .arg("echo {}")
                .output()
                .await
        });
        std::hint::black_box(output.expect("sh runs"));
    };
    let prepared = prepared_spawn(&rt, root.path());
    for (name, spawn) in [
        ("floor: bare spawn", &bare as &dyn Fn()),
        ("floor: prepared spawn", &prepared),
    ] {
        spawn();
        let per_event = allocations(events, spawn);
        println!("  {name:<22} {per_event:>8.1} allocations/event");
    }
}

/// One spawn of a command built once as the executor builds a `run`
/// hook's (see the module docs), as a closure.
fn prepared_spawn<'a>(rt: &'a tokio::runtime::Runtime, cwd: &Path) -> impl Fn() + 'a {
    use std::process::Stdio;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut command = tokio::process::Command::new("/bin/sh");
    command.arg("-c").arg("--").arg("echo {}").env_clear();
    for name in hooks_runtime::BASE_ENV {
        if let Some(value) = std::env::var_os(name) {
            command.env(name, value);
        }
    }
    command
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let command = std::cell::RefCell::new(command);
    move || {
        let status = rt.block_on(async {
            let mut child = command.borrow_mut().spawn().expect("sh spawns");
            let (stdin, stdout, stderr) =
                (child.stdin.take(), child.stdout.take(), child.stderr.take());
            let (mut stdin, mut stdout, mut stderr) = (
                stdin.expect("piped"),
                stdout.expect("piped"),
                stderr.expect("piped"),
            );
            let (mut out, mut err) = ([0u8; 512], [0u8; 512]);
            let write = async {
                let _ = stdin.write_all(b"{}\n").await;
                drop(stdin);
            };
            let read_out = async { while stdout.read(&mut out).await.unwrap_or(0) > 0 {} };
            let read_err = async { while stderr.read(&mut err).await.unwrap_or(0) > 0 {} };
            tokio::join!(write, read_out, read_err);
            child.wait().await
        });
        std::hint::black_box(status.expect("sh exits"));
    }
}
