//! `agent-hooks import claude`: the project's own settings fixtures and the
//! shared corpus of real settings files, end to end.
//!
//! The project's own settings fixtures (`tests/fixtures/claude/`, written
//! here to reproduce the shapes real settings files have: `"// ..."`
//! pseudo-comment keys, odd matchers, plugin layouts, `async` hooks, long
//! inline commands, SessionStart matchers) are compared with exact expected
//! outputs in `tests/fixtures/claude/expected/`, and the CLI's exit codes
//! and outputs are asserted directly. Warnings and refusals are in
//! `import_claude_warnings.rs`, matchers, timeouts and events in
//! `import_claude_convert.rs`.
//!
//! When the shared corpus of real settings files (`../shared/real/` beside
//! the clone) is present, every file there imports into a config that
//! `check` accepts, with the recorded number of hooks and warnings, or is
//! refused for the recorded reason; without it those tests print that they
//! skipped.

#[path = "common/claude.rs"]
mod claude;
#[path = "common/real.rs"]
mod real;

use std::process::{Command, Output};

use agent_hooks::import::claude::{ImportError, import_str};
use claude::{
    Expected, FIXTURES, REAL, command_of, fixture, json_files, load, real, real_settings_dir, root,
    run_of,
};
use hooks_schema::{FailurePolicy, Protocol};
use serde_json::Value;

/// Every (event, command) of the command hooks in a settings file, in file order.
fn source_commands(text: &str) -> Vec<(String, String)> {
    let root: Value = serde_json::from_str(text).expect("fixtures are JSON");
    // A plugin `hooks.json` may have its events at the top level.
    let hooks = root
        .get("hooks")
        .unwrap_or(&root)
        .as_object()
        .expect("a hooks object");
    let mut events: Vec<(&String, &Value)> = hooks.iter().collect();
    events.sort_by_key(|(k, _)| text.find(&format!("\"{k}\"")).unwrap_or(usize::MAX));
    let mut out = Vec::new();
    for (event, groups) in events {
        for group in groups.as_array().into_iter().flatten() {
            for hook in group["hooks"].as_array().into_iter().flatten() {
                if hook["type"] == "command" {
                    out.push((
                        event.clone(),
                        hook["command"].as_str().expect("a command").to_owned(),
                    ));
                }
            }
        }
    }
    out
}

/// Imports `text` and checks what holds for every conversion: the YAML and
/// JSON outputs pass `check` and agree, the ids are the import's, and every
/// hook runs a command of the source (in order) with `protocol: claude`,
/// `failure_policy: warn` and a written-out timeout. Returns the import's
/// hook and warning counts.
fn check_conversion(name: &str, text: &str) -> (usize, usize) {
    let import = import_str(text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let yaml = import.to_yaml();
    assert!(yaml.starts_with("# Imported by `agent-hooks import claude`"));
    assert!(yaml.contains(name), "{name}: the header names the source");
    let config = load(&yaml, name);
    let from_json = load(&import.to_json(), name);
    assert_eq!(config, from_json, "{name}: YAML and JSON outputs agree");
    assert_eq!(config.hooks.len(), import.len());
    assert_eq!(
        config
            .hooks
            .iter()
            .map(|h| h.id.as_str())
            .collect::<Vec<_>>(),
        import.ids().collect::<Vec<_>>()
    );
    // Commands survive the trip byte for byte, in file order, as a
    // subsequence of the source's command hooks (skipped ones drop out).
    let source = source_commands(text);
    let mut cursor = source.iter();
    for hook in &config.hooks {
        let command = command_of(hook);
        assert!(
            cursor.any(|(_, c)| *c == command),
            "{name}: `{}` runs a command not found (in order) in the source",
            hook.id
        );
        let run = run_of(hook);
        assert_eq!(run.protocol, Protocol::Claude, "{name}: `{}`", hook.id);
        assert_eq!(hook.failure_policy, Some(FailurePolicy::Warn));
        assert!(run.timeout.is_some(), "{name}: timeouts are written out");
    }
    (import.len(), import.warnings.len())
}

#[test]
fn every_real_settings_file_imports_or_is_refused_as_recorded() {
    let Some(dir) = real_settings_dir() else {
        return;
    };
    let files: Vec<String> = json_files(&dir)
        .iter()
        .filter_map(|p| p.file_name()?.to_str().map(str::to_owned))
        .collect();
    assert_eq!(
        files,
        REAL.map(|(f, _)| f.to_owned()),
        "the shared settings files are the ones recorded here"
    );
    for (file, expected) in REAL {
        let (name, text) = real(&dir, file);
        match expected {
            Expected::Imported { hooks, warnings } => {
                assert_eq!(
                    check_conversion(&name, &text),
                    (hooks, warnings),
                    "{file}: (hooks, warnings)"
                );
            }
            Expected::Refused(reason) => {
                let err = import_str(&text, &name).expect_err(file);
                assert!(
                    err.to_string().starts_with(reason),
                    "{file}: refused with `{err}`, expected `{reason}...`"
                );
            }
        }
    }
}

#[test]
fn own_fixtures_import_and_check_clean() {
    for (file, expected) in [
        ("commented-settings.json", Some((5, 2))),
        ("mcp-and-sessions.json", Some((13, 7))),
        ("plugin/hooks/hooks.json", Some((6, 5))),
        ("only-unmapped.json", None),
        ("plugin-unwrapped/hooks/hooks.json", Some((4, 1))),
    ] {
        let (name, text) = fixture(file);
        match expected {
            Some(counts) => assert_eq!(check_conversion(&name, &text), counts, "{file}"),
            None => assert!(import_str(&text, &name).is_err(), "{file} is refused"),
        }
    }
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
}

fn import_cli(args: &[&str]) -> Output {
    bin()
        .current_dir(root())
        .args(["import", "claude"])
        .args(args)
        .output()
        .expect("the agent-hooks binary runs")
}

fn rel(file: &str) -> String {
    format!("tests/fixtures/claude/{file}")
}

#[test]
fn cli_exit_codes_and_outputs() {
    // 0: converted; the YAML on stdout checks clean, warnings on stderr.
    let out = import_cli(&[&rel("mcp-and-sessions.json")]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let yaml = String::from_utf8(out.stdout).expect("UTF-8");
    assert_eq!(load(&yaml, "stdout").hooks.len(), 13);
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(
        stderr.lines().all(|l| l.starts_with("warning: ")),
        "{stderr}"
    );
    assert!(
        stderr.contains("`hooks.SessionStart[1]`: skipped 1 hook(s)"),
        "{stderr}"
    );

    // -o and --format json; `check` accepts the written file.
    let dir = tempfile::tempdir().expect("a temp dir");
    let json_out = dir.path().join("out.json");
    let out = import_cli(&[
        &rel("plugin/hooks/hooks.json"),
        "-o",
        json_out.to_str().expect("UTF-8 path"),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.stdout.is_empty());
    let written = std::fs::read_to_string(&json_out).expect("written");
    let value: Value = serde_json::from_str(&written).expect("JSON output");
    assert_eq!(value["hooks"][0]["id"], "pre-tool-use-bash-1");
    assert_eq!(
        value["hooks"][0]["when"]["permission"],
        "Bash(git commit:*)"
    );
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(
        stderr.ends_with("(5 warning(s))\n") && stderr.contains("imported 6 hook(s)"),
        "{stderr}"
    );
    let check = bin()
        .args(["check", json_out.to_str().expect("UTF-8 path")])
        .output()
        .expect("runs");
    assert_eq!(check.status.code(), Some(0), "{check:?}");

    // 1: refused, with the reason on stderr.
    let out = import_cli(&[&rel("plugin-unwrapped/hooks/hooks.json")]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = import_cli(&["tests/fixtures/claude/no-hooks.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(stderr.starts_with("error: cannot import"), "{stderr}");
    assert!(stderr.contains("no top-level `hooks` key"));
    let out = import_cli(&[&rel("only-unmapped.json")]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(stderr.contains("warning: ") && stderr.contains("`TeammateIdle`"));
    assert!(stderr.contains("error: cannot import") && stderr.contains("no hook maps"));
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{ \"hooks\": ").expect("written");
    let out = import_cli(&[bad.to_str().expect("UTF-8 path")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid JSON at line 1"));

    // 2: I/O and usage errors.
    let out = import_cli(&["does-not-exist.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read `does-not-exist.json`"));
    let out = import_cli(&[]);
    assert_eq!(out.status.code(), Some(2));
    let out = import_cli(&[&rel("commented-settings.json"), "--format", "toml"]);
    assert_eq!(out.status.code(), Some(2));
    let out = import_cli(&[
        &rel("commented-settings.json"),
        "-o",
        dir.path()
            .join("missing-dir/out.yaml")
            .to_str()
            .expect("UTF-8 path"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write"));
}

#[test]
fn awkward_commands_survive_the_yaml_round_trip() {
    let commands = [
        "plain",
        "quotes \" and 'single' and \\ backslash",
        "  leading spaces",
        "trailing spaces  ",
        "colon: hash # and --- dashes",
        "---\n...\nmarkers at line starts",
        "multi\nline\n\n  indented\n\ttabbed",
        "ends with a newline\n",
        "ends with two newlines\n\n",
        "\nstarts with a newline",
        "crlf\r\nline",
        "trailing space on a line \nnext",
        "control \u{1} \u{7f} \u{85} \u{feff} \u{2028} chars",
        "unicode é 中文 🦀",
        "- looks like a list",
        "{looks: [like, flow]}",
        "@at `backtick` %percent &anchor *alias !tag |pipe >fold",
    ];
    let hooks: Vec<Value> = commands
        .iter()
        .map(|c| serde_json::json!({"type": "command", "command": c}))
        .collect();
    let text = serde_json::json!({"hooks": {"Stop": [{"hooks": hooks}]}}).to_string();
    let import = import_str(&text, "awkward.json").expect("imports");
    let yaml = import.to_yaml();
    let config = load(&yaml, "awkward.yaml");
    let got: Vec<String> = config.hooks.iter().map(command_of).collect();
    assert_eq!(got, commands, "\n{yaml}");
    let config = load(&import.to_json(), "awkward.json");
    assert_eq!(
        config.hooks.iter().map(command_of).collect::<Vec<_>>(),
        commands
    );
}

/// Expected outputs of the own fixtures: `tests/fixtures/claude/expected/<stem>.yaml`
/// (the config) and `<stem>.txt` (warnings and the refusal, as the CLI
/// prints them), `<stem>` being the fixture's path with `/` as `__`.
/// `UPDATE_EXPECTED=1` rewrites them; review the diff.
#[test]
fn imports_match_the_expected_outputs() {
    let expected_dir = root().join("tests/fixtures/claude/expected");
    let update = std::env::var_os("UPDATE_EXPECTED").is_some();
    let mut stale = Vec::new();
    for file in FIXTURES {
        let stem = file.trim_end_matches(".json").replace('/', "__");
        let (name, text) = fixture(file);
        let (yaml, report) = match import_str(&text, &name) {
            Ok(import) => {
                let report: Vec<String> = import
                    .warnings
                    .iter()
                    .map(|w| format!("warning: {name}: {w}"))
                    .collect();
                (Some(import.to_yaml()), report)
            }
            Err(err) => {
                let mut report = Vec::new();
                if let ImportError::NothingConvertible { warnings } = &err {
                    report.extend(warnings.iter().map(|w| format!("warning: {name}: {w}")));
                }
                report.push(format!("error: cannot import `{name}`: {err}"));
                (None, report)
            }
        };
        let mut outputs = vec![(format!("{stem}.txt"), report.join("\n") + "\n")];
        if let Some(yaml) = yaml {
            outputs.push((format!("{stem}.yaml"), yaml));
        }
        for (out, content) in outputs {
            let out_path = expected_dir.join(&out);
            if update {
                std::fs::create_dir_all(&expected_dir).expect("creatable");
                std::fs::write(&out_path, &content).expect("writable");
            } else if std::fs::read_to_string(&out_path).ok().as_deref() != Some(&content) {
                stale.push(out);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "outputs differ from tests/fixtures/claude/expected/ (rerun with UPDATE_EXPECTED=1 and review): {stale:?}"
    );
}

/// Every `if` filter of the real settings files converts (before issue 28
/// only `Bash(PREFIX:*)` did, as a `/command` pointer that on `after_tool`
/// read the result): each becomes a `permission` predicate, none is
/// dropped, and the security-guidance plugin's post-tool review hooks fire
/// on a matching `after_tool` call and only there.
#[test]
fn every_real_if_filter_converts_to_a_permission_rule_that_fires() {
    let Some(dir) = real_settings_dir() else {
        return;
    };
    let (mut filters, mut converted) = (0, 0);
    for (file, _) in REAL {
        let (name, text) = real(&dir, file);
        filters += text.matches("\"if\":").count();
        let Ok(import) = import_str(&text, &name) else {
            continue;
        };
        assert!(
            !import
                .warnings
                .iter()
                .any(|w| w.message.contains("`if` filter")),
            "{file}: an `if` filter was dropped"
        );
        let config = load(&import.to_yaml(), &name);
        converted += config
            .hooks
            .iter()
            .filter(|h| {
                let when = serde_json::to_string(&h.when).unwrap_or_default();
                when.contains("\"permission\"")
            })
            .count();
    }
    assert_eq!((filters, converted), (5, 5), "(`if` filters, converted)");

    let (name, text) = real(
        &dir,
        "anthropics__claude-plugins-official__security-guidance-hooks.json",
    );
    let yaml = import_str(&text, &name).expect("imports").to_yaml();
    let plan = hooks_schema::compile_str(&yaml, &name)
        .expect("compiles")
        .plan;
    let fired = |command: &str| -> Vec<String> {
        let args = serde_json::json!({ "command": command });
        let result = serde_json::json!({ "stdout": "", "stderr": "", "interrupted": false });
        let facts = hooks_schema::plan::Facts {
            phase: hooks_schema::Phase::AfterTool,
            tool: Some("Bash"),
            subject: hooks_schema::plan::Subject::Json(&result),
            args: Some(&args),
            outcome: Some(hooks_schema::OutcomeKind::Success),
            admission: None,
        };
        plan.matching(facts)
            .map(|p| plan.rules[p as usize].id.to_string())
            .collect()
    };
    assert_eq!(fired("git commit -m wip"), ["post-tool-use-bash-1"]);
    assert_eq!(
        fired("cd repo && GIT_EDITOR=true git push origin main"),
        ["post-tool-use-bash-2"]
    );
    assert_eq!(fired("gt submit --stack"), ["post-tool-use-bash-5"]);
    assert!(fired("git status").is_empty());
}
