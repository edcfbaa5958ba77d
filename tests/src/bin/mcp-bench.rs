//! `mcp-bench`: cold start, call latency, throughput and memory of a stdio MCP server, each as a
//! ratio to the do-nothing `mcp-baseline` server measured in the same run.
//!
//! ```text
//! cargo run --release -p mcp-tests --bin mcp-bench -- [OPTIONS] -- SERVER_CMD [ARGS...]
//! ```
//!
//! Cold starts of the server and of the baseline alternate, spawn by spawn (each going first
//! every other time), so that a noisy neighbour hurts both alike, and both are started the same
//! way (`--cwd`, `--env`); the call phases run back to back. Every call must succeed
//! (unless `--allow-errors`): a benchmark of failing calls measures nothing.

// A command-line tool: its report goes to stdout, its progress and errors to stderr.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Parser;
use mcp_tests::procfs::{self, Memory};
use mcp_tests::{ClientBuilder, StdioClient, is_error, text_of};
use serde_json::{Value, json};

/// Benchmark a stdio MCP server against the do-nothing baseline server.
#[derive(Debug, Parser)]
#[command(name = "mcp-bench", version, after_help = EXAMPLES)]
struct Cli {
    /// Cold starts (spawn → `initialize` response) to time, per server.
    #[arg(long, default_value_t = 20, value_name = "N")]
    spawns: usize,
    /// Timed `tools/call`s, per server.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    calls: usize,
    /// Untimed calls before the timed ones.
    #[arg(long, default_value_t = 50, value_name = "N")]
    warmup: usize,
    /// The tool to call (default: the first one `tools/list` gives).
    #[arg(long, value_name = "NAME")]
    tool: Option<String>,
    /// The tool's arguments (a JSON object). Repeat to rotate argument sets call by call, e.g. an
    /// edit and its reverse. Default: `{}`.
    #[arg(long = "args", value_name = "JSON")]
    args: Vec<String>,
    /// One `tools/call` (`{"name": .., "arguments": {..}}`) made before any timed call, on the
    /// server only.
    #[arg(long, value_name = "JSON")]
    setup_call: Option<String>,
    /// The working directory of the server (and of the baseline).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// An environment variable for the server (and the baseline, started the same way; repeatable).
    #[arg(long = "env", value_name = "KEY=VALUE")]
    env: Vec<String>,
    /// A name for this benchmark in the report.
    #[arg(long, value_name = "TEXT")]
    label: Option<String>,
    /// The baseline server's command line (split on whitespace). Default: the `mcp-baseline`
    /// binary next to this one.
    #[arg(long, value_name = "CMD")]
    baseline_cmd: Option<String>,
    /// The baseline's tool (it gets the same arguments as the server's).
    #[arg(long, default_value = "echo", value_name = "NAME")]
    baseline_tool: String,
    /// Do not measure the baseline.
    #[arg(long)]
    no_baseline: bool,
    /// Requests kept in flight for the throughput figure (1: the throughput of the sequential
    /// latency run).
    #[arg(long, default_value_t = 1, value_name = "N")]
    concurrency: usize,
    /// Accept results with `isError: true` (and JSON-RPC errors) instead of failing.
    #[arg(long)]
    allow_errors: bool,
    /// A result whose text contains TEXT is a failed call too (repeatable), for servers that
    /// report failures in the text without `isError` (e.g. `"result": "error"`).
    #[arg(long = "error-text", value_name = "TEXT")]
    error_text: Vec<String>,
    /// Every result's text must contain TEXT (repeatable): checks that a server did the work
    /// (e.g. returned the end of a file it was asked to read whole).
    #[arg(long = "expect-text", value_name = "TEXT")]
    expect_text: Vec<String>,
    /// Longest wait for any single answer, in seconds.
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    timeout: u64,
    /// Print the results as JSON (only JSON on stdout).
    #[arg(long)]
    json: bool,
    /// The server's command line, after `--`.
    #[arg(last = true, required = true, value_name = "SERVER_CMD")]
    command: Vec<String>,
}

const EXAMPLES: &str = "\
Examples:
  mcp-bench --tool hoge --args '{\"action\":\"calc\",\"args\":{\"x\":1,\"y\":2}}' -- target/release/mcp-server-sample-tool
  mcp-bench --calls 200 --tool text_editor \\
      --args '{\"command\":\"str_replace\",\"path\":\"a.txt\",\"old_str\":\"foo\",\"new_str\":\"bar\"}' \\
      --args '{\"command\":\"str_replace\",\"path\":\"a.txt\",\"old_str\":\"bar\",\"new_str\":\"foo\"}' \\
      -- target/release/mcp-server-text-editor --root /tmp/bench";

/// One server under measurement.
#[derive(Debug, Clone)]
struct Target {
    /// `server` or `baseline`.
    role: &'static str,
    program: String,
    args: Vec<String>,
    cwd: Option<PathBuf>,
    env: Vec<(String, String)>,
    tool: Option<String>,
    arg_sets: Vec<Value>,
    setup_call: Option<Value>,
}

impl Target {
    fn builder(&self, timeout: Duration) -> ClientBuilder {
        let mut b = ClientBuilder::new(&self.program).args(&self.args).timeout(timeout);
        if let Some(dir) = &self.cwd {
            b = b.current_dir(dir);
        }
        for (k, v) in &self.env {
            b = b.env(k, v);
        }
        b
    }

    fn command_line(&self) -> String {
        std::iter::once(self.program.as_str()).chain(self.args.iter().map(String::as_str)).collect::<Vec<_>>().join(" ")
    }
}

/// What was measured for one server.
#[derive(Debug, Clone, Default)]
struct Figures {
    tool: String,
    cold_starts: Vec<Duration>,
    /// Spawn → `tools/list` answered (after `initialize` and `notifications/initialized`): when a
    /// client can first use the server, whatever the server did after its `initialize` answer.
    ready: Vec<Duration>,
    calls: Vec<Duration>,
    calls_per_sec: f64,
    idle: Option<Memory>,
    peak: Option<Memory>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-bench: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> Result<()> {
    if cli.spawns == 0 || cli.calls == 0 || cli.concurrency == 0 {
        bail!("--spawns, --calls and --concurrency must be at least 1");
    }
    let timeout = Duration::from_secs(cli.timeout.max(1));
    let mut arg_sets = Vec::new();
    for a in &cli.args {
        let v: Value = serde_json::from_str(a).with_context(|| format!("--args is not JSON: {a}"))?;
        if !v.is_object() {
            bail!("--args must be a JSON object: {a}");
        }
        arg_sets.push(v);
    }
    if arg_sets.is_empty() {
        arg_sets.push(json!({}));
    }
    let setup_call = match &cli.setup_call {
        Some(s) => {
            let v: Value = serde_json::from_str(s).with_context(|| format!("--setup-call is not JSON: {s}"))?;
            if v.get("name").and_then(Value::as_str).is_none() {
                bail!("--setup-call must be tools/call params: {{\"name\": TOOL, \"arguments\": {{..}}}}");
            }
            Some(v)
        }
        None => None,
    };
    let mut env = Vec::new();
    for e in &cli.env {
        let (k, v) = e.split_once('=').with_context(|| format!("--env wants KEY=VALUE, got {e}"))?;
        env.push((k.to_owned(), v.to_owned()));
    }
    let (program, args) = cli.command.split_first().context("no server command after `--`")?;
    let server = Target {
        role: "server",
        program: program.clone(),
        args: args.to_vec(),
        cwd: cli.cwd.clone(),
        env: env.clone(),
        tool: cli.tool.clone(),
        arg_sets: arg_sets.clone(),
        setup_call,
    };
    let baseline = if cli.no_baseline { None } else { Some(baseline_target(cli, arg_sets, env)?) };

    let mut targets = vec![server];
    targets.extend(baseline);
    let label = cli.label.clone().unwrap_or_else(|| targets[0].command_line());

    // Cold starts, interleaved: one untimed start each (page cache), then alternate, and
    // alternate which goes first too: the second of two back-to-back starts was about 2%
    // faster, whichever binary it was.
    progress(cli, &format!("{label}: {} cold starts per server", cli.spawns));
    let mut figures: Vec<Figures> = vec![Figures::default(); targets.len()];
    for t in &targets {
        cold_start(t, timeout).with_context(|| format!("cannot start the {}", t.role))?;
    }
    for round in 0..cli.spawns {
        for i in spawn_order(round, targets.len()) {
            let t = &targets[i];
            let (cold, ready) = cold_start(t, timeout).with_context(|| format!("cold start of the {}", t.role))?;
            figures[i].cold_starts.push(cold);
            figures[i].ready.push(ready);
        }
    }
    for (t, f) in targets.iter().zip(figures.iter_mut()) {
        progress(cli, &format!("{label}: {} calls to the {}", cli.calls, t.role));
        session(cli, t, f, timeout)
            .with_context(|| format!("while benchmarking the {} ({})", t.role, t.command_line()))?;
    }

    let server = &figures[0];
    let base = figures.get(1);
    if cli.json {
        let report = json!({
            "label": label,
            "command": cli.command,
            "tool": server.tool,
            "spawns": cli.spawns,
            "calls": cli.calls,
            "warmup": cli.warmup,
            "concurrency": cli.concurrency,
            "server": figures_json(server),
            "baseline": base.map(figures_json),
            "ratio": base.map(|b| ratios_json(server, b)),
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_table(cli, &label, server, base);
    }
    Ok(())
}

fn progress(cli: &Cli, text: &str) {
    if !cli.json {
        eprintln!("mcp-bench: {text}");
    }
}

/// Which target starts when in cold-start round `round`: in turn, the first one first in even
/// rounds and last in odd ones.
fn spawn_order(round: usize, targets: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..targets).collect();
    if round % 2 == 1 {
        order.reverse();
    }
    order
}

/// The baseline, started as the server is: in its working directory, with its environment.
/// A spawn with `--env` builds the child's whole environment in this process, inside the timed
/// span: given to the server alone, it made two copies of the same binary about 6% apart.
fn baseline_target(cli: &Cli, arg_sets: Vec<Value>, env: Vec<(String, String)>) -> Result<Target> {
    let (program, args) = match &cli.baseline_cmd {
        Some(cmd) => {
            let mut words = cmd.split_whitespace().map(str::to_owned);
            let program = words.next().context("--baseline-cmd is empty")?;
            (program, words.collect())
        }
        None => {
            let exe = std::env::current_exe().context("cannot find mcp-bench's own path")?;
            let dir = exe.parent().context("mcp-bench has no directory")?;
            let path = dir.join(format!("mcp-baseline{}", std::env::consts::EXE_SUFFIX));
            if !path.is_file() {
                bail!(
                    "no mcp-baseline next to mcp-bench in {} (build it: cargo build -p mcp-tests \
                     --bins; or pass --baseline-cmd or --no-baseline)",
                    dir.display()
                );
            }
            (path.to_string_lossy().into_owned(), Vec::new())
        }
    };
    Ok(Target {
        role: "baseline",
        program,
        args,
        cwd: cli.cwd.clone(),
        env,
        tool: Some(cli.baseline_tool.clone()),
        arg_sets,
        setup_call: None,
    })
}

/// Spawn → `initialize` response, and spawn → the first `tools/list` answered; then the server is
/// asked to exit (stdin closed) and reaped.
fn cold_start(t: &Target, timeout: Duration) -> Result<(Duration, Duration)> {
    let start = Instant::now();
    let mut c = t.builder(timeout).spawn()?;
    let response = c.request("initialize", StdioClient::default_initialize_params())?;
    let elapsed = start.elapsed();
    if let Some(e) = response.get("error") {
        bail!("initialize failed: {e}");
    }
    c.notify("notifications/initialized", Value::Null)?;
    let listed = c.request("tools/list", Value::Null)?;
    let ready = start.elapsed();
    if let Some(e) = listed.get("error") {
        bail!("tools/list failed: {e}");
    }
    // A server that does not exit on end of input is killed (when `c` drops); not our figure.
    c.set_timeout(Duration::from_secs(5));
    let _ = c.wait();
    Ok((elapsed, ready))
}

/// One session: idle memory after `initialize`, the setup call, warm-up, timed calls, the
/// throughput run, peak memory.
fn session(cli: &Cli, t: &Target, f: &mut Figures, timeout: Duration) -> Result<()> {
    let mut c = t.builder(timeout).spawn()?;
    c.initialize()?;
    f.idle = procfs::tree_memory(c.pid());

    let tool = match &t.tool {
        Some(tool) => tool.clone(),
        None => {
            let tools = c.list_tools()?;
            let first = tools.first().and_then(|t| t.get("name")).and_then(Value::as_str);
            first.context("the server lists no tools; pass --tool")?.to_owned()
        }
    };
    f.tool = tool.clone();

    if let Some(setup) = &t.setup_call {
        let response = c.request("tools/call", setup.clone())?;
        check(cli, t, &response, "the setup call", setup)?;
    }

    let mut n = 0usize;
    let mut next_params = || {
        let args = &t.arg_sets[n % t.arg_sets.len()];
        n += 1;
        json!({ "name": tool, "arguments": args })
    };
    for _ in 0..cli.warmup {
        let params = next_params();
        let response = c.request("tools/call", params.clone())?;
        check(cli, t, &response, "a warm-up call", &params)?;
    }

    f.calls = Vec::with_capacity(cli.calls);
    let run_start = Instant::now();
    for _ in 0..cli.calls {
        let params = next_params();
        let start = Instant::now();
        let response = c.request("tools/call", params.clone())?;
        f.calls.push(start.elapsed());
        check(cli, t, &response, "a timed call", &params)?;
    }
    let mut run_time = run_start.elapsed();

    if cli.concurrency > 1 {
        let mut in_flight = std::collections::VecDeque::new();
        let start = Instant::now();
        let mut sent = 0;
        while sent < cli.concurrency.min(cli.calls) {
            let params = next_params();
            in_flight.push_back((c.send_request("tools/call", params.clone())?, params));
            sent += 1;
        }
        while let Some((id, params)) = in_flight.pop_front() {
            let response = c.wait_response(id)?;
            check(cli, t, &response, "a concurrent call", &params)?;
            if sent < cli.calls {
                let params = next_params();
                in_flight.push_back((c.send_request("tools/call", params.clone())?, params));
                sent += 1;
            }
        }
        run_time = start.elapsed();
    }
    f.calls_per_sec = cli.calls as f64 / run_time.as_secs_f64().max(1e-9);
    f.peak = procfs::tree_memory(c.pid());
    c.set_timeout(Duration::from_secs(5));
    let _ = c.wait();
    Ok(())
}

/// Fails on a JSON-RPC error or an `isError` result, unless `--allow-errors`.
///
/// `--error-text` and `--expect-text` apply to the server only (the baseline only echoes).
fn check(cli: &Cli, t: &Target, response: &Value, what: &str, params: &Value) -> Result<()> {
    if cli.allow_errors {
        return Ok(());
    }
    if let Some(e) = response.get("error") {
        bail!("{what} got a JSON-RPC error: {e}\n  request params: {params}");
    }
    let result = response.get("result").unwrap_or(&Value::Null);
    let text = text_of(result);
    let (error_text, expect_text): (&[String], &[String]) =
        if t.role == "server" { (&cli.error_text, &cli.expect_text) } else { (&[], &[]) };
    if let Some(pattern) = error_text.iter().find(|p| text.contains(p.as_str())) {
        bail!(
            "{what} failed (its text contains {pattern:?}): {}\n  request params: {params}",
            mcp_tests::client::truncate(&text, 2000)
        );
    }
    if let Some(missing) = expect_text.iter().find(|p| !text.contains(p.as_str())) {
        bail!(
            "{what} did not give the expected text (it lacks {missing:?}): {}\n  request params: {params}",
            mcp_tests::client::truncate(&text, 2000)
        );
    }
    if is_error(result) {
        bail!(
            "{what} failed (isError: true): {}\n  request params: {params}\n  (a benchmark of failing \
             calls measures nothing; pass --allow-errors if that is really what you want)",
            mcp_tests::client::truncate(&text, 2000)
        );
    }
    Ok(())
}

/// The `q` quantile (nearest rank) of `samples`, in milliseconds.
fn quantile_ms(samples: &[Duration], q: f64) -> f64 {
    if samples.is_empty() {
        return f64::NAN;
    }
    let mut v: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    v.sort_by(f64::total_cmp);
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

fn mean_ms(samples: &[Duration]) -> f64 {
    if samples.is_empty() {
        return f64::NAN;
    }
    samples.iter().map(Duration::as_secs_f64).sum::<f64>() * 1000.0 / samples.len() as f64
}

/// The figures by name, in report order: (key, value, unit kind).
fn rows(f: &Figures) -> Vec<(&'static str, &'static str, Option<f64>, Unit)> {
    vec![
        ("cold_start_median_ms", "cold start median", Some(quantile_ms(&f.cold_starts, 0.5)), Unit::Ms),
        ("cold_start_p99_ms", "cold start p99", Some(quantile_ms(&f.cold_starts, 0.99)), Unit::Ms),
        ("ready_median_ms", "spawn to tools/list median", Some(quantile_ms(&f.ready, 0.5)), Unit::Ms),
        ("call_median_ms", "call latency median", Some(quantile_ms(&f.calls, 0.5)), Unit::Ms),
        ("call_p99_ms", "call latency p99", Some(quantile_ms(&f.calls, 0.99)), Unit::Ms),
        ("call_mean_ms", "call latency mean", Some(mean_ms(&f.calls)), Unit::Ms),
        ("calls_per_sec", "calls per second", Some(f.calls_per_sec), Unit::PerSec),
        ("idle_rss_kib", "idle RSS", f.idle.map(|m| m.rss_kib as f64), Unit::Kib),
        ("peak_rss_kib", "peak RSS (VmHWM)", f.peak.map(|m| m.hwm_kib as f64), Unit::Kib),
    ]
}

#[derive(Debug, Clone, Copy)]
enum Unit {
    Ms,
    PerSec,
    Kib,
}

fn figures_json(f: &Figures) -> Value {
    let mut o = serde_json::Map::new();
    o.insert("tool".into(), json!(f.tool));
    for (key, _, value, _) in rows(f) {
        o.insert(key.into(), value.map_or(Value::Null, |v| json!(v)));
    }
    o.insert("processes".into(), json!(f.peak.map(|m| m.processes)));
    o.insert("cold_start_samples".into(), json!(f.cold_starts.len()));
    o.insert("call_samples".into(), json!(f.calls.len()));
    Value::Object(o)
}

fn ratios_json(server: &Figures, base: &Figures) -> Value {
    let mut o = serde_json::Map::new();
    for ((key, _, s, _), (_, _, b, _)) in rows(server).into_iter().zip(rows(base)) {
        o.insert(key.into(), ratio(s, b).map_or(Value::Null, |r| json!(r)));
    }
    Value::Object(o)
}

fn ratio(s: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (s, b) {
        (Some(s), Some(b)) if b > 0.0 && s.is_finite() && b.is_finite() => Some(s / b),
        _ => None,
    }
}

fn fmt_value(v: Option<f64>, unit: Unit) -> String {
    let Some(v) = v.filter(|v| v.is_finite()) else {
        return "n/a".to_owned();
    };
    match unit {
        Unit::Ms if v < 1.0 => format!("{:.1} µs", v * 1000.0),
        Unit::Ms if v < 1000.0 => format!("{v:.2} ms"),
        Unit::Ms => format!("{:.2} s", v / 1000.0),
        Unit::PerSec => format!("{v:.0} /s"),
        Unit::Kib => format!("{:.1} MiB", v / 1024.0),
    }
}

fn print_table(cli: &Cli, label: &str, server: &Figures, base: Option<&Figures>) {
    println!();
    println!("{label}");
    println!(
        "  tool `{}`, {} cold starts, {} calls after {} warm-up, concurrency {}",
        server.tool, cli.spawns, cli.calls, cli.warmup, cli.concurrency
    );
    if let Some(m) = server.peak.filter(|m| m.processes > 1) {
        println!("  memory is summed over the server's {} processes", m.processes);
    }
    println!();
    if base.is_some() {
        println!("  {:<22} {:>12} {:>12}   ratio", "", "server", "baseline");
    } else {
        println!("  {:<22} {:>12}", "", "server");
    }
    let base_rows = base.map(rows);
    for (i, (_, name, value, unit)) in rows(server).into_iter().enumerate() {
        let s = fmt_value(value, unit);
        match base_rows.as_ref().and_then(|r| r.get(i)) {
            Some((_, _, b, _)) => {
                let r = ratio(value, *b).map_or("n/a".to_owned(), |r| format!("({r:.2}x baseline)"));
                println!("  {name:<22} {s:>12} {:>12}   {r}", fmt_value(*b, unit));
            }
            None => println!("  {name:<22} {s:>12}"),
        }
    }
    println!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_use_nearest_rank() {
        let d: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert!((quantile_ms(&d, 0.5) - 50.0).abs() < 1e-9);
        assert!((quantile_ms(&d, 0.99) - 99.0).abs() < 1e-9);
        assert!((quantile_ms(&d[..1], 0.99) - 1.0).abs() < 1e-9);
        assert!(quantile_ms(&[], 0.5).is_nan());
    }

    #[test]
    fn formats_units() {
        assert_eq!(fmt_value(Some(0.0123), Unit::Ms), "12.3 µs");
        assert_eq!(fmt_value(Some(1.5), Unit::Ms), "1.50 ms");
        assert_eq!(fmt_value(Some(2048.0), Unit::Kib), "2.0 MiB");
        assert_eq!(fmt_value(None, Unit::Kib), "n/a");
    }

    #[test]
    fn each_target_goes_first_every_other_round() {
        assert_eq!(spawn_order(0, 2), [0, 1]);
        assert_eq!(spawn_order(1, 2), [1, 0]);
        assert_eq!(spawn_order(2, 2), [0, 1]);
        assert_eq!(spawn_order(3, 1), [0]);
    }

    #[test]
    fn the_baseline_is_started_in_the_server_s_directory_and_environment() {
        let cli = Cli::try_parse_from([
            "mcp-bench",
            "--cwd",
            "/srv/work",
            "--env",
            "XDG_RUNTIME_DIR=/run/x",
            "--baseline-cmd",
            "base --flag",
            "--",
            "srv",
        ])
        .unwrap();
        let env = vec![("XDG_RUNTIME_DIR".to_owned(), "/run/x".to_owned())];
        let baseline = baseline_target(&cli, vec![json!({})], env.clone()).unwrap();
        assert_eq!(baseline.cwd, Some(PathBuf::from("/srv/work")));
        assert_eq!(baseline.env, env);
        assert_eq!((baseline.program.as_str(), baseline.args.as_slice()), ("base", ["--flag".to_owned()].as_slice()));
    }

    #[test]
    fn cli_parses() {
        Cli::try_parse_from(["mcp-bench", "--args", "{}", "--args", "{}", "--", "srv", "--root", "x"]).unwrap();
        assert!(Cli::try_parse_from(["mcp-bench"]).is_err());
    }
}
