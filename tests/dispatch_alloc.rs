//! Dispatching 10,000 events through a 100-rule table
//! compiled by `hooks!`, where the matched actions are declarative or
//! nothing matches, performs 0 heap allocations.
//!
//! Scope of the claim, precisely:
//! - selecting the matching rules ([`Table::matching`]: tool names, DFAs,
//!   pointers, `equals` literals, outcomes) never allocates;
//! - answering an event ([`AgentHook::on_event`], the net flow, and
//!   [`Dispatcher::fold`], the whole outcome with provenance) never
//!   allocates when no rule matches, when only audit-mode rules match, or
//!   when `block`, `terminate`, `inject` (two of them on one event) or
//!   `patch` rules match: their texts and lists are borrowed from the
//!   binary and the fold keeps context and provenance inline;
//! - nor does a [`HookStack`] folding the table (merging included);
//! - `rewrite` builds new JSON values (the arguments the tool runs with):
//!   the last test pins that it allocates no more than building that value
//!   by hand, and that a patch's `additional_params` allocate nothing (the
//!   table holds the runtime's own `RequestPatch` as `'static` data).
//!
//! This file is its own test binary: `allocation-counter` registers the
//! counting global allocator (the workspace forbids `unsafe_code`), with
//! per-thread counters.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use agent_hooks::{
    AgentHook, ContextItem, Flow, FlowKind, HookContext, HookStack, StepEvent, Table, ToolFailure,
    ToolOutcome,
};
use hooks_runtime::History;
use serde_json::{Value, json};

agent_hooks::hooks!(name = Hundred, "configs/hundred.yaml");
agent_hooks::hooks!(name = ContainsGlobs, "configs/contains_globs.yaml");

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
        duration_ms: None,
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
            background_tasks: &serde_json::Value::Null,
            session_crons: &serde_json::Value::Null,
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
            background_tasks: &serde_json::Value::Null,
            session_crons: &serde_json::Value::Null,
        },
        StepEvent::TextDelta { delta: "tok" },
        StepEvent::RUN_START,
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
    assert!(!hooks.observes(hooks_schema::Phase::TextDelta));
}

/// Every matching event folds to a non-`Continue` answer: the loops below
/// measure real decisions, not misses.
fn assert_decides(hooks: &Hundred, ctx: &HookContext, events: &[StepEvent<'_>]) {
    for e in events {
        assert!(!poll_ready(hooks.on_event(ctx, *e)).is_continue(), "{e:?}");
        let outcome = poll_ready(hooks.dispatcher().fold(ctx, *e));
        assert!(!outcome.is_continue(), "{e:?}");
        assert!(!outcome.provenance.is_empty(), "{e:?}");
    }
}

#[test]
fn dispatching_matched_declarative_rules_allocates_nothing() {
    let d = data();
    let hooks = Hundred::new();
    let ctx = HookContext::new("alloc");
    let mut events = matching_events(&d);
    assert_decides(&hooks, &ctx, &events);
    events.extend(quiet_events(&d));
    let mut decided = 0;
    let n = allocations(|| {
        for i in 0..EVENTS {
            let e = events[i % events.len()];
            decided += usize::from(!poll_ready(hooks.on_event(&ctx, e)).is_continue());
        }
    });
    assert_eq!(n, 0, "on_event allocated {n} times");
    assert!(decided > EVENTS / 3, "only {decided} decisions");

    let mut provenance = 0;
    let n = allocations(|| {
        for i in 0..EVENTS {
            let e = events[i % events.len()];
            let outcome = poll_ready(hooks.dispatcher().fold(&ctx, e));
            provenance += outcome.provenance.len();
        }
    });
    assert_eq!(n, 0, "the dispatcher's fold allocated {n} times");
    assert!(
        provenance > EVENTS / 3,
        "only {provenance} provenance entries"
    );
}

#[test]
fn a_stack_folding_the_table_allocates_nothing() {
    let d = data();
    let stack = HookStack::new().with("config", Hundred::new());
    let ctx = HookContext::new("alloc");
    let mut events = matching_events(&d);
    events.extend(quiet_events(&d));
    for e in &events {
        poll_ready(stack.fold(&ctx, *e));
    }
    let mut decided = 0;
    let n = allocations(|| {
        for i in 0..EVENTS {
            let outcome = poll_ready(stack.fold(&ctx, events[i % events.len()]));
            decided += usize::from(!outcome.is_continue());
        }
    });
    assert_eq!(n, 0, "the stack allocated {n} times");
    assert!(decided > EVENTS / 3, "only {decided} decisions");
}

#[test]
fn matched_flows_carry_the_configs_values() {
    let d = data();
    let hooks = Hundred::new();
    let ctx = HookContext::new("alloc");
    let flow = poll_ready(hooks.on_event(&ctx, before("tool_0", &d.ls)));
    assert_eq!(flow, Flow::skip("blocked 0"));
    // Two `inject` rules (rule-34 lists tool_44 too) match one event, in order.
    let outcome = poll_ready(
        hooks
            .dispatcher()
            .fold(&ctx, after("tool_44", &d.ls, &d.timeout)),
    );
    assert_eq!(
        outcome.context.as_slice(),
        [
            ContextItem::user("tool 34 timed out"),
            ContextItem::user("tool 44 timed out")
        ]
    );
    let Flow::PatchRequest(patch) = poll_ready(hooks.on_event(
        &ctx,
        StepEvent::BeforeCompletion {
            request: &d.req_hit,
        },
    )) else {
        panic!("rule-45 patches the request");
    };
    assert_eq!(patch.preamble.as_deref(), Some("preamble 45"));
    assert_eq!(patch.max_tokens, Some(46));
    assert_eq!(patch.temperature, Some(0.5));
    assert_eq!(patch.tool_choice, Some(agent_hooks::ToolChoice::Required));
    assert_eq!(patch.history, Some(History::KeepLast { keep_last: 4 }));
    let tools: Vec<&str> = patch
        .active_tools
        .iter()
        .flat_map(|t| t.iter().map(|t| &**t))
        .collect();
    assert_eq!(
        tools,
        ["bash", "read"],
        "narrowed by tool_choice at build time"
    );
    assert_eq!(*patch.extra_context, [ContextItem::user("context 45")]);
}

agent_hooks::hooks!(
    name = Owned,
    inline = r#"
version: 1
hooks:
  - id: redact-token
    phase: before_tool
    include_tools: [http]
    rewrite:
      - { op: set, pointer: /headers/authorization, value: "[removed]" }
  - id: seed
    phase: before_completion
    patch: { additional_params: { seed: 7 } }
"#
);

#[test]
fn rewrites_allocate_only_their_json_value_and_params_nothing() {
    let hooks = Owned::new();
    let ctx = HookContext::new("alloc");
    let args = json!({"url": "https://x", "headers": {"authorization": "Bearer t"}});
    let request = json!({"model": "m"});
    let rewrite_event = before("http", &args);
    let patch_event = StepEvent::BeforeCompletion { request: &request };
    // Warm up (the table's hook ids are built on first use).
    poll_ready(hooks.on_event(&ctx, rewrite_event));
    poll_ready(hooks.on_event(&ctx, patch_event));

    let mut rewritten = Value::Null;
    let value_alone = allocations(|| {
        let mut v = args.clone();
        v["headers"]["authorization"] = Value::from("[removed]");
        rewritten = v;
    });
    let mut flow = Flow::Continue;
    let n = allocations(|| flow = poll_ready(hooks.on_event(&ctx, rewrite_event)));
    assert_eq!(flow, Flow::RewriteArgs(rewritten));
    assert!(
        n <= value_alone,
        "a rewrite allocated {n} times; building its new arguments by hand takes {value_alone}"
    );

    let n = allocations(|| flow = poll_ready(hooks.on_event(&ctx, patch_event)));
    let Flow::PatchRequest(patch) = &flow else {
        panic!("`seed` patches the request: {flow:?}");
    };
    assert_eq!(
        patch.additional_params.to_map(),
        *json!({"seed": 7}).as_object().expect("an object")
    );
    // The parameters are the table's own `'static` data, like the patch's
    // other fields; so is the key its provenance entry names.
    assert_eq!(n, 0, "`additional_params` allocated {n} times");
    assert_eq!(flow.kind(), FlowKind::PatchRequest);
}

/// A gate too costly to determinize (100 `*contains*` globs on one pointer)
/// is embedded as a lazily built automaton; once its caches are warm,
/// selecting through it allocates nothing either, and it selects exactly
/// the rules whose glob matches.
#[test]
fn selecting_through_a_lazy_gate_allocates_nothing_once_warm() {
    let table: &Table = ContainsGlobs::table();
    let hit = json!({"path": "/srv/secret42/secret7/key"});
    let miss = json!({"path": "/srv/public/key"});
    let events = [before("write_file", &hit), before("write_file", &miss)];
    let selected: Vec<Vec<&str>> = events
        .iter()
        .map(|e| table.matching(*e).map(|r| &*r.id).collect())
        .collect();
    assert_eq!(selected, [vec!["g4", "g7", "g42"], vec![]]);
    let mut matched = 0;
    let n = allocations(|| {
        for i in 0..EVENTS {
            matched += table.matching(events[i % events.len()]).count();
        }
    });
    assert_eq!(n, 0, "selection allocated {n} times");
    assert_eq!(matched, EVENTS / 2 * 3);
}
