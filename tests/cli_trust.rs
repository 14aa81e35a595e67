//! `agent-hooks trust`: trusting, listing and revoking configs in the
//! store that `Table::load` reads (`AGENT_HOOKS_TRUST_STORE`).

use std::path::Path;
use std::process::{Command, Output};

use agent_hooks::{LoadError, Table, TrustStore};

fn trust_cmd(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir)
        .env("AGENT_HOOKS_TRUST_STORE", dir.join("trust.json"))
        .arg("trust")
        .args(args)
        .output()
        .expect("run agent-hooks")
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("hooks")).expect("mkdir");
    std::fs::write(
        dir.path().join("hooks.yaml"),
        "version: 1\nhooks:\n  - id: guard\n    phase: before_tool\n    run: { argv: [bash, hooks/guard.sh] }\n",
    )
    .expect("config");
    std::fs::write(dir.path().join("hooks/guard.sh"), "exit 0\n").expect("script");
    dir
}

#[test]
fn trusting_from_the_cli_lets_the_library_load_it_until_a_script_changes() {
    let dir = workspace();
    let ws = dir.path();
    let store = || TrustStore::open(ws.join("trust.json")).expect("store");
    assert!(matches!(
        Table::load(ws.join("hooks.yaml"), ws, &store()),
        Err(LoadError::Untrusted(_))
    ));
    let out = trust_cmd(ws, &["hooks.yaml"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("trusted: hooks.yaml (sha256:"), "{text}");
    assert!(text.contains("hooks/guard.sh (sha256:"), "{text}");
    Table::load(ws.join("hooks.yaml"), ws, &store()).expect("trusted");

    std::fs::write(ws.join("hooks/guard.sh"), "rm -rf ~\n").expect("edit");
    let err = Table::load(ws.join("hooks.yaml"), ws, &store()).expect_err("changed");
    assert!(err.to_string().contains("guard.sh` changed"), "{err}");

    let listed = trust_cmd(ws, &["--list"]);
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(text.contains("hooks.yaml (sha256:"), "{text}");

    let revoked = trust_cmd(ws, &["--revoke", "hooks.yaml"]);
    assert_eq!(revoked.status.code(), Some(0));
    let again = trust_cmd(ws, &["--revoke", "hooks.yaml"]);
    assert_eq!(again.status.code(), Some(1), "not trusted any more");
    assert!(trust_cmd(ws, &["--list"]).stdout.is_empty());
}

#[test]
fn an_invalid_config_is_not_trusted() {
    let dir = workspace();
    std::fs::write(dir.path().join("bad.yaml"), "version: 1\nhooks: 3\n").expect("write");
    let out = trust_cmd(dir.path(), &["bad.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing trusted"));
    assert!(!dir.path().join("trust.json").exists());
}

/// A config with a hook whose script `trust` cannot determine
/// (`sh $ROOT/x.sh`: a variable the runtime does not set) and one it can.
fn unbound_workspace() -> tempfile::TempDir {
    let dir = workspace();
    std::fs::write(
        dir.path().join("hooks.yaml"),
        "version: 1\nhooks:\n  - id: guard\n    phase: before_tool\n    run: { argv: [bash, hooks/guard.sh] }\n  - id: opaque\n    phase: after_tool\n    run: { command: 'sh $ROOT/x.sh' }\n",
    )
    .expect("config");
    dir
}

#[test]
fn an_undeterminable_script_warns_and_strict_refuses_it() {
    let dir = unbound_workspace();
    let ws = dir.path();
    let strict = trust_cmd(ws, &["--strict", "hooks.yaml"]);
    let stderr = String::from_utf8_lossy(&strict.stderr);
    assert_eq!(strict.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("unbound-script"), "{stderr}");
    assert!(
        stderr.contains("hook `opaque`") && stderr.contains("`$ROOT/x.sh`"),
        "{stderr}"
    );
    assert!(stderr.contains("nothing trusted"), "{stderr}");
    assert!(!ws.join("trust.json").exists());

    // Without `--strict` the warning is shown and the rest is bound.
    let lenient = trust_cmd(ws, &["hooks.yaml"]);
    assert_eq!(lenient.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&lenient.stderr).contains("hook `opaque`"));

    // `check` says the same.
    let check = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(ws)
        .args(["check", "hooks.yaml"])
        .output()
        .expect("run agent-hooks");
    let text = String::from_utf8_lossy(&check.stdout).into_owned()
        + &String::from_utf8_lossy(&check.stderr);
    assert!(text.contains("unbound-script"), "{text}");
    assert!(text.contains("hook `opaque`"), "{text}");
    assert!(!text.contains("hook `guard`"), "{text}");
}

#[test]
fn a_script_behind_a_wrapper_is_bound_and_xargs_is_refused_by_strict() {
    let dir = workspace();
    let ws = dir.path();
    std::fs::write(ws.join("hooks/niced.sh"), "exit 0\n").expect("script");
    let config = |extra: &str| {
        format!(
            "version: 1\nhooks:\n  - id: niced\n    phase: before_tool\n    run: {{ command: 'nice -n 5 stdbuf -oL sh hooks/niced.sh' }}\n{extra}"
        )
    };
    std::fs::write(
        ws.join("hooks.yaml"),
        config("  - id: fanout\n    phase: after_tool\n    run: { command: 'ls hooks | xargs -n1 sh' }\n"),
    )
    .expect("config");
    let strict = trust_cmd(ws, &["--strict", "hooks.yaml"]);
    let stderr = String::from_utf8_lossy(&strict.stderr);
    assert_eq!(strict.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("hook `fanout`") && stderr.contains("`xargs`"),
        "{stderr}"
    );
    assert!(!stderr.contains("hook `niced`"), "{stderr}");
    assert!(!ws.join("trust.json").exists());

    std::fs::write(ws.join("hooks.yaml"), config("")).expect("config");
    let strict = trust_cmd(ws, &["--strict", "hooks.yaml"]);
    let stdout = String::from_utf8_lossy(&strict.stdout);
    assert_eq!(
        strict.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&strict.stderr)
    );
    assert!(stdout.contains("hooks/niced.sh (sha256:"), "{stdout}");
    // An edit of the script behind the wrappers needs trust again.
    std::fs::write(ws.join("hooks/niced.sh"), "rm -rf ~\n").expect("edit");
    let store = TrustStore::open(ws.join("trust.json")).expect("store");
    let err = Table::load(ws.join("hooks.yaml"), ws, &store).expect_err("changed");
    assert!(err.to_string().contains("niced.sh` changed"), "{err}");
}
