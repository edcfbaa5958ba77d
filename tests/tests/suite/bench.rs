//! `mcp-bench` with tiny numbers against the baseline: the report has its fields (never a
//! timing assertion), and failing calls fail the benchmark.

use std::process::Command;

use serde_json::Value;

use super::BASELINE;

const BENCH: &str = env!("CARGO_BIN_EXE_mcp-bench");

fn bench(args: &[&str]) -> std::process::Output {
    Command::new(BENCH).args(args).output().unwrap()
}

const FIELDS: &[&str] = &[
    "cold_start_median_ms",
    "cold_start_p99_ms",
    "ready_median_ms",
    "call_median_ms",
    "call_p99_ms",
    "call_mean_ms",
    "calls_per_sec",
    "idle_rss_kib",
    "peak_rss_kib",
];

#[test]
fn json_report_has_every_figure_for_server_baseline_and_ratio() {
    let out = bench(&[
        "--spawns",
        "2",
        "--calls",
        "10",
        "--warmup",
        "1",
        "--json",
        "--label",
        "tiny",
        "--tool",
        "echo",
        "--args",
        r#"{"a":1}"#,
        "--args",
        r#"{"b":2}"#,
        "--",
        BASELINE,
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["label"], "tiny");
    assert_eq!(report["tool"], "echo");
    assert_eq!(report["spawns"], 2);
    assert_eq!(report["calls"], 10);
    for part in ["server", "baseline", "ratio"] {
        for field in FIELDS {
            assert!(report[part][field].is_number(), "{part}.{field} in {report:#}");
        }
    }
    assert_eq!(report["server"]["cold_start_samples"], 2);
    assert_eq!(report["server"]["call_samples"], 10);
}

#[test]
fn concurrency_no_baseline_and_the_default_tool() {
    let out = bench(&[
        "--spawns",
        "1",
        "--calls",
        "20",
        "--warmup",
        "0",
        "--concurrency",
        "4",
        "--no-baseline",
        "--json",
        "--",
        BASELINE,
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["tool"], "echo");
    assert_eq!(report["concurrency"], 4);
    assert!(report["baseline"].is_null());
    assert!(report["server"]["calls_per_sec"].as_f64().unwrap() > 0.0);
}

#[test]
fn readable_table_names_each_figure_with_its_ratio() {
    let out = bench(&["--spawns", "1", "--calls", "5", "--warmup", "0", "--tool", "echo", "--", BASELINE]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let table = String::from_utf8(out.stdout).unwrap();
    for row in ["cold start median", "call latency p99", "calls per second", "idle RSS", "peak RSS"] {
        assert!(table.contains(row), "{row} in {table}");
    }
    assert!(table.contains("x baseline)"), "{table}");
}

#[test]
fn failing_calls_fail_the_benchmark_loudly() {
    // The baseline has no tool `nope`: a JSON-RPC error.
    let out = bench(&["--spawns", "1", "--calls", "5", "--tool", "nope", "--no-baseline", "--", BASELINE]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown tool"), "{err}");

    // `--allow-errors` measures them anyway.
    let out = bench(&[
        "--spawns",
        "1",
        "--calls",
        "5",
        "--tool",
        "nope",
        "--no-baseline",
        "--allow-errors",
        "--json",
        "--",
        BASELINE,
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_missing_server_is_an_error() {
    let out = bench(&["--spawns", "1", "--calls", "1", "--", "/nonexistent/mcp-server"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/mcp-server"));
}

#[test]
fn error_text_marks_results_as_failed() {
    // The baseline's text is `ok`: with `--error-text ok` every call counts as failed.
    let out = bench(&["--spawns", "1", "--calls", "2", "--no-baseline", "--error-text", "ok", "--", BASELINE]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("contains \"ok\""),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn expect_text_checks_every_result() {
    // With a baseline too: the text checks are the server's only.
    let ok = bench(&["--spawns", "1", "--calls", "2", "--expect-text", "ok", "--", BASELINE]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    let out = bench(&["--spawns", "1", "--calls", "2", "--no-baseline", "--expect-text", "the end", "--", BASELINE]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("lacks \"the end\""),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
