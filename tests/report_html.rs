//! `replay --report` and `test --report`: the HTML session report.
//!
//! The page is checked as text (every event and hook present, decisions,
//! redaction, escaping, no network resource) and, when a Chromium binary
//! is on `PATH`, in headless Chromium: its DOM after the inline script ran
//! (the `#filter=` fragment hides the events that do not match), no console
//! message from the page, and a screenshot under `target/`. Without
//! Chromium the browser checks are skipped with a line on stderr, unless
//! `CI` is set: CI installs it (`.ci/run`).

#[path = "common/real.rs"]
mod real;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A key shaped like an OpenAI/Anthropic one: it must never reach the page.
const SECRET: &str = "sk-live0123456789abcdefghijklmnopqrstuv";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The session written here: the project's event fixture (tool calls that
/// are blocked, rewritten, injected, patched, terminated), then events
/// carrying a secret and text that looks like markup.
fn written_session(dir: &Path) -> PathBuf {
    let mut text = std::fs::read_to_string(root().join("tests/fixtures/events/session.jsonl"))
        .expect("read the event fixture");
    for event in [
        serde_json::json!({"phase": "user_prompt", "prompt": format!("deploy with {SECRET} <script>alert(1)</script>")}),
        serde_json::json!({"phase": "before_tool", "tool_name": "bash", "call_id": "s1",
            "args": {"command": format!("curl -H 'Authorization: Bearer {SECRET}' https://example.invalid/x"), "api_key": SECRET}}),
    ] {
        text.push_str(&event.to_string());
        text.push('\n');
    }
    let path = dir.join("session.jsonl");
    std::fs::write(&path, text).expect("write the session");
    path
}

/// Runs `agent-hooks ARGS` in the project root and asserts it exits 0;
/// returns its standard output.
fn agent_hooks(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(root())
        .args(args)
        .output()
        .expect("run agent-hooks");
    assert_eq!(
        out.status.code(),
        Some(0),
        "agent-hooks {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `replay CONFIG INPUT --report DIR/NAME`: the page, and the JSON summary
/// of the same replay.
fn replay_report(config: &Path, input: &Path, out: &Path) -> (String, Value) {
    let (config, input, page) = (display(config), display(input), display(out));
    agent_hooks(&["replay", &config, &input, "--report", &page]);
    let summary = agent_hooks(&["replay", &config, &input, "--format", "json"]);
    let html = std::fs::read_to_string(out).expect("read the report");
    (html, serde_json::from_str(&summary).expect("JSON summary"))
}

fn display(p: &Path) -> String {
    p.display().to_string()
}

/// The opening tags of the timeline's events, in order.
fn event_tags(html: &str) -> Vec<&str> {
    html.match_indices("<li class=\"event")
        .map(|(i, _)| {
            let end = html[i..].find('>').map_or(html.len(), |e| i + e + 1);
            &html[i..end]
        })
        .collect()
}

/// The value of attribute `name` in the opening tag `tag`.
fn attr<'t>(tag: &'t str, name: &str) -> Option<&'t str> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let len = tag[start..].find('"')?;
    Some(&tag[start..start + len])
}

/// The number of events, hooks consulted and fired ids of a replay's
/// JSON summary, with the events not replayed counted as events.
fn expected(summary: &Value) -> (usize, usize, Vec<String>) {
    let n = |key: &str| {
        usize::try_from(summary[key].as_u64().expect("a count")).expect("a small count")
    };
    let ids = summary["by_hook"]
        .as_array()
        .expect("by_hook")
        .iter()
        .map(|h| h["hook"].as_str().expect("hook id").to_owned())
        .collect();
    (n("events") + n("suppressed"), n("hooks_fired"), ids)
}

/// What every page must satisfy: the counts of the summary, no secret, no
/// network resource, one script (ours).
fn assert_complete_and_closed(html: &str, summary: &Value) {
    let (events, hooks, ids) = expected(summary);
    assert_eq!(event_tags(html).len(), events, "one <li> per event");
    assert_eq!(
        html.matches("<tr class=\"hook\"").count(),
        hooks,
        "one row per consulted hook"
    );
    for id in &ids {
        assert!(
            html.contains(&format!("<tr class=\"hook\" data-hook=\"{id}\"")),
            "hook `{id}` in the timeline"
        );
        assert!(
            html.contains(&format!("<tr data-hook=\"{id}\"><td><code>{id}</code>")),
            "hook `{id}` in the summary"
        );
    }
    for phase in summary["by_phase"].as_object().expect("by_phase").keys() {
        assert!(html.contains(&format!("data-phase=\"{phase}\"")), "{phase}");
    }
    assert!(!html.contains("sk-live"), "a secret reached the page");
    // Every `<` of a text is escaped: what starts with `<` is markup.
    for tag in html.split('<').skip(1) {
        let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
        for attribute in [" src=", " href=", " srcset=", " action=", " poster="] {
            assert!(!tag.contains(attribute), "`{attribute}` in <{tag}>");
        }
    }
    for element in ["<link", "<iframe", "<img", "<object", "<embed", "<base"] {
        assert!(!html.contains(element), "`{element}` in the page");
    }
    let style =
        &html[html.find("<style>").expect("<style>")..html.find("</style>").expect("</style>")];
    assert!(!style.contains("url(") && !style.contains("@import"));
    assert_eq!(html.matches("<script").count(), 1, "only the inline script");
    assert!(html.contains("Content-Security-Policy\" content=\"default-src 'none'"));
}

#[test]
fn a_written_session_shows_every_event_hook_and_decision_redacted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = written_session(dir.path());
    let (html, summary) = replay_report(
        &root().join("examples/hooks.yaml"),
        &session,
        &dir.path().join("report.html"),
    );
    assert_complete_and_closed(&html, &summary);
    let tags = event_tags(&html);
    let decisions: Vec<&str> = tags
        .iter()
        .map(|t| attr(t, "data-decision").expect("decision"))
        .collect();
    for decision in ["submit", "skip", "not_replayed", "run", "terminate", "stop"] {
        assert!(decisions.contains(&decision), "{decision} in {decisions:?}");
    }
    // What the hooks changed: the rewrite's before and after, the context,
    // the patch, the terminate's reason, latencies as bars.
    for shown in [
        "args rewritten",
        "&quot;max_bytes&quot;: 200000",
        "context injected",
        "request patch",
        "examples/hooks.yaml",
        "class=\"bar\" style=\"width:",
        "unusable",
    ] {
        assert!(
            html.contains(shown) || shown == "unusable" && html.contains("not JSON"),
            "`{shown}` in the page"
        );
    }
    // Markup in event text is text.
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    // No JavaScript needed for the summary: plain tables, filters hidden
    // until the script shows them.
    assert!(html.contains("<table id=\"by-phase\">"));
    assert!(html.contains("<form id=\"filters\" class=\"filters\" hidden>"));
}

#[test]
fn test_report_shows_the_event_its_hooks_and_records() {
    let dir = tempfile::tempdir().expect("tempdir");
    let page = dir.path().join("test.html");
    agent_hooks(&[
        "test",
        "examples/hooks.yaml",
        "--event",
        "tests/fixtures/events/rm_rf.json",
        "--report",
        &display(&page),
    ]);
    let html = std::fs::read_to_string(&page).expect("read the report");
    let tags = event_tags(&html);
    assert_eq!(tags.len(), 1);
    assert_eq!(attr(tags[0], "data-decision"), Some("skip"));
    assert!(html.contains("data-hook=\"block-rm-rf\""));
    assert!(html.contains("<summary>records ("), "the records are shown");
    assert!(!html.contains("src=") && !html.contains("href="));
}

#[test]
fn a_failing_hook_shows_its_failure_kind_policy_and_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("hooks.yaml"),
        "version: 1\nhooks:\n  - id: broken-gate\n    phase: before_tool\n    run:\n      command: \"echo token=hunter2secret >&2; exit 3\"\n",
    )
    .expect("write the config");
    let event =
        r#"{"phase":"before_tool","tool_name":"bash","call_id":"c1","args":{"command":"ls"}}"#;
    std::fs::write(dir.path().join("event.json"), event).expect("write the event");
    let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(dir.path())
        .args([
            "test",
            "hooks.yaml",
            "--event",
            "event.json",
            "--report",
            "f.html",
        ])
        .output()
        .expect("run agent-hooks");
    assert_eq!(out.status.code(), Some(0));
    let html = std::fs::read_to_string(dir.path().join("f.html")).expect("read the report");
    assert!(html.contains("<span class=\"failure\">nonzero_exit</span> <small>policy block"));
    assert!(html.contains("exited with code 3"));
    assert!(
        !html.contains("hunter2secret"),
        "the hook's stderr is redacted"
    );
}

#[test]
fn report_with_expect_is_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(root())
        .args([
            "test",
            "examples/hooks.yaml",
            "--expect",
            "examples/hooks.test.yaml",
            "--report",
            "x.html",
        ])
        .output()
        .expect("run agent-hooks");
    assert_eq!(out.status.code(), Some(2));
    assert!(!root().join("x.html").exists());
}

/// A report is never written over a file the command reads: a typo in
/// `--report` must not replace the transcript or the config.
#[test]
fn a_report_over_an_input_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = written_session(dir.path());
    let before = std::fs::read(&session).expect("read");
    for target in [&session, &root().join("examples/hooks.yaml")] {
        let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
            .current_dir(root())
            .args(["replay", "examples/hooks.yaml"])
            .arg(&session)
            .arg("--report")
            .arg(target)
            .output()
            .expect("run agent-hooks");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("which this command reads"), "{stderr}");
    }
    assert_eq!(std::fs::read(&session).expect("read"), before);
    let config = std::fs::read_to_string(root().join("examples/hooks.yaml")).expect("read");
    assert!(
        config.starts_with("# yaml-language-server"),
        "the config is intact"
    );
}

/// Bidirectional controls cannot reverse the page's text, and a secret in
/// a multi-line value is masked without eating the lines after it.
#[test]
fn bidi_controls_are_shown_and_redaction_keeps_the_next_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = dir.path().join("s.jsonl");
    let events = [
        serde_json::json!({"phase": "before_tool", "tool_name": "ba\u{202e}sh", "call_id": "b1", "args": {"command": "ls"}}),
        serde_json::json!({"phase": "after_tool", "tool_name": "read_file", "call_id": "b2", "args": {"path": "a"},
            "result": {"output": "password: hunter2hunter2\nline2 visible\nline3 visible"}, "outcome": "success"}),
    ];
    let text: String = events.iter().map(|e| format!("{e}\n")).collect();
    std::fs::write(&session, text).expect("write");
    let out = dir.path().join("r.html");
    replay_report(&root().join("examples/hooks.yaml"), &session, &out);
    let html = std::fs::read_to_string(&out).expect("report");
    assert!(!html.contains('\u{202e}'), "a raw bidi control");
    assert!(html.contains("ba\\u{202e}sh"), "shown as text");
    assert!(!html.contains("hunter2hunter2"));
    assert!(
        html.contains("line2 visible"),
        "the line after the secret is kept"
    );
}

// --- In headless Chromium -----------------------------------------------

/// A config for real Claude Code transcripts: shell calls are blocked (so
/// their results are not replayed), reads get a context item.
const REAL_CONFIG: &str = r#"version: 1
hooks:
  - id: no-shell
    phase: before_tool
    include_tools: [Bash]
    block:
      reason: "no shell commands while reviewing"
  - id: note-reads
    phase: after_tool
    include_tools: [Read]
    inject:
      content: "a file was read"
"#;

/// The real transcript the browser test loads.
const REAL_TRANSCRIPT: &str = "DRMacIver__claude-reliability__coverage-test-fix.jsonl";

/// The first of `chromium`, `chromium-browser` and `google-chrome` on
/// `PATH`. None: a failure when `CI` is set, else a skip line on stderr.
fn chromium(test: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file());
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set and no chromium, chromium-browser or google-chrome is on PATH (.ci/run installs it)"
        );
        let _ = writeln!(
            std::io::stderr(),
            "skipped browser checks in {test}: no chromium, chromium-browser or google-chrome on PATH"
        );
    }
    found
}

/// Runs headless Chromium on `url` with `args`, stdout and stderr to files
/// (no pipe to fill), killed after a minute; returns both.
fn headless(bin: &Path, profile: &Path, args: &[String], url: &str) -> (String, String) {
    let out_path = profile.join("stdout");
    let err_path = profile.join("stderr");
    let mut child = Command::new(bin)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!(
            "--user-data-dir={}",
            profile.join("profile").display()
        ))
        .args(args)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("stderr file"))
        .spawn()
        .expect("start chromium");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().expect("wait for chromium").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within a minute on {url}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let read = |p: &Path| std::fs::read_to_string(p).expect("chromium output");
    (read(&out_path), read(&err_path))
}

/// Lines of Chromium's log that come from the page: console messages
/// (the page logs none), uncaught errors, refused resources.
fn page_errors(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| {
            l.contains("Uncaught")
                || l.contains("Refused to")
                || l.contains(":CONSOLE") && l.contains("file://")
        })
        .collect()
}

/// Loads `page` with `fragment` in Chromium and checks, in the DOM after
/// the script ran, that exactly the events `keep` accepts (by their
/// opening tag in the page as written) are shown, the others hidden.
fn assert_filter(
    bin: &Path,
    work: &Path,
    page: &Path,
    fragment: &str,
    keep: impl Fn(&str) -> bool,
) {
    let html = std::fs::read_to_string(page).expect("read the report");
    let expected: Vec<bool> = event_tags(&html).into_iter().map(&keep).collect();
    assert!(
        expected.contains(&true),
        "{fragment}: the filter should keep some events"
    );
    let url = format!("file://{}{fragment}", page.display());
    let (dom, stderr) = headless(bin, work, &["--dump-dom".to_owned()], &url);
    let errors = page_errors(&stderr);
    assert!(errors.is_empty(), "{url}: {errors:#?}");
    let tags = event_tags(&dom);
    assert_eq!(tags.len(), expected.len(), "{url}: every event in the DOM");
    assert_eq!(
        dom.matches("<tr class=\"hook\"").count(),
        html.matches("<tr class=\"hook\"").count(),
        "{url}: every consulted hook in the DOM"
    );
    for (tag, keep) in tags.iter().zip(&expected) {
        let shown = attr(tag, "data-shown");
        assert_eq!(shown, Some(if *keep { "1" } else { "0" }), "{url}: {tag}");
        assert_eq!(tag.contains(" hidden"), !keep, "{url}: {tag}");
    }
    assert!(
        dom.contains("<form id=\"filters\" class=\"filters\">"),
        "{url}: the script shows the filters"
    );
}

/// The browser checks of one page: no filter, then one per kind.
fn check_in_browser(bin: &Path, work: &Path, page: &Path, hook: &str, decision: &str, phase: &str) {
    assert_filter(bin, work, page, "", |_| true);
    assert_filter(
        bin,
        work,
        page,
        &format!("#filter=decision:{decision}"),
        |t| attr(t, "data-decision") == Some(decision),
    );
    assert_filter(bin, work, page, &format!("?filter=phase:{phase}"), |t| {
        attr(t, "data-phase") == Some(phase)
    });
    // A hook filter keeps the events that consulted it: their sections
    // hold its row (checked on the page as written).
    let html = std::fs::read_to_string(page).expect("read the report");
    let with_hook: Vec<String> = html
        .split("<li class=\"event")
        .skip(1)
        .filter(|section| section.contains(&format!("data-hook=\"{hook}\"")))
        .map(|section| {
            format!(
                "<li class=\"event{}",
                &section[..section.find('>').unwrap_or(0) + 1]
            )
        })
        .collect();
    assert_filter(
        bin,
        work,
        page,
        &format!("#filter=hook:{hook},decision:{decision}"),
        |t| with_hook.iter().any(|w| w == t) && attr(t, "data-decision") == Some(decision),
    );
}

/// Saves a screenshot of `page` as `target/NAME`.
fn screenshot(bin: &Path, work: &Path, page: &Path, name: &str) {
    let shot = root().join("target").join(name);
    let _ = std::fs::remove_file(&shot);
    let args = [
        format!("--screenshot={}", shot.display()),
        "--window-size=1280,2000".to_owned(),
    ];
    let (_, stderr) = headless(bin, work, &args, &format!("file://{}", page.display()));
    let errors = page_errors(&stderr);
    assert!(errors.is_empty(), "{errors:#?}");
    let size = std::fs::metadata(&shot).map_or(0, |m| m.len());
    assert!(size > 1000, "no screenshot at {}", shot.display());
}

#[test]
fn the_written_session_in_chromium() {
    let Some(bin) = chromium("the_written_session_in_chromium") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let session = written_session(dir.path());
    let page = dir.path().join("report.html");
    replay_report(&root().join("examples/hooks.yaml"), &session, &page);
    check_in_browser(
        &bin,
        dir.path(),
        &page,
        "block-rm-rf",
        "skip",
        "before_tool",
    );
    screenshot(&bin, dir.path(), &page, "report-screenshot.png");
}

#[test]
fn a_real_transcript_in_chromium() {
    let real = real::dir("transcripts");
    let Some(bin) = chromium("a_real_transcript_in_chromium") else {
        return;
    };
    let Some(real) = real else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("review.yaml");
    std::fs::write(&config, REAL_CONFIG).expect("write the config");
    let page = dir.path().join("real.html");
    let (html, summary) = replay_report(&config, &real.join(REAL_TRANSCRIPT), &page);
    assert_complete_and_closed(&html, &summary);
    check_in_browser(&bin, dir.path(), &page, "no-shell", "skip", "after_tool");
    screenshot(&bin, dir.path(), &page, "report-screenshot-real.png");
}

/// A stack with a config in `mode: shadow` (docs/cli.md, *Shadow mode*):
/// the `shadow` filter keeps exactly the events it would change, or
/// exactly the others.
#[test]
fn the_shadow_filter_in_chromium() {
    let Some(bin) = chromium("the_shadow_filter_in_chromium") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, text: &str| {
        std::fs::write(dir.path().join(name), text).expect("write a file");
    };
    write(
        "a.yaml",
        "version: 1\nhooks:\n  - id: note-bash\n    phase: before_tool\n    include_tools: [bash]\n    inject: { content: \"bash ran\" }\n",
    );
    write(
        "b.yaml",
        "version: 1\nmode: shadow\nhooks:\n  - id: no-rm\n    phase: before_tool\n    include_tools: [bash]\n    when: { pointer: /command, matches: 'rm\\s+-rf' }\n    block: { reason: \"no rm -rf\" }\n",
    );
    write("stack.yaml", "stack: [a.yaml, b.yaml]\n");
    write(
        "session.jsonl",
        "{\"phase\":\"before_tool\",\"tool_name\":\"bash\",\"call_id\":\"c1\",\"args\":{\"command\":\"rm -rf /\"}}\n\
         {\"phase\":\"before_tool\",\"tool_name\":\"bash\",\"call_id\":\"c2\",\"args\":{\"command\":\"ls\"}}\n",
    );
    let page = dir.path().join("shadow.html");
    agent_hooks(&[
        "replay",
        "--stack",
        &display(&dir.path().join("stack.yaml")),
        &display(&dir.path().join("session.jsonl")),
        "--report",
        &display(&page),
    ]);
    assert_filter(&bin, dir.path(), &page, "#filter=shadow:change", |t| {
        attr(t, "data-shadow") == Some("change")
    });
    assert_filter(&bin, dir.path(), &page, "#filter=shadow:none", |t| {
        attr(t, "data-shadow") == Some("none")
    });
}
