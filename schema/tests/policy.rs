//! `policy` hooks' Rego files are read from the workspace and compiled when
//! the config is checked: a syntax error is an error located in the Rego
//! file, naming the hook's YAML location; a missing file or a query no file
//! declares is located on the config.

use std::path::Path;

use hooks_schema::Loader;
use hooks_schema::plan::ActionSpec;

const CONFIG: &str = "version: 1
hooks:
  - id: gate
    phase: before_tool
    policy:
      rego: [policies/gate.rego]
      query: data.agent.gate.decision
";

fn workspace(rego: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::create_dir_all(dir.path().join("policies")).expect("creatable");
    std::fs::write(dir.path().join("policies/gate.rego"), rego).expect("writable");
    dir
}

fn compile(dir: &Path, config: &str) -> Result<hooks_schema::Compiled, hooks_schema::Diagnostics> {
    Loader::new().workspace(dir).compile_str(config, "h.yaml")
}

#[test]
fn a_valid_policy_is_embedded_in_the_plan_with_its_digest() {
    let text = "package agent.gate\n\ndecision := {\"decision\": \"block\", \"reason\": \"no\"} if input.tool_name == \"bash\"\n";
    let dir = workspace(text);
    let mut loader = Loader::new().workspace(dir.path());
    let compiled = loader.compile_str(CONFIG, "h.yaml").expect("compiles");
    let ActionSpec::Policy(policy) = &compiled.plan.rules[0].action else {
        panic!("a policy rule: {:?}", compiled.plan.rules[0].action);
    };
    assert_eq!(&*policy.query, "data.agent.gate.decision");
    assert_eq!(policy.modules.len(), 1);
    assert_eq!(&*policy.modules[0].source, text);
    assert_eq!(
        &*policy.digest,
        hooks_schema::policy::policy_digest([("policies/gate.rego", text)])
    );
    // The file is tracked, so `hooks!` rebuilds when it changes.
    assert_eq!(loader.files_read(), [dir.path().join("policies/gate.rego")]);
}

#[test]
fn a_rego_syntax_error_is_located_in_the_rego_file() {
    let dir = workspace(
        "package agent.gate\n\ndecision := {\n  \"decision\": \"block\",\n  \"reason\" \"no\"\n}\n",
    );
    let err = compile(dir.path(), CONFIG).expect_err("a syntax error");
    let d = err.first();
    assert_eq!(d.code, "policy-syntax", "{err}");
    assert_eq!(d.file, "policies/gate.rego");
    assert_eq!((d.line, d.column), (5, 13), "{err}");
    assert!(
        d.message
            .ends_with("expecting `:` while parsing object item"),
        "{err}"
    );
    assert!(
        d.message.starts_with("hook `gate`: rego: "),
        "{}",
        d.message
    );
    // The hint names the hook and where the config declares it.
    let hint = d.hint.as_deref().unwrap_or_default();
    assert_eq!(hint, "named by hook `gate` at h.yaml:6:7", "{err}");
    assert!(
        d.render(None)
            .starts_with("policies/gate.rego:5:13: error[policy-syntax]:"),
        "{}",
        d.render(None)
    );
}

#[test]
fn a_missing_file_and_an_undeclared_package_are_located_in_the_config() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let err = compile(dir.path(), CONFIG).expect_err("no such file");
    let d = err.first();
    assert_eq!(
        (d.code.as_str(), d.file.as_str(), d.line, d.pointer.as_str()),
        ("policy-file", "h.yaml", 6, "/hooks/0/policy/rego/0"),
        "{err}"
    );

    let dir = workspace("package other\n\nx := 1\n");
    let err = compile(dir.path(), CONFIG).expect_err("wrong package");
    let d = err.first();
    assert_eq!(
        (d.code.as_str(), d.line, d.pointer.as_str()),
        ("policy-query", 7, "/hooks/0/policy/query"),
        "{err}"
    );
    assert!(d.message.contains("`other`"), "{}", d.message);

    // The package is declared but not the rule: every event would fail the
    // hook at run time, so it is a located error too.
    let dir = workspace("package agent.gate\n\nverdict := {\"decision\": \"allow\"}\n");
    let err = compile(dir.path(), CONFIG).expect_err("undefined rule");
    let d = err.first();
    assert_eq!(
        (d.code.as_str(), d.line, d.pointer.as_str()),
        ("policy-query", 7, "/hooks/0/policy/query"),
        "{err}"
    );
    assert!(d.message.contains("rule `decision`"), "{}", d.message);
    // A rule written as a path under a shorter package is defined.
    let dir = workspace("package agent\n\ngate.decision := {\"decision\": \"allow\"}\n");
    compile(dir.path(), CONFIG).expect("a rule head path defines the rule");
}

#[test]
fn the_body_is_checked_like_every_action() {
    let dir = tempfile::tempdir().expect("a temp dir");
    for (config, code) in [
        (
            CONFIG.replace("data.agent.gate.decision", "agent.gate"),
            "invalid-policy-query",
        ),
        (CONFIG.replace("[policies/gate.rego]", "[]"), "empty-list"),
        (
            CONFIG.replace("policies/gate.rego", "../gate.rego"),
            "policy-outside-workspace",
        ),
        (CONFIG.replace("query:", "qeury:"), "unknown-key"),
    ] {
        let err = compile(dir.path(), &config).expect_err(code);
        assert!(err.iter().any(|d| d.code == code), "{code}: {err}");
    }
}
