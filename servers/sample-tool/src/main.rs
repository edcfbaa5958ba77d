//! `mcp-server-sample-tool`: parses flags and serves the sample registry.

use mcp_shared::{McpServer, TransportArgs, logging};

/// The mcp-suite template MCP server: the `hoge` calculator and a `countdown` that shows
/// progress, cancellation and timeouts.
#[derive(Debug, clap::Parser)]
#[command(name = "mcp-server-sample-tool", version, about)]
struct Cli {
    #[command(flatten)]
    transport: TransportArgs,
}

fn main() -> std::process::ExitCode {
    mcp_shared::cli::exit(run())
}

fn run() -> anyhow::Result<()> {
    let cli = <Cli as clap::Parser>::parse();
    logging::init();
    let server = McpServer::new(mcp_server_sample_tool::identity(), mcp_server_sample_tool::registry()?);
    server.banner("the template MCP server of mcp-suite", &[]);
    mcp_shared::serve_blocking(server, &cli.transport)?;
    Ok(())
}
