//! Under `limits.max_hook_memory_bytes` the binary evaluates `policy`
//! hooks in its policy process (`agent-hooks policy-eval`, docs/security.md, *Policy
//! evaluation is bounded*): a policy that builds a huge value fails as
//! that process under the hook's failure policy instead of growing the
//! agent, and an ordinary policy decides as it does in process.

#[path = "common/cli.rs"]
mod cli;

use std::time::{Duration, Instant};

use serde_json::json;

/// A `before_tool` policy hook of `rego` (package `p`, query
/// `data.p.decision`) under a 256 MiB memory cap, or none.
fn config(capped: bool) -> String {
    let limits = if capped {
        "limits: { max_hook_memory_bytes: 268435456 }\n"
    } else {
        ""
    };
    format!(
        "version: 1\n{limits}hooks:\n  - id: gate\n    phase: before_tool\n    policy:\n      rego: [p.rego]\n      query: data.p.decision\n      timeout: 60s\n"
    )
}

fn bash(command: &str) -> serde_json::Value {
    json!({"phase": "before_tool", "tool": "bash", "call_id": "c1", "args": {"command": command}})
}

#[test]
fn a_policy_over_the_memory_cap_fails_as_its_process_under_the_failure_policy() {
    // About 2.4 GB in one builtin call, which the engine's timer cannot
    // interrupt: in process it runs to the end (about 40 s) and allows.
    let rego = "package p\ndecision := {\"decision\": \"allow\", \"reason\": sprintf(\"%d\", [count(numbers.range(1, 100000000))])}\n";
    let dir = cli::workspace(&config(true));
    std::fs::write(dir.path().join("p.rego"), rego).expect("write policy");
    let started = Instant::now();
    let report = cli::test_event(dir.path(), &bash("ls"));
    let elapsed = started.elapsed();
    let record = &report["records"][0];
    assert_eq!(record["failure_kind"], "signalled", "{report:#}");
    let detail = record["message"].to_string();
    assert!(detail.contains("max_hook_memory_bytes"), "{report:#}");
    // `before_tool`'s default failure policy blocks.
    assert_eq!(report["verdict"]["decision"], "skip", "{report:#}");
    // A bound, far above the time an allocation over the cap takes.
    assert!(elapsed < Duration::from_secs(30), "{elapsed:?}");
}

#[test]
fn a_policy_in_its_process_decides_as_in_process() {
    let rego = "package p\ndecision := {\"decision\": \"block\", \"reason\": concat(\" \", [\"no\", input.args.command])} if startswith(input.args.command, \"rm\")\n";
    for capped in [true, false] {
        let dir = cli::workspace(&config(capped));
        std::fs::write(dir.path().join("p.rego"), rego).expect("write policy");
        let blocked = cli::test_event(dir.path(), &bash("rm -rf build"));
        assert_eq!(blocked["verdict"]["decision"], "skip", "{blocked:#}");
        assert_eq!(
            blocked["verdict"]["reason"], "no rm -rf build",
            "{blocked:#}"
        );
        assert_eq!(
            blocked["records"][0]["failure_kind"],
            serde_json::Value::Null
        );
        let allowed = cli::test_event(dir.path(), &bash("ls"));
        assert_eq!(allowed["verdict"]["decision"], "run", "{allowed:#}");
        assert_eq!(allowed["records"][0]["status"], "ok", "{allowed:#}");
    }
}
