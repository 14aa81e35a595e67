//! `agent-hooks explain`: the first failed condition of every rule.

use std::path::Path;

use serde_json::Value;

#[path = "common/cli.rs"]
mod cli;

/// `explain --all` (every rule, of every phase) as JSON.
fn explain(event: &str) -> Value {
    cli::json(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &[
            "explain",
            "examples/hooks.yaml",
            "--event",
            event,
            "--all",
            "--format",
            "json",
        ],
    )
}

fn rule<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no rule `{id}`"))
}

#[test]
fn names_the_failed_leaf_the_tool_filter_and_the_phase() {
    let r = explain("tests/fixtures/events/ls.json");
    assert_eq!(r["phase"], "before_tool");
    let guard = rule(&r, "shell-guard");
    assert_eq!(guard["matches"], true);
    assert!(guard.get("failed").is_none());

    let block = &rule(&r, "block-rm-rf")["failed"];
    assert_eq!(block["condition"], "when");
    assert_eq!(block["pointer"], "/command");
    let msg = block["message"].as_str().unwrap();
    assert!(msg.starts_with("`when` leaf at pointer `/command` failed: value \"ls\", expected a string matching regex `\\brm"), "{msg}");

    let sudo = &rule(&r, "no-sudo")["failed"]["message"];
    assert!(
        sudo.as_str().unwrap()
            == "`when` permission rule `Bash(sudo *)` does not match the tool call (its simple commands: `ls`)",
        "{sudo}"
    );

    let reads = &rule(&r, "cap-reads")["failed"];
    assert_eq!(reads["condition"], "include_tools");
    assert_eq!(
        reads["message"],
        "tool `bash` is not included by `include_tools`: `read_file`"
    );

    let patch = &rule(&r, "focused-requests")["failed"];
    assert_eq!(patch["condition"], "phase");
    assert_eq!(
        patch["message"],
        "the rule is for phase `before_completion`, the event is `before_tool`"
    );
    // Phase is checked before `enabled`.
    assert_eq!(rule(&r, "force-read-first")["failed"]["condition"], "phase");
    let n = r["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["matches"] == true)
        .count();
    assert_eq!(n, 1);
}

#[test]
fn exclusion_exists_and_not() {
    let r = explain("tests/fixtures/events/mcp_tool.json");
    let guard = &rule(&r, "shell-guard")["failed"];
    assert_eq!(guard["condition"], "exclude_tools");
    assert_eq!(
        guard["message"],
        "tool `mcp__github__bash` is excluded by `exclude_tools` pattern `{regex: mcp__.*}`"
    );

    let r = explain("tests/fixtures/events/read_file_capped.json");
    assert_eq!(
        rule(&r, "cap-reads")["failed"]["message"],
        "`when` leaf at pointer `/max_bytes` failed: value 10, expected the pointer not to resolve"
    );

    let r = explain("tests/fixtures/events/timeout_background.json");
    let timeouts = &rule(&r, "explain-timeouts")["failed"];
    assert_eq!(timeouts["pointer"], "/background");
    assert_eq!(
        timeouts["message"],
        "`not` failed: its predicate (pointer `/background` equals true) holds"
    );
    assert_eq!(rule(&r, "audit-log")["matches"], true);
    let leak = rule(&r, "stop-on-leaked-key")["failed"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(leak.contains("value \"\""), "{leak}");
}

#[test]
fn disabled_and_outcome_and_human_output() {
    let dir = tempfile::tempdir().unwrap();
    let event = dir.path().join("bc.json");
    std::fs::write(&event, r#"{"phase":"before_completion"}"#).unwrap();
    let r = explain(event.to_str().unwrap());
    assert_eq!(
        rule(&r, "force-read-first")["failed"]["condition"],
        "disabled"
    );
    assert_eq!(rule(&r, "focused-requests")["matches"], true);

    std::fs::write(
        &event,
        r#"{"phase":"after_tool","tool":"write_file","outcome":"denied"}"#,
    )
    .unwrap();
    let r = explain(event.to_str().unwrap());
    assert_eq!(
        rule(&r, "remind-tests-after-write")["failed"]["message"],
        "`when` outcome is `denied`, expected `success`"
    );

    let out = cli::ok(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &[
            "explain",
            "examples/hooks.yaml",
            "--event",
            "tests/fixtures/events/ls.json",
        ],
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("event: before_tool (tool `bash`)\n"),
        "{text}"
    );
    assert!(
        text.contains("\nmatch     `shell-guard` (before_tool, run)\n"),
        "{text}"
    );
    // By default only the event's phase is listed; the rest is counted.
    assert!(!text.contains("focused-requests"), "{text}");
    let listed = text
        .lines()
        .filter(|l| l.contains("(before_tool, "))
        .count();
    assert_eq!(listed, text.lines().count() - 2, "{text}");
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("1 of 8 `before_tool` rules match; ")
            && last.ends_with(" rules of other phases not shown (`--all` lists them)"),
        "{text}"
    );
    let json = cli::json(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &[
            "explain",
            "examples/hooks.yaml",
            "--event",
            "tests/fixtures/events/ls.json",
            "--format",
            "json",
        ],
    );
    let rules = json["rules"].as_array().expect("rules");
    assert!(rules.iter().all(|r| r["phase"] == "before_tool"), "{json}");
    assert_eq!(
        rules.len() + json["other_phases"].as_u64().expect("a count") as usize,
        23
    );
}
