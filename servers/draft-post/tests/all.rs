//! End-to-end tests of `mcp-server-draft-post`: they spawn the real binary and speak raw
//! JSON-RPC to it (one test binary, modules under `suite/`).

// Test helpers outside #[test] functions may panic: a failed step is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
