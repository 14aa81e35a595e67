//! `agent-hooks import claude`: what the source file says beyond events and
//! matchers — `onFailure`, the plugin root, `type: http` handlers — and the
//! layouts besides a settings file: a plugin `hooks.json` without the `hooks`
//! wrapper and VS Code / Copilot hook files (`.github/hooks/*.json`).

#[path = "common/claude.rs"]
mod claude;
#[path = "common/real.rs"]
mod real;

use std::process::Command;

use agent_hooks::import::claude::{Dialect, ImportOptions, import_str, import_with};
use claude::{fixture, load, root, run_of, settings};
use hooks_schema::{Action, FailurePolicy, HttpProtocol, Phase, Program};

#[test]
fn on_failure_block_fails_closed_where_the_phase_allows_it() {
    let text = settings(
        r#"{
  "PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "guard.sh", "onFailure": "block"},
    {"type": "command", "command": "log.sh", "onFailure": "continue"},
    {"type": "command", "command": "odd.sh", "onFailure": "explode"}
  ]}],
  "PostToolUse": [{"hooks": [
    {"type": "command", "command": "fmt.sh", "onFailure": "block"}
  ]}]
}"#,
    );
    let import = import_str(&text, "s.json").expect("imports");
    let config = load(&import.to_yaml(), "s.json");
    let policies: Vec<_> = config
        .hooks
        .iter()
        .map(|h| (h.phase, h.failure_policy))
        .collect();
    assert_eq!(
        policies,
        [
            (Phase::BeforeTool, Some(FailurePolicy::Block)),
            (Phase::BeforeTool, Some(FailurePolicy::Warn)),
            (Phase::BeforeTool, Some(FailurePolicy::Warn)),
            (Phase::AfterTool, Some(FailurePolicy::Warn)),
        ]
    );
    assert_eq!(config, load(&import.to_json(), "s.json"));
    // `continue` is the default: no warning. The unknown value and the
    // phase that cannot block are located on their `onFailure` key.
    let found: Vec<(&str, Option<usize>)> = import
        .warnings
        .iter()
        .map(|w| (w.path.as_str(), w.line))
        .collect();
    assert_eq!(
        found,
        [
            ("hooks.PreToolUse[0].hooks[2]", Some(5)),
            ("hooks.PostToolUse[0].hooks[0]", Some(8)),
        ]
    );
    assert!(import.warnings[0].message.contains("unknown `onFailure`"));
    assert!(
        import.warnings[1]
            .message
            .contains("has no equivalent on `after_tool`")
    );
}

#[test]
fn http_hooks_convert_to_http_actions_with_the_allowlisted_variables() {
    let text = settings(
        r#"{
  "PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "http", "url": "http://localhost:8080/hook", "timeout": 5,
     "headers": {"Authorization": "Bearer $TOKEN", "X-Other": "${OTHER}x"},
     "allowedEnvVars": ["TOKEN"]},
    {"type": "command", "command": "guard.sh"}
  ]}]
}"#,
    );
    let import = import_str(&text, "s.json").expect("both hooks import");
    assert_eq!(import.len(), 2);
    // `OTHER` is not allowlisted: Claude Code sends it empty, so does the hook.
    assert_eq!(import.warnings.len(), 1, "{:?}", import.warnings);
    let w = &import.warnings[0];
    assert_eq!(w.path, "hooks.PreToolUse[0].hooks[0]");
    assert!(w.message.contains("`OTHER`"), "{w}");
    let config = load(&import.to_yaml(), "s.json");
    let Action::Http(http) = config.hooks[0].action() else {
        panic!("not an http action: {:?}", config.hooks[0].action());
    };
    assert_eq!(http.url, "http://localhost:8080/hook");
    assert_eq!(http.protocol, HttpProtocol::Claude);
    assert_eq!(http.env, ["TOKEN"]);
    assert_eq!(http.headers["Authorization"], "Bearer ${TOKEN}");
    assert_eq!(http.headers["X-Other"], "x");
    assert_eq!(http.timeout.map(|t| t.as_millis()), Some(5000));
    // Claude Code's HTTP hook errors do not block.
    assert_eq!(config.failure_policy(&config.hooks[0]), FailurePolicy::Warn);
    assert!(matches!(config.hooks[1].action(), Action::Run(_)));
}

#[test]
fn a_plugin_hooks_json_without_the_wrapper_imports_like_a_wrapped_one() {
    let (name, text) = fixture("plugin-unwrapped/hooks/hooks.json");
    let import = import_str(&text, &name).expect("events at the top level import");
    let config = load(&import.to_yaml(), &name);
    assert_eq!(
        config.hooks.iter().map(|h| h.phase).collect::<Vec<_>>(),
        [
            Phase::RunStart,
            Phase::BeforeTool,
            Phase::BeforeTool,
            Phase::Stop
        ]
    );
    // The same file wrapped gives the same config.
    let wrapped = format!("{{\"hooks\": {text}}}");
    let from_wrapped = load(
        &import_str(&wrapped, &name).expect("imports").to_yaml(),
        &name,
    );
    assert_eq!(config, from_wrapped);
    // Warnings name the events without a `hooks.` prefix.
    assert!(
        import
            .warnings
            .iter()
            .all(|w| !w.path.starts_with("hooks.")),
        "{:?}",
        import.warnings
    );
    // Other top-level keys of such a file are not events.
    let text =
        r#"{"description": "x", "Stop": [{"hooks": [{"type": "command", "command": "done.sh"}]}]}"#;
    let import = import_str(text, "p.json").expect("imports");
    assert_eq!(import.len(), 1);
    assert!(import.warnings.is_empty(), "{:?}", import.warnings);
}

#[test]
fn plugin_root_is_written_into_env_set_or_named_in_a_warning() {
    let (name, text) = fixture("plugin-unwrapped/hooks/hooks.json");
    // Without it: the hooks that read it are named, and pass it through.
    let import = import_str(&text, &name).expect("imports");
    let w = import
        .warnings
        .iter()
        .find(|w| w.message.contains("CLAUDE_PLUGIN_ROOT"))
        .expect("a warning about the plugin root");
    for id in import.ids() {
        assert!(w.message.contains(&format!("`{id}`")), "{id}: {w}");
    }
    assert!(w.message.contains("--plugin-root"), "{w}");
    let config = load(&import.to_yaml(), &name);
    for hook in &config.hooks {
        let env = &run_of(hook).env;
        assert!(
            env.pass.iter().any(|v| v == "CLAUDE_PLUGIN_ROOT"),
            "{}",
            hook.id
        );
        assert!(env.set.is_empty());
    }

    // With it: every hook has it in `env.set`, none passes it, no warning.
    let options = ImportOptions::default().with_plugin_root("/opt/plugins/demo");
    let import = import_with(&text, &name, &options).expect("imports");
    assert!(
        import
            .warnings
            .iter()
            .all(|w| !w.message.contains("CLAUDE_PLUGIN_ROOT")),
        "{:?}",
        import.warnings
    );
    let config = load(&import.to_yaml(), &name);
    assert_eq!(config, load(&import.to_json(), &name));
    for hook in &config.hooks {
        let env = &run_of(hook).env;
        assert_eq!(
            env.set.get("CLAUDE_PLUGIN_ROOT").map(String::as_str),
            Some("/opt/plugins/demo"),
            "{}",
            hook.id
        );
        assert!(env.pass.iter().all(|v| v != "CLAUDE_PLUGIN_ROOT"));
    }
}

/// The imported hook really runs the plugin's script: the root reaches the
/// shell that expands `${CLAUDE_PLUGIN_ROOT}` (through `agent-hooks test`).
#[test]
fn an_imported_plugin_hook_finds_its_script_with_plugin_root() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let plugin = dir.path().join("plugin");
    std::fs::create_dir_all(&plugin).expect("creatable");
    std::fs::write(
        plugin.join("guard.sh"),
        "cat >/dev/null; echo 'plugin guard says no' >&2; exit 2\n",
    )
    .expect("writable");
    let settings = r#"{"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/guard.sh"}]}]}"#;
    let settings_path = dir.path().join("hooks.json");
    std::fs::write(&settings_path, settings).expect("writable");
    let out_path = dir.path().join("hooks.yaml");
    let bin = env!("CARGO_BIN_EXE_agent-hooks");
    let out = Command::new(bin)
        .current_dir(dir.path())
        .args(["import", "claude", "hooks.json", "--plugin-root"])
        .arg(&plugin)
        .args(["-o", "hooks.yaml"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out_path.is_file());
    let event = r#"{"phase":"before_tool","tool":"Bash","call_id":"c1","args":{"command":"ls"}}"#;
    std::fs::write(dir.path().join("event.json"), event).expect("writable");
    let out = Command::new(bin)
        .current_dir(dir.path())
        .args(["test", "hooks.yaml", "--event", "event.json"])
        .env_remove("CLAUDE_PLUGIN_ROOT")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("plugin guard says no"), "{stdout}\n{out:?}");
}

#[test]
fn vscode_hook_files_import_with_their_own_shape_and_defaults() {
    let file = "vscode/.github/hooks/guard.json";
    let (name, text) = fixture(file);
    assert_eq!(
        Dialect::from_path(std::path::Path::new(&name)),
        Dialect::VsCode
    );
    assert_eq!(
        Dialect::from_path(std::path::Path::new(".claude/settings.json")),
        Dialect::ClaudeCode
    );
    let import = import_with(&text, &name, &ImportOptions::new(Dialect::VsCode)).expect("imports");
    let config = load(&import.to_yaml(), &name);
    assert_eq!(config, load(&import.to_json(), &name));
    assert_eq!(
        config.hooks.iter().map(|h| h.phase).collect::<Vec<_>>(),
        [Phase::BeforeTool, Phase::AfterTool, Phase::RunStart]
    );
    let guard = run_of(&config.hooks[0]);
    assert_eq!(
        guard.program,
        Program::Shell("./scripts/guard-linux.sh".into()),
        "the Linux override wins"
    );
    assert_eq!(guard.cwd.as_deref(), Some("tools"));
    assert_eq!(
        guard.env.set.get("GUARD_MODE").map(String::as_str),
        Some("strict")
    );
    assert_eq!(guard.timeout.map(|t| t.as_millis()), Some(15_000));
    // VS Code's default timeout is 30 s, not Claude Code's 60 s.
    let fmt = run_of(&config.hooks[1]);
    assert_eq!(fmt.timeout.map(|t| t.as_millis()), Some(30_000));
    assert!(config.hooks[1].include_tools.is_empty());
    // `windows` is reported; nothing else is.
    assert_eq!(import.warnings.len(), 1, "{:?}", import.warnings);
    assert_eq!(import.warnings[0].path, "hooks.PreToolUse[0]");
    assert!(import.warnings[0].message.contains("`windows`"));

    // The CLI reads a file in `.github/hooks/` as a VS Code file.
    let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(root())
        .args(["import", "claude", &name])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let yaml = String::from_utf8(out.stdout).expect("UTF-8");
    assert_eq!(load(&yaml, "stdout"), config);
}

/// Every event of the event table in Claude Code's hooks reference.
const CLAUDE_CODE_EVENTS: [&str; 33] = [
    "SessionStart",
    "Setup",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "PreToolUse",
    "PermissionRequest",
    "PermissionDenied",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "MessageDisplay",
    "SubagentStart",
    "SubagentStop",
    "TaskCreated",
    "TaskCompleted",
    "Stop",
    "StopFailure",
    "TeammateIdle",
    "InstructionsLoaded",
    "ConfigChange",
    "CwdChanged",
    "DirectoryAdded",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "PreCompact",
    "PostCompact",
    "PreModelSwitch",
    "PostModelSwitch",
    "Elicitation",
    "ElicitationResult",
    "SessionEnd",
];

#[test]
fn every_claude_code_event_is_mapped_or_skipped_with_a_located_reason() {
    for event in CLAUDE_CODE_EVENTS {
        let text = settings(&format!(
            "{{\n  \"{event}\": [{{\"hooks\": [{{\"type\": \"command\", \"command\": \"h.sh\"}}]}}]\n}}"
        ));
        match import_str(&text, "s.json") {
            Ok(import) => {
                assert_eq!(import.len(), 1, "{event}");
                let config = load(&import.to_yaml(), "s.json");
                assert_eq!(config.hooks.len(), 1, "{event}");
            }
            Err(agent_hooks::import::claude::ImportError::NothingConvertible { warnings }) => {
                assert_eq!(warnings.len(), 1, "{event}: {warnings:?}");
                let w = &warnings[0];
                assert_eq!(w.path, format!("hooks.{event}"));
                assert_eq!(w.line, Some(2), "{event}: on the event's key");
                let reason = w
                    .message
                    .split_once(&format!("on `{event}`: "))
                    .map(|(_, r)| r)
                    .unwrap_or_else(|| panic!("{event}: no reason in `{}`", w.message));
                assert!(
                    !reason.is_empty() && !reason.contains("knows"),
                    "{event}: {reason}"
                );
            }
            Err(e) => panic!("{event}: {e}"),
        }
    }
}

#[test]
fn the_import_docs_list_every_claude_code_event() {
    let docs = std::fs::read_to_string(root().join("docs/import-claude.md")).expect("the docs");
    for event in CLAUDE_CODE_EVENTS {
        assert!(
            docs.lines()
                .any(|l| l.starts_with(&format!("| `{event}` |"))),
            "docs/import-claude.md has no table row for `{event}`"
        );
    }
}

#[test]
fn new_events_map_onto_their_phases_and_label_matchers_become_when() {
    let text = settings(
        r#"{
  "PermissionRequest": [{"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "p.sh", "onFailure": "block"}]}],
  "PostToolBatch": [{"hooks": [{"type": "command", "command": "b.sh"}]}],
  "Notification": [{"matcher": "permission_prompt|idle_prompt", "hooks": [{"type": "command", "command": "n.sh"}]}],
  "SubagentStart": [{"matcher": "^my-plugin:reviewer$", "hooks": [{"type": "command", "command": "s.sh"}]}],
  "SubagentStop": [{"matcher": "Explore", "hooks": [{"type": "command", "command": "t.sh"}]}],
  "PreCompact": [{"matcher": "manual, auto", "hooks": [{"type": "command", "command": "c.sh"}]}],
  "PostCompact": [{"matcher": "*", "hooks": [{"type": "command", "command": "d.sh"}]}]
}"#,
    );
    let import = import_str(&text, "s.json").expect("imports");
    assert!(import.warnings.is_empty(), "{:?}", import.warnings);
    let config = load(&import.to_yaml(), "s.json");
    assert_eq!(config, load(&import.to_json(), "s.json"));
    let got: Vec<(Phase, serde_json::Value)> = config
        .hooks
        .iter()
        .map(|h| (h.phase, serde_json::to_value(&h.when).expect("serializes")))
        .collect();
    let eq = |v: &str| serde_json::json!({"pointer": "", "equals": v});
    assert_eq!(
        got,
        [
            (Phase::PermissionRequest, serde_json::Value::Null),
            (Phase::AfterToolBatch, serde_json::Value::Null),
            (
                Phase::Notification,
                serde_json::json!({"any": [eq("permission_prompt"), eq("idle_prompt")]})
            ),
            (
                Phase::SubagentStart,
                serde_json::json!({"pointer": "", "matches": "^my-plugin:reviewer$"})
            ),
            (Phase::SubagentStop, eq("Explore")),
            (
                Phase::BeforeCompaction,
                serde_json::json!({"any": [eq("manual"), eq("auto")]})
            ),
            (Phase::AfterCompaction, serde_json::Value::Null),
        ]
    );
    // A permission request is a tool event: the matcher filters tools, and
    // `onFailure: "block"` fails closed there.
    let permission = &config.hooks[0];
    assert_eq!(permission.include_tools.len(), 2);
    assert_eq!(permission.failure_policy, Some(FailurePolicy::Block));
}

/// `PreModelSwitch` / `PostModelSwitch` become `before_model_select` /
/// `after_model_select`; their matcher (the model switched to) becomes a
/// `when` on the selection's `/to`, and the converted config checks.
#[test]
fn model_switch_events_map_onto_the_model_selection_phases() {
    let text = settings(
        r#"{
  "PreModelSwitch": [{"matcher": "claude-opus-4-1|opus", "hooks": [{"type": "command", "command": "gate.sh"}]}],
  "PostModelSwitch": [{"hooks": [{"type": "command", "command": "note.sh"}]}]
}"#,
    );
    let import = import_str(&text, "s.json").expect("imports");
    assert!(import.warnings.is_empty(), "{:?}", import.warnings);
    let config = load(&import.to_yaml(), "s.json");
    let got: Vec<(Phase, serde_json::Value)> = config
        .hooks
        .iter()
        .map(|h| (h.phase, serde_json::to_value(&h.when).expect("serializes")))
        .collect();
    let eq = |v: &str| serde_json::json!({"pointer": "/to", "equals": v});
    assert_eq!(
        got,
        [
            (
                Phase::BeforeModelSelect,
                serde_json::json!({"any": [eq("claude-opus-4-1"), eq("opus")]})
            ),
            (Phase::AfterModelSelect, serde_json::Value::Null),
        ]
    );
    assert_eq!(config.hooks[0].failure_policy, Some(FailurePolicy::Warn));
}
