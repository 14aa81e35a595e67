//! Resource hygiene: 1,000 invocations leave no file descriptor open and no
//! child (running or zombie) behind. Alone in its binary so that no other
//! test opens descriptors or spawns children meanwhile.

#[path = "common/proc.rs"]
mod proc;

use std::time::Duration;

use hooks_runtime::{CancellationToken, ExecOutcome, ExecRequest, ExecStatus, Executor};
use tokio::task::JoinSet;

const INVOCATIONS: usize = 1000;
const CONCURRENCY: usize = 8;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousand_invocations_leak_no_fd_and_no_child() {
    let dir = tempfile::tempdir().unwrap();
    let executor = Executor::new(dir.path()).unwrap();
    let cancel = CancellationToken::new();
    let mut req = ExecRequest::exec(["true"]);
    req.stdin = Some(b"{}".to_vec());

    // Warm up: the runtime's process driver (signal pipe) is set up lazily.
    let warm = executor.run(&req, &cancel).await;
    assert_eq!(warm.status, ExecStatus::Exited(0));
    let fds_before = proc::open_fd_count();
    let children_before = proc::own_children().len();

    let mut set: JoinSet<ExecOutcome> = JoinSet::new();
    let mut done = 0;
    for _ in 0..INVOCATIONS {
        if set.len() == CONCURRENCY {
            let outcome = set.join_next().await.unwrap().unwrap();
            assert_eq!(outcome.status, ExecStatus::Exited(0));
            done += 1;
        }
        let executor = executor.clone();
        let req = req.clone();
        let cancel = cancel.clone();
        set.spawn(async move { executor.run(&req, &cancel).await });
    }
    while let Some(joined) = set.join_next().await {
        assert_eq!(joined.unwrap().status, ExecStatus::Exited(0));
        done += 1;
    }
    assert_eq!(done, INVOCATIONS);

    assert_eq!(proc::open_fd_count(), fds_before);
    let children = proc::wait_children_at_most(children_before, Duration::from_secs(2));
    assert_eq!(children.len(), children_before, "{children:?}");
}
