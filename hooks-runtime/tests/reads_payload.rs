//! `AgentHook::reads_payload`: what a table, a stack and a Rust hook say
//! about reading an event's payload (an adapter skips building a payload
//! no hook reads).

#![cfg(feature = "load")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use hooks_runtime::{AgentHook, Flow, FnHook, HookStack, StepEventKind as Phase, Table};

const YAML: &str = r#"
version: 1
hooks:
  - id: patch-only
    phase: before_completion
    patch: { temperature: 0.2 }
  - id: by-tool-name
    phase: before_tool
    include_tools: [bash]
    block: { reason: "no bash" }
  - id: by-outcome
    phase: after_tool
    when: { outcome: success }
    inject: { content: "ok" }
  - id: by-pointer
    phase: after_completion
    when: { pointer: /text, matches: "secret" }
    terminate: { reason: "leak" }
  - id: rewrites
    phase: permission_request
    rewrite:
      - { op: remove, pointer: /force }
  - id: shell
    phase: stop
    run: { command: "true" }
  - id: off
    phase: user_prompt
    enabled: false
    when: { pointer: "", matches: "x" }
    terminate: { reason: "off" }
"#;

#[test]
fn a_table_reads_the_payload_only_where_a_rule_does() {
    let table = Table::load_str(YAML, "test.yaml").expect("config loads");
    let reads = |phase| AgentHook::reads_payload(&table, phase);
    // Decided from the phase, the tool's name or the outcome's kind.
    assert!(!reads(Phase::BeforeCompletion));
    assert!(!reads(Phase::BeforeTool));
    assert!(!reads(Phase::AfterTool));
    // A pointer, a rewrite, a `run` target.
    assert!(reads(Phase::AfterCompletion));
    assert!(reads(Phase::PermissionRequest));
    assert!(reads(Phase::Stop));
    // No enabled rule.
    assert!(!reads(Phase::UserPrompt));
    assert!(!reads(Phase::TextDelta));
}

#[test]
fn a_stack_reads_what_a_hook_observing_the_phase_reads() {
    let table = Table::load_str(YAML, "test.yaml").expect("config loads");
    let rust = FnHook::new(|_, _| Flow::Continue);
    let only_deltas = FnHook::observing(&[Phase::TextDelta], |_, _| Flow::Continue);
    let stack = HookStack::new()
        .with("test.yaml", table)
        .with("deltas", only_deltas);
    assert!(!stack.reads_payload(Phase::BeforeCompletion));
    assert!(stack.reads_payload(Phase::TextDelta));
    assert!(stack.reads_payload(Phase::Stop));
    // A hook written in Rust may read anything it observes.
    let stack = stack.with("rust", rust);
    assert!(stack.reads_payload(Phase::BeforeCompletion));
}
