//! Telemetry: every hook invocation is a `tracing` span, the fold of one
//! event its parent, and each invocation ends with a metrics event.
//!
//! Spans and events use the target `agent_hooks`, so a subscriber can
//! select them. Without a subscriber nothing is recorded and nothing is
//! allocated (a disabled span is a no-op). The facade's `otlp` feature
//! exports them over OTLP (see docs/fleet.md).
//!
//! | span | fields |
//! | --- | --- |
//! | `agent_hooks.fold` | `hook.phase` |
//! | `agent_hooks.hook` | `hook.id`, `hook.phase`, `hook.config` (the config's file name, empty for a Rust hook), `hook.action` (`run`, `policy`, `block`, ..., `rust` for a Rust hook; `http` once HTTP hooks exist), `hook.decision` (the flow kind answered, e.g. `skip`), `hook.outcome` ([`outcome`]), `hook.failure_kind` (when it failed), `hook.elapsed_ms` (float), `hook.truncated` (an output capture was cut), `hook.message` (redacted by the caller) |
//!
//! The metrics event, inside the hook span, carries
//! `monotonic_counter.agent_hooks.hook.invocations = 1` and
//! `histogram.agent_hooks.hook.duration_ms` with `hook.id` and
//! `hook.outcome` as attributes: the names `tracing-opentelemetry`'s
//! metrics layer turns into a counter and a duration histogram per hook id
//! and outcome.

use tracing::Span;
use tracing::field::Empty;

use super::event::StepEventKind;
use super::flow::FlowKind;
use super::report::{HookReport, Verdict};

/// The parent span of one event's fold.
pub(crate) fn fold_span(phase: StepEventKind) -> Span {
    tracing::info_span!(target: "agent_hooks", "agent_hooks.fold", hook.phase = phase.as_str())
}

/// Whether a `tracing` subscriber is set for this thread (scoped or
/// global) and some subscriber may enable `info` spans (ours): without one
/// no span is recorded, so work done only for spans can be skipped. The
/// level check is one atomic load (`tracing`'s global maximum level, `OFF`
/// until a subscriber is registered).
#[inline]
pub(crate) fn subscribed() -> bool {
    tracing::level_filters::LevelFilter::current() >= tracing::Level::INFO
        && tracing::dispatcher::get_default(|d| !d.is::<tracing::subscriber::NoSubscriber>())
}

/// The span of one invocation of hook `id` (of config `config` in layer
/// `layer`, both empty for a Rust hook), whose action is `action`;
/// [`finish`] fills in the rest.
pub(crate) fn hook_span(
    (config, layer): (&str, &str),
    phase: StepEventKind,
    id: &str,
    action: &str,
) -> Span {
    tracing::info_span!(
        target: "agent_hooks",
        "agent_hooks.hook",
        hook.id = id,
        hook.phase = phase.as_str(),
        hook.config = config,
        hook.layer = layer,
        hook.action = action,
        hook.decision = Empty,
        hook.outcome = Empty,
        hook.failure_kind = Empty,
        hook.elapsed_ms = Empty,
        hook.truncated = Empty,
        hook.message = Empty,
    )
}

/// What an invocation came to, as the `hook.outcome` field and metric
/// attribute name it: `failed` (a failure, whatever its policy made of
/// it), `ok` (continue), `decision` (a flow answered), `audited`,
/// `refused`, `ignored` (the report's verdict, when the fold set one).
pub(crate) fn outcome(report: &HookReport, flow: FlowKind) -> &'static str {
    if report.failure.is_some() {
        return "failed";
    }
    match report.verdict {
        Verdict::Continue | Verdict::Applied(_) if flow == FlowKind::Continue => "ok",
        Verdict::Continue | Verdict::Applied(_) => "decision",
        Verdict::Audited(_) => "audited",
        Verdict::Refused(_) => "refused",
        Verdict::Ignored(_) => "ignored",
    }
}

/// Records `report` of an invocation that answered `flow` on `span`
/// (`message`: its text, already redacted) and emits the invocation's
/// metrics event inside it. Does nothing when the span is disabled.
pub(crate) fn finish(span: &Span, report: &HookReport, flow: FlowKind, message: Option<&str>) {
    if span.is_disabled() {
        return;
    }
    let outcome = outcome(report, flow);
    let decision = match report.verdict {
        Verdict::Continue => flow,
        verdict => verdict.flow(),
    };
    let elapsed_ms = report.elapsed.as_secs_f64() * 1000.0;
    span.record("hook.decision", decision.as_str());
    span.record("hook.outcome", outcome);
    if let Some(failure) = &report.failure {
        span.record("hook.failure_kind", failure.kind.as_str());
    }
    span.record("hook.elapsed_ms", elapsed_ms);
    span.record(
        "hook.truncated",
        report.output.is_some_and(|o| o.truncated()),
    );
    if let Some(message) = message {
        span.record("hook.message", message);
    }
    span.in_scope(|| {
        tracing::event!(
            target: "agent_hooks",
            tracing::Level::INFO,
            hook.id = report.hook.as_str(),
            monotonic_counter.agent_hooks.hook.invocations = 1_u64,
            histogram.agent_hooks.hook.duration_ms = elapsed_ms,
            hook.outcome = outcome,
            "hook invocation"
        );
    });
}
