//! `agent-hooks serve`'s command line: credentials come from the
//! environment, are checked before anything is served, and never printed.

use std::process::Command;

fn serve(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-hooks"));
    command
        .arg("serve")
        .args(args)
        .env("AGENT_HOOKS_CACHE", "off")
        .env_remove("HOOKS_TEST_UNSET");
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().expect("run agent-hooks");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_missing_token_variable_is_a_usage_error_naming_the_variable() {
    let (code, stderr) = serve(&["--token-env", "HOOKS_TEST_UNSET", "hooks.yaml"], &[]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("`HOOKS_TEST_UNSET` is not set or empty"),
        "{stderr}"
    );
}

#[test]
fn an_invalid_webhook_secret_is_refused_without_printing_it() {
    let value = "whsec_c2hvcnQta2V5";
    let (code, stderr) = serve(
        &["--webhook-secret-env", "HOOKS_TEST_SECRET", "hooks.yaml"],
        &[("HOOKS_TEST_SECRET", value)],
    );
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("`HOOKS_TEST_SECRET`: a webhook secret's key has at least 16 bytes"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("c2hvcnQta2V5"),
        "the secret was printed: {stderr}"
    );
    let (code, stderr) = serve(
        &["--webhook-secret-env", "HOOKS_TEST_SECRET", "hooks.yaml"],
        &[("HOOKS_TEST_SECRET", "not-a-secret")],
    );
    assert_eq!(code, Some(2));
    assert!(
        !stderr.contains("not-a-secret"),
        "the secret was printed: {stderr}"
    );
}

#[test]
fn sizes_and_durations_need_their_units() {
    let (code, stderr) = serve(&["--max-body", "1GB", "hooks.yaml"], &[]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("unknown size unit in `1GB`"), "{stderr}");
    let (code, stderr) = serve(&["--deadline", "30", "hooks.yaml"], &[]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("a duration needs a unit"), "{stderr}");
}
