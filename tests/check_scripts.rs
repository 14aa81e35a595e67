//! `agent-hooks check` warns about a script a `run` hook names that does not
//! exist in the workspace (`missing-script`), without failing the check
//! unless warnings are denied.

use std::path::Path;
use std::process::{Command, Output};

fn check(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir)
        .arg("check")
        .args(args)
        .output()
        .expect("the agent-hooks binary runs")
}

const CONFIG: &str = r#"version: 1
hooks:
  - id: guard
    phase: before_tool
    run: { command: sh hooks/guard.sh }
  - id: lint
    phase: after_tool
    run: { argv: [python3, hooks/lint.py] }
"#;

#[test]
fn a_missing_script_is_a_located_warning() {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::create_dir_all(dir.path().join("hooks")).expect("creatable");
    std::fs::write(dir.path().join("hooks.yaml"), CONFIG).expect("writable");
    std::fs::write(dir.path().join("hooks/lint.py"), "").expect("writable");

    // `guard.sh` is missing: a warning on line 5, and the check passes.
    let out = check(dir.path(), &["hooks.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("hooks.yaml:5:") && stdout.contains("warning[missing-script]"),
        "{stdout}"
    );
    assert!(stdout.contains("`hooks/guard.sh`"), "{stdout}");
    assert!(
        !stdout.contains("lint.py"),
        "the present script is fine: {stdout}"
    );
    let out = check(dir.path(), &["--deny-warnings", "hooks.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");

    // JSON names it with its severity and pointer.
    let out = check(dir.path(), &["--format", "json", "hooks.yaml"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let diag = &report[0]["diagnostics"][0];
    assert_eq!(diag["code"], "missing-script");
    assert_eq!(diag["severity"], "warning");
    assert_eq!(diag["pointer"], "/hooks/0/run/command");

    // Scripts resolve against `--workspace` (default: the current directory).
    let elsewhere = tempfile::tempdir().expect("a temp dir");
    let config = dir.path().join("hooks.yaml");
    let config = config.to_str().expect("UTF-8 path");
    let out = check(elsewhere.path(), &[config]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.matches("warning[missing-script]").count(),
        2,
        "{stdout}"
    );
    let workspace = dir.path().to_str().expect("UTF-8 path");
    let out = check(elsewhere.path(), &["--workspace", workspace, config]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.matches("warning[missing-script]").count(),
        1,
        "{stdout}"
    );

    // With the script in place the config is clean.
    std::fs::write(dir.path().join("hooks/guard.sh"), "exit 0\n").expect("writable");
    let out = check(dir.path(), &["--deny-warnings", "hooks.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("warning"));
}

/// A `run.cwd` that is a symlink out of the workspace passes the config's
/// own checks (it is relative and stays inside as written), but the runtime
/// resolves it and refuses to run the hook there: `check` says so, located
/// on the `cwd`, and `test` shows the refusal.
#[test]
fn a_cwd_symlinked_out_of_the_workspace_is_a_located_warning() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let outside = tempfile::tempdir().expect("a temp dir");
    std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).expect("symlink");
    std::fs::create_dir(dir.path().join("inside")).expect("mkdir");
    std::fs::write(
        dir.path().join("hooks.yaml"),
        "version: 1\nhooks:\n  - id: escape\n    phase: before_tool\n    run: { command: \"true\", cwd: out }\n  - id: stay\n    phase: before_tool\n    run: { command: \"true\", cwd: inside }\n",
    )
    .expect("writable");
    let out = check(dir.path(), &["hooks.yaml"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("hooks.yaml:5:")
            && stdout.contains("warning[cwd-escapes-workspace]: hook `escape`"),
        "{stdout}"
    );
    assert_eq!(
        stdout.matches("cwd-escapes-workspace").count(),
        1,
        "{stdout}"
    );
    let out = check(dir.path(), &["--deny-warnings", "hooks.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");

    // The runtime refuses it: the hook fails before it is spawned.
    std::fs::write(
        dir.path().join("event.json"),
        r#"{"phase":"before_tool","tool":"bash","call_id":"c1","args":{"command":"ls"}}"#,
    )
    .expect("writable");
    let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir.path())
        .args(["test", "hooks.yaml", "--event", "event.json"])
        .output()
        .expect("the agent-hooks binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("spawn_failed") && stdout.contains("outside the workspace root"),
        "{stdout}"
    );
}
