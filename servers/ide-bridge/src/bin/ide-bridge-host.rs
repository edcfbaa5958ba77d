//! `ide-bridge-host`: serves one workspace folder to bridges over an authenticated WebSocket on
//! 127.0.0.1, and advertises itself in a discovery file until it exits.

use std::{io::Write, path::PathBuf, time::Duration};

use anyhow::{Context, bail};
use clap::Parser;
use mcp_server_ide_bridge::{
    discovery::{self, DiscoveryRecord},
    host::{
        Host, HostConfig,
        fs::{WorkspaceFolder, WorkspaceSettings},
    },
    protocol::{DEFAULT_MAX_FILE_SIZE, DEFAULT_MAX_LIST_ENTRIES, DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_PORT, TOKEN_ENV},
};
use mcp_shared::logging;
use tokio_util::sync::CancellationToken;

/// The workspace host of the IDE bridge (the IDE extension's role, headless): serves fs/list,
/// fs/read and fs/write on one folder over an authenticated WebSocket on 127.0.0.1.
#[derive(Debug, Parser)]
// `about` from the doc comment above, not the package's description (the bridge's).
#[command(name = "ide-bridge-host", version)]
struct Cli {
    /// The workspace folder to serve. Default: the working directory if it is a project (not /,
    /// the home directory or a system directory); otherwise the host refuses to start.
    #[arg(long, value_name = "DIR", value_parser = mcp_shared::cli::DirValue)]
    root: Option<PathBuf>,

    /// The port on 127.0.0.1 (0: any free port).
    #[arg(long, default_value_t = DEFAULT_PORT)]
    port: u16,

    /// The token bridges must send (Authorization: Bearer). Default: a random 128-bit token,
    /// printed once on stderr.
    #[arg(long, value_name = "TOKEN", env = TOKEN_ENV, hide_env_values = true)]
    token: Option<String>,

    /// Refuse every write (fs/write fails with -32004).
    #[arg(long)]
    read_only: bool,

    /// The largest file read or written, in bytes (larger: -32002).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_FILE_SIZE)]
    max_file_size: u64,

    /// The largest WebSocket message accepted, in bytes (a larger one closes the connection).
    #[arg(long = "max-message-bytes", alias = "max-message-size", value_name = "BYTES", default_value_t = DEFAULT_MAX_MESSAGE_SIZE)]
    max_message_size: usize,

    /// The most entries one fs/list examines (the listing is then marked truncated).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_LIST_ENTRIES)]
    max_list_entries: usize,

    /// An Origin allowed to connect (repeatable). By default none: no web page may connect.
    #[arg(long = "allow-origin", alias = "allowed-origin", value_name = "ORIGIN")]
    allowed_origins: Vec<String>,

    /// The keep-alive ping interval, in seconds; a client silent for two intervals is dropped.
    #[arg(long, value_name = "SECS", default_value_t = mcp_server_ide_bridge::ws::PING_INTERVAL.as_secs_f64(), value_parser = mcp_shared::transport::parse_seconds)]
    ping_interval: f64,

    /// Do not fsync written files and directories (faster, not durable across a power loss).
    #[arg(long)]
    no_fsync: bool,

    /// Do not write the discovery file (bridges then need --url and --token).
    #[arg(long)]
    no_discovery: bool,
}

/// The directory flag, for the start-up log line.
const ROOT_FLAG: mcp_shared::workspace::DirectoryFlag<'static> = mcp_shared::workspace::DirectoryFlag {
    server: "ide-bridge-host",
    flag: "--root",
    what: "workspace folder",
    example: "/path/to/project",
};

/// Writes one line to stderr, whatever the log filter (the port and the token must be seen).
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "ide-bridge-host: {line}");
}

fn main() -> std::process::ExitCode {
    mcp_shared::cli::exit(run())
}

fn run() -> anyhow::Result<()> {
    let cli = Cli::parse();
    logging::init();
    let (token, generated) = match cli.token.clone().filter(|t| !t.is_empty()) {
        Some(token) => (token, false),
        None => (mcp_server_ide_bridge::generate_token().context("cannot generate a random token")?, true),
    };
    if token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        bail!("the token must not contain spaces or control characters");
    }
    if cli.max_file_size == 0 || cli.max_message_size < 1024 {
        bail!("--max-file-size must be at least 1 and --max-message-bytes at least 1024");
    }
    let settings = WorkspaceSettings {
        read_only: cli.read_only,
        max_file_size: cli.max_file_size,
        max_list_entries: cli.max_list_entries.max(1),
        fsync: !cli.no_fsync,
    };
    // The shared default-workspace rule (a host has no MCP client, so no client roots, and
    // nothing to serve without a folder: it stops with the flag to add instead).
    let home = mcp_shared::workspace::home_dir();
    let startup =
        mcp_shared::workspace::decide(cli.root.clone().into_iter().collect(), std::env::current_dir(), home.as_deref());
    // The shared log lines speak of a client's MCP roots, which a host has none of: say only
    // what applies here (an explicit non-project folder; the working directory), and let the
    // error below say there is no workspace.
    match &startup {
        mcp_shared::workspace::Startup::WorkingDirectory(dir) => {
            tracing::info!("no --root: serving the working directory {}", dir.display());
        }
        mcp_shared::workspace::Startup::Explicit(_) => startup.log(&ROOT_FLAG, home.as_deref()),
        mcp_shared::workspace::Startup::None { .. } => {}
    }
    let Some(root) = startup.dirs().into_iter().next() else {
        bail!(
            "no workspace: started without --root in a directory that is not a project (such as / or the home \
             directory); start it with --root DIR, e.g. ide-bridge-host --root /path/to/project"
        );
    };
    let workspace = WorkspaceFolder::open(&root, settings)?;
    let root = workspace.root();
    let config = HostConfig {
        workspace,
        token: token.clone(),
        allowed_origins: cli.allowed_origins.clone(),
        max_message_size: cli.max_message_size,
        ping_interval: Duration::from_secs_f64(cli.ping_interval),
    };

    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async move {
        // Before the discovery file exists, so that a signal never leaves it behind.
        let signals = Signals::install().context("cannot install the signal handlers")?;
        let host = Host::bind(config, cli.port).await.with_context(|| {
            format!("cannot listen on 127.0.0.1:{} (pick another --port; 0 picks a free one)", cli.port)
        })?;
        let port = host.local_addr()?.port();
        let published = if cli.no_discovery {
            None
        } else {
            let record = DiscoveryRecord {
                port,
                pid: std::process::id(),
                workspace_folders: vec![root.display().to_string()],
                token: token.clone(),
            };
            Some(discovery::publish(&discovery::discovery_dir(), &record).context("cannot write the discovery file")?)
        };
        say(&format!("serving {} on ws://127.0.0.1:{port}", root.display()));
        if generated {
            say(&format!("token: {token}"));
        }
        if let Some(published) = &published {
            say(&format!("discovery file: {}", published.path().display()));
        }
        if cli.read_only {
            say("read-only: every fs/write is refused");
        }
        say(&format!("listening on ws://127.0.0.1:{port}"));

        let shutdown = CancellationToken::new();
        tokio::spawn(signals.wait_then_cancel(shutdown.clone()));
        host.serve(shutdown).await;
        drop(published);
        say("stopped");
        Ok::<(), anyhow::Error>(())
    })
}

/// SIGINT, SIGTERM and SIGHUP, caught from the start.
#[cfg(unix)]
struct Signals {
    int: tokio::signal::unix::Signal,
    term: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Signals {
    fn install() -> std::io::Result<Signals> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Signals {
            int: signal(SignalKind::interrupt())?,
            term: signal(SignalKind::terminate())?,
            hup: signal(SignalKind::hangup())?,
        })
    }

    /// Cancels `shutdown` on the first signal (the discovery file is then removed).
    async fn wait_then_cancel(mut self, shutdown: CancellationToken) {
        let name = tokio::select! {
            _ = self.int.recv() => "SIGINT",
            _ = self.term.recv() => "SIGTERM",
            _ = self.hup.recv() => "SIGHUP",
        };
        tracing::info!("{name}: shutting down");
        shutdown.cancel();
    }
}

/// Ctrl+C, Ctrl+Break and the console closing (Windows' signals), caught from the start.
#[cfg(windows)]
struct Signals {
    ctrl_c: tokio::signal::windows::CtrlC,
    ctrl_break: tokio::signal::windows::CtrlBreak,
    close: tokio::signal::windows::CtrlClose,
}

#[cfg(windows)]
impl Signals {
    fn install() -> std::io::Result<Signals> {
        use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close};
        Ok(Signals { ctrl_c: ctrl_c()?, ctrl_break: ctrl_break()?, close: ctrl_close()? })
    }

    /// Cancels `shutdown` on the first signal (the discovery file is then removed).
    async fn wait_then_cancel(mut self, shutdown: CancellationToken) {
        let name = tokio::select! {
            _ = self.ctrl_c.recv() => "Ctrl+C",
            _ = self.ctrl_break.recv() => "Ctrl+Break",
            _ = self.close.recv() => "console closed",
        };
        tracing::info!("{name}: shutting down");
        shutdown.cancel();
    }
}
