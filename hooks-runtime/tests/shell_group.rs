//! Process-group behaviour of the shell executor with real processes:
//! background jobs, SIGTERM-ignoring and stopped hooks, cancellation,
//! dropping the `run` future, signals and spawn failures.

#[path = "common/proc.rs"]
mod proc;

use std::time::{Duration, Instant};

use hooks_runtime::{CancellationToken, ExecRequest, ExecStatus, Executor, FailureKind};

/// Generous bound for "the group is gone" after `run` returned: SIGKILL was
/// already sent, this only covers its asynchronous delivery.
const GONE_LIMIT: Duration = Duration::from_secs(2);

fn workspace() -> (tempfile::TempDir, Executor) {
    let dir = tempfile::tempdir().expect("temporary workspace");
    let executor = Executor::new(dir.path()).expect("executor over the workspace");
    (dir, executor)
}

fn failure_kind(status: &ExecStatus) -> Option<FailureKind> {
    status.failure().map(|f| f.kind)
}

#[tokio::test]
async fn background_job_holding_the_pipes_neither_delays_nor_outlives_the_hook() {
    let (_dir, executor) = workspace();
    let req = ExecRequest::shell("sleep 30 & printf '{}'");
    let started = Instant::now();
    let outcome = executor.run(&req, &CancellationToken::new()).await;
    assert!(started.elapsed() < Duration::from_secs(2), "{outcome:?}");
    assert_eq!(outcome.status, ExecStatus::Exited(0));
    assert_eq!(outcome.stdout.bytes, b"{}");
    assert!(!outcome.stdout.truncated);
    let pgid = outcome.pid.unwrap();
    assert_eq!(proc::wait_group_gone(pgid, GONE_LIMIT), vec![]);
}

#[tokio::test]
async fn background_job_with_its_own_output_is_killed_when_the_hook_exits() {
    let (_dir, executor) = workspace();
    let req = ExecRequest::shell("sleep 30 >/dev/null 2>&1 </dev/null & echo done");
    let started = Instant::now();
    let outcome = executor.run(&req, &CancellationToken::new()).await;
    assert!(started.elapsed() < Duration::from_secs(2), "{outcome:?}");
    assert_eq!(outcome.status, ExecStatus::Exited(0));
    assert_eq!(outcome.stdout.bytes, b"done\n");
    assert_eq!(
        proc::wait_group_gone(outcome.pid.unwrap(), GONE_LIMIT),
        vec![]
    );
}

#[tokio::test]
async fn hook_ignoring_sigterm_is_killed_on_the_parents_clock() {
    let (_dir, executor) = workspace();
    let mut req = ExecRequest::shell("trap '' TERM; echo ready; sleep 30; echo late");
    req.timeout = Duration::from_secs(1);
    let started = Instant::now();
    let outcome = executor.run(&req, &CancellationToken::new()).await;
    let elapsed = started.elapsed();
    assert_eq!(failure_kind(&outcome.status), Some(FailureKind::TimedOut));
    assert_eq!(
        outcome.status.failure().unwrap().detail,
        "timed out after 1000 ms"
    );
    assert!(elapsed >= Duration::from_secs(1), "{elapsed:?}");
    assert!(
        elapsed < req.timeout + executor.kill_grace() + Duration::from_millis(500),
        "{elapsed:?}"
    );
    assert_eq!(outcome.stdout.bytes, b"ready\n");
    assert_eq!(
        proc::wait_group_gone(outcome.pid.unwrap(), GONE_LIMIT),
        vec![]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_concurrent_hooks_one_stopped() {
    let (_dir, executor) = workspace();
    let started = Instant::now();
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let executor = executor.clone();
            let command = if i == 5 {
                "kill -STOP $$; printf never".to_owned()
            } else {
                format!("printf 'hook-{i}'")
            };
            let mut req = ExecRequest::shell(command);
            req.timeout = Duration::from_secs(1);
            tokio::spawn(async move { executor.run(&req, &CancellationToken::new()).await })
        })
        .collect();
    let mut outcomes = Vec::new();
    for handle in handles {
        outcomes.push(handle.await.unwrap());
    }
    let elapsed = started.elapsed();
    assert!(
        elapsed < Duration::from_secs(1) + executor.kill_grace() + Duration::from_millis(500),
        "{elapsed:?}"
    );
    for (i, outcome) in outcomes.iter().enumerate() {
        if i == 5 {
            assert_eq!(failure_kind(&outcome.status), Some(FailureKind::TimedOut));
            assert_eq!(outcome.stdout.bytes, b"");
        } else {
            assert_eq!(outcome.status, ExecStatus::Exited(0), "hook {i}");
            assert_eq!(outcome.stdout.bytes, format!("hook-{i}").as_bytes());
        }
        assert_eq!(
            proc::wait_group_gone(outcome.pid.unwrap(), GONE_LIMIT),
            vec![]
        );
    }
}

#[tokio::test]
async fn cancellation_mid_run_is_prompt_and_kills_the_group() {
    let (_dir, executor) = workspace();
    let req = ExecRequest::shell("sleep 30 & sleep 30");
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let outcome = executor.run(&req, &cancel).await;
    let elapsed = started.elapsed();
    assert_eq!(failure_kind(&outcome.status), Some(FailureKind::Cancelled));
    assert!(elapsed >= Duration::from_millis(300), "{elapsed:?}");
    assert!(
        elapsed < Duration::from_millis(300) + executor.kill_grace() + Duration::from_millis(500),
        "{elapsed:?}"
    );
    assert_eq!(
        proc::wait_group_gone(outcome.pid.unwrap(), GONE_LIMIT),
        vec![]
    );
}

#[tokio::test]
async fn cancelled_before_start_spawns_nothing() {
    let (_dir, executor) = workspace();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let outcome = executor
        .run(&ExecRequest::shell("touch spawned"), &cancel)
        .await;
    assert_eq!(failure_kind(&outcome.status), Some(FailureKind::Cancelled));
    assert_eq!(outcome.pid, None);
    assert!(!executor.workspace_root().join("spawned").exists());
}

#[tokio::test]
async fn dropping_the_run_future_kills_and_reaps_the_group() {
    let (dir, executor) = workspace();
    let req = ExecRequest::shell("echo $$ > pid; sleep 30 & sleep 30");
    let cancel = CancellationToken::new();
    let dropped =
        tokio::time::timeout(Duration::from_millis(500), executor.run(&req, &cancel)).await;
    assert!(dropped.is_err(), "the hook cannot finish in 500 ms");
    let pid: u32 = std::fs::read_to_string(dir.path().join("pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(proc::wait_group_gone(pid, GONE_LIMIT), vec![]);
    // The background reaper task runs on this runtime: yield to it, then the
    // direct child must not be left as our zombie.
    let end = Instant::now() + GONE_LIMIT;
    while proc::own_children().iter().any(|p| p.pid == pid) && Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        proc::own_children()
            .into_iter()
            .filter(|p| p.pid == pid)
            .collect::<Vec<_>>(),
        vec![]
    );
}

#[tokio::test]
async fn sigsegv_is_signalled_never_success() {
    let (_dir, executor) = workspace();
    let outcome = executor
        .run(
            &ExecRequest::shell("kill -SEGV $$"),
            &CancellationToken::new(),
        )
        .await;
    let failure = outcome.status.failure().unwrap();
    assert_eq!(failure.kind, FailureKind::Signalled);
    assert_eq!(failure.signal, Some(11));
    assert_eq!(failure.detail, "killed by signal 11 (`SIGSEGV`)");
    assert!(!outcome.status.is_success());
}

#[tokio::test]
async fn nonzero_exit_is_reported_as_exited() {
    let (_dir, executor) = workspace();
    let outcome = executor
        .run(
            &ExecRequest::shell("echo no >&2; exit 2"),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, ExecStatus::Exited(2));
    assert_eq!(outcome.stderr.bytes, b"no\n");
}

#[tokio::test]
async fn missing_program_exec_form_is_spawn_failed() {
    let (_dir, executor) = workspace();
    let outcome = executor
        .run(
            &ExecRequest::exec(["/nonexistent/guard.sh"]),
            &CancellationToken::new(),
        )
        .await;
    let failure = outcome.status.failure().unwrap();
    assert_eq!(failure.kind, FailureKind::SpawnFailed);
    assert!(
        failure.detail.starts_with("cannot start the process: "),
        "{}",
        failure.detail
    );
    assert!(!failure.detail.contains("guard.sh"), "{}", failure.detail);
    assert_eq!(outcome.pid, None);
}

#[tokio::test]
async fn missing_program_shell_form_is_exit_127() {
    let (_dir, executor) = workspace();
    let outcome = executor
        .run(
            &ExecRequest::shell("/nonexistent/guard.sh"),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, ExecStatus::Exited(127));
    assert!(!outcome.stderr.bytes.is_empty());
}

#[tokio::test]
async fn empty_argv_is_spawn_failed() {
    let (_dir, executor) = workspace();
    let outcome = executor
        .run(
            &ExecRequest::exec(Vec::<String>::new()),
            &CancellationToken::new(),
        )
        .await;
    let failure = outcome.status.failure().unwrap();
    assert_eq!(failure.kind, FailureKind::SpawnFailed);
    assert_eq!(
        failure.detail,
        "exec-form `argv` is empty, expected at least the program to run"
    );
}

#[tokio::test]
async fn shell_text_starting_with_a_dash_is_a_command_not_an_option() {
    let (_dir, executor) = workspace();
    let outcome = executor
        .run(&ExecRequest::shell("-e"), &CancellationToken::new())
        .await;
    // `sh -c -e` would be an option error (exit 2); `-e` as a command is not
    // found (exit 127).
    assert_eq!(outcome.status, ExecStatus::Exited(127));
}
