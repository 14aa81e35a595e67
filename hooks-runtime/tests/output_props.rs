//! Property tests: the output parsers (`protocol: native` and
//! `protocol: claude`) never panic on arbitrary bytes, whatever the exit
//! code (0 and 2) and the phase, and every invocation ends in a named
//! outcome with exactly one record. Each case runs a real shell hook that
//! prints a file written for it, so the bytes go through the executor's
//! capture and framing exactly as a hook's would.

#[path = "common/hooks.rs"]
mod hooks;

use hooks::{Fixture, after_tool, before_tool, sh};
use hooks_runtime::{FailureKind, HookContext, HookLimits, Invocation, StepEvent, ToolOutcome};
use hooks_schema::{Phase, Protocol};
use proptest::prelude::*;
use serde_json::json;

/// Pieces of both protocols' output objects, so random concatenations
/// reach deep into the parsers (valid keys, wrong types, broken escapes,
/// huge numbers, control bytes) instead of failing at the first byte.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\n",
    " ",
    "null",
    "true",
    "1e999",
    "-0",
    "18446744073709551616",
    "\"\\ud800\"",
    "\"\\u0000\"",
    "\"\\x\"",
    "\u{feff}",
    "\u{0}",
    "\"decision\"",
    "\"block\"",
    "\"approve\"",
    "\"ask\"",
    "\"resume\"",
    "\"reason\"",
    "\"continue\"",
    "\"stopReason\"",
    "\"suppressOutput\"",
    "\"systemMessage\"",
    "\"rewrite_args\"",
    "\"rewrite_result\"",
    "\"rewrite_prompt\"",
    "\"context_items\"",
    "\"role\"",
    "\"user\"",
    "\"content\"",
    "\"patch\"",
    "\"hookSpecificOutput\"",
    "\"hookEventName\"",
    "\"PreToolUse\"",
    "\"PostToolUse\"",
    "\"Stop\"",
    "\"UserPromptSubmit\"",
    "\"permissionDecision\"",
    "\"permissionDecisionReason\"",
    "\"deny\"",
    "\"allow\"",
    "\"defer\"",
    "\"updatedInput\"",
    "\"updatedToolOutput\"",
    "\"additionalContext\"",
    "{\"decision\":\"block\",\"reason\":\"r\"}",
    "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\"}}",
];

fn tokens() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(0..TOKENS.len(), 0..40)
        .prop_map(|picks| picks.into_iter().flat_map(|i| TOKENS[i].bytes()).collect())
}

/// Outputs one protocol or the other accepts as a decision.
const DECISIONS: &[&str] = &[
    "{\"decision\":\"block\",\"reason\":\"no\"}",
    "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no\"}}",
    "{\"continue\":false,\"stopReason\":\"halt\"}",
];

fn output() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        // A decision, framed by whitespace.
        1 => (prop::sample::select(DECISIONS), "[ \n\t]{0,3}", "[ \n\t]{0,3}")
            .prop_map(|(d, a, b)| format!("{a}{d}{b}").into_bytes()),
        2 => prop::collection::vec(any::<u8>(), 0..2048),
        3 => tokens(),
        // A valid object, then bytes after it (framing).
        1 => (tokens(), prop::collection::vec(any::<u8>(), 0..64)).prop_map(|(mut a, b)| {
            a.splice(0..0, b"{\"decision\":\"block\",\"reason\":\"x\"}\n".iter().copied());
            a.extend(b);
            a
        }),
    ]
}

fn phase() -> impl Strategy<Value = Phase> {
    prop::sample::select(vec![
        Phase::BeforeTool,
        Phase::AfterTool,
        Phase::UserPrompt,
        Phase::Stop,
        Phase::AfterAssistant,
        Phase::PermissionRequest,
    ])
}

/// One shell hook per case: prints `bytes` on stdout (and their first
/// kilobyte on stderr, the exit-2 reason) and exits with `code`.
struct Harness {
    fx: Fixture,
    rt: tokio::runtime::Runtime,
    cases: std::cell::Cell<usize>,
}

impl Harness {
    fn new() -> Self {
        Harness {
            fx: Fixture::with_limits(HookLimits {
                stdout_cap: 4096,
                stderr_cap: 1024,
                ..HookLimits::default()
            }),
            rt: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime"),
            cases: std::cell::Cell::new(0),
        }
    }

    fn run(&self, bytes: &[u8], code: i32, protocol: Protocol, phase: Phase) -> Invocation {
        std::fs::write(self.fx.path("out.bin"), bytes).expect("write the output");
        let mut spec = sh(
            "prop",
            phase,
            &format!("cat >/dev/null; head -c 1024 out.bin >&2; cat out.bin; exit {code}"),
        );
        spec.protocol = protocol;
        let args = json!({"command": "ls"});
        let result = json!({"output": "ok"});
        let outcome = ToolOutcome::Success;
        let event = match phase {
            Phase::BeforeTool => before_tool("bash", "c1", &args),
            Phase::AfterTool => after_tool("bash", "c1", &args, &result, &outcome),
            Phase::UserPrompt => StepEvent::UserPrompt { prompt: "hi" },
            Phase::Stop => StepEvent::Stop {
                loop_count: 0,
                text: "done",
                background_tasks: &serde_json::Value::Null,
                session_crons: &serde_json::Value::Null,
            },
            Phase::PermissionRequest => StepEvent::PermissionRequest {
                tool_name: "bash",
                call_id: "c1",
                args: &args,
                suggestions: &serde_json::Value::Null,
            },
            _ => StepEvent::AfterAssistant { text: "t" },
        };
        let hook = self.fx.hook(spec);
        // A fresh context: the stop-resume count never carries over.
        let inv = self
            .rt
            .block_on(hook.invoke(&HookContext::new("run-1"), event));
        self.cases.set(self.cases.get() + 1);
        inv
    }

    /// The invocation ended in a named outcome, and wrote exactly one hook
    /// record (cases so far = hook records).
    fn check(&self, inv: &Invocation) -> Result<(), TestCaseError> {
        let named = match (inv.record.decision, inv.record.failure_kind) {
            (_, Some(kind)) => FailureKind::ALL.iter().any(|k| k.as_str() == kind),
            (Some(_), None) | (None, None) => true,
        };
        prop_assert!(named, "{:?}", inv.record);
        let hook_records = self
            .fx
            .records()
            .iter()
            .filter(|r| r["record"] == "hook")
            .count();
        prop_assert_eq!(hook_records, self.cases.get());
        Ok(())
    }
}

thread_local! {
    static HARNESS: Harness = Harness::new();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn native_output_never_panics(bytes in output(), exit_2 in any::<bool>(), phase in phase()) {
        HARNESS.with(|h| {
            let inv = h.run(&bytes, if exit_2 { 2 } else { 0 }, Protocol::Native, phase);
            h.check(&inv)
        })?;
    }

    #[test]
    fn claude_output_never_panics(bytes in output(), exit_2 in any::<bool>(), phase in phase()) {
        HARNESS.with(|h| {
            let inv = h.run(&bytes, if exit_2 { 2 } else { 0 }, Protocol::Claude, phase);
            h.check(&inv)
        })?;
    }
}

/// The generator reaches the parsers' decisions, not only their syntax
/// errors: over a deterministic sample, both protocols see at least one
/// output they accept as a decision and one they reject as invalid.
#[test]
fn generated_outputs_reach_decisions_and_rejections() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let harness = Harness::new();
    let mut runner = TestRunner::deterministic();
    for protocol in [Protocol::Native, Protocol::Claude] {
        let (mut decided, mut invalid) = (0, 0);
        for _ in 0..60 {
            let bytes = output().new_tree(&mut runner).expect("tree").current();
            let inv = harness.run(&bytes, 0, protocol, Phase::BeforeTool);
            if inv.record.decision.is_some() && inv.record.failure_kind.is_none() {
                decided += 1;
            }
            // Claude Code reads stdout that is not one JSON object as plain
            // text (noted in the record): that is its rejection.
            let as_text = inv.record.notes.iter().any(|n| n.contains("plain text"));
            if inv.record.failure_kind == Some("invalid_output") || as_text {
                invalid += 1;
            }
        }
        eprintln!("{protocol:?}: {decided} decisions, {invalid} invalid outputs of 60");
        assert!(
            decided >= 1 && invalid >= 10,
            "{protocol:?}: {decided} decided, {invalid} invalid"
        );
    }
}
