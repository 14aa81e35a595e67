//! A hook flooding stdout and stderr: the executor keeps at most the caps,
//! counts every byte, and its memory stays bounded. Alone in its binary so
//! the peak-memory reading is not disturbed by other tests.

#[path = "common/proc.rs"]
mod proc;

use std::time::Duration;

use hooks_runtime::{CancellationToken, ExecRequest, ExecStatus, Executor};

const FIFTY_MB: u64 = 50 * 1024 * 1024;
const CAP: usize = 1024 * 1024;

#[tokio::test]
async fn fifty_megabytes_on_each_stream_is_truncated_with_true_counts() {
    let dir = tempfile::tempdir().unwrap();
    let executor = Executor::new(dir.path()).unwrap();
    let mut req = ExecRequest::shell(format!(
        "head -c {FIFTY_MB} /dev/zero & head -c {FIFTY_MB} /dev/zero >&2; wait"
    ));
    req.stdout_cap = CAP;
    req.stderr_cap = CAP;
    req.timeout = Duration::from_secs(30);
    let peak_before_kb = proc::status_kb("VmHWM").unwrap();

    let outcome = executor.run(&req, &CancellationToken::new()).await;

    let peak_after_kb = proc::status_kb("VmHWM").unwrap();
    assert_eq!(outcome.status, ExecStatus::Exited(0));
    for captured in [&outcome.stdout, &outcome.stderr] {
        assert_eq!(captured.total_len, FIFTY_MB);
        assert_eq!(captured.bytes.len(), CAP);
        assert!(captured.bytes.iter().all(|&b| b == 0));
        assert!(captured.truncated);
    }
    // Both caps plus read buffers and allocator slack, far below the 100 MB
    // that went through the pipes.
    let growth_kb = peak_after_kb.saturating_sub(peak_before_kb);
    assert!(
        growth_kb < (2 * CAP as u64) / 1024 + 8 * 1024,
        "peak memory grew by {growth_kb} kB"
    );
}
