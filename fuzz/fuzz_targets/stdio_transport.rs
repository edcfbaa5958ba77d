//! The stdio transport over arbitrary input: it never panics or hangs, and everything it
//! writes is JSON (grammar-checked, so that ids such as `1e400` echoed as sent still count), one
//! message per line; every request rmcp gets is answered under the client's exact id.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_shared::transport::stdio::StdioTransport;
use rmcp::{
    model::{EmptyResult, JsonRpcMessage, ServerJsonRpcMessage, ServerResult},
    transport::Transport,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fuzz_target!(|data: &[u8]| {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
    runtime.block_on(async {
        let (mut to_server, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, mut from_server) = tokio::io::duplex(1 << 22);
        let mut transport = StdioTransport::new(server_in, server_out, 4096);
        to_server.write_all(data).await.unwrap();
        drop(to_server);
        let mut asked = 0usize;
        while let Some(message) = transport.receive().await {
            if let JsonRpcMessage::Request(request) = message {
                asked += 1;
                let answer = ServerJsonRpcMessage::response(ServerResult::EmptyResult(EmptyResult {}), request.id);
                transport.send(answer).await.unwrap();
            }
        }
        transport.close().await.unwrap();
        drop(transport);
        let mut written = Vec::new();
        from_server.read_to_end(&mut written).await.unwrap();
        let mut answers = 0usize;
        for line in written.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            assert!(
                serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok(),
                "not JSON: {}",
                String::from_utf8_lossy(line)
            );
            answers += 1;
        }
        // A batch's answers share a line, so lines can be fewer than requests, never zero when
        // a request reached rmcp.
        assert!(asked == 0 || answers > 0, "{asked} requests and no answer");
    });
});
