//! Processes seen through `/proc`, for the tests that check a signal
//! leaves none behind. Include with `#[path = "common/procs.rs"] mod procs;`.

#![allow(dead_code, reason = "each test binary uses a subset")]

use std::process::Command;
use std::time::{Duration, Instant};

/// Pids of live processes whose command line (arguments joined by spaces)
/// contains `needle`. A zombie does not count: it has exited, and only its
/// exit status waits to be reaped.
pub(crate) fn processes_with(needle: &str) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("read /proc").flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        // The state follows the parenthesized command name in `stat`.
        let zombie = std::fs::read_to_string(entry.path().join("stat"))
            .ok()
            .and_then(|s| {
                s.rsplit(')')
                    .next()
                    .map(|r| r.trim_start().starts_with('Z'))
            })
            .unwrap_or(true);
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if !zombie
            && String::from_utf8_lossy(&cmdline)
                .replace('\0', " ")
                .contains(needle)
        {
            pids.push(pid);
        }
    }
    pids
}

/// Polls `check` every 20 ms until it holds or `limit` passes; whether it
/// held.
pub(crate) fn wait_until(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    check()
}

/// Sends SIGKILL to every process [`processes_with`] `needle`, so a failing
/// test leaves none behind.
pub(crate) fn kill_all(needle: &str) {
    for pid in processes_with(needle) {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
}
