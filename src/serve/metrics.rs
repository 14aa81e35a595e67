//! The server's counters, after Codex's hook metrics (`hooks.run`,
//! `hooks.run.duration_ms`): served as JSON at `/metrics` and, as
//! `tracing` metrics events, exported over OTLP when the `otlp` feature's
//! layer is installed (the `monotonic_counter.` / `histogram.` field
//! prefixes of `tracing-opentelemetry`'s `MetricsLayer`).

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::Agent;

/// Upper bounds (ms) of the duration histogram's buckets; a last bucket
/// counts the rest.
const BUCKETS_MS: [u64; 12] = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000];

/// One agent's duration histogram.
#[derive(Debug, Default, Clone)]
struct Histogram {
    count: u64,
    sum_ms: f64,
    /// `BUCKETS_MS.len() + 1` counts: one per bound, then the rest.
    buckets: Vec<u64>,
}

#[derive(Debug, Default)]
struct Inner {
    /// `hooks.run`: answered requests per agent and status code.
    runs: BTreeMap<(Agent, u16), u64>,
    /// `hooks.run.duration_ms`: the handler's time per agent.
    durations: BTreeMap<Agent, Histogram>,
    /// `hooks.serve.rejected`: requests refused before the handler, per reason.
    rejected: BTreeMap<&'static str, u64>,
    /// `hooks.serve.reload`: reloads that swapped a new handler in, and
    /// those that failed.
    reload_ok: u64,
    reload_failed: u64,
    /// `hooks.serve.in_flight`: hook requests holding a slot now.
    in_flight: u64,
}

/// The counters of one server (shared by its requests).
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    inner: Mutex<Inner>,
}

impl Metrics {
    fn with<T>(&self, f: impl FnOnce(&mut Inner) -> T) -> T {
        // A panic while counting leaves counters, not invariants: go on.
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut inner)
    }

    /// A request answered by the handler (or by its deadline answer).
    pub(crate) fn run(&self, agent: Agent, status: u16, elapsed_ms: f64) {
        self.with(|m| {
            *m.runs.entry((agent, status)).or_default() += 1;
            let h = m.durations.entry(agent).or_default();
            if h.buckets.is_empty() {
                h.buckets = vec![0; BUCKETS_MS.len() + 1];
            }
            h.count += 1;
            h.sum_ms += elapsed_ms;
            let slot = BUCKETS_MS
                .iter()
                .position(|&le| elapsed_ms <= le as f64)
                .unwrap_or(BUCKETS_MS.len());
            h.buckets[slot] += 1;
        });
        tracing::event!(
            target: "agent_hooks::serve",
            tracing::Level::INFO,
            monotonic_counter.hooks.run = 1_u64,
            histogram.hooks.run.duration_ms = elapsed_ms,
            agent = agent.name(),
            status = u64::from(status),
            "hook request"
        );
    }

    /// A request refused before the handler (`unauthorized`,
    /// `too_large`, `invalid_json`, `overloaded`, `body_timeout`,
    /// `not_found`).
    pub(crate) fn rejected(&self, reason: &'static str) {
        self.with(|m| *m.rejected.entry(reason).or_default() += 1);
        tracing::event!(
            target: "agent_hooks::serve",
            tracing::Level::INFO,
            monotonic_counter.hooks.serve.rejected = 1_u64,
            reason,
            "hook request rejected"
        );
    }

    /// A reload's outcome.
    pub(crate) fn reload(&self, ok: bool) {
        self.with(|m| {
            if ok {
                m.reload_ok += 1;
            } else {
                m.reload_failed += 1;
            }
        });
        tracing::event!(
            target: "agent_hooks::serve",
            tracing::Level::INFO,
            monotonic_counter.hooks.serve.reload = 1_u64,
            outcome = if ok { "ok" } else { "failed" },
            "hook engine reload"
        );
    }

    /// A hook request took (`true`) or released (`false`) a slot.
    pub(crate) fn in_flight(&self, taken: bool) {
        self.with(|m| {
            if taken {
                m.in_flight += 1;
            } else {
                m.in_flight = m.in_flight.saturating_sub(1);
            }
        });
    }

    /// The JSON of `/metrics` (docs/serve.md, "Metrics").
    pub(crate) fn to_json(&self) -> serde_json::Value {
        self.with(|m| {
            let runs: Vec<_> = m
                .runs
                .iter()
                .map(|((agent, status), count)| {
                    serde_json::json!({ "agent": agent.name(), "status": status, "count": count })
                })
                .collect();
            let durations: serde_json::Map<String, serde_json::Value> = m
                .durations
                .iter()
                .map(|(agent, h)| {
                    let buckets: Vec<_> = h
                        .buckets
                        .iter()
                        .enumerate()
                        .map(|(i, count)| {
                            let le = BUCKETS_MS.get(i).map_or(serde_json::Value::from("+Inf"), |&b| b.into());
                            serde_json::json!({ "le": le, "count": count })
                        })
                        .collect();
                    (
                        agent.name().to_owned(),
                        serde_json::json!({ "count": h.count, "sum": h.sum_ms, "buckets": buckets }),
                    )
                })
                .collect();
            serde_json::json!({
                "hooks.run": runs,
                "hooks.run.duration_ms": durations,
                "hooks.serve.rejected": m.rejected,
                "hooks.serve.reload": { "ok": m.reload_ok, "failed": m.reload_failed },
                "hooks.serve.in_flight": m.in_flight,
            })
        })
    }
}
