//! Environment and working-directory preflight of the shell executor with
//! real processes: the allowlist, `BASH_ENV`/`ENV`, cwd containment.

use std::path::PathBuf;
use std::process::Stdio;

use hooks_runtime::{CancellationToken, EnvSpec, ExecRequest, ExecStatus, Executor, FailureKind};

fn workspace() -> (tempfile::TempDir, Executor) {
    let dir = tempfile::tempdir().expect("temporary workspace");
    let executor = Executor::new(dir.path()).expect("executor over the workspace");
    (dir, executor)
}

const JSON: &str = r#"{"decision":"ok"}"#;

/// Run in a child test process whose environment has `BASH_ENV` and `ENV`
/// set to a script that prints text (see
/// `bash_env_and_env_of_the_parent_are_never_inherited`). Run alone (without
/// those variables) it only checks the executor's output.
#[tokio::test]
#[ignore = "spawned by `bash_env_and_env_of_the_parent_are_never_inherited` with BASH_ENV set"]
async fn bash_env_child() {
    let (_dir, executor) = workspace();
    let env = EnvSpec {
        pass: vec!["BASH_ENV".into(), "ENV".into()],
        set: vec![],
    };
    let print = format!("printf '{JSON}'");
    let requests = [
        ExecRequest::exec(["bash", "-c", print.as_str()]),
        ExecRequest::shell(print.clone()),
        ExecRequest::exec(["sh", "-i", "-c", print.as_str()]),
    ];
    for mut req in requests {
        req.env = env.clone();
        let outcome = executor.run(&req, &CancellationToken::new()).await;
        assert_eq!(outcome.status, ExecStatus::Exited(0), "{req:?}");
        assert_eq!(
            String::from_utf8_lossy(&outcome.stdout.bytes),
            JSON,
            "{req:?}"
        );
    }
    let mut req = ExecRequest::exec(["env"]);
    req.env = env;
    let outcome = executor.run(&req, &CancellationToken::new()).await;
    let listed = String::from_utf8(outcome.stdout.bytes).unwrap();
    assert!(
        !listed
            .lines()
            .any(|l| l.starts_with("BASH_ENV=") || l.starts_with("ENV=")),
        "{listed}"
    );
}

#[test]
fn bash_env_and_env_of_the_parent_are_never_inherited() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("sourced.sh");
    std::fs::write(&script, "echo SOURCED\n").unwrap();

    // Control: bash given this environment directly does source the script,
    // so the check below is meaningful.
    let control = std::process::Command::new("bash")
        .args(["-c", "printf x"])
        .env("BASH_ENV", &script)
        .output()
        .unwrap();
    assert_eq!(control.stdout, b"SOURCED\nx");

    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "bash_env_child", "--ignored", "--test-threads=1"])
        .env("BASH_ENV", &script)
        .env("ENV", &script)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&child.stdout);
    assert!(
        child.status.success(),
        "{report}\n{}",
        String::from_utf8_lossy(&child.stderr)
    );
    assert!(report.contains("1 passed"), "{report}");
}

#[tokio::test]
async fn environment_is_the_allowlist_plus_pass_and_set() {
    let (_dir, executor) = workspace();
    let mut req = ExecRequest::exec(["env"]);
    req.env = EnvSpec {
        // CARGO_PKG_NAME is set by cargo for test binaries.
        pass: vec!["CARGO_PKG_NAME".into(), "NOT_SET_ANYWHERE_XYZ".into()],
        set: vec![("HOOK_VAR".into(), "a b=c".into())],
    };
    let outcome = executor.run(&req, &CancellationToken::new()).await;
    assert_eq!(outcome.status, ExecStatus::Exited(0));
    let listed = String::from_utf8(outcome.stdout.bytes).unwrap();
    let mut names: Vec<&str> = listed
        .lines()
        .map(|line| line.split_once('=').unwrap().0)
        .collect();
    names.sort_unstable();
    let mut expected: Vec<&str> = hooks_runtime::BASE_ENV
        .iter()
        .copied()
        .filter(|name| std::env::var_os(name).is_some())
        .chain(["CARGO_PKG_NAME", "HOOK_VAR"])
        .collect();
    expected.sort_unstable();
    assert_eq!(names, expected);
    assert!(listed.lines().any(|l| l == "HOOK_VAR=a b=c"));
    assert!(listed.lines().any(|l| l == "CARGO_PKG_NAME=hooks-runtime"));
}

#[tokio::test]
async fn invalid_env_name_is_refused_before_spawning() {
    let (_dir, executor) = workspace();
    let mut req = ExecRequest::shell("true");
    req.env.set = vec![("BAD=NAME".into(), "x".into())];
    let outcome = executor.run(&req, &CancellationToken::new()).await;
    let failure = outcome.status.failure().unwrap();
    assert_eq!(failure.kind, FailureKind::SpawnFailed);
    assert_eq!(
        failure.detail,
        "invalid environment variable name `BAD=NAME`, expected `[A-Za-z_][A-Za-z0-9_]*`"
    );
    assert_eq!(outcome.pid, None);
}

#[tokio::test]
async fn cwd_inside_the_root_is_used() {
    let (dir, executor) = workspace();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let mut req = ExecRequest::exec(["pwd", "-P"]);
    req.cwd = Some(PathBuf::from("sub"));
    let outcome = executor.run(&req, &CancellationToken::new()).await;
    assert_eq!(outcome.status, ExecStatus::Exited(0));
    let expected = format!("{}\n", executor.workspace_root().join("sub").display());
    assert_eq!(String::from_utf8(outcome.stdout.bytes).unwrap(), expected);
}

#[tokio::test]
async fn cwd_outside_the_root_is_refused() {
    let (dir, executor) = workspace();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
    for cwd in [
        outside.path().to_path_buf(),
        PathBuf::from(".."),
        PathBuf::from("link"),
        PathBuf::from("link/."),
    ] {
        let mut req = ExecRequest::shell("touch escaped");
        req.cwd = Some(cwd.clone());
        let outcome = executor.run(&req, &CancellationToken::new()).await;
        let failure = outcome.status.failure().unwrap();
        assert_eq!(failure.kind, FailureKind::SpawnFailed, "{cwd:?}");
        assert!(
            failure.detail.contains("is outside the workspace root"),
            "{cwd:?}: {}",
            failure.detail
        );
        assert_eq!(outcome.pid, None);
    }
    assert!(!outside.path().join("escaped").exists());
}

#[tokio::test]
async fn missing_cwd_is_spawn_failed() {
    let (_dir, executor) = workspace();
    let mut req = ExecRequest::shell("true");
    req.cwd = Some(PathBuf::from("missing"));
    let outcome = executor.run(&req, &CancellationToken::new()).await;
    let failure = outcome.status.failure().unwrap();
    assert_eq!(failure.kind, FailureKind::SpawnFailed);
    assert!(
        failure
            .detail
            .starts_with("cannot resolve the working directory"),
        "{}",
        failure.detail
    );
}

#[test]
fn missing_workspace_root_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = Executor::new(dir.path().join("missing")).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("cannot resolve the workspace root"),
        "{err}"
    );
}
