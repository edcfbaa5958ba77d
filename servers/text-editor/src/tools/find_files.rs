//! `find_files`: files whose path matches a glob, under the workspace, most recently modified
//! first (what a model looking for "the file it was just working on" wants first), one absolute
//! path per line. `.gitignore`d and hidden paths are skipped and symlinks are not followed, as in
//! `search_text` (the shared sandbox's walker).

use std::{borrow::Cow, path::PathBuf, sync::Arc, time::SystemTime};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use mcp_shared::{
    ErrorCode, Tool, ToolContext, ToolOutput, ToolResult, blocking,
    reexports::rmcp::model::ToolAnnotations,
    sandbox::{Sandbox, WalkOptions},
};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use crate::{error::ToolError, tools::search_text, workspace::EditorRoots};

/// The default `limit`.
pub const DEFAULT_LIMIT: usize = 100;
/// The largest `limit`.
pub const MAX_LIMIT: usize = 1_000;

/// The files to find. Unknown fields are ignored.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[garde(allow_unvalidated)]
pub struct FindFilesInput {
    /// A glob over paths relative to `path`: `**/*.rs`, `src/**/test_*.py`, `*.md`. A pattern without `/` matches a file name at any depth (`*.md` finds every Markdown file).
    pub pattern: String,
    /// The directory to look in, absolute or relative to the first root. Default: every root.
    #[serde(default)]
    pub path: Option<String>,
    /// The most paths listed (1 to 1000). Default 100; the rest are counted.
    #[serde(default)]
    pub limit: Option<u32>,
}

/// The tool.
pub struct FindFiles {
    workspace: Arc<EditorRoots>,
}

impl FindFiles {
    /// The tool over `workspace`.
    pub fn new(workspace: Arc<EditorRoots>) -> FindFiles {
        FindFiles { workspace }
    }
}

/// The tool's section of the guide, with `{root}` to fill in.
const GUIDE: &str = r##"
## Finding files: `find_files`

List files whose path matches a glob, most recently modified first.

**Parameters:**
- `pattern`: `**/*.rs`, `src/**/test_*.py`; without `/` (`*.md`) it matches names at any depth (required)
- `path`: the directory to look in (default: the whole workspace); `limit` (default 100)

**Example:**
```json
{"pattern": "**/*.toml", "path": "{root}"}
```
"##;

/// The compiled pattern: a path glob, or (without `/`) a name glob.
struct Pattern {
    matcher: GlobSet,
    by_name: bool,
}

impl Pattern {
    fn new(pattern: &str) -> Result<Pattern, ToolError> {
        if pattern.is_empty() {
            return Err(ToolError::new(ErrorCode::InvalidArgs, "`pattern` is empty: give a glob such as `**/*.rs`."));
        }
        if pattern.len() > search_text::MAX_PATTERN_BYTES {
            return Err(ToolError::new(
                ErrorCode::InvalidArgs,
                format!(
                    "`pattern` is {} bytes long; at most {} are accepted. Give a shorter glob, e.g. `**/*.rs`.",
                    pattern.len(),
                    search_text::MAX_PATTERN_BYTES
                ),
            ));
        }
        let invalid = |e: globset::Error| {
            // The error quotes the glob: a long one is not repeated whole.
            let shown: String = pattern.chars().take(200).collect();
            let more = if shown.len() < pattern.len() { "…" } else { "" };
            let why = e.kind().to_string();
            ToolError::new(
                ErrorCode::InvalidArgs,
                format!("`pattern` {shown:?}{more} is not a valid glob: {why}. Example: `**/*.rs`."),
            )
        };
        let glob = GlobBuilder::new(pattern).literal_separator(true).build().map_err(invalid)?;
        // A set, not `compile_matcher`: a glob whose regex is too large to compile is an error
        // here, where `compile_matcher` panics.
        let matcher = GlobSetBuilder::new().add(glob).build().map_err(invalid)?;
        Ok(Pattern { matcher, by_name: !pattern.contains('/') })
    }

    fn matches(&self, rel: &std::path::Path) -> bool {
        if self.by_name {
            rel.file_name().is_some_and(|name| self.matcher.is_match(name))
        } else {
            self.matcher.is_match(rel)
        }
    }
}

/// The matching files, newest first (then by path); and how many matched in all.
fn find(
    sandbox: &Sandbox,
    path: Option<&str>,
    pattern: &Pattern,
    limit: usize,
    cancel: &CancellationToken,
) -> Result<(Vec<PathBuf>, usize), ToolError> {
    let mut found: Vec<(SystemTime, PathBuf)> = Vec::new();
    for place in search_text::places_of(sandbox, path)? {
        let walked = sandbox.each_file(&place.0, &WalkOptions::default(), &mut |file| {
            if pattern.matches(&file.rel) {
                let modified = file
                    .metadata()
                    .ok()
                    .and_then(|m| m.modified().ok())
                    .map_or(SystemTime::UNIX_EPOCH, |t| t.into_std());
                found.push((modified, place.1.join(&file.rel)));
            }
            // Stops the walk once the call timed out or was cancelled.
            !cancel.is_cancelled()
        });
        walked.map_err(|e| match e {
            mcp_shared::sandbox::SandboxError::NotADirectory { .. } => ToolError::new(
                ErrorCode::InvalidArgs,
                format!("{} is a file, not a directory: give the directory to look in as `path`.", place.1.display()),
            ),
            other => other.into(),
        })?;
        if cancel.is_cancelled() {
            return Err(ToolError::new(ErrorCode::Cancelled, "The search was cancelled."));
        }
    }
    let total = found.len();
    found.sort_unstable_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    Ok((found.into_iter().take(limit).map(|(_, p)| p).collect(), total))
}

/// The tool's description.
pub const DESCRIPTION: &str = "Find files by path glob under the workspace (`**/*.rs`, `src/**/test_*.py`; a pattern without `/`, like `*.md`, matches file names at any depth). One absolute path per line, most recently modified first. At most `limit` paths (default 100), then a line saying how many more matched. Hidden files and .gitignored paths are skipped; symlinks are not followed.";

impl Tool for FindFiles {
    type Params = FindFilesInput;

    fn name(&self) -> Cow<'static, str> {
        "find_files".into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("`find_files` lists files matching a glob (`**/*.rs`), newest first.".into())
    }

    fn guide(&self) -> Option<Cow<'static, str>> {
        Some(GUIDE.into())
    }

    fn description(&self) -> Cow<'static, str> {
        DESCRIPTION.into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Find files").read_only(true).destructive(false).idempotent(true).open_world(false)
    }

    async fn run(&self, input: FindFilesInput, ctx: ToolContext) -> ToolResult {
        let pattern = Pattern::new(&input.pattern)?;
        let limit = input.limit.map_or(DEFAULT_LIMIT, |l| l as usize);
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(ToolError::invalid_args(format!("`limit` is {limit}; it must be 1 to {MAX_LIMIT}.")));
        }
        let sandbox = self.workspace.sandbox(&ctx).await?;
        let path = input.path.clone();
        let cancel = ctx.cancellation().clone();
        let (paths, total) =
            blocking("The search", move || find(&sandbox, path.as_deref(), &pattern, limit, &cancel)).await??;
        if total == 0 {
            return Ok(ToolOutput::text(format!(
                "No files match {:?} (hidden and .gitignored paths are skipped). Try a broader pattern, e.g. `**/*{}`.",
                input.pattern,
                input.pattern.rsplit_once('.').map(|(_, ext)| format!(".{ext}")).unwrap_or_default()
            )));
        }
        let mut out: String =
            paths.iter().map(|p| format!("{}\n", mcp_shared::sandbox::shown_name(p.as_os_str()))).collect();
        if total > paths.len() {
            out.push_str(&format!(
                "[{} more files match, not shown ({total} in all, the {} most recently modified shown). Narrow `pattern` or `path`, or raise `limit` (at most {MAX_LIMIT}).]\n",
                total - paths.len(),
                paths.len()
            ));
        }
        Ok(ToolOutput::text(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_without_a_slash_matches_names_at_any_depth() {
        let p = Pattern::new("*.rs").unwrap();
        assert!(p.matches(std::path::Path::new("src/deep/a.rs")));
        let p = Pattern::new("src/*.rs").unwrap();
        assert!(p.matches(std::path::Path::new("src/a.rs")));
        assert!(!p.matches(std::path::Path::new("src/deep/a.rs")), "`*` does not cross `/`");
        let p = Pattern::new("**/*.rs").unwrap();
        assert!(p.matches(std::path::Path::new("src/deep/a.rs")) && p.matches(std::path::Path::new("a.rs")));
        assert!(Pattern::new("[").is_err());
    }

    /// A glob whose regex is too large used to panic inside globset (`compile_matcher`).
    #[test]
    fn huge_globs_are_refused_not_panicked_on() {
        let long = Pattern::new(&"*a".repeat(500_000)).err().unwrap();
        assert_eq!(long.code, ErrorCode::InvalidArgs);
        assert!(long.message.contains("at most 16384"), "{}", long.message);
        // Under the length bound: compiled (as a set, which reports what it cannot compile), or
        // refused without echoing the glob whole.
        assert!(Pattern::new(&"?".repeat(8_000)).is_ok());
        let error = Pattern::new(&format!("[{}", "a".repeat(10_000))).err().unwrap();
        assert_eq!(error.code, ErrorCode::InvalidArgs);
        assert!(error.message.len() < 600, "the glob is not echoed whole: {}", error.message);
    }

    #[test]
    fn newest_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("old.rs"), "").unwrap();
        std::fs::write(root.join("new.rs"), "").unwrap();
        std::fs::write(root.join("x.txt"), "").unwrap();
        let old = std::fs::File::options().write(true).open(root.join("old.rs")).unwrap();
        old.set_modified(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000)).unwrap();
        let sandbox = Sandbox::new([&root]).unwrap();
        let none = CancellationToken::new();
        let (paths, total) = find(&sandbox, None, &Pattern::new("*.rs").unwrap(), 10, &none).unwrap();
        assert_eq!(paths, vec![root.join("new.rs"), root.join("old.rs")]);
        assert_eq!(total, 2);
        let (paths, total) = find(&sandbox, None, &Pattern::new("*.rs").unwrap(), 1, &none).unwrap();
        assert_eq!((paths.len(), total), (1, 2));
    }
}
