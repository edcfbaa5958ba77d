//! `mcp-server-text-editor changes`: the changes the writing tools made in the roots, from the
//! change journal: by session (its number, the client, when it started, whether it still runs,
//! its changes, files and lines), then by file; `--diff` adds each file's combined diff,
//! `--json` prints the data `list_changes` gives.

use serde_json::Value;

use super::{Place, Refusal, local, point, table};
use crate::{
    editor::Origin,
    tools::list_changes::{Point, span_for},
};

/// Show the changes made through the servers' writing tools, by session and by file.
#[derive(Debug, Clone, clap::Args)]
pub struct Changes {
    /// The roots, the journal, the files.
    #[command(flatten)]
    pub place: Place,

    /// Only the changes after this point: a change number, or `session:N` (since session N
    /// began). Default: every change the journal holds.
    #[arg(long, value_name = "POINT", value_parser = point)]
    pub since: Option<Point>,

    /// Show each file's combined diff (from the point to now) too.
    #[arg(long)]
    pub diff: bool,
}

impl Changes {
    /// Runs the command: what to print on stdout.
    pub fn run(&self) -> Result<String, Refusal> {
        let since = self.since.unwrap_or(Point::Change(0));
        if since == Point::ThisSession {
            return Err(Refusal::usage(
                "`--since session` names the caller's own session, and a command has none: pass `--since session:N` (the sessions are numbered in the listing)",
            ));
        }
        let (sandbox, editor) = self.place.open()?;
        let span = span_for(&sandbox, since, None, self.place.paths());
        let origin = Origin::command("changes", "mcp-server-text-editor changes");
        let (_, data) = editor.list_changes(&sandbox, &span, &origin)?;
        if self.place.json {
            return Ok(format!("{}\n", serde_json::to_string_pretty(&data).unwrap_or_default()));
        }
        Ok(render(&data, self.diff))
    }
}

/// The listing for a person.
fn render(data: &Value, diff: bool) -> String {
    let mut out = String::new();
    let since = data["since"].as_u64().unwrap_or_default();
    let timeline = data["timeline"].as_array().cloned().unwrap_or_default();
    let files = data["files"].as_array().cloned().unwrap_or_default();
    out.push_str(&format!(
        "Changes after change {since} in {}, kept in {}.\n",
        if data["journal"].is_null() { "this workspace" } else { "these roots" },
        data["journal"].as_str().unwrap_or("no journal that outlives a server (see below)")
    ));
    if timeline.is_empty() {
        out.push_str(&format!(
            "No changes after change {since} (the latest change in the journal is {}).\n",
            data["latest"]
        ));
    } else {
        let mut rows = vec![
            ["SESSION", "CLIENT", "STARTED", "STATE", "CHANGES", "FILES", "LINES", "REVERT WITH"]
                .map(String::from)
                .to_vec(),
        ];
        for s in &timeline {
            let changes: Vec<u64> =
                s["changes"].as_array().map_or_else(Vec::new, |a| a.iter().filter_map(Value::as_u64).collect());
            rows.push(vec![
                s["session"].as_u64().map_or_else(|| "-".to_owned(), |n| n.to_string()),
                s["client"]
                    .as_str()
                    .map_or_else(|| "(unnamed)".to_owned(), |c| mcp_shared::escape::one_line(c).to_string()),
                local(s["started"].as_str().unwrap_or_default()),
                s["state"].as_str().unwrap_or_default().to_owned(),
                crate::editor::timeline::ranges(&changes),
                s["files"].to_string(),
                format!("+{} -{}", s["added"], s["removed"]),
                s["session"].as_u64().map_or_else(|| format!("--to {}", s["point"]), |n| format!("--to session:{n}")),
            ]);
        }
        out.push('\n');
        out.push_str(&super::table(&rows));
    }
    if !files.is_empty() {
        let mut rows = vec![["FILE", "STATUS", "LINES", "CHANGES"].map(String::from).to_vec()];
        for f in &files {
            let [path, status, lines] = super::file_cells(f, "from");
            let changes: Vec<u64> =
                f["changes"].as_array().map_or_else(Vec::new, |a| a.iter().filter_map(Value::as_u64).collect());
            rows.push(vec![path, status, lines, crate::editor::timeline::ranges(&changes)]);
        }
        out.push('\n');
        out.push_str(&table(&rows));
    }
    for conflict in data["conflicts"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "Changed outside these changes since: {} ({}); a revert would refuse it without --force.\n",
            mcp_shared::escape::one_line(conflict["path"].as_str().unwrap_or_default()),
            mcp_shared::escape::one_line(conflict["why"].as_str().unwrap_or_default())
        ));
    }
    if let Some(why) = data["transient"].as_str() {
        out.push_str(&format!("The journal does not outlive its server here: {why}.\n"));
    }
    if data["earliest_point"].as_u64().unwrap_or_default() > since {
        out.push_str(&format!(
            "Changes up to {} were dropped to keep the journal within its bounds: a revert can go back to {} at the earliest.\n",
            data["earliest_point"], data["earliest_point"]
        ));
    }
    for aside in data["set_aside"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "The journal was found damaged at {} and kept aside as {}.\n",
            local(aside["time"].as_str().unwrap_or_default()),
            aside["path"].as_str().unwrap_or_default()
        ));
    }
    if let Some(last) = timeline.last() {
        let to = last["session"].as_u64().map_or_else(|| last["point"].to_string(), |n| format!("session:{n}"));
        out.push_str(&format!(
            "\nTo see what taking back the last session (and nothing before it) would do: mcp-server-text-editor revert --to {to} --dry-run\n"
        ));
    }
    if diff {
        for f in &files {
            if let Some(text) = f["diff"].as_str().filter(|d| !d.is_empty()) {
                out.push('\n');
                out.push_str(text);
                if f["truncated"].as_bool() == Some(true) {
                    out.push_str("[diff cut here: pass --paths FILE to see one file whole]\n");
                }
            }
        }
    } else if !files.is_empty() {
        out.push_str("Each file's diff: add --diff (and --paths FILE for one file).\n");
    }
    out
}
