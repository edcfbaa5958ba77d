//! `list_posts`, and the warnings for what a scan skipped.

use super::{ARTICLE, Post, Repo, layout::parse_dir_name, scan::Depth};
use crate::{
    index::{ArticleState, Entry, Index},
    projects,
};
use mcp_shared::ToolError;

/// The most warnings a result carries (the rest are counted).
const MAX_WARNINGS: usize = 20;

impl Repo {
    /// Warnings for malformed articles (and, with `missing`, directories without an article).
    pub(super) fn warnings(index: &Index, missing: bool, only_project: Option<&str>) -> Vec<String> {
        let mut out = Vec::new();
        let mut more = 0usize;
        for (project, p) in &index.projects {
            if only_project.is_some_and(|only| only != project) {
                continue;
            }
            for (dir, entry) in &p.entries {
                let text = match &entry.state {
                    ArticleState::Bad { problem, .. } => format!(
                        "{}/{project}/{dir}/{ARTICLE}: {problem}; skipped (never rewritten: fix or remove it by hand)",
                        projects::PROJECTS
                    ),
                    ArticleState::Missing if missing => {
                        format!("{}/{project}/{dir} has no {ARTICLE}; skipped", projects::PROJECTS)
                    }
                    _ => continue,
                };
                if out.len() < MAX_WARNINGS {
                    out.push(text);
                } else {
                    more += 1;
                }
            }
        }
        if more > 0 {
            out.push(format!("… and {more} more"));
        }
        out
    }

    /// `list_posts`: every readable article (of `project`, if given), in project and number
    /// order, and warnings for what was skipped.
    pub fn list_posts(&self, project: Option<&str>) -> Result<(Vec<Post>, Vec<String>), ToolError> {
        let mut index = self.index();
        self.refresh(&mut index, Depth::Full)?;
        let mut posts = Vec::new();
        for (name, p) in &index.projects {
            if project.is_some_and(|only| only != name) {
                continue;
            }
            let mut entries: Vec<(&String, &Entry)> = p.entries.iter().collect();
            entries.sort_by(|a, b| (a.1.number, a.0).cmp(&(b.1.number, b.0)));
            for (dir, entry) in entries {
                if let ArticleState::Ok { source_id, title, listed, .. } = &entry.state {
                    posts.push(Post {
                        project: name.clone(),
                        number: entry.number,
                        slug: parse_dir_name(dir).map_or(String::new(), |(_, s)| s.to_owned()),
                        title: title.clone(),
                        date: listed.date.clone(),
                        status: listed.status.clone(),
                        source_id: source_id.clone(),
                        path: format!("{}/{name}/{dir}/{ARTICLE}", projects::PROJECTS),
                    });
                }
            }
        }
        let warnings = Self::warnings(&index, true, project);
        Ok((posts, warnings))
    }
}
