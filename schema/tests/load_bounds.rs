//! Configs whose patterns make determinization blow up (the union of many
//! `*contains*` globs doubles its states with each glob; small regexes like
//! `a0.{10}$` need 2^11 states each) load within a bound, and the index
//! built for them still selects exactly the rules whose pattern matches.
//! Before pattern groups were bounded, 1,000 such globs took 106 s and more
//! to load (each DFA over the size limit was split in halves and
//! determinized again); the bounds below are generous for a loaded 2-core
//! CI machine.

use std::time::{Duration, Instant};

use hooks_schema::Phase;
use hooks_schema::plan::{Facts, Plan, Subject};
use serde_json::json;

fn config(n: usize, leaf: impl Fn(usize) -> String) -> String {
    let mut s = String::from("version: 1\nhooks:\n");
    for i in 0..n {
        s.push_str(&format!(
            "  - id: r{i}\n    phase: before_tool\n    when: {}\n    block: {{ reason: no }}\n",
            leaf(i)
        ));
    }
    s
}

/// The CPU time this thread has used (Linux: `/proc/thread-self/schedstat`,
/// nanoseconds on the CPU), or `None` where it cannot be read. CPU time,
/// not wall time, so that a loaded machine does not fail the bound.
fn thread_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Compiles `source`, failing past `bound` of CPU time (of wall time where
/// the CPU time cannot be read).
fn compile_within(source: &str, bound: Duration) -> Plan {
    let (cpu, wall) = (thread_cpu(), Instant::now());
    let compiled = hooks_schema::compile_str(source, "bounds.yaml").expect("compiles");
    let took = match (cpu, thread_cpu()) {
        (Some(before), Some(after)) => after.saturating_sub(before),
        _ => wall.elapsed(),
    };
    assert!(
        took < bound,
        "took {took:?} of CPU, over the bound of {bound:?}"
    );
    compiled.plan
}

fn matched(plan: &Plan, pointer: &str, text: &str) -> Vec<u32> {
    let args = json!({ pointer: text });
    let facts = Facts {
        phase: Phase::BeforeTool,
        tool: Some("bash"),
        subject: Subject::Json(&args),
        args: Some(&args),
        outcome: None,
        admission: None,
    };
    plan.matching(facts).collect()
}

#[test]
fn a_thousand_contains_globs_load_within_a_bound_and_match_exactly() {
    let n = 1_000;
    let source = config(n, |i| format!("{{ pointer: /path, glob: '*secret{i}*' }}"));
    let plan = compile_within(&source, Duration::from_secs(20));
    for path in [
        "/srv/secret12/x",
        "/a/secret999/b/secret5",
        "/nothing/here",
        "/été/secret7/é",
        "secret0",
    ] {
        let expected: Vec<u32> = (0..n as u32)
            .filter(|i| path.contains(&format!("secret{i}")))
            .collect();
        assert_eq!(matched(&plan, "path", path), expected, "{path}");
    }
}

#[test]
fn five_hundred_small_regexes_load_within_a_bound_and_match_exactly() {
    let n = 512;
    let source = config(n, |i| {
        format!("{{ pointer: /command, matches: 'a{i}.{{10}}$' }}")
    });
    let plan = compile_within(&source, Duration::from_secs(20));
    let regexes: Vec<regex::Regex> = (0..n)
        .map(|i| regex::Regex::new(&format!("a{i}.{{10}}$")).expect("regex"))
        .collect();
    for command in [
        "xa5bbbbbbbbbb",
        "a17__________",
        "a3000000000000",
        "a42xxxxxxxxx",
        "a1éééééééééé",
        "nothing",
    ] {
        let expected: Vec<u32> = (0..n as u32)
            .filter(|&i| regexes[i as usize].is_match(command))
            .collect();
        assert_eq!(matched(&plan, "command", command), expected, "{command}");
    }
}

#[test]
fn a_one_mebibyte_config_of_contains_globs_loads_within_a_bound() {
    // Rules like the ones above up to the size limit (1 MiB): once more
    // than 900 s.
    let leaf = |i: usize| format!("{{ pointer: /path, glob: '*secret{i}*' }}");
    let rule = |i: usize| {
        config(1, |_| leaf(i))
            .replacen("version: 1\nhooks:\n", "", 1)
            .replacen("id: r0", &format!("id: r{i}"), 1)
    };
    let mut source = config(0, leaf);
    let mut n = 0;
    while source.len() + rule(n).len() <= 1 << 20 {
        source.push_str(&rule(n));
        n += 1;
    }
    assert!(source.len() > (1 << 20) - 200, "{}", source.len());
    let started = Instant::now();
    let plan = compile_within(&source, Duration::from_secs(60));
    eprintln!(
        "{} bytes, {n} rules: compiled in {:?}",
        source.len(),
        started.elapsed()
    );
    let path = "/a/secret9999/b";
    let expected: Vec<u32> = (0..n as u32)
        .filter(|i| path.contains(&format!("secret{i}")))
        .collect();
    assert_eq!(matched(&plan, "path", path), expected);
}
