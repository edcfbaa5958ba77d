//! `mcp-server-draft-post`: parses flags and serves the draft-post registry.

use std::path::PathBuf;

use mcp_server_draft_post::Settings;
use mcp_shared::{TransportArgs, logging};

/// MCP server that files Markdown manuscripts into projects/<project>/NN-slug/article.md,
/// idempotently: the manuscript's path is its identity, so a re-submitted manuscript updates
/// its article instead of creating a new numbered directory.
#[derive(Debug, clap::Parser)]
#[command(name = "mcp-server-draft-post", version, about)]
struct Cli {
    /// The repository; articles live in DIR/projects/<project>/NN-slug/article.md. Default: the
    /// client's root when it declares exactly one, else the working directory if it is a
    /// project (not /, the home directory or a system directory), else none (every call is
    /// refused until this flag is given).
    #[arg(long, value_name = "DIR", value_parser = mcp_shared::cli::DirValue)]
    repo: Option<PathBuf>,

    /// A directory manuscripts may be read from (repeatable). Default: the repository, its
    /// parent and the working directory, each only if it is a project directory; narrowed by
    /// the client's roots.
    #[arg(long = "source-root", value_name = "DIR", value_parser = mcp_shared::cli::DirValue)]
    source_roots: Vec<PathBuf>,

    /// The largest manuscript, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = mcp_server_draft_post::source::DEFAULT_MAX_MANUSCRIPT_BYTES)]
    max_manuscript_size: u64,

    /// Refuse manuscripts sent as `content` (file only what this server can read from its
    /// source directories).
    #[arg(long)]
    no_content: bool,

    /// The largest attachment (an image a manuscript links, or one a client sends), in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = mcp_server_draft_post::attach::DEFAULT_MAX_ATTACHMENT_BYTES)]
    max_attachment_size: u64,

    /// The most bytes of attachments one call writes.
    #[arg(long, value_name = "BYTES", default_value_t = mcp_server_draft_post::attach::DEFAULT_MAX_ATTACHMENTS_TOTAL)]
    max_attachments_total: u64,

    /// Do not fsync written articles (faster; a power cut may then lose the last write, a crash
    /// of the server still cannot tear an article).
    #[arg(long)]
    no_fsync: bool,

    #[command(flatten)]
    transport: TransportArgs,
}

fn main() -> std::process::ExitCode {
    mcp_shared::cli::exit(run())
}

fn run() -> anyhow::Result<()> {
    let cli = <Cli as clap::Parser>::parse();
    logging::init();
    let example_args = logging::example_args("--repo", cli.repo.as_slice(), "/path/to/blog");
    let settings = Settings {
        repo: cli.repo,
        source_roots: cli.source_roots,
        cwd: std::env::current_dir()?,
        home: mcp_shared::workspace::home_dir(),
        max_manuscript_bytes: cli.max_manuscript_size,
        fsync: !cli.no_fsync,
        accept_content: !cli.no_content,
        attachment_limits: mcp_server_draft_post::attach::AttachmentLimits {
            max_file: cli.max_attachment_size,
            max_total: cli.max_attachments_total,
        },
    };
    let (server, places) = mcp_server_draft_post::server(settings)?;
    server.banner("files manuscripts into projects/<project>/NN-slug/article.md, idempotently", &example_args);
    // Logged once the runtime runs.
    mcp_shared::serve_blocking_with(server, &cli.transport, || places.log_startup(), || ())?;
    Ok(())
}
