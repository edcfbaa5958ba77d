//! `mcp-baseline`: the do-nothing MCP server every benchmark figure is divided by.
//!
//! Raw JSON-RPC over stdio with no SDK and no async runtime: it reads a line, answers it, and
//! flushes. What it costs is the floor of any stdio MCP server: process start, a pipe round trip,
//! and parsing and writing one JSON message.
//!
//! What it answers is [`mcp_tests::baseline`]; `mcp-baseline-tokio` gives the same answers on
//! the async stack our servers start.
//!
//! It exits when its stdin closes.

use std::io::{self, BufRead, BufReader, BufWriter, Write};

use mcp_tests::baseline::handle;

fn main() {
    mcp_tests::baseline::no_arguments(
        "mcp-baseline",
        "mcp-baseline: the do-nothing MCP server every benchmark figure is divided by (raw JSON-RPC over stdio, no SDK, no async runtime).",
    );
    let stdin = io::stdin().lock();
    let mut out = BufWriter::new(io::stdout().lock());
    let mut reader = BufReader::with_capacity(64 * 1024, stdin);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let Some(reply) = handle(&line) else {
            continue;
        };
        let written = serde_json::to_writer(&mut out, &reply)
            .map_err(io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush());
        if written.is_err() {
            // The client is gone.
            return;
        }
    }
}
