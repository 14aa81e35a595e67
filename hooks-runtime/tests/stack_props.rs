//! Property tests of the fold: for random stacks of scripted hooks
//! and random nestings, on every event kind,
//!
//! - a nested stack gives exactly the flattened stack's result (flows,
//!   patches, rewrites, context, provenance and diagnostics);
//! - a stack behind a wrapper that forwards `fold_into` (its hooks folded
//!   into the outer stack's fold) gives exactly the flattened result;
//! - a stack behind a wrapper that only forwards `on_event` (folded through
//!   its net flow) gives the flattened stack's net flow;
//! - the result does not depend on how long each hook takes (hooks await
//!   random delays on a paused clock), only on declared order.
//!
//! 1,000 cases each (`ProptestConfig::cases`).

#[path = "common/stack.rs"]
mod stack;

use std::sync::Arc;
use std::time::Duration;

use hooks_runtime::{
    AgentHook, ContextItem, Flow, FlowKind, Fold, FoldStep, History, HookContext, HookFuture,
    HookStack, RequestPatch, StackOutcome, StepEvent, StepEventKind, Text, ToolChoice, ToolOutcome,
};
use hooks_schema::Phase;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Value, json};
use stack::Opaque;

const CASES: u32 = 1000;

/// What a scripted hook does on one phase.
#[derive(Debug, Clone)]
enum Action {
    /// Not observed (`observes` returns false).
    Decline,
    /// Answers `Continue`.
    Continue,
    /// Rewrites the chained value (args, result or prompt) by appending its
    /// tag; on other phases it answers `RewriteArgs`, which fails closed.
    AppendTag,
    /// Answers this flow.
    Emit(Box<Flow>),
}

#[derive(Debug, Clone)]
struct Script {
    tag: String,
    actions: Vec<Action>,
    /// When set, the hook answers through a boxed future after sleeping
    /// this long (paused clock).
    delay_ms: Option<u64>,
}

struct Scripted(Script);

fn index(kind: StepEventKind) -> usize {
    Phase::ALL
        .iter()
        .position(|p| *p == kind)
        .expect("every kind is a phase")
}

fn appended(value: &Value, tag: &str) -> Value {
    let mut value = value.clone();
    if let Some(trail) = value.get_mut("trail").and_then(Value::as_array_mut) {
        trail.push(json!(tag));
    }
    value
}

impl Script {
    fn flow_for(&self, event: StepEvent<'_>) -> Flow {
        match &self.actions[index(event.kind())] {
            Action::Decline | Action::Continue => Flow::Continue,
            Action::Emit(flow) => (**flow).clone(),
            Action::AppendTag => match event {
                StepEvent::BeforeTool { args, .. } => Flow::RewriteArgs(appended(args, &self.tag)),
                StepEvent::AfterTool { result, .. } => {
                    Flow::RewriteResult(appended(result, &self.tag))
                }
                StepEvent::UserPrompt { prompt } => {
                    Flow::RewritePrompt(format!("{prompt}+{}", self.tag).into())
                }
                _ => Flow::RewriteArgs(json!(self.tag)),
            },
        }
    }
}

impl AgentHook for Scripted {
    fn on_event<'a>(&'a self, _ctx: &'a HookContext, event: StepEvent<'a>) -> HookFuture<'a> {
        let flow = self.0.flow_for(event);
        match self.0.delay_ms {
            None => HookFuture::ready(flow),
            Some(ms) => HookFuture::boxed(async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                flow
            }),
        }
    }

    fn observes(&self, kind: StepEventKind) -> bool {
        !matches!(self.0.actions[index(kind)], Action::Decline)
    }
}

/// Reads small numbers off random bits, so scripts are decoded from plain
/// integers (cheap to generate) rather than built from nested strategies.
struct Bits(u64);

impl Bits {
    /// A number in `0..n`.
    fn pick(&mut self, n: u64) -> u64 {
        let value = self.0 % n;
        self.0 /= n;
        value
    }

    fn text(&mut self) -> String {
        ["x", "y"][self.pick(2) as usize].to_owned()
    }
}

/// A patch over small domains, so conflicts, empty intersections and
/// removed forced tools are frequent.
fn patch(bits: &mut Bits, specific_tools: bool) -> RequestPatch {
    let mut patch = RequestPatch::default();
    if bits.pick(2) == 1 {
        patch.preamble = Some(bits.text().into());
    }
    if bits.pick(3) == 1 {
        patch.temperature = Some([0.0, 0.5][bits.pick(2) as usize]);
    }
    if bits.pick(2) == 1 {
        patch.max_tokens = Some([100, 200][bits.pick(2) as usize]);
    }
    patch.tool_choice = match bits.pick(if specific_tools { 7 } else { 5 }) {
        0 | 1 => None,
        2 => Some(ToolChoice::Auto),
        3 => Some(ToolChoice::Required),
        4 => Some(ToolChoice::None),
        5 => Some(ToolChoice::Tool("a".into())),
        _ => Some(ToolChoice::Tool("b".into())),
    };
    if bits.pick(3) == 1 {
        patch.history = Some(History::Replace(vec![json!(bits.pick(2))]));
    }
    if bits.pick(2) == 1 {
        let set = bits.pick(8);
        let tools = ["a", "b", "c"]
            .iter()
            .enumerate()
            .filter(|(i, _)| set & (1 << i) != 0)
            .map(|(_, t)| Text::Borrowed(t))
            .collect();
        patch.active_tools = Some(tools);
    }
    for _ in 0..bits.pick(3) {
        let key = ["k1", "k2"][bits.pick(2) as usize];
        patch
            .additional_params
            .insert(key.to_owned(), json!(bits.pick(3)));
    }
    for _ in 0..bits.pick(3) {
        patch
            .extra_context
            .to_mut()
            .push(ContextItem::user(bits.text()));
    }
    patch
}

fn flow_of(kind: FlowKind, bits: &mut Bits, specific_tools: bool, tag: &str) -> Flow {
    let reason = format!("r-{tag}");
    match kind {
        FlowKind::Continue => Flow::Continue,
        FlowKind::PatchRequest => Flow::PatchRequest(patch(bits, specific_tools)),
        FlowKind::RewriteArgs => Flow::RewriteArgs(json!({"trail": [reason]})),
        FlowKind::RewriteResult => Flow::RewriteResult(json!({"trail": [reason]})),
        FlowKind::RewritePrompt => Flow::RewritePrompt(reason.into()),
        FlowKind::InjectContext => Flow::InjectContext(
            (0..bits.pick(3))
                .map(|_| ContextItem::user(bits.text()))
                .collect(),
        ),
        FlowKind::Skip => Flow::skip(reason),
        FlowKind::Terminate => Flow::terminate(reason),
        FlowKind::Resume => Flow::resume(reason),
        FlowKind::Fail => Flow::Fail,
        FlowKind::Retry => Flow::Retry {
            feedback: reason.into(),
        },
        FlowKind::Repair => Flow::Repair {
            tool_name: reason.into(),
            args: None,
        },
        FlowKind::Ask => Flow::ask(reason),
        FlowKind::Allow => Flow::Allow,
        FlowKind::SetEnv => Flow::SetEnv(
            (0..bits.pick(3))
                .map(|i| (format!("V{i}"), bits.text()))
                .collect(),
        ),
        FlowKind::SelectModel => Flow::SelectModel(reason.into()),
    }
}

/// An action for `phase`: mostly continue / rewrite / a flow the phase
/// honours, sometimes any flow (which may fail closed).
fn action(phase: Phase, seed: u64, specific_tools: bool, tag: &str) -> Action {
    let mut bits = Bits(seed);
    match bits.pick(15) {
        0..4 => Action::Continue,
        4 => Action::Decline,
        5..8 => Action::AppendTag,
        8..14 => {
            let honoured: Vec<FlowKind> = FlowKind::ALL
                .into_iter()
                .filter(|k| *k != FlowKind::Continue && k.honoured_on(phase))
                .collect();
            let kind = honoured[bits.pick(honoured.len() as u64) as usize];
            Action::Emit(Box::new(flow_of(kind, &mut bits, specific_tools, tag)))
        }
        _ => {
            let kind = FlowKind::ALL[bits.pick(FlowKind::ALL.len() as u64) as usize];
            Action::Emit(Box::new(flow_of(kind, &mut bits, specific_tools, tag)))
        }
    }
}

/// Up to 9 scripted hooks, each with an action per phase and maybe a delay.
fn scripts(specific_tools: bool) -> impl Strategy<Value = Vec<Script>> {
    prop::collection::vec(
        (
            prop::collection::vec(any::<u64>(), Phase::ALL.len()),
            prop::option::of(0u64..20),
        ),
        0..10,
    )
    .prop_map(move |hooks| {
        hooks
            .into_iter()
            .enumerate()
            .map(|(i, (seeds, delay_ms))| {
                let tag = format!("h{i}");
                let actions = Phase::ALL
                    .into_iter()
                    .zip(seeds)
                    .map(|(phase, seed)| action(phase, seed, specific_tools, &tag))
                    .collect();
                Script {
                    tag,
                    actions,
                    delay_ms,
                }
            })
            .collect()
    })
}

#[derive(Clone, Copy)]
enum Timing {
    /// Every hook answers ready.
    Ready,
    /// Hooks with a delay answer through a boxed future after it.
    Delayed,
}

fn hook(script: &Script, timing: Timing) -> Scripted {
    let mut script = script.clone();
    if matches!(timing, Timing::Ready) {
        script.delay_ms = None;
    }
    Scripted(script)
}

fn flat(scripts: &[Script], timing: Timing) -> HookStack {
    let mut stack = HookStack::new();
    for script in scripts {
        stack.push(script.tag.as_str(), hook(script, timing));
    }
    stack
}

/// How inner stacks are added to outer ones.
#[derive(Clone, Copy)]
enum Nesting {
    /// `push` of a stack (flattens, exact equality expected).
    Push,
    /// Behind a wrapper type forwarding only `on_event` (net flow).
    Opaque,
    /// Behind a wrapper type forwarding `fold_into` (one fold passed down).
    Forwarding,
}

struct Forwarding(HookStack);

impl AgentHook for Forwarding {
    fn on_event<'a>(&'a self, _: &'a HookContext, _: StepEvent<'a>) -> HookFuture<'a> {
        HookFuture::ready(Flow::terminate(
            "`on_event` must not be called when `fold_into` answers",
        ))
    }

    fn fold_into<'a>(&'a self, ctx: &'a HookContext, fold: &'a mut Fold<'_>) -> FoldStep<'a> {
        self.0.fold_into(ctx, fold)
    }

    fn observes(&self, kind: StepEventKind) -> bool {
        self.0.observes(kind)
    }
}

/// Builds `scripts` into stacks nested as the `seeds` say.
fn nested(
    scripts: &[Script],
    seeds: &mut std::slice::Iter<'_, u8>,
    timing: Timing,
    nesting: Nesting,
) -> HookStack {
    let mut stack = HookStack::new();
    let mut i = 0;
    while i < scripts.len() {
        let seed = seeds.next().copied().unwrap_or(0);
        let size = 1 + usize::from(seed & 0x0f) % (scripts.len() - i);
        if seed & 0x80 == 0 {
            stack.push(scripts[i].tag.as_str(), hook(&scripts[i], timing));
            i += 1;
            continue;
        }
        let inner = nested(&scripts[i..i + size], seeds, timing, nesting);
        match (nesting, seed & 0x40 == 0) {
            (Nesting::Push, true) => stack.push("group", inner),
            (Nesting::Push, false) => stack.push_shared("group", Arc::new(inner)),
            (Nesting::Opaque, _) => stack.push(format!("group{i}"), Opaque(inner)),
            (Nesting::Forwarding, _) => stack.push(format!("group{i}"), Forwarding(inner)),
        };
        i += size;
    }
    stack
}

/// Folds one event of every phase.
async fn fold_all(stack: &HookStack) -> Vec<StackOutcome> {
    let ctx = HookContext::new("prop");
    let value = json!({"trail": []});
    let failed = ToolOutcome::failed(hooks_runtime::ToolFailure::Timeout);
    let events = [
        StepEvent::RUN_START,
        StepEvent::UserPrompt { prompt: "p" },
        StepEvent::BeforeCompletion { request: &value },
        StepEvent::AfterCompletion { response: &value },
        StepEvent::TextDelta { delta: "d" },
        StepEvent::ToolCallDelta {
            tool_name: "a",
            call_id: "c",
            delta: "{",
        },
        StepEvent::StreamFinish { response: &value },
        StepEvent::AfterReasoning { reasoning: "r" },
        StepEvent::AfterAssistant { text: "t" },
        StepEvent::BeforeTool {
            tool_name: "a",
            call_id: "c",
            args: &value,
        },
        StepEvent::PermissionRequest {
            tool_name: "a",
            call_id: "c",
            args: &value,
            suggestions: &value,
        },
        StepEvent::AfterTool {
            tool_name: "a",
            call_id: "c",
            args: &value,
            original_args: &value,
            result: &value,
            outcome: &failed,
            duration_ms: None,
        },
        StepEvent::AfterToolBatch { calls: &value },
        StepEvent::InvalidToolCall {
            tool_name: "z",
            call_id: "c",
            raw_args: "{",
            error: "e",
        },
        StepEvent::Stop {
            loop_count: 1,
            text: "t",
            background_tasks: &serde_json::Value::Null,
            session_crons: &serde_json::Value::Null,
        },
        StepEvent::Notification {
            notification_type: "n",
            title: "",
            message: "m",
        },
        StepEvent::SubagentStart {
            agent_id: "a",
            agent_type: "t",
        },
        StepEvent::SubagentStop {
            agent_id: "a",
            agent_type: "t",
            loop_count: 0,
            text: "t",
            agent_transcript_path: "",
            background_tasks: &serde_json::Value::Null,
            session_crons: &serde_json::Value::Null,
        },
        StepEvent::BeforeCompaction {
            trigger: "auto",
            instructions: "",
        },
        StepEvent::AfterCompaction {
            trigger: "auto",
            summary: "s",
        },
        StepEvent::RunEnd {
            output: "o",
            reason: "other",
        },
        StepEvent::RunError { error: "e" },
    ];
    let mut outcomes = Vec::with_capacity(events.len());
    for event in events {
        outcomes.push(stack.fold(&ctx, event).await);
    }
    outcomes
}

/// Scripts (see `scripts`) and the seeds `nested` reads to nest them.
fn scripts_and_seeds(specific_tools: bool) -> impl Strategy<Value = (Vec<Script>, Vec<u8>)> {
    (
        scripts(specific_tools),
        prop::collection::vec(any::<u8>(), 0..16),
    )
}

fn paused_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("runtime")
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: CASES,
        failure_persistence: None,
        ..Config::default()
    })
}

#[test]
fn nested_stacks_equal_the_flattened_stack_on_every_event_kind() {
    let rt = paused_runtime();
    let strategy = scripts_and_seeds(true);
    runner()
        .run(&strategy, |(scripts, seeds)| {
            let flat = flat(&scripts, Timing::Ready);
            let nested = nested(&scripts, &mut seeds.iter(), Timing::Ready, Nesting::Push);
            prop_assert_eq!(
                flat.ids().collect::<Vec<_>>(),
                nested.ids().collect::<Vec<_>>()
            );
            let (expected, actual) =
                rt.block_on(async { (fold_all(&flat).await, fold_all(&nested).await) });
            for (want, got) in expected.iter().zip(&actual) {
                prop_assert_eq!(want, got, "phase `{}`", want.phase);
            }
            Ok(())
        })
        .expect("nested == flattened");
}

#[test]
fn a_stack_behind_another_hook_gives_the_flattened_net_flow() {
    // Forced specific tools are left out: the check that a forced tool was
    // not removed runs where a fold finishes, so an inner stack checks its
    // own merge before the outer hooks' patches (a documented difference).
    let rt = paused_runtime();
    let strategy = scripts_and_seeds(false);
    runner()
        .run(&strategy, |(scripts, seeds)| {
            let flat = flat(&scripts, Timing::Ready);
            let opaque = nested(&scripts, &mut seeds.iter(), Timing::Ready, Nesting::Opaque);
            let (expected, actual) =
                rt.block_on(async { (fold_all(&flat).await, fold_all(&opaque).await) });
            for (want, got) in expected.into_iter().zip(actual) {
                let phase = want.phase;
                prop_assert_eq!(want.net_flow(), got.net_flow(), "phase `{}`", phase);
            }
            Ok(())
        })
        .expect("opaque nesting == flattened net flow");
}

#[test]
fn a_stack_behind_a_forwarding_hook_folds_like_the_flattened_stack() {
    let rt = paused_runtime();
    let strategy = scripts_and_seeds(true);
    runner()
        .run(&strategy, |(scripts, seeds)| {
            let flat = flat(&scripts, Timing::Delayed);
            let forwarding = nested(
                &scripts,
                &mut seeds.iter(),
                Timing::Delayed,
                Nesting::Forwarding,
            );
            let (expected, actual) =
                rt.block_on(async { (fold_all(&flat).await, fold_all(&forwarding).await) });
            for (want, got) in expected.into_iter().zip(actual) {
                let phase = want.phase;
                prop_assert_eq!(want, got, "phase `{}`", phase);
            }
            Ok(())
        })
        .expect("forwarding nesting == flattened");
}

#[test]
fn results_depend_on_declared_order_not_on_hook_delays() {
    let rt = paused_runtime();
    let strategy = scripts_and_seeds(true);
    runner()
        .run(&strategy, |(scripts, seeds)| {
            let ready = flat(&scripts, Timing::Ready);
            let delayed_flat = flat(&scripts, Timing::Delayed);
            let delayed_nested =
                nested(&scripts, &mut seeds.iter(), Timing::Delayed, Nesting::Push);
            let (expected, flat_delayed, nested_delayed) = rt.block_on(async {
                (
                    fold_all(&ready).await,
                    fold_all(&delayed_flat).await,
                    fold_all(&delayed_nested).await,
                )
            });
            prop_assert_eq!(&expected, &flat_delayed);
            prop_assert_eq!(&expected, &nested_delayed);
            Ok(())
        })
        .expect("delays do not change results");
}

#[test]
fn the_scripts_exercise_every_kind_of_result() {
    // Guards the properties above against generators that never produce
    // merges, conflicts, rewrites, context or fail-closed results.
    let rt = paused_runtime();
    // A fixed seed: this checks the generators, it must not be flaky.
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let strategy = scripts(true);
    let mut seen = [false; 6];
    for _ in 0..300 {
        let scripts = strategy.new_tree(&mut runner).expect("generate").current();
        for outcome in rt.block_on(fold_all(&flat(&scripts, Timing::Ready))) {
            seen[0] |= !outcome.patch.is_empty();
            seen[1] |= outcome
                .diagnostics
                .iter()
                .any(|d| matches!(d, hooks_runtime::Diagnostic::Conflict { .. }));
            seen[2] |= outcome.args.is_some() || outcome.result.is_some();
            seen[3] |= !outcome.context.is_empty();
            seen[4] |= outcome.diagnostics.iter().any(|d| d.fails_closed());
            seen[5] |= outcome
                .diagnostics
                .iter()
                .any(|d| matches!(d, hooks_runtime::Diagnostic::ToolChoiceRemoved { .. }));
        }
    }
    assert_eq!(
        seen, [true; 6],
        "patch, conflict, rewrite, context, fail-closed, removed tool"
    );
}
