//! Shell hook round trips side by side, in one run:
//!
//! - `ShellHook::invoke` (payload, executor, protocol, policy, record) next
//!   to a bare `tokio::process::Command` of the same program with the same
//!   isolation (own process group, cleared environment, cwd, piped stdio,
//!   the payload on stdin), next to the same spawn given a bare program name
//!   (which makes the standard library fall back from `posix_spawn` to
//!   `fork`), and next to two peer runners kept as scripts in
//!   `benches/peers/`: a Python asyncio `create_subprocess_exec` runner and
//!   a Node `child_process.spawn` runner with a shell (how Claude Code runs
//!   hooks). Exec and shell forms of `true` with a 1 KiB payload; a hook
//!   that reads its stdin (`cat >/dev/null`) with 1 KiB and 1 MiB (ours
//!   spills it to a payload-ref file) payloads.
//! - 8 observe-only hooks of one event, concurrent (`run_shell_hooks`) and
//!   one after another.
//!
//! Workers are in `worker_roundtrip.rs`.
//!
//! The peer runners are started once and triggered by a line on their
//! stdin; their figures include that pipe round trip, measured alone as
//! `*_harness_only`. A runner whose interpreter is missing is skipped with
//! a note on stderr.
//!
//! Run: `cargo bench -p hooks-runtime --bench hook_roundtrip`.

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented items"
)]

#[path = "peers/mod.rs"]
mod peers;

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::Arc;
use std::time::Duration;

use criterion::{
    BenchmarkGroup, Criterion, criterion_group, criterion_main, measurement::WallTime,
};
use hooks_runtime::{
    BASE_ENV, CommandForm, Executor, Flow, HookContext, HookLimits, RecordWriter, SecretSet,
    ShellHook, ShellHookSpec, ShellRuntime, StepEvent, run_shell_hooks,
};
use hooks_schema::Phase;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::runtime::Runtime;

use peers::{peers_dir, python, resolve};

const KIB: usize = 1024;
const MIB: usize = 1024 * 1024;

/// A peer runner process: one line in, one hook run, one line out.
struct Peer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl Peer {
    /// Starts `interpreter script args...`, or `None` (with a note) when the
    /// interpreter is missing.
    fn start(interpreter: &str, script: &str, args: &[&str]) -> Option<Peer> {
        let script = peers_dir().join(script);
        let spawned = std::process::Command::new(interpreter)
            .arg(&script)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(err) => {
                eprintln!("note: skipping the `{interpreter}` peer runner: {err}");
                return None;
            }
        };
        let stdin = child.stdin.take()?;
        let stdout = BufReader::new(child.stdout.take()?);
        let mut peer = Peer {
            child,
            stdin,
            stdout,
            line: String::new(),
        };
        // One run to check it works (and to warm it up).
        if !peer.round_trip() {
            eprintln!("note: skipping the `{interpreter}` peer runner: it did not answer");
            return None;
        }
        Some(peer)
    }

    /// Triggers one hook run; whether it answered with exit code 0.
    fn round_trip(&mut self) -> bool {
        self.line.clear();
        self.stdin.write_all(b"\n").is_ok()
            && self.stdin.flush().is_ok()
            && self.stdout.read_line(&mut self.line).is_ok()
            && self.line.trim() == "0"
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The executor's base environment, as the parent has it.
fn base_env() -> Vec<(OsString, OsString)> {
    BASE_ENV
        .iter()
        .filter_map(|name| Some((OsString::from(name), std::env::var_os(name)?)))
        .collect()
}

/// Everything one bench run shares.
struct Bench {
    rt: Runtime,
    dir: tempfile::TempDir,
    runtime: Arc<ShellRuntime>,
    ctx: HookContext,
    base_env: Vec<(OsString, OsString)>,
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
        Bench {
            rt,
            dir,
            runtime: Arc::new(runtime),
            ctx: HookContext::new("bench"),
            base_env: base_env(),
        }
    }

    fn hook(&self, id: &str, phase: Phase, form: CommandForm) -> ShellHook {
        ShellHook::new(
            ShellHookSpec::new(id, phase, form),
            Arc::clone(&self.runtime),
        )
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

    /// A bare spawn of `argv` with the executor's isolation: own process
    /// group, cleared environment plus the base names, the workspace root
    /// as cwd, piped stdio, `payload` written to stdin.
    fn bare(&self, program: &Path, args: &[&str], payload: &[u8]) {
        let output = self.rt.block_on(async {
            let mut child = tokio::process::Command::new(program)
                .args(args)
                .env_clear()
                .envs(self.base_env.iter().cloned())
                .current_dir(self.dir.path())
                .process_group(0)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .kill_on_drop(true)
                .spawn()?;
            if let Some(mut stdin) = child.stdin.take() {
                let _ = stdin.write_all(payload).await;
            }
            child.wait_with_output().await
        });
        assert!(output.expect("spawn").status.success());
    }
}

fn payload_args(size: usize) -> Value {
    json!({"command": "x".repeat(size)})
}

fn peers(args: &[&str]) -> (Option<Peer>, Option<Peer>) {
    (
        python().and_then(|python| Peer::start(python, "asyncio_runner.py", args)),
        Peer::start("node", "node_runner.js", args),
    )
}

fn bench_peers(
    group: &mut BenchmarkGroup<'_, WallTime>,
    (python, node): (Option<Peer>, Option<Peer>),
) {
    if let Some(mut peer) = python {
        group.bench_function("python_asyncio_runner", |b| {
            b.iter(|| assert!(peer.round_trip()))
        });
    }
    if let Some(mut peer) = node {
        group.bench_function("node_spawn_runner", |b| {
            b.iter(|| assert!(peer.round_trip()))
        });
    }
}

fn shell_hooks(c: &mut Criterion) {
    let bench = Bench::new();
    let small = payload_args(KIB);
    let payload = serde_json::to_vec(&small).expect("json");
    let true_path = resolve("true");

    let mut group = c.benchmark_group("exec_true_1k");
    let hook = bench.hook(
        "t",
        Phase::BeforeTool,
        CommandForm::Exec(vec!["true".into()]),
    );
    group.bench_function("shell_hook_invoke", |b| {
        b.iter(|| bench.invoke(&hook, &small))
    });
    group.bench_function("bare_spawn_same_isolation", |b| {
        b.iter(|| bench.bare(&true_path, &[], &payload));
    });
    // The same, given the bare name with a cleared environment: std cannot
    // use `posix_spawnp` (it would search the parent's PATH) and forks.
    group.bench_function("bare_spawn_bare_name_fork", |b| {
        b.iter(|| bench.bare(Path::new("true"), &[], &payload));
    });
    bench_peers(&mut group, peers(&["1024", "exec", "true"]));
    group.finish();

    let mut group = c.benchmark_group("shell_true_1k");
    let hook = bench.hook("t", Phase::BeforeTool, CommandForm::Shell("true".into()));
    group.bench_function("shell_hook_invoke", |b| {
        b.iter(|| bench.invoke(&hook, &small))
    });
    group.bench_function("bare_spawn_same_isolation", |b| {
        b.iter(|| bench.bare(Path::new("/bin/sh"), &["-c", "--", "true"], &payload));
    });
    bench_peers(&mut group, peers(&["1024", "shell", "true"]));
    group.finish();

    for (name, size) in [("shell_cat_1k", KIB), ("shell_cat_1m_spilled", MIB)] {
        let mut group = c.benchmark_group(name);
        let args = payload_args(size);
        let hook = bench.hook(
            "cat",
            Phase::BeforeTool,
            CommandForm::Shell("cat >/dev/null".into()),
        );
        group.bench_function("shell_hook_invoke", |b| {
            b.iter(|| bench.invoke(&hook, &args))
        });
        let size = size.to_string();
        bench_peers(&mut group, peers(&[&size, "shell", "cat >/dev/null"]));
        group.finish();
    }

    let mut group = c.benchmark_group("harness_only");
    bench_peers(&mut group, peers(&["0", "noop"]));
    group.finish();
}

/// The CPU time this process has used so far (user + system, every
/// thread; a child's time is not counted): what `getrusage(RUSAGE_SELF)`
/// reports, read from `CLOCK_PROCESS_CPUTIME_ID`.
fn parent_cpu_now() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

/// Parent CPU per run of `run`, over `n` runs (after 10 to warm up).
fn parent_cpu_per_run(n: u32, mut run: impl FnMut()) -> Duration {
    for _ in 0..10 {
        run();
    }
    let start = parent_cpu_now();
    for _ in 0..n {
        run();
    }
    (parent_cpu_now() - start) / n
}

/// A parent-CPU case: its name, ours, the bare spawn.
type Case<'a> = (&'static str, &'a dyn Fn(), &'a dyn Fn());

/// Parent CPU per hook (not a criterion measurement: CPU time, not wall):
/// `ShellHook::invoke` next to the bare spawn with the same isolation,
/// interleaved in rounds so load drifts hit both, printed with the ratio.
/// `AGENT_HOOKS_BENCH_CPU_RUNS` sets the runs per round (default 200).
fn parent_cpu(_: &mut Criterion) {
    let bench = Bench::new();
    let n: u32 = std::env::var("AGENT_HOOKS_BENCH_CPU_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let small = payload_args(KIB);
    let small_payload = serde_json::to_vec(&small).expect("json");
    let large = payload_args(MIB);
    let large_payload = serde_json::to_vec(&large).expect("json");
    let true_path = resolve("true");
    let exec = bench.hook(
        "t",
        Phase::BeforeTool,
        CommandForm::Exec(vec!["true".into()]),
    );
    let shell = bench.hook("t", Phase::BeforeTool, CommandForm::Shell("true".into()));
    let cat = bench.hook(
        "cat",
        Phase::BeforeTool,
        CommandForm::Shell("cat >/dev/null".into()),
    );
    let sh = Path::new("/bin/sh");
    let cases: [Case<'_>; 3] = [
        ("exec_true_1k", &|| bench.invoke(&exec, &small), &|| {
            bench.bare(&true_path, &[], &small_payload)
        }),
        ("shell_true_1k", &|| bench.invoke(&shell, &small), &|| {
            bench.bare(sh, &["-c", "--", "true"], &small_payload)
        }),
        // Ours spills the MiB to a payload-ref file; the bare spawn writes
        // it through the pipe, as the peers do.
        ("shell_cat_1m", &|| bench.invoke(&cat, &large), &|| {
            bench.bare(sh, &["-c", "--", "cat >/dev/null"], &large_payload)
        }),
    ];
    for (name, ours, bare) in cases {
        let (mut o, mut b) = (Duration::ZERO, Duration::ZERO);
        for _ in 0..3 {
            o += parent_cpu_per_run(n, ours);
            b += parent_cpu_per_run(n, bare);
        }
        let (o, b) = (o / 3, b / 3);
        println!(
            "parent_cpu/{name}: shell_hook_invoke {:.1} µs, bare_spawn_same_isolation {:.1} µs, ratio {:.2}× ({n} runs × 3 rounds each)",
            o.as_secs_f64() * 1e6,
            b.as_secs_f64() * 1e6,
            o.as_secs_f64() / b.as_secs_f64()
        );
    }
}

fn observers(c: &mut Criterion) {
    let bench = Bench::new();
    let hooks: Vec<ShellHook> = (0..8)
        .map(|i| {
            bench.hook(
                &format!("o{i}"),
                Phase::Notification,
                CommandForm::Exec(vec!["true".into()]),
            )
        })
        .collect();
    let event = StepEvent::Notification {
        notification_type: "idle",
        title: "t",
        message: "m",
    };
    let mut group = c.benchmark_group("observe_only_8_hooks");
    group.bench_function("concurrent", |b| {
        b.iter(|| {
            let invs = bench
                .rt
                .block_on(run_shell_hooks(&hooks, &bench.ctx, event));
            assert!(invs.iter().all(|i| i.flow == Flow::Continue));
        });
    });
    group.bench_function("sequential", |b| {
        b.iter(|| {
            bench.rt.block_on(async {
                for hook in &hooks {
                    assert_eq!(hook.invoke(&bench.ctx, event).await.flow, Flow::Continue);
                }
            });
        });
    });
    group.finish();
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
    targets = parent_cpu, shell_hooks, observers
}
criterion_main!(benches);
