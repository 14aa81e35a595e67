//! `agent-hooks check` and `agent-hooks schema` as a user runs them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn check(args: &[&str]) -> Output {
    bin()
        .current_dir(root())
        .arg("check")
        .args(args)
        .output()
        .expect("the agent-hooks binary runs")
}

fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = root().join("tests/fixtures/config").join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    files.sort();
    files
}

fn rel(path: &Path) -> String {
    path.strip_prefix(root())
        .expect("fixtures live under the package root")
        .display()
        .to_string()
}

#[test]
fn reference_config_is_clean() {
    let out = check(&["examples/hooks.yaml"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn valid_fixtures_exit_0() {
    let files = fixtures("valid");
    assert!(!files.is_empty());
    for file in files {
        let out = check(&[&rel(&file)]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

#[test]
fn every_invalid_fixture_exits_1_with_location_in_first_line() {
    let files = fixtures("invalid");
    assert!(files.len() >= 40, "only {} invalid fixtures", files.len());
    for file in files {
        let name = rel(&file);
        let out = check(&[&name]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{name}: {stdout}");
        let first = stdout.lines().next().unwrap_or_default();
        let located = regex_like_location(first, &name);
        assert!(
            located,
            "{name}: first line lacks `{name}:LINE:COL`: {first:?}"
        );
    }
}

/// Whether `line` contains `NAME:LINE:COL` with numeric LINE and COL.
fn regex_like_location(line: &str, name: &str) -> bool {
    line.match_indices(name).any(|(i, _)| {
        let rest = &line[i + name.len()..];
        let mut parts = rest.splitn(3, ':');
        let (Some(""), Some(l), Some(c)) = (parts.next(), parts.next(), parts.next()) else {
            return false;
        };
        let col: String = c.chars().take_while(char::is_ascii_digit).collect();
        !l.is_empty() && l.chars().all(|ch| ch.is_ascii_digit()) && !col.is_empty()
    })
}

#[test]
fn json_format_reports_every_diagnostic_with_location() {
    let files = fixtures("invalid");
    let three = files
        .iter()
        .find(|f| f.file_name().unwrap().to_string_lossy().contains("three"))
        .expect("an invalid fixture named *three* carrying three different errors");
    let out = check(&["--format", "json", &rel(three)]);
    assert_eq!(out.status.code(), Some(1));
    let reports: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let diags = reports[0]["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 3, "{diags:#?}");
    let mut messages: Vec<&str> = diags
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    messages.dedup();
    assert_eq!(
        messages.len(),
        3,
        "three different errors expected: {messages:?}"
    );
    for d in diags {
        assert!(d["line"].as_u64().unwrap() >= 1);
        assert!(d["column"].as_u64().unwrap() >= 1);
    }
}

#[test]
fn unreadable_file_is_exit_2() {
    let out = check(&["does/not/exist.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does/not/exist.yaml"));
}

#[test]
fn missing_arguments_is_a_usage_error() {
    let out = bin().arg("check").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = bin().arg("frobnicate").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn schema_command_prints_each_schema() {
    for (kind, committed) in [
        ("config", "schema/hooks.schema.json"),
        ("payload", "schema/payload.schema.json"),
        ("output", "schema/output.schema.json"),
    ] {
        let out = bin().args(["schema", kind]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{kind}");
        let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let on_disk: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root().join(committed)).unwrap())
                .unwrap();
        assert_eq!(
            printed, on_disk,
            "`agent-hooks schema {kind}` differs from {committed}"
        );
    }
}

/// Patterns that each fit a DFA but whose `include_tools` group does not
/// (it once was the lowering's `pattern-too-large`): the group is matched
/// by a lazily built automaton, so `check` passes and `test` decides each
/// tool name exactly.
#[test]
fn a_pattern_group_too_large_together_is_matched_lazily() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("group.yaml");
    std::fs::write(
        &config,
        "version: 1\nhooks:\n  - id: grp\n    phase: before_tool\n    include_tools: [{regex: \"[ab]*a[ab]{15}\"}, {regex: \"([ab]{5})*\"}, {regex: \"([ab]{7})*\"}, {regex: \"([ab]{11})*\"}, {regex: \"([ab]{13})*\"}]\n    block: {reason: r}\n",
    )
    .expect("write");
    let out = check(&[config.to_str().expect("utf-8 path")]);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    for (tool, blocked) in [
        ("aaaaa", true),
        ("aaaaaaa", true),
        ("aaaaaa", false),
        ("bash", false),
    ] {
        let event = dir.path().join("event.json");
        std::fs::write(
            &event,
            format!(r#"{{"phase":"before_tool","tool":"{tool}","call_id":"c","args":{{}}}}"#),
        )
        .expect("write");
        let out = bin()
            .current_dir(dir.path())
            .args([
                "test",
                "group.yaml",
                "--event",
                "event.json",
                "--format",
                "json",
            ])
            .output()
            .expect("runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{tool}: {stdout}");
        let report: serde_json::Value = serde_json::from_str(&stdout).expect("a JSON report");
        assert_eq!(
            report["verdict"]["decision"] == "skip",
            blocked,
            "{tool}: {stdout}"
        );
    }
}

/// The lint fixtures `tests/configs/lints/NAME.yaml`: `check` prints exactly
/// `NAME.expected` and exits 0 (warnings and notes pass), and 1 under
/// `--deny-warnings` when a warning is among them; each `NAME-ok.yaml` twin
/// is clean. Regenerate with `UPDATE_FIXTURES=1 cargo test --test cli_check
/// lint_fixtures` and review the diff.
#[test]
fn lint_fixtures_match_their_snapshots() {
    let dir = root().join("tests/configs/lints");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/configs/lints exists")
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    let update = std::env::var_os("UPDATE_FIXTURES").is_some();
    let mut stale = Vec::new();
    let (mut failing, mut twins) = (0, 0);
    for file in files {
        let name = rel(&file);
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let out = check(&[&name]);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(out.status.code(), Some(0), "{name}: {stdout}");
        let denied = check(&["--deny-warnings", &name]).status.code();
        if stem.ends_with("-ok") {
            twins += 1;
            assert_eq!(stdout, format!("{name}: ok\n"), "{name}: not clean");
            assert_eq!(denied, Some(0), "{name}");
            continue;
        }
        failing += 1;
        assert!(
            stdout.contains("warning[") || stdout.contains("note["),
            "{name}: {stdout}"
        );
        let warned = stdout.lines().any(|l| l.contains(": warning["));
        assert_eq!(denied, Some(if warned { 1 } else { 0 }), "{name}");
        let expected = file.with_extension("expected");
        if update {
            std::fs::write(&expected, &stdout).expect("the snapshot is writable");
        } else if std::fs::read_to_string(&expected).unwrap_or_default() != stdout {
            stale.push(format!("--- {name}\n{stdout}"));
        }
    }
    assert!(
        failing > 0 && failing == twins,
        "{failing} fixtures, {twins} twins"
    );
    assert!(
        stale.is_empty(),
        "lint output differs from the snapshots:\n{}",
        stale.join("\n")
    );
}

#[test]
fn json_output_carries_the_severity() {
    let out = check(&["--format", "json", "tests/configs/lints/shadowed-rule.yaml"]);
    assert_eq!(out.status.code(), Some(0));
    let reports: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("check prints JSON");
    assert_eq!(reports[0]["ok"], true);
    let first = &reports[0]["diagnostics"][0];
    assert_eq!(first["severity"], "warning");
    assert_eq!(first["code"], "shadowed-rule");
    assert_eq!(first["line"], 10);
    let denied = check(&[
        "--format",
        "json",
        "--deny-warnings",
        "tests/configs/lints/shadowed-rule.yaml",
    ]);
    assert_eq!(denied.status.code(), Some(1));
    let reports: serde_json::Value =
        serde_json::from_slice(&denied.stdout).expect("check prints JSON");
    assert_eq!(reports[0]["ok"], false);
}

/// `check --stack STACK.yaml`: an id defined in two configs of one stack
/// is an error located in the later file, naming the first (snapshot
/// `tests/configs/stack/project.expected`); checked alone, or with ids of
/// their own, the files are clean.
#[test]
fn stack_ids_are_unique_across_files() {
    let team = "tests/configs/stack/team.yaml";
    let out = check(&["--stack", "tests/configs/stack/stack.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let expected = std::fs::read_to_string(root().join("tests/configs/stack/project.expected"))
        .expect("the snapshot exists");
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    let alone = check(&[team, "tests/configs/stack/project.yaml"]);
    assert_eq!(alone.status.code(), Some(0));
    let twin = check(&["--stack", "tests/configs/stack/stack-ok.yaml"]);
    assert_eq!(
        twin.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&twin.stdout)
    );
}

/// A lower layer cannot redefine (or disable) a managed hook, nor call a
/// URL or read a header variable the managed layer does not allow: each
/// is an error located in the lower config, naming the managed one
/// (snapshot `tests/configs/stack/managed-stack.expected`; the stack file
/// puts `user.yaml` in the user layer).
#[test]
fn a_lower_layer_cannot_redefine_a_managed_hook_or_escape_its_allowlists() {
    let out = check(&["--stack", "tests/configs/stack/managed-stack.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let expected =
        std::fs::read_to_string(root().join("tests/configs/stack/managed-stack.expected"))
            .expect("the snapshot exists");
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    // Checked alone, neither file has an error.
    let alone = check(&[
        "tests/configs/stack/managed.yaml",
        "tests/configs/stack/user.yaml",
    ]);
    assert_eq!(alone.status.code(), Some(0));
}

/// Stack files are checked like configs: a missing `stack` list, an
/// unknown key, a config listed twice and an unknown layer are located
/// errors; a config declaring another layer than its entry gives is one
/// too, in the config.
#[test]
fn stack_files_have_located_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    };
    write("a.yaml", "version: 1\nlayer: user\nhooks: []\n");
    let bad = write(
        "bad.stack.yaml",
        "stack:\n  - a.yaml\n  - a.yaml\n  - { config: a.yaml, layer: admin }\nlayers: []\n",
    );
    let out = check(&["--stack", &bad]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    for expected in [
        "bad.stack.yaml:3:5: error[config-listed-twice]",
        "bad.stack.yaml:4:30: error[unknown-layer]",
        "bad.stack.yaml:5:1: error[unknown-key]",
    ] {
        assert!(text.contains(expected), "{expected} in:\n{text}");
    }
    let differs = write(
        "differs.stack.yaml",
        "stack:\n  - { config: a.yaml, layer: project }\n",
    );
    let out = check(&["--stack", &differs]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("a.yaml:2:8: error[layer-differs-from-stack]: this config declares layer `user`, its stack file gives `project`"),
        "{text}"
    );
    // A project config cannot promote itself to the managed layer: only a
    // stack file entry grants it.
    write("claims.yaml", "version: 1\nlayer: managed\nhooks: []\n");
    let claims = write("claims.stack.yaml", "stack:\n  - a.yaml\n  - claims.yaml\n");
    let out = check(&["--stack", &claims]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("claims.yaml:2:8: error[managed-not-granted]"),
        "{text}"
    );
    let granted = write(
        "granted.stack.yaml",
        "stack:\n  - a.yaml\n  - { config: claims.yaml, layer: managed }\n",
    );
    assert_eq!(check(&["--stack", &granted]).status.code(), Some(0));
    let empty = write("empty.stack.yaml", "stack: []\n");
    assert_eq!(check(&["--stack", &empty]).status.code(), Some(1));
    let missing = dir.path().join("missing.stack.yaml").display().to_string();
    assert_eq!(check(&["--stack", &missing]).status.code(), Some(2));
}

/// The summary line's level is the worst finding's: notes alone are a
/// `note:`, not a `warning:`, and each severity found is counted.
#[test]
fn the_summary_names_the_worst_level_and_counts_each_severity() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("hooks.yaml");
    std::fs::write(
        &config,
        "version: 1\nhooks:\n  - id: old\n    phase: before_tool\n    enabled: false\n    block: {reason: x}\n",
    )
    .expect("write config");
    let out = bin()
        .current_dir(dir.path())
        .args(["check", "hooks.yaml"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text.lines().last(), Some("note: 1 note"), "{text}");
    assert!(!text.contains("warning"), "{text}");

    // An error besides: one `error:` line counting both.
    std::fs::write(
        &config,
        "version: 1\nhooks:\n  - id: old\n    phase: before_tool\n    enabled: false\n    block: {reason: x}\n  - id: p\n    phase: before_tool\n    policy: {rego: [no-such.rego], query: data.x.y}\n",
    )
    .expect("write config");
    let out = bin()
        .current_dir(dir.path())
        .args(["check", "hooks.yaml"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(
        text.lines().last(),
        Some("error: 1 error, 1 note"),
        "{text}"
    );
    assert_eq!(text.matches("\nerror:").count(), 1, "{text}");
}

/// The reference config is clean: no error, warning or note (it uses every
/// key, a `policy` hook among them, and says why its disabled hooks stay).
#[test]
fn the_reference_config_checks_clean() {
    let out = check(&["--deny-warnings", "examples/hooks.yaml"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text, "examples/hooks.yaml: ok\n");
    assert!(
        std::fs::read_to_string(root().join("examples/hooks.yaml"))
            .expect("read")
            .contains("\n    policy:\n"),
        "the reference config has a `policy` hook"
    );
}
