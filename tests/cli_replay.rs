//! `agent-hooks replay`: Claude Code transcripts (the project's own in
//! `tests/fixtures/transcripts/`, and the real ones in `../shared/real/`
//! when present) through the reference config and through imported
//! configs, and exact counts on crafted sessions.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

#[path = "common/real.rs"]
mod real;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn replay(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(root())
        .arg("replay")
        .args(args)
        .output()
        .expect("run agent-hooks")
}

fn replay_json(config: &str, inputs: &[&str]) -> Value {
    let mut args = vec![config];
    args.extend_from_slice(inputs);
    args.extend_from_slice(&["--format", "json"]);
    let out = replay(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "replay {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("replay prints JSON")
}

/// How many times hook `id` fired in a `replay --format json` summary
/// (`by_hook` is a list of `{"hook": ID, "fired": N}`); 0 when it is not
/// listed.
fn fired(summary: &Value, id: &str) -> u64 {
    let list = summary["by_hook"].as_array().expect("by_hook is a list");
    list.iter()
        .find(|e| e["hook"] == id)
        .map_or(0, |e| e["fired"].as_u64().expect("a numeric count"))
}

/// The project's own Claude Code transcripts (`tests/fixtures/transcripts/`).
const OWN_TRANSCRIPTS: [&str; 2] = [
    "tests/fixtures/transcripts/agent-sidechain.jsonl",
    "tests/fixtures/transcripts/session.jsonl",
];

fn files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a readable directory")
        .map(|e| e.expect("a readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

/// The real transcripts (none without the shared inputs).
fn real_transcripts() -> Vec<PathBuf> {
    let Some(dir) = real::dir("transcripts") else {
        return Vec::new();
    };
    let files = files_with(&dir, "jsonl");
    assert_eq!(files.len(), 5, "the five shared transcripts");
    files
}

/// The own transcripts, then the real ones.
fn transcripts() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = OWN_TRANSCRIPTS.iter().map(|t| root().join(t)).collect();
    files.extend(real_transcripts());
    files
}

/// Imports `settings` with `agent-hooks import claude -o` into `dir`;
/// `None` when the importer refuses it.
fn import_into(dir: &Path, settings: &Path) -> Option<PathBuf> {
    let stem = settings
        .strip_prefix(root())
        .unwrap_or(settings)
        .display()
        .to_string()
        .replace(['/', '.'], "_");
    let out = dir.join(format!("{stem}.yaml"));
    let status = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(root())
        .args(["import", "claude"])
        .arg(settings)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("run agent-hooks import")
        .status;
    match status.code() {
        Some(0) => Some(out),
        Some(1) => None,
        other => panic!("import claude {}: exit {other:?}", settings.display()),
    }
}

/// Configs imported from the own settings fixtures and, when present, the
/// real settings files.
fn imported_configs(dir: &Path) -> Vec<PathBuf> {
    let mut settings: Vec<PathBuf> = [
        "tests/fixtures/claude/commented-settings.json",
        "tests/fixtures/claude/mcp-and-sessions.json",
        "tests/fixtures/claude/plugin/hooks/hooks.json",
    ]
    .iter()
    .map(|s| root().join(s))
    .collect();
    if let Some(real) = real::dir("claude-settings") {
        settings.extend(files_with(&real, "json"));
    }
    let configs: Vec<PathBuf> = settings
        .iter()
        .filter_map(|s| import_into(dir, s))
        .collect();
    assert!(configs.len() >= 3);
    configs
}

/// Counts, straight from the transcript's JSON, the `tool_use` items of
/// assistant records and those named `name`.
fn count_claude(path: &Path, name: &str) -> (u64, u64) {
    let text = std::fs::read_to_string(path).expect("fixture");
    let (mut all, mut named) = (0, 0);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).expect("fixture");
        if v["type"] != "assistant" {
            continue;
        }
        for item in v["message"]["content"].as_array().into_iter().flatten() {
            if item["type"] == "tool_use" {
                all += 1;
                if item["name"] == name {
                    named += 1;
                }
            }
        }
    }
    (all, named)
}

fn display(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

#[test]
fn every_transcript_replays_through_the_reference_config() {
    for t in transcripts() {
        let t = display(&t);
        let s = replay_json("examples/hooks.yaml", &[&t]);
        let (tool_uses, _) = count_claude(&root().join(&t), "");
        assert!(s["events"].as_u64().unwrap() > 0, "{t}: {s}");
        assert_eq!(s["by_phase"]["before_tool"], tool_uses, "{t}");
        assert_eq!(s["warnings"], 0, "{t}: {}", s["files"]);
        // Claude Code's tool names (`Bash`, `Read`) are not the reference
        // config's (`bash`, `read_file`): only the `*` audit logger fires,
        // once per tool result, and it is not executed without `--exec`.
        assert_eq!(s["by_hook"].as_array().unwrap().len(), 1, "{t}: {s}");
        assert_eq!(fired(&s, "audit-log"), s["by_phase"]["after_tool"], "{t}");
        assert_eq!(s["would_run"], s["hooks_fired"]);
        assert_eq!(s["executed"], 0);
        assert_eq!(s["blocked"], 0);
    }
}

#[test]
fn own_transcripts_replay_to_exact_counts() {
    // session.jsonl: 2 prompts (2 `isMeta` user records are not prompts),
    // 8 tool calls (Bash 3, Read, Glob, Edit 2, Task) and their 8 results,
    // 2 of them errors; 12 records carry no event (progress, system,
    // summary, queue-operation, file-history-snapshot, text-only replies).
    // agent-sidechain.jsonl (`isSidechain: true`): 1 prompt, 4 tool calls
    // (Bash 3, Read) and results, 1 error.
    for (t, prompts, calls, records, skipped) in [
        ("tests/fixtures/transcripts/session.jsonl", 2, 8, 28, 12),
        (
            "tests/fixtures/transcripts/agent-sidechain.jsonl",
            1,
            4,
            11,
            4,
        ),
    ] {
        let s = replay_json("examples/hooks.yaml", &[t]);
        assert_eq!(s["by_phase"]["user_prompt"], prompts, "{t}: {s}");
        assert_eq!(s["by_phase"]["before_tool"], calls, "{t}: {s}");
        assert_eq!(s["by_phase"]["after_tool"], calls, "{t}: {s}");
        assert_eq!(s["events"], prompts + 2 * calls, "{t}: {s}");
        assert_eq!(s["files"][0]["claude_records"], records, "{t}: {s}");
        assert_eq!(s["files"][0]["skipped"], skipped, "{t}: {s}");
        assert_eq!(s["warnings"], 0, "{t}: {s}");
    }
}

#[test]
fn tool_results_with_is_error_reach_only_the_failure_hooks() {
    // The plugin fixture's `PostToolUse` `*` hook runs after successes and
    // its `PostToolUseFailure` hook after failures.
    let dir = tempfile::tempdir().expect("tempdir");
    let config = import_into(
        dir.path(),
        &root().join("tests/fixtures/claude/plugin/hooks/hooks.json"),
    )
    .expect("the plugin fixture imports");
    let config = config.display().to_string();
    for (t, errors, calls) in [
        ("tests/fixtures/transcripts/session.jsonl", 2, 8),
        ("tests/fixtures/transcripts/agent-sidechain.jsonl", 1, 4),
    ] {
        let s = replay_json(&config, &[t]);
        assert_eq!(fired(&s, "post-tool-use-failure-1"), errors, "{t}: {s}");
        assert_eq!(fired(&s, "post-tool-use-1"), calls - errors, "{t}: {s}");
    }
}

#[test]
fn every_transcript_replays_through_every_imported_config() {
    let dir = tempfile::tempdir().expect("tempdir");
    let inputs: Vec<String> = transcripts().iter().map(|p| display(p)).collect();
    let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    let total_tool_uses: u64 = transcripts().iter().map(|t| count_claude(t, "").0).sum();
    for config in imported_configs(dir.path()) {
        let config = config.display().to_string();
        let s = replay_json(&config, &inputs);
        assert_eq!(s["files"].as_array().unwrap().len(), inputs.len());
        assert!(s["events"].as_u64().unwrap() > 0, "{config}");
        assert_eq!(s["by_phase"]["before_tool"], total_tool_uses, "{config}");
        assert_eq!(s["failures"], 0, "{config}: {s}");
        // Imported hooks are shell hooks: counted, never executed.
        assert_eq!(s["executed"], 0, "{config}");
        assert_eq!(s["would_run"], s["hooks_fired"], "{config}");
    }
}

#[test]
fn an_imported_bash_matcher_fires_once_per_bash_call() {
    // The commented settings fixture guards `Bash` in PreToolUse.
    let dir = tempfile::tempdir().expect("tempdir");
    let own = import_into(
        dir.path(),
        &root().join("tests/fixtures/claude/commented-settings.json"),
    )
    .expect("imports");
    for t in transcripts() {
        let (_, bash) = count_claude(&t, "Bash");
        let s = replay_json(&own.display().to_string(), &[&display(&t)]);
        assert_eq!(fired(&s, "pre-tool-use-bash-1"), bash, "{}", t.display());
    }
    let s = replay_json(&own.display().to_string(), &[OWN_TRANSCRIPTS[1]]);
    assert_eq!(fired(&s, "pre-tool-use-bash-1"), 3);

    // oven-sh/bun's settings guard `Bash` in PreToolUse.
    let (Some(settings), Some(transcripts)) =
        (real::dir("claude-settings"), real::dir("transcripts"))
    else {
        return;
    };
    let bun = import_into(dir.path(), &settings.join("oven-sh__bun__settings.json"))
        .expect("imports")
        .display()
        .to_string();
    let s = replay_json(
        &bun,
        &[&transcripts
            .join("DRMacIver__claude-reliability__python-to-rust-port.jsonl")
            .display()
            .to_string()],
    );
    assert_eq!(fired(&s, "pre-tool-use-bash-1"), 16);
}

#[test]
fn a_crafted_session_blocks_rewrites_injects_patches_and_terminates() {
    // The first tool events spell the tool's name `tool_name`, the later
    // ones `tool` (the older key): both read the same.
    let s = replay_json(
        "examples/hooks.yaml",
        &["tests/fixtures/events/session.jsonl"],
    );
    let expect = [
        ("events", 11),
        // `log-writes-in-background` among them: a dry run records it as not run.
        ("hooks_fired", 13),
        ("blocked", 1),
        ("rewritten", 1),
        ("injected", 1),
        ("patched", 1),
        ("terminated", 1),
        ("audited", 1),
        ("would_run", 7),
        ("executed", 0),
        ("suppressed", 1),
        ("warnings", 1),
        ("failures", 0),
    ];
    for (key, n) in expect {
        assert_eq!(s[key], n, "{key}: {s}");
    }
    assert_eq!(fired(&s, "block-rm-rf"), 1);
    assert_eq!(fired(&s, "audit-log"), 3);
    let warning = s["files"][0]["warnings"][0].as_str().unwrap();
    assert!(warning.starts_with("line 10: not JSON"), "{warning}");
}

#[test]
fn human_summary_names_the_numbers() {
    let out = replay(&["examples/hooks.yaml", "tests/fixtures/events/session.jsonl"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("replayed 11 events through `examples/hooks.yaml`"),
        "{text}"
    );
    assert!(
        text.contains("blocked: 1  rewritten: 1  injected: 1"),
        "{text}"
    );
    assert!(text.contains("shell hooks that would run: 7"), "{text}");
    // No progress bar when stderr is not a terminal.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn hooks_named_like_credentials_keep_their_counts() {
    // The summary passes through the redaction, which masks the values of
    // credential-like keys: hook ids are values, never keys.
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("hooks.yaml"),
        "version: 1\nhooks:\n  - id: secret\n    phase: after_tool\n    inject: { content: \"done\" }\n  - id: password\n    phase: before_tool\n    include_tools: [grep]\n    block: { reason: \"no\" }\n",
    )
    .expect("config");
    std::fs::write(
        dir.path().join("s.jsonl"),
        concat!(
            "{\"phase\":\"before_tool\",\"tool\":\"bash\",\"call_id\":\"a\"}\n",
            "{\"phase\":\"after_tool\",\"tool\":\"bash\",\"call_id\":\"a\"}\n",
            "{\"phase\":\"before_tool\",\"tool\":\"grep\",\"call_id\":\"b\"}\n",
            "{\"phase\":\"before_tool\",\"tool\":\"bash\",\"call_id\":\"c\"}\n",
            "{\"phase\":\"after_tool\",\"tool\":\"bash\",\"call_id\":\"c\"}\n",
        ),
    )
    .expect("session");
    let run = |format: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
            .current_dir(dir.path())
            .args(["replay", "hooks.yaml", "s.jsonl"])
            .args(format)
            .output()
            .expect("run agent-hooks");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8")
    };
    let s: Value = serde_json::from_str(&run(&["--format", "json"])).expect("JSON");
    assert_eq!(
        s["by_hook"],
        serde_json::json!([
            { "hook": "password", "fired": 1 },
            { "hook": "secret", "fired": 2 },
        ]),
        "{s}"
    );
    let text = run(&[]);
    assert!(text.contains("fired: `secret` (2 times)"), "{text}");
    assert!(text.contains("fired: `password` (1 time)"), "{text}");
    assert!(!text.contains("[REDACTED]"), "{text}");
}

#[test]
fn exec_runs_shell_hooks_for_real() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("hooks.yaml"),
        "version: 1\nhooks:\n  - id: deny-all\n    phase: before_tool\n    run: { command: \"echo no >&2; exit 2\" }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("s.jsonl"),
        "{\"phase\":\"before_tool\",\"tool\":\"bash\",\"call_id\":\"a\"}\n{\"phase\":\"after_tool\",\"tool\":\"bash\",\"call_id\":\"a\"}\n",
    )
    .unwrap();
    let run = |exec: bool| -> Value {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agent-hooks"));
        cmd.current_dir(dir.path())
            .args(["replay", "hooks.yaml", "s.jsonl", "--format", "json"]);
        if exec {
            cmd.arg("--exec");
        }
        let out = cmd.output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let dry = run(false);
    assert_eq!(
        (dry["would_run"].as_u64(), dry["blocked"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(dry["events"], 2);
    let wet = run(true);
    assert_eq!(
        (wet["executed"].as_u64(), wet["blocked"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(
        (wet["events"].as_u64(), wet["suppressed"].as_u64()),
        (Some(1), Some(1))
    );
    // The session directory is gone.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with(".agent-hooks-session-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn after_tool_sees_the_args_that_before_tool_rewrote() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("hooks.yaml"),
        r#"version: 1
hooks:
  - id: add-x
    phase: before_tool
    rewrite: [{op: set, pointer: /x, value: 1}]
  - id: saw-x
    phase: after_tool
    run:
      command: "grep -q '\"x\":1' && echo '{\"context_items\":[{\"role\":\"user\",\"content\":\"saw x\"}]}' || true"
"#,
    )
    .expect("write config");
    std::fs::write(
        dir.path().join("s.jsonl"),
        "{\"phase\":\"before_tool\",\"tool\":\"t\",\"call_id\":\"a\",\"args\":{\"y\":2}}\n{\"phase\":\"after_tool\",\"tool\":\"t\",\"call_id\":\"a\",\"args\":{\"y\":2}}\n{\"phase\":\"after_tool\",\"tool\":\"t\",\"call_id\":\"other\",\"args\":{\"y\":2}}\n",
    )
    .expect("write session");
    let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir.path())
        .args([
            "replay",
            "hooks.yaml",
            "s.jsonl",
            "--exec",
            "--format",
            "json",
        ])
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(s["rewritten"], 1, "{s}");
    assert_eq!(s["executed"], 2, "{s}");
    // Only the rewritten call's after_tool payload carries `"x":1`.
    assert_eq!(s["injected"], 1, "{s}");
    assert_eq!(s["failures"], 0, "{s}");
}

/// `replay --exec` names each failure: the hook, the kind and the message
/// (redacted), with how often it happened, not only a count.
#[test]
fn exec_failures_name_their_hook_kind_and_message() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("hooks.yaml"),
        "version: 1\nhooks:\n  - id: flaky\n    phase: before_tool\n    failure_policy: warn\n    run: { command: \"echo 'token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB went bad' >&2; exit 3\" }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("s.jsonl"),
        "{\"phase\":\"before_tool\",\"tool\":\"bash\",\"call_id\":\"a\"}\n{\"phase\":\"before_tool\",\"tool\":\"bash\",\"call_id\":\"b\"}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir.path())
        .args(["replay", "hooks.yaml", "s.jsonl", "--exec"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("failed: `flaky`"))
        .unwrap_or_else(|| panic!("no failure line: {text}"));
    assert!(line.contains("nonzero_exit (2 times)"), "{line}");
    assert!(line.contains("went bad"), "the message: {line}");
    assert!(!line.contains("ghp_0123"), "redacted: {line}");
}

#[test]
fn unreadable_input_exits_2_and_a_bad_config_exits_1() {
    let out = replay(&[
        "examples/hooks.yaml",
        "tests/fixtures/events/no-such-file.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot read `tests/fixtures/events/no-such-file.jsonl`"),
        "{err}"
    );
    let out = replay(&["no-such-config.yaml", "tests/fixtures/events/session.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "version: 1\nhooks:\n  - id: x\n    phase: befor_tool\n    block: {reason: r}\n",
    )
    .unwrap();
    let out = replay(&[bad.to_str().unwrap(), "tests/fixtures/events/session.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("befor_tool"));
}

#[test]
fn a_claude_transcript_gives_its_session_id_and_path_to_claude_scripts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("hooks.yaml"),
        "version: 1\nhooks:\n  - id: dump\n    phase: user_prompt\n    run: { command: \"cat > seen.json\", protocol: claude }\n",
    )
    .unwrap();
    let transcript = dir.path().join("abc-123.jsonl");
    std::fs::write(
        &transcript,
        r#"{"type":"user","sessionId":"abc-123","cwd":"/home/u/p","permissionMode":"acceptEdits","message":{"role":"user","content":"fix it"}}
"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir.path())
        .args([
            "replay",
            "hooks.yaml",
            "abc-123.jsonl",
            "--exec",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("seen.json")).unwrap())
            .unwrap();
    assert_eq!(seen["session_id"], "abc-123");
    assert_eq!(
        seen["transcript_path"],
        std::path::absolute(&transcript)
            .unwrap()
            .to_string_lossy()
            .as_ref()
    );
    assert_eq!(seen["cwd"], "/home/u/p");
    assert_eq!(seen["permission_mode"], "acceptEdits");
    assert_eq!(seen["prompt"], "fix it");
}
