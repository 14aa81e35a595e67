//! Process probes for the shell executor's integration tests, from `/proc`
//! (Linux). Include with `#[path = "common/proc.rs"] mod proc;`.

#![allow(dead_code, reason = "each test binary uses a subset")]

use std::time::{Duration, Instant};

/// One process as seen in `/proc/<pid>/stat`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProcInfo {
    /// Process id.
    pub(crate) pid: u32,
    /// State letter (`R`, `S`, `T`, `Z`, ...).
    pub(crate) state: char,
    /// Parent process id.
    pub(crate) ppid: u32,
    /// Process group id.
    pub(crate) pgrp: u32,
}

/// Parses `/proc/<pid>/stat`; `None` if the process vanished meanwhile.
pub(crate) fn proc_info(pid: u32) -> Option<ProcInfo> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may contain spaces or `)`.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split(' ');
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some(ProcInfo {
        pid,
        state,
        ppid,
        pgrp,
    })
}

/// Every process currently visible in `/proc`.
pub(crate) fn all_processes() -> Vec<ProcInfo> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(proc_info)
        .collect()
}

/// Processes of group `pgid` that are still alive (zombies excluded: they
/// are dead, only waiting for a parent to reap them).
pub(crate) fn live_group_members(pgid: u32) -> Vec<ProcInfo> {
    all_processes()
        .into_iter()
        .filter(|p| p.pgrp == pgid && p.state != 'Z' && p.state != 'X')
        .collect()
}

/// Polls until group `pgid` has no live member or `limit` passes; returns
/// the members still alive at the end (empty = the group is gone).
///
/// Polling is needed because SIGKILL is delivered asynchronously: a killed
/// process may still be scheduled briefly before it turns into a zombie.
pub(crate) fn wait_group_gone(pgid: u32, limit: Duration) -> Vec<ProcInfo> {
    let end = Instant::now() + limit;
    loop {
        let left = live_group_members(pgid);
        if left.is_empty() || Instant::now() >= end {
            return left;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Children of this test process, zombies included (an unreaped child is a
/// leak too).
pub(crate) fn own_children() -> Vec<ProcInfo> {
    let me = std::process::id();
    all_processes()
        .into_iter()
        .filter(|p| p.ppid == me)
        .collect()
}

/// Polls until this process has at most `expected` children or `limit`
/// passes; returns the children at the end.
pub(crate) fn wait_children_at_most(expected: usize, limit: Duration) -> Vec<ProcInfo> {
    let end = Instant::now() + limit;
    loop {
        let children = own_children();
        if children.len() <= expected || Instant::now() >= end {
            return children;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Number of open file descriptors of this process.
pub(crate) fn open_fd_count() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .map(|dir| dir.count())
        .unwrap_or(0)
}

/// A `/proc/self/status` field in kB, e.g. `VmHWM` (peak resident memory).
pub(crate) fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status
        .lines()
        .find(|line| line.starts_with(&format!("{field}:")))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
