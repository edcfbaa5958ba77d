//! End-to-end tests of `mcp-tests`: the client against `mcp-baseline` and scripted fake servers,
//! the benchmark and the tour plumbing.

// Test helpers outside `#[test]` functions unwrap too: a failure there is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
