//! Layers in a `HookStack` (docs/fleet.md, *Layers*): tables run from the
//! lowest layer to the highest whatever order they were pushed in, and a
//! lower layer's stopping flow does not keep a higher layer from its say.
//!
//! The property test compares a layered stack with a flat stack of the
//! same hooks in the same (layer) order, all in one layer: where no layer
//! rule applies (nothing stopped the fold, or a `Terminate` did, or the
//! stop came from the highest layer with a hook on the event) the two
//! give the same outcome (decision, rewrites, provenance, reports); where
//! one applies, each layer's first stopping flow replaces the decision of
//! the layers below it, lowest first, until one terminates.

#[path = "common/stack.rs"]
mod stack;

use hooks_runtime::{Flow, HookContext, HookStack, StackOutcome, StepEvent, Table};
use proptest::prelude::*;
use serde_json::{Value, json};
use stack::poll_ready;

/// The layers a generated hook may be in, lowest rank first.
const LAYERS: [&str; 4] = ["user", "project", "local", "managed"];

/// What a generated hook does on `before_tool`.
#[derive(Debug, Clone, Copy)]
enum Act {
    Block,
    Terminate,
    Ask,
    Rewrite,
    Inject,
}

impl Act {
    fn yaml(self, id: &str) -> String {
        match self {
            Act::Block => format!("block: {{ reason: \"{id}\" }}"),
            Act::Terminate => format!("terminate: {{ reason: \"{id}\" }}"),
            Act::Ask => format!("ask: {{ reason: \"{id}\" }}"),
            Act::Rewrite => format!("rewrite: [{{ op: set, pointer: /by, value: \"{id}\" }}]"),
            Act::Inject => format!("inject: {{ content: \"{id}\" }}"),
        }
    }

    fn stops(self) -> bool {
        matches!(self, Act::Block | Act::Terminate)
    }
}

/// A table of one `before_tool` rule `id` in `layer`.
fn table(id: &str, layer: &str, act: Act) -> Table {
    let yaml = format!(
        "version: 1\nlayer: {layer}\nhooks:\n  - id: {id}\n    phase: before_tool\n    {}\n",
        act.yaml(id)
    );
    Table::load_str(&yaml, &format!("{id}.yaml")).expect("a valid config")
}

fn before_tool(stack: &HookStack) -> StackOutcome {
    let args = json!({"command": "ls"});
    poll_ready(stack.fold(
        &HookContext::new("t"),
        StepEvent::BeforeTool {
            tool_name: "bash",
            call_id: "c1",
            args: &args,
        },
    ))
}

fn reason(outcome: &StackOutcome) -> Option<(&'static str, String)> {
    match outcome.decision.as_ref()? {
        Flow::Skip { reason } => Some(("skip", reason.to_string())),
        Flow::Terminate { reason } => Some(("terminate", reason.to_string())),
        Flow::Ask { reason } => Some(("ask", reason.to_string())),
        Flow::Allow => Some(("allow", String::new())),
        other => panic!("unexpected decision {other:?}"),
    }
}

#[test]
fn tables_run_by_layer_whatever_the_push_order() {
    let mut stack = HookStack::new();
    stack.push("m", table("m", "managed", Act::Rewrite));
    stack.push("u", table("u", "user", Act::Rewrite));
    stack.push("p", table("p", "project", Act::Rewrite));
    let ids: Vec<&str> = stack.ids().map(|id| id.as_str()).collect();
    assert_eq!(ids, ["u", "p", "m"]);
    // The managed layer rewrites last: its value stands.
    let outcome = before_tool(&stack);
    assert_eq!(
        outcome.args.as_ref().map(|a| a["by"].clone()),
        Some(json!("m"))
    );
    let layers: Vec<Option<&str>> = outcome.provenance.iter().map(|p| p.hook.layer()).collect();
    assert_eq!(layers, [Some("user"), Some("project"), Some("managed")]);
}

#[test]
fn a_higher_layers_block_replaces_a_lower_layers() {
    let mut stack = HookStack::new();
    stack.push("u", table("u", "user", Act::Block));
    stack.push("u2", table("u2", "user", Act::Block));
    stack.push("m", table("m", "managed", Act::Block));
    let outcome = before_tool(&stack);
    assert_eq!(reason(&outcome), Some(("skip", "m".to_owned())));
    // The rest of the user layer was not consulted; the managed layer was.
    let consulted: Vec<&str> = outcome.reports.iter().map(|r| r.hook.as_str()).collect();
    assert_eq!(consulted, ["u", "m"]);
}

#[test]
fn a_deny_is_never_weakened_by_a_higher_layer() {
    for act in [Act::Ask, Act::Rewrite, Act::Inject] {
        let mut stack = HookStack::new();
        stack.push("u", table("u", "user", Act::Block));
        stack.push("m", table("m", "managed", act));
        let outcome = before_tool(&stack);
        assert_eq!(reason(&outcome), Some(("skip", "u".to_owned())), "{act:?}");
        assert!(
            outcome.args.is_none(),
            "{act:?}: a refused call is not rewritten"
        );
        assert!(outcome.context.is_empty(), "{act:?}");
    }
}

#[test]
fn a_lower_layers_terminate_is_final() {
    let mut stack = HookStack::new();
    stack.push("u", table("u", "user", Act::Terminate));
    stack.push("m", table("m", "managed", Act::Block));
    let outcome = before_tool(&stack);
    assert_eq!(reason(&outcome), Some(("terminate", "u".to_owned())));
    assert_eq!(outcome.reports.len(), 1);
}

#[test]
fn a_higher_layer_may_terminate_after_a_lower_block() {
    let mut stack = HookStack::new();
    stack.push("p", table("p", "project", Act::Block));
    stack.push("m", table("m", "managed", Act::Terminate));
    assert_eq!(
        reason(&before_tool(&stack)),
        Some(("terminate", "m".to_owned()))
    );
}

/// One generated hook: its layer (index into [`LAYERS`]) and action.
fn hooks() -> impl Strategy<Value = Vec<(usize, Act)>> {
    let act = prop_oneof![
        Just(Act::Block),
        Just(Act::Terminate),
        Just(Act::Ask),
        Just(Act::Rewrite),
        Just(Act::Inject),
    ];
    proptest::collection::vec((0..LAYERS.len(), act), 1..8)
}

/// The stack of `hooks` pushed in the order generated, each in its layer;
/// and the flat stack of the same hooks in the order the layered one runs
/// them, all in `project`.
fn stacks(hooks: &[(usize, Act)]) -> (HookStack, HookStack) {
    let mut layered = HookStack::new();
    for (i, &(layer, act)) in hooks.iter().enumerate() {
        let id = format!("h{i}");
        layered.push(id.clone(), table(&id, LAYERS[layer], act));
    }
    let mut flat = HookStack::new();
    for id in layered.ids() {
        let i: usize = id.as_str()[1..].parse().expect("h<n>");
        flat.push(id.clone(), table(id.as_str(), "project", hooks[i].1));
    }
    (layered, flat)
}

/// The hooks of `hooks` in run order (by layer, then as generated).
fn run_order(hooks: &[(usize, Act)]) -> Vec<(usize, usize, Act)> {
    let mut order: Vec<(usize, usize, Act)> = hooks
        .iter()
        .enumerate()
        .map(|(i, &(layer, act))| (i, layer, act))
        .collect();
    order.sort_by_key(|&(_, layer, _)| layer);
    order
}

/// Layer names and file names differ between the two stacks; the rest of
/// an outcome must not.
fn comparable(outcome: &StackOutcome) -> Value {
    let provenance: Vec<Value> = outcome
        .provenance
        .iter()
        .map(|p| {
            json!([
                p.hook.as_str(),
                serde_json::to_value(&p.change).expect("json")
            ])
        })
        .collect();
    let reports: Vec<Value> = outcome
        .reports
        .iter()
        .map(|r| json!([r.hook.as_str(), r.verdict.to_string()]))
        .collect();
    json!({
        "decision": format!("{:?}", outcome.decision),
        "args": outcome.args,
        "context": outcome.context.iter().map(|c| c.content.to_string()).collect::<Vec<_>>(),
        "provenance": provenance,
        "reports": reports,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn layered_merge_matches_a_flat_stack_where_no_layer_rule_applies(hooks in hooks()) {
        let (layered, flat) = stacks(&hooks);
        let (layered, flat) = (before_tool(&layered), before_tool(&flat));
        let order = run_order(&hooks);
        // Where the flat fold stopped, and whether a higher layer follows.
        let stop = order.iter().position(|&(_, _, act)| act.stops());
        let rule_applies = stop.is_some_and(|at| {
            let (_, layer, act) = order[at];
            matches!(act, Act::Block) && order[at + 1..].iter().any(|&(_, l, _)| l > layer)
        });
        if !rule_applies {
            prop_assert_eq!(comparable(&layered), comparable(&flat));
        } else {
            // Layer by layer, lowest first: each layer's first stopping
            // hook replaces the decision kept so far, until a terminate.
            let mut expected: Option<(&str, String)> = None;
            for layer in 0..LAYERS.len() {
                if expected.as_ref().is_some_and(|(kind, _)| *kind == "terminate") {
                    break;
                }
                if let Some(&(i, _, act)) =
                    order.iter().find(|&&(_, l, a)| l == layer && a.stops())
                {
                    let kind = if matches!(act, Act::Terminate) { "terminate" } else { "skip" };
                    expected = Some((kind, format!("h{i}")));
                }
            }
            prop_assert_eq!(reason(&layered), expected);
        }
    }
}
