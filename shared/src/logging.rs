//! Logging: `tracing` to stderr (never stdout, which carries JSON-RPC only), filtered by
//! `RUST_LOG`, without ANSI colours unless stderr is a terminal; and the banner a person sees
//! when they start a server by hand on a terminal.

use std::io::{IsTerminal, Write};

use tracing_subscriber::EnvFilter;

/// The filter used when `RUST_LOG` is not set: warnings from everything, info from our crates.
pub const DEFAULT_FILTER: &str = "warn,mcp=info,ide_bridge=info";

/// Installs the stderr subscriber. Safe to call twice (the second call does nothing).
pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        // When stderr is gone (the client closed its end of the pipe), a failed write must be
        // dropped silently: tracing-subscriber would otherwise report it with `eprintln!`, which
        // panics on the same broken pipe, in whatever task logged (the host's signal task
        // then died and SIGTERM no longer stopped it).
        .log_internal_errors(false)
        .try_init();
}

/// What every server's `main` does first: [`init`] the logging, then [`banner_if_terminal`].
pub fn start(banner: &Banner<'_>) {
    init();
    banner_if_terminal(banner);
}

/// What the banner says about a server.
#[derive(Debug, Clone)]
pub struct Banner<'a> {
    /// The binary's name.
    pub name: &'a str,
    /// Its version.
    pub version: &'a str,
    /// One line on what it is.
    pub summary: &'a str,
    /// Extra arguments a client config would pass (e.g. `--root /path/to/project`).
    pub example_args: &'a str,
}

/// When stdin is a terminal (someone ran the server by hand), says on stderr what the server is
/// and how to register it in a client, then lets it wait for JSON-RPC on stdin.
pub fn banner_if_terminal(banner: &Banner<'_>) {
    if !std::io::stdin().is_terminal() {
        return;
    }
    let exe = std::env::current_exe().ok().map(|p| p.display().to_string()).unwrap_or_else(|| banner.name.to_owned());
    let text = banner_text(banner, &exe);
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// The banner's text for the binary at `exe`. The client-side name is the one the README uses
/// (`text-editor` for `mcp-server-text-editor`).
fn banner_text(banner: &Banner<'_>, exe: &str) -> String {
    let short = banner.name.strip_prefix("mcp-server-").unwrap_or(banner.name);
    let args = if banner.example_args.is_empty() { String::new() } else { format!(" {}", banner.example_args) };
    let json_args: Vec<String> = banner.example_args.split_whitespace().map(|a| format!("{a:?}")).collect();
    format!(
        "{name} {version}: {summary}\n\
         This is an MCP server: it speaks JSON-RPC on stdin/stdout and is meant to be started by an MCP client.\n\
         Register it, for example:\n  \
           claude mcp add {short} -- {exe}{args}\n  \
           gemini mcp add {short} {exe}{args}\n  \
           Claude Desktop / VS Code: \"{short}\": {{\"command\": {exe:?}, \"args\": [{json_args}]}}\n\
         Waiting for JSON-RPC on stdin (Ctrl-D to quit; --help for flags).\n",
        name = banner.name,
        version = banner.version,
        summary = banner.summary,
        json_args = json_args.join(", "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_banner_uses_the_readme_names_and_every_line_works() {
        let banner = Banner {
            name: "mcp-server-text-editor",
            version: "0.1.0",
            summary: "Claude's text editor tool",
            example_args: "--root /path/to/project",
        };
        let text = banner_text(&banner, "/bin/mcp-server-text-editor");
        assert!(
            text.contains("  claude mcp add text-editor -- /bin/mcp-server-text-editor --root /path/to/project\n"),
            "{text}"
        );
        assert!(
            text.contains("  gemini mcp add text-editor /bin/mcp-server-text-editor --root /path/to/project\n"),
            "{text}"
        );
        assert!(
            text.contains(
                r#""text-editor": {"command": "/bin/mcp-server-text-editor", "args": ["--root", "/path/to/project"]}"#
            ),
            "{text}"
        );
    }
}
