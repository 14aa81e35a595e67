//! Soak: thousands of shell hook invocations with random faults leak no
//! process and no file descriptor, keep memory bounded, write exactly one
//! record per invocation that ran to completion, and end every invocation
//! in a named outcome (a decision or a failure kind).
//!
//! Faults, chosen per invocation by a seeded RNG (never the time of day):
//! timeouts (one hook ignores SIGTERM), crashes (SIGSEGV, SIGKILL, SIGABRT),
//! stdout floods over the cap, stderr floods, invalid output, the future
//! dropped mid-run, the runtime's cancellation token cancelled mid-run,
//! hooks that fork a background child and exit, hooks that close stdout or
//! stdin early, a missing script. Most go through [`ShellHook::invoke`];
//! one in ten goes through a [`HookStack`] over a loaded table
//! ([`Dispatcher`]), one rule per fault.
//!
//! Leaked processes are found by an environment marker every hook gets
//! (`env.set`): any live process whose environment carries it after the
//! soak is a leak, wherever it was reparented.
//!
//! CI runs 5,000 invocations. For a longer run:
//!
//! ```sh
//! AGENT_HOOKS_SOAK=50000 cargo test --release -p hooks-runtime --test soak -- --nocapture
//! ```
//!
//! `AGENT_HOOKS_SOAK_SEED=N` picks another fault sequence. The figures
//! (processes and fds before/after, RSS, records counted, outcomes) are
//! printed on stderr. Alone in its binary so no other test's descriptors
//! or children are counted.

#[path = "common/hooks.rs"]
mod hooks;
#[path = "common/proc.rs"]
mod proc;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hooks::{before_tool, sh};
use hooks_runtime::{
    CancellationToken, Dispatcher, Executor, FailureKind, HookContext, HookLimits, HookStack,
    Invocation, PayloadLimits, RecordWriter, SecretSet, ShellHook, ShellHookSpec, ShellRuntime,
    Table, TableRef, ToolCall,
};
use hooks_schema::{FailurePolicy, Phase, Protocol};
use proptest::prelude::RngExt;
use proptest::test_runner::{RngAlgorithm, TestRng};
use serde_json::{Value, json};
use tokio::task::JoinSet;

const DEFAULT_INVOCATIONS: usize = 5_000;
const DEFAULT_SEED: u64 = 0x5eed_0016;
const CONCURRENCY: usize = 8;
/// Stdout and stderr cap of every hook (the floods write 8 times more).
const OUTPUT_CAP: usize = 64 * 1024;
const MARKER_VAR: &str = "AGENT_HOOKS_SOAK_MARKER";

/// What one invocation does wrong (or right).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Fault {
    Clean,
    Block,
    Exit2,
    ClaudeDeny,
    Timeout,
    TimeoutIgnoringTerm,
    Crash,
    StdoutFlood,
    StderrFlood,
    Invalid,
    ForkAndExit,
    CloseStdout,
    CloseStdin,
    Missing,
    Dropped,
    Cancelled,
}

/// Faults with their weights: cheap ones often, slow ones (timeouts,
/// cancellations) rarely, so 5,000 invocations fit a CI minute on 2 cores.
const FAULTS: &[(Fault, u32)] = &[
    (Fault::Clean, 20),
    (Fault::Block, 6),
    (Fault::Exit2, 6),
    (Fault::ClaudeDeny, 6),
    (Fault::Timeout, 2),
    (Fault::TimeoutIgnoringTerm, 1),
    (Fault::Crash, 8),
    (Fault::StdoutFlood, 5),
    (Fault::StderrFlood, 5),
    (Fault::Invalid, 8),
    (Fault::ForkAndExit, 6),
    (Fault::CloseStdout, 6),
    (Fault::CloseStdin, 6),
    (Fault::Missing, 5),
    (Fault::Dropped, 2),
    (Fault::Cancelled, 2),
];

impl Fault {
    fn pick(rng: &mut TestRng) -> Fault {
        let total: u32 = FAULTS.iter().map(|(_, w)| w).sum();
        let mut n = rng.random_range(0..total);
        for &(fault, weight) in FAULTS {
            if n < weight {
                return fault;
            }
            n -= weight;
        }
        Fault::Clean
    }

    /// The shell command, and the protocol it speaks.
    fn command(self, rng: &mut TestRng) -> (String, Protocol) {
        let flood = OUTPUT_CAP * 8;
        let native = |c: &str| (c.to_owned(), Protocol::Native);
        match self {
            Fault::Clean => native("cat >/dev/null; echo '{}'"),
            Fault::Block => native(r#"cat >/dev/null; echo '{"decision":"block","reason":"no"}'"#),
            Fault::Exit2 => native("cat >/dev/null; echo 'not today' >&2; exit 2"),
            Fault::ClaudeDeny => (
                r#"cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}'"#
                    .to_owned(),
                Protocol::Claude,
            ),
            Fault::Timeout | Fault::Dropped | Fault::Cancelled => native("sleep 5"),
            Fault::TimeoutIgnoringTerm => native("trap '' TERM; sleep 5; sleep 5"),
            Fault::Crash => {
                let signal = ["SEGV", "KILL", "ABRT"][rng.random_range(0..3usize)];
                native(&format!("cat >/dev/null; echo '{{}}'; kill -{signal} $$"))
            }
            Fault::StdoutFlood => native(&format!("head -c {flood} /dev/zero")),
            Fault::StderrFlood => native(&format!(
                "head -c {flood} /dev/zero >&2; cat >/dev/null; echo '{{}}'"
            )),
            Fault::Invalid => {
                let out = [r"printf '\377\376{not json'", "echo '{\"decision\":'", "echo '[1,2]'"]
                    [rng.random_range(0..3usize)];
                native(&format!("cat >/dev/null; {out}"))
            }
            Fault::ForkAndExit => {
                let child = ["sleep 30 &", "sleep 30 >/dev/null 2>&1 </dev/null &"]
                    [rng.random_range(0..2usize)];
                native(&format!("{child} cat >/dev/null; echo '{{}}'"))
            }
            Fault::CloseStdout => native("exec >&-; cat >/dev/null; sleep 0.01"),
            Fault::CloseStdin => native("exec <&-; echo '{}'"),
            Fault::Missing => native("sh ./no-such-hook.sh"),
        }
    }

    /// The record's `(status, decision, failure_kind)` this fault must end
    /// in; `None` for a dropped future, which writes no record.
    fn expected(self) -> Option<(&'static str, Option<&'static str>, Option<FailureKind>)> {
        let skip = ("decision", Some("skip"), None);
        let ok = ("ok", None, None);
        let failed = |kind| ("failed", None, Some(kind));
        Some(match self {
            Fault::Clean
            | Fault::StderrFlood
            | Fault::ForkAndExit
            | Fault::CloseStdout
            | Fault::CloseStdin => ok,
            Fault::Block | Fault::Exit2 | Fault::ClaudeDeny => skip,
            Fault::Timeout | Fault::TimeoutIgnoringTerm => failed(FailureKind::TimedOut),
            Fault::Crash => failed(FailureKind::Signalled),
            Fault::StdoutFlood => failed(FailureKind::OutputTooLarge),
            Fault::Invalid => failed(FailureKind::InvalidOutput),
            Fault::Missing => failed(FailureKind::SpawnFailed),
            Fault::Cancelled => failed(FailureKind::Cancelled),
            Fault::Dropped => return None,
        })
    }

    /// The tool name of this fault's rule in the dispatcher's table (and
    /// its rule id).
    fn tool(self) -> String {
        format!("{self:?}").to_lowercase()
    }
}

/// Faults the dispatcher's table has a rule for (cancellation needs its own
/// runtime, a dropped future is tested on the stack too).
const TABLE_FAULTS: &[Fault] = &[
    Fault::Clean,
    Fault::Block,
    Fault::Exit2,
    Fault::Timeout,
    Fault::Crash,
    Fault::StdoutFlood,
    Fault::Invalid,
    Fault::ForkAndExit,
    Fault::CloseStdout,
    Fault::Missing,
    Fault::Dropped,
];

/// One `run` rule per table fault, each only for its own tool, under
/// `warn` so a failure continues; every hook carries the marker.
fn table_config(marker: &str, rng: &mut TestRng) -> String {
    let mut yaml = format!(
        "version: 1\nlimits: {{ max_output_bytes: {OUTPUT_CAP} }}\ndefaults: {{ failure_policy: warn }}\nhooks:\n"
    );
    for &fault in TABLE_FAULTS {
        let (command, protocol) = fault.command(rng);
        let timeout = if fault == Fault::Timeout {
            "100ms"
        } else {
            "10s"
        };
        let protocol = match protocol {
            Protocol::Claude => "claude",
            _ => "native",
        };
        yaml.push_str(&format!(
            "  - id: {tool}\n    phase: before_tool\n    include_tools: [{tool}]\n    run:\n      command: {command}\n      timeout: {timeout}\n      protocol: {protocol}\n      env: {{ set: {{ {MARKER_VAR}: {marker} }} }}\n",
            tool = fault.tool(),
            command = serde_json::to_string(&command).expect("a string serializes"),
        ));
    }
    yaml
}

/// What one invocation ended in, as the soak tallies it.
#[derive(Debug)]
struct Ended {
    fault: Fault,
    /// `(status, decision, failure_kind)` of the invocation's record, or
    /// `None` when the future was dropped.
    got: Option<(String, Option<String>, Option<String>)>,
    via_stack: bool,
}

fn named(inv: &Invocation) -> (String, Option<String>, Option<String>) {
    let status = serde_json::to_value(inv.record.status).expect("a status serializes");
    (
        status.as_str().unwrap_or_default().to_owned(),
        inv.record.decision.map(str::to_owned),
        inv.record.failure_kind.map(str::to_owned),
    )
}

/// The shared pieces every invocation task needs.
struct Soak {
    root: std::path::PathBuf,
    executor: Executor,
    records: RecordWriter,
    runtime: Arc<ShellRuntime>,
    stack: Arc<HookStack>,
    limits: HookLimits,
    marker: String,
}

impl Soak {
    fn spec(&self, id: &str, fault: Fault, rng: &mut TestRng) -> ShellHookSpec {
        let (command, protocol) = fault.command(rng);
        let mut spec = sh(id, Phase::BeforeTool, &command);
        spec.protocol = protocol;
        spec.failure_policy = FailurePolicy::Warn;
        spec.process_mut().expect("a run hook").env.set =
            vec![(MARKER_VAR.to_owned(), self.marker.clone())];
        spec.timeout = match fault {
            Fault::Timeout | Fault::TimeoutIgnoringTerm => {
                Duration::from_millis(rng.random_range(50..150u64))
            }
            _ => Duration::from_secs(10),
        };
        spec
    }

    /// Starts invocation `i` with `fault` on `set`.
    fn start(
        self: &Arc<Self>,
        set: &mut JoinSet<Ended>,
        i: usize,
        fault: Fault,
        rng: &mut TestRng,
    ) {
        let via_stack = TABLE_FAULTS.contains(&fault) && rng.random_range(0..10u32) == 0;
        let delay = Duration::from_millis(rng.random_range(10..80u64));
        let soak = Arc::clone(self);
        if via_stack {
            set.spawn(async move {
                let ctx = HookContext::new("soak");
                let args = json!({"command": "x", "i": i});
                let tool = fault.tool();
                let call = ToolCall {
                    tool_name: &tool,
                    call_id: "c",
                    args: &args,
                };
                let fold = soak.stack.before_tool(&ctx, call);
                let got = if fault == Fault::Dropped {
                    let dropped = tokio::time::timeout(delay, fold).await;
                    assert!(dropped.is_err(), "a 5 s hook ended within {delay:?}");
                    None
                } else {
                    let decided = fold.await;
                    assert_eq!(decided.reports.len(), 1, "{:?}", decided.reports);
                    let report = &decided.reports[0];
                    let failure = report.failure.map(|f| f.kind.as_str().to_owned());
                    // The stack's reports have no record status: rebuild it
                    // from the verdict, the way the record names it.
                    let status = match (&report.verdict, &failure) {
                        (_, Some(_)) => "failed",
                        (hooks_runtime::Verdict::Continue, None) => "ok",
                        _ => "decision",
                    };
                    let decision = match report.verdict {
                        hooks_runtime::Verdict::Applied(kind) if failure.is_none() => {
                            Some(format!("{kind:?}").to_lowercase())
                        }
                        _ => None,
                    };
                    Some((status.to_owned(), decision, failure))
                };
                Ended {
                    fault,
                    got,
                    via_stack,
                }
            });
            return;
        }
        let spec = self.spec(&format!("h{}", i % 97), fault, rng);
        set.spawn(async move {
            let ctx = HookContext::new("soak");
            let args = json!({"command": "x", "i": i});
            let event = before_tool("bash", "c", &args);
            let got = match fault {
                Fault::Dropped => {
                    let hook = ShellHook::new(spec, Arc::clone(&soak.runtime));
                    let dropped = tokio::time::timeout(delay, hook.invoke(&ctx, event)).await;
                    assert!(dropped.is_err(), "a 5 s hook ended within {delay:?}");
                    None
                }
                Fault::Cancelled => {
                    // Cancelling a runtime fails all its later hooks: give
                    // this one a runtime of its own, on the shared records.
                    let cancel = CancellationToken::new();
                    let runtime = ShellRuntime::new(soak.executor.clone())
                        .with_records(soak.records.clone())
                        .with_limits(soak.limits)
                        .with_session_dir(soak.root.join("session"))
                        .expect("session dir")
                        .with_cancel(cancel.clone());
                    let hook = ShellHook::new(spec, Arc::new(runtime));
                    let (inv, ()) = tokio::join!(hook.invoke(&ctx, event), async {
                        tokio::time::sleep(delay).await;
                        cancel.cancel();
                    });
                    Some(named(&inv))
                }
                _ => {
                    let hook = ShellHook::new(spec, Arc::clone(&soak.runtime));
                    Some(named(&hook.invoke(&ctx, event).await))
                }
            };
            Ended {
                fault,
                got,
                via_stack,
            }
        });
    }
}

/// Live processes (zombies excluded) whose environment has `marker`.
fn marked_processes(marker: &str) -> Vec<proc::ProcInfo> {
    let needle = format!("{MARKER_VAR}={marker}");
    proc::all_processes()
        .into_iter()
        .filter(|p| p.state != 'Z' && p.state != 'X')
        .filter(|p| {
            std::fs::read(format!("/proc/{}/environ", p.pid))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|var| var == needle.as_bytes()))
        })
        .collect()
}

/// Polls until no marked process is alive or `limit` passes.
fn wait_marked_gone(marker: &str, limit: Duration) -> Vec<proc::ProcInfo> {
    let end = Instant::now() + limit;
    loop {
        let left = marked_processes(marker);
        if left.is_empty() || Instant::now() >= end {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_faulty_invocations_leak_nothing_and_end_in_named_outcomes() {
    let invocations = usize::try_from(env_number("AGENT_HOOKS_SOAK", DEFAULT_INVOCATIONS as u64))
        .unwrap_or(DEFAULT_INVOCATIONS);
    let seed = env_number("AGENT_HOOKS_SOAK_SEED", DEFAULT_SEED);
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes);
    let marker = format!("soak-{}-{seed}", std::process::id());

    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("root");
    std::fs::create_dir(root.join("session")).expect("session dir");
    let executor = Executor::new(&root).expect("executor");
    let records_path = root.join("session/records.jsonl");
    let records = RecordWriter::open(&records_path, SecretSet::new()).expect("records file");
    let limits = HookLimits {
        stdout_cap: OUTPUT_CAP,
        stderr_cap: OUTPUT_CAP,
        payload: PayloadLimits::default(),
        ..HookLimits::default()
    };
    let runtime = Arc::new(
        ShellRuntime::new(executor.clone())
            .with_records(records.clone())
            .with_limits(limits)
            .with_session_dir(root.join("session"))
            .expect("session dir"),
    );
    let table = Table::load_str(&table_config(&marker, &mut rng), "soak.yaml")
        .expect("the soak's table config loads");
    let shell = Arc::new(
        table
            .shell_runtime(executor.clone())
            .with_records(records.clone())
            .with_session_dir(root.join("session"))
            .expect("session dir"),
    );
    let stack = Arc::new(HookStack::new().with(
        "config",
        Dispatcher::new(TableRef::Shared(Arc::new(table))).with_shell(shell),
    ));
    let soak = Arc::new(Soak {
        root: root.clone(),
        executor,
        records,
        runtime,
        stack,
        limits,
        marker: marker.clone(),
    });

    // Warm up the lazily opened descriptors (the process driver's signal
    // pipe, the records file) before counting; its record is counted too.
    let mut warm = JoinSet::new();
    soak.start(&mut warm, 0, Fault::Clean, &mut rng);
    let warm = warm.join_next().await.unwrap().unwrap();
    assert_eq!(
        warm.got.as_ref().map(|g| g.0.as_str()),
        Some("ok"),
        "{warm:?}"
    );
    let fds_before = proc::open_fd_count();
    let children_before = proc::own_children().len();
    let marked_before = marked_processes(&marker).len();
    let rss_before_kb = proc::status_kb("VmRSS").unwrap_or(0);
    let started = Instant::now();

    let mut set = JoinSet::new();
    let mut by_fault: BTreeMap<(Fault, bool), usize> = BTreeMap::new();
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    let mut mismatches: Vec<String> = Vec::new();
    let mut completed = 1usize; // the warm-up
    let mut dropped = 0usize;
    let mut tally = |ended: Ended| {
        *by_fault.entry((ended.fault, ended.via_stack)).or_default() += 1;
        let want = ended.fault.expected().map(|(s, d, f)| {
            (
                s.to_owned(),
                d.map(str::to_owned),
                f.map(|k| k.as_str().to_owned()),
            )
        });
        match &ended.got {
            Some((status, decision, failure)) => {
                completed += 1;
                let name = failure
                    .clone()
                    .or(decision.clone())
                    .unwrap_or(status.clone());
                *outcomes.entry(name).or_default() += 1;
            }
            None => dropped += 1,
        }
        if ended.got != want && mismatches.len() < 20 {
            mismatches.push(format!("{ended:?}, expected {want:?}"));
        }
    };
    for i in 1..=invocations {
        if set.len() == CONCURRENCY {
            tally(set.join_next().await.unwrap().unwrap());
        }
        let fault = Fault::pick(&mut rng);
        soak.start(&mut set, i, fault, &mut rng);
    }
    while let Some(joined) = set.join_next().await {
        tally(joined.unwrap());
    }
    let elapsed = started.elapsed();

    let leaked = wait_marked_gone(&marker, Duration::from_secs(5));
    let children = proc::wait_children_at_most(children_before, Duration::from_secs(5));
    let fds_after = proc::open_fd_count();
    let rss_after_kb = proc::status_kb("VmRSS").unwrap_or(0);
    let peak_kb = proc::status_kb("VmHWM").unwrap_or(0);

    let text = std::fs::read_to_string(&records_path).expect("records file");
    let mut hook_records = 0usize;
    let mut unnamed = Vec::new();
    for line in text.lines() {
        let record: Value = serde_json::from_str(line).expect("one JSON record per line");
        if record["record"] != "hook" {
            continue;
        }
        hook_records += 1;
        let named_kind = match record["status"].as_str() {
            Some("ok") => record.get("failure_kind").is_none(),
            Some("decision") => record["decision"].is_string(),
            Some("failed") => FailureKind::ALL
                .iter()
                .any(|k| record["failure_kind"] == k.as_str()),
            _ => false,
        };
        if !named_kind && unnamed.len() < 10 {
            unnamed.push(line.to_owned());
        }
    }
    let session_left: Vec<_> = std::fs::read_dir(root.join("session"))
        .expect("session dir")
        .map(|e| e.expect("entry").file_name())
        .collect();

    eprintln!(
        "soak: {invocations} invocations (+1 warm-up), seed {seed}, {:.1} s",
        elapsed.as_secs_f64()
    );
    eprintln!(
        "soak: marked processes before {marked_before} after {}; children before {children_before} after {}",
        leaked.len(),
        children.len()
    );
    eprintln!("soak: fds before {fds_before} after {fds_after}");
    eprintln!(
        "soak: VmRSS before {rss_before_kb} kB, after {rss_after_kb} kB, peak (VmHWM) {peak_kb} kB"
    );
    eprintln!(
        "soak: {completed} ran to completion, {dropped} dropped mid-run, {hook_records} hook records"
    );
    eprintln!("soak: outcomes {outcomes:?}");
    eprintln!("soak: faults (fault, via stack) {by_fault:?}");

    assert!(
        mismatches.is_empty(),
        "unexpected outcomes:\n{}",
        mismatches.join("\n")
    );
    assert!(leaked.is_empty(), "leaked processes: {leaked:?}");
    assert_eq!(children.len(), children_before, "{children:?}");
    assert_eq!(fds_after, fds_before, "leaked file descriptors");
    assert_eq!(
        hook_records, completed,
        "one record per completed invocation"
    );
    assert!(
        unnamed.is_empty(),
        "records without a named outcome:\n{}",
        unnamed.join("\n")
    );
    assert_eq!(
        session_left,
        vec![std::ffi::OsString::from("records.jsonl")],
        "payload-ref files left behind"
    );
    // Floods are capped at 64 KiB per stream and 8 invocations run at
    // once: the peak stays far below what went through the pipes
    // (512 KiB per flood).
    assert!(
        peak_kb.saturating_sub(rss_before_kb) < 128 * 1024,
        "peak RSS grew by {} kB",
        peak_kb.saturating_sub(rss_before_kb)
    );
    // Every fault was exercised, on both paths where the table has it.
    for &(fault, _) in FAULTS {
        assert!(
            by_fault.contains_key(&(fault, false)),
            "fault {fault:?} never drawn"
        );
    }
    if invocations >= DEFAULT_INVOCATIONS {
        for &fault in TABLE_FAULTS {
            assert!(
                by_fault.contains_key(&(fault, true)),
                "fault {fault:?} never drawn through the stack"
            );
        }
    }
}
