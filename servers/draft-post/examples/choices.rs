//! Measures the place where draft-post keeps its own code beside a crate that does the job, on a
//! repository made by `gen_repo` (10,000 articles): the frontmatter reader, `quick_meta` (a
//! `key: value` reader that gives up on anything unusual) with its fall-back, against
//! serde-saphyr alone, over every article's frontmatter.
//!
//! Two others were measured the same way and replaced by the crate they were raced against (see
//! the README): the first scan's thread pool (by rayon) and the saved index's text format (by
//! postcard; the race against serde_json and postcard is this file as of commit 836321d).
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
    path::Path,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
use cap_std::fs::Dir;
use mcp_server_draft_post::{
    frontmatter::{self, Located},
    projects::{self, Kind, View},
    repo::parse_dir_name,
};

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

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let repo = args.next().context("usage: choices REPO [ROUNDS]")?;
    let rounds: usize = args.next().map_or(Ok(9), |a| a.parse()).context("ROUNDS")?;
    let root = Dir::open_ambient_dir(&repo, cap_std::ambient_authority())?;
    let view = View::from_dir(root);
    let Some((projects, _)) = view.projects()? else { bail!("{repo} has no projects/") };

    // Every article's frontmatter, read as a scan reads it.
    let mut yamls: Vec<String> = Vec::new();
    let mut buf = Vec::new();
    for (project, kind) in projects::list(&projects, ".")? {
        if kind != Kind::Dir || project.starts_with('.') {
            continue;
        }
        for (dir, _) in projects::list(&projects, &project)? {
            if parse_dir_name(&dir).is_none() {
                continue;
            }
            let (filled, _, _) =
                projects::read_head_into(&projects, Path::new(&format!("{project}/{dir}/article.md")), &mut buf)?;
            let Located::Found { yaml_start, yaml_end, .. } = frontmatter::locate(&buf[..filled]) else { continue };
            yamls.push(String::from_utf8(buf[yaml_start..yaml_end].to_vec())?);
        }
    }
    eprintln!("{} articles, {rounds} rounds, medians", yamls.len());

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
    Ok(())
}
