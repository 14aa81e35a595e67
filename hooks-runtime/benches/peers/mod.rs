//! What the shell-hook benches share about their peers
//! (`hook_roundtrip.rs`, `worker_roundtrip.rs`): where the peer scripts
//! are, how a program is found, and which Python runs them.
//! Included with `#[path = "peers/mod.rs"] mod peers;`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// This folder: the peer runners and worker scripts.
pub(crate) fn peers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/peers")
}

/// `program` looked up in `PATH` (itself when not found).
pub(crate) fn resolve(program: &str) -> PathBuf {
    std::env::var_os("PATH")
        .and_then(|path| {
            std::env::split_paths(&path)
                .map(|d| d.join(program))
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| PathBuf::from(program))
}

/// The Python interpreter the peers run on, resolved once and named on
/// stderr: `AGENT_HOOKS_BENCH_PYTHON` when set, else the real executable
/// behind `python3` (`sys.executable`), so a version manager's shim
/// (pyenv's is a shell script that starts a process or two per run) is
/// not measured; `None`, with a note, when `python3` does not run.
pub(crate) fn python() -> Option<&'static str> {
    static PYTHON: OnceLock<Option<String>> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            if let Some(set) = std::env::var_os("AGENT_HOOKS_BENCH_PYTHON") {
                let set = set.to_string_lossy().into_owned();
                eprintln!("note: Python runs as `{set}` (AGENT_HOOKS_BENCH_PYTHON)");
                return Some(set);
            }
            let out = std::process::Command::new("python3")
                .args(["-c", "import sys; print(sys.executable)"])
                .output();
            match out {
                Ok(out) if out.status.success() => {
                    let exe = String::from_utf8_lossy(&out.stdout).trim().to_owned();
                    eprintln!(
                        "note: Python runs as `{exe}` (sys.executable of `{}`)",
                        resolve("python3").display()
                    );
                    Some(exe)
                }
                Ok(out) => {
                    eprintln!("note: no Python peer: python3 exited with {}", out.status);
                    None
                }
                Err(err) => {
                    eprintln!("note: no Python peer: {err}");
                    None
                }
            }
        })
        .as_deref()
}
