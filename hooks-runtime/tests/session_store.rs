//! The `SessionStore` contract, tested once against every store — in
//! memory, files, Redis (a `redis-server` this test starts on loopback) —
//! and the stop-resume cap counted through a store, so that it holds across
//! separate stacks, contexts and processes sharing it.

#[cfg(feature = "redis")]
#[path = "common/redis_server.rs"]
mod redis_server;

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use hooks_runtime::state::{FileStore, MemoryStore, STOP_RESUMES, SessionStore};
use hooks_runtime::{Flow, FnHook, HookContext, HookStack, StepEvent, StepEventKind, StopDecision};
use serde_json::json;

/// Every store under test, with what keeps them alive.
struct Stores {
    list: Vec<(&'static str, Arc<dyn SessionStore>)>,
    _dir: tempfile::TempDir,
    #[cfg(feature = "redis")]
    _redis: Option<redis_server::RedisServer>,
}

/// A memory store, a file store in a fresh directory and (when
/// `redis-server` is installed) a Redis store, each with `ttl`.
async fn stores(test: &str, ttl: Duration) -> Stores {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut list: Vec<(&'static str, Arc<dyn SessionStore>)> = vec![
        ("memory", Arc::new(MemoryStore::new(ttl))),
        (
            "file",
            Arc::new(FileStore::new(dir.path().join("sessions"), ttl)),
        ),
    ];
    #[cfg(feature = "redis")]
    let redis = redis_server::RedisServer::start(test);
    #[cfg(feature = "redis")]
    if let Some(server) = &redis {
        let store = hooks_runtime::state::RedisStore::connect(&server.url(), ttl)
            .await
            .expect("connect to the test's redis-server");
        list.push(("redis", Arc::new(store)));
    }
    #[cfg(not(feature = "redis"))]
    eprintln!("SKIP {test}: built without the `redis` feature, the Redis store is not tested");
    Stores {
        list,
        _dir: dir,
        #[cfg(feature = "redis")]
        _redis: redis,
    }
}

const HOUR: Duration = Duration::from_secs(3600);

/// Session ids an agent may send: path separators, dot segments, control
/// characters, nothing, a lot.
fn weird_ids() -> Vec<String> {
    vec![
        "../../../../etc/passwd".to_owned(),
        "a/b".to_owned(),
        "a_b".to_owned(),
        "..".to_owned(),
        ".".to_owned(),
        String::new(),
        "\u{1}\t\r\n é 🙂 \\ * ? : {x}".to_owned(),
        "x".repeat(5000),
    ]
}

#[tokio::test]
async fn counters_pending_values_and_state_behave_alike_in_every_store() {
    for (name, store) in stores("contract", HOUR).await.list {
        let s = "session-1";
        assert_eq!(
            store.load(s).await.expect(name),
            Default::default(),
            "{name}"
        );
        assert_eq!(store.counter(s, "n").await.expect(name), 0, "{name}");
        assert_eq!(store.increment(s, "n", 1).await.expect(name), 1, "{name}");
        assert_eq!(store.increment(s, "n", 5).await.expect(name), 6, "{name}");
        assert_eq!(store.counter(s, "n").await.expect(name), 6, "{name}");
        // Another session and another counter are apart.
        assert_eq!(
            store.counter("session-2", "n").await.expect(name),
            0,
            "{name}"
        );
        assert_eq!(store.increment(s, "m", 2).await.expect(name), 2, "{name}");

        // A reset removes every counter under the prefix, and only those.
        for counter in [STOP_RESUMES, "stop.resumes/sub-1", "stop.resumes/sub-2"] {
            store.increment(s, counter, 1).await.expect(name);
        }
        assert_eq!(store.reset(s, STOP_RESUMES).await.expect(name), 3, "{name}");
        assert_eq!(
            store.counter(s, STOP_RESUMES).await.expect(name),
            0,
            "{name}"
        );
        assert_eq!(store.reset(s, STOP_RESUMES).await.expect(name), 0, "{name}");
        assert_eq!(
            store.reset("never-seen", "n").await.expect(name),
            0,
            "{name}"
        );

        // A pending value is taken once; a put replaces it.
        store
            .put(s, "approval/c1", json!({"tool": "bash", "n": 1}))
            .await
            .expect(name);
        store
            .put(s, "approval/c1", json!({"tool": "bash", "n": 2}))
            .await
            .expect(name);
        store
            .put(s, "approval/c2", json!("second"))
            .await
            .expect(name);
        let state = store.load(s).await.expect(name);
        let counters: BTreeMap<String, u64> = [("m".to_owned(), 2), ("n".to_owned(), 6)].into();
        assert_eq!(state.counters, counters, "{name}");
        assert_eq!(
            state.pending["approval/c1"],
            json!({"tool": "bash", "n": 2}),
            "{name}"
        );
        assert_eq!(state.pending.len(), 2, "{name}");
        let taken = store.take(s, "approval/c1").await.expect(name);
        assert_eq!(taken, Some(json!({"tool": "bash", "n": 2})), "{name}");
        assert_eq!(
            store.take(s, "approval/c1").await.expect(name),
            None,
            "{name}"
        );
        assert_eq!(
            store.take("never-seen", "k").await.expect(name),
            None,
            "{name}"
        );
        assert_eq!(store.load(s).await.expect(name).pending.len(), 1, "{name}");
        assert_eq!(store.ttl(), HOUR, "{name}");
    }
}

#[tokio::test]
async fn weird_session_ids_are_sessions_of_their_own() {
    for (name, store) in stores("weird-ids", HOUR).await.list {
        let ids = weird_ids();
        for (i, id) in ids.iter().enumerate() {
            let by = u64::try_from(i).expect("small") + 1;
            store.increment(id, "n", by).await.expect(name);
            store.put(id, "who", json!(id)).await.expect(name);
        }
        for (i, id) in ids.iter().enumerate() {
            let by = u64::try_from(i).expect("small") + 1;
            assert_eq!(
                store.counter(id, "n").await.expect(name),
                by,
                "{name} {id:?}"
            );
            assert_eq!(
                store.take(id, "who").await.expect(name),
                Some(json!(id)),
                "{name}"
            );
        }
    }
}

#[tokio::test]
async fn a_file_store_keeps_every_session_in_its_directory_under_a_hashed_name() {
    let root = tempfile::tempdir().expect("temporary directory");
    let dir = root.path().join("state").join("sessions");
    let store = FileStore::new(&dir, HOUR);
    for id in weird_ids() {
        store.increment(&id, "n", 1).await.expect("increment");
        let file = store.session_file(&id);
        assert_eq!(file.parent(), Some(dir.as_path()), "{id:?}");
        // The file is readable JSON naming the session.
        let text = std::fs::read_to_string(&file).expect("session file");
        let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(value["session_id"], json!(id));
        assert_eq!(value["counters"]["n"], json!(1));
    }
    // Nothing was written outside the directory (`..`, `/` in ids).
    let mut outside: Vec<_> = walk(root.path())
        .into_iter()
        .filter(|p| p.parent() != Some(dir.as_path()))
        .collect();
    outside.retain(|p| p != &dir && p != &root.path().join("state"));
    assert!(outside.is_empty(), "{outside:?}");
    for entry in std::fs::read_dir(&dir).expect("list") {
        let name = entry
            .expect("entry")
            .file_name()
            .into_string()
            .expect("UTF-8");
        let stem = name.split('.').next().expect("a name");
        let hashed = stem.len() == 64 && stem.bytes().all(|b| b.is_ascii_hexdigit());
        assert!(hashed || name == ".expired", "{name}");
    }
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(&dir).expect("dir").permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
}

/// Every path under `root`.
fn walk(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(root).expect("list") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(walk(&path));
        }
        out.push(path);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_increments_and_takes_from_many_tasks_all_count_once() {
    const TASKS: u64 = 16;
    const EACH: u64 = 25;
    for (name, store) in stores("concurrency", HOUR).await.list {
        store.put("s", "once", json!(1)).await.expect(name);
        let tasks: Vec<_> = (0..TASKS)
            .map(|_| {
                let store = Arc::clone(&store);
                tokio::spawn(async move {
                    let took = store.take("s", "once").await.expect("take").is_some();
                    for _ in 0..EACH {
                        store.increment("s", "n", 1).await.expect("increment");
                    }
                    took
                })
            })
            .collect();
        let mut takers = 0;
        for task in tasks {
            takers += usize::from(task.await.expect("task"));
        }
        assert_eq!(takers, 1, "{name}: exactly one take gets the value");
        assert_eq!(
            store.counter("s", "n").await.expect(name),
            TASKS * EACH,
            "{name}"
        );
    }
}

/// Set in a child process of
/// `concurrent_increments_from_several_processes_all_count`: the file
/// store's directory to increment in.
const CHILD_DIR: &str = "SESSION_STORE_TEST_CHILD_DIR";
const CHILD_INCREMENTS: u64 = 100;

/// Not a test of its own: the body of the child processes of
/// `concurrent_increments_from_several_processes_all_count` (it returns at
/// once unless that test started it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn child_process_increments() {
    let Some(dir) = std::env::var_os(CHILD_DIR) else {
        return;
    };
    let store = FileStore::new(dir, HOUR);
    for _ in 0..CHILD_INCREMENTS {
        store
            .increment("shared/session", "n", 1)
            .await
            .expect("child increment");
    }
}

#[tokio::test]
async fn concurrent_increments_from_several_processes_all_count() {
    const PROCESSES: u64 = 4;
    let dir = tempfile::tempdir().expect("temporary directory");
    let exe = std::env::current_exe().expect("this test binary");
    let children: Vec<_> = (0..PROCESSES)
        .map(|_| {
            Command::new(&exe)
                .args(["--exact", "child_process_increments", "--test-threads=1"])
                .env(CHILD_DIR, dir.path())
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("spawn a child test process")
        })
        .collect();
    // Increments from this process too, meanwhile.
    let store = FileStore::new(dir.path(), HOUR);
    for _ in 0..CHILD_INCREMENTS {
        store
            .increment("shared/session", "n", 1)
            .await
            .expect("increment");
    }
    for mut child in children {
        let status = child.wait().expect("reap the child");
        assert!(status.success(), "child failed: {status}");
    }
    let total = store.counter("shared/session", "n").await.expect("read");
    assert_eq!(total, (PROCESSES + 1) * CHILD_INCREMENTS);
}

#[tokio::test]
async fn a_session_not_written_for_the_ttl_expires() {
    let ttl = Duration::from_secs(1);
    for (name, store) in stores("expiry", ttl).await.list {
        store.increment("old", "n", 1).await.expect(name);
        store.put("old", "k", json!(1)).await.expect(name);
        tokio::time::sleep(ttl + Duration::from_millis(600)).await;
        store.increment("new", "n", 1).await.expect(name);
        store.expire().await.expect(name);
        assert_eq!(
            store.load("old").await.expect(name),
            Default::default(),
            "{name}"
        );
        assert_eq!(store.counter("new", "n").await.expect(name), 1, "{name}");
    }
}

#[tokio::test]
async fn a_file_store_sweeps_expired_sessions_on_a_write_by_itself() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let ttl = Duration::from_secs(1);
    let store = FileStore::new(dir.path(), ttl);
    store.increment("old", "n", 1).await.expect("write");
    let old = store.session_file("old");
    assert!(old.exists());
    tokio::time::sleep(ttl + Duration::from_millis(600)).await;
    // No `expire` call: the write of another session sweeps.
    store.increment("new", "n", 1).await.expect("write");
    assert!(!old.exists(), "{} was not swept", old.display());
    assert!(!old.with_extension("lock").exists());
    assert!(store.session_file("new").exists());
}

/// A stack whose stop hook always resumes, counting in `store`, with a cap
/// of 2 — one per "process" or replica.
fn resuming_stack(store: &Arc<dyn SessionStore>) -> HookStack {
    HookStack::new()
        .with(
            "again",
            FnHook::observing(
                &[StepEventKind::Stop, StepEventKind::SubagentStop],
                |_, _| Flow::resume("more"),
            ),
        )
        .with_stop_cap(2)
        .with_session_store(Arc::clone(store))
}

#[tokio::test]
async fn the_stop_cap_holds_across_stacks_and_contexts_sharing_a_store() {
    for (name, store) in stores("stop-cap", HOUR).await.list {
        // Two replicas (or two hook processes): separate stacks, separate
        // run contexts (scratchpads), one session id.
        let (a, b) = (resuming_stack(&store), resuming_stack(&store));
        let call = |run: &str| HookContext::new(run.to_owned()).with_session_id("s/1");
        for turn in 0..2 {
            let first = a.stop(&call("call-1"), 0, "").await;
            assert_eq!(first.decision.label(), "resume", "{name} turn {turn}");
            let second = b.stop(&call("call-2"), 0, "").await;
            assert_eq!(second.decision.label(), "resume", "{name} turn {turn}");
            let third = a.stop(&call("call-3"), 0, "").await;
            assert!(
                matches!(
                    third.decision,
                    StopDecision::Capped {
                        cap: 2,
                        resumes: 2,
                        ..
                    }
                ),
                "{name} turn {turn}: {:?}",
                third.decision
            );
            // A subagent counts apart, also across stacks.
            let sub = |stack: &HookStack, run: &'static str| {
                let ctx = call(run);
                let stack = stack.clone();
                async move { stack.subagent_stop(&ctx, "sub-1", "Explore", 0, "").await }
            };
            assert_eq!(sub(&b, "call-4").await.decision.label(), "resume", "{name}");
            assert_eq!(sub(&a, "call-5").await.decision.label(), "resume", "{name}");
            assert_eq!(sub(&b, "call-6").await.decision.label(), "capped", "{name}");
            // Another session is not capped.
            let other = HookContext::new("call-7").with_session_id("s/2");
            assert_eq!(
                a.stop(&other, 0, "").await.decision.label(),
                "resume",
                "{name}"
            );
            // A new user prompt, seen by the other replica, starts a new count.
            let prompt = b.user_prompt(&call("call-8"), "next").await;
            assert!(
                prompt.diagnostics.is_empty(),
                "{name}: {:?}",
                prompt.diagnostics
            );
            let state = store.load("s/1").await.expect(name);
            assert!(state.counters.is_empty(), "{name}: {:?}", state.counters);
        }
    }
}

#[tokio::test]
async fn the_payload_loop_count_is_the_stores_count() {
    for (name, store) in stores("loop-count", HOUR).await.list {
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let stack = HookStack::new()
            .with(
                "again",
                FnHook::new(move |_, event| {
                    if let StepEvent::Stop { loop_count, .. } = event {
                        log.lock().expect("log").push(loop_count);
                    }
                    Flow::resume("more")
                }),
            )
            .with_stop_cap(5)
            .with_session_store(Arc::clone(&store));
        let ctx = |run: &str| HookContext::new(run.to_owned()).with_session_id("s");
        stack.stop(&ctx("1"), 0, "").await;
        stack.stop(&ctx("2"), 0, "").await;
        // An agent that knows of more resumes raises the count.
        stack.stop(&ctx("3"), 3, "").await;
        stack.stop(&ctx("4"), 0, "").await;
        assert_eq!(*seen.lock().expect("log"), [0, 1, 3, 4], "{name}");
        assert_eq!(
            store.counter("s", STOP_RESUMES).await.expect(name),
            5,
            "{name}"
        );
        assert_eq!(
            stack.stop(&ctx("5"), 0, "").await.decision.label(),
            "capped"
        );
    }
}

#[tokio::test]
async fn an_unreadable_store_stops_the_agent_and_says_why() {
    let dir = tempfile::tempdir().expect("temporary directory");
    // The store's directory is a file: nothing can be read or written.
    let blocker = dir.path().join("not-a-dir");
    std::fs::write(&blocker, "x").expect("write");
    let store: Arc<dyn SessionStore> = Arc::new(FileStore::new(blocker.join("sessions"), HOUR));
    let stack = resuming_stack(&store);
    let ctx = HookContext::new("run").with_session_id("s");
    let decided = stack.stop(&ctx, 0, "").await;
    assert_eq!(decided.decision, StopDecision::Stop);
    assert!(
        decided.reports.is_empty(),
        "no hook consulted: {:?}",
        decided.reports
    );
    let message = decided
        .diagnostics
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>();
    assert!(
        message
            .iter()
            .any(|m| m.contains("cannot read the stop resumes of session `s`")),
        "{message:?}"
    );
    let prompt = stack.user_prompt(&ctx, "next").await;
    assert_eq!(prompt.diagnostics.len(), 1, "{:?}", prompt.diagnostics);
}
