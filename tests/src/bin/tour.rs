//! `tour`: a guided, checked MCP session with every server of the workspace.
//!
//! `cargo run --bin tour` spawns each server that exists (building it if needed),
//! prints each request and response, checks each answer, and exits 0 only when every check
//! passed. Sections live in `mcp_tests::tour` (one module per server). It measures nothing, so it
//! runs on the debug build that `cargo test` shares; `--release` works too.

use std::io::IsTerminal;
use std::process::ExitCode;

use mcp_tests::tour::{SECTIONS, Tour};

/// A guided, checked MCP session with every server of the workspace: each request and response
/// printed, each answer checked; exit code 0 only when every check passed. The first run builds
/// the servers (a few minutes from a fresh clone).
#[derive(clap::Parser)]
#[command(name = "tour", version)]
struct Cli {}

fn main() -> ExitCode {
    let _: Cli = clap::Parser::parse();
    let stdout = std::io::stdout();
    let color = stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut tour = Tour::new(Box::new(stdout), color);
    if tour.run_sections(SECTIONS) { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
