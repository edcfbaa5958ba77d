//! The test modules (one test binary for the crate).

mod architecture;
mod baseline;
mod bench;
mod client;
mod declared_once;
mod docs;
mod escapes;
mod http_doc;
mod protocol_fuzz;
mod robustness;
mod stateless;
mod tour;

/// The `mcp-baseline` binary cargo built for these tests.
pub const BASELINE: &str = env!("CARGO_BIN_EXE_mcp-baseline");
/// The `mcp-baseline-tokio` binary: the same answers on the servers' async stack.
pub const BASELINE_TOKIO: &str = env!("CARGO_BIN_EXE_mcp-baseline-tokio");
