//! The shared real-world inputs: Claude Code settings files and transcripts
//! in `../shared/real/` beside the clone (or the directory named by
//! `AGENT_HOOKS_REAL_DIR`), which some tests check the project against when
//! they are present. Include with `#[path = "common/real.rs"] mod real;`.

#![allow(
    dead_code,
    reason = "a test binary may reach it only through helpers it does not call"
)]

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

/// `<real>/<sub>/` when it is a directory. Otherwise `None`, after a line
/// on the process's stderr naming the test and the missing directory:
/// written to `std::io::stderr()` itself, because libtest captures the
/// print macros (`eprintln!`) and shows them only when a test fails, and a
/// skip must be seen.
pub(crate) fn dir(sub: &str) -> Option<PathBuf> {
    let base = std::env::var_os("AGENT_HOOKS_REAL_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/real"),
        PathBuf::from,
    );
    let dir = base.join(sub);
    if dir.is_dir() {
        return Some(dir);
    }
    // libtest names each test's thread after the test; one line per test
    // and directory, however often a test asks.
    static SHOWN: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let thread = std::thread::current();
    let line = format!(
        "skipped real inputs in {}: {} is missing (see docs/development.md, \"Development\")",
        thread.name().unwrap_or("a test"),
        dir.display()
    );
    let mut shown = SHOWN.lock().unwrap_or_else(PoisonError::into_inner);
    if shown.insert(line.clone()) {
        let _ = writeln!(std::io::stderr(), "{line}");
    }
    None
}
