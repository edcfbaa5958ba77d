//! `mcp-server-ide-bridge`: parses flags, starts the connection to the workspace host, and serves
//! MCP (stdio by default).

use std::{path::PathBuf, time::Duration};

use anyhow::bail;
use mcp_server_ide_bridge::{
    bridge::{Bridge, BridgeConfig, IdeChoice, Target, claude_code},
    discovery,
    protocol::TOKEN_ENV,
};
use mcp_shared::{TransportArgs, logging};
use tokio_tungstenite::tungstenite::http::Uri;

/// An MCP server for the workspace open in your IDE: its files, live state and language servers
/// as tools, and its files as file:/// resources, forwarded over an authenticated WebSocket to
/// the IDE's ide-bridge extension (or to ide-bridge-host).
#[derive(Debug, clap::Parser)]
#[command(name = "mcp-server-ide-bridge", version, about)]
struct Cli {
    /// The host's WebSocket URL, e.g. ws://127.0.0.1:8888. Without it, the host is found through
    /// the discovery files: the live host whose workspace folder contains --workspace.
    #[arg(long, value_name = "URL")]
    url: Option<String>,

    /// The host's token. Default: the one in the host's discovery file.
    #[arg(long, value_name = "TOKEN", env = TOKEN_ENV, hide_env_values = true)]
    token: Option<String>,

    /// The directory discovery looks for a host of. Default: the current directory.
    #[arg(long, value_name = "DIR", value_parser = mcp_shared::cli::DirValue)]
    workspace: Option<PathBuf>,

    /// Which IDE to connect to: `auto` (the ide-bridge extension or ide-bridge-host, else an IDE
    /// serving the Claude Code IDE protocol: JetBrains, claudecode.nvim, claude-code-ide.el, else
    /// the Gemini CLI companion; never VS Code's Claude Code extension, which serves one client at
    /// a time), `mcp-suite`, `claude-code` (VS Code's Claude Code extension too: it drops its
    /// previous client) or `gemini`.
    #[arg(long, value_enum, value_name = "KIND", default_value_t = IdeChoice::Auto)]
    ide: IdeChoice,

    /// How long one request waits for the host's answer, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 20.0, value_parser = mcp_shared::transport::parse_seconds)]
    request_timeout: f64,

    #[command(flatten)]
    tools: mcp_shared::cli::ToolsArg,

    #[command(flatten)]
    transport: TransportArgs,
}

fn main() -> std::process::ExitCode {
    mcp_shared::cli::exit(run())
}

fn run() -> anyhow::Result<()> {
    let cli: Cli = mcp_shared::cli::parse(mcp_server_ide_bridge::TOOL_NAMES);
    logging::init();
    let example_args = logging::example_args("--workspace", cli.workspace.as_slice(), "/path/to/project");
    if cli.request_timeout > cli.transport.tool_timeout {
        tracing::warn!(
            "--request-timeout {} s is longer than --tool-timeout {} s, which cuts every tool call first; raise --tool-timeout too",
            cli.request_timeout,
            cli.transport.tool_timeout
        );
    }
    let dir = match &cli.workspace {
        Some(dir) => std::fs::canonicalize(dir).map_err(|e| {
            let why =
                if e.kind() == std::io::ErrorKind::NotFound { "does not exist".to_owned() } else { e.to_string() };
            anyhow::anyhow!(
                "--workspace {} {why}; give an existing directory (an absolute path, or `~/…`)",
                dir.display()
            )
        })?,
        None => {
            let cwd = std::env::current_dir()?;
            std::fs::canonicalize(&cwd).unwrap_or(cwd)
        }
    };
    let given = cli.workspace.is_some();
    let target = match &cli.url {
        Some(url) => {
            let uri: Uri =
                url.parse().map_err(|_| anyhow::anyhow!("--url `{url}` is not a URL; use ws://127.0.0.1:<port>"))?;
            if !matches!(uri.scheme_str(), Some("ws" | "wss")) || uri.host().is_none() {
                bail!("--url `{url}` is not a WebSocket URL; use ws://127.0.0.1:<port>");
            }
            if cli.ide == IdeChoice::Gemini {
                bail!(
                    "--url cannot be used with --ide gemini: the Gemini CLI companion is found through its discovery file (it speaks MCP over HTTP, not a WebSocket); start the bridge without --url"
                );
            }
            if cli.ide == IdeChoice::ClaudeCode && !given && dir.parent().is_none() {
                bail!(
                    "started in {} without --workspace: the bridge would serve the whole file system through {url}; give --workspace DIR (a folder the IDE has open)",
                    dir.display()
                );
            }
            Target::Url { url: url.clone(), dir, given }
        }
        None => Target::Discover { dir, given },
    };
    let config = BridgeConfig {
        target,
        ide: cli.ide,
        lock_dirs: claude_code::lock::lock_dirs(),
        companion_dirs: mcp_server_ide_bridge::bridge::gemini::file::companion_dirs(),
        token: cli.token.clone().filter(|t| !t.is_empty()),
        discovery_dirs: discovery::bridge_dirs(),
        request_timeout: Duration::from_secs_f64(cli.request_timeout),
        tool_timeout: Duration::from_secs_f64(cli.transport.tool_timeout),
    };
    let bridge = Bridge::new(config);
    let chosen = cli.tools.chosen(mcp_server_ide_bridge::TOOL_NAMES);
    let server = mcp_server_ide_bridge::server(bridge.clone(), |name| chosen.iter().any(|c| c == name))?;
    let summary = format!("your IDE's workspace, live state and language servers over MCP; {}", bridge.expected());
    server.banner(&summary, &example_args);
    // The link to the host starts with the runtime.
    mcp_shared::serve_blocking_with(server, &cli.transport, || bridge.connect(), || bridge.shutdown())?;
    Ok(())
}
