//! Two `--http --stateless` replicas on one repository, as behind a load balancer: concurrent
//! `draft_post` calls of one manuscript, spread over both, make exactly one article (the
//! repository's file lock holds across processes); the rest find it unchanged.

use std::{
    sync::{Arc, Barrier},
    time::Duration,
};

use mcp_tests::{StdioClient, http::HttpSession, is_error};
use serde_json::Value;

use super::{BIN, Fixture, src};

const WAIT: Duration = Duration::from_secs(30);

/// A stateless replica on the fixture's repository; its URL.
fn replica(fx: &Fixture) -> (StdioClient, String) {
    let drafts = fx.root().join("drafts");
    let client = StdioClient::builder(BIN)
        .arg("--repo")
        .arg(fx.repo())
        .arg("--source-root")
        .arg(&drafts)
        .args(["--http", "127.0.0.1:0", "--stateless"])
        .current_dir(fx.root())
        .env("TZ", "UTC")
        .env("RUST_LOG", "warn,mcp_shared::transport::http=info")
        .spawn()
        .unwrap();
    let log = client.wait_for_stderr("/mcp").unwrap();
    let start = log.find("http://").unwrap();
    let end = start + log[start..].find("/mcp").unwrap() + "/mcp".len();
    let url = log[start..end].to_owned();
    (client, url)
}

#[test]
fn concurrent_upserts_through_two_stateless_replicas_make_one_article() {
    for round in 0..3 {
        let fx = Fixture::new();
        let seed = fx.draft("seed.md", &format!("---\ntitle: Replicated {round}\n---\nbody\n"));
        let (_a, url_a) = replica(&fx);
        let (_b, url_b) = replica(&fx);
        let calls = 8;
        let barrier = Arc::new(Barrier::new(calls));
        let threads: Vec<_> = (0..calls)
            .map(|i| {
                let url = if i % 2 == 0 { url_a.clone() } else { url_b.clone() };
                let (barrier, args) = (Arc::clone(&barrier), src(&seed));
                std::thread::spawn(move || {
                    let mut session = HttpSession::open(&url, None, WAIT).unwrap();
                    assert_eq!(session.session, None, "stateless: no session id");
                    barrier.wait();
                    session.call_tool("draft_post", &args).unwrap()
                })
            })
            .collect();
        let results: Vec<Value> = threads.into_iter().map(|t| t.join().unwrap()["result"].clone()).collect();
        assert!(results.iter().all(|r| !is_error(r)), "{results:?}");
        let action = |r: &Value| r["structuredContent"]["action"].as_str().unwrap_or_default().to_owned();
        let created = results.iter().filter(|r| action(r) == "created").count();
        let unchanged = results.iter().filter(|r| action(r) == "unchanged").count();
        assert_eq!((created, unchanged), (1, calls - 1), "{results:?}");
        assert_eq!(fx.dirs("2026-01"), [format!("01-replicated-{round}")]);
    }
}
