//! `mcp-baseline`: the do-nothing MCP server every benchmark figure is divided by.
//!
//! Raw JSON-RPC over stdio with no SDK and no async runtime: it reads a line, answers it, and
//! flushes. What it costs is the floor of any stdio MCP server: process start, a pipe round trip,
//! and parsing and writing one JSON message.
//!
//! - `initialize`: echoes the client's `protocolVersion`, `serverInfo.name` is `mcp-baseline`,
//!   capabilities `{tools: {}}`;
//! - `tools/list`: one tool, `echo`, taking any object;
//! - `tools/call` of `echo`: `{content: [{type: "text", text: "ok"}], structuredContent: <the
//!   arguments>}`;
//! - `ping`: `{}`;
//! - notifications are ignored; any other method gets -32601, a line that is not JSON -32700.
//!
//! It exits when its stdin closes.

use std::io::{self, BufRead, BufReader, BufWriter, Write};

use serde_json::{Value, json};

fn main() {
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
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            continue;
        }
        let Some(reply) = handle(trimmed) else {
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

/// The reply to one line, or `None` for a notification.
fn handle(line: &[u8]) -> Option<Value> {
    let msg: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => return Some(error(Value::Null, -32700, &format!("parse error: {e}"))),
    };
    let Some(method) = msg.get("method").and_then(Value::as_str) else {
        let id = msg.get("id").cloned().unwrap_or(Value::Null);
        return Some(error(id, -32600, "invalid request: no method"));
    };
    // A notification (no id) gets no reply, whatever it is.
    let id = msg.get("id")?.clone();
    let params = msg.get("params").cloned().unwrap_or(Value::Null);
    let result = match method {
        "initialize" => {
            let version = params.get("protocolVersion").cloned().unwrap_or(json!("2025-06-18"));
            json!({
                "protocolVersion": version,
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "mcp-baseline", "version": env!("CARGO_PKG_VERSION") },
            })
        }
        "ping" => json!({}),
        "tools/list" => json!({
            "tools": [{
                "name": "echo",
                "description": "Returns `ok` and its arguments as structured content.",
                "inputSchema": { "type": "object" },
            }]
        }),
        "tools/call" => {
            let name = params.get("name").and_then(Value::as_str).unwrap_or_default();
            if name != "echo" {
                return Some(error(id, -32602, &format!("unknown tool: {name:?} (the only tool is `echo`)")));
            }
            let args = params.get("arguments").cloned().unwrap_or_else(|| json!({}));
            json!({ "content": [{ "type": "text", "text": "ok" }], "structuredContent": args })
        }
        other => return Some(error(id, -32601, &format!("method not found: {other}"))),
    };
    Some(json!({ "jsonrpc": "2.0", "id": id, "result": result }))
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}
