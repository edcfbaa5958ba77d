//! Nothing outside the repository is written, read or revealed, whatever symlinks it holds.

use mcp_tests::{is_error, structured, text_of};
use serde_json::json;

use super::{Fixture, refused};

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn a_project_symlinked_out_of_the_repository_is_refused() {
    let fx = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(fx.at("projects")).unwrap();
    mcp_tests::os::symlink(outside.path(), fx.at("projects/evil")).unwrap();
    let seed = fx.draft("seed.md", "# x\n");
    let mut c = fx.server();
    let (code, message) = refused(&mut c, json!({"source": seed, "project": "evil"}));
    assert_eq!(code, "OUTSIDE_ROOT", "{message}");
    assert!(!message.contains(outside.path().to_str().unwrap()), "{message}");
    assert!(!message.contains(fx.repo().to_str().unwrap()), "{message}");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing written outside");
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn an_article_symlinked_out_is_never_read_nor_revealed() {
    let fx = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "---\ntitle: TOP SECRET\nsource_id: 0000000000000000\n---\n")
        .unwrap();
    std::fs::create_dir_all(fx.at("projects/p/01-link")).unwrap();
    mcp_tests::os::symlink(outside.path().join("secret.md"), fx.at("projects/p/01-link/article.md")).unwrap();
    mcp_tests::os::symlink(outside.path(), fx.at("projects/p/02-dirlink")).unwrap();
    let mut c = fx.server();
    let result = c.call_tool("list_posts", json!({})).unwrap();
    assert!(!is_error(&result), "{result}");
    let text = text_of(&result);
    assert!(!text.contains("TOP SECRET") && !text.contains(outside.path().to_str().unwrap()), "{text}");
    assert_eq!(structured(&result).unwrap()["posts"], json!([]));

    // Numbers of symlinked entries stay taken; the new article is written inside.
    let seed = fx.draft("seed.md", "# x\n");
    let result = c.call_tool("draft_post", json!({"source": seed, "project": "p"})).unwrap();
    assert!(!is_error(&result), "{result}");
    assert_eq!(structured(&result).unwrap()["dir"], "projects/p/03-seed");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
}

#[test]
fn the_manuscript_is_only_read() {
    let fx = Fixture::new();
    let text = "---\ntitle: Keep me\n---\nbody\n";
    let seed = fx.draft("seed.md", text);
    let before = std::fs::metadata(&seed).unwrap().modified().unwrap();
    let mut c = fx.server();
    super::posted(&mut c, super::src(&seed));
    assert_eq!(std::fs::read_to_string(&seed).unwrap(), text);
    assert_eq!(std::fs::metadata(&seed).unwrap().modified().unwrap(), before);
}
