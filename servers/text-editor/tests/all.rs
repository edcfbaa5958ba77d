//! End-to-end tests of `mcp-server-text-editor`: they spawn the real binary and speak raw
//! JSON-RPC to it (one test binary, modules under `suite/`), plus in-process property tests.

// Test helpers outside #[test] functions may panic: a failed step is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
