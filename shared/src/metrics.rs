//! The process's metrics, served at `GET /metrics` with `--http` (Prometheus's text format,
//! which `promtool check metrics` accepts): what a remote deployment is watched by.
//!
//! - `mcp_server_operation_duration_seconds{mcp_method_name="tools/call",gen_ai_tool_name,outcome}`:
//!   the duration histogram of the MCP semantic conventions (`mcp.server.operation.duration`),
//!   per tool and outcome (`OK` or the error code);
//! - `mcp_tool_calls_total{tool,outcome}`: calls by tool and outcome;
//! - `mcp_sessions_open`: HTTP sessions open now;
//! - `mcp_http_connections_refused_total`: connections refused at the connection cap;
//! - `mcp_http_requests_unauthorized_total`: requests refused for a missing or wrong token.
//!
//! A tool name that is not one of the server's is counted as `_unknown`, so a client cannot make
//! the label set grow.

use std::sync::{
    OnceLock,
    atomic::{AtomicBool, Ordering},
};

use prometheus::{
    Encoder as _, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, Opts, Registry, TextEncoder,
};

/// The label of a tool name the server does not have.
pub const UNKNOWN_TOOL: &str = "_unknown";

/// The `Content-Type` of [`Metrics::render`].
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The duration buckets, in seconds: from a cached view (100 µs) to the default tool timeout.
const BUCKETS: [f64; 14] =
    [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0, 30.0];

/// The metrics of this process.
pub struct Metrics {
    registry: Registry,
    durations: HistogramVec,
    calls: IntCounterVec,
    sessions: IntGauge,
    refused: IntCounter,
    unauthorized: IntCounter,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

/// Whether anything serves the metrics: [`enable`] was called.
static ENABLED: AtomicBool = AtomicBool::new(false);

/// Keeps the process's metrics from now on: called when an HTTP router, which serves
/// `/metrics`, is built. Over stdio nothing could read them, so none are kept (nor set up, at a
/// first tool call).
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
}

/// The process's metrics (one server per process), once [`enable`]d; `None` before, or if they
/// could not be set up, which the fixed names and labels here rule out (then nothing is counted,
/// and it is logged).
pub fn global() -> Option<&'static Metrics> {
    static METRICS: OnceLock<Option<Metrics>> = OnceLock::new();
    if !ENABLED.load(Ordering::Relaxed) {
        return None;
    }
    METRICS
        .get_or_init(|| {
            Metrics::new()
                .map_err(|error| tracing::error!(%error, "cannot set up the metrics; /metrics stays empty"))
                .ok()
        })
        .as_ref()
}

impl Metrics {
    fn new() -> Result<Metrics, prometheus::Error> {
        let registry = Registry::new();
        let durations = HistogramVec::new(
            HistogramOpts::new(
                "mcp_server_operation_duration_seconds",
                "MCP request duration (mcp.server.operation.duration), tools/call per tool and outcome",
            )
            .buckets(BUCKETS.to_vec()),
            &["mcp_method_name", "gen_ai_tool_name", "outcome"],
        )?;
        registry.register(Box::new(durations.clone()))?;
        let calls = IntCounterVec::new(
            Opts::new("mcp_tool_calls_total", "Tool calls by tool and outcome (OK or the error code)"),
            &["tool", "outcome"],
        )?;
        registry.register(Box::new(calls.clone()))?;
        let sessions = IntGauge::new("mcp_sessions_open", "HTTP sessions open")?;
        registry.register(Box::new(sessions.clone()))?;
        let refused =
            IntCounter::new("mcp_http_connections_refused_total", "Connections refused at the connection cap")?;
        registry.register(Box::new(refused.clone()))?;
        let unauthorized = IntCounter::new(
            "mcp_http_requests_unauthorized_total",
            "Requests refused with 401 (no token, or not the server's)",
        )?;
        registry.register(Box::new(unauthorized.clone()))?;
        Ok(Metrics { registry, durations, calls, sessions, refused, unauthorized })
    }

    /// Counts one tool call of `tool` (a known tool's name, or [`UNKNOWN_TOOL`]).
    pub fn record_call(&self, tool: &str, outcome: &str, seconds: f64) {
        self.calls.with_label_values(&[tool, outcome]).inc();
        self.durations.with_label_values(&["tools/call", tool, outcome]).observe(seconds);
    }

    /// Sets the number of open sessions.
    pub fn set_sessions(&self, open: usize) {
        self.sessions.set(i64::try_from(open).unwrap_or(i64::MAX));
    }

    /// Counts a connection refused at the cap.
    pub fn connection_refused(&self) {
        self.refused.inc();
    }

    /// Counts a request refused with 401.
    pub fn unauthorized(&self) {
        self.unauthorized.inc();
    }

    /// The text of every metric.
    pub fn render(&self) -> String {
        let mut out = Vec::new();
        if let Err(error) = TextEncoder::new().encode(&self.registry.gather(), &mut out) {
            tracing::warn!(%error, "cannot encode the metrics");
        }
        String::from_utf8(out).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_and_durations_are_counted_per_tool_and_outcome() {
        let m = Metrics::new().unwrap();
        m.record_call("hoge", "OK", 0.0003);
        m.record_call("hoge", "OK", 0.002);
        m.record_call("hoge", "INVALID_ARGS", 0.0001);
        m.record_call(UNKNOWN_TOOL, "UNKNOWN_TOOL", 0.0);
        m.set_sessions(3);
        m.connection_refused();
        let text = m.render();
        assert!(text.contains(r#"mcp_tool_calls_total{outcome="OK",tool="hoge"} 2"#), "{text}");
        assert!(text.contains(r#"mcp_tool_calls_total{outcome="INVALID_ARGS",tool="hoge"} 1"#), "{text}");
        assert!(text.contains(r#"mcp_tool_calls_total{outcome="UNKNOWN_TOOL",tool="_unknown"} 1"#), "{text}");
        assert!(
            text.contains(r#"mcp_server_operation_duration_seconds_count{gen_ai_tool_name="hoge",mcp_method_name="tools/call",outcome="OK"} 2"#),
            "{text}"
        );
        assert!(
            text.contains(r#"mcp_server_operation_duration_seconds_bucket{gen_ai_tool_name="hoge",mcp_method_name="tools/call",outcome="OK",le="0.0005"} 1"#),
            "{text}"
        );
        assert!(text.contains("mcp_sessions_open 3"), "{text}");
        assert!(text.contains("mcp_http_connections_refused_total 1"), "{text}");
    }
}
