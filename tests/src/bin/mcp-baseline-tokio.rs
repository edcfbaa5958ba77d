//! `mcp-baseline-tokio`: `mcp-baseline`'s answers on the async stack every mcp-suite server
//! starts before it can answer: a tokio current-thread runtime with all its drivers (I/O, time,
//! signals, as `mcp_shared::transport::runtime` builds it) and rmcp's non-blocking stdio pipes.
//! No SDK handler, no flags, no logging.
//!
//! `bench/floor.sh` divides by both: the distance from `mcp-baseline` to this one is what the
//! runtime and the pipes cost, the distance from this one to a server is ours.
//!
//! It exits when its stdin closes.

use mcp_tests::baseline::handle;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn main() -> std::io::Result<()> {
    mcp_tests::baseline::no_arguments(
        "mcp-baseline-tokio",
        "mcp-baseline-tokio: mcp-baseline's answers on the async stack the servers start (tokio and rmcp's stdio).",
    );
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().max_blocking_threads(64).build()?;
    runtime.block_on(async {
        let (reader, mut writer) = rmcp::transport::io::stdio_pipes();
        let mut reader = BufReader::with_capacity(8 * 1024, reader);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => return Ok(()),
                Ok(_) => {}
            }
            let Some(reply) = handle(&line) else {
                continue;
            };
            let mut bytes = serde_json::to_vec(&reply)?;
            bytes.push(b'\n');
            if writer.write_all(&bytes).await.is_err() || writer.flush().await.is_err() {
                // The client is gone.
                return Ok(());
            }
        }
    })
}
