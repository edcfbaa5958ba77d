//! Generates a repository of many articles, for the benchmark of `draft_post`.
//!
//! ```text
//! cargo run --release -p mcp-server-draft-post --example gen_repo -- DIR [ARTICLES] [PROJECTS]
//! ```
//!
//! Writes `DIR/repo/projects/<project>/NN-slug/article.md` (ARTICLES in all, default 10,000,
//! spread over PROJECTS projects, default 100), `DIR/drafts/bench.md` whose article is already
//! one of them (so filing it again is an upsert among them all), and `DIR/drafts/new-NNNN.md`
//! (1,000 manuscripts that are not filed yet).

// A command-line tool: its report goes to stderr.
#![allow(clippy::print_stderr)]

use std::path::Path;

use anyhow::{Context, Result};
use mcp_server_draft_post::{
    frontmatter::{compose_article, yaml_scalar},
    repo::dir_name,
    source::source_id,
};

const BODY: &str = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt \
                    ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation.\n";

fn write(path: &Path, text: &str) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).with_context(|| parent.display().to_string())?;
    }
    std::fs::write(path, text).with_context(|| path.display().to_string())
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().context("usage: gen_repo DIR [ARTICLES] [PROJECTS]")?;
    let articles: usize = args.next().map_or(Ok(10_000), |a| a.parse()).context("ARTICLES")?;
    let projects: usize = args.next().map_or(Ok(100), |a| a.parse()).context("PROJECTS")?.max(1);
    let dir = Path::new(&dir);
    std::fs::create_dir_all(dir)?;
    let dir = std::fs::canonicalize(dir)?;
    let repo = dir.join("repo");
    anyhow::ensure!(!repo.exists(), "{} exists already; pick an empty DIR", repo.display());

    let per_project = articles.div_ceil(projects);
    let bench = dir.join("drafts/bench.md");
    let bench_text = "---\ntitle: Benchmark manuscript\ndate: 2026-01-15\ntags: [bench]\n---\n\nThe body.\n";
    write(&bench, bench_text)?;
    let bench_id = source_id(&bench);
    let (bench_article, _) = compose_article(bench_text, &bench_id)?;
    let bench_at = (projects / 2, per_project / 2);

    let mut written = 0;
    for p in 0..projects {
        let project = format!("{}-{:02}", 2017 + p / 12, p % 12 + 1);
        for n in 1..=per_project {
            if written == articles {
                break;
            }
            written += 1;
            let path = if (p, n) == bench_at {
                repo.join(format!("projects/{project}/{}/article.md", dir_name(n as u32, "benchmark-manuscript")))
            } else {
                repo.join(format!("projects/{project}/{}/article.md", dir_name(n as u32, &format!("article-{p}-{n}"))))
            };
            let text = if (p, n) == bench_at {
                bench_article.clone()
            } else {
                // As the server writes it: quoted when YAML would read it as a number.
                let id = yaml_scalar(&source_id(Path::new(&format!("/elsewhere/drafts/{p}/{n}.md"))));
                format!(
                    "---\ntitle: \"Article {n} of {project}: notes\"\ndate: {}-{:02}-{:02}\ntags: [rust, mcp, notes]\n\
                     draft: false\nsource_id: {id}\n---\n\n# Article {n}\n\n{}",
                    2017 + p / 12,
                    p % 12 + 1,
                    n % 28 + 1,
                    BODY.repeat(12)
                )
            };
            write(&path, &text)?;
        }
    }
    for i in 0..1000 {
        write(&dir.join(format!("drafts/new-{i:04}.md")), &format!("---\ntitle: New manuscript {i}\n---\nbody {i}\n"))?;
    }
    eprintln!("{written} articles in {} projects under {}", projects, repo.display());
    eprintln!("manuscript already filed: {} (source_id {bench_id})", bench.display());
    eprintln!("manuscripts not filed yet: {}/drafts/new-0000.md … new-0999.md", dir.display());
    Ok(())
}
