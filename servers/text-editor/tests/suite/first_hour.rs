//! What a new user meets first: `~` in a client's configuration, paths written as in a shell.

use serde_json::json;

use super::{BIN, first_text};

/// Clients start servers without a shell: `--root ~/project` reaches the server as written and
/// is expanded by it.
#[test]
fn a_root_given_with_a_tilde_is_the_home_directory() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path().canonicalize().unwrap();
    std::fs::create_dir(home.join("project")).unwrap();
    std::fs::write(home.join("project/notes.txt"), "hello\n").unwrap();
    let mut client = mcp_tests::StdioClient::builder(BIN)
        .args(["--root", "~/project"])
        .env("HOME", home.to_str().unwrap())
        .spawn()
        .unwrap();
    client.initialize().unwrap();
    let result = client.call_tool("text_editor", json!({"command": "view", "path": "notes.txt"})).unwrap();
    assert!(first_text(&result).contains("hello"), "{result}");
    // Inside a call `~` is not expanded (no shell), and the error says so.
    let result = client.call_tool("text_editor", json!({"command": "view", "path": "~/project/notes.txt"})).unwrap();
    assert!(first_text(&result).contains("`~` is not expanded"), "{result}");
}
