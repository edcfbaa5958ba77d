//! The docs a new user reads first agree with the binaries: every flag a `--help` shows is
//! documented, every flag the docs' tables name is in a `--help`, and the README's table of tools
//! names exactly what each server's `tools/list` answers.

use std::collections::BTreeSet;

use mcp_tests::{StdioClient, find_server_binary};

const BINARIES: [&str; 5] = [
    "mcp-server-text-editor",
    "mcp-server-draft-post",
    "mcp-server-ide-bridge",
    "ide-bridge-host",
    "mcp-server-sample-tool",
];

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The README, every doc and every server's README, in one text.
fn docs() -> String {
    let root = root();
    let mut text = std::fs::read_to_string(root.join("README.md")).unwrap();
    for dir in [root.join("docs"), root.join("servers")] {
        for entry in walkdir(&dir) {
            if entry.extension().is_some_and(|e| e == "md")
                && !entry.components().any(|c| c.as_os_str() == "node_modules")
            {
                text.push_str(&std::fs::read_to_string(&entry).unwrap_or_default());
            }
        }
    }
    text
}

fn walkdir(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walkdir(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// The `--flags` a text names.
fn flags(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (at, _) in text.match_indices("--") {
        let name: String =
            text[at + 2..].chars().take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-').collect();
        if name.len() > 1 && name.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.insert(format!("--{}", name.trim_end_matches('-')));
        }
    }
    out
}

#[test]
fn every_flag_of_every_help_is_documented_and_every_documented_flag_exists() {
    let docs = docs();
    let mut helps = BTreeSet::new();
    for bin in BINARIES {
        let help_of = |args: &[&str]| {
            let out = std::process::Command::new(find_server_binary(bin).unwrap()).args(args).output().unwrap();
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let mut help = help_of(&["--help"]);
        // And each command's (`mcp-server-text-editor changes --help`).
        let commands: Vec<String> = help
            .lines()
            .skip_while(|l| !l.starts_with("Commands:"))
            .skip(1)
            .take_while(|l| !l.trim().is_empty())
            .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
            .filter(|c| c != "help")
            .collect();
        for command in commands {
            help.push_str(&help_of(&[&command, "--help"]));
        }
        for flag in flags(&help) {
            if flag != "--help" && flag != "--version" {
                assert!(docs.contains(&format!("`{flag}")), "{bin} --help shows {flag}, which no doc explains");
            }
            helps.insert(flag);
        }
    }
    // Every flag a docs table gives a row of.
    for line in docs.lines().filter(|l| l.starts_with("| `--")) {
        let flag = line[3..].split('`').next().unwrap().split([' ', '=']).next().unwrap().to_owned();
        assert!(helps.contains(&flag), "a docs table documents {flag}, which no --help shows: {line}");
    }
}

#[test]
fn the_readmes_table_of_tools_is_what_tools_list_answers() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for (server, bin) in [
        ("text-editor", "mcp-server-text-editor"),
        ("draft-post", "mcp-server-draft-post"),
        ("ide-bridge", "mcp-server-ide-bridge"),
        ("sample-tool", "mcp-server-sample-tool"),
    ] {
        let mut documented = BTreeSet::new();
        for line in readme.lines().filter(|l| l.starts_with(&format!("| {server} | "))) {
            let cell = line.split('|').nth(2).unwrap().trim();
            if cell.starts_with("prompt") || cell.starts_with("resources") {
                continue;
            }
            // The backticked names before any parenthesis (`text_editor` (`--tool-name` …)).
            let names = cell.split('(').next().unwrap();
            documented.extend(names.split('`').skip(1).step_by(2).map(str::to_owned));
        }
        let listed: BTreeSet<String> = listed(bin).into_iter().collect();
        assert_eq!(documented, listed, "{server}: the README's table against tools/list");
    }
}

/// The names the server `bin` answers `tools/list` with.
fn listed(bin: &str) -> Vec<String> {
    let mut client = StdioClient::spawn(find_server_binary(bin).unwrap(), &[]).unwrap();
    client.initialize().unwrap();
    client.tool_names().unwrap()
}

/// The tools each `| tool |` table of `text` names (the first cell's backticked name of each row).
fn tables_of_tools(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut in_table = false;
    for line in text.lines() {
        if line.starts_with("| tool |") {
            in_table = true;
        } else if !line.starts_with('|') {
            in_table = false;
        } else if in_table && !line.starts_with("|---") {
            let cell = line.split('|').nth(1).unwrap().trim();
            names.extend(cell.split('`').nth(1).map(str::to_owned));
        }
    }
    names
}

#[test]
fn every_servers_tables_of_tools_are_what_tools_list_answers() {
    for (doc, bin) in [
        ("servers/text-editor/README.md", "mcp-server-text-editor"),
        ("servers/draft-post/README.md", "mcp-server-draft-post"),
        ("servers/ide-bridge/README.md", "mcp-server-ide-bridge"),
        ("docs/adding-a-tool.md", "mcp-server-sample-tool"),
    ] {
        let documented = tables_of_tools(&std::fs::read_to_string(root().join(doc)).unwrap());
        let listed: BTreeSet<String> = listed(bin).into_iter().collect();
        assert_eq!(documented, listed, "{doc}: its tables of tools against tools/list");
    }
    let planted = "| tool | x |\n|---|---|\n| `hoge` | y |\n| `bogus` | z |\n\nprose\n| `not_a_row_of_it` | w |\n";
    assert_eq!(tables_of_tools(planted), BTreeSet::from(["hoge".to_owned(), "bogus".to_owned()]));
}
