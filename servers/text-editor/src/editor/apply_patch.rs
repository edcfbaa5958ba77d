//! `apply_patch` (the `codex` profile): a patch in Codex's format applied as codex-cli 0.171.0's
//! program applies it, hunk after hunk (a later hunk sees what an earlier one wrote), with its
//! texts: on success its stdout (`Success. Updated the following files:` and `A`/`M`/`D` lines
//! naming each path as the patch wrote it), on failure its stderr line (naming the file's
//! absolute path under the root). One deliberate difference: all or nothing. The program leaves
//! the hunks before a failing one applied; here nothing is written unless every hunk applies,
//! and then all of them are written as one change of the journal (one undo, one revert).
//!
//! Paths are relative to the first root (absolute paths inside a root are taken); a path
//! outside every root, or through a symbolic link, is refused with the sandbox's message.

use std::{collections::BTreeMap, path::PathBuf};

use mcp_shared::{ErrorCode, sandbox::Sandbox};

use super::{
    Editor, Origin,
    patch::{self, Hunk},
};
use crate::{
    error::ToolError,
    journal::{
        Kind,
        plan::{self, Content, FilePlan, Plan, Taker},
    },
};

/// New files get the permissions the program's writes give them (0666 less the usual umask).
const NEW_FILE_MODE: u32 = 0o644;

/// The program's failure: its stderr text (with its line feed), and a code for the structured
/// error.
fn failure(code: ErrorCode, line: String) -> ToolError {
    ToolError::new(code, format!("{line}\n"))
}

/// The files a patch works on, as it goes: each as it was (read once) and as the hunks so far
/// left it.
struct Files<'a> {
    sandbox: &'a Sandbox,
    max_bytes: u64,
    was: BTreeMap<PathBuf, Option<Content>>,
    now: BTreeMap<PathBuf, Option<Content>>,
}

/// A file as a hunk finds it.
enum Found {
    File(Content),
    Absent,
    Directory,
}

impl Files<'_> {
    /// The absolute path of `written` (relative to the first root), confined to the roots.
    fn locate(&self, written: &str) -> Result<PathBuf, ToolError> {
        self.sandbox.resolve(written).map(|p| p.absolute()).map_err(|e| ToolError::new(e.code(), format!("{e}\n")))
    }

    /// What is at `path` now (after the hunks so far).
    fn get(&mut self, path: &PathBuf) -> Result<Found, ToolError> {
        if let Some(state) = self.now.get(path) {
            return Ok(state.clone().map_or(Found::Absent, Found::File));
        }
        // A directory, here or made by an earlier hunk's parents, is not a file to read.
        if self.now.keys().any(|p| p.starts_with(path) && p != path && self.now.get(p).is_some_and(Option::is_some)) {
            return Ok(Found::Directory);
        }
        match self.sandbox.resolve(&path.display().to_string()).map(|p| self.sandbox.metadata(&p)) {
            Ok(Ok(md)) if md.is_dir => return Ok(Found::Directory),
            _ => {}
        }
        let state = plan::read_state(self.sandbox, path, self.max_bytes)
            .map_err(|why| ToolError::new(ErrorCode::InvalidArgs, format!("{why}\n")))?;
        self.was.insert(path.clone(), state.clone());
        self.now.insert(path.clone(), state.clone());
        Ok(state.map_or(Found::Absent, Found::File))
    }

    /// Sets `path` to `state`, reading what it was first.
    fn set(&mut self, path: &PathBuf, state: Option<Content>) -> Result<(), ToolError> {
        if !self.was.contains_key(path) {
            let was = plan::read_state(self.sandbox, path, self.max_bytes)
                .map_err(|why| ToolError::new(ErrorCode::InvalidArgs, format!("{why}\n")))?;
            self.was.insert(path.clone(), was);
        }
        self.now.insert(path.clone(), state);
        Ok(())
    }

    /// Whether a file can be written at `path`: no file among its parents (looked at from the
    /// root down), no directory in its place.
    fn writable(&mut self, path: &std::path::Path) -> Result<bool, ToolError> {
        let roots = self.sandbox.roots().to_vec();
        let mut parents: Vec<PathBuf> = path
            .ancestors()
            .skip(1)
            .take_while(|dir| !roots.iter().any(|r| r == dir))
            .map(std::path::Path::to_path_buf)
            .collect();
        parents.reverse();
        for dir in parents {
            match self.get(&dir)? {
                Found::File(_) => return Ok(false),
                Found::Directory => {}
                // Absent: the write makes it, and everything below it.
                Found::Absent => break,
            }
        }
        Ok(!matches!(self.get(&path.to_path_buf())?, Found::Directory))
    }
}

impl Editor {
    /// Applies Codex's `patch` in `sandbox`, all or nothing: the program's stdout, or its
    /// stderr line as the error.
    pub fn apply_patch(&self, sandbox: &Sandbox, patch: &str, origin: &Origin) -> Result<String, ToolError> {
        let hunks = patch::parse(patch).map_err(|line| failure(ErrorCode::InvalidArgs, line))?;
        if hunks.is_empty() {
            return Err(failure(ErrorCode::InvalidArgs, "No files were modified.".to_owned()));
        }
        let mut files =
            Files { sandbox, max_bytes: self.limits.max_file_size, was: BTreeMap::new(), now: BTreeMap::new() };
        let (mut added, mut modified, mut deleted) = (Vec::new(), Vec::new(), Vec::new());
        for hunk in &hunks {
            match hunk {
                Hunk::Add { path, contents } => {
                    let at = files.locate(path)?;
                    if !files.writable(&at)? {
                        return Err(failure(ErrorCode::InvalidArgs, format!("Failed to write file {}", at.display())));
                    }
                    let mode = match files.get(&at)? {
                        Found::File(c) => c.mode,
                        _ => NEW_FILE_MODE,
                    };
                    files.set(&at, Some(Content { bytes: contents.clone().into_bytes(), mode }))?;
                    added.push(path.clone());
                }
                Hunk::Delete { path } => {
                    let at = files.locate(path)?;
                    match files.get(&at)? {
                        Found::File(_) => files.set(&at, None)?,
                        Found::Absent | Found::Directory => {
                            return Err(failure(
                                ErrorCode::NotFound,
                                format!("Failed to delete file {}", at.display()),
                            ));
                        }
                    }
                    deleted.push(path.clone());
                }
                Hunk::Update { path, move_to, chunks } => {
                    let at = files.locate(path)?;
                    let shown = at.display().to_string();
                    let content = match files.get(&at)? {
                        Found::File(c) => c,
                        Found::Absent => {
                            return Err(failure(
                                ErrorCode::NotFound,
                                format!(
                                    "Failed to read file to update {shown}: No such file or directory (os error 2)"
                                ),
                            ));
                        }
                        Found::Directory => {
                            return Err(failure(
                                ErrorCode::InvalidArgs,
                                format!("Failed to read file to update {shown}: path `{shown}` is not a file"),
                            ));
                        }
                    };
                    let Ok(text) = std::str::from_utf8(&content.bytes) else {
                        return Err(failure(
                            ErrorCode::InvalidArgs,
                            format!("Failed to read file to update {shown}: stream did not contain valid UTF-8"),
                        ));
                    };
                    let new = patch::updated(text, chunks, &shown).map_err(|line| failure(ErrorCode::NoMatch, line))?;
                    match move_to {
                        Some(to) => {
                            let dest = files.locate(to)?;
                            if !files.writable(&dest)? {
                                return Err(failure(
                                    ErrorCode::InvalidArgs,
                                    format!("Failed to write file {}", dest.display()),
                                ));
                            }
                            let mode = match files.get(&dest)? {
                                Found::File(c) => c.mode,
                                _ => NEW_FILE_MODE,
                            };
                            files.set(&dest, Some(Content { bytes: new.into_bytes(), mode }))?;
                            files.set(&at, None)?;
                        }
                        None => files.set(&at, Some(Content { bytes: new.into_bytes(), mode: content.mode }))?,
                    }
                    modified.push(hunk.shown_path().to_owned());
                }
            }
        }
        let mut out = String::from("Success. Updated the following files:\n");
        for (letter, paths) in [("A", &added), ("M", &modified), ("D", &deleted)] {
            for path in paths {
                out.push_str(&format!("{letter} {path}\n"));
            }
        }
        self.write_all(sandbox, files, origin)?;
        Ok(out)
    }

    /// Writes every file of `files` that changed, as one change of the journal.
    fn write_all(&self, sandbox: &Sandbox, files: Files<'_>, origin: &Origin) -> Result<(), ToolError> {
        let Files { was, now, .. } = files;
        let mut plan = Plan::default();
        for (path, then) in now {
            let before = was.get(&path).cloned().flatten();
            if before != then {
                plan.files.insert(
                    path.clone(),
                    FilePlan { now: before, then, changes: Vec::new(), moved_from: None, tie: path },
                );
            }
        }
        if plan.files.is_empty() {
            return Ok(());
        }
        let taker = Taker { origin, kind: Kind::Edit, fsync: self.limits.fsync };
        let Some(journal) = self.journal(sandbox) else {
            return self.write_unjournalled(sandbox, &plan);
        };
        self.with_txn(&journal, sandbox, |txn| plan::apply(txn, sandbox, &plan, &taker).map(|_| ()))
            .map_err(|e| crate::editor::journal_unusable(&e))?
            .map_err(|e| crate::editor::undo_edit::apply_error(e, "the patch"))
    }

    /// Writes `plan` without a journal (`--undo-depth 0`): file by file, through the sandbox.
    fn write_unjournalled(&self, sandbox: &Sandbox, plan: &Plan) -> Result<(), ToolError> {
        let options =
            mcp_shared::sandbox::WriteOptions { fsync: self.limits.fsync, create_parents: true, ..Default::default() };
        for (path, file) in &plan.files {
            let at = sandbox.resolve(&path.display().to_string())?;
            match &file.then {
                Some(content) => sandbox.write_atomic(&at, &content.bytes, &options)?,
                None => sandbox.remove_file(&at)?,
            }
        }
        Ok(())
    }
}
