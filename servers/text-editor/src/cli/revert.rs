//! `mcp-server-text-editor revert --to POINT`: every change after the point in the roots taken
//! back as one change of the journal (so it can be reverted in turn), as `revert_changes` does.
//! It shows what it would do first, then asks on a terminal (`--yes`: without asking;
//! `--dry-run`: only shows). What it reverts is held to what it showed: a change made, or a
//! file changed, in between refuses the revert and changes nothing.

use std::io::{BufRead as _, IsTerminal as _, Write as _};

use serde_json::Value;

use super::{Place, Refusal, point, table};
use crate::{
    editor::{
        Origin,
        changes::{Guards, RevertMode},
    },
    tools::list_changes::{Point, absolute, span_for},
};

/// Take the files back to how they were at a point (a change number, or `session:N`).
#[derive(Debug, Clone, clap::Args)]
pub struct Revert {
    /// The roots, the journal, the files.
    #[command(flatten)]
    pub place: Place,

    /// The point to go back to: a change number (the files as they were right after it), or
    /// `session:N` (as they were when session N began). `changes` shows both.
    #[arg(long, value_name = "POINT", value_parser = point)]
    pub to: Point,

    /// Only show what the revert would do; change nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Revert without asking (scripts; needed when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// Revert the files that can be, and leave those changed by someone else since as they are
    /// (without it, such a file refuses the whole revert).
    #[arg(long)]
    pub force: bool,

    /// Show each file's diff (from now to what the revert writes) too.
    #[arg(long)]
    pub diff: bool,
}

impl Revert {
    /// Runs the command: what to print on stdout as it goes (`say`), and the answer.
    pub fn run(&self, say: &mut dyn FnMut(&str)) -> Result<(), Refusal> {
        if self.to == Point::ThisSession {
            return Err(Refusal::usage(
                "`--to session` names the caller's own session, and a command has none: pass `--to session:N` (`changes` numbers the sessions)",
            ));
        }
        let (sandbox, editor) = self.place.open()?;
        let span = span_for(&sandbox, self.to, None, self.place.paths());
        let origin = Origin::command("revert", "mcp-server-text-editor revert");
        let look = RevertMode { dry_run: true, force: self.force };
        let (_, shown) = editor.revert_changes(&sandbox, &span, &Guards::default(), look, &origin)?;
        let files = shown["files"].as_array().cloned().unwrap_or_default();
        let conflicts = shown["conflicts"].as_array().cloned().unwrap_or_default();
        if self.place.json && (self.dry_run || (files.is_empty() && conflicts.is_empty())) {
            say(&format!("{}\n", serde_json::to_string_pretty(&shown).unwrap_or_default()));
            return Ok(());
        }
        if files.is_empty() && conflicts.is_empty() {
            say(&format!("Nothing to revert: no changes after change {} in these roots.\n", shown["since"]));
            return Ok(());
        }
        if !self.place.json {
            say(&plan_text(&shown, self.diff));
        }
        if !conflicts.is_empty() && !self.force && !self.dry_run {
            return Err(Refusal::refused(format!(
                "Nothing was reverted: {} file(s) changed outside these changes since (listed above). Look at them; then revert the rest with --force (which leaves those files as they are), or limit the revert with --paths.",
                conflicts.len()
            )));
        }
        if self.dry_run {
            say("Dry run: nothing was changed.\n");
            return Ok(());
        }
        if !self.yes {
            ask(files.len())?;
        }
        // Held to what was shown: the latest change, and every file's content.
        let guards = Guards {
            latest: shown["latest"].as_u64(),
            sha256: files
                .iter()
                .filter_map(|f| {
                    let name = f["path"].as_str()?.to_owned();
                    Some((absolute(&sandbox, &name), name, f["sha256"].as_str().map(str::to_owned)))
                })
                .collect(),
        };
        let act = RevertMode { dry_run: false, force: self.force };
        let (_, done) = editor.revert_changes(&sandbox, &span, &guards, act, &origin)?;
        if self.place.json {
            say(&format!("{}\n", serde_json::to_string_pretty(&done).unwrap_or_default()));
        } else {
            let change = done["change"].as_u64().unwrap_or_default();
            say(&format!(
                "Reverted: {} file(s) are back as they were after change {}. The revert is change {change}: `mcp-server-text-editor revert --to {}` takes it back.\n",
                files.len(),
                done["since"],
                change.saturating_sub(1)
            ));
        }
        Ok(())
    }
}

/// Asks on the terminal whether to revert `files` files; refused unless the answer is yes.
fn ask(files: usize) -> Result<(), Refusal> {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Err(Refusal::usage(
            "Nothing was reverted: there is no terminal to ask on (stdin is not one). Pass --yes to revert without asking, or --dry-run to only look.",
        ));
    }
    let mut stderr = std::io::stderr();
    let _ = write!(stderr, "Revert these {files} file(s)? [y/N] ");
    let _ = stderr.flush();
    let mut answer = String::new();
    stdin.lock().read_line(&mut answer).map_err(|e| Refusal::refused(format!("Nothing was reverted: {e}")))?;
    match answer.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Ok(()),
        _ => Err(Refusal::refused("Nothing was reverted.")),
    }
}

/// What the revert would do, for a person.
fn plan_text(shown: &Value, diff: bool) -> String {
    let files = shown["files"].as_array().cloned().unwrap_or_default();
    let count = files
        .iter()
        .flat_map(|f| f["changes"].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c.as_u64())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let mut out = format!(
        "Reverting the changes after change {} takes {} file(s) back to how they were then{}:\n\n",
        shown["since"],
        files.len(),
        if count > 0 { format!(" ({count} change(s))") } else { String::new() }
    );
    let mut rows = vec![["FILE", "REVERT", "LINES"].map(String::from).to_vec()];
    for f in &files {
        rows.push(super::file_cells(f, "to").to_vec());
    }
    out.push_str(&table(&rows));
    for c in shown["conflicts"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "Left as it is: {} ({})\n",
            mcp_shared::escape::one_line(c["path"].as_str().unwrap_or_default()),
            mcp_shared::escape::one_line(c["why"].as_str().unwrap_or_default())
        ));
    }
    if diff {
        for f in &files {
            if let Some(text) = f["diff"].as_str().filter(|d| !d.is_empty()) {
                out.push('\n');
                out.push_str(text);
            }
        }
    }
    out.push('\n');
    out
}
