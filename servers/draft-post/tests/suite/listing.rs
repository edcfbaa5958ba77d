//! `list_posts`: every article with project, number, slug, title, source_id and path.

use mcp_tests::{error_code, is_error, structured};
use serde_json::json;

use super::{Fixture, id_of, posted};

#[test]
fn lists_every_article_in_order_with_warnings_for_what_it_skips() {
    let fx = Fixture::new();
    let mut c = fx.server();
    let empty = c.call_tool("list_posts", json!({})).unwrap();
    assert_eq!(structured(&empty).unwrap(), json!({"posts": []}));

    let a = fx.draft("a.md", "---\ntitle: Alpha\n---\n");
    let b = fx.draft("b.md", "# no frontmatter\n");
    posted(&mut c, json!({"source": a, "project": "2026-02"}));
    posted(&mut c, json!({"source": b, "project": "2026-01"}));
    fx.put("projects/2026-01/10-hand/article.md", "---\ntitle: By hand\n---\n");
    fx.put("projects/2026-01/11-bad/article.md", "---\ntitle: [\n---\n");
    std::fs::create_dir_all(fx.at("projects/2026-01/12-empty")).unwrap();
    fx.put("projects/2026-01/notes.txt", "not an article");
    fx.put("projects/2026-01/drafts/article.md", "not numbered");

    let result = c.call_tool("list_posts", json!({})).unwrap();
    assert!(!is_error(&result), "{result}");
    let s = structured(&result).unwrap();
    assert_eq!(
        s["posts"],
        json!([
            // `title` and `source_id` are left out when the frontmatter has none (never null: a
            // schema of standard types only, which every client's validator accepts).
            {"project": "2026-01", "number": 1, "slug": "b", "source_id": id_of(&b),
             "path": "projects/2026-01/01-b/article.md"},
            {"project": "2026-01", "number": 10, "slug": "hand", "title": "By hand",
             "path": "projects/2026-01/10-hand/article.md"},
            {"project": "2026-02", "number": 1, "slug": "alpha", "title": "Alpha", "source_id": id_of(&a),
             "path": "projects/2026-02/01-alpha/article.md"},
        ])
    );
    let warnings = s["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].as_str().unwrap().contains("11-bad"));
    assert!(warnings[1].as_str().unwrap().contains("12-empty"));

    let only = structured(&c.call_tool("list_posts", json!({"project": "2026-02"})).unwrap()).unwrap();
    assert_eq!(only["posts"].as_array().unwrap().len(), 1);
    assert!(only.get("warnings").is_none());
    let none = structured(&c.call_tool("list_posts", json!({"project": "1999-01"})).unwrap()).unwrap();
    assert_eq!(none, json!({"posts": []}));
}

#[test]
fn a_bad_project_is_invalid_args_and_listing_writes_nothing() {
    let fx = Fixture::new();
    let mut c = fx.server();
    let result = c.call_tool("list_posts", json!({"project": "../x"})).unwrap();
    assert_eq!(error_code(&result).as_deref(), Some("INVALID_ARGS"));
    let _ = c.call_tool("list_posts", json!({})).unwrap();
    assert!(!fx.at("projects").exists(), "a read-only tool creates nothing");
}

#[test]
fn titles_edited_by_hand_show_at_once() {
    let fx = Fixture::new();
    let a = fx.draft("a.md", "---\ntitle: Before\n---\n");
    let mut c = fx.server();
    let path = posted(&mut c, json!({"source": a, "project": "p"}))["article"].as_str().unwrap().to_owned();
    let text = fx.read(&path).replace("Before", "After, edited by hand");
    fx.put(&path, &text);
    let s = structured(&c.call_tool("list_posts", json!({})).unwrap()).unwrap();
    assert_eq!(s["posts"][0]["title"], "After, edited by hand");
}
