//! Tour of `mcp-server-text-editor`: Claude's text editor tool on a temporary project — a
//! directory view, a file view with a range, create, str_replace (with its snippet), insert,
//! undo, the errors a model meets (no match, a path outside the root); then a session's work with
//! the other writing tools (`edit_file`, `move_file`, `delete_file`), the change journal's
//! `list_changes` and `revert_changes` taking it all back, and the guide prompt.

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::json;

use super::Tour;
use crate::result::{is_error, text_of};

/// The server's binary (and `serverInfo.name`).
pub const BINARY: &str = "mcp-server-text-editor";

/// The tool's name.
const TOOL: &str = "text_editor";

/// A temporary directory removed on drop (the tour has no tempfile crate).
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir> {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let dir = std::env::temp_dir().join(format!("mcp-tour-text-editor-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(dir.join("project/src")).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(TempDir(dir.canonicalize()?))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the text-editor section.
pub fn run(t: &mut Tour) -> Result<()> {
    let tmp = TempDir::new()?;
    // The project, and the change journal beside it (not the user's own journal).
    let dir = tmp.0.join("project");
    let journal = tmp.0.join("journal").display().to_string();
    let root = dir.display().to_string();
    std::fs::write(dir.join("src/app.py"), "def greet(name):\n    return 'hello ' + name\n")?;
    std::fs::write(dir.join(".gitignore"), "build/\n")?;
    std::fs::create_dir_all(dir.join("build"))?;

    let mut c = t.spawn(BINARY, &["--root", &root, "--journal-dir", &journal])?;
    t.initialize(&mut c, BINARY)?;
    t.tools_list(&mut c, &[TOOL])?;

    let r = t.call(
        &mut c,
        "view the project (two levels, .gitignore honoured)",
        TOOL,
        json!({"command": "view", "path": root}),
    )?;
    let text = text_of(&r);
    t.check(
        "the listing shows src/app.py and hides build/",
        text.contains("/src/app.py\n") && !text.contains("build"),
        &format!("a listing with src/app.py and without build/; got {text:?}"),
    );

    let app = format!("{root}/src/app.py");
    let r =
        t.call(&mut c, "view a file, lines 1-2", TOOL, json!({"command": "view", "path": app, "view_range": [1, 2]}))?;
    let text = text_of(&r);
    t.check(
        "cat -n output",
        text.ends_with("     1\tdef greet(name):\n     2\t    return 'hello ' + name\n"),
        &format!("numbered lines; got {text:?}"),
    );

    let r = t.call(
        &mut c,
        "str_replace: one exact, unique match",
        TOOL,
        json!({"command": "str_replace", "path": app, "old_str": "'hello ' + name", "new_str": "f'hello {name}'"}),
    )?;
    let text = text_of(&r);
    t.check(
        "the result shows a snippet of the edit",
        !is_error(&r) && text.contains("has been edited") && text.contains("    return f'hello {name}'"),
        &format!("an edited snippet; got {text:?}"),
    );

    let r = t.call(
        &mut c,
        "insert after line 0 (Claude 4 models send insert_text)",
        TOOL,
        json!({"command": "insert", "path": app, "insert_line": 0, "insert_text": "\"\"\"Greetings.\"\"\""}),
    )?;
    t.check("insert succeeds", !is_error(&r), &format!("a success; got {}", text_of(&r)));

    let r =
        t.call(&mut c, "undo_edit: back to before the insert", TOOL, json!({"command": "undo_edit", "path": app}))?;
    let on_disk = std::fs::read_to_string(dir.join("src/app.py"))?;
    t.check(
        "undo restored the file",
        !is_error(&r) && on_disk == "def greet(name):\n    return f'hello {name}'\n",
        &format!("the file before the insert; got {on_disk:?}"),
    );

    let r = t.call(
        &mut c,
        "create a new file (parents are made)",
        TOOL,
        json!({"command": "create", "path": format!("{root}/tests/test_app.py"), "file_text": "from src.app import greet\n"}),
    )?;
    t.check("create succeeds", text_of(&r).starts_with("File created successfully at: "), &text_of(&r));

    let r = t.call(
        &mut c,
        "bad call: old_str that is not in the file",
        TOOL,
        json!({"command": "str_replace", "path": app, "old_str": "def greet(nom):", "new_str": "x"}),
    )?;
    t.expect_error("no match is NO_MATCH, pointing at the similar line", &r, "NO_MATCH");

    let r = t.call(
        &mut c,
        "bad call: a path outside the root",
        TOOL,
        json!({"command": "view", "path": format!("{root}/../../etc/passwd")}),
    )?;
    t.expect_error("`..` out of the root is OUTSIDE_ROOT", &r, "OUTSIDE_ROOT");

    let r = t.call(
        &mut c,
        "edit_file: two edits in one write (all or nothing, one undo step)",
        "edit_file",
        json!({"path": "src/app.py", "edits": [
            {"old_str": "def greet(name):", "new_str": "def greet(name: str) -> str:"},
            {"old_str": "hello", "new_str": "Hello"}
        ]}),
    )?;
    t.check(
        "edit_file shows its diff",
        !is_error(&r) && text_of(&r).contains("+def greet(name: str) -> str:"),
        &text_of(&r),
    );
    let r = t.call(
        &mut c,
        "move_file (undoable)",
        "move_file",
        json!({"source": "tests/test_app.py", "destination": "tests/test_greet.py"}),
    )?;
    t.check("the file moved", !is_error(&r) && dir.join("tests/test_greet.py").is_file(), &text_of(&r));
    let r = t.call(
        &mut c,
        "delete_file (undoable: bytes and permissions kept)",
        "delete_file",
        json!({"path": "tests/test_greet.py"}),
    )?;
    t.check("the file is gone", !is_error(&r) && !dir.join("tests/test_greet.py").exists(), &text_of(&r));

    let r = t.call(&mut c, "list_changes: the session's changes, by session and by file", "list_changes", json!({}))?;
    let text = text_of(&r);
    t.check(
        "the journal lists this session (its client) and each file",
        text.contains("By session (1)") && text.contains("Session 1: mcp-tests") && text.contains("src/app.py: edited"),
        &format!("a session by mcp-tests and src/app.py edited; got {text:?}"),
    );
    let r = t.call(
        &mut c,
        "revert_changes, dry run first: what taking back the whole session would write",
        "revert_changes",
        json!({"to": "session", "dry_run": true}),
    )?;
    t.check(
        "a dry run changes nothing",
        text_of(&r).starts_with("Dry run:") && !dir.join("tests/test_app.py").exists(),
        &text_of(&r),
    );
    let r = t.call(
        &mut c,
        "revert_changes: take the session back, as one step",
        "revert_changes",
        json!({"to": "session"}),
    )?;
    let on_disk = std::fs::read_to_string(dir.join("src/app.py"))?;
    t.check(
        "every file is as it was before the session (the revert can itself be reverted)",
        !is_error(&r) && on_disk == "def greet(name):\n    return 'hello ' + name\n" && !dir.join("tests").exists(),
        &format!("the original app.py and no tests/; got {on_disk:?}: {}", text_of(&r)),
    );

    t.step("prompts/get text_editor_guide (the system-prompt section for the tool)");
    let response = t.request(&mut c, "prompts/get", json!({"name": "text_editor_guide"}))?;
    let guide = response.pointer("/result/messages/0/content/text").and_then(|v| v.as_str()).unwrap_or("");
    t.check(
        "the guide is served",
        guide.starts_with("## Text Editor Tool"),
        "a guide starting with ## Text Editor Tool",
    );

    let status = c.wait()?;
    t.check("exits cleanly when stdin closes", status.success(), &format!("exit status 0; got {status}"));
    Ok(())
}
