//! The editor: the five commands over a [`Sandbox`], with their limits and the change journal
//! of each workspace ([`crate::journal`]).
//!
//! Synchronous on purpose: the tool runs it on a blocking thread, one call per file at a time
//! (see [`crate::locks`]); tests call it directly. Each command is an `impl Editor` block in its
//! own file of this module (`view.rs`, `create.rs`, `str_replace.rs`, `insert.rs`,
//! `undo_edit.rs`; `files.rs`: `move_file` and `delete_file`; `guards.rs`: the `if_sha256` and
//! `if_change` checks), on the shared helpers here: validation, the locked open, the load and the
//! atomic apply; `journalled.rs` records every change in the workspace's journal, `origin.rs`
//! says who made it.

use std::{
    collections::HashMap,
    path::PathBuf,
    sync::{Arc, Mutex, atomic::AtomicBool},
};

pub use crate::command::Command;
pub use edit_file::{Caller, Edit, Expected};
pub use guards::check_sha256;
pub(crate) use journalled::journal_unusable;
pub use origin::{Origin, other_live_session, session_label};

mod apply_patch;
pub(crate) mod changes;
mod create;
mod edit_file;
mod files;
mod guards;
mod insert;
mod journalled;
mod origin;
pub(crate) mod patch;
mod str_replace;
pub(crate) mod timeline;
pub(crate) mod undo_edit;
mod view;

use mcp_shared::{
    ErrorCode,
    sandbox::{Metadata, Sandbox, SandboxPath, WriteOptions},
};
use serde_json::Value;

use crate::{
    document::{self, Document, NotText},
    error::{self, ToolError},
    journal::{
        self, Journal,
        splice::{self, Change},
    },
    lines::{self, Splice},
    render,
};

/// The limits and switches of the editor (from the flags).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Results are cut after this many characters of content (`0`: never).
    pub max_output_chars: usize,
    /// Files larger than this are not read whole (edits, and views without `view_range`).
    pub max_file_size: u64,
    /// Undo records kept per file.
    pub undo_depth: usize,
    /// fsync every write (file and directory).
    pub fsync: bool,
    /// Keep what each write did for the change view (off with `--no-views`: no hash, no copy).
    pub views: bool,
    /// Where the journal is kept (`--journal-dir`; the binary's default: the state directory's
    /// `mcp-suite/text-editor`, [`default_journal_dir`]); `None` (`Limits::default()`): nowhere,
    /// the journal lasts the process's life.
    pub journal_dir: Option<PathBuf>,
    /// The bound of each journal, in bytes (`--journal-max-bytes`).
    pub journal_max_bytes: u64,
    /// The bound of each journal, in changes (`--journal-max-changes`).
    pub journal_max_changes: usize,
    /// `--read-only`: the journal is read, never settled (settling a dead writer's change may
    /// write files).
    pub read_only: bool,
}

/// The default place of journals: `mcp-suite/text-editor` in the user's state directory.
pub fn default_journal_dir() -> Option<PathBuf> {
    mcp_shared::platform::state_dir().map(|dir| dir.join("mcp-suite").join("text-editor"))
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_output_chars: 16_000,
            max_file_size: 64 * 1024 * 1024,
            undo_depth: 32,
            fsync: true,
            views: true,
            // In-process use keeps its journal for the process's life; the binary gives the
            // user's state directory (one journal for every workspace: not a test's to fill).
            journal_dir: None,
            journal_max_bytes: journal::DEFAULT_MAX_BYTES,
            journal_max_changes: journal::DEFAULT_MAX_CHANGES,
            read_only: false,
        }
    }
}

/// One call: the command and the parameters it may use.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Request {
    /// `file_text` (create).
    pub file_text: Option<String>,
    /// `view_range` as sent (checked by `view`).
    pub view_range: Option<Value>,
    /// `old_str` (str_replace).
    pub old_str: Option<String>,
    /// `new_str` (str_replace; insert, or its alias `insert_text`).
    pub new_str: Option<String>,
    /// `insert_line` as sent (checked by `insert`).
    pub insert_line: Option<Value>,
    /// `replace_all` (str_replace): replace every occurrence of `old_str`, not exactly one.
    pub replace_all: bool,
    /// `if_sha256`: write only if the file's content hashes to this (see [`check_sha256`]).
    pub if_sha256: Option<String>,
    /// `if_change`: `undo_edit` (or `view`, as a check) only if the file's latest change is
    /// this one (see [`Editor::check_change`]).
    pub if_change: Option<String>,
    /// Who asks, for the journal.
    pub origin: Origin,
}

/// A successful result: the text the model reads, and an optional note after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The reference implementation's text.
    pub text: String,
    /// Something the reference would not say (e.g. that a whitespace-tolerant match was used).
    pub note: Option<String>,
    /// What a write did to the file, for the change view.
    pub seen: Option<Seen>,
}

impl Reply {
    /// A reply of `text` alone.
    pub fn text(text: String) -> Reply {
        Reply { text, note: None, seen: None }
    }

    /// The reply with what the write did.
    pub fn with_seen(mut self, seen: Option<Seen>) -> Reply {
        self.seen = seen;
        self
    }
}

/// The largest file whose content before and after a write is kept for the change view.
pub const MAX_SEEN_BYTES: usize = 4 * 1024 * 1024;

/// What a write did to a file: its bytes before and after (`None`: it did not exist, or does
/// not any more), kept when both are at most [`MAX_SEEN_BYTES`], and the SHA-256 it has now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    /// The content before, when kept.
    pub before: Option<Vec<u8>>,
    /// The content after, when kept.
    pub after: Option<Vec<u8>>,
    /// Whether the contents were kept (false: too large to show).
    pub kept: bool,
    /// The SHA-256 (hex) of the file now; `None` when it no longer exists.
    pub sha256: Option<String>,
    /// A dry run: the SHA-256 (hex) the file would have after the edits.
    pub result_sha256: Option<String>,
    /// The id of the change in the undo history (`None`: not undoable).
    pub change: Option<String>,
}

impl Seen {
    /// The change from `before` to `after` (`None`: no file).
    pub fn new(before: Option<Vec<u8>>, after: Option<&[u8]>) -> Seen {
        let sha256 = after.map(mcp_shared::view::sha256_hex);
        let small = |bytes: Option<usize>| bytes.is_none_or(|len| len <= MAX_SEEN_BYTES);
        if small(before.as_ref().map(Vec::len)) && small(after.map(<[u8]>::len)) {
            Seen { before, after: after.map(<[u8]>::to_vec), kept: true, sha256, result_sha256: None, change: None }
        } else {
            Seen { before: None, after: None, kept: false, sha256, result_sha256: None, change: None }
        }
    }
}

/// The editor.
#[derive(Debug)]
pub struct Editor {
    pub(crate) limits: Limits,
    /// The journal of each workspace (by its roots), opened on first use.
    journals: Mutex<HashMap<Vec<PathBuf>, Arc<Journal>>>,
    /// The line counts of files viewed from their end (`view_range` `[-20, -1]`).
    line_counts: Mutex<view::LineCounts>,
}

impl Editor {
    /// An editor with `limits`.
    pub fn new(limits: Limits) -> Editor {
        Editor { limits, journals: Mutex::default(), line_counts: Mutex::default() }
    }

    /// The limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Runs `command` on `path` (resolved in `sandbox`, shown as the caller spelled it).
    pub fn execute(
        &self,
        sandbox: &Sandbox,
        command: Command,
        path: &SandboxPath,
        request: Request,
    ) -> Result<Reply, ToolError> {
        let (if_sha256, if_change, origin) =
            (request.if_sha256.clone(), request.if_change.clone(), request.origin.clone());
        let target = Target {
            if_sha256: if_sha256.as_deref(),
            if_change: if_change.as_deref(),
            ..Target::new(sandbox, path, command, None, &origin)
        };
        self.dispatch(&target, request)
    }

    /// Like [`Editor::execute`], but writes nothing once `abandoned` is set (the caller gave
    /// up: the call timed out or was cancelled while this one waited, e.g. for another
    /// process's lock), so that a call reported as stopped never changes the file afterwards.
    pub fn execute_unless_abandoned(
        &self,
        sandbox: &Sandbox,
        command: Command,
        path: &SandboxPath,
        request: Request,
        abandoned: &AtomicBool,
    ) -> Result<Reply, ToolError> {
        let (if_sha256, if_change, origin) =
            (request.if_sha256.clone(), request.if_change.clone(), request.origin.clone());
        let target = Target {
            if_sha256: if_sha256.as_deref(),
            if_change: if_change.as_deref(),
            ..Target::new(sandbox, path, command, Some(abandoned), &origin)
        };
        self.dispatch(&target, request)
    }

    fn dispatch(&self, target: &Target<'_>, request: Request) -> Result<Reply, ToolError> {
        let reply = match target.command {
            Command::View if target.if_change.is_some() => self.check_change(target),
            Command::View => {
                if target.if_sha256.is_some() {
                    self.check_current(target)?;
                }
                self.view(target, request.view_range.as_ref())
            }
            Command::Create => self.create(target, request.file_text),
            Command::StrReplace => self.str_replace(target, request.old_str, request.new_str, request.replace_all),
            Command::Insert => self.insert(target, request.insert_line.as_ref(), request.new_str),
            Command::UndoEdit => self.undo_edit(target),
        }?;
        Ok(reply.with_seen(target.seen.take()))
    }

    /// Resolves `raw` (normalised like Python's `pathlib`) in `sandbox` and runs `command`: the
    /// whole call, for tests and in-process use.
    pub fn run(&self, sandbox: &Sandbox, command: Command, raw: &str, request: Request) -> Result<Reply, ToolError> {
        let path = resolve(sandbox, raw, command)?;
        self.execute(sandbox, command, &path, request)
    }

    pub(crate) fn line_counts(&self) -> std::sync::MutexGuard<'_, view::LineCounts> {
        self.line_counts.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The reference's `validate_path`: a missing path is an error except for `create`, an
    /// existing one is an error for `create`, a directory is an error except for `view`.
    pub(crate) fn validate(&self, t: &Target<'_>) -> Result<Option<Metadata>, ToolError> {
        let metadata = match t.sandbox.metadata(t.path) {
            Ok(md) => Some(md),
            Err(mcp_shared::sandbox::SandboxError::NotFound { .. }) => None,
            Err(mcp_shared::sandbox::SandboxError::NotADirectory { .. }) if t.command != Command::Create => None,
            Err(e) => return Err(t.sandbox_error(e)),
        };
        match (&metadata, t.command) {
            (None, Command::Create) => Ok(None),
            (None, _) => Err(ToolError::new(ErrorCode::NotFound, render::does_not_exist(t.shown))),
            (Some(_), Command::Create) => {
                Err(ToolError::new(ErrorCode::AlreadyExists, render::already_exists(t.shown)))
            }
            (Some(md), command) if md.is_dir && command != Command::View => {
                Err(error::invalid(render::is_a_directory(t.shown)))
            }
            (Some(_), _) => Ok(metadata),
        }
    }

    /// The error for a file over `--max-file-size`.
    pub(crate) fn too_large(&self, t: &Target<'_>, len: u64) -> ToolError {
        ToolError::new(
            ErrorCode::FileTooLarge,
            format!(
                "The file {} is {len} bytes, more than this server's limit of {} bytes (--max-file-size), so it cannot be {} whole. View the part you need with `view_range`, e.g. [1, 100], after finding its line numbers with `grep -n`.",
                t.shown,
                self.limits.max_file_size,
                if t.command == Command::View { "shown" } else { "edited" }
            ),
        )
    }

    /// Opens the file and takes an exclusive `flock` on it, so that edits by other processes
    /// (another server on the same tree) wait for this one instead of losing it. The lock is
    /// held until the returned file is dropped, i.e. after the atomic rename. A file replaced
    /// (renamed over) between the open and the lock has no link left: it is opened again.
    ///
    /// It retries for as long as the other process keeps replacing the file: each retry
    /// follows a real edit of theirs (no spinning), a process with a queue of edits can win many
    /// times in a row, and the call is bounded by `--tool-timeout` (after which it writes
    /// nothing). Runs on a blocking thread, never on the async runtime's.
    pub(crate) fn open_locked(&self, t: &Target<'_>) -> Result<std::fs::File, ToolError> {
        loop {
            t.still_wanted()?;
            let file = t.sandbox.open_read(t.path).map_err(|e| t.sandbox_error(e))?;
            if !mcp_shared::platform::ADVISORY_FILE_LOCKS {
                // Windows: a lock would stop every other program reading the file.
                return Ok(file);
            }
            // std's `File::lock` (flock(2) on Linux): the same lock the shared sandbox's lock
            // files take, so there is one locking mechanism in the suite.
            if let Err(error) = file.lock() {
                // Locks are advisory: a file system without them still gets atomic writes.
                tracing::debug!(%error, path = t.shown, "flock failed; editing without the inter-process lock");
                return Ok(file);
            }
            match mcp_shared::platform::link_count(&file) {
                Ok(0) => continue,
                _ => return Ok(file),
            }
        }
    }

    /// What holds an edit's inter-process lock once the file has been read: the locked handle
    /// where locks are advisory (Unix); nothing on Windows, where no lock was taken and an open
    /// handle could stop the file being replaced.
    pub(crate) fn keep_lock(file: std::fs::File) -> Option<std::fs::File> {
        mcp_shared::platform::ADVISORY_FILE_LOCKS.then_some(file)
    }

    /// Reads and decodes a file to edit it (`md`: its metadata), from `file` (its locked
    /// handle, see [`Editor::open_locked`]).
    pub(crate) fn load(&self, t: &Target<'_>, md: &Metadata, file: &std::fs::File) -> Result<Document, ToolError> {
        use std::io::Read as _;
        if md.len > self.limits.max_file_size {
            return Err(self.too_large(t, md.len));
        }
        let before = file.metadata().ok();
        // What the file is before it is read, for the check just before the write: a change
        // made while it is read, or after, then refuses the write (taken after the read, the
        // stamp could count an append the read missed).
        t.loaded.set(before.as_ref().map(|now| Stamp {
            id: mcp_shared::platform::file_id_of(file).ok(),
            len: now.len(),
            modified: now.modified().ok(),
        }));
        let len = before.map(|m| m.len()).unwrap_or(md.len);
        if len > self.limits.max_file_size {
            return Err(self.too_large(t, len));
        }
        // Room for an edit to grow the text in place.
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0).saturating_add(4096));
        file.take(self.limits.max_file_size + 1).read_to_end(&mut bytes).map_err(|e| {
            t.sandbox_error(mcp_shared::sandbox::SandboxError::Io {
                path: t.shown.to_owned(),
                kind: e.kind(),
                source: e,
            })
        })?;
        if bytes.len() as u64 > self.limits.max_file_size {
            return Err(self.too_large(t, bytes.len() as u64));
        }
        check_sha256(t.if_sha256, Some(&bytes), t.shown)?;
        document::decode(bytes).map_err(|e| not_text(t.shown, &e))
    }

    /// Replaces `a..b` (positions in the original text of `doc`) with `replacement` (already
    /// in the file's line endings), writes the file and records the edit for undo.
    ///
    /// Plain UTF-8 (the common case) is edited in place: no second copy of the file is made,
    /// and the undo record comes straight from the splice.
    pub(crate) fn apply(
        &self,
        t: &Target<'_>,
        doc: Document,
        a: usize,
        b: usize,
        replacement: &str,
    ) -> Result<(), ToolError> {
        let new_len = doc.text.len() - (b - a) + replacement.len() + doc.format.bom_len();
        self.check_new_len(t, new_len)?;
        let (new_bytes, change) = if doc.format == document::Format::UTF8 {
            let mut text = doc.text;
            let removed = text.as_bytes()[a..b].to_vec();
            text.replace_range(a..b, replacement);
            (text.into_bytes(), Change::Splice { offset: a, removed, inserted_len: replacement.len() })
        } else {
            let new_bytes = splice_bytes(&doc, a, b, replacement).map_err(|e| unencodable(t, &e))?;
            let old_bytes = old_bytes(&doc)?;
            let change = splice::diff(&old_bytes, &new_bytes);
            (new_bytes, change)
        };
        self.write(t, &new_bytes, change)
    }

    /// Writes `text` (the whole new text of `doc`'s file, in its line endings) and records the
    /// edit for undo: for plain UTF-8 the undo record is the changed span alone, found by
    /// comparing the two texts (no third copy of the file).
    pub(crate) fn apply_text(&self, t: &Target<'_>, doc: Document, text: String) -> Result<(), ToolError> {
        self.check_new_len(t, text.len() + doc.format.bom_len())?;
        let (new_bytes, change) = if doc.format == document::Format::UTF8 {
            let (old, new) = (doc.text.as_bytes(), text.as_bytes());
            let mut a = old.iter().zip(new).take_while(|(x, y)| x == y).count();
            while !doc.text.is_char_boundary(a) {
                a -= 1;
            }
            let room = old.len().min(new.len()) - a;
            let mut tail = old.iter().rev().zip(new.iter().rev()).take(room).take_while(|(x, y)| x == y).count();
            while !doc.text.is_char_boundary(old.len() - tail) || !text.is_char_boundary(new.len() - tail) {
                tail -= 1;
            }
            let removed = old[a..old.len() - tail].to_vec();
            let inserted_len = new.len() - tail - a;
            (text.into_bytes(), Change::Splice { offset: a, removed, inserted_len })
        } else {
            let new_bytes = document::encode_text(doc.format, &text).map_err(|e| unencodable(t, &e))?;
            let old_bytes = old_bytes(&doc)?;
            let change = splice::diff(&old_bytes, &new_bytes);
            (new_bytes, change)
        };
        self.write(t, &new_bytes, change)
    }

    fn check_new_len(&self, t: &Target<'_>, new_len: usize) -> Result<(), ToolError> {
        if new_len as u64 > self.limits.max_file_size {
            return Err(ToolError::new(
                ErrorCode::FileTooLarge,
                format!(
                    "No change was made: the edit would make {} {new_len} bytes, more than this server's limit of {} bytes (--max-file-size).",
                    t.shown, self.limits.max_file_size
                ),
            ));
        }
        Ok(())
    }

    /// The write of an edit: atomic, and only if the file is still as it was read.
    fn write(&self, t: &Target<'_>, new_bytes: &[u8], change: Change) -> Result<(), ToolError> {
        t.still_wanted()?;
        // A program that takes no lock (an appending logger, an editor) may have written the
        // file since it was read: then nothing is written, and its change is kept.
        let unchanged = || match (t.loaded.get(), t.sandbox.metadata(t.path)) {
            (Some(then), Ok(now)) => {
                now.len == then.len
                    && now.modified == then.modified
                    && (then.id.is_none() || now.id.is_none() || now.id == then.id)
            }
            (None, _) => true,
            (Some(_), Err(_)) => false,
        };
        let Change::Splice { offset, removed, inserted_len } = &change;
        let (before, payload) =
            (journal::Before::Splice { offset: *offset as u64, inserted_len: *inserted_len as u64 }, &removed[..]);
        let effect = journal::Effect::new(history_key(t.path), before, Some(new_bytes));
        let record = journal::Change::new(t.origin, journal::Kind::Edit, vec![effect]);
        let ((), id) = self.journalled(t.sandbox, record, &[payload], None, || {
            t.sandbox
                .write_atomic_unless_changed(t.path, new_bytes, &self.write_options(), &unchanged)
                .map_err(|e| t.sandbox_error(e))
        })?;
        if self.limits.views {
            let before = match &change {
                Change::Splice { offset, removed, inserted_len } if new_bytes.len() <= MAX_SEEN_BYTES => {
                    let end = offset + inserted_len;
                    new_bytes
                        .get(..*offset)
                        .zip(new_bytes.get(end..))
                        .map(|(head, tail)| [head, removed, tail].concat())
                }
                _ => None,
            };
            *t.seen.borrow_mut() = Some(Seen::new(before, Some(new_bytes)));
        }
        if let Some(seen) = t.seen.borrow_mut().as_mut() {
            seen.change = id;
        }
        Ok(())
    }

    pub(crate) fn write_options(&self) -> WriteOptions {
        WriteOptions { fsync: self.limits.fsync, ..WriteOptions::default() }
    }
}

/// A call's target: the sandbox, the resolved path, how the caller spelled it, and the command.
pub(crate) struct Target<'a> {
    pub sandbox: &'a Sandbox,
    pub path: &'a SandboxPath,
    pub shown: &'a str,
    pub command: Command,
    /// Set when the caller gave up on the call: then nothing may be written.
    pub abandoned: Option<&'a AtomicBool>,
    /// The file as [`Editor::load`] read it.
    pub loaded: std::cell::Cell<Option<Stamp>>,
    /// `if_sha256`: the content the caller expects the file to have.
    pub if_sha256: Option<&'a str>,
    /// `if_change`: the change (an id of the undo history) the caller expects to be the file's
    /// latest.
    pub if_change: Option<&'a str>,
    /// What the write did, set by [`Editor::write`].
    pub seen: std::cell::RefCell<Option<Seen>>,
    /// Who asks.
    pub origin: &'a Origin,
}

/// Which file, of what size and modification time: what an edit read, checked again before
/// it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    id: Option<mcp_shared::platform::FileId>,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl<'a> Target<'a> {
    fn new(
        sandbox: &'a Sandbox,
        path: &'a SandboxPath,
        command: Command,
        abandoned: Option<&'a AtomicBool>,
        origin: &'a Origin,
    ) -> Target<'a> {
        Target {
            sandbox,
            path,
            shown: path.display(),
            command,
            abandoned,
            loaded: std::cell::Cell::new(None),
            if_sha256: None,
            if_change: None,
            seen: std::cell::RefCell::new(None),
            origin,
        }
    }
}

impl Target<'_> {
    /// An error if the caller gave up on the call (checked before every write).
    pub fn still_wanted(&self) -> Result<(), ToolError> {
        match self.abandoned {
            Some(flag) if flag.load(std::sync::atomic::Ordering::SeqCst) => Err(ToolError::new(
                ErrorCode::Cancelled,
                format!("The call on {} was stopped before it changed anything; nothing was changed.", self.shown),
            )),
            _ => Ok(()),
        }
    }

    pub fn sandbox_error(&self, e: mcp_shared::sandbox::SandboxError) -> ToolError {
        error::from_sandbox(e, self.shown, self.command)
    }
}

/// Resolves a path the caller sent: normalised like Python's `pathlib` (so messages show it as
/// the reference does), then confined to the sandbox.
pub fn resolve(sandbox: &Sandbox, raw: &str, command: Command) -> Result<SandboxPath, ToolError> {
    let shown = render::normalize_display(raw);
    // `d/` names a directory even though it is shown as `d`, as the reference shows it.
    let names_directory = SandboxPath::is_directory_spelling(raw);
    let path = sandbox.resolve(&shown).map_err(|e| error::from_sandbox(e, &shown, command))?;
    Ok(path.directory_only(names_directory))
}

/// The key of a file in the history and the lock map.
pub fn history_key(path: &SandboxPath) -> std::path::PathBuf {
    path.absolute()
}

/// The message for a file that is not text.
pub(crate) fn not_text(shown: &str, e: &NotText) -> ToolError {
    let message = match e {
        NotText::Binary => format!(
            "The file {shown} is binary (it contains NUL bytes or is not valid text in any supported encoding); the text editor only views and edits text files."
        ),
        NotText::NotRoundTrip(encoding) => format!(
            "The file {shown} looks like {encoding} text, but it does not decode and encode back to the same bytes, so it cannot be shown or edited without changing it."
        ),
    };
    ToolError::new(ErrorCode::BinaryFile, message)
}

/// The error for new text the file's encoding cannot hold.
fn unencodable(t: &Target<'_>, e: &document::Unencodable) -> ToolError {
    error::invalid(format!(
        "No change was made: the new text contains {:?}, which cannot be written in {}, the encoding of {}. Use characters that {} can represent.",
        e.character, e.encoding, t.shown, e.encoding
    ))
}

/// The file's bytes as they are now, from its decoded document (borrowed for plain UTF-8).
pub(crate) fn old_bytes(doc: &Document) -> Result<std::borrow::Cow<'_, [u8]>, ToolError> {
    if doc.format == document::Format::UTF8 {
        return Ok(doc.text.as_bytes().into());
    }
    doc.encode()
        .map(Into::into)
        .map_err(|_| ToolError::new(ErrorCode::InternalError, "The file could not be re-encoded."))
}

/// The document's text with `a..b` (original positions) replaced, encoded in its format.
fn splice_bytes(doc: &Document, a: usize, b: usize, replacement: &str) -> Result<Vec<u8>, document::Unencodable> {
    if doc.format.encoding == document::TextEncoding::Utf8 {
        let mut out = Vec::with_capacity(doc.format.bom_len() + doc.text.len() - (b - a) + replacement.len());
        if doc.format.bom {
            out.extend_from_slice(b"\xEF\xBB\xBF");
        }
        out.extend_from_slice(&doc.text.as_bytes()[..a]);
        out.extend_from_slice(replacement.as_bytes());
        out.extend_from_slice(&doc.text.as_bytes()[b..]);
        return Ok(out);
    }
    let mut text = String::with_capacity(doc.text.len() - (b - a) + replacement.len());
    text.push_str(&doc.text[..a]);
    text.push_str(replacement);
    text.push_str(&doc.text[b..]);
    document::encode_text(doc.format, &text)
}

/// The text of a splice's snippet: lines `first .. first + count` of the text after the edit
/// (`before_newlines`: the number of `\n` before the splice).
pub(crate) fn snippet(norm: &str, splice: &Splice, before_newlines: usize, first: usize, count: usize) -> String {
    lines::window(&norm[..splice.start], before_newlines, &splice.replacement, &norm[splice.end..], first, count)
}
