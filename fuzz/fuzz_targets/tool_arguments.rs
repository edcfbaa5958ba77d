//! Every tool's argument parsing and handling (text_editor, draft_post, list_posts, hoge,
//! search_text, find_files, edit_file, read_files, list_tree, list_changes, revert_changes), in process, over arbitrary arguments: the first
//! byte picks the tool, the rest is the arguments object. No panic, an answer for every call,
//! and nothing outside the workspace touched (the text editor and draft-post both work in a
//! temporary root with a secret beside it).
#![no_main]

use std::{path::PathBuf, sync::Arc, sync::OnceLock};

use libfuzzer_sys::fuzz_target;
use mcp_shared::{ToolContext, ToolRegistry, sandbox::Sandbox, workspace::Startup};

struct Fixture {
    _dir: tempfile::TempDir,
    outside: PathBuf,
    runtime: tokio::runtime::Runtime,
    /// (registry, tool) pairs to call.
    tools: Vec<(ToolRegistry, &'static str)>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("root");
        let outside = base.join("outside");
        std::fs::create_dir_all(root.join("repo/drafts")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret.md"), "---\ntitle: secret\n---\n").unwrap();
        std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
        std::fs::write(root.join("repo/drafts/post.md"), "---\ntitle: Post\n---\nbody\n").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();

        let config = mcp_server_text_editor::Config {
            tools: mcp_server_text_editor::TOOL_NAMES.iter().map(|t| (*t).to_owned()).collect(),
            workspace: Startup::Explicit(vec![root.clone()]),
            tool_name: "text_editor".into(),
            read_only: false,
            // The change journal beside the root, not in the user's state directory.
            limits: mcp_server_text_editor::Limits {
                fsync: false,
                journal_dir: Some(base.join("state")),
                ..Default::default()
            },
        };
        let editor_workspace = Arc::new(mcp_server_text_editor::EditorRoots::explicit(Sandbox::new([&root]).unwrap()));
        let editor = mcp_server_text_editor::registry(&config, Arc::clone(&editor_workspace)).unwrap();
        let settings = mcp_server_draft_post::Settings {
            repo: Some(root.join("repo")),
            source_roots: vec![root.join("repo")],
            cwd: root.join("repo"),
            home: None,
            max_manuscript_bytes: 1 << 20,
            fsync: false,
            accept_content: true,
            attachment_limits: mcp_server_draft_post::attach::AttachmentLimits::default(),
        };
        let drafts = Arc::new(mcp_server_draft_post::Places::new(settings).unwrap());
        let tools = vec![
            (editor, "text_editor"),
            (mcp_server_draft_post::registry(&drafts).unwrap(), "draft_post"),
            (mcp_server_draft_post::registry(&drafts).unwrap(), "list_posts"),
            (mcp_server_sample_tool::registry().unwrap(), "hoge"),
            (mcp_server_text_editor::registry(&config, Arc::clone(&editor_workspace)).unwrap(), "search_text"),
            (mcp_server_text_editor::registry(&config, Arc::clone(&editor_workspace)).unwrap(), "find_files"),
            (mcp_server_text_editor::registry(&config, Arc::clone(&editor_workspace)).unwrap(), "edit_file"),
            (mcp_server_text_editor::registry(&config, Arc::clone(&editor_workspace)).unwrap(), "read_files"),
            (mcp_server_text_editor::registry(&config, Arc::clone(&editor_workspace)).unwrap(), "list_tree"),
            (mcp_server_text_editor::registry(&config, Arc::clone(&editor_workspace)).unwrap(), "list_changes"),
            (mcp_server_text_editor::registry(&config, Arc::clone(&editor_workspace)).unwrap(), "revert_changes"),
        ];
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        Fixture { _dir: dir, outside, runtime, tools }
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let Ok(serde_json::Value::Object(arguments)) = serde_json::from_slice(rest) else { return };
    let f = fixture();
    let (registry, name) = &f.tools[usize::from(pick) % f.tools.len()];
    let tool = registry.get(name).unwrap();
    let output = f.runtime.block_on(tool.call(Some(arguments), ToolContext::detached()));
    assert!(!output.content.is_empty(), "{name}: an empty answer");
    let outside: Vec<_> = std::fs::read_dir(&f.outside).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(outside.len(), 1, "{name} wrote outside the root: {outside:?}");
    assert_eq!(std::fs::read(f.outside.join("secret.md")).unwrap(), b"---\ntitle: secret\n---\n");
});
