//! Persistent workers against the pipe floor, in one run, per program
//! (`sh` and Python, `benches/peers/sh_worker.sh` and `py_worker.py`):
//!
//! - `worker_round_trip`: `ShellHook::invoke` of a `run: {worker: true}`
//!   hook, the whole hook layer (payload, request line, pool, response,
//!   protocol, one record written to a records file);
//! - `pipe_floor_same_program`: the bench itself writing the same request
//!   line (the payload the hook layer builds, with its `request_id`) to a
//!   live process of the same program and reading its reply line, through
//!   blocking pipes: what any caller of that worker pays;
//! - `pipe_floor_same_program_tokio`: the same, through tokio's child
//!   pipes on the bench's runtime (what the async read and write alone
//!   cost);
//! - `worker_round_trip_no_records`: the worker hook on a runtime that
//!   writes no records (what the record costs);
//! - `one_shot_spawn`: the same program run once per event through the
//!   hook layer.
//!
//! And once, `pipe_floor/cat_echo`: the same line written to a live `cat`,
//! which echoes it back, so the floor of a pipe round trip on this machine
//! is clear of any worker program's cost.
//!
//! Python runs through the real interpreter (`sys.executable` of the
//! `python3` on `PATH`, resolved once, so a version-manager shim is not
//! timed), named on stderr; without `python3` its group is skipped with a
//! note.
//!
//! Run: `cargo bench -p hooks-runtime --bench worker_roundtrip`.

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented items"
)]

#[path = "peers/mod.rs"]
mod peers;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use hooks_runtime::{
    CommandForm, Executor, Flow, HookContext, HookLimits, RecordWriter, SecretSet, ShellHook,
    ShellHookSpec, ShellRuntime, StepEvent,
};
use hooks_schema::Phase;
use serde_json::{Value, json};
use tokio::runtime::Runtime;

use peers::{peers_dir, python, resolve};

const KIB: usize = 1024;

/// A live process the bench talks to itself: one line in, one line out.
struct Live {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    reply: Vec<u8>,
}

impl Live {
    fn start(argv: &[String]) -> Live {
        let (program, args) = argv.split_first().expect("a program");
        let mut child = std::process::Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn the floor process");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Live {
            child,
            stdin,
            stdout,
            reply: Vec::new(),
        }
    }

    /// Writes `line` (newline included) and reads one reply line; its
    /// length.
    fn round_trip(&mut self, line: &[u8]) -> usize {
        self.reply.clear();
        self.stdin.write_all(line).expect("write the line");
        self.stdin.flush().expect("flush");
        self.stdout
            .read_until(b'\n', &mut self.reply)
            .expect("read the reply")
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A live process driven through tokio's child pipes.
struct LiveAsync {
    _child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    stdout: tokio::io::BufReader<tokio::process::ChildStdout>,
    reply: Vec<u8>,
}

impl LiveAsync {
    fn start(rt: &Runtime, argv: &[String]) -> LiveAsync {
        let _guard = rt.enter();
        let (program, args) = argv.split_first().expect("a program");
        let mut child = tokio::process::Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn the floor process");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = tokio::io::BufReader::new(child.stdout.take().expect("piped stdout"));
        LiveAsync {
            _child: child,
            stdin,
            stdout,
            reply: Vec::new(),
        }
    }

    async fn round_trip(&mut self, line: &[u8]) -> usize {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
        self.reply.clear();
        self.stdin.write_all(line).await.expect("write the line");
        self.stdin.flush().await.expect("flush");
        self.stdout
            .read_until(b'\n', &mut self.reply)
            .await
            .expect("read the reply")
    }
}

/// Everything one bench run shares.
struct Bench {
    rt: Runtime,
    dir: tempfile::TempDir,
    runtime: Arc<ShellRuntime>,
    /// The same runtime without a records file.
    unrecorded: Arc<ShellRuntime>,
    ctx: HookContext,
}

impl Bench {
    fn new() -> Bench {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("tokio runtime");
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("session")).expect("session dir");
        let records =
            RecordWriter::open(dir.path().join("session/records.jsonl"), SecretSet::new())
                .expect("records file");
        let runtime = ShellRuntime::new(Executor::new(dir.path()).expect("executor"))
            .with_records(records)
            .with_limits(HookLimits::default())
            .with_session_dir(dir.path().join("session"))
            .expect("session dir");
        let unrecorded = ShellRuntime::new(Executor::new(dir.path()).expect("executor"))
            .with_limits(HookLimits::default())
            .with_session_dir(dir.path().join("session"))
            .expect("session dir");
        Bench {
            rt,
            dir,
            runtime: Arc::new(runtime),
            unrecorded: Arc::new(unrecorded),
            ctx: HookContext::new("bench"),
        }
    }

    fn hook(&self, spec: ShellHookSpec) -> ShellHook {
        ShellHook::new(spec, Arc::clone(&self.runtime))
    }

    fn invoke(&self, hook: &ShellHook, args: &Value) {
        let inv = self.rt.block_on(hook.invoke(
            &self.ctx,
            StepEvent::BeforeTool {
                tool_name: "bash",
                call_id: "c1",
                args,
            },
        ));
        assert_eq!(inv.flow, Flow::Continue, "{:?}", inv.report);
    }

    /// The line a worker hook sends for `args`: the payload a one-shot
    /// hook reads (captured by one), with `request_id` first, newline
    /// ended.
    fn request_line(&self, args: &Value) -> Vec<u8> {
        let file = self.dir.path().join("payload.json");
        let capture = self.hook(ShellHookSpec::new(
            "capture",
            Phase::BeforeTool,
            CommandForm::Shell(format!("cat > '{}'", file.display())),
        ));
        self.invoke(&capture, args);
        let payload = std::fs::read(&file).expect("captured payload");
        let rest = payload
            .trim_ascii()
            .strip_prefix(b"{")
            .expect("a JSON object");
        let mut line = b"{\"request_id\":1,".to_vec();
        line.extend_from_slice(rest);
        line.push(b'\n');
        assert!(!line[..line.len() - 1].contains(&b'\n'));
        line
    }
}

fn workers(c: &mut Criterion) {
    let bench = Bench::new();
    let args = json!({"command": "x".repeat(KIB)});
    let line = bench.request_line(&args);
    eprintln!("note: request line of {} bytes", line.len());

    let mut group = c.benchmark_group("pipe_floor");
    let mut cat = Live::start(&[resolve("cat").to_string_lossy().into_owned()]);
    group.bench_function("cat_echo", |b| {
        b.iter(|| assert_eq!(cat.round_trip(&line), line.len()))
    });
    group.finish();
    drop(cat);

    let mut programs = vec![(
        "sh",
        resolve("sh").to_string_lossy().into_owned(),
        "sh_worker.sh",
    )];
    if let Some(python) = python() {
        programs.push(("python", python.to_owned(), "py_worker.py"));
    }
    for (name, interpreter, script) in programs {
        let argv = vec![
            interpreter,
            peers_dir().join(script).to_string_lossy().into_owned(),
        ];
        let mut group = c.benchmark_group(format!("worker_{name}"));
        let mut spec = ShellHookSpec::new(
            format!("worker_{name}"),
            Phase::BeforeTool,
            CommandForm::Exec(argv.clone()),
        );
        spec.process_mut().expect("a run hook").worker = Some(1);
        let worker = bench.hook(spec);
        bench.invoke(&worker, &args); // start it
        group.bench_function("worker_round_trip", |b| {
            b.iter(|| bench.invoke(&worker, &args))
        });
        let unrecorded = ShellHook::new(worker.spec().clone(), Arc::clone(&bench.unrecorded));
        bench.invoke(&unrecorded, &args); // start it
        group.bench_function("worker_round_trip_no_records", |b| {
            b.iter(|| bench.invoke(&unrecorded, &args))
        });
        let mut live = Live::start(&argv);
        group.bench_function("pipe_floor_same_program", |b| {
            b.iter(|| assert!(live.round_trip(&line) > 0))
        });
        drop(live);
        let mut live = LiveAsync::start(&bench.rt, &argv);
        group.bench_function("pipe_floor_same_program_tokio", |b| {
            b.iter(|| assert!(bench.rt.block_on(live.round_trip(&line)) > 0))
        });
        drop(live);
        let one_shot = bench.hook(ShellHookSpec::new(
            "one_shot",
            Phase::BeforeTool,
            CommandForm::Exec(argv),
        ));
        group.bench_function("one_shot_spawn", |b| {
            b.iter(|| bench.invoke(&one_shot, &args))
        });
        group.finish();
    }
    bench.rt.block_on(bench.runtime.shutdown_workers());
    bench.rt.block_on(bench.unrecorded.shutdown_workers());
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1500))
}

criterion_group! {
    name = benches;
    config = config();
    targets = workers
}
criterion_main!(benches);
