//! `draft_post {source, content?, attachments?, project?, slug?, dry_run?}`: files a manuscript
//! into `projects/<project>/NN-slug/article.md`, idempotently. The manuscript's path is its
//! identity (`source_id`): the same manuscript updates its article instead of making a new
//! directory. The manuscript is read from the server's disk, or sent as `content` by a client
//! that does not share it (then `source` is the client's own path of it, and the server never
//! opens it); its images are written beside the article (`crate::attach`).
//!
//! Result: `{action: created | updated | unchanged, project, number, slug, dir, article,
//! source_id}` (paths relative to the repository), plus `attachments` written, `warnings` for
//! image links left as they are and malformed articles elsewhere, and `dry_run` for a dry run.

use std::{borrow::Cow, sync::Arc};

use mcp_shared::{
    ContentItem, Tool, ToolContext, ToolError, ToolOutput, ToolResult, blocking,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{
    attach::{self, AttachmentInput},
    frontmatter, preview,
    repo::{Action, DraftRequest, Outcome, Submission, source_failure},
    slug::slugify,
    source,
    tools::rules,
    workspace::Places,
};

/// The input of `draft_post`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct DraftPostInput {
    /// Path of the manuscript: a UTF-8 Markdown file (.md, .markdown or .mdx) with optional YAML
    /// frontmatter, inside an allowed source directory and not in a hidden file or directory. A
    /// `FILE:` prefix is accepted. A relative path is resolved against the server's working
    /// directory (an absolute path is safest). The manuscript is only read, and its path is its
    /// identity: pass the same path every time you re-submit it. With `content`, this is your own
    /// path of the manuscript (on your machine); the server does not open it, and it is the
    /// identity all the same.
    #[garde(custom(rules::source))]
    #[schemars(length(min = 1))]
    pub source: String,
    /// The manuscript's text, when the server cannot read `source` (a remote server, an agent in a
    /// container): Markdown with optional YAML frontmatter, as the file would hold it. Pass the
    /// same `source` path with it every time.
    #[garde(skip)]
    #[serde(default)]
    pub content: Option<String>,
    /// With `content`: files the manuscript links (images), written beside the article at `path`,
    /// e.g. {"path": "img/fig.png", "data": "<base64>"} for `![figure](img/fig.png)`. A manuscript
    /// read from disk brings the images it links by itself.
    #[garde(skip)]
    #[serde(default)]
    pub attachments: Option<Vec<AttachmentInput>>,
    /// Project for a new article: one directory name under projects/ such as "2026-01" (letters,
    /// digits, `-`, `_`, `.`, not starting with `.`, at most 100 characters). Default: the current
    /// year-month. A manuscript that already has an article is updated where it is, whatever this
    /// says.
    #[garde(custom(rules::project))]
    #[schemars(length(min = 1, max = 100), regex(pattern = r"^[^./\\\s][^/\\\s]*$"))]
    #[serde(default)]
    pub project: Option<String>,
    /// Slug for a new article's directory `NN-slug` (lowercase a-z, 0-9 and `-`, at most 50
    /// characters; other text is turned into that, and it must hold at least one ASCII letter or
    /// digit). Default: the manuscript's frontmatter `slug`, else an ASCII slug of its `title`,
    /// else its file name, else `post`.
    #[garde(custom(rules::slug))]
    #[serde(default)]
    pub slug: Option<String>,
    /// Say what would happen (created at projects/P/NN-slug, updated with this diff, or
    /// unchanged, and the attachments) and write nothing. Default false.
    #[garde(skip)]
    #[serde(default)]
    pub dry_run: Option<bool>,
    /// Optional (the preview's Save draft sends it): the SHA-256 (hex) of the manuscript's text as the dry run read it; when it has another now, nothing is written and the call is refused with CONFLICT.
    #[garde(custom(rules::sha256))]
    #[serde(default)]
    pub if_source_sha256: Option<String>,
    /// Optional (the preview's Save draft sends it): the SHA-256 (hex) of what the dry run said would be filed (the article's path and text, its attachments); when the call would now file anything else, nothing is written and the call is refused with CONFLICT.
    #[garde(custom(rules::sha256))]
    #[serde(default)]
    pub if_result_sha256: Option<String>,
}

/// The SHA-256s that pin a call to its preview: the manuscript's text (what was read), and what
/// would be filed (the article's path, its text, each attachment's path and bytes).
fn fingerprints(submission: &Submission, outcome: &Outcome) -> (String, String) {
    use mcp_shared::view::sha256_hex;
    let source = sha256_hex(submission.manuscript.text.as_bytes());
    let article = frontmatter::compose_article(&submission.manuscript.text, &outcome.source_id)
        .map(|(text, _)| text)
        .unwrap_or_default();
    let mut filed = format!("{}\0{}", outcome.article, sha256_hex(article.as_bytes()));
    let mut attachments: Vec<_> = submission.attachments.iter().collect();
    attachments.sort_by(|a, b| a.path.cmp(&b.path));
    for attachment in attachments {
        filed.push_str(&format!("\0{}\0{}", attachment.path, sha256_hex(&attachment.bytes)));
    }
    (source, sha256_hex(filed.as_bytes()))
}

/// `if_source_sha256` and `if_result_sha256` against what the call would read and file now: a
/// `CONFLICT` naming what moved since the preview, before anything is written.
fn check_pinned(
    wanted: (Option<&str>, Option<&str>),
    now: &(String, String),
    shown: &str,
) -> Result<(), ToolError> {
    let same = |wanted: Option<&str>, now: &str| wanted.is_none_or(|w| w.eq_ignore_ascii_case(now));
    if !same(wanted.0, &now.0) {
        return Err(ToolError::new(
            mcp_shared::ErrorCode::Conflict,
            format!(
                "Nothing was written: the manuscript {shown} changed since the preview (its text's SHA-256 is now {}, not the {} given in `if_source_sha256`). Preview it again with dry_run, then decide.",
                now.0,
                wanted.0.unwrap_or_default()
            ),
        ));
    }
    if !same(wanted.1, &now.1) {
        return Err(ToolError::new(
            mcp_shared::ErrorCode::Conflict,
            format!(
                "Nothing was written: filing {shown} now would write something else than the preview showed (another article path, text or attachment; `if_result_sha256` is {}, the call would give {}). Preview it again with dry_run, then decide.",
                wanted.1.unwrap_or_default(),
                now.1
            ),
        ));
    }
    Ok(())
}

/// Where a call's manuscript comes from.
enum Origin {
    /// Its text, sent by the client.
    Content(String),
    /// The server's disk, within the source directories of the call's target.
    Disk,
}

/// Files a manuscript into the repository.
pub struct DraftPost {
    workspace: Arc<Places>,
}

impl DraftPost {
    /// The tool over `workspace`.
    pub fn new(workspace: Arc<Places>) -> Self {
        DraftPost { workspace }
    }
}

/// The current year-month, `YYYY-MM`, in local time: the default project.
pub fn default_project() -> String {
    jiff::ZonedDateTime::now().strftime("%Y-%m").to_string()
}

/// The one-line summary of an outcome.
fn summary(outcome: &Outcome, requested_project: Option<&str>, requested_slug: Option<&str>) -> String {
    let mut line = format!("{} {} (source_id {})", outcome.action.as_str(), outcome.article, outcome.source_id);
    if outcome.dry_run {
        line = format!("dry run, nothing was written: would be {line}");
    }
    match outcome.action {
        Action::Created => line.push_str(": a new article"),
        Action::Updated => {
            line.push_str(": the manuscript's article was rewritten in place");
            if let Some(change) = &outcome.change {
                line.push_str(&format!(" (+{} -{} lines)", change.lines_added, change.lines_removed));
            }
        }
        Action::Unchanged => line.push_str(": the article already has this content; nothing was written"),
    }
    if let Some(requested) = requested_project.filter(|p| *p != outcome.project) {
        line.push_str(&format!(
            "; it stays in project {} (`project` {requested:?} only places new articles)",
            outcome.project
        ));
    }
    if let Some(requested) = requested_slug.filter(|s| *s != outcome.slug && outcome.action != Action::Created) {
        line.push_str(&format!("; its directory keeps its name (`slug` {requested:?} only names new articles)"));
    }
    if !outcome.attachments.is_empty() {
        let verb = if outcome.dry_run { "would be written" } else { "written" };
        line.push_str(&format!("; attachments {verb}: {}", outcome.attachments.join(", ")));
    }
    line
}

impl Tool for DraftPost {
    type Params = DraftPostInput;

    fn name(&self) -> Cow<'static, str> {
        "draft_post".into()
    }

    fn description(&self) -> Cow<'static, str> {
        "File a Markdown manuscript into the repository as projects/<project>/NN-slug/article.md. \
         Idempotent: the manuscript's absolute path is its identity (source_id, stored in the \
         article's frontmatter), so submitting the same manuscript again after editing it updates \
         its article in place (action \"updated\", or \"unchanged\" when nothing changed) instead \
         of creating a new numbered directory. A new manuscript gets the next number of the \
         project (action \"created\"). The images it links are copied beside the article. When \
         the server cannot read your files (a remote server), pass the text as `content` (and the \
         images as `attachments`) with your own path as `source`. `dry_run: true` says what would \
         happen and writes nothing. Returns {action, project, number, slug, dir, article, \
         source_id, attachments} with paths relative to the repository."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Draft post")
            .read_only(false)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<Outcome>())
    }

    fn view(&self) -> Option<&'static mcp_shared::view::View> {
        Some(&preview::ARTICLE)
    }

    async fn run(&self, input: DraftPostInput, ctx: ToolContext) -> ToolResult {
        // `project` and `slug` were checked by their rules before the call ran.
        let requested_project = input.project.clone();
        let project = input.project.unwrap_or_else(default_project);
        let slug = input.slug.as_deref().map(slugify).filter(|s| !s.is_empty());
        let requested_slug = slug.clone();
        let dry_run = input.dry_run.unwrap_or(false);
        if input.content.is_none() && input.attachments.as_ref().is_some_and(|a| !a.is_empty()) {
            return Err(ToolError::invalid_args(
                "`attachments` go with `content`: a manuscript read from the server's disk brings the images it links \
                 by itself. Pass `content` too, or leave `attachments` out; nothing was written.",
            ));
        }
        if input.content.is_some() && !self.workspace.accepts_content() {
            return Err(ToolError::invalid_args(
                "This server files manuscripts from its own disk only (--no-content): pass `source` alone, the path \
                 of a manuscript in an allowed source directory, and no `content`; nothing was written.",
            ));
        }
        let limits = self.workspace.attachment_limits();
        let given =
            input.attachments.as_deref().map(|a| attach::from_input(a, limits)).transpose()?.unwrap_or_default();
        let pinned = (input.if_source_sha256, input.if_result_sha256);
        let request = DraftRequest { source: input.source, project, slug, dry_run };
        let target = self.workspace.target(&ctx).await?;
        // A manuscript sent as content needs no source directory: the server never opens its path.
        let origin = match input.content {
            Some(content) => Origin::Content(content),
            None => Origin::Disk,
        };
        let (base, max_bytes) = self.workspace.content_rules();
        let repo = Arc::clone(&target.repo);
        let workspace = Arc::clone(&self.workspace);
        let token = ctx.cancellation().clone();
        let outcome = blocking("Filing the article (it is now either fully written or untouched)", move || {
            let submission = match origin {
                Origin::Content(content) => {
                    let manuscript = source::manuscript_from_content(&request.source, content, &base, max_bytes)
                        .map_err(source_failure)?;
                    let warnings = attach::unprovided_links(&manuscript.text, &given);
                    Submission { manuscript, attachments: given, warnings }
                }
                Origin::Disk => {
                    // Opened here, off the runtime: the source directories are looked up once.
                    let sources = workspace.sources(&target)?;
                    let manuscript = source::read_manuscript(&sources, &request.source).map_err(source_failure)?;
                    let (attachments, warnings) = match &manuscript.dir {
                        Some(dir) => attach::from_links(&sources, dir, &manuscript.text, limits),
                        None => (Vec::new(), Vec::new()),
                    };
                    Submission { manuscript, attachments, warnings }
                }
            };
            if pinned.0.is_some() || pinned.1.is_some() {
                // What the call would file now, compared with what the preview showed.
                let preview = DraftRequest { dry_run: true, ..request.clone() };
                let would = repo.draft_post(&preview, &submission, &|| token.is_cancelled())?;
                let now = fingerprints(&submission, &would);
                check_pinned((pinned.0.as_deref(), pinned.1.as_deref()), &now, &submission.manuscript.shown)?;
            }
            let outcome = repo.draft_post(&request, &submission, &|| token.is_cancelled())?;
            // The article as filed (or as it would be), for the preview; a dry run's carries
            // what pins its Save draft to it.
            let hashes = fingerprints(&submission, &outcome);
            let view = frontmatter::compose_article(&submission.manuscript.text, &outcome.source_id).ok().map(
                |(text, _)| {
                    let mut view = preview::article(&outcome, &text, &submission.attachments);
                    if outcome.dry_run {
                        view["sourceSha256"] = serde_json::json!(hashes.0);
                        view["resultSha256"] = serde_json::json!(hashes.1);
                    }
                    view
                },
            );
            Ok::<_, ToolError>((outcome, view))
        })
        .await??;
        let (outcome, view) = outcome;
        let output = render(&outcome, requested_project.as_deref(), requested_slug.as_deref());
        Ok(match view {
            Some(view) => output.with_view(view),
            None => output,
        })
    }
}

/// The result of a successful call: the summary line, the diff of an update, the warnings,
/// then the structured content.
fn render(outcome: &Outcome, requested_project: Option<&str>, requested_slug: Option<&str>) -> ToolOutput {
    let mut output = ToolOutput::text(summary(outcome, requested_project, requested_slug));
    if let Some(change) = &outcome.change {
        output.content.push(ContentItem::Text { text: change.diff.clone() });
    }
    for warning in &outcome.warnings {
        output.content.push(ContentItem::Text { text: format!("warning: {warning}") });
    }
    match serde_json::to_value(outcome) {
        Ok(json) => output.content.push(ContentItem::Json { json }),
        Err(error) => tracing::error!(%error, "cannot serialise the result"),
    }
    output
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn outcome(action: Action) -> Outcome {
        Outcome {
            action,
            project: "2026-01".into(),
            number: 34,
            slug: "mcp-article".into(),
            dir: "projects/2026-01/34-mcp-article".into(),
            article: "projects/2026-01/34-mcp-article/article.md".into(),
            source_id: "0123456789abcdef".into(),
            warnings: Vec::new(),
            change: None,
            attachments: Vec::new(),
            dry_run: false,
        }
    }

    #[test]
    fn the_result_has_the_exact_shape_and_one_line() {
        let out = render(&outcome(Action::Created), None, None).into_call_tool_result();
        let v = serde_json::to_value(out).unwrap();
        assert_eq!(
            v["structuredContent"],
            json!({"action": "created", "project": "2026-01", "number": 34, "slug": "mcp-article",
                   "dir": "projects/2026-01/34-mcp-article",
                   "article": "projects/2026-01/34-mcp-article/article.md", "source_id": "0123456789abcdef"})
        );
        let first = v["content"][0]["text"].as_str().unwrap();
        assert!(!first.contains('\n'));
        assert!(first.starts_with("created projects/2026-01/34-mcp-article/article.md"), "{first}");
    }

    #[test]
    fn the_summary_says_when_the_project_argument_was_not_used() {
        let line = summary(&outcome(Action::Unchanged), Some("2026-02"), None);
        assert!(line.contains("stays in project 2026-01"), "{line}");
        assert!(!summary(&outcome(Action::Updated), Some("2026-01"), None).contains("stays"));
        let line = summary(&outcome(Action::Updated), None, Some("other"));
        assert!(line.contains("keeps its name"), "{line}");
        assert!(!summary(&outcome(Action::Created), None, Some("other")).contains("keeps"));
    }

    #[test]
    fn warnings_are_in_the_json_and_the_text() {
        let mut o = outcome(Action::Created);
        o.warnings.push("projects/x/01-a/article.md: malformed".into());
        let v = serde_json::to_value(render(&o, None, None).into_call_tool_result()).unwrap();
        assert_eq!(v["structuredContent"]["warnings"][0], "projects/x/01-a/article.md: malformed");
        assert!(v["content"][1]["text"].as_str().unwrap().starts_with("warning: "));
    }

    #[test]
    fn default_project_is_a_year_month() {
        let p = default_project();
        assert_eq!(p.len(), 7);
        assert_eq!(&p[4..5], "-");
        assert!(crate::repo::validate_project(&p).is_ok());
    }
}
