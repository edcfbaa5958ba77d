//! A tool is declared once, in its own file, and everything that lists tools is derived from
//! that: `--tools` in `--help`, the banner a person sees on a terminal, the text editor's guide,
//! the bridge's instructions and the `.mcpb` manifests all name exactly what `tools/list` names,
//! and the scripts of `dist/` name no tool.

use std::{collections::BTreeSet, process::Command};

use mcp_tests::{StdioClient, find_server_binary};
use serde_json::json;

const SERVERS: [&str; 4] =
    ["mcp-server-text-editor", "mcp-server-draft-post", "mcp-server-ide-bridge", "mcp-server-sample-tool"];

/// The names `tools/list` answers, in order.
fn listed(bin: &str) -> Vec<String> {
    listed_with(bin, &[])
}

/// The names `tools/list` answers with `args`, in order.
fn listed_with(bin: &str, args: &[&str]) -> Vec<String> {
    let mut client = StdioClient::spawn(find_server_binary(bin).unwrap(), args).unwrap();
    client.initialize().unwrap();
    client.tool_names().unwrap()
}

#[test]
fn the_tools_flag_takes_exactly_the_listed_tools() {
    for bin in ["mcp-server-text-editor", "mcp-server-ide-bridge"] {
        let help = Command::new(find_server_binary(bin).unwrap()).arg("--help").output().unwrap();
        let help = String::from_utf8(help.stdout).unwrap();
        // The flag's text, which may wrap, up to the end of its possible values.
        let from = help.find("--tools").unwrap();
        let line = &help[from..];
        let values = line.split("[possible values: ").nth(1).unwrap().split(']').next().unwrap();
        let values = values.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut offered: Vec<String> = values.split(", ").map(str::to_owned).collect();
        assert_eq!(offered.pop().as_deref(), Some("all"), "{bin}: {values}");
        // Every profile's tools (the text editor's `--profile`), in the order tools/list gives.
        let mut every: Vec<String> = Vec::new();
        let profiles: &[&[&str]] =
            if bin == "mcp-server-text-editor" { &[&["--profile", "claude"], &["--profile", "codex"]] } else { &[&[]] };
        for args in profiles {
            for name in listed_with(bin, args) {
                if !every.contains(&name) {
                    every.push(name);
                }
            }
        }
        offered.sort();
        every.sort();
        assert_eq!(offered, every, "{bin}: --tools in --help against tools/list of every profile");
    }
}

/// What the server prints on stderr when started by hand on a terminal (`script` gives it one).
fn banner(bin: &str) -> String {
    let path = find_server_binary(bin).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new("script")
        .args(["-q", "-c", &format!("timeout 2 {}", path.display()), "/dev/null"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    text.replace('\r', "")
}

#[test]
fn every_banner_names_the_listed_tools() {
    if Command::new("script").arg("--version").output().is_err() {
        panic!("`script` (util-linux) is needed to give a server a terminal");
    }
    for bin in SERVERS {
        let text = banner(bin);
        let line = text.lines().find(|l| l.starts_with("It offers ")).unwrap_or_else(|| panic!("{bin}: {text}"));
        let tools = line.strip_prefix("It offers ").unwrap().split(';').next().unwrap();
        let named: Vec<String> =
            tools.split_once(": ").unwrap().1.trim_end_matches('.').split(", ").map(str::to_owned).collect();
        assert_eq!(named, listed(bin), "{bin}: the banner against tools/list");
    }
}

#[test]
fn the_guide_and_the_instructions_speak_of_the_listed_tools_only() {
    for (args, present, absent) in [
        (vec![], vec!["`search_text`", "`move_file`", "`delete_file`"], vec![]),
        (vec!["--tools", "text_editor,find_files"], vec!["`find_files`"], vec!["`search_text`", "`move_file`"]),
    ] {
        let mut client = StdioClient::spawn(find_server_binary("mcp-server-text-editor").unwrap(), &args).unwrap();
        let init = client.initialize().unwrap();
        let instructions = init["instructions"].as_str().unwrap().to_owned();
        let guide = client.request("prompts/get", json!({"name": "text_editor_guide"})).unwrap();
        let guide = guide["result"]["messages"][0]["content"]["text"].as_str().unwrap().to_owned();
        for name in &present {
            assert!(instructions.contains(name) && guide.contains(name), "{args:?}: {name} missing");
        }
        for name in &absent {
            assert!(!instructions.contains(name) && !guide.contains(name), "{args:?}: {name} not offered");
        }
    }
    let mut client = StdioClient::spawn(find_server_binary("mcp-server-ide-bridge").unwrap(), &[]).unwrap();
    let instructions = client.initialize().unwrap()["instructions"].as_str().unwrap().to_owned();
    for name in listed("mcp-server-ide-bridge") {
        assert!(instructions.contains(&name), "the bridge's instructions do not name {name}");
    }
}

#[test]
fn the_bundles_manifests_list_what_the_binaries_list() {
    let root = mcp_tests::locate::workspace_root();
    let out = tempfile::tempdir().unwrap();
    let servers = find_server_binary("mcp-server-sample-tool").unwrap().parent().unwrap().to_path_buf();
    let made = Command::new("python3")
        .arg(root.join("dist/mcpb.py"))
        .args(["--version", "0.0.0", "--out"])
        .arg(out.path())
        .arg("--servers")
        .arg(&servers)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    for bin in SERVERS {
        let short = bin.strip_prefix("mcp-server-").unwrap();
        let manifest = out.path().join(format!("mcp-suite-{short}/manifest.json"));
        let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(manifest).unwrap()).unwrap();
        let names: Vec<String> =
            manifest["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
        assert_eq!(names, listed(bin), "{bin}: the manifest against tools/list");
        let prompts: BTreeSet<&str> = manifest["prompts"]
            .as_array()
            .map(|p| p.iter().filter_map(|p| p["name"].as_str()).collect())
            .unwrap_or_default();
        let expected: BTreeSet<&str> =
            if short == "text-editor" { BTreeSet::from(["text_editor_guide"]) } else { BTreeSet::new() };
        assert_eq!(prompts, expected, "{bin}: the manifest's prompts");
    }
}

/// The code that packs and ships the binaries (`dist/`, built artifacts under `dist/out` aside)
/// names no tool: what a bundle declares is asked of the built binary, and the session every
/// artifact is tested through lives in `tests/artifacts/`. A tool's name as a string literal
/// (`"name"`, `'name'` or `` `name` ``, not as a key) in a script there is a hand-kept copy.
#[test]
fn dist_names_no_tool() {
    let root = mcp_tests::locate::workspace_root();
    let tools: BTreeSet<String> = SERVERS.iter().flat_map(|bin| listed(bin)).collect();
    let mut stack = vec![root.join("dist")];
    let mut scripts = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                if !["out", "node_modules"].iter().any(|skip| path.file_name().is_some_and(|n| n == *skip)) {
                    stack.push(path);
                }
                continue;
            }
            if !path.extension().is_some_and(|x| ["py", "sh", "js", "mjs"].iter().any(|e| x == *e)) {
                continue;
            }
            scripts += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            for tool in &tools {
                for quote in ['"', '\'', '`'] {
                    let literal = format!("{quote}{tool}{quote}");
                    // A key of the same spelling (`"format": "filepath"`) is not a tool's name.
                    let named = text
                        .match_indices(&literal)
                        .any(|(at, _)| !text[at + literal.len()..].trim_start_matches([' ', '\t']).starts_with(':'));
                    assert!(!named, "{} names the tool {literal}", path.display());
                }
            }
        }
    }
    assert!(scripts >= 5, "only {scripts} scripts found under dist/");
}
