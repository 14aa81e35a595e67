//! The lints' edge cases (the fixtures in `tests/configs/lints/` show the
//! rendered findings).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test panics on a broken case, which fails it"
)]

use crate::diagnostic::Severity;
use crate::load::compile_str;

/// The codes of the warnings and notes of a valid `hooks` list.
fn lints(hooks: &str) -> Vec<(String, Severity, String)> {
    let source = format!("version: 1\nhooks:\n{hooks}");
    let compiled = compile_str(&source, "t.yaml").expect("a valid config");
    compiled
        .warnings
        .into_iter()
        .map(|d| (d.code, d.severity, d.pointer))
        .collect()
}

fn shadowed(hooks: &str) -> Vec<String> {
    lints(hooks)
        .into_iter()
        .filter(|(code, _, _)| code == "shadowed-rule")
        .map(|(_, _, pointer)| pointer)
        .collect()
}

const LATER_BASH: &str = "  - id: later\n    phase: before_tool\n    include_tools: [bash]\n    run: { command: \"true\" }\n";

#[test]
fn an_exclude_of_the_later_rules_tool_keeps_it_reachable() {
    let earlier = "  - id: first\n    phase: before_tool\n    exclude_tools: [bash]\n    block: { reason: x }\n";
    assert!(shadowed(&format!("{earlier}{LATER_BASH}")).is_empty());
    // An exclude the later rule makes as well cuts nothing from it.
    let later = "  - id: later\n    phase: before_tool\n    exclude_tools: [bash]\n    run: { command: \"true\" }\n";
    assert_eq!(shadowed(&format!("{earlier}{later}")), ["/hooks/1/id"]);
}

#[test]
fn globs_other_than_star_are_not_compared() {
    let earlier = "  - id: first\n    phase: before_tool\n    include_tools: [\"b*\"]\n    block: { reason: x }\n";
    assert!(shadowed(&format!("{earlier}{LATER_BASH}")).is_empty());
    // The same pattern, written the same, is covered.
    let regex = "  - id: first\n    phase: before_tool\n    include_tools: [{regex: \"ba.*\"}]\n    block: { reason: x }\n  - id: later\n    phase: before_tool\n    include_tools: [{regex: \"ba.*\"}]\n    run: { command: \"true\" }\n";
    assert_eq!(shadowed(regex), ["/hooks/1/id"]);
}

#[test]
fn disabled_audit_and_observe_only_rules_shadow_nothing() {
    for extra in ["    enabled: false\n", "    mode: audit\n"] {
        let earlier =
            format!("  - id: first\n    phase: before_tool\n    block: {{ reason: x }}\n{extra}");
        assert!(
            shadowed(&format!("{earlier}{LATER_BASH}")).is_empty(),
            "{extra}"
        );
    }
    // A disabled later rule is not reported as shadowed (it never runs anyway).
    let earlier = "  - id: first\n    phase: before_tool\n    block: { reason: x }\n";
    let disabled_later = format!("{LATER_BASH}    enabled: false\n# later is kept for the audit\n");
    assert!(shadowed(&format!("{earlier}{disabled_later}")).is_empty());
    // Observe-only phases may run hooks concurrently: not a shadow.
    let observe = "  - id: first\n    phase: run_end\n    terminate: { reason: x }\n  - id: later\n    phase: run_end\n    run: { command: \"true\" }\n";
    assert!(shadowed(observe).is_empty());
}

#[test]
fn only_warnings_and_notes_leave_the_config_valid() {
    let found =
        lints("  - id: off\n    phase: stop\n    enabled: false\n    terminate: { reason: x }\n");
    assert_eq!(
        found,
        [(
            "unreferenced-disabled".to_owned(),
            Severity::Note,
            "/hooks/0/enabled".to_owned()
        )]
    );
}

#[test]
fn an_any_is_false_only_when_every_branch_is() {
    let when = |w: &str| {
        lints(&format!(
            "  - id: h\n    phase: before_tool\n    when: {w}\n    block: {{ reason: x }}\n"
        ))
        .into_iter()
        .map(|(code, _, pointer)| format!("{code} {pointer}"))
        .collect::<Vec<_>>()
    };
    let contradiction = "{all: [{pointer: /a, equals: 1}, {pointer: /a, equals: 2}]}";
    assert_eq!(
        when(&format!("{{any: [{contradiction}, {contradiction}]}}")),
        ["always-false-when /hooks/0/when"]
    );
    assert_eq!(
        when(&format!(
            "{{any: [{contradiction}, {{pointer: /a, exists: true}}]}}"
        )),
        ["always-false-when /hooks/0/when/any/0"]
    );
    // `not` of `all: []` (always true) is always false; equal values agree.
    assert_eq!(
        when("{not: {all: []}}"),
        ["always-false-when /hooks/0/when"]
    );
    assert!(when("{all: [{pointer: /a, equals: 1}, {pointer: /b, equals: 2}]}").is_empty());
    assert!(
        when("{all: [{pointer: /a, exists: false}, not: {pointer: /a, equals: 1}]}").is_empty()
    );
}

/// A scoped or `once` block does not end every event: it shadows nothing.
#[test]
fn scoped_and_once_blocks_shadow_nothing() {
    for key in [
        "scope: { subagent: reviewer }",
        "scope: { skill: pdf }",
        "once: true",
    ] {
        let earlier = format!(
            "  - id: first\n    phase: before_tool\n    {key}\n    block: {{ reason: x }}\n"
        );
        assert!(
            shadowed(&format!("{earlier}{LATER_BASH}")).is_empty(),
            "{key}"
        );
    }
}
