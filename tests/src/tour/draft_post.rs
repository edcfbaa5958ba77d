//! Tour of `mcp-server-draft-post`: a manuscript filed with `draft_post`, edited and filed
//! again (the same numbered directory is updated, not a new one made), filed a third time
//! unchanged; `list_posts`; and the errors a model meets (a bad project, a missing manuscript, a
//! file outside the source directories).

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::{Value, json};

use super::Tour;
use crate::result::{is_error, structured};

/// The server's binary (and `serverInfo.name`).
pub const BINARY: &str = "mcp-server-draft-post";

/// A temporary directory removed on drop (the tour has no tempfile crate).
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir> {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let dir = std::env::temp_dir().join(format!("mcp-tour-draft-post-{}-{nanos}", std::process::id()));
        for sub in ["repo/projects/2026-01/33-earlier-post", "drafts"] {
            std::fs::create_dir_all(dir.join(sub)).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        Ok(TempDir(dir.canonicalize()?))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The structured `action` and `dir` of a result.
fn action_and_dir(r: &Value) -> (String, String) {
    let s = structured(r).unwrap_or(Value::Null);
    let get = |k: &str| s.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    (get("action"), get("dir"))
}

/// Runs the draft-post section.
pub fn run(t: &mut Tour) -> Result<()> {
    let dir = TempDir::new()?;
    let repo = dir.0.join("repo");
    std::fs::write(repo.join("projects/2026-01/33-earlier-post/article.md"), "---\ntitle: An earlier post\n---\n")?;
    let seed = dir.0.join("drafts/seed.md");
    std::fs::write(&seed, "---\ntitle: MCP and idempotency\ntags: [mcp]\n---\nFirst draft.\n")?;
    let seed = seed.display().to_string();

    let drafts = dir.0.join("drafts").display().to_string();
    let mut c = t.spawn(BINARY, &["--repo", &repo.display().to_string(), "--source-root", &drafts])?;
    t.initialize(&mut c, BINARY)?;
    t.tools_list(&mut c, &["draft_post", "list_posts"])?;

    let args = json!({"source": format!("FILE:{seed}"), "project": "2026-01"});
    let r = t.call(&mut c, "draft_post: a new manuscript gets the next number", "draft_post", args.clone())?;
    let (action, first_dir) = action_and_dir(&r);
    t.check(
        "created 34-mcp-and-idempotency",
        action == "created" && first_dir == "projects/2026-01/34-mcp-and-idempotency",
        &format!("action created in projects/2026-01/34-mcp-and-idempotency; got {action} in {first_dir}"),
    );

    t.note("the agent edits the manuscript (a new title and body) and submits the same path again");
    std::fs::write(&seed, "---\ntitle: MCP, idempotently\ntags: [mcp]\n---\nSecond draft.\n")?;
    let r = t.call(&mut c, "draft_post: the edited manuscript updates its article", "draft_post", args.clone())?;
    let (action, dir_now) = action_and_dir(&r);
    t.check(
        "updated in place, same directory",
        action == "updated" && dir_now == first_dir,
        &format!("action updated in {first_dir}; got {action} in {dir_now}"),
    );
    let s = structured(&r).unwrap_or(Value::Null);
    let counts = (s.get("lines_added").and_then(Value::as_u64), s.get("lines_removed").and_then(Value::as_u64));
    let diff = s.get("diff").and_then(Value::as_str).unwrap_or("");
    t.check(
        "the update says what changed (+2 -2 lines, a unified diff)",
        counts == (Some(2), Some(2)) && diff.contains("-First draft.\n+Second draft.\n"),
        &format!("+2 -2 and the diff; got {counts:?} and {diff:?}"),
    );

    let r = t.call(&mut c, "draft_post: nothing changed", "draft_post", args)?;
    let (action, dir_now) = action_and_dir(&r);
    t.check(
        "unchanged, nothing written",
        action == "unchanged" && dir_now == first_dir,
        &format!("action unchanged in {first_dir}; got {action} in {dir_now}"),
    );

    let r = t.call(&mut c, "list_posts", "list_posts", json!({"project": "2026-01"}))?;
    let count = structured(&r).and_then(|s| s.get("posts").and_then(Value::as_array).map(Vec::len)).unwrap_or(0);
    t.check("two articles, no copies", !is_error(&r) && count == 2, &format!("2 posts; got {count}"));

    let r = t.call(
        &mut c,
        "bad call: a project that is not one directory name",
        "draft_post",
        json!({"source": seed, "project": "../elsewhere"}),
    )?;
    t.expect_error("project \"../elsewhere\" is INVALID_ARGS", &r, "INVALID_ARGS");

    let missing = format!("FILE:{drafts}/no-such-seed.md");
    let r = t.call(&mut c, "bad call: no such manuscript", "draft_post", json!({"source": missing}))?;
    t.expect_error("a missing manuscript is NOT_FOUND", &r, "NOT_FOUND");

    let r = t.call(
        &mut c,
        "bad call: a file outside the source directories (a secret copied into the blog?)",
        "draft_post",
        json!({"source": "/etc/passwd"}),
    )?;
    t.expect_error("/etc/passwd is OUTSIDE_ROOT, and nothing is written", &r, "OUTSIDE_ROOT");

    let status = c.wait()?;
    t.check("exits cleanly when stdin closes", status.success(), &format!("exit status 0; got {status}"));
    Ok(())
}
