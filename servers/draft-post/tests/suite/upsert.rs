//! The upsert: created, updated, unchanged; the identity of a manuscript; numbering; slugs;
//! what `article.md` holds.

use mcp_tests::text_of;
use serde_json::json;

use super::{Fixture, draft_post, id_of, posted, scalar_of, src};

#[test]
fn created_then_updated_then_unchanged_in_the_same_directory() {
    let fx = Fixture::new();
    let seed = fx.draft("seed.md", "---\ntitle: MCP Article\n---\nFirst draft.\n");
    let id = id_of(&seed);
    // As the article's YAML writes it: quoted when the hex digits read as a number (`123e45`).
    let scalar = scalar_of(&seed);
    let mut c = fx.server();

    let first = posted(&mut c, src(&seed));
    assert_eq!(
        first,
        json!({"action": "created", "project": "2026-01", "number": 1, "slug": "mcp-article",
               "dir": "projects/2026-01/01-mcp-article",
               "article": "projects/2026-01/01-mcp-article/article.md", "source_id": id})
    );
    let text = text_of(&draft_post(&mut c, src(&seed)));
    assert!(text.lines().next().unwrap().starts_with("unchanged projects/2026-01/01-mcp-article/article.md"), "{text}");

    // The agent edits the manuscript (a new title, too) and submits it again.
    std::fs::write(&seed, "---\ntitle: A Better Title\n---\nSecond draft.\n").unwrap();
    let second = posted(&mut c, src(&seed));
    assert_eq!(second["action"], "updated");
    assert_eq!(second["dir"], "projects/2026-01/01-mcp-article", "the directory name is kept");
    assert_eq!(second["number"], 1);
    assert_eq!(second["slug"], "mcp-article");
    assert_eq!(
        fx.read("projects/2026-01/01-mcp-article/article.md"),
        format!("---\ntitle: A Better Title\nsource_id: {scalar}\n---\nSecond draft.\n")
    );

    // The update says what changed: a unified diff of the article, frontmatter included.
    let a = "projects/2026-01/01-mcp-article/article.md";
    assert_eq!(
        second["diff"],
        format!(
            "--- a/{a}\n+++ b/{a}\n@@ -1,5 +1,5 @@\n ---\n-title: MCP Article\n+title: A Better Title\n source_id: {scalar}\n ---\n-First draft.\n+Second draft.\n"
        )
    );
    assert_eq!((second["lines_added"].as_u64(), second["lines_removed"].as_u64()), (Some(2), Some(2)));
    assert_eq!(second["diff_truncated"], false);
    // Created and unchanged carry no diff.
    assert!(first.get("diff").is_none() && first.get("lines_added").is_none());

    let mtime = std::fs::metadata(fx.at("projects/2026-01/01-mcp-article/article.md")).unwrap().modified().unwrap();
    let tree = fx.tree();
    let third_result = draft_post(&mut c, src(&seed));
    assert_eq!(mcp_tests::structured(&third_result).unwrap().get("diff"), None);
    assert_eq!(third_result["content"].as_array().unwrap().len(), 2, "the line and the JSON: {third_result}");
    let third = posted(&mut c, src(&seed));
    assert_eq!(third["action"], "unchanged");
    assert_eq!(fx.tree(), tree);
    let after = std::fs::metadata(fx.at("projects/2026-01/01-mcp-article/article.md")).unwrap().modified().unwrap();
    assert_eq!(after, mtime, "unchanged means not written");
    assert_eq!(fx.dirs("2026-01"), ["01-mcp-article"]);
}

#[test]
fn an_update_reports_its_diff_in_the_text_and_bounds_a_large_one() {
    let fx = Fixture::new();
    let body = |word: &str| (0..2000).map(|i| format!("{word} {i}\n")).collect::<String>();
    let seed = fx.draft("big.md", &format!("---\ntitle: Big\n---\n{}", body("first")));
    let mut c = fx.server();
    posted(&mut c, src(&seed));
    std::fs::write(&seed, format!("---\ntitle: Big\n---\n{}", body("second"))).unwrap();
    let result = draft_post(&mut c, src(&seed));
    let s = mcp_tests::structured(&result).unwrap();
    assert_eq!((s["lines_added"].as_u64(), s["lines_removed"].as_u64()), (Some(2000), Some(2000)));
    assert_eq!(s["diff_truncated"], true);
    let diff = s["diff"].as_str().unwrap();
    assert!(diff.len() < 8 * 1024 + 200, "{}", diff.len());
    assert!(diff.contains("diff cut at 8192 bytes") && diff.contains("+2000 -2000 lines in all"), "{diff}");
    let text = text_of(&result);
    assert!(text.lines().next().unwrap().ends_with("rewritten in place (+2000 -2000 lines)"), "{text}");
    assert!(text.contains("\n--- a/projects/2026-01/01-big/article.md\n+++ b/"), "the diff as text: {text}");
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn any_spelling_of_the_path_is_the_same_manuscript_and_a_new_server_finds_it() {
    let fx = Fixture::new();
    let seed = fx.draft("seed.md", "# Seed\n");
    std::fs::create_dir(fx.root().join("drafts/a")).unwrap();
    mcp_tests::os::symlink(fx.root().join("drafts/seed.md"), fx.root().join("link.md")).unwrap();
    let mut c = fx.server();
    assert_eq!(posted(&mut c, src(&seed))["action"], "created");
    for spelling in [
        "drafts/seed.md",
        "./drafts/a/../seed.md",
        "FILE:drafts/seed.md",
        "link.md",
        &format!("FILE:{seed}"),
        // `..` after a directory that does not exist, or after a file, as `os.path.realpath` reads it.
        "./drafts/ghost/../seed.md",
        "drafts/seed.md/../seed.md",
        "FILE:./drafts//./seed.md",
    ] {
        let result = posted(&mut c, src(spelling));
        assert_eq!(result["action"], "unchanged", "{spelling}");
        assert_eq!(result["source_id"], id_of(&seed), "{spelling}");
    }
    drop(c);
    // A fresh process (empty cache) finds the article by its frontmatter.
    let mut c = fx.server();
    assert_eq!(posted(&mut c, src("drafts/seed.md"))["action"], "unchanged");
    assert_eq!(fx.dirs("2026-01").len(), 1);
}

#[test]
fn a_different_manuscript_gets_the_next_number() {
    let fx = Fixture::new();
    fx.put("projects/2026-01/33-old/article.md", "---\ntitle: Old\n---\n");
    fx.put("projects/2026-01/07-other/article.md", "no frontmatter at all\n");
    fx.put("projects/2026-02/50-elsewhere/article.md", "---\ntitle: x\n---\n");
    let a = fx.draft("a.md", "---\ntitle: Alpha\n---\n");
    let b = fx.draft("b.md", "---\ntitle: Beta\n---\n");
    let mut c = fx.server();
    assert_eq!(posted(&mut c, src(&a))["dir"], "projects/2026-01/34-alpha");
    assert_eq!(posted(&mut c, src(&b))["dir"], "projects/2026-01/35-beta");
    assert_eq!(posted(&mut c, src(&a))["action"], "unchanged");
    // A new project starts at 01.
    let n = fx.draft("n.md", "---\ntitle: New\n---\n");
    assert_eq!(posted(&mut c, json!({"source": n, "project": "blog"}))["dir"], "projects/blog/01-new");
}

#[test]
fn numbers_grow_to_three_digits_past_99() {
    let fx = Fixture::new();
    fx.put("projects/p/98-x/article.md", "x\n");
    let mut c = fx.server();
    let first = posted(&mut c, json!({"source": fx.draft("a.md", "# a\n"), "project": "p"}));
    assert_eq!(first["dir"], "projects/p/99-a");
    let second = posted(&mut c, json!({"source": fx.draft("b.md", "# b\n"), "project": "p"}));
    assert_eq!(second["dir"], "projects/p/100-b");
    assert_eq!(second["number"], 100);
    let third = posted(&mut c, json!({"source": fx.draft("c.md", "# c\n"), "project": "p"}));
    assert_eq!(third["dir"], "projects/p/101-c");
}

#[test]
fn an_article_added_by_hand_is_found_while_the_server_runs() {
    let fx = Fixture::new();
    let seed = fx.draft("seed.md", "---\ntitle: Seed\n---\nbody\n");
    let other = fx.draft("other.md", "# other\n");
    let mut c = fx.server();
    // The server has scanned (and cached) the repository.
    assert_eq!(posted(&mut c, src(&other))["number"], 1);
    fx.put(
        "projects/2025-12/09-by-hand/article.md",
        &format!("---\ntitle: Seed\nsource_id: {}\n---\nold\n", scalar_of(&seed)),
    );
    let result = posted(&mut c, src(&seed));
    assert_eq!(result["action"], "updated");
    assert_eq!(result["dir"], "projects/2025-12/09-by-hand");
    assert_eq!(result["project"], "2025-12");
    assert!(text_of(&draft_post(&mut c, src(&seed))).contains("stays in project 2025-12"));
    assert_eq!(
        fx.read("projects/2025-12/09-by-hand/article.md"),
        format!("---\ntitle: Seed\nsource_id: {}\n---\nbody\n", scalar_of(&seed))
    );
}

#[test]
fn an_article_whose_id_was_removed_by_hand_is_no_longer_the_manuscripts() {
    let fx = Fixture::new();
    let seed = fx.draft("seed.md", "# Seed\n");
    let mut c = fx.server();
    assert_eq!(posted(&mut c, src(&seed))["dir"], "projects/2026-01/01-seed");
    fx.put("projects/2026-01/01-seed/article.md", "# Seed, detached by hand\n");
    let result = posted(&mut c, src(&seed));
    assert_eq!(result["action"], "created");
    assert_eq!(result["dir"], "projects/2026-01/02-seed");
    assert_eq!(fx.read("projects/2026-01/01-seed/article.md"), "# Seed, detached by hand\n");
}

#[test]
fn the_default_project_is_the_current_year_month() {
    let fx = Fixture::new();
    let seed = fx.draft("seed.md", "# x\n");
    let mut c = fx.server();
    let before = jiff::ZonedDateTime::now().strftime("%Y-%m").to_string();
    let result = posted(&mut c, json!({"source": seed}));
    let after = jiff::ZonedDateTime::now().strftime("%Y-%m").to_string();
    let project = result["project"].as_str().unwrap();
    assert!(project == before || project == after, "{project}");
    assert_eq!(result["dir"], format!("projects/{project}/01-seed"));
    // The project argument only places new articles.
    let again = posted(&mut c, json!({"source": seed, "project": "1999-01"}));
    assert_eq!(again["project"], project);
    assert!(!fx.at("projects/1999-01").exists());
}

#[test]
fn slugs_come_from_the_argument_the_frontmatter_the_title_the_stem_or_post() {
    let fx = Fixture::new();
    let mut c = fx.server();
    let cases = [
        ("arg.md", "---\ntitle: Title\nslug: fm-slug\n---\n", Some("My Own Slug!"), "my-own-slug"),
        ("fm.md", "---\ntitle: Title Here\nslug: From Frontmatter\n---\n", None, "from-frontmatter"),
        ("title.md", "---\ntitle: \"Hello, MCP World\"\n---\n", None, "hello-mcp-world"),
        ("mixed.md", "---\ntitle: Rust入門\n---\n", None, "rust"),
        ("japanese-stem.md", "---\ntitle: 日本語のタイトル\n---\n", None, "japanese-stem"),
        ("原稿.md", "---\ntitle: 日本語のタイトル\n---\n", None, "post"),
        (
            "long.md",
            &format!("---\ntitle: {}\n---\n", "word ".repeat(30)),
            None,
            "word-word-word-word-word-word-word-word-word-word",
        ),
    ];
    for (i, (name, text, slug, expected)) in cases.iter().enumerate() {
        let mut args = json!({"source": fx.draft(name, text), "project": "s"});
        if let Some(slug) = slug {
            args["slug"] = json!(slug);
        }
        let result = posted(&mut c, args);
        assert_eq!(result["slug"], *expected, "{name}");
        assert_eq!(result["dir"], format!("projects/s/{:02}-{expected}", i + 1));
        assert!(expected.len() <= 50);
    }
}

#[test]
fn the_article_keeps_every_key_comment_and_body_byte() {
    let fx = Fixture::new();
    let manuscript = "---\n# a comment\ntitle: 'Quoted: title'   # why\ndate: 2026-01-15\ntags: [mcp, rust]\nnested:\n  a: 1\n  b: [2, 3]\nslug: kept\n---\n\n# Body\n\nTrailing spaces   \n\n\n```yaml\n---\nnot: frontmatter\n---\n```\n";
    let seed = fx.draft("seed.md", manuscript);
    let scalar = scalar_of(&seed);
    let mut c = fx.server();
    let result = posted(&mut c, src(&seed));
    let article = fx.read(result["article"].as_str().unwrap());
    let expected = manuscript.replacen("slug: kept\n---\n", &format!("slug: kept\nsource_id: {scalar}\n---\n"), 1);
    assert_eq!(article, expected);

    // Without frontmatter, with CRLF line breaks, with a BOM.
    let plain = fx.draft("plain.md", "# Just a body\r\nline\r\n");
    let result = posted(&mut c, src(&plain));
    assert_eq!(
        fx.read(result["article"].as_str().unwrap()),
        format!("---\r\nsource_id: {}\r\n---\r\n# Just a body\r\nline\r\n", scalar_of(&plain))
    );
    let bom = fx.draft("bom.md", "\u{feff}---\ntitle: B\n---\nb");
    let result = posted(&mut c, src(&bom));
    assert_eq!(
        fx.read(result["article"].as_str().unwrap()),
        format!("\u{feff}---\ntitle: B\nsource_id: {}\n---\nb", scalar_of(&bom))
    );
}

#[test]
fn a_source_id_already_in_the_manuscript_is_replaced_in_place() {
    let fx = Fixture::new();
    let seed = fx.draft("copy.md", "---\ntitle: Copied\nsource_id: ffffffffffffffff\nz: 1\n---\nx\n");
    let mut c = fx.server();
    let result = posted(&mut c, src(&seed));
    assert_eq!(
        fx.read(result["article"].as_str().unwrap()),
        format!("---\ntitle: Copied\nsource_id: {}\nz: 1\n---\nx\n", scalar_of(&seed))
    );
}

#[test]
fn concurrent_calls_in_one_server_are_serialised() {
    let fx = Fixture::new();
    let mut c = fx.server();
    let sources: Vec<String> = (0..8).map(|i| fx.draft(&format!("d{i}.md"), &format!("# Draft {i}\n"))).collect();
    let mut ids = Vec::new();
    for s in sources.iter().chain(sources.iter()) {
        ids.push(c.send_request("tools/call", json!({"name": "draft_post", "arguments": src(s)})).unwrap());
    }
    let mut created = 0;
    for id in ids {
        let response = c.wait_response(id).unwrap();
        let result = &response["result"];
        assert!(!mcp_tests::is_error(result), "{response}");
        if result["structuredContent"]["action"] == "created" {
            created += 1;
        }
    }
    assert_eq!(created, 8);
    let dirs = fx.dirs("2026-01");
    let numbers: Vec<u32> = dirs.iter().map(|d| d[..2].parse().unwrap()).collect();
    assert_eq!(numbers, (1..=8).collect::<Vec<_>>(), "{dirs:?}");
}

#[test]
fn slug_and_project_only_name_new_articles() {
    let fx = Fixture::new();
    let seed = fx.draft("seed.md", "---\ntitle: First Title\n---\nx\n");
    let mut c = fx.server();
    assert_eq!(
        posted(&mut c, json!({"source": seed, "project": "a", "slug": "chosen"}))["dir"],
        "projects/a/01-chosen"
    );
    std::fs::write(&seed, "---\ntitle: Another Title\n---\ny\n").unwrap();
    let result = draft_post(&mut c, json!({"source": seed, "project": "b", "slug": "renamed"}));
    let s = mcp_tests::structured(&result).unwrap();
    assert_eq!((s["action"].as_str(), s["dir"].as_str()), (Some("updated"), Some("projects/a/01-chosen")));
    let line = text_of(&result);
    assert!(line.contains("stays in project a") && line.contains("keeps its name"), "{line}");
    assert!(!fx.at("projects/b").exists());
}

/// The server's lock lives in `projects/.draft-post/`, beside a `.gitignore` of `*` the server
/// writes: `git status` shows the article and nothing of the server's own.
#[test]
fn the_lock_ignores_itself_in_git_status() {
    let fx = Fixture::new();
    let draft = fx.draft("seed.md", "# Seed\n");
    let mut c = fx.server();
    let result = super::draft_post(&mut c, serde_json::json!({"source": draft, "project": "p"}));
    assert!(!mcp_tests::is_error(&result), "{result}");
    assert!(fx.at("projects/.draft-post/lock").is_file());
    assert_eq!(fx.read("projects/.draft-post/.gitignore").lines().last(), Some("*"));
    assert!(!fx.at("projects/.draft-post.lock").exists());
    let git = |args: &[&str]| std::process::Command::new("git").args(args).current_dir(fx.repo()).output();
    match git(&["init", "-q"]) {
        Ok(out) if out.status.success() => {
            let status = git(&["status", "--porcelain", "--untracked-files=all"]).unwrap();
            let status = String::from_utf8_lossy(&status.stdout).into_owned();
            assert!(status.contains("article.md"), "{status}");
            assert!(!status.contains(".draft-post"), "the server's own files show in git status: {status}");
        }
        _ => eprintln!("git is not installed: the .gitignore is checked, not git status"),
    }
}
