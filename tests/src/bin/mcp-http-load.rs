//! `mcp-http-load`: sustained load on any Streamable HTTP MCP server: N concurrent clients, each
//! on its own keep-alive connection with its own session (or one shared session), calling one
//! tool as fast as the server answers. Reports calls per second, latency p50/p99/max, and the
//! server's resident memory (its process tree) before and after when given its pid.
//!
//! Every server gets the same client, so the figures compare servers, not clients. Failed calls
//! (HTTP errors, JSON-RPC errors, `isError` results) are counted and fail the run unless
//! `--allow-errors`.

// A command-line report: stdout is its output (this is a client, not an MCP server).
#![allow(clippy::print_stdout)]

use std::{
    sync::{Arc, Barrier, Mutex},
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
use clap::Parser;
use mcp_tests::{http::HttpSession, is_error, procfs};
use serde_json::{Value, json};

#[derive(Debug, Parser)]
#[command(name = "mcp-http-load", about = "Load on a Streamable HTTP MCP server: calls/s, p50/p99, RSS")]
struct Cli {
    /// The MCP endpoint, e.g. http://127.0.0.1:8080/mcp
    #[arg(long)]
    url: String,
    /// Concurrent clients, each on its own keep-alive connection.
    #[arg(long, default_value_t = 64)]
    clients: usize,
    /// All clients share one session (opened by the first) instead of one session each.
    #[arg(long)]
    one_session: bool,
    /// Timed calls per client.
    #[arg(long, default_value_t = 200)]
    calls: usize,
    /// Untimed calls per client first.
    #[arg(long, default_value_t = 10)]
    warmup: usize,
    /// The tool to call.
    #[arg(long, default_value = "hoge")]
    tool: String,
    /// The tool's arguments (JSON object).
    #[arg(long, default_value = r#"{"action":"calc","args":{"x":1,"y":2}}"#)]
    args: String,
    /// A bearer token.
    #[arg(long)]
    token: Option<String>,
    /// The server's pid, to report its memory (the process tree's RSS) before and after.
    #[arg(long)]
    pid: Option<u32>,
    /// A name for the report.
    #[arg(long, default_value = "server")]
    label: String,
    /// Count failed calls instead of failing the run.
    #[arg(long)]
    allow_errors: bool,
    /// Longest wait for one answer, in seconds.
    #[arg(long, default_value_t = 30.0)]
    timeout: f64,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

/// What one client measured.
#[derive(Default)]
struct Tally {
    latencies: Vec<Duration>,
    failures: usize,
    first_failure: Option<String>,
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let args: Value = serde_json::from_str(&cli.args).context("--args is not JSON")?;
    let timeout = Duration::from_secs_f64(cli.timeout);
    let memory_before = cli.pid.and_then(procfs::tree_memory);

    // Every client connects (and opens its session) before the clock starts.
    let shared_session =
        if cli.one_session { HttpSession::open(&cli.url, cli.token.as_deref(), timeout)?.session } else { None };
    let mut clients = Vec::with_capacity(cli.clients);
    for i in 0..cli.clients {
        let client = if cli.one_session {
            let mut c = HttpSession::connect(&cli.url, cli.token.as_deref(), timeout)?;
            c.session = shared_session.clone();
            c
        } else {
            HttpSession::open(&cli.url, cli.token.as_deref(), timeout)
                .with_context(|| format!("client {i}: opening its session"))?
        };
        clients.push(client);
    }
    let barrier = Arc::new(Barrier::new(cli.clients + 1));
    let tallies = Arc::new(Mutex::new(Vec::new()));
    let mut threads = Vec::new();
    for mut client in clients {
        let (barrier, tallies, args, tool) =
            (Arc::clone(&barrier), Arc::clone(&tallies), args.clone(), cli.tool.clone());
        let (calls, warmup) = (cli.calls, cli.warmup);
        threads.push(std::thread::spawn(move || {
            let mut tally = Tally { latencies: Vec::with_capacity(calls), ..Tally::default() };
            let mut one = |tally: &mut Tally, timed: bool| {
                let start = Instant::now();
                let outcome = client.call_tool(&tool, &args);
                let elapsed = start.elapsed();
                let failure = match outcome {
                    Ok(message) if message.get("error").is_some() => Some(format!("JSON-RPC error: {message}")),
                    Ok(message) if is_error(&message["result"]) => Some(format!("isError: {message}")),
                    Ok(_) => None,
                    Err(e) => Some(format!("{e:#}")),
                };
                match failure {
                    Some(f) => {
                        tally.failures += 1;
                        tally.first_failure.get_or_insert(f);
                    }
                    None if timed => tally.latencies.push(elapsed),
                    None => {}
                }
            };
            for _ in 0..warmup {
                one(&mut tally, false);
            }
            barrier.wait();
            for _ in 0..calls {
                one(&mut tally, true);
            }
            if let Ok(mut all) = tallies.lock() {
                all.push(tally);
            }
        }));
    }
    barrier.wait();
    let start = Instant::now();
    for t in threads {
        let _ = t.join();
    }
    let wall = start.elapsed();
    let memory_after = cli.pid.and_then(procfs::tree_memory);

    let tallies = std::mem::take(&mut *tallies.lock().map_err(|_| anyhow::anyhow!("a client panicked"))?);
    let mut latencies: Vec<Duration> = tallies.iter().flat_map(|t| t.latencies.iter().copied()).collect();
    latencies.sort();
    let failures: usize = tallies.iter().map(|t| t.failures).sum();
    let first_failure = tallies.iter().find_map(|t| t.first_failure.clone());
    let ok = latencies.len();
    let q = |p: f64| -> f64 {
        if latencies.is_empty() {
            return f64::NAN;
        }
        let rank = ((p * ok as f64).ceil() as usize).clamp(1, ok);
        latencies[rank - 1].as_secs_f64() * 1000.0
    };
    let report = json!({
        "label": cli.label,
        "clients": cli.clients,
        "sessions": if cli.one_session { 1 } else { cli.clients },
        "calls": ok,
        "failures": failures,
        "seconds": wall.as_secs_f64(),
        "calls_per_second": ok as f64 / wall.as_secs_f64(),
        "p50_ms": q(0.50),
        "p99_ms": q(0.99),
        "max_ms": latencies.last().map_or(f64::NAN, |d| d.as_secs_f64() * 1000.0),
        "rss_before_kib": memory_before.map(|m| m.rss_kib),
        "rss_after_kib": memory_after.map(|m| m.rss_kib),
        "peak_rss_kib": memory_after.map(|m| m.hwm_kib),
    });
    if cli.json {
        println!("{report}");
    } else {
        let mib = |v: &Value| v.as_u64().map_or("-".to_owned(), |k| format!("{:.1} MiB", k as f64 / 1024.0));
        println!(
            "{}: {} clients ({} sessions), {} calls in {:.2} s: {:.0} calls/s, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms, \
             RSS {} -> {} (peak {}), {} failed",
            cli.label,
            cli.clients,
            report["sessions"],
            ok,
            wall.as_secs_f64(),
            report["calls_per_second"].as_f64().unwrap_or(0.0),
            q(0.50),
            q(0.99),
            report["max_ms"].as_f64().unwrap_or(f64::NAN),
            mib(&report["rss_before_kib"]),
            mib(&report["rss_after_kib"]),
            mib(&report["peak_rss_kib"]),
            failures
        );
    }
    if failures > 0 && !cli.allow_errors {
        bail!("{failures} calls failed; the first: {}", first_failure.unwrap_or_default());
    }
    Ok(())
}
