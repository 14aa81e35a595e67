//! An unbound table answers a plain declarative decision without a fold
//! (`Table::dispatch`'s quick path): its answer must be the net flow of the
//! fold it skips, for every kind of first rule — a block, a terminate, a
//! block in `mode: audit`, a rewrite before a block, a `when` that does not
//! hold, a `permission_request` answer, and no rule at all.

#[path = "common/stack.rs"]
mod stack;

use hooks_runtime::{
    AgentHook, Flow, FnHook, HookContext, HookStack, StepEvent, Table, ToolCall, ToolDecision,
};
use serde_json::{Value, json};
use stack::poll_ready;

const CONFIG: &str = "version: 1
hooks:
  - id: audited-block
    phase: before_tool
    include_tools: [audit_me]
    block: { reason: would block }
    mode: audit
  - id: rewrite-first
    phase: before_tool
    include_tools: [read_file]
    rewrite: [{ op: set, pointer: /max_bytes, value: 10 }]
  - id: block-read-etc
    phase: before_tool
    include_tools: [read_file]
    when: { pointer: /path, glob: '/etc/**' }
    block: { reason: no reading /etc }
  - id: block-rm
    phase: before_tool
    include_tools: [bash]
    when: { pointer: /command, matches: 'rm\\s+-rf' }
    block: { reason: rm -rf is not allowed }
  - id: ask-deploy
    phase: permission_request
    include_tools: [deploy]
    ask: { reason: a person decides }
  - id: stop-the-run
    phase: before_tool
    include_tools: [shutdown]
    terminate: { reason: the run ends here }
";

fn before_tool<'a>(tool: &'a str, args: &'a Value) -> StepEvent<'a> {
    StepEvent::BeforeTool {
        tool_name: tool,
        call_id: "c1",
        args,
    }
}

/// The table's own answer, and the net flow of the fold it would build.
fn both(table: &Table, ctx: &HookContext, event: StepEvent<'_>) -> (Flow, Flow) {
    let quick = poll_ready(table.on_event(ctx, event));
    let folded = poll_ready(table.fold(None, ctx, event)).net_flow();
    (quick, folded)
}

#[test]
fn the_quick_answer_is_the_folds_net_flow() {
    let table = Table::load_str(CONFIG, "quick.yaml").expect("config loads");
    let ctx = HookContext::new("quick");
    let rm = json!({"command": "rm -rf /"});
    let ls = json!({"command": "ls"});
    let etc = json!({"path": "/etc/passwd"});
    let home = json!({"path": "/home/u/notes"});
    let none = json!({});
    let cases = [
        ("bash", &rm, "blocked by the first matching rule"),
        ("bash", &ls, "a `when` that does not hold"),
        ("read_file", &etc, "a rewrite before the block"),
        ("read_file", &home, "a rewrite alone"),
        ("audit_me", &none, "a block in mode: audit"),
        ("shutdown", &none, "a terminate"),
        ("web_fetch", &none, "no rule for the tool"),
    ];
    for (tool, args, what) in cases {
        let (quick, folded) = both(&table, &ctx, before_tool(tool, args));
        assert_eq!(quick, folded, "{what}");
    }
    let (quick, _) = both(&table, &ctx, before_tool("bash", &rm));
    assert!(
        matches!(&quick, Flow::Skip { reason } if reason == "rm -rf is not allowed"),
        "{quick:?}"
    );
    let (quick, _) = both(&table, &ctx, before_tool("audit_me", &none));
    assert_eq!(
        quick,
        Flow::Continue,
        "an audited block lets the call through"
    );
    let permission = StepEvent::PermissionRequest {
        tool_name: "deploy",
        call_id: "c2",
        args: &none,
        suggestions: &Value::Null,
    };
    let (quick, folded) = both(&table, &ctx, permission);
    assert_eq!(quick, folded, "a permission answer");
    assert!(matches!(quick, Flow::Ask { .. }), "{quick:?}");
}

/// `decide_now` answers only where the fold would add nothing a caller
/// reads, and then with the fold's net flow.
#[test]
fn decide_now_answers_as_the_fold_or_not_at_all() {
    let table = Table::load_str(CONFIG, "quick.yaml").expect("config loads");
    let ctx = HookContext::new("quick");
    let rm = json!({"command": "rm -rf /"});
    let ls = json!({"command": "ls"});
    let etc = json!({"path": "/etc/passwd"});
    let none = json!({});
    let cases = [
        ("bash", &rm, true),
        ("bash", &ls, true),
        ("read_file", &etc, false),
        ("audit_me", &none, false),
        ("shutdown", &none, true),
        ("web_fetch", &none, true),
    ];
    for (tool, args, answers) in cases {
        let event = before_tool(tool, args);
        let folded = poll_ready(table.fold(None, &ctx, event)).net_flow();
        let now = table.decide_now(&event);
        assert_eq!(now.is_some(), answers, "{tool} {args}");
        if let Some(now) = now {
            assert_eq!(now, folded, "{tool} {args}");
        }
    }
}

/// A stack answers at once only when each hook that observes the phase
/// does: a Rust hook (which only `on_event` can ask) makes it fold.
#[test]
fn a_stack_decides_now_when_its_hooks_do() {
    let table = || Table::load_str(CONFIG, "quick.yaml").expect("config loads");
    let empty = Table::load_str("version: 1\nhooks: []\n", "empty.yaml").expect("loads");
    let rm = json!({"command": "rm -rf /"});
    let ls = json!({"command": "ls"});
    let call = |args| ToolCall {
        tool_name: "bash",
        call_id: "c1",
        args,
    };
    let tables = HookStack::new().with("empty", empty).with("quick", table());
    let ctx = HookContext::new("quick");
    let now = tables
        .before_tool_now(call(&rm))
        .expect("tables answer at once");
    let folded = poll_ready(tables.before_tool(&ctx, call(&rm))).decision;
    assert_eq!(now, folded);
    assert!(matches!(now, ToolDecision::Skip { .. }), "{now:?}");
    assert!(matches!(
        tables.before_tool_now(call(&ls)),
        Some(ToolDecision::Run { .. })
    ));
    let with_rust = HookStack::new()
        .with("quick", table())
        .with("rust", FnHook::new(|_, _| Flow::Continue));
    assert_eq!(with_rust.before_tool_now(call(&ls)), None);
    assert_eq!(with_rust.decide_now(&before_tool("bash", &ls)), None);
}
