//! The default workspace when `--root` is absent, through the real binary: started in `/` (as
//! Claude Desktop does) it has no workspace and refuses every call with the flag to add, touching
//! nothing; a client that declares roots gets them; started in a project directory it works there.

use std::path::{Path, PathBuf};

use mcp_tests::{ClientBuilder, StdioClient};
use serde_json::{Value, json};

use super::{
    BIN, TOOL, first_text,
    roots::{RootsClient, uri},
};

/// The config snippet every no-workspace message carries.
const SNIPPET: &str = r#"{"command": "mcp-server-text-editor", "args": ["--root", "/path/to/project"]}"#;

/// A project directory (`f.txt` in it) and a sibling outside it (`g.txt`), in a fresh temp dir.
struct Dirs {
    _dir: tempfile::TempDir,
    project: PathBuf,
    outside: PathBuf,
}

fn dirs() -> Dirs {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (project, outside) = (base.join("project"), base.join("outside"));
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(project.join("f.txt"), "one\ntwo\n").unwrap();
    std::fs::write(outside.join("g.txt"), "g\n").unwrap();
    Dirs { _dir: dir, project, outside }
}

/// The server started in `/` with no flags.
fn in_slash() -> ClientBuilder {
    StdioClient::builder(BIN).current_dir("/")
}

fn call(client: &mut StdioClient, args: Value) -> Value {
    client.call_tool(TOOL, args).unwrap()
}

/// A name no other test (or run) uses, for files that must not appear.
fn unique(stem: &str) -> String {
    format!("{stem}-{}-{:?}", std::process::id(), std::thread::current().id()).replace(['(', ')'], "")
}

fn assert_refused_with_hint(result: &Value, what: &Value) {
    assert!(mcp_tests::is_error(result), "{what} should be refused: {result}");
    assert_eq!(mcp_tests::error_code(result).as_deref(), Some("UNAVAILABLE"), "{what}: {result}");
    let text = first_text(result);
    assert!(text.starts_with("No workspace: "), "{what}: {text}");
    assert!(text.contains(SNIPPET), "{what}: {text}");
    assert!(text.contains("nothing was read or written"), "{what}: {text}");
    assert!(!text.contains("root:"), "{what} leaked a file: {text}");
}

#[test]
fn started_in_slash_without_root_serves_no_workspace_and_touches_nothing() {
    let d = dirs();
    let existing = d.outside.join("g.txt");
    let created = d.outside.join(unique("new"));
    let relative = unique("relative");
    let mut client = in_slash().spawn().unwrap();

    // it starts, says so in `instructions` and once on stderr, and lists its tool
    let init = client.initialize().unwrap();
    let instructions = init["instructions"].as_str().unwrap_or_default();
    assert!(instructions.starts_with("This server has no workspace unless the client declares MCP roots"), "{init}");
    assert!(instructions.contains(SNIPPET), "{instructions}");
    let tools = client.list_tools().unwrap();
    assert_eq!(tools.len(), mcp_server_text_editor::Profile::Claude.tools().len());
    assert_eq!(tools[0]["name"], TOOL);
    client.wait_for_stderr("no workspace: started without --root in / (the file system's root").unwrap();

    let calls = [
        json!({"command": "view", "path": "/etc/passwd"}),
        json!({"command": "view", "path": "etc/passwd"}),
        json!({"command": "view", "path": "/"}),
        json!({"command": "view", "path": existing}),
        json!({"command": "create", "path": created, "file_text": "x\n"}),
        json!({"command": "create", "path": relative, "file_text": "x\n"}),
        json!({"command": "str_replace", "path": existing, "old_str": "g", "new_str": "h"}),
        json!({"command": "insert", "path": existing, "insert_line": 0, "insert_text": "h"}),
        json!({"command": "undo_edit", "path": existing}),
    ];
    for args in &calls {
        assert_refused_with_hint(&call(&mut client, args.clone()), args);
    }
    // The workspace tools find nothing either: the system is not searched.
    for (tool, args) in
        [("search_text", json!({"pattern": "root", "path": "/etc"})), ("find_files", json!({"pattern": "*"}))]
    {
        let result = client.call_tool(tool, args.clone()).unwrap();
        assert_eq!(mcp_tests::error_code(&result).as_deref(), Some("UNAVAILABLE"), "{tool}: {result}");
        assert!(!mcp_tests::text_of(&result).contains("root:x:0"), "{result}");
    }
    assert!(!created.exists(), "a refused create wrote {}", created.display());
    assert!(!Path::new("/").join(&relative).exists(), "a refused create wrote /{relative}");
    assert_eq!(std::fs::read(&existing).unwrap(), b"g\n");
    // the server keeps serving, and said it once
    client.request("ping", json!({})).unwrap();
    assert_eq!(client.stderr_text().matches("no workspace").count(), 1, "{}", client.stderr_text());
}

#[test]
fn the_home_directory_is_no_workspace_either() {
    let d = dirs();
    let mut client = StdioClient::builder(BIN).current_dir(&d.project).env("HOME", &d.project).spawn().unwrap();
    client.initialize().unwrap();
    let args = json!({"command": "create", "path": "made.txt", "file_text": "x\n"});
    assert_refused_with_hint(&call(&mut client, args.clone()), &args);
    assert!(!d.project.join("made.txt").exists());
    client.wait_for_stderr("(the home directory, not a project)").unwrap();
}

#[test]
fn a_client_that_declares_roots_gets_them_even_from_slash() {
    let d = dirs();
    let mut c = RootsClient::spawn(in_slash(), Ok(vec![uri(&d.project)]));
    // inside: works, relative paths included
    let r = c.call(json!({"command": "view", "path": d.project.join("f.txt")}));
    assert!(!mcp_tests::is_error(&r), "{r}");
    let r = c.call(json!({"command": "view", "path": "f.txt"}));
    assert!(first_text(&r).contains("\tone\n"), "{r}");
    let r = c.call(json!({"command": "create", "path": d.project.join("new.txt"), "file_text": "n\n"}));
    assert!(!mcp_tests::is_error(&r), "{r}");
    assert_eq!(std::fs::read(d.project.join("new.txt")).unwrap(), b"n\n");
    // outside: refused, nothing written
    let r = c.call(json!({"command": "view", "path": "/etc/passwd"}));
    assert_eq!(mcp_tests::error_code(&r).as_deref(), Some("OUTSIDE_ROOT"), "{r}");
    assert!(!first_text(&r).contains("root:"), "{r}");
    let r = c.call(json!({"command": "create", "path": d.outside.join("new.txt"), "file_text": "n\n"}));
    assert_eq!(mcp_tests::error_code(&r).as_deref(), Some("OUTSIDE_ROOT"), "{r}");
    assert!(!d.outside.join("new.txt").exists());
    assert_eq!(c.asked, 1);

    // a client that declares roots but lists none: still no workspace
    let mut c = RootsClient::spawn(in_slash(), Ok(vec![]));
    let args = json!({"command": "view", "path": d.project.join("f.txt")});
    assert_refused_with_hint(&c.call(args.clone()), &args);
}

#[test]
fn started_in_a_project_directory_it_works_there_as_before() {
    let d = dirs();
    let mut client = StdioClient::builder(BIN).current_dir(&d.project).spawn().unwrap();
    let init = client.initialize().unwrap();
    assert!(init["instructions"].as_str().unwrap_or_default().contains(&*d.project.to_string_lossy()), "{init}");
    let r = call(&mut client, json!({"command": "create", "path": "made.txt", "file_text": "m\n"}));
    assert!(!mcp_tests::is_error(&r), "{r}");
    assert_eq!(std::fs::read(d.project.join("made.txt")).unwrap(), b"m\n");
    let r = call(&mut client, json!({"command": "view", "path": d.outside.join("g.txt")}));
    assert_eq!(mcp_tests::error_code(&r).as_deref(), Some("OUTSIDE_ROOT"), "{r}");
}

#[test]
fn an_explicit_root_of_slash_is_served_and_logged_as_a_choice() {
    let d = dirs();
    let mut client = in_slash().args(["--root", "/"]).spawn().unwrap();
    client.initialize().unwrap();
    client.wait_for_stderr("--root / was given explicitly").unwrap();
    let r = call(&mut client, json!({"command": "view", "path": d.outside.join("g.txt")}));
    assert!(!mcp_tests::is_error(&r), "{r}");
}
