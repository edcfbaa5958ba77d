//! Drafts from clients that do not share the server's disk: a manuscript sent as `content` (its
//! `source` the client's own path, hashed as a path read from disk is), `attachments` written
//! beside the article, `dry_run`, and the images a manuscript on disk links, copied with it.

use base64::Engine as _;
use mcp_tests::text_of;
use serde_json::{Value, json};

use super::{Fixture, draft_post, posted, refused, src, tree};

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The `source_id` of a client path that is not on this machine: the first 16 hex digits of the
/// SHA-256 of the path as given (absolute, normalised).
fn id_of_client_path(path: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(path.as_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n fake image bytes";

#[test]
fn a_manuscript_sent_as_content_is_filed_refiled_and_dry_run() {
    let fx = Fixture::new();
    let mut c = fx.server();
    let source = "/home/someone/drafts/remote-post.md";
    let first = json!({
        "source": source, "project": "2026-01",
        "content": "---\ntitle: Remote Post\n---\nHello ![figure](img/fig.png) ![missing](img/none.png)\n",
        "attachments": [{"path": "img/fig.png", "data": b64(PNG)}],
    });
    // A dry run first: what would happen, nothing written.
    let before = fx.tree();
    let mut preview = first.clone();
    preview["dry_run"] = json!(true);
    let dry = posted(&mut c, preview);
    assert_eq!(dry["dry_run"], true, "{dry}");
    assert_eq!(dry["action"], "created");
    assert_eq!(dry["dir"], "projects/2026-01/01-remote-post");
    assert_eq!(dry["attachments"], json!(["projects/2026-01/01-remote-post/img/fig.png"]));
    assert_eq!(fx.tree(), before, "a dry run writes nothing");

    let created = posted(&mut c, first.clone());
    assert_eq!(created["action"], "created");
    assert_eq!(created["source_id"], id_of_client_path(source), "the client's path is the identity");
    assert!(created.get("dry_run").is_none());
    assert_eq!(created["attachments"], json!(["projects/2026-01/01-remote-post/img/fig.png"]));
    let warnings = created["warnings"].as_array().unwrap();
    assert!(warnings.iter().any(|w| w.as_str().unwrap().contains("img/none.png")), "{created}");
    assert_eq!(std::fs::read(fx.at("projects/2026-01/01-remote-post/img/fig.png")).unwrap(), PNG);
    assert!(fx.read("projects/2026-01/01-remote-post/article.md").contains("Hello ![figure](img/fig.png)"));

    // Re-filed with new content: the same article, updated; the unchanged image not rewritten.
    let mut second = first.clone();
    second["content"] = json!("---\ntitle: Remote Post\n---\nHello again ![figure](img/fig.png)\n");
    let mut preview = second.clone();
    preview["dry_run"] = json!(true);
    let dry = posted(&mut c, preview);
    assert_eq!((dry["action"].as_str(), dry["dry_run"].as_bool()), (Some("updated"), Some(true)), "{dry}");
    assert!(dry["diff"].as_str().unwrap().contains("+Hello again"), "{dry}");
    assert!(fx.read("projects/2026-01/01-remote-post/article.md").contains("Hello ![figure]"), "not written");
    let updated = posted(&mut c, second.clone());
    assert_eq!(updated["action"], "updated");
    assert_eq!(updated["dir"], "projects/2026-01/01-remote-post");
    assert!(updated.get("attachments").is_none(), "the same bytes are not written again: {updated}");
    assert!(fx.read("projects/2026-01/01-remote-post/article.md").contains("Hello again"));
    assert_eq!(posted(&mut c, second)["action"], "unchanged");
    // Other files beside the article are never removed.
    std::fs::write(fx.at("projects/2026-01/01-remote-post/notes.txt"), "mine").unwrap();
    let mut third = first.clone();
    third["attachments"] = json!([{"path": "img/fig.png", "data": b64(b"new image")}]);
    let refiled = posted(&mut c, third);
    assert_eq!(refiled["attachments"], json!(["projects/2026-01/01-remote-post/img/fig.png"]));
    assert_eq!(std::fs::read(fx.at("projects/2026-01/01-remote-post/img/fig.png")).unwrap(), b"new image");
    assert_eq!(fx.read("projects/2026-01/01-remote-post/notes.txt"), "mine");
}

#[test]
fn attachments_that_leave_the_article_are_refused_and_nothing_is_written() {
    let fx = Fixture::new();
    let mut c = fx.server();
    let before = fx.tree();
    for (path, what) in [
        ("../escape.png", "attachments[0].path"),
        ("/etc/x.png", "attachments[0].path"),
        ("img/../../x.png", "attachments[0].path"),
        (".hidden.png", "attachments[0].path"),
        ("article.md", "attachments[0].path"),
    ] {
        let (code, message) = refused(
            &mut c,
            json!({"source": "/c/post.md", "project": "2026-01", "content": "# Post\n",
                   "attachments": [{"path": path, "data": b64(b"x")}]}),
        );
        assert_eq!(code, "INVALID_ARGS", "{path}: {message}");
        assert!(message.contains(what) && message.contains("nothing was written"), "{path}: {message}");
    }
    let (code, message) = refused(
        &mut c,
        json!({"source": "/c/post.md", "content": "# Post\n", "attachments": [{"path": "a.png", "data": "!!!"}]}),
    );
    assert_eq!(code, "INVALID_ARGS", "{message}");
    // The same rules as a file for what is filed: a Markdown name, nothing hidden.
    for source in ["/c/post.txt", "/c/.secret/post.md"] {
        let (code, _) = refused(&mut c, json!({"source": source, "content": "# x\n"}));
        assert_ne!(code, "OK");
    }
    assert_eq!(fx.tree(), before);
}

#[test]
fn a_client_switching_from_its_path_to_content_keeps_its_article() {
    let fx = Fixture::new();
    let seed = fx.draft("seed.md", "---\ntitle: Switch\n---\nOn disk.\n");
    let mut c = fx.server();
    let by_path = posted(&mut c, src(&seed));
    let canonical = std::fs::canonicalize(&seed).unwrap().to_str().unwrap().to_owned();
    let by_content = posted(
        &mut c,
        json!({"source": canonical, "project": "2026-01", "content": "---\ntitle: Switch\n---\nSent.\n"}),
    );
    assert_eq!(by_content["action"], "updated", "{by_content}");
    assert_eq!(by_content["source_id"], by_path["source_id"]);
    assert_eq!(by_content["dir"], by_path["dir"]);
}

#[test]
fn no_content_refuses_content_and_keeps_path_filing() {
    let fx = Fixture::new();
    let seed = fx.draft("seed.md", "# A\n");
    let mut c = fx.server_with(&["--no-content"]);
    let (code, message) = refused(&mut c, json!({"source": "/c/post.md", "content": "# Post\n"}));
    assert_eq!(code, "INVALID_ARGS");
    assert!(message.contains("--no-content"), "{message}");
    assert_eq!(posted(&mut c, src(&seed))["action"], "created");
}

/// From disk: an image beside the manuscript is copied with it; a link to a file outside the
/// source root, a hidden file, or a symlink leaving the root is not, and is named in a warning.
#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn images_a_manuscript_on_disk_links_are_copied_with_it_and_the_rest_named() {
    let fx = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.png"), b"SECRET").unwrap();
    let seed = fx.draft(
        "post/seed.md",
        "---\ntitle: Pictures\n---\n![ok](img/ok.png) ![also](<img/with space.png>)\n\
         ![hidden](.hidden/h.png) ![link](img/link.png) ![up](../../outside.png) ![gone](img/gone.png)\n\
         ![web](https://example.com/x.png) <img src=\"img/html.png\">\n\n```\n![code](img/code.png)\n```\n",
    );
    let post = std::path::Path::new(&seed).parent().unwrap().to_path_buf();
    std::fs::create_dir_all(post.join("img")).unwrap();
    std::fs::create_dir_all(post.join(".hidden")).unwrap();
    std::fs::write(post.join("img/ok.png"), PNG).unwrap();
    std::fs::write(post.join("img/with space.png"), b"space").unwrap();
    std::fs::write(post.join("img/html.png"), b"html").unwrap();
    std::fs::write(post.join("img/code.png"), b"code").unwrap();
    std::fs::write(post.join(".hidden/h.png"), b"hidden").unwrap();
    mcp_tests::os::symlink(outside.path().join("secret.png"), post.join("img/link.png")).unwrap();
    let mut c = fx.server();
    let result = draft_post(&mut c, src(&seed));
    let out = mcp_tests::structured(&result).unwrap_or_else(|| panic!("{result}"));
    let dir = "projects/2026-01/01-pictures";
    assert_eq!(
        out["attachments"],
        json!([format!("{dir}/img/ok.png"), format!("{dir}/img/with space.png"), format!("{dir}/img/html.png")]),
        "{out}"
    );
    assert_eq!(std::fs::read(fx.at(&format!("{dir}/img/ok.png"))).unwrap(), PNG);
    assert!(!fx.at(&format!("{dir}/img/link.png")).exists() && !fx.at(&format!("{dir}/.hidden")).exists());
    assert!(!fx.at(&format!("{dir}/img/code.png")).exists(), "a link in a code block is no link");
    let warnings: Vec<&str> = out["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
    for named in [".hidden/h.png", "img/link.png", "../../outside.png", "img/gone.png"] {
        assert!(warnings.iter().any(|w| w.contains(named)), "{named} not named: {warnings:?}");
    }
    assert!(!warnings.iter().any(|w| w.contains("example.com")), "a URL is not a broken link: {warnings:?}");
    assert!(text_of(&result).contains("attachments written"), "{result}");
    let secret = tree(&fx.repo()).into_values().flatten().any(|bytes| bytes == b"SECRET");
    assert!(!secret, "nothing from outside the source root reached the repository");
}

/// Concurrent filings of the same manuscript by content still make one article.
#[test]
fn concurrent_filings_by_content_make_one_article() {
    let fx = Fixture::new();
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let mut c = fx.server();
            std::thread::spawn(move || {
                posted(
                    &mut c,
                    json!({"source": "/c/same.md", "project": "2026-01",
                           "content": format!("---\ntitle: Same\n---\nVersion {i}.\n")}),
                )
            })
        })
        .collect();
    let results: Vec<Value> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(results.iter().filter(|r| r["action"] == "created").count(), 1, "{results:?}");
    assert_eq!(fx.dirs("2026-01"), vec!["01-same"]);
}

/// Links planted in the article's directory (by anyone who can write the repository) never
/// carry an attachment elsewhere: another article, the repository's README. Each call is
/// refused before anything is written, and its dry run says the same.
#[cfg(unix)]
#[test]
fn attachments_are_never_written_through_a_link_in_the_article_directory() {
    let fx = Fixture::new();
    let mut c = fx.server();
    let call = |path: &str| {
        json!({"source": "/c/alpha.md", "project": "p", "content": "---\ntitle: Alpha\n---\nA\n",
               "attachments": [{"path": path, "data": b64(PNG)}]})
    };
    let alpha =
        posted(&mut c, json!({"source": "/c/alpha.md", "project": "p", "content": "---\ntitle: Alpha\n---\nA\n"}));
    assert_eq!(alpha["dir"], "projects/p/01-alpha");
    let beta = posted(&mut c, json!({"source": "/c/beta.md", "project": "p", "content": "---\ntitle: Beta\n---\nB\n"}));
    assert_eq!(beta["dir"], "projects/p/02-beta");
    std::fs::write(fx.at("README.md"), "the repository's readme").unwrap();
    let dir = fx.at("projects/p/01-alpha");
    mcp_tests::os::symlink("../02-beta/article.md", dir.join("fig.png")).unwrap();
    mcp_tests::os::symlink("../02-beta", dir.join("img")).unwrap();
    mcp_tests::os::symlink("../../../README.md", dir.join("logo.png")).unwrap();
    let before = fx.tree();
    let beta_article = fx.read("projects/p/02-beta/article.md");
    for path in ["fig.png", "img/article.md", "logo.png"] {
        let mut dry = call(path);
        dry["dry_run"] = json!(true);
        let (code, message) = refused(&mut c, dry);
        assert_eq!(code, "INVALID_ARGS", "dry run of {path}: {message}");
        let (code, message) = refused(&mut c, call(path));
        assert_eq!(code, "INVALID_ARGS", "{path}: {message}");
        assert!(message.contains("symbolic link") && message.contains("Nothing was written"), "{path}: {message}");
    }
    assert_eq!(fx.read("projects/p/02-beta/article.md"), beta_article);
    assert_eq!(fx.read("README.md"), "the repository's readme");
    assert_eq!(fx.tree(), before, "nothing written, the links left as they are");
    // The next filing of beta still finds its article: no duplicate.
    let again =
        posted(&mut c, json!({"source": "/c/beta.md", "project": "p", "content": "---\ntitle: Beta\n---\nB2\n"}));
    assert_eq!((again["action"].as_str(), again["dir"].as_str()), (Some("updated"), Some("projects/p/02-beta")));
}

/// Attachments that cannot all be written are refused before the article is: nothing of the
/// call is left behind (no article, no directory, no half-made tree).
#[test]
fn one_bad_attachment_writes_nothing() {
    let fx = Fixture::new();
    let mut c = fx.server();
    let before = fx.tree();
    let deep = format!("{}{}.png", "junk/".repeat(21), "n".repeat(300));
    for attachments in [
        json!([{"path": "img", "data": b64(PNG)}, {"path": "img/fig.png", "data": b64(PNG)}]),
        json!([{"path": deep, "data": b64(PNG)}]),
        json!([{"path": "img/", "data": b64(PNG)}]),
        json!([{"path": "ARTICLE.MD", "data": b64(PNG)}]),
        json!([{"path": "Fig.png", "data": b64(PNG)}, {"path": "fig.png", "data": b64(PNG)}]),
    ] {
        let (code, message) = refused(
            &mut c,
            json!({"source": "/c/post.md", "project": "p", "content": "# Post\n", "attachments": attachments}),
        );
        assert_eq!(code, "INVALID_ARGS", "{attachments}: {message}");
        assert!(message.contains("nothing was written"), "{message}");
        assert_eq!(fx.tree(), before, "{attachments}");
    }
    // On an existing article: a file where the attachment needs a directory.
    let first = posted(&mut c, json!({"source": "/c/post.md", "project": "p", "content": "# Post\n"}));
    std::fs::write(fx.at("projects/p/01-post/img"), "a file").unwrap();
    let before = fx.tree();
    let (code, message) = refused(
        &mut c,
        json!({"source": "/c/post.md", "project": "p", "content": "# Post, changed\n",
               "attachments": [{"path": "img/fig.png", "data": b64(PNG)}]}),
    );
    assert_eq!(code, "INVALID_ARGS", "{message}");
    assert_eq!(fx.tree(), before, "the article is not updated either: {first}");
}

/// Any numbered directory holds its number, with or without an article, empty or not; the dry
/// run names the number the call then takes.
#[test]
fn numbered_directories_made_by_hand_hold_their_numbers() {
    let fx = Fixture::new();
    let mut c = fx.server();
    posted(&mut c, json!({"source": "/c/a.md", "project": "p", "content": "---\ntitle: a\n---\n"}));
    std::fs::create_dir_all(fx.at("projects/p/02-next-post")).unwrap();
    std::fs::write(fx.at("projects/p/02-next-post/notes.txt"), "notes").unwrap();
    std::fs::create_dir_all(fx.at("projects/p/03-reserved")).unwrap();
    // The dry run of `name`, then the call: both must name `dir`.
    let mut file = |name: &str, dir: &str| {
        let call =
            json!({"source": format!("/c/{name}.md"), "project": "p", "content": format!("---\ntitle: {name}\n---\n")});
        let mut dry = call.clone();
        dry["dry_run"] = json!(true);
        assert_eq!(posted(&mut c, dry)["dir"], dir, "the dry run of {name}");
        assert_eq!(posted(&mut c, call)["dir"], dir, "the call of {name}");
    };
    file("b", "projects/p/04-b");
    assert!(fx.at("projects/p/03-reserved").is_dir(), "an empty numbered directory is kept");
    std::fs::create_dir_all(fx.at("projects/p/07-draft-by-hand")).unwrap();
    file("d", "projects/p/08-d");
}
