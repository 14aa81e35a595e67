//! Issue 5 item 4: dispatch through a 100-rule table compiled by `hooks!`
//! allocates nothing while selecting rules, and nothing at all when no rule
//! matches (including audit-mode matches and phases without rules).
//!
//! Scope of the claim, precisely:
//! - selecting the matching rules ([`Table::matching`]: tool names, DFAs,
//!   pointers, `equals` literals, outcomes) never allocates, whether
//!   declarative rules match or not;
//! - [`AgentHook::on_event`] never allocates when no rule matches or only
//!   audit-mode rules do;
//! - when a declarative rule matches, `on_event` allocates exactly what the
//!   resulting `Flow` owns plus one provenance entry: `Flow::Skip { reason:
//!   String }` (hooks-runtime's `Flow`) owns its text, so a `block` costs 2
//!   allocations. The third test pins that number so a change is noticed.
//!
//! This file is its own test binary: `allocation-counter` registers the
//! counting global allocator (the workspace forbids `unsafe_code`), with
//! per-thread counters.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use agent_hooks::runtime::{
    AgentHook, Flow, FlowKind, HookContext, StepEvent, Table, ToolFailure, ToolOutcome,
};
use serde_json::{Value, json};

agent_hooks::hooks!(name = Hundred, "configs/hundred.yaml");

const EVENTS: usize = 10_000;

fn poll_ready<F: Future>(future: F) -> F::Output {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("declarative dispatch returned `Pending`"),
    }
}

fn allocations(f: impl FnOnce()) -> u64 {
    allocation_counter::measure(f).count_total
}

struct Data {
    ls: Value,
    rm: Value,
    secret: Value,
    opts: Value,
    other: Value,
    req_hit: Value,
    req_miss: Value,
    timeout: ToolOutcome,
    success: ToolOutcome,
}

fn data() -> Data {
    Data {
        ls: json!({"command": "ls"}),
        rm: json!({"command": "rm -rf /11"}),
        secret: json!({"path": "/secret/22/key"}),
        opts: json!({"opts": {"level": 33, "force": true}}),
        other: json!({"id": [7, "x"]}),
        req_hit: json!({"model": "model-45"}),
        req_miss: json!({"model": "model-x"}),
        timeout: ToolOutcome::failed(ToolFailure::Timeout),
        success: ToolOutcome::Success,
    }
}

fn before<'a>(tool_name: &'a str, args: &'a Value) -> StepEvent<'a> {
    StepEvent::BeforeTool {
        tool_name,
        call_id: "c",
        args,
    }
}

fn after<'a>(tool_name: &'a str, v: &'a Value, outcome: &'a ToolOutcome) -> StepEvent<'a> {
    StepEvent::AfterTool {
        tool_name,
        call_id: "c",
        args: v,
        original_args: v,
        result: v,
        outcome,
    }
}

/// Events that match a declarative rule (block, terminate, patch, inject).
fn matching_events(d: &Data) -> Vec<StepEvent<'_>> {
    vec![
        before("tool_0", &d.ls),
        before("mcp__srv11__exec", &d.rm),
        before("fs_22_read", &d.secret),
        before("bash", &d.opts),
        after("tool_44", &d.ls, &d.timeout),
        StepEvent::BeforeCompletion {
            request: &d.req_hit,
        },
        StepEvent::UserPrompt {
            prompt: "say forbidden-56 now",
        },
        StepEvent::Stop {
            loop_count: 0,
            text: "--STOP-78--",
        },
    ]
}

/// Events no enforcing rule matches: misses on every rule shape, audit-only
/// matches (`rule-7`, ...: any tool but `bash` and `fs_*`), a disabled rule's
/// event and phases without rules.
fn quiet_events(d: &Data) -> Vec<StepEvent<'_>> {
    vec![
        before("bash", &d.ls),
        before("tool_1", &d.ls),
        before("mcp__srv11__exec", &d.ls),
        before("mcp__srv12__exec", &d.rm),
        before("fs_22_read", &d.ls),
        before("fs_22_stat", &d.secret),
        before("other", &d.other),
        after("tool_44", &d.ls, &d.success),
        after("tool_9", &d.ls, &d.timeout),
        StepEvent::BeforeCompletion {
            request: &d.req_miss,
        },
        StepEvent::UserPrompt { prompt: "hello" },
        StepEvent::Stop {
            loop_count: 0,
            text: "STOP-7",
        },
        StepEvent::TextDelta { delta: "tok" },
        StepEvent::RunStart,
        StepEvent::AfterAssistant { text: "done" },
    ]
}

#[test]
fn selecting_matching_declarative_rules_never_allocates() {
    let d = data();
    let mut events = matching_events(&d);
    events.extend(quiet_events(&d));
    let table: &Table = Hundred::table();
    // Warm up: deserialize the embedded DFAs once (no allocation either, but
    // keep the measured loop about the steady state).
    let warm: usize = events.iter().map(|e| table.matching(*e).count()).sum();
    assert!(warm >= matching_events(&d).len());
    let mut matched = 0;
    let n = allocations(|| {
        for i in 0..EVENTS {
            matched += table.matching(events[i % events.len()]).count();
        }
    });
    assert_eq!(n, 0, "selection allocated {n} times");
    assert!(matched > EVENTS / 3, "only {matched} rule matches");
}

#[test]
fn dispatch_allocates_nothing_when_no_rule_matches() {
    let d = data();
    let events = quiet_events(&d);
    let hooks = Hundred::new();
    let ctx = HookContext::new("alloc");
    for e in &events {
        assert_eq!(
            poll_ready(hooks.on_event(&ctx, *e)),
            Flow::Continue,
            "{e:?}"
        );
    }
    let mut continues = 0;
    let n = allocations(|| {
        for i in 0..EVENTS {
            let e = events[i % events.len()];
            // A stack skips declined phases; call on_event anyway to measure
            // the table's own check.
            continues += usize::from(poll_ready(hooks.on_event(&ctx, e)).is_continue());
        }
    });
    assert_eq!(n, 0, "dispatch allocated {n} times");
    assert_eq!(continues, EVENTS);
    assert!(!hooks.observes(agent_hooks::schema::Phase::TextDelta));
}

#[test]
fn dispatching_a_matched_declarative_rule_allocates_only_the_flow() {
    let d = data();
    let hooks = Hundred::new();
    let ctx = HookContext::new("alloc");
    let events = matching_events(&d);
    for e in &events {
        assert!(!poll_ready(hooks.on_event(&ctx, *e)).is_continue(), "{e:?}");
    }
    let block = before("tool_0", &d.ls);
    let mut flow = Flow::Continue;
    let n = allocations(|| flow = poll_ready(hooks.on_event(&ctx, block)));
    assert_eq!(flow, Flow::skip("blocked 0"));
    assert_eq!(flow.kind(), FlowKind::Skip);
    // The reason `String` of `Flow::Skip` and one provenance entry.
    assert_eq!(n, 2, "a matched `block` allocated {n} times");
}
