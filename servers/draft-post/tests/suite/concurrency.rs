//! Several server processes at once on one repository: the same new manuscript makes exactly
//! one directory; different manuscripts get distinct numbers.

use std::collections::BTreeSet;

use mcp_tests::{StdioClient, is_error};
use serde_json::{Value, json};

use super::{Fixture, src};

/// Starts `n` servers, sends each its call without waiting, then collects every result.
fn all_at_once(fx: &Fixture, calls: Vec<Value>) -> Vec<Value> {
    let mut clients: Vec<StdioClient> = calls.iter().map(|_| fx.server()).collect();
    let ids: Vec<u64> = clients
        .iter_mut()
        .zip(&calls)
        .map(|(c, args)| c.send_request("tools/call", json!({"name": "draft_post", "arguments": args})).unwrap())
        .collect();
    clients
        .iter_mut()
        .zip(ids)
        .map(|(c, id)| {
            let response = c.wait_response(id).unwrap();
            let result = response["result"].clone();
            assert!(!is_error(&result), "{response}");
            result["structuredContent"].clone()
        })
        .collect()
}

#[test]
fn the_same_new_manuscript_from_several_processes_makes_one_directory() {
    for round in 0..3 {
        let fx = Fixture::new();
        fx.put("projects/2026-01/04-existing/article.md", "---\ntitle: x\n---\n");
        let seed = fx.draft("seed.md", &format!("---\ntitle: Seed {round}\n---\nbody\n"));
        let results = all_at_once(&fx, (0..6).map(|_| src(&seed)).collect());
        let created = results.iter().filter(|r| r["action"] == "created").count();
        let unchanged = results.iter().filter(|r| r["action"] == "unchanged").count();
        assert_eq!((created, unchanged), (1, 5), "{results:?}");
        let dirs: BTreeSet<String> = results.iter().map(|r| r["dir"].to_string()).collect();
        assert_eq!(dirs.len(), 1, "{results:?}");
        assert_eq!(fx.dirs("2026-01"), ["04-existing".to_owned(), format!("05-seed-{round}")]);
    }
}

#[test]
fn different_manuscripts_from_several_processes_get_distinct_numbers() {
    let fx = Fixture::new();
    let sources: Vec<String> = (0..6).map(|i| fx.draft(&format!("d{i}.md"), &format!("# Draft {i}\n"))).collect();
    let results = all_at_once(&fx, sources.iter().map(|s| src(s)).collect());
    assert!(results.iter().all(|r| r["action"] == "created"), "{results:?}");
    let numbers: BTreeSet<u64> = results.iter().map(|r| r["number"].as_u64().unwrap()).collect();
    assert_eq!(numbers, (1..=6).collect(), "{results:?}");
    assert_eq!(fx.dirs("2026-01").len(), 6);
    // Each article is its own manuscript's.
    for (source, result) in sources.iter().zip(&results) {
        let article = fx.read(result["article"].as_str().unwrap());
        assert!(article.contains(&super::id_of(source)), "{article}");
    }
}

#[test]
fn a_mix_of_new_and_repeated_manuscripts_stays_consistent() {
    let fx = Fixture::new();
    let a = fx.draft("a.md", "# A\n");
    let b = fx.draft("b.md", "# B\n");
    let calls = vec![src(&a), src(&b), src(&a), src(&b), src(&a), src(&b)];
    let results = all_at_once(&fx, calls);
    assert_eq!(results.iter().filter(|r| r["action"] == "created").count(), 2, "{results:?}");
    assert_eq!(fx.dirs("2026-01").len(), 2);
}
