//! A person's commands, beside the MCP tools and on the same journal and guards:
//! `mcp-server-text-editor changes` (the timeline of the changes, by session and by file) and
//! `mcp-server-text-editor revert --to N` (shows what it would do, asks, reverts). They take
//! the journal's lock as a server does, so they are safe while servers run on the same roots.
//!
//! Exit codes: 0 done (or nothing to do), 1 refused (a conflict, the answer "no", a journal that
//! cannot be used), 2 a usage error (a bad flag; no terminal to ask on and no `--yes`).

pub mod changes;
pub mod revert;

use std::path::PathBuf;

use mcp_shared::sandbox::Sandbox;

use crate::{
    editor::{Editor, Limits},
    error::ToolError,
    tools::list_changes::{POINT_EXPECTED, Point},
};

/// Where the commands look: the roots and the journal, as the server takes them.
#[derive(Debug, Clone, clap::Args)]
pub struct Place {
    /// A directory whose changes to show or revert; repeat for several. Default: the working
    /// directory.
    #[arg(long = "root", value_name = "DIR", value_parser = mcp_shared::cli::DirValue)]
    pub roots: Vec<PathBuf>,

    /// Where the change journal is kept, if the server was given `--journal-dir`.
    #[arg(long, value_name = "DIR")]
    pub journal_dir: Option<PathBuf>,

    /// Only the changes to these files (absolute, or relative to the first root); repeat for
    /// several. A move counts for both its paths.
    #[arg(long = "paths", value_name = "PATH", num_args = 1..)]
    pub paths: Vec<String>,

    /// The largest file read to show or revert, in bytes (as the server's flag).
    #[arg(long, value_name = "BYTES", default_value_t = 64 * 1024 * 1024)]
    pub max_file_size: u64,

    /// Print the answer as JSON (the data `list_changes` and `revert_changes` give), for
    /// scripts.
    #[arg(long)]
    pub json: bool,
}

/// A command's failure: what to say, and the exit code.
#[derive(Debug)]
pub struct Refusal {
    /// The message (one or more lines), for stderr.
    pub message: String,
    /// The exit code: 1 refused, 2 usage.
    pub code: u8,
}

impl Refusal {
    fn refused(message: impl Into<String>) -> Refusal {
        Refusal { message: message.into(), code: 1 }
    }

    fn usage(message: impl Into<String>) -> Refusal {
        Refusal { message: message.into(), code: 2 }
    }
}

impl From<ToolError> for Refusal {
    fn from(error: ToolError) -> Refusal {
        Refusal::refused(for_person(&error.message))
    }
}

impl Place {
    /// The sandbox of the roots (the working directory when none is given) and an editor on
    /// the journal.
    fn open(&self) -> Result<(Sandbox, Editor), Refusal> {
        let roots = if self.roots.is_empty() {
            vec![std::env::current_dir().map_err(|e| Refusal::refused(format!("the working directory: {e}")))?]
        } else {
            self.roots.clone()
        };
        let sandbox = Sandbox::new(&roots).map_err(|e| Refusal::usage(format!("--root: {e}")))?;
        let journal_dir = match &self.journal_dir {
            Some(dir) => Some(std::path::absolute(dir).map_err(|e| Refusal::usage(format!("--journal-dir: {e}")))?),
            None => crate::editor::default_journal_dir(),
        };
        let limits = Limits { max_file_size: self.max_file_size, journal_dir, views: false, ..Limits::default() };
        Ok((sandbox, Editor::new(limits)))
    }

    /// The `--paths` given, if any.
    fn paths(&self) -> Option<Vec<String>> {
        (!self.paths.is_empty()).then(|| self.paths.clone())
    }
}

/// The value parser of `--since` and `--to`: a change number, `session` or `session:N`.
pub fn point(text: &str) -> Result<Point, String> {
    Point::parse(text).ok_or_else(|| format!("expected {POINT_EXPECTED}; `changes` shows the numbers"))
}

/// A message written for a model, in a person's words: flags for arguments, commands for tools.
pub fn for_person(message: &str) -> String {
    [
        ("`force: true`", "--force"),
        ("`paths`", "--paths"),
        ("`to: ", "`--to "),
        ("revert_changes", "mcp-server-text-editor revert"),
        ("list_changes", "mcp-server-text-editor changes"),
    ]
    .iter()
    .fold(message.to_owned(), |text, (from, to)| text.replace(from, to))
}

/// The time of an answer (RFC 3339) in the local time zone, to the minute.
pub fn local(time: &str) -> String {
    let Ok(timestamp) = time.parse::<jiff::Timestamp>() else { return time.to_owned() };
    let zoned = timestamp.to_zoned_datetime(jiff::tz::TimeZone::system());
    zoned.strftime("%Y-%m-%d %H:%M:%S").to_string()
}

/// A file of an answer as a table's cells: its path (with where a move took it `from`, or
/// takes it back `to`), its status, and its lines added and removed.
pub fn file_cells(file: &serde_json::Value, moved: &str) -> [String; 3] {
    let path = mcp_shared::escape::one_line(file["path"].as_str().unwrap_or_default()).to_string();
    let path = match file["from"].as_str() {
        Some(other) => format!("{path} ({moved} {})", mcp_shared::escape::one_line(other)),
        None => path,
    };
    let lines = match (file["added"].as_u64(), file["removed"].as_u64()) {
        (Some(a), Some(r)) => format!("+{a} -{r}"),
        _ => "binary".to_owned(),
    };
    [path, file["status"].as_str().unwrap_or_default().to_owned(), lines]
}

/// Rows as a table: columns padded to their widest cell (no pager, no colour).
pub fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().filter_map(|r| r.get(c)).map(|s| s.chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&" ".repeat(widths[c] - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_pads_its_columns() {
        let rows = vec![
            vec!["A".to_owned(), "BB".to_owned(), "C".to_owned()],
            vec!["aaa".to_owned(), "b".to_owned(), "c".to_owned()],
        ];
        assert_eq!(table(&rows), "A    BB  C\naaa  b   c\n");
    }

    #[test]
    fn a_model_s_words_become_a_person_s() {
        assert_eq!(
            for_person("revert the rest with `force: true`, or limit it with `paths`; list_changes shows them"),
            "revert the rest with --force, or limit it with --paths; mcp-server-text-editor changes shows them"
        );
    }

    #[test]
    fn points_are_read_as_the_tools_read_them() {
        assert_eq!(point("3"), Ok(Point::Change(3)));
        assert_eq!(point("session:2"), Ok(Point::Session(2)));
        assert_eq!(point("session"), Ok(Point::ThisSession));
        let error = point("yesterday").unwrap_err();
        assert!(error.contains("session:N") && !error.contains("Point"), "{error}");
        assert!(point("session:0").is_err() && point("-1").is_err());
    }
}
