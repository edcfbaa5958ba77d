//! The index saved in `projects/.draft-post-index`: a new process starts from it, and still
//! sees every change made while no server ran; a broken or foreign one is ignored.

use std::time::{Duration, SystemTime};

use mcp_tests::structured;
use serde_json::json;

use super::{Fixture, posted, scalar_of, src};

/// Sets the mtime of everything under `root` (files and directories) an hour back, so the
/// server trusts what it saved about them (nothing is "too recent to trust").
fn age(root: &std::path::Path) {
    let past = SystemTime::now() - Duration::from_secs(3600);
    for (rel, _) in super::tree(root) {
        let path = root.join(rel);
        let file = std::fs::File::open(&path).unwrap();
        file.set_modified(past).unwrap();
    }
    std::fs::File::open(root).unwrap().set_modified(past).unwrap();
}

/// A repository of 80 articles in 2 projects, filed once by a server (which saves its index).
fn filed_repository(fx: &Fixture) {
    for i in 1..=40 {
        for project in ["2025-11", "2025-12"] {
            fx.put(
                &format!("projects/{project}/{i:02}-a{i}/article.md"),
                &format!("---\ntitle: Article {i}\nsource_id: {:016x}\n---\nbody\n", i + 0xabc000),
            );
        }
    }
    // What a save killed mid-way leaves: a hidden temporary file, removed by the next save.
    let leftover = "projects/..draft-post-index.mcp-tmp-00000000000000ab";
    fx.put(leftover, "partial");
    let warm = fx.draft("warm.md", "# warm\n");
    let mut c = fx.server();
    posted(&mut c, src(&warm));
    drop(c);
    assert!(fx.at("projects/.draft-post-index").is_file(), "the index is saved after a large scan");
    assert!(!fx.at(leftover).exists());
}

#[test]
fn a_new_process_starts_from_the_saved_index_and_sees_changes_made_meanwhile() {
    let fx = Fixture::new();
    filed_repository(&fx);
    let seed = fx.draft("seed.md", "---\ntitle: Seed\n---\nnew body\n");
    age(&fx.repo());

    // While no server runs: an article is added by hand for `seed`, one is removed, and one
    // gets a new title in place.
    fx.put(
        "projects/2025-12/41-by-hand/article.md",
        &format!("---\ntitle: Seed\nsource_id: {}\n---\nold\n", scalar_of(&seed)),
    );
    std::fs::remove_dir_all(fx.at("projects/2025-11/40-a40")).unwrap();
    let retitled = fx.read("projects/2025-11/07-a7/article.md").replace("Article 7", "Retitled");
    fx.put("projects/2025-11/07-a7/article.md", &retitled);

    let mut c = fx.server();
    let result = posted(&mut c, src(&seed));
    assert_eq!(result["action"], "updated");
    assert_eq!(result["dir"], "projects/2025-12/41-by-hand");
    let listed = structured(&c.call_tool("list_posts", json!({"project": "2025-11"})).unwrap()).unwrap();
    let posts = listed["posts"].as_array().unwrap();
    assert_eq!(posts.len(), 39, "40-a40 is gone");
    assert_eq!(posts[6]["title"], "Retitled");
    // New numbers still follow the highest one on disk.
    let other = fx.draft("other.md", "# other\n");
    assert_eq!(posted(&mut c, json!({"source": other, "project": "2025-11"}))["dir"], "projects/2025-11/40-other");
}

#[test]
fn a_copy_made_while_no_server_ran_is_a_conflict() {
    let fx = Fixture::new();
    filed_repository(&fx);
    let seed = fx.draft("seed.md", "# seed\n");
    let mut c = fx.server();
    let dir = posted(&mut c, src(&seed))["dir"].as_str().unwrap().to_owned();
    drop(c);
    age(&fx.repo());
    // Copies by hand: of the manuscript's article, and of an unrelated one (which does not
    // concern this manuscript).
    let article = fx.read(&format!("{dir}/article.md"));
    fx.put("projects/2025-11/50-copied/article.md", &article);
    let unrelated = fx.read("projects/2025-11/03-a3/article.md");
    fx.put("projects/2025-12/51-copy/article.md", &unrelated);
    let mut c = fx.server();
    let (code, message) = super::refused(&mut c, src(&seed));
    assert_eq!(code, "CONFLICT");
    assert!(message.contains(&dir) && message.contains("projects/2025-11/50-copied"), "{message}");
    assert!(!message.contains("51-copy"), "{message}");
}

#[test]
fn the_saved_index_spares_a_new_process_from_reading_every_article() {
    let fx = Fixture::new();
    for p in 0..12 {
        for i in 1..=100 {
            fx.put(&format!("projects/p{p:02}/{i:02}-a/article.md"), &format!("---\ntitle: A{i}\n---\nbody\n"));
        }
    }
    // Old articles (their stamps are trusted once read), filed by a first process.
    age(&fx.repo());
    let seed = fx.draft("seed.md", "# seed\n");
    let mut c = fx.server();
    posted(&mut c, json!({"source": seed, "project": "p00"}));
    drop(c);
    let late = fx.draft("late.md", "# late\n");
    fx.put("projects/p05/77-by-hand/article.md", &format!("---\nsource_id: {}\n---\nx\n", scalar_of(&late)));

    let mut c = fx.builder_with_log();
    let result = posted(&mut c, src(&late));
    assert_eq!(result["dir"], "projects/p05/77-by-hand", "the directory added meanwhile is found");
    assert_eq!(posted(&mut c, json!({"source": seed, "project": "p00"}))["action"], "unchanged");
    // Every log line is on stderr once the server has exited.
    assert!(c.wait().unwrap().success());
    let log = c.stderr_text();
    let loaded: usize = log
        .lines()
        .filter(|l| l.contains("index refreshed"))
        .filter_map(|l| l.split("loaded=").nth(1)?.split_whitespace().next()?.parse::<usize>().ok())
        .sum();
    eprintln!("articles read by the second process: {loaded}");
    assert!(log.contains("saved index read") && log.contains("usable=true"), "{log}");
    assert!(loaded < 200, "read {loaded} articles; the saved index should have spared most: {log}");
}

#[test]
fn a_broken_or_foreign_saved_index_is_ignored() {
    let fx = Fixture::new();
    filed_repository(&fx);
    let seed = fx.draft("seed.md", "# seed\n");
    for garbage in ["", "draft-post-index 1 0\n", "not an index at all", "draft-post-index 99 1\nS -\nE 0\n"] {
        std::fs::write(fx.at("projects/.draft-post-index"), garbage).unwrap();
        let mut c = fx.server();
        let listed = structured(&c.call_tool("list_posts", json!({})).unwrap()).unwrap();
        assert_eq!(listed["posts"].as_array().unwrap().len(), 81, "{garbage:?}");
    }
    // The index of another repository (another projects/ directory) is not used.
    let other = Fixture::new();
    filed_repository(&other);
    std::fs::copy(other.at("projects/.draft-post-index"), fx.at("projects/.draft-post-index")).unwrap();
    let mut c = fx.server();
    let result = posted(&mut c, src(&seed));
    assert_eq!(result["dir"], "projects/2026-01/02-seed");
}
