//! `mcp-server-draft-post`: parses flags and serves the draft-post registry.

use std::path::PathBuf;

use clap::Parser;
use mcp_server_draft_post::RepoConfig;
use mcp_shared::{McpServer, TransportArgs, logging};

/// MCP server that files Markdown manuscripts into projects/<project>/NN-slug/article.md,
/// idempotently: the manuscript's path is its identity, so a re-submitted manuscript updates
/// its article instead of creating a new numbered directory.
#[derive(Debug, Parser)]
#[command(name = "mcp-server-draft-post", version, about)]
struct Cli {
    /// The repository; articles live in DIR/projects/<project>/NN-slug/article.md.
    #[arg(long, value_name = "DIR", default_value = ".")]
    repo: PathBuf,

    /// Do not fsync written articles (faster; a power cut may then lose the last write, a crash
    /// of the server still cannot tear an article).
    #[arg(long)]
    no_fsync: bool,

    #[command(flatten)]
    transport: TransportArgs,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    logging::start(&logging::Banner {
        name: mcp_server_draft_post::NAME,
        version: env!("CARGO_PKG_VERSION"),
        summary: "files manuscripts into projects/<project>/NN-slug/article.md, idempotently (tools: draft_post, list_posts)",
        example_args: "--repo /path/to/blog",
    });
    let config = RepoConfig { repo: cli.repo, base_dir: std::env::current_dir()?, fsync: !cli.no_fsync };
    let registry = mcp_server_draft_post::registry(&config)?;
    let server = McpServer::new(mcp_server_draft_post::identity(), registry);
    mcp_shared::serve_blocking(server, &cli.transport)?;
    Ok(())
}
