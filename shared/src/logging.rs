//! Logging: `tracing` to stderr (never stdout, which carries JSON-RPC only), filtered by
//! `RUST_LOG`, without ANSI colours unless stderr is a terminal; and the banner a person sees
//! when they start a server by hand on a terminal.

use std::{
    io::{IsTerminal, Write},
    sync::OnceLock,
};

use tracing::{Metadata, subscriber::Interest};
use tracing_subscriber::{
    EnvFilter, filter::dynamic_filter_fn, layer::SubscriberExt as _, util::SubscriberInitExt as _,
};

/// The filter used when `RUST_LOG` is not set: warnings from everything, info from our crates.
pub const DEFAULT_FILTER: &str = "warn,mcp=info,ide_bridge=info";

/// Installs the stderr subscriber as the global default, unless one is installed already. Safe
/// to call more than once. It also forwards the `log` crate's records (some dependencies log
/// with it).
pub fn init() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_ansi(std::io::stderr().is_terminal())
            .with_target(false)
            // When stderr is gone (the client closed its end of the pipe), a failed write must
            // be dropped silently: tracing-subscriber would otherwise report it with
            // `eprintln!`, which panics on the same broken pipe, in whatever task logged (the
            // host's signal task then died and SIGTERM no longer stopped it).
            .log_internal_errors(false)
            .finish()
            // Asked per event only at the callsites it may refuse (rmcp's "response error"
            // warning); every other callsite keeps the interest the filter above gave it, so
            // what `RUST_LOG` leaves out costs nothing.
            .with(dynamic_filter_fn(|metadata, _| !is_replaced(metadata)).with_callsite_filter(|metadata| {
                if is_rmcps_error_answer(metadata) { Interest::sometimes() } else { Interest::always() }
            }));
        let _ = subscriber.try_init();
    });
}

/// Set by the stdio transport, which gives rmcp ids of its own for the client's (to keep them
/// exactly): rmcp's "response error" warning would name those, so it is left out, and the
/// transport logs each error answer under the client's id instead.
static CLIENT_IDS_LOGGED_BY_TRANSPORT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Called by a transport that logs error answers under the client's ids itself.
pub fn client_ids_logged_by_transport() {
    CLIENT_IDS_LOGGED_BY_TRANSPORT.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether `metadata` is rmcp's per-request "response error" warning (fields `id` and `error`,
/// in `rmcp::service`) while a transport logs those itself.
fn is_replaced(metadata: &Metadata<'_>) -> bool {
    CLIENT_IDS_LOGGED_BY_TRANSPORT.load(std::sync::atomic::Ordering::Relaxed) && is_rmcps_error_answer(metadata)
}

/// Whether `metadata` is rmcp's per-request "response error" warning.
fn is_rmcps_error_answer(metadata: &Metadata<'_>) -> bool {
    metadata.target() == "rmcp::service"
        && *metadata.level() == tracing::Level::WARN
        && metadata.fields().field("id").is_some()
        && metadata.fields().field("error").is_some()
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
    /// The tools it offers (its registry's names) and its prompts.
    pub offers: Offers<'a>,
    /// Extra arguments a client config would pass (e.g. `--root /path/to/project`): the ones
    /// the server was started with, where it was given its directories ([`example_args`]).
    pub example_args: &'a [String],
}

/// What a server offers, as its banner names it.
#[derive(Debug, Clone, Copy)]
pub struct Offers<'a> {
    /// The tools, in `tools/list` order.
    pub tools: &'a [&'a str],
    /// The prompts.
    pub prompts: &'a [&'a str],
}

impl Offers<'_> {
    /// `tools: a, b; prompt: p`.
    fn line(&self) -> String {
        let plural = |n: usize, word: &str| if n == 1 { word.to_owned() } else { format!("{word}s") };
        let mut line = format!("{}: {}", plural(self.tools.len(), "tool"), self.tools.join(", "));
        if !self.prompts.is_empty() {
            line.push_str(&format!("; {}: {}", plural(self.prompts.len(), "prompt"), self.prompts.join(", ")));
        }
        line
    }
}

/// The arguments a banner shows for a directory flag: `flag DIR` for each directory the server
/// was started with (absolute), else `flag placeholder`, so that the lines it prints register
/// this very server.
pub fn example_args(flag: &str, dirs: &[std::path::PathBuf], placeholder: &str) -> Vec<String> {
    if dirs.is_empty() {
        return vec![flag.to_owned(), placeholder.to_owned()];
    }
    dirs.iter()
        .flat_map(|dir| {
            let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
            [flag.to_owned(), dir.display().to_string()]
        })
        .collect()
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
    // As a shell reads them: an argument with a space or a quote in single quotes.
    let quoted = |a: &String| {
        if a.contains(|c: char| c.is_whitespace() || "'\"$\\`".contains(c)) {
            format!("'{}'", a.replace('\'', "'\\''"))
        } else {
            a.clone()
        }
    };
    let args: String = banner.example_args.iter().map(|a| format!(" {}", quoted(a))).collect();
    let json_args: Vec<String> = banner.example_args.iter().map(|a| format!("{a:?}")).collect();
    format!(
        "{name} {version}: {summary}\n\
         It offers {offers}.\n\
         This is an MCP server: it speaks JSON-RPC on stdin/stdout and is meant to be started by an MCP client.\n\
         Register it, for example:\n  \
           claude mcp add {short} -- {exe}{args}\n  \
           gemini mcp add {short} {exe}{args}\n  \
           Claude Desktop / VS Code: \"{short}\": {{\"command\": {exe:?}, \"args\": [{json_args}]}}\n\
         Waiting for JSON-RPC on stdin (Ctrl-D to quit; --help for flags).\n",
        name = banner.name,
        version = banner.version,
        summary = banner.summary,
        offers = banner.offers.line(),
        json_args = json_args.join(", "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_banner_registers_the_root_the_server_was_started_with() {
        let args = example_args("--root", &[std::path::PathBuf::from("/home/u/my project")], "/path/to/project");
        let offers = Offers { tools: &["a"], prompts: &[] };
        let banner =
            Banner { name: "mcp-server-text-editor", version: "0.1.0", summary: "s", offers, example_args: &args };
        let text = banner_text(&banner, "/bin/mcp-server-text-editor");
        // Absolute as the platform writes it (`Z:\home\u\my project` on Windows).
        let shown = std::path::absolute("/home/u/my project").unwrap().display().to_string();
        let line = format!("claude mcp add text-editor -- /bin/mcp-server-text-editor --root '{shown}'\n");
        assert!(text.contains(&line), "{text}");
        assert!(text.contains(&format!(r#""args": ["--root", {shown:?}]"#)), "{text}");
        assert!(!text.contains("/path/to/project"), "{text}");
    }

    #[test]
    fn the_banner_uses_the_readme_names_and_every_line_works() {
        let banner = Banner {
            name: "mcp-server-text-editor",
            version: "0.1.0",
            summary: "Claude's text editor tool",
            offers: Offers { tools: &["text_editor", "edit_file"], prompts: &["text_editor_guide"] },
            example_args: &example_args("--root", &[], "/path/to/project"),
        };
        let text = banner_text(&banner, "/bin/mcp-server-text-editor");
        assert!(text.contains("\nIt offers tools: text_editor, edit_file; prompt: text_editor_guide.\n"), "{text}");
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
