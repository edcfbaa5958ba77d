//! Crash safety: a process killed at any moment leaves the old or the new article, never a torn
//! one, and never a numbered directory that a later call would skip over.

use serde_json::json;

use super::{Fixture, posted, scalar_of, src};

/// The article a manuscript without frontmatter becomes.
fn article_of(source: &str, body: &str) -> String {
    format!("---\nsource_id: {}\n---\n{body}", scalar_of(source))
}

#[test]
fn a_directory_left_by_an_interrupted_claim_is_reused_not_skipped() {
    let fx = Fixture::new();
    fx.put("projects/2026-01/01-first/article.md", "# first\n");
    // What a kill between `create_dir` and the rename leaves: the numbered directory with only
    // the hidden temporary file of the atomic write.
    fx.put("projects/2026-01/02-seed/.article.md.mcp-tmp-00000000deadbeef", "partial");
    let seed = fx.draft("seed.md", "# Seed\n");
    let mut c = fx.server();
    let result = posted(&mut c, src(&seed));
    assert_eq!(result["dir"], "projects/2026-01/02-seed");
    assert_eq!(result["action"], "created");
    assert_eq!(fx.dirs("2026-01"), ["01-first", "02-seed"]);
    assert_eq!(super::tree(&fx.at("projects/2026-01/02-seed")).len(), 1, "the temporary file is gone");
}

#[test]
fn a_leftover_with_another_slug_is_replaced_by_the_next_article() {
    let fx = Fixture::new();
    fx.put("projects/2026-01/01-first/article.md", "# first\n");
    std::fs::create_dir_all(fx.at("projects/2026-01/02-crashed")).unwrap();
    fx.put("projects/2026-01/02-crashed/.article.md.mcp-tmp-0000000000000001", "");
    let other = fx.draft("other.md", "# Other\n");
    let mut c = fx.server();
    assert_eq!(posted(&mut c, src(&other))["dir"], "projects/2026-01/02-other");
    assert_eq!(fx.dirs("2026-01"), ["01-first", "02-other"]);
}

#[test]
fn a_numbered_directory_with_content_of_its_own_is_never_reused() {
    let fx = Fixture::new();
    fx.put("projects/2026-01/01-notes/notes.txt", "someone's notes");
    let seed = fx.draft("seed.md", "# Seed\n");
    let mut c = fx.server();
    assert_eq!(posted(&mut c, src(&seed))["dir"], "projects/2026-01/02-seed");
    assert_eq!(fx.read("projects/2026-01/01-notes/notes.txt"), "someone's notes");
}

/// When the kill lands.
#[derive(Debug, Clone, Copy)]
enum When {
    /// Right after the request is sent.
    AtOnce,
    /// As soon as the article's directory or a temporary file of the write shows up.
    MidWrite,
}

/// Whether a temporary file of an atomic write, or a numbered directory not in `before`, exists.
fn write_in_progress(fx: &Fixture, before: &[String]) -> bool {
    fx.dirs("2026-01").iter().any(|dir| {
        !before.contains(dir)
            || std::fs::read_dir(fx.at(&format!("projects/2026-01/{dir}")))
                .map(|d| d.flatten().any(|e| e.file_name().to_string_lossy().contains(".mcp-tmp-")))
                .unwrap_or(false)
    })
}

#[test]
fn kill_9_at_any_moment_leaves_a_whole_article_and_a_retry_finishes_the_job() {
    let fx = Fixture::new();
    // Large enough for the write to take a while, so kills land before, during and after it.
    let big = |tag: &str| format!("# {tag}\n{}", format!("{tag} line of text\n").repeat(100_000));
    let mut caught_mid_write = 0;
    for round in 0..12 {
        let manuscript = round / 3;
        let when = if round % 2 == 0 { When::MidWrite } else { When::AtOnce };
        let body = big(&format!("r{round}"));
        let seed = fx.draft(&format!("seed{manuscript}.md"), &body);
        let before = fx.dirs("2026-01");
        // Over the default --max-manuscript-size (1 MiB) on purpose: the larger, the longer the write.
        let mut c = fx.server_with(&["--max-manuscript-size", "4000000"]);
        c.send_request("tools/call", json!({"name": "draft_post", "arguments": src(&seed)})).unwrap();
        if let When::MidWrite = when {
            // Watch the repository (no sleep): kill the moment the write shows.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
            loop {
                if write_in_progress(&fx, &before) {
                    caught_mid_write += 1;
                    break;
                }
                if c.try_read_message(std::time::Duration::ZERO).unwrap().is_some()
                    || std::time::Instant::now() > deadline
                {
                    break;
                }
                std::thread::yield_now();
            }
        }
        c.kill().unwrap();

        // Whatever the moment: every article is whole (some manuscript's full article), and any
        // numbered directory without one holds nothing but temporary files.
        for dir in fx.dirs("2026-01") {
            let path = fx.at(&format!("projects/2026-01/{dir}/article.md"));
            match std::fs::read_to_string(&path) {
                Ok(text) => {
                    assert!(text.starts_with("---\nsource_id: "), "{dir}: torn article");
                    let body = text.splitn(4, '\n').nth(3).unwrap();
                    let tag = body.lines().next().unwrap().trim_start_matches("# ");
                    assert_eq!(body, big(tag), "{dir}: torn article");
                }
                Err(_) => {
                    let leftovers = super::tree(&fx.at(&format!("projects/2026-01/{dir}")));
                    assert!(leftovers.keys().all(|k| k.contains(".mcp-tmp-")), "{dir}: {leftovers:?}");
                }
            }
        }

        // A retry files the manuscript, reusing any leftover, so numbers stay dense.
        let mut c = fx.server_with(&["--max-manuscript-size", "4000000"]);
        let result = posted(&mut c, src(&seed));
        assert_eq!(fx.read(result["article"].as_str().unwrap()), article_of(&seed, &body));
        let dirs = fx.dirs("2026-01");
        let numbers: Vec<usize> = dirs.iter().map(|d| d[..2].parse().unwrap()).collect();
        assert_eq!(numbers, (1..=dirs.len()).collect::<Vec<_>>(), "no number skipped: {dirs:?}");
        assert_eq!(dirs.len(), manuscript + 1, "one directory per manuscript: {dirs:?}");
        for dir in &dirs {
            let entries = super::tree(&fx.at(&format!("projects/2026-01/{dir}")));
            assert_eq!(entries.keys().collect::<Vec<_>>(), ["article.md"], "{dir}");
        }
    }
    // Informational: how many kills landed while a write was visibly under way.
    eprintln!("kills caught mid-write: {caught_mid_write} of 6");
}
