//! Measures the places where draft-post has its own code beside a crate that does the job, on a
//! repository made by `gen_repo` (10,000 articles), so that each is kept only with a reason:
//!
//! 1. the frontmatter reader: `quick_meta` (a `key: value` reader that gives up on anything
//!    unusual) with its fall-back, against serde-saphyr alone, over every article's frontmatter;
//! 2. the saved index: its own text format against serde_json and postcard, encoding and
//!    decoding the index of every article;
//!
//! (A third, the first scan's own thread pool, measured no better than rayon here and was
//! replaced by it; see the README.)
//!
//! ```text
//! cargo run --release -p mcp-server-draft-post --example gen_repo -- /tmp/dpb 10000 100
//! cargo run --release -p mcp-server-draft-post --example choices -- /tmp/dpb/repo [ROUNDS]
//! ```
//!
//! Each measure is the median of ROUNDS (default 9) runs, the contenders alternating.

// A command-line tool: its report goes to stderr.
#![allow(clippy::print_stderr)]

use std::{
    collections::BTreeMap,
    path::Path,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
use cap_std::fs::Dir;
use mcp_server_draft_post::{
    frontmatter::{self, Located},
    index::{self, ArticleState, Entry, Index, ProjectIndex, Seen},
    repo::parse_dir_name,
    view::{self, Kind, Stamp, View},
};
use serde::{Deserialize, Serialize};

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Runs `a` and `b` alternately `rounds` times; their median times.
fn race(rounds: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (Duration, Duration) {
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        a();
        ta.push(t.elapsed());
        let t = Instant::now();
        b();
        tb.push(t.elapsed());
    }
    (median(ta), median(tb))
}

fn report(what: &str, ours: &str, theirs: &str, (a, b): (Duration, Duration)) {
    eprintln!(
        "{what}: {ours} {:.2} ms, {theirs} {:.2} ms ({:.2}x)",
        a.as_secs_f64() * 1e3,
        b.as_secs_f64() * 1e3,
        b.as_secs_f64() / a.as_secs_f64()
    );
}

/// The index as serde_json would store it: the same fields, derived.
#[derive(Serialize, Deserialize)]
struct JsonIndex {
    projects_ino: u64,
    seen: Option<JsonSeen>,
    projects: BTreeMap<String, JsonProject>,
}

#[derive(Serialize, Deserialize)]
struct JsonSeen {
    mtime_ns: i128,
    len: u64,
    ino: u64,
    is_dir: bool,
    at: i128,
}

#[derive(Serialize, Deserialize)]
struct JsonProject {
    seen: Option<JsonSeen>,
    entries: BTreeMap<String, JsonEntry>,
}

#[derive(Serialize, Deserialize)]
struct JsonEntry {
    number: u32,
    seen: Option<JsonSeen>,
    source_id: Option<String>,
    title: Option<String>,
}

fn json_seen(seen: Option<&Seen>) -> Option<JsonSeen> {
    seen.map(|s| JsonSeen {
        mtime_ns: s.stamp.mtime_ns,
        len: s.stamp.len,
        ino: s.stamp.ino,
        is_dir: s.stamp.is_dir,
        at: s.at,
    })
}

fn seen_back(s: Option<&JsonSeen>) -> Option<Seen> {
    s.map(|s| Seen {
        stamp: Stamp { mtime_ns: s.mtime_ns, len: s.len, ino: s.ino, is_dir: s.is_dir, is_symlink: false },
        at: s.at,
    })
}

fn to_json(index: &Index, projects_ino: u64) -> Vec<u8> {
    serde_json::to_vec(&to_serde(index, projects_ino)).unwrap_or_default()
}

fn to_postcard(index: &Index, projects_ino: u64) -> Vec<u8> {
    postcard::to_allocvec(&to_serde(index, projects_ino)).unwrap_or_default()
}

fn from_json(bytes: &[u8]) -> Option<Index> {
    from_serde(serde_json::from_slice(bytes).ok()?)
}

fn from_postcard(bytes: &[u8]) -> Option<Index> {
    from_serde(postcard::from_bytes(bytes).ok()?)
}

fn to_serde(index: &Index, projects_ino: u64) -> JsonIndex {
    let projects = index
        .projects
        .iter()
        .map(|(name, p)| {
            let entries = p
                .entries
                .iter()
                .map(|(dir, e)| {
                    let (seen, source_id, title) = match &e.state {
                        ArticleState::Ok { seen, source_id, title } => {
                            (json_seen(Some(seen)), source_id.clone(), title.clone())
                        }
                        _ => (None, None, None),
                    };
                    (dir.clone(), JsonEntry { number: e.number, seen, source_id, title })
                })
                .collect();
            (name.clone(), JsonProject { seen: json_seen(p.seen.as_ref()), entries })
        })
        .collect();
    JsonIndex { projects_ino, seen: json_seen(index.seen.as_ref()), projects }
}

fn from_serde(json: JsonIndex) -> Option<Index> {
    let mut index = Index { seen: seen_back(json.seen.as_ref()), ..Index::default() };
    for (name, p) in json.projects {
        let entries = p
            .entries
            .into_iter()
            .map(|(dir, e)| {
                let state = match seen_back(e.seen.as_ref()) {
                    Some(seen) => ArticleState::Ok { seen, source_id: e.source_id, title: e.title },
                    None => ArticleState::Unread,
                };
                (dir, Entry { number: e.number, state })
            })
            .collect();
        index.projects.insert(name, ProjectIndex { seen: seen_back(p.seen.as_ref()), entries });
    }
    Some(index)
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let repo = args.next().context("usage: choices REPO [ROUNDS]")?;
    let rounds: usize = args.next().map_or(Ok(9), |a| a.parse()).context("ROUNDS")?;
    let root = Dir::open_ambient_dir(&repo, cap_std::ambient_authority())?;
    let view = View::from_dir(root);
    let Some((projects, projects_stamp)) = view.projects()? else { bail!("{repo} has no projects/") };

    // Every article: its head, and the index a scan builds.
    let mut yamls: Vec<String> = Vec::new();
    let mut projects_read = 0;
    let mut index = Index::default();
    let mut buf = Vec::new();
    for (project, kind) in view::list(&projects, ".")? {
        if kind != Kind::Dir || project.starts_with('.') {
            continue;
        }
        let mut p = ProjectIndex {
            seen: view::lstat(&projects, &project)?.map(|stamp| Seen { stamp, at: 0 }),
            ..ProjectIndex::default()
        };
        for (dir, _) in view::list(&projects, &project)? {
            let Some((number, _)) = parse_dir_name(&dir) else { continue };
            let (filled, _, stamp) =
                view::read_head_into(&projects, Path::new(&format!("{project}/{dir}/article.md")), &mut buf)?;
            let Located::Found { yaml_start, yaml_end, .. } = frontmatter::locate(&buf[..filled]) else { continue };
            let yaml = String::from_utf8(buf[yaml_start..yaml_end].to_vec())?;
            let meta = frontmatter::parse_meta(&yaml, 2)?;
            p.entries.insert(
                dir.clone(),
                Entry {
                    number,
                    state: ArticleState::Ok {
                        seen: Seen { stamp, at: 0 },
                        source_id: meta.source_id,
                        title: meta.title,
                    },
                },
            );
            yamls.push(yaml);
        }
        index.projects.insert(project.clone(), p);
        projects_read += 1;
    }
    index.seen = Some(Seen { stamp: projects_stamp, at: 0 });
    eprintln!("{} articles in {projects_read} projects, {rounds} rounds, medians", yamls.len());

    // 1. The frontmatter reader.
    for yaml in &yamls {
        if frontmatter::read_meta(yaml, 2)? != frontmatter::parse_meta(yaml, 2)? {
            bail!("the readers disagree on {yaml:?}");
        }
    }
    let quick_hits = yamls.iter().filter(|y| frontmatter::quick_meta(y).is_some()).count();
    let times = race(
        rounds,
        || {
            for yaml in &yamls {
                std::hint::black_box(frontmatter::read_meta(yaml, 2).ok());
            }
        },
        || {
            for yaml in &yamls {
                std::hint::black_box(frontmatter::parse_meta(yaml, 2).ok());
            }
        },
    );
    report(
        &format!("frontmatter of every article ({quick_hits} read by quick_meta)"),
        "quick_meta + fall-back",
        "serde-saphyr",
        times,
    );

    // 2. The saved index.
    let ino = projects_stamp.ino;
    let ours = index::to_disk(&index, ino);
    let json = to_json(&index, ino);
    let back = index::from_disk(&ours, ino).context("own format round trip")?;
    let json_back = from_json(&json).context("json round trip")?;
    if back.article_count() != index.article_count() || json_back.article_count() != index.article_count() {
        bail!("a round trip lost articles");
    }
    let post = to_postcard(&index, ino);
    if from_postcard(&post).map(|i| i.article_count()) != Some(index.article_count()) {
        bail!("the postcard round trip lost articles");
    }
    eprintln!(
        "saved index: own format {} bytes, serde_json {} bytes, postcard {} bytes",
        ours.len(),
        json.len(),
        post.len()
    );
    report(
        "save the index (encode)",
        "own format",
        "serde_json",
        race(
            rounds,
            || drop(std::hint::black_box(index::to_disk(&index, ino))),
            || drop(std::hint::black_box(to_json(&index, ino))),
        ),
    );
    report(
        "load the index (decode)",
        "own format",
        "serde_json",
        race(
            rounds,
            || drop(std::hint::black_box(index::from_disk(&ours, ino))),
            || drop(std::hint::black_box(from_json(&json))),
        ),
    );
    report(
        "save the index (encode)",
        "own format",
        "postcard",
        race(
            rounds,
            || drop(std::hint::black_box(index::to_disk(&index, ino))),
            || drop(std::hint::black_box(to_postcard(&index, ino))),
        ),
    );
    report(
        "load the index (decode)",
        "own format",
        "postcard",
        race(
            rounds,
            || drop(std::hint::black_box(index::from_disk(&ours, ino))),
            || drop(std::hint::black_box(from_postcard(&post))),
        ),
    );

    Ok(())
}
