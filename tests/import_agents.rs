//! `agent-hooks import codex`, `import gemini` and `import copilot`: the
//! Claude Code importer reading another agent's hook file in that agent's
//! dialect (its event names and table, matcher syntax, handler keys,
//! timeout unit and default, script protocol), the CLI's warnings and exit
//! codes, and an imported Gemini CLI hook run for real by `agent-hooks test`.

#[path = "common/cli.rs"]
mod cli;

use std::process::{Command, Output};

use agent_hooks::import::claude::{Dialect, Import, ImportError, ImportOptions, import_with};
use hooks_schema::{
    Action, Config, Hook, OutcomeKind, Phase, Predicate, Program, Protocol, RegexPattern, Run,
    ToolPattern,
};
use serde_json::json;

/// `text` imported in `dialect`.
fn import(dialect: Dialect, text: &str) -> Import {
    import_with(text, "hooks.json", &ImportOptions::new(dialect)).expect("converts")
}

/// The YAML and the JSON rendering of `import`, each loaded as `check`
/// loads a config; they must agree.
fn load(import: &Import) -> Config {
    let parse = |text: &str| match hooks_schema::load_str(text, "out.yaml") {
        Ok(config) => config,
        Err(diags) => panic!(
            "the imported config does not check clean:\n{}\n--- config ---\n{text}",
            diags
                .iter()
                .map(|d| d.render(Some(text)))
                .collect::<Vec<_>>()
                .join("\n")
        ),
    };
    let config = parse(&import.to_yaml());
    assert_eq!(config, parse(&import.to_json()));
    config
}

fn run_of(hook: &Hook) -> &Run {
    match hook.action() {
        Action::Run(run) => run,
        other => panic!(
            "`{}`: expected a run action, found {}",
            hook.id,
            other.name()
        ),
    }
}

fn shell(hook: &Hook) -> &str {
    match &run_of(hook).program {
        Program::Shell(command) => command,
        other => panic!("`{}`: expected a shell command, found {other:?}", hook.id),
    }
}

fn timeout_ms(hook: &Hook) -> Option<u64> {
    run_of(hook).timeout.map(|t| t.as_millis())
}

fn regex(regex: &str) -> Vec<ToolPattern> {
    vec![ToolPattern::Regex(RegexPattern {
        regex: regex.into(),
    })]
}

/// The 1-based line of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| i + 1)
        .unwrap_or_else(|| panic!("`{needle}` is in the input"))
}

/// The warning about `path` (exactly one).
fn warning<'a>(import: &'a Import, path: &str) -> &'a agent_hooks::import::claude::Warning {
    let found: Vec<_> = import.warnings.iter().filter(|w| w.path == path).collect();
    assert_eq!(
        found.len(),
        1,
        "one warning on `{path}`: {:?}",
        import.warnings
    );
    found[0]
}

const CODEX: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash|apply_patch",
        "hooks": [
          { "type": "command", "command": "python3 .codex/hooks/guard.py", "timeout": 10, "statusMessage": "Checking the command" }
        ]
      },
      { "matcher": "mcp__my-server__.*", "hooks": [ { "type": "command", "command": "./mcp.sh", "commandWindows": "mcp.ps1" } ] }
    ],
    "PostToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "./review.sh" } ] } ],
    "SessionStart": [ { "matcher": "startup|resume", "hooks": [ { "type": "command", "command": "./context.sh" } ] } ],
    "Stop": [ { "hooks": [ { "type": "command", "command": "./stop.sh", "timeout": 30 } ] } ],
    "Notification": [ { "hooks": [ { "type": "command", "command": "notify-send done" } ] } ]
  }
}"#;

#[test]
fn codex_hooks_convert_with_protocol_codex_and_codex_defaults() {
    let import = import(Dialect::Codex, CODEX);
    let config = load(&import);
    let hooks = &config.hooks;
    assert_eq!(
        hooks.iter().map(|h| h.phase).collect::<Vec<_>>(),
        [
            Phase::BeforeTool,
            Phase::BeforeTool,
            Phase::AfterTool,
            Phase::RunStart,
            Phase::Stop
        ]
    );
    for hook in hooks {
        assert_eq!(run_of(hook).protocol, Protocol::Codex, "`{}`", hook.id);
    }
    let guard = &hooks[0];
    assert_eq!(
        guard.include_tools,
        [
            ToolPattern::Glob("Bash".into()),
            ToolPattern::Glob("apply_patch".into())
        ]
    );
    assert_eq!(timeout_ms(guard), Some(10_000));
    assert_eq!(guard.description.as_deref(), Some("Checking the command"));
    // A `-` makes a Codex matcher a regular expression, searched in the name.
    assert_eq!(hooks[1].include_tools, regex(".*mcp__my-server__.*"));
    // Codex's default timeout is 600 s.
    assert_eq!(timeout_ms(&hooks[1]), Some(600_000));
    assert_eq!(
        hooks[2].when,
        Some(Predicate::Outcome(OutcomeKind::Success)),
        "Codex reads Claude Code's `PostToolUse`"
    );
    assert_eq!(timeout_ms(&hooks[4]), Some(30_000));

    let notification = warning(&import, "hooks.Notification");
    assert_eq!(notification.line, Some(line_of(CODEX, "\"Notification\"")));
    assert!(
        notification.message.starts_with(
            "skipped 1 hook(s): Codex has no `Notification` event (its events: `SessionStart`,"
        ),
        "{}",
        notification.message
    );
    let windows = warning(&import, "hooks.PreToolUse[1].hooks[0]");
    assert_eq!(
        windows.message,
        "ignored key `commandWindows`: agent-hooks runs the Unix command"
    );
    let yaml = import.to_yaml();
    assert!(
        yaml.starts_with(
            "# Imported by `agent-hooks import codex` from Codex hooks in `hooks.json`."
        ),
        "{yaml}"
    );
}

const GEMINI: &str = r#"{
  "general": { "vimMode": true },
  "hooksConfig": { "disabled": ["legacy-audit"] },
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "run_shell_command|write_.*",
        "sequential": true,
        "hooks": [
          { "name": "Shell guard", "type": "command", "command": "./guard.sh", "timeout": 5000, "description": "Blocks destructive commands" }
        ]
      }
    ],
    "AfterTool": [ { "matcher": "*", "hooks": [ { "type": "command", "command": "./after.sh", "timeout": 1500 } ] } ],
    "BeforeAgent": [ { "hooks": [ { "type": "command", "command": "./prompt.sh" } ] } ],
    "AfterAgent": [
      { "hooks": [
        { "type": "command", "command": "./check-done.sh" },
        { "name": "legacy-audit", "type": "command", "command": "./audit.sh" }
      ] }
    ],
    "SessionStart": [
      { "matcher": "startup", "hooks": [ { "type": "command", "command": "./start.sh" } ] },
      { "matcher": "startup|resume", "hooks": [ { "type": "command", "command": "./never.sh" } ] }
    ],
    "PreCompress": [ { "matcher": "auto", "hooks": [ { "type": "command", "command": "./save.sh" } ] } ],
    "BeforeModel": [ { "hooks": [ { "type": "command", "command": "./model.sh" } ] } ],
    "AfterModel": [ { "hooks": [ { "type": "command", "command": "./redact.sh" } ] } ],
    "OnError": [ { "hooks": [ { "type": "command", "command": "./x.sh" } ] } ]
  }
}"#;

#[test]
fn gemini_settings_convert_through_gemini_clis_event_table() {
    let import = import(Dialect::Gemini, GEMINI);
    let config = load(&import);
    let hooks = &config.hooks;
    let phases: Vec<(&str, Phase)> = hooks.iter().map(|h| (h.id.as_str(), h.phase)).collect();
    assert_eq!(
        phases,
        [
            ("shell-guard-1", Phase::BeforeTool),
            ("after-tool-1", Phase::AfterTool),
            ("before-agent-1", Phase::UserPrompt),
            ("after-agent-1", Phase::Stop),
            ("session-start-1", Phase::RunStart),
            ("pre-compress-auto-1", Phase::BeforeCompaction),
            ("before-model-1", Phase::BeforeCompletion),
            ("after-model-1", Phase::AfterCompletion),
        ],
        "the hook's `name` is its id; `legacy-audit` is disabled"
    );
    for hook in hooks {
        assert_eq!(run_of(hook).protocol, Protocol::Gemini, "`{}`", hook.id);
    }
    // BeforeTool: a regular expression searched in Gemini CLI's tool names.
    let guard = &hooks[0];
    assert_eq!(
        guard.include_tools,
        regex(".*run_shell_command.*|.*write_.*")
    );
    assert_eq!(timeout_ms(guard), Some(5_000), "milliseconds");
    assert_eq!(
        guard.description.as_deref(),
        Some("Blocks destructive commands")
    );
    // AfterTool follows every outcome: no filter.
    assert_eq!(hooks[1].when, None);
    assert!(hooks[1].include_tools.is_empty());
    assert_eq!(timeout_ms(&hooks[1]), Some(1_500));
    assert_eq!(timeout_ms(&hooks[2]), Some(60_000), "Gemini CLI's default");
    assert_eq!(shell(&hooks[3]), "./check-done.sh");
    // Lifecycle matchers are exact strings: `startup|resume` matches no source.
    assert_eq!(shell(&hooks[4]), "./start.sh");
    let never = warning(&import, "hooks.SessionStart[1]");
    assert!(
        never
            .message
            .contains("does not accept the `startup` source"),
        "{}",
        never.message
    );
    assert_eq!(
        hooks[5].when,
        Some(Predicate::Arg {
            subject: None,
            pointer: String::new(),
            test: hooks_schema::ArgTest::Equals(json!("auto")),
        })
    );

    let model = warning(&import, "hooks.AfterModel");
    assert_eq!(model.line, Some(line_of(GEMINI, "\"AfterModel\"")));
    assert!(
        model.message.contains("every streamed chunk"),
        "{}",
        model.message
    );
    let disabled = warning(&import, "hooks.AfterAgent[0].hooks[1]");
    assert!(
        disabled.message.contains("`legacy-audit` is disabled"),
        "{}",
        disabled.message
    );
    let unknown = warning(&import, "hooks.OnError");
    assert_eq!(unknown.line, Some(line_of(GEMINI, "\"OnError\"")));
    assert!(
        unknown
            .message
            .starts_with("skipped 1 hook(s): Gemini CLI has no `OnError` event"),
        "{}",
        unknown.message
    );
    assert_eq!(import.warnings.len(), 4, "{:?}", import.warnings);
}

#[test]
fn gemini_tool_matchers_are_always_regular_expressions() {
    let settings = |matcher: &str| {
        json!({"hooks": {"BeforeTool": [{"matcher": matcher, "hooks": [{"type": "command", "command": "x"}]}]}})
            .to_string()
    };
    let tools = |matcher: &str| {
        let import = import(Dialect::Gemini, &settings(matcher));
        load(&import).hooks[0].include_tools.clone()
    };
    assert_eq!(tools("write_file"), regex(".*write_file.*"));
    assert_eq!(tools(" * "), Vec::new());
    assert_eq!(tools("^read_file$"), regex("read_file"));
    // The same name in a Claude Code file is an exact name.
    let import = import(
        Dialect::ClaudeCode,
        &settings("write_file").replace("BeforeTool", "PreToolUse"),
    );
    assert_eq!(
        load(&import).hooks[0].include_tools,
        [ToolPattern::Glob("write_file".into())]
    );
}

const COPILOT: &str = r#"{
  "version": 1,
  "hooks": {
    "preToolUse": [
      { "type": "command", "bash": "./scripts/guard.sh", "powershell": "./scripts/guard.ps1", "timeoutSec": 15 }
    ],
    "permissionRequest": [ { "type": "command", "bash": "./scripts/approve.sh", "matcher": "bash|edit" } ],
    "PreToolUse": [
      { "type": "command", "bash": "./scripts/claude-guard.sh", "powershell": "./scripts/claude-guard.ps1", "cwd": "tools", "env": { "GUARD_MODE": "strict" }, "timeoutSec": 20 }
    ],
    "Stop": [ { "type": "command", "bash": "./scripts/done.sh" } ],
    "ErrorOccurred": [ { "type": "command", "bash": "./scripts/report.sh" } ]
  }
}"#;

#[test]
fn copilot_pascal_case_events_convert_and_camel_case_ones_follow_the_protocol_constant() {
    let import = import(Dialect::CopilotCli, COPILOT);
    let config = load(&import);
    let converted: Vec<(&str, Phase, Protocol)> = config
        .hooks
        .iter()
        .map(|h| (shell(h), h.phase, run_of(h).protocol))
        .collect();
    let pascal = [
        (
            "./scripts/claude-guard.sh",
            Phase::BeforeTool,
            Protocol::Claude,
        ),
        ("./scripts/done.sh", Phase::Stop, Protocol::Claude),
        ("./scripts/report.sh", Phase::RunError, Protocol::Claude),
    ];
    let guard = config
        .hooks
        .iter()
        .find(|h| shell(h) == "./scripts/claude-guard.sh")
        .expect("the PascalCase `PreToolUse` converts");
    // `bash` is the command, `timeoutSec` the timeout, `cwd` and `env` kept.
    assert_eq!(timeout_ms(guard), Some(20_000));
    assert_eq!(run_of(guard).cwd.as_deref(), Some("tools"));
    assert_eq!(
        run_of(guard).env.set.get("GUARD_MODE").map(String::as_str),
        Some("strict")
    );
    let done = config
        .hooks
        .iter()
        .find(|h| shell(h) == "./scripts/done.sh")
        .expect("`Stop` converts");
    assert_eq!(timeout_ms(done), Some(30_000), "the Copilot CLI's default");
    let powershell = |path: &str| {
        import.warnings.iter().any(|w| {
            w.path == path
                && w.message == "ignored key `powershell`: agent-hooks runs the Unix command"
        })
    };
    assert!(powershell("hooks.PreToolUse[0]"), "{:?}", import.warnings);

    let protocol = Protocol::Copilot;
    let camel = [
        ("./scripts/guard.sh", Phase::BeforeTool, protocol),
        ("./scripts/approve.sh", Phase::PermissionRequest, protocol),
    ];
    assert_eq!(converted, [&camel[..], &pascal[..]].concat());
    assert_eq!(timeout_ms(&config.hooks[0]), Some(15_000));
    assert!(powershell("hooks.preToolUse[0]"), "{:?}", import.warnings);
    // The entry's own matcher, anchored.
    assert_eq!(config.hooks[1].include_tools, regex("(?:bash|edit)"));
    assert_eq!(import.warnings.len(), 2, "{:?}", import.warnings);
}

/// Runs `agent-hooks ARGS` in `dir`.
fn agent_hooks(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run agent-hooks")
}

#[test]
fn the_cli_warns_with_locations_and_keeps_the_exit_codes() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (agent, text) in [("codex", CODEX), ("gemini", GEMINI), ("copilot", COPILOT)] {
        let file = format!("{agent}.json");
        std::fs::write(dir.path().join(&file), text).expect("write");
        let out = agent_hooks(dir.path(), &["import", agent, &file]);
        assert_eq!(out.status.code(), Some(0), "{agent}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr
                .lines()
                .all(|l| l.starts_with(&format!("warning: {file}: line "))),
            "{agent}: {stderr}"
        );
        let yaml = String::from_utf8(out.stdout).expect("UTF-8");
        hooks_schema::load_str(&yaml, "stdout").expect("the output passes `check`");
        assert!(
            yaml.starts_with(&format!("# Imported by `agent-hooks import {agent}`")),
            "{yaml}"
        );
        // `-o` and `--format json`.
        let out = agent_hooks(
            dir.path(),
            &["import", agent, &file, "-o", "out.json", "--format", "json"],
        );
        assert_eq!(out.status.code(), Some(0), "{agent}: {out:?}");
        let json = std::fs::read_to_string(dir.path().join("out.json")).expect("written");
        hooks_schema::load_str(&json, "out.json").expect("the JSON passes `check`");
    }
    let line = line_of(GEMINI, "\"AfterModel\"");
    let out = agent_hooks(dir.path(), &["import", "gemini", "gemini.json"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&format!(
            "warning: gemini.json: line {line}: `hooks.AfterModel`: `AfterModel` converts with a difference"
        )),
        "{out:?}"
    );

    // Nothing convertible: exit 1, the reasons first.
    std::fs::write(
        dir.path().join("only.json"),
        r#"{"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "x"}]}]}}"#,
    )
    .expect("write");
    let out = agent_hooks(dir.path(), &["import", "codex", "only.json"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("warning: only.json: line 1: `hooks.Notification`: skipped 1 hook(s): Codex has no `Notification` event"),
        "{stderr}"
    );
    assert!(
        stderr.contains("error: cannot import `only.json`: no hook maps to agent-hooks"),
        "{stderr}"
    );
    let missing = agent_hooks(dir.path(), &["import", "gemini", "missing.json"]);
    assert_eq!(missing.status.code(), Some(2), "{missing:?}");
    // `--plugin-root` is Claude Code's alone.
    let usage = agent_hooks(
        dir.path(),
        &["import", "codex", "codex.json", "--plugin-root", "x"],
    );
    assert_eq!(usage.status.code(), Some(2), "{usage:?}");
}

#[test]
fn an_imported_gemini_hook_runs_with_gemini_clis_protocol() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("guard.sh"),
        "#!/bin/sh\nif grep -q 'rm -rf'; then echo '{\"decision\":\"deny\",\"reason\":\"nope\"}'; fi\n",
    )
    .expect("write the script");
    std::fs::write(
        dir.path().join("settings.json"),
        r#"{"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"name": "guard", "type": "command", "command": "sh guard.sh", "timeout": 5000}]}]}}"#,
    )
    .expect("write the settings");
    let out = agent_hooks(
        dir.path(),
        &["import", "gemini", "settings.json", "-o", "hooks.yaml"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");

    let event = |command: &str| json!({"phase": "before_tool", "tool_name": "run_shell_command", "call_id": "c1", "args": {"command": command}});
    let denied = cli::test_event(dir.path(), &event("rm -rf /"));
    assert_eq!(denied["verdict"]["decision"], "skip", "{denied}");
    assert_eq!(denied["verdict"]["reason"], "nope", "{denied}");
    assert_eq!(denied["fired"], json!(["guard-1"]), "{denied}");
    let allowed = cli::test_event(dir.path(), &event("ls"));
    assert_eq!(allowed["verdict"]["decision"], "run", "{allowed}");
    // Another tool is not matched.
    let other = json!({"phase": "before_tool", "tool_name": "read_file", "call_id": "c2", "args": {"command": "rm -rf /"}});
    let other = cli::test_event(dir.path(), &other);
    assert_eq!(other["verdict"]["decision"], "run", "{other}");
}

#[test]
fn nothing_convertible_names_every_reason() {
    let text = json!({"hooks": {"BeforeAgent": "not a list", "Unknown": []}}).to_string();
    let Err(ImportError::NothingConvertible { warnings }) =
        import_with(&text, "settings.json", &ImportOptions::new(Dialect::Gemini))
    else {
        panic!("nothing converts");
    };
    assert_eq!(warnings.len(), 2, "{warnings:?}");
}
