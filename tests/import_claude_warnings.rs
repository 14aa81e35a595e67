//! `agent-hooks import claude`: what the importer warns about and refuses,
//! and where each warning points (the line of the key or entry it names),
//! in the project's fixtures, the shared corpus of real settings files
//! (when present beside the clone) and inline settings.

#[path = "common/claude.rs"]
mod claude;
#[path = "common/real.rs"]
mod real;

use agent_hooks::import::claude::{ImportError, import_str};
use claude::{FIXTURES, REAL, fixture, load, real, real_settings_dir, settings};
use hooks_schema::Phase;
use serde_json::Value;

#[test]
fn refusals_name_the_precise_reason() {
    let (name, text) = fixture("only-unmapped.json");
    let Err(ImportError::NothingConvertible { warnings }) = import_str(&text, &name) else {
        panic!("a file with only unmappable events has nothing to convert");
    };
    let found: Vec<(&str, Option<usize>)> =
        warnings.iter().map(|w| (w.path.as_str(), w.line)).collect();
    assert_eq!(
        found,
        [
            ("hooks.TeammateIdle", Some(key_line(&text, "TeammateIdle"))),
            ("hooks.ConfigChange", Some(key_line(&text, "ConfigChange"))),
        ]
    );
    for (w, event) in warnings.iter().zip(["TeammateIdle", "ConfigChange"]) {
        assert!(
            w.message
                .starts_with(&format!("skipped 1 hook(s) on `{event}`")),
            "{}",
            w.message
        );
    }

    // Real files that only had events without a phase before
    // (`PermissionRequest`, `Notification`) now convert onto the new phases.
    if let Some(dir) = real_settings_dir() {
        for (file, phase) in [
            (
                "backnotprop__plannotator__hooks.json",
                Phase::PermissionRequest,
            ),
            (
                "karanb192__claude-code-hooks__notify-permission-hooks.json",
                Phase::Notification,
            ),
        ] {
            let (name, text) = real(&dir, file);
            let import = import_str(&text, &name).unwrap_or_else(|e| panic!("{file}: {e}"));
            let config = load(&import.to_yaml(), &name);
            assert!(config.hooks.iter().all(|h| h.phase == phase), "{file}");
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
        ImportError::NoHooksKey
    );
    assert!(
        ImportError::NoHooksKey
            .to_string()
            .contains("no top-level `hooks` key")
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
            | Phase::PermissionRequest
            | Phase::AfterToolBatch
            | Phase::Notification
            | Phase::SubagentStart
            | Phase::SubagentStop
            | Phase::BeforeCompaction
            | Phase::AfterCompaction
    )));
}

#[test]
fn unmappable_events_are_warned_about_by_name_and_line() {
    let text = settings(
        r#"{
  "TeammateIdle": [{"hooks": [{"type": "command", "command": "a.sh"}]}],
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "b.sh"}]}],
  "WorktreeCreate": [{"hooks": [{"type": "command", "command": "c.sh"}]}],
  "Elicitation": [{"matcher": "github", "hooks": [{"type": "command", "command": "d.sh"}]}]
}"#,
    );
    assert_events_warned(
        "s.json",
        &text,
        &["TeammateIdle", "WorktreeCreate", "Elicitation"],
    );
    let Some(dir) = real_settings_dir() else {
        return;
    };
    let (name, text) = real(&dir, "thedotmack__claude-mem__hooks.json");
    assert_events_warned(&name, &text, &["Setup"]);
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
    "TaskCre\u0061ted": [ { "hooks": [] } ]
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
        line("hooks.TaskCreated", "task list"),
        Some(line_containing(text, "TaskCre"))
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
