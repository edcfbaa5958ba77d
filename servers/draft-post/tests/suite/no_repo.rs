//! Started without `--repo`: the repository is the client's root when it declares exactly one,
//! else the working directory if it is a project, else there is none and every call is refused
//! with the flag to add, nothing read or written.

use std::path::Path;

use mcp_tests::{StdioClient, error_code, is_error, structured, text_of};
use serde_json::json;

use super::{BIN, Fixture, call_with_roots};

fn spawn(cwd: &Path, roots_capability: bool) -> StdioClient {
    let home = tempfile::tempdir().unwrap();
    let mut client = StdioClient::builder(BIN)
        .current_dir(cwd)
        .env("HOME", home.path().join("someone"))
        .env("TZ", "UTC")
        .spawn()
        .unwrap();
    let mut params = StdioClient::default_initialize_params();
    if roots_capability {
        params["capabilities"] = json!({"roots": {"listChanged": true}});
    }
    client.initialize_with(params).unwrap();
    client
}

#[test]
fn started_in_the_root_directory_with_no_flags_it_refuses_every_call_with_the_hint() {
    let fx = Fixture::new();
    let seed = fx.draft("seed.md", "# seed\n");
    let existed = Path::new("/projects").exists();
    let mut c = StdioClient::builder(BIN).current_dir("/").env("TZ", "UTC").spawn().unwrap();
    let init = c.initialize().unwrap();
    let instructions = init["instructions"].as_str().unwrap_or_default().to_owned();
    assert!(instructions.contains("--repo"), "{instructions}");
    let tools = c.list_tools().unwrap();
    assert_eq!(tools.len(), 2);
    for (tool, args) in [
        ("draft_post", json!({"source": seed, "project": "2026-01"})),
        ("draft_post", json!({"source": "/etc/passwd"})),
        ("list_posts", json!({})),
    ] {
        let result = c.call_tool(tool, args).unwrap();
        assert!(is_error(&result), "{result}");
        assert_eq!(error_code(&result).as_deref(), Some("UNAVAILABLE"), "{result}");
        let text = text_of(&result);
        assert!(text.contains("--repo") && text.contains(r#""args": ["--repo", "/path/to/blog"]"#), "{text}");
        assert!(text.contains("nothing was read or written"), "{text}");
    }
    assert_eq!(Path::new("/projects").exists(), existed, "nothing written at the root of the file system");
    assert_eq!(super::tree(&fx.repo()), Default::default());
    let stderr = c.wait_for_stderr("no workspace").unwrap();
    assert_eq!(stderr.matches("no workspace").count(), 1, "said once: {stderr}");
}

#[test]
fn the_clients_single_root_is_the_repository() {
    let fx = Fixture::new();
    let seed = fx.draft("seed.md", "# seed\n");
    let mut c = spawn(Path::new("/"), true);
    let repo = fx.repo();
    let result = call_with_roots(&mut c, &[&repo], "draft_post", json!({"source": seed, "project": "2026-01"}));
    // The repository is the root; manuscripts come from it (narrowed to it): drafts/ is outside.
    assert_eq!(error_code(&result).as_deref(), Some("OUTSIDE_ROOT"), "{result}");
    let inside = repo.join("drafts/seed.md");
    std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
    std::fs::write(&inside, "# seed\n").unwrap();
    let result = call_with_roots(&mut c, &[&repo], "draft_post", json!({"source": inside, "project": "2026-01"}));
    assert!(!is_error(&result), "{result}");
    assert_eq!(structured(&result).unwrap()["article"], "projects/2026-01/01-seed/article.md");
    assert!(fx.at("projects/2026-01/01-seed/article.md").exists());

    // Several roots choose nothing (which one is the blog?): refused, saying so.
    let mut c = spawn(Path::new("/"), true);
    let other = fx.root().join("drafts");
    let result = call_with_roots(&mut c, &[&repo, &other], "list_posts", json!({}));
    assert_eq!(error_code(&result).as_deref(), Some("UNAVAILABLE"), "{result}");
    assert!(text_of(&result).contains("2 roots"), "{result}");
}

#[test]
fn started_inside_a_project_it_works_as_before() {
    let fx = Fixture::new();
    let inside = fx.at("drafts/seed.md");
    std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
    std::fs::write(&inside, "# seed\n").unwrap();
    let mut c = spawn(&fx.repo(), false);
    let result = c.call_tool("draft_post", json!({"source": "drafts/seed.md", "project": "2026-01"})).unwrap();
    assert!(!is_error(&result), "{result}");
    assert!(fx.at("projects/2026-01/01-seed/article.md").exists());
}
