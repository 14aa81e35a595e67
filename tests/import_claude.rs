//! `agent-hooks import claude`.
//!
//! The project's own settings fixtures (`tests/fixtures/claude/`, written
//! here to reproduce the shapes real settings files have: `"// ..."`
//! pseudo-comment keys, odd matchers, plugin layouts, `async` hooks, long
//! inline commands, SessionStart matchers) are compared with exact expected
//! outputs in `tests/fixtures/claude/expected/`; matchers, timeouts, events,
//! warning locations and the CLI's exit codes are asserted directly.
//!
//! When the shared corpus of real settings files (`../shared/real/` beside
//! the clone) is present, every file there imports into a config that
//! `check` accepts, with the recorded number of hooks and warnings, or is
//! refused for the recorded reason; without it those tests print that they
//! skipped.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use agent_hooks::import::claude::{ImportError, ToolMatch, convert_matcher, import_str};
use hooks_schema::{
    Action, Config, FailurePolicy, Mode, OutcomeKind, Phase, Predicate, Program, Protocol,
    ToolPattern,
};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The project's own settings fixtures, relative to `tests/fixtures/claude/`.
const FIXTURES: [&str; 5] = [
    "commented-settings.json",
    "mcp-and-sessions.json",
    "only-unmapped.json",
    "plugin/hooks/hooks.json",
    "plugin-unwrapped/hooks/hooks.json",
];

/// The name (relative to the workspace root, as the CLI is run) and text of
/// one of [`FIXTURES`].
fn fixture(file: &str) -> (String, String) {
    let name = format!("tests/fixtures/claude/{file}");
    let text = std::fs::read_to_string(root().join(&name)).expect("the fixture is readable");
    (name, text)
}

/// `../shared/real/claude-settings/`, the real settings files, if present;
/// otherwise a note on stderr naming the missing directory.
fn real_settings_dir() -> Option<PathBuf> {
    let dir = root().join("../shared/real/claude-settings");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipped: {} does not exist (the shared real-world inputs sit beside the clone)",
            dir.display()
        );
        None
    }
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a readable directory")
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

/// The display name and text of a real settings file.
fn real(dir: &Path, file: &str) -> (String, String) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).expect("the real settings file is readable");
    (path.display().to_string(), text)
}

/// What each real settings file gives: (hooks converted, warnings), or the
/// start of the refusal.
#[derive(Debug, Clone, Copy)]
enum Expected {
    Imported { hooks: usize, warnings: usize },
    Refused(&'static str),
}

const REAL: [(&str, Expected); 17] = {
    use Expected::{Imported, Refused};
    [
        (
            "ChrisWiles__claude-code-showcase__settings.json",
            Imported {
                hooks: 6,
                warnings: 0,
            },
        ),
        (
            "Dicklesworthstone__mcp_agent_mail__settings.json",
            Imported {
                hooks: 6,
                warnings: 0,
            },
        ),
        (
            "PostHog__posthog__settings.json",
            Imported {
                hooks: 3,
                warnings: 1,
            },
        ),
        (
            "affaan-m__everything-claude-code__hooks.json",
            Imported {
                hooks: 27,
                warnings: 11,
            },
        ),
        (
            "anthropics__claude-plugins-official__hookify-hooks.json",
            Imported {
                hooks: 4,
                warnings: 1,
            },
        ),
        (
            "anthropics__claude-plugins-official__security-guidance-hooks.json",
            Imported {
                hooks: 9,
                warnings: 7,
            },
        ),
        (
            "backnotprop__plannotator__hooks.json",
            Refused("no hook maps to agent-hooks (1 skipped"),
        ),
        (
            "carlrannaberg__claudekit__example-with-comments.json",
            Imported {
                hooks: 10,
                warnings: 2,
            },
        ),
        (
            "carlrannaberg__claudekit__settings.json",
            Imported {
                hooks: 15,
                warnings: 1,
            },
        ),
        (
            "karanb192__claude-code-hooks__nerf-receipts-hooks.json",
            Imported {
                hooks: 5,
                warnings: 5,
            },
        ),
        (
            "karanb192__claude-code-hooks__notify-permission-hooks.json",
            Refused("no hook maps to agent-hooks (1 skipped"),
        ),
        (
            "oven-sh__bun__settings.json",
            Imported {
                hooks: 2,
                warnings: 0,
            },
        ),
        (
            "ramirlm__ramir-cc-marketplace__hooks.json",
            Refused(
                "no top-level `hooks` key: the events `SessionStart`, `Notification`, `Stop`, `PreToolUse` sit at the top level",
            ),
        ),
        (
            "ruvnet__claude-flow__settings.json",
            Imported {
                hooks: 9,
                warnings: 6,
            },
        ),
        (
            "thedotmack__claude-mem__codex-hooks.json",
            Imported {
                hooks: 5,
                warnings: 7,
            },
        ),
        (
            "thedotmack__claude-mem__hooks.json",
            Imported {
                hooks: 6,
                warnings: 6,
            },
        ),
        (
            "yurukusa__claude-code-hooks__hooks.json",
            Imported {
                hooks: 14,
                warnings: 3,
            },
        ),
    ]
};

fn load(text: &str, name: &str) -> Config {
    match hooks_schema::load_str(text, name) {
        Ok(config) => config,
        Err(diags) => panic!(
            "{name}: the imported config does not check clean:\n{}\n--- config ---\n{text}",
            diags
                .iter()
                .map(|d| d.render(Some(text)))
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

fn run_of(hook: &hooks_schema::Hook) -> &hooks_schema::Run {
    match hook.action() {
        Action::Run(run) => run,
        other => panic!(
            "`{}`: expected a run action, found {}",
            hook.id,
            other.name()
        ),
    }
}

/// The command text a converted hook runs (shell form, or `bash -c` exec form).
fn command_of(hook: &hooks_schema::Hook) -> String {
    match &run_of(hook).program {
        Program::Shell(c) => c.clone(),
        Program::Exec(argv) => {
            assert_eq!(
                &argv[..2],
                ["bash", "-c"],
                "`{}`: exec form is `bash -c`",
                hook.id
            );
            argv[2].clone()
        }
    }
}

/// Every (event, command) of the command hooks in a settings file, in file order.
fn source_commands(text: &str) -> Vec<(String, String)> {
    let root: Value = serde_json::from_str(text).expect("fixtures are JSON");
    let hooks = root["hooks"].as_object().expect("a hooks object");
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
        ("mcp-and-sessions.json", Some((10, 10))),
        ("plugin/hooks/hooks.json", Some((6, 5))),
        ("only-unmapped.json", None),
        ("plugin-unwrapped/hooks/hooks.json", None),
    ] {
        let (name, text) = fixture(file);
        match expected {
            Some(counts) => assert_eq!(check_conversion(&name, &text), counts, "{file}"),
            None => assert!(import_str(&text, &name).is_err(), "{file} is refused"),
        }
    }
}

#[test]
fn refusals_name_the_precise_reason() {
    let (name, text) = fixture("plugin-unwrapped/hooks/hooks.json");
    let err = import_str(&text, &name).expect_err("events at the root are refused");
    assert_eq!(
        err,
        ImportError::NoHooksKey {
            root_events: ["SessionStart", "PreToolUse", "Stop"]
                .map(String::from)
                .to_vec()
        }
    );
    assert!(err.to_string().contains("no top-level `hooks` key"));
    assert!(err.to_string().contains("wrap them as"));

    let (name, text) = fixture("only-unmapped.json");
    let Err(ImportError::NothingConvertible { warnings }) = import_str(&text, &name) else {
        panic!("a file with only unmappable events has nothing to convert");
    };
    let found: Vec<(&str, Option<usize>)> =
        warnings.iter().map(|w| (w.path.as_str(), w.line)).collect();
    assert_eq!(
        found,
        [
            (
                "hooks.PermissionRequest",
                Some(key_line(&text, "PermissionRequest"))
            ),
            ("hooks.Notification", Some(key_line(&text, "Notification"))),
        ]
    );
    for (w, event) in warnings.iter().zip(["PermissionRequest", "Notification"]) {
        assert!(
            w.message
                .starts_with(&format!("skipped 1 hook(s) on `{event}`")),
            "{}",
            w.message
        );
    }

    if let Some(dir) = real_settings_dir() {
        for (file, event) in [
            ("backnotprop__plannotator__hooks.json", "PermissionRequest"),
            (
                "karanb192__claude-code-hooks__notify-permission-hooks.json",
                "Notification",
            ),
        ] {
            let (name, text) = real(&dir, file);
            let Err(ImportError::NothingConvertible { warnings }) = import_str(&text, &name) else {
                panic!("{file}: a file with only `{event}` hooks has nothing to convert");
            };
            assert_eq!(warnings.len(), 1, "{file}: {warnings:?}");
            assert_eq!(warnings[0].path, format!("hooks.{event}"));
            assert_eq!(warnings[0].line, Some(key_line(&text, event)));
        }
    }

    assert!(matches!(
        import_str("{\"hooks\": [", "x.json"),
        Err(ImportError::InvalidJson { line: 1, .. })
    ));
    assert_eq!(
        import_str("[]", "x.json").unwrap_err(),
        ImportError::NotAnObject { found: "an array" }
    );
    assert_eq!(
        import_str("{\"permissions\": {}}", "x.json").unwrap_err(),
        ImportError::NoHooksKey {
            root_events: vec![]
        }
    );
    assert_eq!(
        import_str("{\"hooks\": []}", "x.json").unwrap_err(),
        ImportError::HooksNotAnObject { found: "an array" }
    );
}

/// The 1-based line of `"key":` in `text`, found independently of the importer.
fn key_line(text: &str, key: &str) -> usize {
    let at = text
        .find(&format!("\"{key}\":"))
        .expect("the key is in the file");
    text[..at].matches('\n').count() + 1
}

/// Each `event` of the settings file is skipped with a warning on its key's line.
fn assert_events_warned(name: &str, text: &str, events: &[&str]) {
    let import = import_str(text, name).expect("the file imports");
    for event in events {
        let w = import
            .warnings
            .iter()
            .find(|w| w.path == format!("hooks.{event}"))
            .unwrap_or_else(|| panic!("{name}: no warning for `{event}`"));
        assert_eq!(w.line, Some(key_line(text, event)), "{name}: {w}");
        assert!(w.message.contains(&format!("on `{event}`")), "{name}: {w}");
        assert!(
            w.to_string()
                .starts_with(&format!("line {}:", key_line(text, event)))
        );
    }
    let config = load(&import.to_yaml(), name);
    assert!(config.hooks.iter().all(|h| matches!(
        h.phase,
        Phase::BeforeTool
            | Phase::AfterTool
            | Phase::UserPrompt
            | Phase::Stop
            | Phase::RunStart
            | Phase::RunEnd
    )));
}

#[test]
fn unmappable_events_are_warned_about_by_name_and_line() {
    let (name, text) = fixture("mcp-and-sessions.json");
    assert_events_warned(
        &name,
        &text,
        &["Notification", "PreCompact", "SubagentStop"],
    );
    let Some(dir) = real_settings_dir() else {
        return;
    };
    for (file, events) in [
        (
            "yurukusa__claude-code-hooks__hooks.json",
            &["Notification", "PreCompact"][..],
        ),
        (
            "ruvnet__claude-flow__settings.json",
            &["Notification", "SubagentStop"][..],
        ),
        (
            "carlrannaberg__claudekit__settings.json",
            &["SubagentStop"][..],
        ),
        ("thedotmack__claude-mem__hooks.json", &["Setup"][..]),
        (
            "affaan-m__everything-claude-code__hooks.json",
            &["PreCompact"][..],
        ),
    ] {
        let (name, text) = real(&dir, file);
        assert_events_warned(&name, &text, events);
    }
}

/// The 1-based line of the first occurrence of `needle` in `text`.
fn line_containing(text: &str, needle: &str) -> usize {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` is in the input"));
    text[..at].matches('\n').count() + 1
}

#[test]
fn warnings_are_located_on_the_entry_or_key_they_are_about() {
    // Each warned-about spot carries a unique marker, so its line is found
    // independently of the importer. The event key (line 3) is far from all
    // of them.
    let text = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "echo \"}]{[\" # first" },
          {
            "type": "command",
            "command": "true # second",
            "async": true
          },
          {
            "type": "command",
            "command": "true # third",
            "blocking": true,
            "timeout": 3600
          },
          {
            "type": "prompt",
            "prompt": "fourth"
          },
          "fifth"
        ]
      },
      {
        "matcher": "tools:Bash AND command:rm*",
        "hooks": [ { "type": "command", "command": "true # sixth" } ]
      },
      {
        "hooks": [ { "type": "command", "command": "true # seventh" } ],
        "colour": "red"
      },
      {"matcher": "Edit", "hooks": [{"type": "command", "command": "x", "shell": "zsh"}]}
    ],
    "Notific\u0061tion": [ { "hooks": [] } ]
  }
}"#;
    let import = import_str(text, "located.json").expect("imports");
    let line = |path: &str, needle: &str| {
        let found = import
            .warnings
            .iter()
            .find(|w| w.path == path && w.message.contains(needle))
            .unwrap_or_else(|| panic!("no `{needle}` warning on `{path}`: {:?}", import.warnings));
        found.line
    };
    let first_hook_line = line_containing(text, "# first");
    assert_eq!(
        line("hooks.PreToolUse[0].hooks[1]", "async"),
        Some(line_containing(text, "\"async\""))
    );
    assert_eq!(
        line("hooks.PreToolUse[0].hooks[2]", "`blocking`"),
        Some(line_containing(text, "\"blocking\""))
    );
    assert_eq!(
        line("hooks.PreToolUse[0].hooks[2]", "clamped"),
        Some(line_containing(text, "\"timeout\""))
    );
    assert_eq!(
        line("hooks.PreToolUse[0].hooks[3]", "prompt"),
        Some(line_containing(text, "\"type\": \"prompt\""))
    );
    // A non-object entry: its own line.
    assert_eq!(
        line("hooks.PreToolUse[0].hooks[4]", "expected a hook object"),
        Some(line_containing(text, "\"fifth\""))
    );
    assert_eq!(
        line("hooks.PreToolUse[1]", "requires `:`"),
        Some(line_containing(text, "tools:Bash"))
    );
    assert_eq!(
        line("hooks.PreToolUse[2]", "`colour`"),
        Some(line_containing(text, "\"colour\""))
    );
    // Several entries on one line (after a string full of brackets).
    assert_eq!(
        line("hooks.PreToolUse[3].hooks[0]", "zsh"),
        Some(line_containing(text, "\"zsh\""))
    );
    assert!(first_hook_line < line_containing(text, "\"zsh\""));
    // An event key written with an escape is found by its decoded name.
    assert_eq!(
        line("hooks.Notification", "notification"),
        Some(line_containing(text, "Notific"))
    );
    // Every line differs from the event's, which is where they all used to point.
    let event_line = line_containing(text, "\"PreToolUse\"");
    assert!(
        import
            .warnings
            .iter()
            .filter(|w| w.path.starts_with("hooks.PreToolUse"))
            .all(|w| w.line.is_some_and(|l| l > event_line)),
        "{:?}",
        import.warnings
    );
    // The rendered warning leads with the same line.
    let w = &import.warnings[0];
    assert!(
        w.to_string()
            .starts_with(&format!("line {}: `{}`", w.line.expect("located"), w.path))
    );

    // Minified JSON: everything is on line 1.
    let minified: Value = serde_json::from_str(text).expect("JSON");
    let import = import_str(&minified.to_string(), "minified.json").expect("imports");
    assert!(
        import.warnings.iter().all(|w| w.line == Some(1)),
        "{:?}",
        import.warnings
    );
}

/// Every located warning's line holds what it names: the key it is about,
/// the matcher of a group, the event's key, or the `{` of the entry.
fn assert_warnings_point_at_what_they_name(name: &str, text: &str) {
    let warnings = match import_str(text, name) {
        Ok(import) => import.warnings,
        Err(ImportError::NothingConvertible { warnings }) => warnings,
        Err(_) => return,
    };
    let lines: Vec<&str> = text.lines().collect();
    for w in &warnings {
        let Some(n) = w.line else {
            assert_eq!(w.path, "hooks", "{name}: {w}");
            continue;
        };
        let at = lines[n - 1];
        let expected = if let Some(key) = w.message.strip_prefix("ignored key `") {
            format!("\"{}\"", key.split('`').next().expect("a key"))
        } else if w.message.starts_with("`async: true`") {
            "\"async\"".to_owned()
        } else if w.message.starts_with("`asyncRewake: true`") {
            "\"asyncRewake\"".to_owned()
        } else if w.message.contains("`if` filter") {
            "\"if\"".to_owned()
        } else if w.message.contains("`timeout`") {
            "\"timeout\"".to_owned()
        } else if w.message.contains("`type: ") {
            "\"type\"".to_owned()
        } else if (w.message.contains("matcher") || w.message.contains("sources"))
            && w.path.ends_with(']')
        {
            "\"matcher\"".to_owned()
        } else if !w.path.contains('[') {
            format!("\"{}\"", w.path.trim_start_matches("hooks."))
        } else {
            "{".to_owned()
        };
        assert!(
            at.contains(&expected),
            "{name}: {w}: line {n} is `{at}`, expected {expected}"
        );
    }
}

#[test]
fn warnings_point_at_what_they_name_in_every_fixture() {
    for file in FIXTURES {
        let (name, text) = fixture(file);
        assert_warnings_point_at_what_they_name(&name, &text);
    }
    let Some(dir) = real_settings_dir() else {
        return;
    };
    for (file, _) in REAL {
        let (name, text) = real(&dir, file);
        assert_warnings_point_at_what_they_name(&name, &text);
    }
}

#[test]
fn matchers_that_never_fire_in_claude_code_are_skipped_with_the_reason() {
    let (name, text) = fixture("commented-settings.json");
    let import = import_str(&text, &name).expect("the rest imports");
    let skipped: Vec<_> = import
        .warnings
        .iter()
        .filter(|w| w.message.starts_with("skipped"))
        .collect();
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert_eq!(skipped[0].path, "hooks.PostToolUse[1]");
    assert!(skipped[0].message.contains("`Write,Edit,MultiEdit`"));
    assert!(skipped[0].message.contains("requires `,`"));
    assert_eq!(skipped[1].path, "hooks.PreToolUse[0]");
    assert!(skipped[1].message.contains("`tools:Bash AND command:rm*`"));
    assert!(skipped[1].message.contains("requires `:`"));
    // The `"// ..."` pseudo-comment keys are ignored, not reported.
    assert!(import.warnings.iter().all(|w| !w.message.contains("//")));
    let config = load(&import.to_yaml(), &name);
    // 3 PostToolUse hooks (one group skipped), 1 PreToolUse (one group
    // skipped), 1 Stop.
    assert_eq!(
        config.hooks.iter().map(|h| h.phase).collect::<Vec<_>>(),
        [
            Phase::AfterTool,
            Phase::AfterTool,
            Phase::AfterTool,
            Phase::BeforeTool,
            Phase::Stop
        ]
    );
    let notebook = config
        .hooks
        .iter()
        .find(|h| command_of(h).ends_with("check-notebook.sh"))
        .expect("the `Notebook.*` group converts");
    assert_eq!(
        notebook.include_tools,
        vec![ToolPattern::Regex(hooks_schema::RegexPattern {
            regex: ".*Notebook.*".into()
        })]
    );

    // SessionStart: `startup|resume` converts (with a note), `resume` alone
    // never starts a run here, `""` matches every source.
    let (name, text) = fixture("mcp-and-sessions.json");
    let import = import_str(&text, &name).expect("imports");
    let session: Vec<(&str, &str)> = import
        .warnings
        .iter()
        .filter(|w| w.path.starts_with("hooks.SessionStart"))
        .map(|w| (w.path.as_str(), w.message.as_str()))
        .collect();
    assert_eq!(session.len(), 2, "{session:?}");
    assert_eq!(session[0].0, "hooks.SessionStart[0]");
    assert!(session[0].1.contains("sources `resume` have no equivalent"));
    assert_eq!(session[1].0, "hooks.SessionStart[1]");
    assert!(
        session[1]
            .1
            .starts_with("skipped 1 hook(s): `SessionStart` matcher `resume`")
    );
    let config = load(&import.to_yaml(), &name);
    let starts = config
        .hooks
        .iter()
        .filter(|h| h.phase == Phase::RunStart)
        .count();
    assert_eq!(
        starts, 3,
        "SessionStart[0] and both hooks of SessionStart[2]"
    );

    let Some(dir) = real_settings_dir() else {
        return;
    };
    let (name, text) = real(&dir, "carlrannaberg__claudekit__example-with-comments.json");
    let import = import_str(&text, &name).expect("the rest imports");
    let skipped: Vec<&str> = import
        .warnings
        .iter()
        .filter(|w| w.message.starts_with("skipped"))
        .map(|w| w.path.as_str())
        .collect();
    assert_eq!(skipped, ["hooks.PostToolUse[2]", "hooks.PreToolUse[0]"]);
    assert_eq!(load(&import.to_yaml(), &name).hooks.len(), 10);
    let (name, text) = real(&dir, "PostHog__posthog__settings.json");
    let import = import_str(&text, &name).expect("imports");
    assert_eq!(import.warnings.len(), 1);
    assert_eq!(import.warnings[0].path, "hooks.SessionStart[1]");
    assert!(import.warnings[0].message.contains("matcher `resume`"));
    let config = load(&import.to_yaml(), &name);
    assert_eq!(
        config.hooks.iter().map(|h| h.phase).collect::<Vec<_>>(),
        [Phase::RunStart, Phase::AfterTool, Phase::AfterTool]
    );
}

#[test]
fn matcher_conversion() {
    let names = |n: &[&str]| ToolMatch::Names(n.iter().map(|s| s.to_string()).collect());
    assert_eq!(convert_matcher("Bash"), names(&["Bash"]));
    assert_eq!(convert_matcher("Edit|Write"), names(&["Edit", "Write"]));
    assert_eq!(
        convert_matcher("mcp__mcp-agent-mail__send_message"),
        names(&["mcp__mcp-agent-mail__send_message"])
    );
    assert_eq!(convert_matcher("*"), ToolMatch::All);
    assert_eq!(convert_matcher(""), ToolMatch::All);
    assert_eq!(convert_matcher(".*"), ToolMatch::All);

    // Regexes are searched in Claude Code: the anchored equivalent matches
    // the same names.
    let mcp = convert_matcher("mcp__.*");
    assert_eq!(mcp, ToolMatch::Regex(".*mcp__.*".into()));
    for (tool, expected) in [
        ("mcp__github__create_issue", true),
        ("x_mcp__y", true),
        ("Bash", false),
    ] {
        assert_eq!(mcp.matches(tool), expected, "mcp__.* vs {tool}");
    }
    let notebook = convert_matcher("Notebook.*");
    assert_eq!(notebook, ToolMatch::Regex(".*Notebook.*".into()));
    assert!(notebook.matches("NotebookEdit"));
    assert!(notebook.matches("MyNotebookTool"));
    assert!(!notebook.matches("Note"));
    let anchored = convert_matcher("^Bash$|^mcp__.+__(read|view|cat)(_file|_files)?$");
    assert_eq!(
        anchored,
        ToolMatch::Regex("Bash|mcp__.+__(read|view|cat)(_file|_files)?".into())
    );
    assert!(anchored.matches("Bash"));
    assert!(anchored.matches("mcp__fs__read_file"));
    assert!(!anchored.matches("BashOutput"));
    assert!(!anchored.matches("mcp__fs__write_file"));

    // A converted regex means the same thing once loaded into a config.
    let yaml = "version: 1\nhooks:\n  - id: a\n    phase: before_tool\n    include_tools: [{regex: \".*Notebook.*\"}]\n    block: {reason: r}\n";
    let config = load(yaml, "inline.yaml");
    let re = config.hooks[0].include_tools[0]
        .to_regex()
        .expect("the pattern compiles");
    assert_eq!(re, "^(?:.*Notebook.*)$");

    assert!(matches!(convert_matcher("Write,Edit"), ToolMatch::Never(m) if m.contains("`,`")));
    assert!(matches!(
        convert_matcher("(?=Bash)Bash"),
        ToolMatch::Unsupported(m) if m.contains("cannot compile")
    ));
}

fn settings(hooks: &str) -> String {
    format!("{{\"hooks\": {hooks}}}")
}

#[test]
fn timeouts_in_seconds_become_durations() {
    let text = settings(
        r#"{"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "a", "timeout": 30},
            {"type": "command", "command": "b"},
            {"type": "command", "command": "c", "timeout": 345600},
            {"type": "command", "command": "d", "timeout": 1.5},
            {"type": "command", "command": "e", "timeout": 0}
        ]}]}"#,
    );
    let import = import_str(&text, "t.json").expect("imports");
    let config = load(&import.to_yaml(), "t.yaml");
    let millis: Vec<u64> = config
        .hooks
        .iter()
        .map(|h| run_of(h).timeout.expect("written out").as_millis())
        .collect();
    assert_eq!(millis, [30_000, 60_000, 600_000, 1_500]);
    assert!(import.to_yaml().contains("timeout: 30s"));
    let messages: Vec<&str> = import.warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(messages[0].contains("345600 s is longer than agent-hooks' maximum"));
    assert!(messages[0].contains("clamped to `600s`"));
    assert_eq!(import.warnings[1].path, "hooks.PreToolUse[0].hooks[4]");
    assert!(messages[1].contains("positive number of seconds"));
}

#[test]
fn events_policies_and_unconvertible_hooks() {
    let text = settings(
        r#"{
        "PostToolUse": [{"matcher": "Edit", "hooks": [
            {"type": "command", "command": "fmt", "async": true},
            {"type": "prompt", "prompt": "judge this"}
        ]}],
        "PostToolUseFailure": [{"hooks": [{"type": "command", "command": "log"}]}],
        "Stop": [{"matcher": "*", "hooks": [{"type": "command", "shell": "bash", "command": "[[ -n x ]]"}]}],
        "SessionEnd": [{"matcher": "logout", "hooks": [{"type": "command", "command": "bye"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "check", "if": "Bash(git push:*)", "blocking": true},
            {"type": "command", "command": "other", "if": "Edit(*.ts)"}
        ]}]
    }"#,
    );
    let import = import_str(&text, "e.json").expect("imports");
    let config = load(&import.to_yaml(), "e.yaml");
    let ids: Vec<&str> = config.hooks.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "post-tool-use-edit-1",
            "post-tool-use-failure-1",
            "stop-1",
            "pre-tool-use-bash-1"
        ]
    );
    let [fmt, log, stop, check] = &config.hooks[..] else {
        panic!("four hooks");
    };
    assert_eq!(fmt.phase, Phase::AfterTool);
    assert_eq!(fmt.mode, Mode::Audit, "async hooks cannot affect the run");
    assert_eq!(fmt.when, Some(Predicate::Outcome(OutcomeKind::Success)));
    assert_eq!(log.phase, Phase::AfterTool);
    assert!(matches!(&log.when, Some(Predicate::Any(kinds)) if kinds.len() == 3));
    assert_eq!(
        run_of(stop).program,
        Program::Exec(vec!["bash".into(), "-c".into(), "[[ -n x ]]".into()])
    );
    assert_eq!(check.mode, Mode::Enforce);
    let Some(Predicate::Arg { pointer, test }) = &check.when else {
        panic!("the `if` filter becomes a `when`");
    };
    assert_eq!(pointer, "/command");
    assert_eq!(
        *test,
        hooks_schema::ArgTest::Matches("^git push(\\s|$)".into())
    );
    let warned = |path: &str, text: &str| {
        import
            .warnings
            .iter()
            .any(|w| w.path == path && w.message.contains(text))
    };
    assert!(warned("hooks.PostToolUse[0].hooks[0]", "`async: true`"));
    assert!(warned(
        "hooks.PostToolUse[0].hooks[1]",
        "`type: \"prompt\"`"
    ));
    assert!(warned("hooks.SessionEnd[0]", "matcher `logout`"));
    assert!(warned(
        "hooks.PreToolUse[0].hooks[0]",
        "ignored key `blocking`"
    ));
    assert!(warned(
        "hooks.PreToolUse[0].hooks[1]",
        "`if` filter \"Edit(*.ts)\""
    ));
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
    assert_eq!(load(&yaml, "stdout").hooks.len(), 10);
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(
        stderr.lines().all(|l| l.starts_with("warning: ")),
        "{stderr}"
    );
    assert!(stderr.contains("`hooks.Notification`: skipped 1 hook(s) on `Notification`"));

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
    assert_eq!(value["hooks"][0]["when"]["matches"], "^git commit(\\s|$)");
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
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(stderr.starts_with("error: cannot import"), "{stderr}");
    assert!(stderr.contains("no top-level `hooks` key"));
    let out = import_cli(&[&rel("only-unmapped.json")]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(stderr.contains("warning: ") && stderr.contains("`PermissionRequest`"));
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

#[test]
fn ignored_keys_are_reported_in_file_order() {
    // serde_json's maps are sorted; the warnings follow the file instead.
    let text = settings(
        r#"{"Stop": [{"zone": 1, "hooks": [
            {"type": "command", "command": "a", "zeta": 1, "blocking": true, "alpha": 2}
        ], "colour": "red"}]}"#,
    );
    let import = import_str(&text, "order.json").expect("imports");
    let keys: Vec<&str> = import
        .warnings
        .iter()
        .filter_map(|w| w.message.strip_prefix("ignored key `"))
        .filter_map(|m| m.split('`').next())
        .collect();
    assert_eq!(keys, ["zone", "colour", "zeta", "blocking", "alpha"]);
}
