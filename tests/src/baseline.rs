//! What the do-nothing servers answer: `mcp-baseline` (std only) and `mcp-baseline-tokio` (the
//! same answers on the async stack a real server starts). Both are what the benchmark divides by.
//!
//! - `initialize`: echoes the client's `protocolVersion`, `serverInfo.name` is `mcp-baseline`,
//!   capabilities `{tools: {}}`;
//! - `tools/list`: one tool, `echo`, taking any object;
//! - `tools/call` of `echo`: `{content: [{type: "text", text: "ok"}], structuredContent: <the
//!   arguments>}`;
//! - `ping`: `{}`;
//! - notifications are ignored; any other method gets -32601, a line that is not JSON -32700.

use serde_json::{Value, json};

/// The reply to one line as read (its newline included), or `None` for a notification or a
/// blank line.
pub fn handle(line: &[u8]) -> Option<Value> {
    let line = line.trim_ascii();
    if line.is_empty() {
        return None;
    }
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

/// What `mcp-baseline` and `mcp-baseline-tokio` do with arguments, which they take none of:
/// `--help` prints `about` and ends the process, anything else is refused (exit code 2). Checked
/// without clap: these are the floor every cold-start figure is divided by.
pub fn no_arguments(name: &str, about: &str) {
    use std::io::Write as _;
    let Some(first) = std::env::args_os().nth(1) else {
        return;
    };
    if first == "--help" || first == "-h" {
        let _ = writeln!(
            std::io::stdout(),
            "{about}\n\nUsage: {name}\n\nIt takes no arguments: it serves MCP over stdio until stdin closes."
        );
        std::process::exit(0);
    }
    let _ = writeln!(
        std::io::stderr(),
        "error: {name} takes no arguments (got {}); see {name} --help",
        first.to_string_lossy()
    );
    std::process::exit(2);
}
