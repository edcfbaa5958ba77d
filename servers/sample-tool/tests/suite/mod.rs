//! The suites: protocol behaviour, the `hoge` contract, long-running calls, HTTP.

use mcp_tests::StdioClient;

mod adding_a_tool;
mod calls;
mod http;
mod http_limits;
mod long_running;
mod observe;
mod protocol;
#[cfg(target_os = "linux")]
mod start;
mod tour;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_mcp-server-sample-tool");

/// A server spawned with `args` and initialised.
pub fn started(args: &[&str]) -> StdioClient {
    let mut client = StdioClient::spawn(BIN, args).expect("spawn the server");
    client.initialize().expect("initialize");
    client
}
