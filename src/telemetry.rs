//! OTLP export of the runtime's telemetry (the `otlp` cargo feature).
//!
//! The runtime describes every hook invocation as a `tracing` span
//! (`agent_hooks.hook`: phase, hook id, config, action, decision, outcome,
//! failure kind, elapsed time, truncation, redacted message) inside a span
//! per event fold (`agent_hooks.fold`), and ends each invocation with a
//! metrics event: the counter `agent_hooks.hook.invocations` and the
//! histogram `agent_hooks.hook.duration_ms`, per hook id and outcome. See
//! docs/fleet.md.
//!
//! [`Otlp`] exports those over OTLP with the `opentelemetry` crates,
//! configured from the standard variables: `OTEL_EXPORTER_OTLP_ENDPOINT`
//! (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `..._METRICS_ENDPOINT`),
//! `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT`,
//! `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the default, or
//! `http/json`) and `OTEL_SERVICE_NAME`. Without the feature, the runtime
//! compiles in `tracing` alone and the spans go to whatever subscriber the
//! agent installs.
//!
//! ```no_run
//! # fn main() -> Result<(), agent_hooks::telemetry::TelemetryError> {
//! // Reads OTEL_EXPORTER_OTLP_* and installs the global subscriber.
//! let otlp = agent_hooks::telemetry::Otlp::from_env()?.install()?;
//! // ... run the agent ...
//! otlp.shutdown()?; // flushes what is buffered
//! # Ok(())
//! # }
//! ```

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::registry::LookupSpan;

/// The service name reported when `OTEL_SERVICE_NAME` is not set.
pub const DEFAULT_SERVICE_NAME: &str = "agent-hooks";

/// Why the OTLP export could not be set up or flushed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TelemetryError {
    /// An exporter could not be built from the environment (an invalid
    /// endpoint, header or protocol).
    #[error("cannot build the OTLP exporter: {0}")]
    Exporter(#[from] opentelemetry_otlp::ExporterBuildError),
    /// A global `tracing` subscriber is already installed.
    #[error("a global tracing subscriber is already installed")]
    AlreadyInstalled,
    /// Flushing or shutting down the providers failed.
    #[error("cannot flush the OTLP exporter: {0}")]
    Flush(#[from] opentelemetry_sdk::error::OTelSdkError),
}

/// The OTLP trace and metric pipelines: spans batched and exported in the
/// background, metrics exported periodically and at shutdown.
#[derive(Debug, Clone)]
pub struct Otlp {
    tracer: SdkTracerProvider,
    meter: SdkMeterProvider,
}

impl Otlp {
    /// Builds the HTTP exporters from the `OTEL_EXPORTER_OTLP_*`
    /// variables (module docs). Nothing is sent until spans end.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Exporter`] when the variables do not describe a
    /// usable exporter.
    pub fn from_env() -> Result<Otlp, TelemetryError> {
        // The exporter's HTTP client is reqwest with rustls and no provider.
        hooks_runtime::install_tls_provider();
        let service = std::env::var("OTEL_SERVICE_NAME")
            .ok()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| DEFAULT_SERVICE_NAME.to_owned());
        let resource = Resource::builder().with_service_name(service).build();
        let spans = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .build()?;
        let metrics = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .build()?;
        Ok(Otlp {
            tracer: SdkTracerProvider::builder()
                .with_batch_exporter(spans)
                .with_resource(resource.clone())
                .build(),
            meter: SdkMeterProvider::builder()
                .with_periodic_exporter(metrics)
                .with_resource(resource)
                .build(),
        })
    }

    /// The `tracing` layer that turns the runtime's spans into OTLP spans
    /// and its metrics events into OTLP metrics, for an agent that builds
    /// its own subscriber (`tracing_subscriber::registry().with(otlp.layer())`).
    pub fn layer<S>(&self) -> impl Layer<S> + use<S>
    where
        S: Subscriber + for<'a> LookupSpan<'a>,
    {
        let tracer = self.tracer.tracer("agent-hooks");
        tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .and_then(tracing_opentelemetry::MetricsLayer::new(self.meter.clone()))
    }

    /// Installs a global subscriber of [`Otlp::layer`] alone and returns
    /// the pipelines, to [`shutdown`](Otlp::shutdown) before the process
    /// exits.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::AlreadyInstalled`] when a global subscriber exists.
    pub fn install(self) -> Result<Otlp, TelemetryError> {
        let subscriber = tracing_subscriber::registry().with(self.layer());
        tracing::subscriber::set_global_default(subscriber)
            .map_err(|_| TelemetryError::AlreadyInstalled)?;
        Ok(self)
    }

    /// Exports what is buffered and stops both pipelines. Blocks until the
    /// exporters answered or timed out (`OTEL_EXPORTER_OTLP_TIMEOUT`).
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Flush`] when an export or the shutdown failed.
    pub fn shutdown(&self) -> Result<(), TelemetryError> {
        let spans = self.tracer.shutdown();
        let metrics = self.meter.shutdown();
        spans?;
        metrics?;
        Ok(())
    }
}

/// Whether the environment asks for OTLP export: one of
/// `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
/// `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` is set and not empty. What the
/// `agent-hooks` binary checks before it exports.
pub fn requested_by_env() -> bool {
    [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    ]
    .iter()
    .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()))
}
