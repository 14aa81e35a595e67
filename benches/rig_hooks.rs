//! The same policy as hand-written rig hooks in a rig `HookStack` (regex
//! matching, as a rig user writes it) and as our table compiled by `hooks!`
//! behind `hooks_rig::RigHooks`, per rig hook point, in one run.
//!
//! rig builds its hook context only inside a run, so each stack runs one
//! agent on rig's scripted model, wrapped in a hook that, at every hook
//! point, calls the wrapped stack `ITERS` times with the run's real context
//! and event and keeps the mean. Tools are no-ops: only the hooks are timed.
//!
//! The scripted run has `TURNS` (20) model calls; the completion-call hooks
//! are timed at turns 1, 5 and 20 (the history grows by a call and its
//! result per turn).
//!
//! Then the dispatch matrix of `benches/dispatch_matrix.rs` (the same
//! generated policies and events, `benches/policies/`) on rig's side: one
//! hand-written rig hook that parses the arguments once and checks the `n`
//! rules in a loop (matching with `regex`, as a rig user writes it); `n`
//! rig hooks, one per rule, in a rig `HookStack`, each parsing the
//! arguments again (what a stack of hooks costs per hook); and the same
//! policy loaded into a `Table` behind `RigHooks`; all timed inside one
//! run's `on_dispatch` with that run's context, after checking that each
//! decides the case as the policy says.
//!
//! Run with `cargo bench -p agent-hooks-benches --bench rig_hooks`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_hooks::HookStack as OurStack;
use hooks_rig::RigHooks;
use regex::Regex;
use rig_agent::AgentBuilder;
use rig_agent::agent::{
    AgentHook, CompletionCallAction, CompletionCallEvent, DispatchAction, DispatchEvent,
    HookContext, HookStack, OutcomeAction, OutcomeEvent, RequestPatch, StepEventKind,
};
use rig_agent::tool::{Tool, ToolContext, ToolExecutionError};
use rig_core::completion::Document;
use rig_core::effect::EffectKind;
use rig_core::test_utils::{MockCompletionModel, MockTurn};
use serde_json::{Value, json};

#[path = "support/measure.rs"]
mod measure;
#[path = "policies/mod.rs"]
mod policies;

use measure::{allocations, poll_ready};

use policies::{Case, Family, SIZES};

agent_hooks::hooks!(name = Policy, "rig_policy.yaml");

/// Calls per hook point and event.
const ITERS: u32 = 20_000;

/// The model calls whose completion-call hooks are timed: the history
/// grows by a tool call and its result per turn.
const TIMED_TURNS: [usize; 3] = [1, 5, 20];

/// Model calls in the scripted run (the last one answers with text).
const TURNS: usize = 20;

// --- the policy, hand-written as rig hooks ----------------------------------

struct BlockRmRf {
    re: Regex,
}

impl AgentHook for BlockRmRf {
    async fn on_dispatch(&self, _: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        if event.tool_name() != Some("bash") {
            return DispatchAction::proceed();
        }
        let args: Value =
            serde_json::from_str(event.tool_args().unwrap_or("{}")).unwrap_or_default();
        match args["command"].as_str() {
            Some(command) if self.re.is_match(command) => {
                DispatchAction::skip("recursive forced deletes (rm -rf) are not allowed")
            }
            _ => DispatchAction::proceed(),
        }
    }
}

struct CapReads;

impl AgentHook for CapReads {
    async fn on_dispatch(&self, _: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        if event.tool_name() != Some("read_file") {
            return DispatchAction::proceed();
        }
        let mut args: Value =
            serde_json::from_str(event.tool_args().unwrap_or("{}")).unwrap_or_default();
        let Some(object) = args
            .as_object_mut()
            .filter(|o| !o.contains_key("max_bytes"))
        else {
            return DispatchAction::proceed();
        };
        object.insert("max_bytes".into(), json!(200_000));
        object.remove("encoding");
        DispatchAction::rewrite_tool_args(event.kind, args)
    }
}

/// Reminders for the next request, kept in the run's scratchpad.
#[derive(Clone, Default)]
struct Reminders(Vec<String>);

struct Focused;

impl AgentHook for Focused {
    async fn on_completion_call(
        &self,
        ctx: &HookContext,
        _: CompletionCallEvent<'_>,
    ) -> CompletionCallAction {
        let reminders = ctx.scratchpad().remove::<Reminders>().unwrap_or_default();
        let docs = reminders
            .0
            .into_iter()
            .enumerate()
            .map(|(i, text)| Document {
                id: format!("reminder-{i}"),
                text,
                additional_props: Default::default(),
            });
        CompletionCallAction::patch(
            RequestPatch::new()
                .temperature(0.2)
                .max_tokens(4096)
                .extra_context(docs),
        )
    }
}

struct Remind;

impl AgentHook for Remind {
    async fn on_outcome(&self, ctx: &HookContext, event: OutcomeEvent<'_>) -> OutcomeAction {
        if event.tool_name() == Some("write_file")
            && event.tool_result().is_some_and(|r| r.is_success())
        {
            ctx.scratchpad()
                .update::<Reminders, _>(|r| r.0.push("Run the tests before finishing.".into()));
        }
        OutcomeAction::proceed()
    }
}

fn hand_written() -> HookStack {
    let mut stack = HookStack::new();
    stack.push(BlockRmRf {
        re: Regex::new(r"\brm\s+(-[a-zA-Z]*r[a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*r)\b").expect("regex"),
    });
    stack.push(CapReads);
    stack.push(Focused);
    stack.push(Remind);
    stack
}

fn ours() -> RigHooks {
    RigHooks::new(OurStack::new().with("rig_policy.yaml", Policy::new()))
}

// --- the dispatch matrix, hand-written as rig hooks -------------------------

/// What one generated rule matches, as a rig user would check it.
enum Matcher {
    /// The exact tool name.
    Exact(String),
    /// A tool glob `prefix*`.
    Prefix(String),
    /// A tool regex, anchored.
    Tool(Regex),
    /// `bash` whose `command` argument the regex finds.
    Command(Regex),
}

/// Rule `i` of a generated policy: blocks what its matcher matches.
struct RuleHook {
    matcher: Matcher,
    reason: String,
}

impl AgentHook for RuleHook {
    async fn on_dispatch(&self, _: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        let Some(tool) = event.tool_name() else {
            return DispatchAction::proceed();
        };
        let hit = match &self.matcher {
            Matcher::Exact(name) => tool == name,
            Matcher::Prefix(prefix) => tool.starts_with(prefix.as_str()),
            Matcher::Tool(re) => re.is_match(tool),
            Matcher::Command(re) => {
                tool == "bash" && {
                    let args: Value =
                        serde_json::from_str(event.tool_args().unwrap_or("{}")).unwrap_or_default();
                    args["command"].as_str().is_some_and(|c| re.is_match(c))
                }
            }
        };
        if hit {
            DispatchAction::skip(self.reason.clone())
        } else {
            DispatchAction::proceed()
        }
    }
}

/// The generated policy of `family` at `n` rules as a rig user writes it:
/// one rig hook that parses the arguments once (when a rule needs them)
/// and checks the rules in declared order.
struct RulesHook {
    rules: Vec<RuleHook>,
}

impl AgentHook for RulesHook {
    async fn on_dispatch(&self, _: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        let Some(tool) = event.tool_name() else {
            return DispatchAction::proceed();
        };
        let mut args: Option<Value> = None;
        for rule in &self.rules {
            let hit = match &rule.matcher {
                Matcher::Exact(name) => tool == name,
                Matcher::Prefix(prefix) => tool.starts_with(prefix.as_str()),
                Matcher::Tool(re) => re.is_match(tool),
                Matcher::Command(re) => {
                    tool == "bash" && {
                        let args = args.get_or_insert_with(|| {
                            serde_json::from_str(event.tool_args().unwrap_or("{}"))
                                .unwrap_or_default()
                        });
                        args["command"].as_str().is_some_and(|c| re.is_match(c))
                    }
                }
            };
            if hit {
                return DispatchAction::skip(rule.reason.clone());
            }
        }
        DispatchAction::proceed()
    }
}

/// The generated policy of `family` at `n` rules in one rig hook.
fn hand_written_loop(family: Family, n: usize) -> RulesHook {
    RulesHook {
        rules: (0..n).map(|i| rule_hook(family, i)).collect(),
    }
}

/// Rule `i` of the generated policy of `family`.
fn rule_hook(family: Family, i: usize) -> RuleHook {
    let matcher = match family {
        Family::Exact => Matcher::Exact(format!("tool_{i}")),
        Family::Glob => Matcher::Prefix(format!("mcp__s{i}__")),
        Family::Regex => {
            Matcher::Tool(Regex::new(&format!("^web_{i}_(get|post)$")).expect("regex"))
        }
        Family::When | Family::Mixed => {
            Matcher::Command(Regex::new(&format!("danger-{i};")).expect("regex"))
        }
    };
    RuleHook {
        matcher,
        reason: format!("rule {i}"),
    }
}

/// The generated policy of `family` at `n` rules as `n` rig hooks, one
/// per rule, each parsing the arguments again (no rig user writes this;
/// kept to show what a stack of hooks costs per hook).
fn hand_written_rules(family: Family, n: usize) -> HookStack {
    let mut stack = HookStack::new();
    for i in 0..n {
        stack.push(rule_hook(family, i));
    }
    stack
}

/// The same policy loaded into a `Table`, behind `RigHooks`.
fn ours_rules(family: Family, n: usize) -> RigHooks {
    let table =
        agent_hooks::Table::load_str(&family.yaml(n), &family.file(n)).expect("the policy loads");
    RigHooks::from_hook(family.file(n), table)
}

/// Mean ns of `ITERS / n` (at least 100) dispatches of `event` through `hook`.
async fn dispatch_ns<H: AgentHook>(
    hook: &H,
    ctx: &HookContext,
    event: DispatchEvent<'_>,
    n: usize,
) -> (f64, bool, f64) {
    let iters = (ITERS as usize * 10 / n).clamp(100, ITERS as usize) as u32;
    let start = Instant::now();
    for _ in 1..iters {
        std::hint::black_box(hook.on_dispatch(ctx, event).await);
    }
    let denied = matches!(hook.on_dispatch(ctx, event).await, DispatchAction::Deny(_));
    let ns = start.elapsed().as_nanos() as f64 / f64::from(iters);
    (
        ns,
        denied,
        allocations(100, || drop(poll_ready(hook.on_dispatch(ctx, event)))),
    )
}

/// One engine's figures on one case: ns/event, allocations/event.
type Figures = (f64, f64);

/// One row of the matrix: case, rule count, then one rig hook checking the
/// rules in a loop, `n` rig hooks, and the table behind `RigHooks`.
type MatrixRow = (&'static str, usize, Figures, Figures, Figures);

/// Runs the matrix at the first dispatch of a run (its context and ids),
/// then lets the run go on.
struct MatrixProbe {
    rows: Arc<Mutex<Vec<MatrixRow>>>,
}

impl AgentHook for MatrixProbe {
    async fn on_dispatch(&self, ctx: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        if event.tool_name().is_none() || !self.rows.lock().expect("lock").is_empty() {
            return DispatchAction::proceed();
        }
        let mut rows = Vec::new();
        for family in Family::MATRIX {
            for n in SIZES {
                let (looped, rig, ours) = (
                    hand_written_loop(family, n),
                    hand_written_rules(family, n),
                    ours_rules(family, n),
                );
                for case in Case::ALL.into_iter().filter(|c| c.family() == family) {
                    let (name, args) = case.event(n);
                    let kind = EffectKind::ToolCall {
                        name,
                        args: args.to_string(),
                    };
                    let probe = DispatchEvent {
                        kind: &kind,
                        ..event
                    };
                    let (loop_ns, loop_denied, loop_allocs) =
                        dispatch_ns(&looped, ctx, probe, n).await;
                    let (rig_ns, rig_denied, rig_allocs) = dispatch_ns(&rig, ctx, probe, n).await;
                    let (ours_ns, ours_denied, ours_allocs) =
                        dispatch_ns(&ours, ctx, probe, n).await;
                    // Every engine decides the case as the policy says.
                    assert_eq!(
                        (loop_denied, rig_denied, ours_denied),
                        (case.hits(), case.hits(), case.hits()),
                        "{} {n}",
                        case.name()
                    );
                    rows.push((
                        case.name(),
                        n,
                        (loop_ns, loop_allocs),
                        (rig_ns, rig_allocs),
                        (ours_ns, ours_allocs),
                    ));
                }
            }
        }
        *self.rows.lock().expect("lock") = rows;
        DispatchAction::proceed()
    }
}

async fn matrix() -> Vec<MatrixRow> {
    let rows = Arc::new(Mutex::new(Vec::new()));
    run_agent(MatrixProbe {
        rows: Arc::clone(&rows),
    })
    .await;
    rows.lock().expect("lock").clone()
}

// --- the timing wrapper --------------------------------------------------------

type Means = Arc<Mutex<BTreeMap<String, Duration>>>;

/// Calls `inner` `ITERS` times at each hook point and records the mean.
struct Timed<H> {
    inner: H,
    means: Means,
}

impl<H> Timed<H> {
    /// Keeps the first mean of each label (later turns repeat tool calls).
    fn record(&self, label: String, total: Duration) {
        self.means
            .lock()
            .expect("lock")
            .entry(label)
            .or_insert(total / ITERS);
    }
}

impl<H: AgentHook> AgentHook for Timed<H> {
    async fn on_completion_call(
        &self,
        ctx: &HookContext,
        event: CompletionCallEvent<'_>,
    ) -> CompletionCallAction {
        if !TIMED_TURNS.contains(&event.turn) {
            return self.inner.on_completion_call(ctx, event).await;
        }
        let start = Instant::now();
        for _ in 1..ITERS {
            std::hint::black_box(self.inner.on_completion_call(ctx, event).await);
        }
        let action = self.inner.on_completion_call(ctx, event).await;
        self.record(
            format!("completion call (turn {:>2})", event.turn),
            start.elapsed(),
        );
        action
    }

    async fn on_dispatch(&self, ctx: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        let start = Instant::now();
        for _ in 1..ITERS {
            std::hint::black_box(self.inner.on_dispatch(ctx, event).await);
        }
        let action = self.inner.on_dispatch(ctx, event).await;
        let what = match &action {
            DispatchAction::Proceed => "proceed",
            DispatchAction::Patch(_) => "patch",
            DispatchAction::Deny(_) => "deny",
        };
        let label = match event.tool_name() {
            Some(tool) => format!("tool dispatch {tool} ({what})"),
            None => format!("completion dispatch ({what})"),
        };
        self.record(label, start.elapsed());
        action
    }

    async fn on_outcome(&self, ctx: &HookContext, event: OutcomeEvent<'_>) -> OutcomeAction {
        let start = Instant::now();
        for _ in 1..ITERS {
            std::hint::black_box(self.inner.on_outcome(ctx, event).await);
        }
        let action = self.inner.on_outcome(ctx, event).await;
        let label = match event.tool_name() {
            Some(tool) => format!("tool outcome {tool}"),
            None => String::from("completion outcome"),
        };
        self.record(label, start.elapsed());
        action
    }

    fn observes(&self, kind: StepEventKind) -> bool {
        self.inner.observes(kind)
    }
}

/// Tools that do nothing (the bench times hooks, not tools).
macro_rules! noop_tool {
    ($ty:ident, $name:literal) => {
        struct $ty;

        impl Tool for $ty {
            const NAME: &'static str = $name;
            type Args = Value;
            type Output = String;
            type Error = ToolExecutionError;

            fn description(&self) -> String {
                "does nothing".into()
            }

            fn parameters(&self) -> Value {
                json!({"type": "object"})
            }

            async fn call(&self, _: &mut ToolContext, _: Value) -> Result<String, Self::Error> {
                Ok(String::from("ok"))
            }
        }
    };
}

noop_tool!(Bash, "bash");
noop_tool!(ReadFile, "read_file");
noop_tool!(WriteFile, "write_file");

/// Four tool calls that exercise the policy, then further `read_file`
/// calls that only grow the history, then a text answer at turn `TURNS`.
fn script() -> MockCompletionModel {
    let mut turns = vec![
        MockTurn::tool_call("c1", "bash", json!({"command": "rm -rf build"})),
        MockTurn::tool_call("c2", "bash", json!({"command": "cargo test"})),
        MockTurn::tool_call(
            "c3",
            "read_file",
            json!({"path": "README.md", "encoding": "latin1"}),
        ),
        MockTurn::tool_call("c4", "write_file", json!({"path": "a.txt", "content": "x"})),
    ];
    for i in turns.len() + 1..TURNS {
        turns.push(MockTurn::tool_call(
            format!("c{i}"),
            "read_file",
            json!({"path": format!("src/file_{i}.rs"), "max_bytes": 1000}),
        ));
    }
    turns.push(MockTurn::text("done"));
    MockCompletionModel::from_turns(turns)
}

async fn measure<H: AgentHook + 'static>(hook: H) -> BTreeMap<String, Duration> {
    let means = Means::default();
    run_agent(Timed {
        inner: hook,
        means: Arc::clone(&means),
    })
    .await;
    means.lock().expect("lock").clone()
}

/// Runs one agent with the no-op tools and `hook` on the scripted model.
async fn run_agent(hook: impl AgentHook + 'static) {
    let agent = AgentBuilder::new(script())
        .tool(Bash)
        .tool(ReadFile)
        .tool(WriteFile)
        .add_hook(hook)
        .build();
    agent
        .prompt("go")
        .max_turns(TURNS + 2)
        .await
        .expect("the run completes");
}

fn observes_ns<H: AgentHook>(hook: &H) -> f64 {
    let start = Instant::now();
    for _ in 0..ITERS {
        std::hint::black_box(hook.observes(std::hint::black_box(StepEventKind::TextDelta)));
    }
    start.elapsed().as_nanos() as f64 / f64::from(ITERS)
}

fn main() {
    // `cargo test --benches` and `cargo bench -- --list` pass flags; only
    // a plain `cargo bench` run measures.
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let (rig, ours_means, rows) = runtime.block_on(async {
        let rig = measure(hand_written()).await;
        let ours_means = measure(ours()).await;
        (rig, ours_means, matrix().await)
    });
    println!(
        "per event, mean of {ITERS} calls (ns): rig HookStack by hand | hooks! table behind RigHooks"
    );
    let labels: std::collections::BTreeSet<_> = rig.keys().chain(ours_means.keys()).collect();
    for label in labels {
        let ns = |m: &BTreeMap<String, Duration>| {
            m.get(label)
                .map_or_else(|| String::from("-"), |d| d.as_nanos().to_string())
        };
        println!("  {label:<40} {:>8} | {:>8}", ns(&rig), ns(&ours_means));
    }
    println!(
        "  {:<40} {:>8} | {:>8}   (observes: {} | {})",
        "observes(TextDelta)",
        format!("{:.1}", observes_ns(&hand_written())),
        format!("{:.1}", observes_ns(&ours())),
        hand_written().observes(StepEventKind::TextDelta),
        ours().observes(StepEventKind::TextDelta),
    );
    println!(
        "dispatch matrix, per event (ns): one rig hook checking the n rules in a loop | n rig hooks in a HookStack (one per rule) | the loaded table behind RigHooks; ours / one hook"
    );
    for (case, n, (loop_ns, loop_allocs), (rig_ns, rig_allocs), (ours_ns, ours_allocs)) in rows {
        println!(
            "  {case:<10} n={n:<5} {loop_ns:>10.0} | {rig_ns:>10.0} | {ours_ns:>10.0}   ({:.2}x)   allocations/event {loop_allocs} | {rig_allocs} | {ours_allocs}",
            ours_ns / loop_ns
        );
    }
}
