//! Bad input: each case gets its code and an actionable message, writes nothing, and the
//! server keeps serving.

use mcp_tests::{is_error, structured, text_of};
use serde_json::json;

use super::{Fixture, draft_post, id_of, posted, refused, scalar_of, src};

#[test]
fn a_missing_source_is_not_found() {
    let fx = Fixture::new();
    let mut c = fx.server();
    let before = fx.tree();
    let (code, message) = refused(&mut c, src("drafts/nope.md"));
    assert_eq!(code, "NOT_FOUND");
    assert!(message.contains("\"drafts/nope.md\""), "{message}");
    assert!(!message.contains(fx.root().to_str().unwrap()), "no host path beyond what was sent: {message}");
    // Outside every source directory: refused as such, whether it exists or not.
    let (code, _) = refused(&mut c, src("FILE:/definitely/not/here.md"));
    assert_eq!(code, "OUTSIDE_ROOT");
    assert_eq!(fx.tree(), before);
}

#[test]
fn a_directory_non_utf8_or_malformed_source_is_invalid_input_with_a_position() {
    let fx = Fixture::new();
    let mut c = fx.server();
    std::fs::write(fx.root().join("drafts/latin1.md"), b"---\ntitle: ok\n---\ncaf\xe9\n").unwrap();
    let broken = fx.draft("broken.md", "---\ntitle: fine\ntags: [unclosed\ndate: x\n---\nbody\n");
    let unclosed = fx.draft("unclosed.md", "---\ntitle: never closed\nbody\n");
    let dupe = fx.draft("dupe.md", "---\ntitle: a\ntitle: b\n---\n");
    let list = fx.draft("list.md", "---\n- a\n- b\n---\n");

    // Not a Markdown name: refused before anything is looked up.
    let (code, message) = refused(&mut c, src("drafts"));
    assert_eq!(code, "INVALID_ARGS");
    assert!(message.contains(".md, .markdown or .mdx"), "{message}");
    std::fs::create_dir(fx.root().join("drafts/folder.md")).unwrap();
    let (code, message) = refused(&mut c, src("drafts/folder.md"));
    assert_eq!(code, "INVALID_ARGS");
    assert!(message.contains("directory"), "{message}");
    let before = fx.tree();

    let (code, message) = refused(&mut c, src("drafts/latin1.md"));
    assert_eq!(code, "INVALID_INPUT");
    assert!(message.contains("UTF-8") && message.contains("line 4, column 4"), "{message}");

    let (code, message) = refused(&mut c, src(&broken));
    assert_eq!(code, "INVALID_INPUT");
    assert!(message.contains("line 4, column"), "{message}");
    assert!(message.contains("frontmatter"), "{message}");

    let (code, message) = refused(&mut c, src(&unclosed));
    assert_eq!(code, "INVALID_INPUT");
    assert!(message.contains("line 1, column 1") && message.contains("never closed"), "{message}");

    let (code, message) = refused(&mut c, src(&dupe));
    assert_eq!(code, "INVALID_INPUT");
    assert!(message.contains("line 3") && message.contains("duplicate"), "{message}");

    let (code, message) = refused(&mut c, src(&list));
    assert_eq!(code, "INVALID_INPUT");
    assert!(message.contains("mapping"), "{message}");

    assert_eq!(fx.tree(), before, "nothing written");
}

#[test]
fn bad_project_names_are_invalid_args() {
    let fx = Fixture::new();
    let seed = fx.draft("seed.md", "# x\n");
    let mut c = fx.server();
    let before = fx.tree();
    for project in ["..", ".", "../escape", "a/b", "/abs", ".hidden", "", "a b", "x\\y", "nul\u{0}"] {
        let (code, message) = refused(&mut c, json!({"source": seed, "project": project}));
        assert_eq!(code, "INVALID_ARGS", "{project:?}");
        assert!(message.contains("`project`"), "{message}");
        assert!(message.contains("2026-01"), "an example to follow: {message}");
    }
    let (code, message) = refused(&mut c, json!({"source": seed, "project": 5}));
    assert_eq!(code, "INVALID_ARGS");
    assert!(message.contains("project"), "{message}");
    assert_eq!(fx.tree(), before);
    assert!(!fx.root().join("escape").exists());
}

#[test]
fn bad_arguments_are_invalid_args() {
    let fx = Fixture::new();
    let seed = fx.draft("seed.md", "# x\n");
    let mut c = fx.server();
    let before = fx.tree();
    let cases = [
        (json!({}), "source"),
        (json!({"source": ""}), "source"),
        (json!({"source": 7}), "source"),
        (json!({"source": seed, "slug": "日本語"}), "slug"),
        (json!({"source": seed, "projct": "typo"}), "projct"),
    ];
    for (args, mention) in cases {
        let (code, message) = refused(&mut c, args.clone());
        assert_eq!(code, "INVALID_ARGS", "{args}: {message}");
        assert!(message.contains(mention), "{args}: {message}");
    }
    assert_eq!(fx.tree(), before);
}

#[test]
fn two_directories_with_the_same_source_id_are_a_conflict_naming_both() {
    let fx = Fixture::new();
    let seed = fx.draft("seed.md", "---\ntitle: Seed\n---\nv1\n");
    let mut c = fx.server();
    assert_eq!(posted(&mut c, src(&seed))["dir"], "projects/2026-01/01-seed");
    // Someone copies the directory by hand.
    let text = fx.read("projects/2026-01/01-seed/article.md");
    fx.put("projects/2026-01/02-seed-copy/article.md", &text);
    std::fs::write(&seed, "---\ntitle: Seed\n---\nv2\n").unwrap();
    let before = fx.tree();
    let (code, message) = refused(&mut c, src(&seed));
    assert_eq!(code, "CONFLICT");
    assert!(
        message.contains("projects/2026-01/01-seed") && message.contains("projects/2026-01/02-seed-copy"),
        "{message}"
    );
    assert!(message.contains(&id_of(&seed)), "{message}");
    assert_eq!(fx.tree(), before, "nothing written");
    // Removing the copy resolves it.
    std::fs::remove_dir_all(fx.at("projects/2026-01/02-seed-copy")).unwrap();
    assert_eq!(posted(&mut c, src(&seed))["action"], "updated");
}

#[test]
fn a_malformed_article_elsewhere_is_skipped_with_a_warning_and_never_rewritten() {
    let fx = Fixture::new();
    let broken = "---\ntitle: [oops\n---\nbody\n";
    fx.put("projects/2026-01/05-broken/article.md", broken);
    fx.put("projects/2026-01/06-unclosed/article.md", "---\ntitle: x\n");
    let seed = fx.draft("seed.md", "# Seed\n");
    let mut c = fx.server();
    let result = draft_post(&mut c, src(&seed));
    assert!(!is_error(&result), "{result}");
    let s = structured(&result).unwrap();
    assert_eq!(s["action"], "created");
    assert_eq!(s["dir"], "projects/2026-01/07-seed", "the broken articles' numbers stay taken");
    let warnings = s["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].as_str().unwrap().contains("projects/2026-01/05-broken/article.md"));
    assert!(warnings[0].as_str().unwrap().contains("line 2"), "{warnings:?}");
    assert!(text_of(&result).contains("warning: "));
    assert_eq!(fx.read("projects/2026-01/05-broken/article.md"), broken);
    // An update of the manuscript leaves the broken one alone as well.
    std::fs::write(&seed, "# Seed v2\n").unwrap();
    assert_eq!(posted(&mut c, src(&seed))["action"], "updated");
    assert_eq!(fx.read("projects/2026-01/05-broken/article.md"), broken);
}

#[test]
fn the_manuscripts_own_article_gone_malformed_is_a_conflict_not_a_duplicate() {
    let fx = Fixture::new();
    let seed = fx.draft("seed.md", "---\ntitle: Seed\n---\nbody\n");
    let mut c = fx.server();
    posted(&mut c, src(&seed));
    let article = "projects/2026-01/01-seed/article.md";
    let broken = fx.read(article).replace("title: Seed", "title: [Seed");
    fx.put(article, &broken);
    let before = fx.tree();
    let (code, message) = refused(&mut c, src(&seed));
    assert_eq!(code, "CONFLICT");
    assert!(message.contains(article) && message.contains("malformed"), "{message}");
    assert_eq!(fx.tree(), before);
}

#[test]
fn the_server_keeps_serving_after_errors() {
    let fx = Fixture::new();
    let seed = fx.draft("seed.md", "# x\n");
    let mut c = fx.server();
    for _ in 0..3 {
        refused(&mut c, src("nope.md"));
        refused(&mut c, json!({"source": seed, "project": ".."}));
    }
    assert_eq!(posted(&mut c, src(&seed))["action"], "created");
}

/// Every entry under `root`, hidden ones and the server's own files included.
fn raw_tree(root: &std::path::Path) -> Vec<(String, Option<Vec<u8>>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                stack.push(path);
                out.push((rel, None));
            } else {
                out.push((rel, Some(std::fs::read(&path).unwrap())));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_conflict_in_a_repository_made_by_hand_writes_nothing_at_all() {
    // Articles written by hand (no server has run here: no lock file, no saved index yet),
    // enough of them that a scan would save its index, and two carrying the same source_id.
    let fx = Fixture::new();
    let seed = fx.draft("seed.md", "---\ntitle: Seed\n---\nbody\n");
    for i in 1..=100 {
        fx.put(&format!("projects/2025-12/{i:02}-a{i}/article.md"), &format!("---\ntitle: A{i}\n---\nx\n"));
    }
    let article = format!("---\ntitle: Seed\nsource_id: {}\n---\nold\n", scalar_of(&seed));
    fx.put("projects/2025-12/101-seed/article.md", &article);
    fx.put("projects/2026-01/07-seed-copy/article.md", &article);
    let before = raw_tree(&fx.repo());
    let mut c = fx.server();
    let (code, message) = refused(&mut c, src(&seed));
    assert_eq!(code, "CONFLICT");
    assert!(
        message.contains("projects/2025-12/101-seed") && message.contains("projects/2026-01/07-seed-copy"),
        "{message}"
    );
    // Still nothing written on a second refusal, nor by a second server.
    refused(&mut c, src(&seed));
    c.wait().unwrap();
    let mut c = fx.server();
    refused(&mut c, src(&seed));
    c.wait().unwrap();
    assert_eq!(raw_tree(&fx.repo()), before, "not even a lock file or a saved index");
}

/// A manuscript whose frontmatter has `n` short keys (104,000 of them fit in 1 MB).
fn many_keys(n: usize) -> String {
    let mut text = String::from("---\ntitle: many\n");
    for i in 0..n {
        let mut name = String::new();
        let mut rest = i;
        loop {
            name.insert(0, char::from_digit((rest % 36) as u32, 36).unwrap());
            rest /= 36;
            if rest == 0 {
                break;
            }
        }
        text.push_str(&format!("k{name}: 1\n"));
    }
    text.push_str("---\nbody\n");
    text
}

#[test]
fn an_oversized_frontmatter_or_a_yaml_bomb_is_refused_and_costs_later_calls_nothing() {
    let fx = Fixture::new();
    let mut c = fx.server();
    let small = fx.draft("small.md", "---\ntitle: Small\n---\nbody\n");
    let keys = fx.draft("keys.md", &many_keys(104_000));
    assert!(std::fs::metadata(&keys).unwrap().len() < 1_000_000, "under the manuscript size limit");
    let just_over = fx.draft("over.md", &many_keys(1_000));
    let mut bomb = String::from("---\na0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for level in 1..10 {
        let prev = level - 1;
        bomb.push_str(&format!(
            "a{level}: &a{level} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
        ));
    }
    bomb.push_str("---\nbody\n");
    let bomb = fx.draft("bomb.md", &bomb);
    let before = fx.tree();
    for (path, says) in [(&keys, "bytes"), (&just_over, "1001 top-level entries"), (&bomb, "frontmatter")] {
        let (code, message) = refused(&mut c, src(path));
        assert_eq!(code, "INVALID_INPUT", "{path}: {message}");
        assert!(message.contains(says) && message.contains("nothing was written"), "{path}: {message}");
    }
    assert_eq!(fx.tree(), before, "nothing written");
    assert!(!is_error(&draft_post(&mut c, src(&small))));

    // An article with such a frontmatter already in the repository (filed by hand, or by an
    // older version) is indexed as unreadable, by its `source_id` line, and slows nobody down:
    // the next call, and a fresh process, work as usual (checked by the benchmark for speed).
    let mut filed = String::from("---\nsource_id: 0123456789abcdef\n");
    filed.push_str(&many_keys(104_000)[4..]);
    fx.put("projects/2026-01/07-huge/article.md", &filed);
    let other = fx.draft("other.md", "---\ntitle: Other\n---\nbody\n");
    let posted_other = posted(&mut c, src(&other));
    assert_eq!(posted_other["source_id"], id_of(&other));
    let mut fresh = fx.server();
    let listed = fresh.call_tool("list_posts", json!({"project": "2026-01"})).unwrap();
    assert!(!is_error(&listed), "{listed}");
}
