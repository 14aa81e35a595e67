//! The main job: `examples/coding_agent/` runs its scripted session through
//! `examples/hooks.yaml` and shows a block, a rewrite, a patch, injected
//! context, an audited decision and a capped stop; the records file says the
//! same. The example's source is compiled into this test (the same `run`
//! its `main` calls), so no nested `cargo` is needed.
//!
//! Also: the embedding example of `docs/embedding.md` is the crate docs'
//! doctest.

#[allow(
    dead_code,
    reason = "the example's `main` and CLI parsing are not used here"
)]
#[path = "../examples/coding_agent/main.rs"]
mod coding_agent;

use serde_json::{Value, json};

fn run_agent() -> (String, coding_agent::Summary, Vec<Value>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let records = dir.path().join("records.jsonl");
    let options = coding_agent::Options {
        records: Some(records.clone()),
        ..Default::default()
    };
    let mut out = Vec::new();
    let summary = coding_agent::run(&options, &mut out).expect("the agent runs to completion");
    let transcript = String::from_utf8(out).expect("utf-8 transcript");
    let lines: Vec<Value> = std::fs::read_to_string(&records)
        .expect("records file")
        .lines()
        .map(|l| serde_json::from_str(l).expect("each record is one JSON line"))
        .collect();
    assert_eq!(summary.records_path, records);
    assert!(
        transcript.contains(&format!("  records           {}\n", records.display())),
        "the transcript names the records file: {transcript}"
    );
    (transcript, summary, lines)
}

/// The transcript lines of the event whose header contains `header`.
fn event<'t>(transcript: &'t str, header: &str) -> Vec<&'t str> {
    let mut lines = transcript.lines().skip_while(|l| !l.contains(header));
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("no event `{header}` in:\n{transcript}"));
    std::iter::once(first)
        .chain(lines.take_while(|l| l.starts_with("      ")))
        .collect()
}

fn has(lines: &[&str], needle: &str) -> bool {
    lines.iter().any(|l| l.contains(needle))
}

fn records_of<'r>(records: &'r [Value], hook: &str) -> Vec<&'r Value> {
    records.iter().filter(|r| r["hook_id"] == hook).collect()
}

#[test]
fn the_scripted_session_exercises_every_kind_of_hook() {
    let (t, summary, records) = run_agent();

    // A declarative block by argument match: the command never runs.
    let rm = event(&t, r#"before_tool bash {"command":"rm -rf build"}"#);
    assert!(
        has(&rm, "hook block-rm-rf") && has(&rm, "=> blocked: recursive forced deletes"),
        "{rm:#?}"
    );
    assert!(
        !has(&rm, "shell-guard"),
        "a declarative block stops the chain: {rm:#?}"
    );
    // A shell guard blocks with exit 2 (stderr is the reason).
    let curl = event(&t, "before_tool bash {\"command\":\"curl");
    assert!(
        has(&curl, "hook shell-guard") && has(&curl, "=> blocked: piping a download"),
        "{curl:#?}"
    );
    // A Claude Code protocol script denies sudo.
    let sudo = event(&t, "before_tool bash {\"command\":\"sudo");
    assert!(
        has(&sudo, "hook no-sudo") && has(&sudo, "=> blocked: sudo is not allowed"),
        "{sudo:#?}"
    );
    assert_eq!(summary.blocked, 3);

    // An args rewrite: `cap-reads` sets max_bytes and removes encoding.
    let read = event(&t, "before_tool read_file");
    // (Key order is serde_json's: sorted, or insertion order when a
    // dependency turns on `preserve_order`.)
    let rewritten = read
        .iter()
        .find_map(|l| l.trim().strip_prefix("=> rewritten args: "))
        .map(|json| serde_json::from_str::<Value>(json).expect("the args are JSON"));
    assert_eq!(
        rewritten,
        Some(json!({"max_bytes": 200000, "path": "README.md"})),
        "{read:#?}"
    );
    assert_eq!(summary.rewritten, 1);

    // A before_completion patch on every request, shown field by field once.
    assert!(t.contains("=> patched temperature 1.0 -> 0.2"), "{t}");
    assert!(t.contains("=> patched max_tokens 1024 -> 4096"), "{t}");
    assert!(t.contains("=> patched top_p = 0.9"), "{t}");
    assert!(
        t.contains("history: 24 of 25 messages kept"),
        "keep_last trims: {t}"
    );
    assert!(summary.patched >= 5);

    // Context injected by the shell hook after a write, naming the file.
    let write = event(&t, "after_tool write_file");
    assert!(has(&write, "hook remind-tests-after-write"), "{write:#?}");
    assert!(
        has(
            &write,
            r#"=> context for the model: "You changed src/greet.sh. Run the tests"#
        ),
        "{write:#?}"
    );
    // ... and by a declarative rule on the timed-out command.
    let timeout = event(&t, "after_tool bash (timeout)");
    assert!(
        has(&timeout, "hook explain-timeouts") && has(&timeout, "The command timed out"),
        "{timeout:#?}"
    );
    assert!(summary.injected >= 2);

    // The audit-mode rule records a would-be block; the write proceeds.
    let env = event(&t, r#"write_file {"path":"config/.env""#);
    assert!(
        has(&env, "hook trial-no-dotenv-writes") && has(&env, "audited: would `skip`"),
        "{env:#?}"
    );
    assert!(has(&env, "=> ran write_file: success"), "{env:#?}");
    assert_eq!(summary.audited, 1);
    let audited = records_of(&records, "trial-no-dotenv-writes");
    assert_eq!(audited.len(), 1);
    assert_eq!(audited[0]["status"], "audited");
    assert_eq!(audited[0]["decision"], "skip");

    // The stop hook resumes while the task list has lines, up to the cap
    // (`limits.max_stop_resumes_per_turn: 3`), then the agent stops.
    assert_eq!(summary.resumes, 3);
    assert_eq!(summary.capped_stops, 1);
    assert!(t.contains("=> stop: capped"), "{t}");
    // The cap is the runtime's decision: at the cap the stop hook is not
    // run (no record, no report), and the diagnostic says why.
    let capped = event(&t, "stop (resumed 3 time(s) so far)");
    assert!(
        has(
            &capped,
            "diagnostic: the agent already resumed 3 time(s) in this user turn; the cap is 3: stopping without running the stop hooks"
        ) && has(
            &capped,
            "=> stop: capped (3 resume(s) in this turn, the cap is 3: the stop hooks were not run)"
        ),
        "{capped:#?}"
    );
    let stops = records_of(&records, "finish-the-todo-list");
    let statuses: Vec<&str> = stops
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    // One record per stop that ran the hook: the three resumes granted.
    assert_eq!(statuses, ["decision", "decision", "decision"]);

    // The audit logger ran after every tool call and wrote one line each.
    let audit_runs = records_of(&records, "audit-log");
    assert_eq!(audit_runs.len() as u32, summary.tools_run);
    assert!(
        audit_runs.iter().all(|r| r["status"] == "ok"),
        "{audit_runs:?}"
    );
    assert_eq!(summary.audit_log_lines as u32, summary.tools_run);

    // Every consulted rule has a report; shell hooks carry measured timings
    // (each spawns a process: well over a millisecond in all); records
    // never carry command text.
    let hook_records = records.iter().filter(|r| r["record"] == "hook").count();
    assert_eq!(summary.hooks_fired as usize, hook_records);
    assert!(
        summary.hook_time >= std::time::Duration::from_millis(10),
        "{summary:?}"
    );
    assert_eq!(summary.failures, 0, "{t}");
    assert!(
        records
            .iter()
            .filter(|r| r["record"] == "hook")
            .all(|r| r["elapsed_ms"].is_u64())
    );
    let raw = serde_json::to_string(&records).unwrap();
    assert!(
        !raw.contains("rm -rf build") && !raw.contains("curl -fsSL"),
        "records hold no command text"
    );
    // In-process rules are recorded by the table, with their reasons.
    let blocked = records_of(&records, "block-rm-rf");
    assert_eq!(blocked.len(), 1, "{blocked:?}");
    assert_eq!(blocked[0]["status"], "decision");
    assert_eq!(blocked[0]["decision"], "skip");
    assert_eq!(blocked[0]["elapsed_ms"], 0);
    assert!(
        blocked[0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("recursive forced deletes")),
        "{blocked:?}"
    );
    assert!(t.contains("summary\n"), "{t}");
}

/// The embedding example of `docs/embedding.md` is the facade's crate-doc
/// doctest, so the chapter shows code that compiles and passes.
#[test]
fn the_embedding_chapter_example_is_the_crate_doctest() {
    let root = env!("CARGO_MANIFEST_DIR");
    let chapter = std::fs::read_to_string(format!("{root}/docs/embedding.md")).unwrap();
    let lib = std::fs::read_to_string(format!("{root}/src/lib.rs")).unwrap();
    let section = chapter
        .split("## Embedding `hooks!` in your own agent loop")
        .nth(1)
        .expect("docs/embedding.md has the embedding section");
    let code = section
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("a rust code block in the section");
    let docs: String = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(code.lines().count() > 10, "{code}");
    assert!(
        docs.contains(code),
        "docs/embedding.md's example differs from the crate doctest:\n{code}"
    );
}

/// `hooks!` names the config as the package root sees it, so the locations
/// in its diagnostics (and the table's source) resolve from the crate root.
#[test]
fn the_table_is_named_by_its_path_from_the_package_root() {
    assert_eq!(
        coding_agent::ExampleHooks::table().source(),
        "examples/hooks.yaml"
    );
}
