//! `agent-hooks import claude`: how Claude Code matchers, timeouts, events
//! and failure behaviour become hooks, and which matchers are skipped
//! because they never fire in Claude Code.

#[path = "common/claude.rs"]
mod claude;
#[path = "common/real.rs"]
mod real;

use agent_hooks::import::claude::{ToolMatch, convert_matcher, import_str};
use claude::{command_of, fixture, load, real, real_settings_dir, run_of, settings};
use hooks_schema::{Mode, OutcomeKind, Phase, Predicate, Program, ToolPattern};

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
    assert!(fmt.background, "an async hook runs in the background");
    assert_eq!(fmt.mode, Mode::Enforce, "its context is delivered later");
    assert_eq!(fmt.when, Some(Predicate::Outcome(OutcomeKind::Success)));
    assert_eq!(log.phase, Phase::AfterTool);
    assert!(matches!(&log.when, Some(Predicate::Any(kinds)) if kinds.len() == 3));
    assert_eq!(
        run_of(stop).program,
        Program::Exec(vec!["bash".into(), "-c".into(), "[[ -n x ]]".into()])
    );
    assert_eq!(check.mode, Mode::Enforce);
    assert_eq!(
        check.when,
        Some(Predicate::Permission("Bash(git push:*)".into())),
        "the `if` filter becomes a `when`"
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

/// A matcher whose DFA would exceed the size limit is skipped with a
/// warning, like one that does not compile; the other groups still convert
/// and the output passes `check`.
#[test]
fn a_matcher_too_large_for_a_dfa_is_skipped_not_fatal() {
    let text = settings(
        r#"{"PreToolUse": [
            {"matcher": "[ab]*a[ab]{30}", "hooks": [{"type": "command", "command": "huge"}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "ok"}]}
        ]}"#,
    );
    let import = import_str(&text, "big.json").expect("the rest imports");
    let config = load(&import.to_yaml(), "big.yaml");
    assert_eq!(config.hooks.len(), 1, "{}", import.to_yaml());
    let messages: Vec<&str> = import.warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains("cannot compile") && messages[0].contains("size limit"),
        "{messages:?}"
    );
}

#[test]
fn async_hooks_run_in_the_background_except_where_the_run_ends() {
    let text = settings(
        r#"{
        "PostToolUse": [{"hooks": [{"type": "command", "command": "review", "asyncRewake": true}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "scan", "async": true, "onFailure": "block"}
        ]}],
        "SessionEnd": [{"hooks": [{"type": "command", "command": "upload", "async": true}]}]
    }"#,
    );
    let import = import_str(&text, "a.json").expect("imports");
    // It passes `check`: no decision, phase or failure policy a background
    // hook cannot have.
    let config = load(&import.to_yaml(), "a.yaml");
    let on = |phase| {
        config
            .hooks
            .iter()
            .find(|h| h.phase == phase)
            .expect("a hook of the phase")
    };
    assert!(on(Phase::AfterTool).background, "asyncRewake");
    let scan = on(Phase::BeforeTool);
    assert!(scan.background);
    assert_eq!(scan.failure_policy, Some(hooks_schema::FailurePolicy::Warn));
    assert!(!on(Phase::RunEnd).background, "run_end cancels them");
    let messages: Vec<&str> = import.warnings.iter().map(|w| w.message.as_str()).collect();
    for part in [
        "wakes no idle model",
        "cannot act on a background hook",
        "cancels a run's background hooks when the run ends",
    ] {
        assert!(
            messages.iter().any(|m| m.contains(part)),
            "{part}: {messages:?}"
        );
    }
}
