//! Shadow mode in `test` and `replay` (docs/cli.md, *Shadow mode*): a
//! config in `mode: shadow` is recorded (`audited`) but never enforced,
//! and the commands report what it would have changed against the
//! enforced result, from a second, what-if pass.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

#[path = "common/cli.rs"]
mod cli;

/// The enforced config: it lets every call run and notes bash calls.
const ENFORCED: &str = "version: 1
hooks:
  - id: note-bash
    phase: before_tool
    include_tools: [bash]
    inject: { content: \"bash ran\" }
";

/// The shadow config: it would block `rm -rf` and cap reads.
const SHADOW: &str = "version: 1
mode: shadow
layer: user
hooks:
  - id: no-rm
    phase: before_tool
    include_tools: [bash]
    when: { pointer: /command, matches: 'rm\\s+-rf' }
    block: { reason: \"rm -rf is not allowed\" }
  - id: cap-reads
    phase: before_tool
    include_tools: [read_file]
    rewrite: [{ op: set, pointer: /max_bytes, value: 1000 }]
";

const RM: &str = r#"{"phase":"before_tool","tool_name":"bash","call_id":"c1","args":{"command":"rm -rf /tmp/build"}}"#;

/// A workspace with `a.yaml` (enforced), `b.yaml` (shadow) and
/// `stack.yaml` listing both.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, text: &str| {
        std::fs::write(dir.path().join(name), text).expect("write a file");
    };
    write("a.yaml", ENFORCED);
    write("b.yaml", SHADOW);
    write("stack.yaml", "stack: [a.yaml, b.yaml]\n");
    dir
}

fn run(dir: &Path, args: &[&str]) -> Output {
    cli::ok(dir, args)
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn test_event(dir: &Path, event: &str, source: &[&str], json: bool) -> Output {
    std::fs::write(dir.join("event.json"), event).expect("write the event");
    let mut args = vec!["test"];
    args.extend_from_slice(source);
    args.extend_from_slice(&["--event", "event.json"]);
    if json {
        args.extend_from_slice(&["--format", "json"]);
    }
    run(dir, &args)
}

fn report(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).expect("a JSON report")
}

#[test]
fn test_says_what_the_shadow_config_would_block_and_enforces_the_rest() {
    let dir = workspace();
    let out = test_event(dir.path(), RM, &["--stack", "stack.yaml"], false);
    let text = stdout(&out);
    assert!(text.contains("decision: run\n"), "{text}");
    assert!(
        text.contains(
            "shadow (layer user, config b.yaml) would change: decision run → skip (\"rm -rf is not allowed\")"
        ),
        "{text}"
    );
    // The shadow block would also have kept the enforced config's
    // injection from running (the user layer runs first).
    assert!(
        text.contains(
            r#"shadow (layer user, config b.yaml) would change: context [{"role":"user","content":"bash ran"}] → []"#
        ),
        "{text}"
    );
    assert!(text.contains("injected context: \"bash ran\""), "{text}");

    let r = report(&test_event(
        dir.path(),
        RM,
        &["--stack", "stack.yaml"],
        true,
    ));
    assert_eq!(r["verdict"], json!({"decision": "run"}));
    assert_eq!(
        r["shadow"][0],
        json!({
            "field": "decision",
            "enforced": {"decision": "run"},
            "shadow": {"decision": "skip", "reason": "rm -rf is not allowed"},
            "configs": [{"config": "b.yaml", "layer": "user"}],
        })
    );
    assert_eq!(r["shadow"].as_array().map(Vec::len), Some(2), "{r:#}");
    assert_eq!(
        r["shadow_configs"],
        json!([{"config": "b.yaml", "layer": "user"}])
    );
    // The records are the enforced pass's: the shadow hook audited, once;
    // nothing of the what-if pass (where it decided `skip`).
    let records = r["records"].as_array().expect("records");
    let no_rm: Vec<&Value> = records.iter().filter(|r| r["hook_id"] == "no-rm").collect();
    assert_eq!(no_rm.len(), 1, "{records:#?}");
    assert_eq!(no_rm[0]["status"], "audited");
    assert_eq!(no_rm[0]["mode"], "audit");
    assert_eq!(no_rm[0]["decision"], "skip");
    assert_eq!(
        records
            .iter()
            .filter(|r| r["hook_id"] == "note-bash")
            .count(),
        2,
        "one injection and one hook record: {records:#?}"
    );
}

#[test]
fn a_shadow_rewrite_of_the_arguments_is_shown_against_the_enforced_ones() {
    let dir = workspace();
    let read = r#"{"phase":"before_tool","tool_name":"read_file","call_id":"c2","args":{"path":"src/lib.rs"}}"#;
    // A shadow config alone: the enforced result is the event's own.
    let r = report(&test_event(dir.path(), read, &["b.yaml"], true));
    assert_eq!(r["verdict"], json!({"decision": "run"}));
    assert!(r["outcome"]["args"].is_null(), "not rewritten: {r:#}");
    assert_eq!(
        r["shadow"],
        json!([{
            "field": "args",
            "enforced": {"path": "src/lib.rs"},
            "shadow": {"path": "src/lib.rs", "max_bytes": 1000},
            "configs": [{"config": "b.yaml", "layer": "user"}],
        }])
    );
    let text = stdout(&test_event(dir.path(), read, &["b.yaml"], false));
    assert!(
        text.contains(
            r#"shadow (layer user, config b.yaml) would change: args {"path":"src/lib.rs"} → {"path":"src/lib.rs","max_bytes":1000}"#
        ),
        "{text}"
    );
}

#[test]
fn the_layer_a_stack_file_gives_a_shadow_config_is_kept() {
    let dir = workspace();
    let undeclared = SHADOW.replace("layer: user\n", "");
    std::fs::write(dir.path().join("c.yaml"), undeclared).expect("write c.yaml");
    std::fs::write(
        dir.path().join("stack.yaml"),
        "stack: [a.yaml, {config: c.yaml, layer: local}]\n",
    )
    .expect("write the stack");
    let r = report(&test_event(
        dir.path(),
        RM,
        &["--stack", "stack.yaml"],
        true,
    ));
    assert_eq!(r["shadow"][0]["field"], "decision");
    assert_eq!(
        r["shadow"][0]["configs"],
        json!([{"config": "c.yaml", "layer": "local"}])
    );
}

#[test]
fn a_change_nothing_would_make_is_said_too() {
    let dir = workspace();
    let ls = r#"{"phase":"before_tool","tool_name":"bash","call_id":"c1","args":{"command":"ls"}}"#;
    let r = report(&test_event(
        dir.path(),
        ls,
        &["--stack", "stack.yaml"],
        true,
    ));
    assert_eq!(r["shadow"], json!([]));
    let text = stdout(&test_event(
        dir.path(),
        ls,
        &["--stack", "stack.yaml"],
        false,
    ));
    assert!(
        text.contains("shadow (layer user, config b.yaml) would change: nothing"),
        "{text}"
    );
}

/// A config whose `run` hook appends a line to `runs.txt` per call.
const COUNTING: &str = "version: 1
hooks:
  - id: count
    phase: before_tool
    run: { command: \"echo ran >> runs.txt\" }
";

fn runs(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("runs.txt")).map_or(0, |text| text.lines().count())
}

#[test]
fn without_a_shadow_config_there_is_no_second_pass() {
    let dir = workspace();
    std::fs::write(dir.path().join("count.yaml"), COUNTING).expect("write count.yaml");
    let r = report(&test_event(dir.path(), RM, &["count.yaml"], true));
    assert!(r.get("shadow").is_none(), "{r:#}");
    assert!(r.get("shadow_configs").is_none(), "{r:#}");
    assert_eq!(runs(dir.path()), 1, "the run hook ran once");
    let text = stdout(&test_event(dir.path(), RM, &["count.yaml"], false));
    assert!(!text.contains("would change"), "{text}");
    assert_eq!(runs(dir.path()), 2);

    // With a shadow config, the what-if pass runs the hooks again.
    std::fs::write(
        dir.path().join("stack.yaml"),
        "stack: [count.yaml, b.yaml]\n",
    )
    .expect("write the stack");
    std::fs::remove_file(dir.path().join("runs.txt")).expect("remove runs.txt");
    let r = report(&test_event(
        dir.path(),
        RM,
        &["--stack", "stack.yaml"],
        true,
    ));
    assert_eq!(r["shadow"][0]["field"], "decision", "{r:#}");
    assert_eq!(runs(dir.path()), 2, "once per pass");
}

/// A session: a prompt, an `rm -rf` the shadow config would block (and
/// its `after_tool`), a read it would rewrite, an `ls` it lets through.
const SESSION: &str = r#"{"phase":"user_prompt","prompt":"clean up"}
{"phase":"before_tool","tool_name":"bash","call_id":"c1","args":{"command":"rm -rf /tmp/build"}}
{"phase":"after_tool","tool_name":"bash","call_id":"c1","args":{"command":"rm -rf /tmp/build"},"result":{"output":""},"outcome":"success"}
{"phase":"before_tool","tool_name":"read_file","call_id":"c2","args":{"path":"src/lib.rs"}}
{"phase":"after_tool","tool_name":"read_file","call_id":"c2","args":{"path":"src/lib.rs"},"result":{"output":"x"},"outcome":"success"}
{"phase":"before_tool","tool_name":"bash","call_id":"c3","args":{"command":"ls"}}
"#;

#[test]
fn replay_counts_the_events_the_shadow_config_would_change() {
    let dir = workspace();
    std::fs::write(dir.path().join("session.jsonl"), SESSION).expect("write the session");
    let args = ["replay", "--stack", "stack.yaml", "session.jsonl"];
    let s = cli::json(dir.path(), &[&args[..], &["--format", "json"]].concat());
    // The enforced pass: nothing blocked or rewritten, the shadow hooks
    // audited.
    assert_eq!(s["events"], 6);
    assert_eq!(s["blocked"], 0);
    assert_eq!(s["rewritten"], 0);
    assert_eq!(s["audited"], 2);
    assert_eq!(s["suppressed"], 0);
    let shadow = &s["shadow"];
    assert_eq!(
        shadow["configs"],
        json!([{"config": "b.yaml", "layer": "user"}])
    );
    assert_eq!(shadow["changed"], 2, "{shadow:#}");
    assert_eq!(
        shadow["by_field"],
        json!({"args": 1, "context": 1, "decision": 1})
    );
    let events: Vec<(u64, &str)> = shadow["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| {
            (
                e["event"].as_u64().unwrap_or(0),
                e["phase"].as_str().unwrap_or(""),
            )
        })
        .collect();
    // The `after_tool` of the call only the shadow config stopped, and of
    // the one it rewrote, are no change of their own.
    assert_eq!(events, [(2, "before_tool"), (4, "before_tool")]);
    assert_eq!(shadow["events"][0]["tool"], "bash");
    assert_eq!(shadow["events"][0]["file"], "session.jsonl");

    let text = stdout(&run(dir.path(), &args));
    assert!(
        text.contains("shadow: 2 events would change (b.yaml (layer user))"),
        "{text}"
    );
    assert!(
        text.contains(
            "  session.jsonl event 2 (before_tool bash): shadow (layer user, config b.yaml) would change: decision run → skip (\"rm -rf is not allowed\")"
        ),
        "{text}"
    );

    // Without a shadow config: no shadow summary.
    let plain = cli::json(
        dir.path(),
        &["replay", "a.yaml", "session.jsonl", "--format", "json"],
    );
    assert!(plain.get("shadow").is_none(), "{plain:#}");
    let text = stdout(&run(dir.path(), &["replay", "a.yaml", "session.jsonl"]));
    assert!(!text.contains("would change"), "{text}");
}

#[test]
fn replay_report_marks_the_events_the_shadow_config_would_change() {
    let dir = workspace();
    std::fs::write(dir.path().join("session.jsonl"), SESSION).expect("write the session");
    run(
        dir.path(),
        &[
            "replay",
            "--stack",
            "stack.yaml",
            "session.jsonl",
            "--report",
            "r.html",
        ],
    );
    let html = std::fs::read_to_string(dir.path().join("r.html")).expect("the report");
    assert_eq!(html.matches("data-shadow=\"change\"").count(), 2);
    assert_eq!(html.matches("data-shadow=\"none\"").count(), 4);
    assert_eq!(html.matches("<span class=\"shadow-marker\">").count(), 2);
    assert!(html.contains("<select id=\"filter-shadow\" data-key=\"shadow\">"));
    assert!(
        html.contains("<td id=\"shadow-count\">2</td>"),
        "the summary's count"
    );
    assert_eq!(
        html.matches("<div class=\"shadow-change\" data-field=\"decision\">")
            .count(),
        1
    );
    assert!(
        html.contains("&quot;max_bytes&quot;: 1000"),
        "the rewritten args"
    );

    run(
        dir.path(),
        &[
            "replay",
            "a.yaml",
            "session.jsonl",
            "--report",
            "plain.html",
        ],
    );
    let plain = std::fs::read_to_string(dir.path().join("plain.html")).expect("the report");
    assert!(!plain.contains("data-shadow=\""));
    assert!(!plain.contains("filter-shadow"));
}
