//! The dry run is the call's oracle: over random histories (manuscripts filed and refiled,
//! numbered directories made by hand, empty or not, attachments that clash, links planted in an
//! article's directory), each `dry_run: true` answer says exactly what the same call without it
//! then does: the same action, directory, number and attachments, or the same refusal; and a
//! dry run writes nothing.

use base64::Engine as _;
use mcp_tests::{error_code, is_error, structured};
use proptest::prelude::*;
use serde_json::{Value, json};

use super::{Fixture, draft_post};

#[derive(Debug, Clone)]
enum Step {
    /// File manuscript `n` (of a few) in project `p`, with attachments.
    File { n: u8, project: u8, version: u8, attachments: Vec<&'static str> },
    /// A numbered directory made by hand in project `p`: empty, or with notes.
    Hand { project: u8, number: u8, notes: bool },
    /// A symbolic link planted beside an existing article, pointing at another article.
    Link { n: u8 },
}

fn step() -> impl Strategy<Value = Step> {
    let attachment = prop_oneof![Just("img/fig.png"), Just("img"), Just("Fig.png"), Just("fig.png"), Just("a/b/c.png")];
    prop_oneof![
        4 => (0..4u8, 0..2u8, 0..3u8, proptest::collection::vec(attachment, 0..3))
            .prop_map(|(n, project, version, attachments)| Step::File { n, project, version, attachments }),
        1 => (0..2u8, 1..9u8, any::<bool>()).prop_map(|(project, number, notes)| Step::Hand { project, number, notes }),
        1 => (0..4u8).prop_map(|n| Step::Link { n }),
    ]
}

/// What an answer says: for a success, its action, directory, number and attachments (the
/// `dry_run` flag aside); for a refusal, its code.
fn gist(result: &Value) -> Value {
    if is_error(result) {
        return json!({"error": error_code(result)});
    }
    let s = structured(result).unwrap_or_default();
    json!({"action": s["action"], "dir": s["dir"], "number": s["number"], "attachments": s["attachments"]})
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn a_dry_run_says_what_the_call_then_does(steps in proptest::collection::vec(step(), 1..10)) {
        let fx = Fixture::new();
        let mut c = fx.server();
        let mut dirs: Vec<(u8, String)> = Vec::new();
        for step in steps {
            match step {
                Step::File { n, project, version, attachments } => {
                    let data = base64::engine::general_purpose::STANDARD.encode([version; 4]);
                    let attachments: Vec<Value> = attachments.iter().map(|p| json!({"path": p, "data": data})).collect();
                    let args = json!({
                        "source": format!("/c/post-{n}.md"),
                        "project": format!("p{project}"),
                        "content": format!("---\ntitle: Post {n}\n---\nversion {version}\n"),
                        "attachments": attachments,
                    });
                    let mut dry = args.clone();
                    dry["dry_run"] = json!(true);
                    let before = fx.tree();
                    let preview = draft_post(&mut c, dry);
                    prop_assert_eq!(&fx.tree(), &before, "a dry run wrote something");
                    let done = draft_post(&mut c, args);
                    prop_assert_eq!(gist(&preview), gist(&done), "{} then {}", preview, done);
                    if let Some(dir) = structured(&done).and_then(|s| s["dir"].as_str().map(str::to_owned)) {
                        dirs.retain(|(m, _)| *m != n);
                        dirs.push((n, dir));
                    }
                }
                Step::Hand { project, number, notes } => {
                    let dir = fx.at(&format!("projects/p{project}/{number:02}-by-hand"));
                    std::fs::create_dir_all(&dir).unwrap();
                    if notes {
                        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
                    }
                }
                Step::Link { n } => {
                    #[cfg(unix)]
                    if let (Some((_, dir)), Some((_, other))) = (dirs.iter().find(|(m, _)| *m == n), dirs.iter().find(|(m, _)| *m != n)) {
                        let link = fx.at(dir).join("fig.png");
                        let _ = std::fs::remove_file(&link);
                        let _ = std::os::unix::fs::symlink(fx.at(other).join("article.md"), link);
                    }
                }
            }
        }
    }
}

/// The view's Save draft: the dry run's call without `dry_run`, with the hashes its preview gave.
fn save_draft(preview: &Value, args: &Value) -> Value {
    let data = &preview["_meta"]["mcp-suite/view"];
    let mut saved = args.clone();
    saved.as_object_mut().unwrap().remove("dry_run");
    saved["if_source_sha256"] = data["sourceSha256"].clone();
    saved["if_result_sha256"] = data["resultSha256"].clone();
    saved
}

#[test]
fn save_draft_files_what_the_preview_showed_or_nothing() {
    let fx = Fixture::new();
    let mut c = fx.server();
    let path = fx.draft("seen.md", "---\ntitle: Seen\n---\nThe text the user read.\n");
    let args = json!({"source": path, "project": "2026-01", "dry_run": true});
    let preview = super::draft_post(&mut c, args.clone());
    assert!(!is_error(&preview), "{preview}");
    let save = save_draft(&preview, &args);
    assert_eq!(save["if_source_sha256"].as_str().map(str::len), Some(64), "{preview}");
    // The manuscript changed after the preview: Save draft files nothing, and says why.
    let before = fx.tree();
    fx.draft("seen.md", "---\ntitle: Seen\n---\nA text nobody saw.\n");
    let refused = super::draft_post(&mut c, save.clone());
    assert_eq!(error_code(&refused).as_deref(), Some("CONFLICT"), "{refused}");
    assert!(mcp_tests::text_of(&refused).contains("changed since the preview"), "{refused}");
    assert_eq!(fx.tree(), before, "nothing was written");
    // Back as previewed, but another article took the number the preview showed: refused too.
    fx.draft("seen.md", "---\ntitle: Seen\n---\nThe text the user read.\n");
    let other = fx.draft("other.md", "---\ntitle: Other\n---\nx\n");
    super::posted(&mut c, json!({"source": other, "project": "2026-01"}));
    let moved = super::draft_post(&mut c, save.clone());
    assert_eq!(error_code(&moved).as_deref(), Some("CONFLICT"), "{moved}");
    assert!(mcp_tests::text_of(&moved).contains("if_result_sha256"), "{moved}");
    // A fresh preview's Save draft files it.
    let preview = super::draft_post(&mut c, args.clone());
    let filed = super::posted(&mut c, save_draft(&preview, &args));
    assert_eq!(filed["action"], "created", "{filed}");
    assert!(fx.read(filed["article"].as_str().unwrap()).contains("The text the user read."));
    // A malformed hash is refused before anything is read.
    let mut bad = args.clone();
    bad.as_object_mut().unwrap().remove("dry_run");
    bad["if_source_sha256"] = json!("abc");
    assert_eq!(error_code(&super::draft_post(&mut c, bad)).as_deref(), Some("INVALID_ARGS"));
}
