//! The dispatch matrix: one `before_tool` event per iteration through 1,
//! 10, 100 and 1,000 generated rules (`benches/policies/`), for a miss and
//! for a hit through an exact tool name, a tool glob, a tool regex and a
//! `when` regex, on five engines: the table `hooks!` compiled into the
//! binary, the same config loaded at run time ([`Table::load_str`]), an
//! interpreted engine (`benches/interpreted/`), and two peers a user would
//! pick instead (`benches/peers/`): the same rules as Rego evaluated by
//! `regorus`, and a Claude-Code-style list of hooks with regex matchers.
//! Before timing, it checks that every engine decides each case as the
//! policy says and prints the heap allocations per event of each engine
//! (`allocation-counter`).
//!
//! Run with `cargo bench -p agent-hooks-benches --bench dispatch_matrix`.

use std::hint::black_box;

use agent_hooks::{AgentHook, Flow, HookContext, StepEvent, Table};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

#[path = "interpreted/mod.rs"]
mod interpreted;
#[path = "support/measure.rs"]
mod measure;
#[path = "peers/mod.rs"]
mod peers;
#[path = "policies/mod.rs"]
mod policies;
#[path = "support/mod.rs"]
mod support;

use interpreted::{Decision, Engine, Event};
use measure::{allocations, poll_ready};
use peers::Rules;
use peers::claude::Claude;
use peers::rego::Rego;
use policies::{Case, Family, SIZES};

agent_hooks::hooks!(name = Exact1, "policies/exact_1.yaml");
agent_hooks::hooks!(name = Exact10, "policies/exact_10.yaml");
agent_hooks::hooks!(name = Exact100, "policies/exact_100.yaml");
agent_hooks::hooks!(name = Exact1000, "policies/exact_1000.yaml");
agent_hooks::hooks!(name = Glob1, "policies/glob_1.yaml");
agent_hooks::hooks!(name = Glob10, "policies/glob_10.yaml");
agent_hooks::hooks!(name = Glob100, "policies/glob_100.yaml");
agent_hooks::hooks!(name = Glob1000, "policies/glob_1000.yaml");
agent_hooks::hooks!(name = Regex1, "policies/regex_1.yaml");
agent_hooks::hooks!(name = Regex10, "policies/regex_10.yaml");
agent_hooks::hooks!(name = Regex100, "policies/regex_100.yaml");
agent_hooks::hooks!(name = Regex1000, "policies/regex_1000.yaml");
agent_hooks::hooks!(name = When1, "policies/when_1.yaml");
agent_hooks::hooks!(name = When10, "policies/when_10.yaml");
agent_hooks::hooks!(name = When100, "policies/when_100.yaml");
agent_hooks::hooks!(name = When1000, "policies/when_1000.yaml");

/// The table `hooks!` compiled for `family` at `n` rules.
fn compiled(family: Family, n: usize) -> &'static Table {
    match (family, n) {
        (Family::Exact, 1) => Exact1::table(),
        (Family::Exact, 10) => Exact10::table(),
        (Family::Exact, 100) => Exact100::table(),
        (Family::Exact, 1000) => Exact1000::table(),
        (Family::Glob, 1) => Glob1::table(),
        (Family::Glob, 10) => Glob10::table(),
        (Family::Glob, 100) => Glob100::table(),
        (Family::Glob, 1000) => Glob1000::table(),
        (Family::Regex, 1) => Regex1::table(),
        (Family::Regex, 10) => Regex10::table(),
        (Family::Regex, 100) => Regex100::table(),
        (Family::Regex, 1000) => Regex1000::table(),
        (Family::When, 1) => When1::table(),
        (Family::When, 10) => When10::table(),
        (Family::When, 100) => When100::table(),
        (Family::When, 1000) => When1000::table(),
        _ => panic!("no compiled policy {family:?} {n}"),
    }
}

fn table_flow(table: &Table, ctx: &HookContext, tool: &str, args: &serde_json::Value) -> Flow {
    poll_ready(table.on_event(
        ctx,
        StepEvent::BeforeTool {
            tool_name: tool,
            call_id: "c",
            args,
        },
    ))
}

/// The reason a flow blocks with (`None`: it lets the call through).
fn flow_reason(flow: Flow) -> Option<String> {
    match flow {
        Flow::Continue => None,
        Flow::Skip { reason } => Some(reason.into_owned()),
        other => panic!("a generated policy only blocks: {other:?}"),
    }
}

fn interpreted_decision(engine: &Engine, tool: &str, args: &serde_json::Value) -> Decision {
    engine.dispatch(&Event {
        phase: "before_tool",
        tool,
        args,
    })
}

fn bench(c: &mut Criterion) {
    let ctx = HookContext::new("bench");
    let mut group = c.benchmark_group("dispatch");
    for family in Family::MATRIX {
        for n in SIZES {
            let source = family.yaml(n);
            // The name `hooks!` gives the compiled table (its path relative to
            // the bench's manifest), so that the plans compare equal.
            let name = format!("policies/{}", family.file(n));
            let loaded = Table::load_str(&source, &name).expect("the policy loads");
            let engine = Engine::load(&source);
            let rules = Rules::parse(&source);
            let mut rego = Rego::new(&rules);
            let claude = Claude::new(&rules);
            let static_table = compiled(family, n);
            assert_eq!(static_table.plan(), loaded.plan(), "{family:?} {n}");
            for case in Case::ALL.into_iter().filter(|c| c.family() == family) {
                let (tool, args) = case.event(n);
                let id = |engine: &str| BenchmarkId::new(format!("{}/{engine}", case.name()), n);
                // Every engine decides the case as the policy says: the
                // last rule blocks, or none does.
                let expected = case.hits().then(|| format!("rule {}", n - 1));
                let what = format!("{} n={n}", case.name());
                assert_eq!(
                    flow_reason(table_flow(static_table, &ctx, &tool, &args)),
                    expected,
                    "compiled {what}"
                );
                assert_eq!(
                    flow_reason(table_flow(&loaded, &ctx, &tool, &args)),
                    expected,
                    "loaded {what}"
                );
                let interpreted = match interpreted_decision(&engine, &tool, &args) {
                    Decision::Continue => None,
                    Decision::Block(reason) => Some(reason),
                };
                assert_eq!(interpreted, expected, "interpreted {what}");
                assert_eq!(rego.decide(&tool, &args), expected, "regorus {what}");
                assert_eq!(claude.decide(&tool, &args), expected, "claude {what}");
                println!(
                    "allocations/event {what}: compiled {} loaded {} interpreted {} regorus {} claude {}",
                    allocations(1_000, || drop(black_box(table_flow(
                        static_table,
                        &ctx,
                        &tool,
                        &args
                    )))),
                    allocations(1_000, || drop(black_box(table_flow(
                        &loaded, &ctx, &tool, &args
                    )))),
                    allocations(1_000, || drop(black_box(interpreted_decision(
                        &engine, &tool, &args
                    )))),
                    allocations(10, || drop(black_box(rego.decide(&tool, &args)))),
                    allocations(1_000, || drop(black_box(claude.decide(&tool, &args)))),
                );
                group.bench_function(id("compiled"), |b| {
                    b.iter(|| table_flow(static_table, &ctx, black_box(&tool), black_box(&args)))
                });
                group.bench_function(id("loaded"), |b| {
                    b.iter(|| table_flow(&loaded, &ctx, black_box(&tool), black_box(&args)))
                });
                group.bench_function(id("interpreted"), |b| {
                    b.iter(|| interpreted_decision(&engine, black_box(&tool), black_box(&args)))
                });
                group.bench_function(id("regorus"), |b| {
                    b.iter(|| rego.decide(black_box(&tool), black_box(&args)))
                });
                group.bench_function(id("claude"), |b| {
                    b.iter(|| claude.decide(black_box(&tool), black_box(&args)))
                });
            }
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = support::quick();
    targets = bench
}
criterion_main!(benches);
