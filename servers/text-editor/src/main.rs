//! `mcp-server-text-editor`: parses flags and serves the text editor tool.

use std::path::PathBuf;

use mcp_server_text_editor::{Config, DEFAULT_TOOL_NAME, Limits, Profile, ROOT_FLAG, cli};
use mcp_shared::{TransportArgs, logging, workspace};

/// Claude's text editor tool (view, create, str_replace, insert, undo_edit) as an MCP server,
/// confined to its root directories.
#[derive(Debug, clap::Parser)]
#[command(name = "mcp-server-text-editor", version, about, args_conflicts_with_subcommands = true)]
struct Cli {
    /// A command for a person (without one, the server runs).
    #[command(subcommand)]
    command: Option<Person>,

    /// A directory the editor may work in; repeat for several. Every path must stay inside one.
    /// Default: the client's roots, else the working directory if it is a project, else none.
    #[arg(long = "root", value_name = "DIR", value_parser = mcp_shared::cli::DirValue)]
    roots: Vec<PathBuf>,

    /// Which model family's tools: `claude` (Claude's text_editor and the workspace tools) or
    /// `codex` (Codex's apply_patch, codex-cli 0.171.0, with the read, search and journal tools).
    #[arg(long, value_enum, default_value_t = Profile::Claude)]
    profile: Profile,

    // `--tools text_editor` is the strict drop-in for the npm `mcp-server-text-editor`.
    #[command(flatten)]
    tools: mcp_shared::cli::ToolsArg,

    /// The tool's name, e.g. `str_replace_based_edit_tool` or `str_replace_editor`.
    #[arg(long, value_name = "NAME", default_value = DEFAULT_TOOL_NAME)]
    tool_name: String,

    /// Results are cut after this many characters of file content (Claude's `max_characters`);
    /// 0 for no limit.
    #[arg(long, value_name = "N", default_value_t = 16_000)]
    max_output_chars: usize,

    /// The largest file edited, or viewed without `view_range`, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 64 * 1024 * 1024)]
    max_file_size: u64,

    /// How many edits of each file `undo_edit` can revert, one level per call (0: no undo, no
    /// change journal, and no list_changes / revert_changes).
    #[arg(long, value_name = "N", default_value_t = 32)]
    undo_depth: usize,

    /// Where the change journal is kept (one for every workspace, private to this user). Default:
    /// the user's state directory (`$XDG_STATE_HOME`, `~/Library/Application Support`,
    /// `%LOCALAPPDATA%`), under `mcp-suite/text-editor`. Never inside a root.
    #[arg(long, value_name = "DIR")]
    journal_dir: Option<PathBuf>,

    /// The most the change journal may hold, in bytes; beyond it the oldest changes
    /// are dropped (never a deletion or move whose undo a reply promised).
    #[arg(long, value_name = "BYTES", default_value_t = 256 * 1024 * 1024, value_parser = clap::value_parser!(u64).range(1024..))]
    journal_max_bytes: u64,

    /// The most changes the change journal keeps; beyond it the oldest are dropped (as
    /// for --journal-max-bytes). What the journal costs in memory once read: about 400 bytes a
    /// change.
    #[arg(long, value_name = "N", default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(10..))]
    journal_max_changes: u64,

    /// Do not fsync written files and their directories: faster, but an edit may be lost on a
    /// power failure (never torn: writes stay atomic).
    #[arg(long)]
    no_fsync: bool,

    /// Change nothing: only tools that change nothing are listed, and the text editor's writing
    /// commands are refused (its `view` works).
    #[arg(long)]
    read_only: bool,

    #[command(flatten)]
    transport: TransportArgs,
}

/// A person's way back: the change journal's timeline, and a revert, from a terminal.
#[derive(Debug, clap::Subcommand)]
enum Person {
    /// Show the changes the servers' writing tools made here, by session (client, start, change
    /// numbers) and by file.
    Changes(cli::changes::Changes),
    /// Take the files back to how they were at a point (asks first; --dry-run only shows).
    Revert(cli::revert::Revert),
}

fn main() -> std::process::ExitCode {
    let cli: Cli = mcp_shared::cli::parse(mcp_server_text_editor::TOOL_NAMES);
    match cli.command {
        None => mcp_shared::cli::exit(run(cli)),
        Some(command) => person(command),
    }
}

/// Runs a person's command: its output on stdout, a refusal on stderr with its exit code.
fn person(command: Person) -> std::process::ExitCode {
    use std::io::Write as _;
    logging::init();
    let mut stdout = std::io::stdout();
    let mut say = |text: &str| {
        let _ = stdout.write_all(text.as_bytes());
        let _ = stdout.flush();
    };
    let result = match command {
        Person::Changes(changes) => changes.run().map(|text| say(&text)),
        Person::Revert(revert) => revert.run(&mut say),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(refusal) => {
            let _ = writeln!(std::io::stderr(), "{}", refusal.message);
            std::process::ExitCode::from(refusal.code)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    logging::init();
    let example_args = logging::example_args("--root", &cli.roots, "/path/to/project");
    let home = workspace::home_dir();
    let startup = workspace::decide(cli.roots, std::env::current_dir(), home.as_deref());
    // Logged once the runtime runs, or now if the server cannot be built.
    let log_startup = {
        let startup = startup.clone();
        move || startup.log(&ROOT_FLAG, home.as_deref())
    };
    let config = Config {
        tools: {
            // `--tools` narrows the profile's set.
            let tools = cli.tools.chosen(&cli.profile.tools());
            if tools.is_empty() {
                anyhow::bail!(
                    "--tools names none of the {} profile's tools ({}); pick among them, or choose another --profile",
                    cli.profile.name(),
                    cli.profile.tools().join(", ")
                );
            }
            tools
        },
        workspace: startup,
        tool_name: cli.tool_name,
        read_only: cli.read_only,
        limits: Limits {
            max_output_chars: cli.max_output_chars,
            max_file_size: cli.max_file_size,
            undo_depth: cli.undo_depth,
            fsync: !cli.no_fsync,
            views: !cli.transport.no_views,
            journal_dir: match cli.journal_dir {
                Some(dir) => Some(std::path::absolute(dir)?),
                None => mcp_server_text_editor::default_journal_dir(),
            },
            journal_max_bytes: cli.journal_max_bytes,
            journal_max_changes: usize::try_from(cli.journal_max_changes).unwrap_or(usize::MAX),
            read_only: cli.read_only,
        },
    };
    let server = match mcp_server_text_editor::server(&config) {
        Ok(server) => server,
        Err(error) => {
            log_startup();
            return Err(error.into());
        }
    };
    server.banner("Claude's text editor tool as an MCP server", &example_args);
    mcp_shared::serve_blocking_with(server, &cli.transport, log_startup, || ())?;
    Ok(())
}
