//! `mcp-tests`: a raw JSON-RPC stdio MCP client for mcp-suite's end-to-end tests, the tour and the
//! benchmark.
//!
//! No SDK on purpose: the tests must see exactly what a server writes on stdout (a stray log line,
//! a malformed message, an id that does not match) and must be able to send what no well-behaved
//! client would (malformed JSON, oversized lines, requests before `initialize`).
//!
//! - [`client`]: [`StdioClient`] (spawn a server, talk JSON-RPC to it, read its stderr) and its
//!   [`ClientBuilder`].
//! - [`result`]: helpers to read a `tools/call` result: [`text_of`], [`is_error`], [`structured`].
//! - [`http`]: [`http::HttpSession`], a blocking keep-alive Streamable HTTP client (the HTTP
//!   load benchmark `mcp-http-load`).
//! - [`locate`]: [`find_server_binary`], for the tour and the benchmark.
//! - [`raw`]: [`raw::RawStdio`], a server's stdio as exact lines (byte-exact ids, one answer
//!   per request line).
//! - [`os`]: symbolic links and permission bits on every OS, for the tests.
//! - [`procfs`]: resident memory of a process (tree) from `/proc`, for the benchmark.
//! - [`tour`]: the guided tour of every server (`cargo run --bin tour`).
//!
//! The client is synchronous (std threads, no runtime), so that its own overhead is small and
//! the same for every server the benchmark measures.

pub mod baseline;
pub mod client;
pub mod http;
pub mod locate;
pub mod os;
pub mod procfs;
pub mod raw;
pub mod result;
pub mod rng;
pub mod tour;

pub use client::{ClientBuilder, DEFAULT_TIMEOUT, PROTOCOL_VERSION, StdioClient};
pub use locate::{find_server_binary, workspace_root};
pub use result::{error_code, is_error, structured, text_of};
