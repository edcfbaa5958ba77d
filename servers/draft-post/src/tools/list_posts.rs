//! `list_posts {project?}`: every article of the repository (or of one project) with its
//! project, number, slug, title, source_id and path. Read-only.

use std::{borrow::Cow, sync::Arc};

use mcp_shared::{
    ErrorCode, Tool, ToolContext, ToolError, ToolOutput, ToolResult, blocking,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{repo::Post, tools::rules, workspace::Places};

/// The input of `list_posts`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct ListPostsInput {
    /// Only this project (e.g. "2026-01": one directory name of letters, digits, `-`, `_`, `.`,
    /// not starting with `.`, at most 100 characters). Default: every project.
    #[garde(custom(rules::project))]
    #[schemars(length(min = 1, max = 100), regex(pattern = r"^[^./\\\s][^/\\\s]*$"))]
    #[serde(default)]
    pub project: Option<String>,
}

/// Lists the articles.
pub struct ListPosts {
    workspace: Arc<Places>,
}

impl ListPosts {
    /// The tool over `workspace`.
    pub fn new(workspace: Arc<Places>) -> Self {
        ListPosts { workspace }
    }
}

/// The structured result of `list_posts`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ListPostsOutput {
    /// The articles, in project and number order.
    pub posts: Vec<Post>,
    /// What was skipped (only when something was).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl Tool for ListPosts {
    type Params = ListPostsInput;

    fn name(&self) -> Cow<'static, str> {
        "list_posts".into()
    }

    fn description(&self) -> Cow<'static, str> {
        "List the articles under projects/ (or of one project), in project and number order: \
         {posts: [{project, number, slug, title?, date?, status?, source_id?, path}]} (title, date, \
         status and source_id as the article's frontmatter writes them, absent when it has none). Articles that cannot be read \
         (malformed frontmatter) are skipped and named in `warnings`."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("List posts")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<ListPostsOutput>())
    }

    fn view(&self) -> Option<&'static mcp_shared::view::View> {
        Some(&crate::preview::POSTS)
    }

    async fn run(&self, input: ListPostsInput, ctx: ToolContext) -> ToolResult {
        let repo = self.workspace.target(&ctx).await?.repo;
        let project = input.project.clone();
        let (posts, warnings) = blocking("Listing the posts", move || repo.list_posts(project.as_deref())).await??;
        let scope = match &input.project {
            Some(p) => format!("project {p}"),
            None => "projects/".to_owned(),
        };
        let noun = if posts.len() == 1 { "article" } else { "articles" };
        let mut text = format!("{} {noun} in {scope}", posts.len());
        if !warnings.is_empty() {
            text.push_str(&format!("; {} skipped (see warnings)", warnings.len()));
        }
        match serde_json::to_value(ListPostsOutput { posts, warnings }) {
            Ok(value) => Ok(ToolOutput::text_and_json(text, value)),
            Err(error) => {
                tracing::error!(%error, "cannot serialise the list");
                Err(ToolError::new(ErrorCode::InternalError, "Internal error in list_posts; call it again."))
            }
        }
    }
}
