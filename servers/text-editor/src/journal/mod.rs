//! The change journal: every change made through a writing tool, in order and across files,
//! kept on disk so that `undo_edit`, `list_changes` and `revert_changes` work after a restart
//! and across the processes and HTTP sessions that serve one workspace.
//!
//! **Where.** One journal for every workspace of the user (a change belongs to the roots its
//! files are in, so more or fewer roots never hide a root's history, and a change is recorded
//! once), in the user's state directory ([`mcp_shared::platform::state_dir`], or
//! `--journal-dir`): `mcp-suite/text-editor/journal/`, private (0700, files 0600), never inside a
//! root. When that place is inside a root, or cannot be made, the journal is kept in an
//! unlinked temporary file instead: undo and revert work for the process's life, and
//! `list_changes` says why they will not survive a restart.
//!
//! **What.** A change is a list of [`Effect`]s, one per file it touched: what the file was
//! before (absent, whole bytes, a splice of the bytes after, or the content another path has
//! after: a move), and the length and hash it had after. Effects of one *group* are undone
//! together (a move's two paths). Undoing or reverting is itself a change ([`Kind::Undo`],
//! [`Kind::Revert`]) whose effects take the files back, so it can be reverted in turn.
//!
//! `change.rs` holds what a change is, `store.rs` the log's bytes and frames, `plan.rs` the
//! taking back.
//!
//! **How.** The log (`journal.log`) is append-only frames: a header (JSON, with its xxh3) and
//! the effects' bytes (each with its xxh3). A change is appended as *begun* before its files
//! are written and as *done* (or *failed*) after; the writer holds the journal's lock (an
//! in-process mutex and an exclusive `flock` on `lock`) from one to the other, so another
//! process that finds a begun change without its end under the lock knows its writer died, and
//! settles it by the files ([`plan::settle`]): done if every file is as the change left it,
//! otherwise the files it did reach are put back and it is failed. A torn last frame (kill -9
//! in a write) is cut off. The log is not fsynced: a process's death loses nothing the kernel
//! was given, and a power loss can lose the record of the last changes, never record a change
//! that was not made (the files are fsynced before their change is marked done).
//!
//! **Bound.** When the log grows past `--journal-max-bytes`, it is rewritten without the oldest
//! changes (to three quarters of the bound), except those whose reply promised an undo
//! (`delete_file`, `move_file`) while they are not undone: their room is reserved before the
//! file is touched ([`Txn::room_for_pinned`]). Points before a dropped change cannot be reverted
//! to, and `list_changes` says so.

mod change;
mod compact;
mod damage;
mod place;
pub mod plan;
pub mod splice;
mod store;

pub use change::{Before, Change, Effect, Kind, Origin, State};
use place::{create_private_dirs, file_id_of_path, file_problem, open_private, place_problem};
use store::{Store, frame_bytes, read_frames};

use std::{
    collections::HashSet,
    fs::File,
    io::{self, Read, Seek, SeekFrom, Write},
    path::{Path, PathBuf},
    sync::{Mutex, MutexGuard, PoisonError},
};

use serde::{Deserialize, Serialize};

/// The default bound of a journal, in bytes of log (the undo history's former budget).
pub const DEFAULT_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// The default bound of a journal, in changes: what its index costs in memory once read (about
/// 400 bytes a change) stays under 8 MiB.
pub const DEFAULT_MAX_CHANGES: usize = 20_000;

/// The largest frame header read back (a header names the files of one change).
const MAX_HEADER_BYTES: u32 = 64 * 1024 * 1024;

/// How long a call waits for another process's hold on the journal (held for one change's
/// write, normally milliseconds) before it is refused.
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// The bytes before a frame's header: header length (u32), payload length (u64), a check of
/// the two lengths (u32), header hash (u64), all little-endian.
const FRAME_PREFIX: u64 = 24;

/// Why the journal could not be used.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// Reading or writing the journal's files failed.
    #[error("the change journal at {path} could not be used: {source}")]
    Io {
        /// The journal's directory.
        path: String,
        /// The error.
        source: io::Error,
    },
    /// Another process held the journal for longer than [`LOCK_WAIT`].
    #[error("the change journal at {path} was held by another process for longer than {} s (a server stuck in a write?); try again", LOCK_WAIT.as_secs())]
    Busy {
        /// The journal's directory.
        path: String,
    },
    /// A change's bytes did not read back as they were written.
    #[error("the change journal's record of change {seq} is damaged (its bytes do not match their hash)")]
    Damaged {
        /// The change.
        seq: u64,
    },
}

/// A frame of the log.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "frame", rename_all = "snake_case")]
enum Frame {
    /// The first frame: the journal's identity, and what a rewrite dropped.
    Header {
        nonce: String,
        #[serde(flatten)]
        carry: Carry,
    },
    /// A change begun (its payloads follow the header).
    Begin(Box<Change>),
    /// The change was written.
    Done { seq: u64 },
    /// Nothing of the change stayed.
    Failed { seq: u64 },
}

/// What a log's header carries from the log it follows (a rewrite, a damaged log set aside).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Carry {
    /// The highest change number dropped (0: none).
    dropped_through: u64,
    /// The number the next change gets.
    next_seq: u64,
    /// Earlier logs of this journal found damaged and kept aside.
    #[serde(default)]
    set_aside: Vec<SetAside>,
    /// Per root of the servers whose changes were dropped, the highest dropped change: no point
    /// before it can be reverted to in a workspace that overlaps that root.
    #[serde(default)]
    dropped: Vec<(PathBuf, u64)>,
    /// The number the next session gets.
    #[serde(default = "one")]
    next_session: u64,
}

fn one() -> u64 {
    1
}

impl Default for Carry {
    fn default() -> Self {
        Carry { dropped_through: 0, next_seq: 1, set_aside: Vec::new(), dropped: Vec::new(), next_session: 1 }
    }
}

/// An earlier log of a journal that was found damaged, kept aside (renamed) rather than cut.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetAside {
    /// Where it is kept.
    pub path: PathBuf,
    /// When it was set aside (ms since the Unix epoch).
    pub time_ms: u64,
    /// The changes that read back from it (they are listed no more, and cannot be undone from
    /// here).
    pub readable: u64,
    /// The number of its latest change that read back (the new log numbers on from it).
    pub latest: u64,
}

/// A fast 64-bit hash of a file's bytes (xxh3), to notice changes made by someone else.
pub fn fingerprint(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// Where a journal lives.
#[derive(Debug)]
enum Place {
    /// `dir/journal.log`, locked through `dir/lock`.
    Dir { dir: PathBuf, lock: Mutex<Option<File>> },
    /// An unlinked temporary file: this process's life only, and why.
    Anonymous { why: String },
}

/// The log as this process has read it.
#[derive(Debug)]
struct Log {
    file: Store,
    id: Option<mcp_shared::platform::FileId>,
    /// Where the frames read so far end.
    end: u64,
    nonce: String,
    changes: Vec<Change>,
    carry: Carry,
    /// The number of each session that made a change here.
    sessions: std::collections::HashMap<String, u64>,
}

impl Log {
    /// The log in `file`, not read yet.
    fn unread(file: Store) -> Log {
        Log {
            id: file.id(),
            file,
            end: 0,
            nonce: String::new(),
            changes: Vec::new(),
            carry: Carry::default(),
            sessions: std::collections::HashMap::new(),
        }
    }
}

/// A workspace's journal (opened on first use).
#[derive(Debug)]
pub struct Journal {
    place: Place,
    max_bytes: u64,
    max_changes: usize,
    fsync: bool,
    /// How long to wait for another process's hold ([`LOCK_WAIT`]).
    lock_wait: std::time::Duration,
    log: Mutex<Option<Log>>,
    /// Why a journal whose place looked right is kept in memory after all (a file there that is
    /// not private, a log of other roots).
    demoted: std::sync::OnceLock<String>,
}

/// Where the journal is kept under `base` (the state directory): one for every workspace of
/// this user, so that starting with more or fewer roots never hides a root's history, and a
/// change is recorded once.
pub fn dir_for(base: &Path) -> PathBuf {
    base.join("journal")
}

impl Journal {
    /// The journal of `roots` under `base` (`<state>/mcp-suite/text-editor`), or an anonymous
    /// one when there is none, when that place lies inside a root (compared by canonical path:
    /// a link into the workspace counts), or when it is not private to this user (its
    /// directories and files owned by this user, with no access for group or others; the
    /// directories above it writable only by this user or root, or sticky as `/tmp` is). Its
    /// directories are made here (0700).
    pub fn for_roots(base: Option<&Path>, roots: &[PathBuf], bound: (u64, usize), fsync: bool) -> Journal {
        let (max_bytes, max_changes) = bound;
        let place = match base {
            None => Place::Anonymous {
                why: "no state directory is known (no home directory, and no --journal-dir)".to_owned(),
            },
            Some(base) => {
                let dir = dir_for(base);
                match place_problem(&dir, roots) {
                    Some(why) => {
                        tracing::warn!(dir = %dir.display(), why, "the change journal is kept in memory for this process");
                        Place::Anonymous { why }
                    }
                    None => Place::Dir { dir, lock: Mutex::new(None) },
                }
            }
        };
        Journal {
            place,
            max_bytes,
            max_changes: max_changes.max(1),
            fsync,
            lock_wait: LOCK_WAIT,
            log: Mutex::new(None),
            demoted: std::sync::OnceLock::new(),
        }
    }

    /// Why the journal does not outlive this process (`None`: it does).
    pub fn transient_because(&self) -> Option<&str> {
        match &self.place {
            Place::Anonymous { why } => Some(why),
            Place::Dir { .. } => self.demoted.get().map(String::as_str),
        }
    }

    /// Where the journal is kept (`None`: in an unlinked temporary file).
    pub fn dir(&self) -> Option<&Path> {
        match &self.place {
            Place::Dir { dir, .. } if self.demoted.get().is_none() => Some(dir),
            _ => None,
        }
    }

    /// The bound, in bytes of log.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    fn error(&self, source: io::Error) -> JournalError {
        let path = self.dir().map_or_else(|| "(a temporary file)".to_owned(), |d| d.display().to_string());
        JournalError::Io { path, source }
    }

    /// Takes the journal for one operation: this process's other calls wait, and so do other
    /// processes on the same journal; the log is brought up to date first.
    pub fn lock(&self) -> Result<Txn<'_>, JournalError> {
        let log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        let mut txn = Txn { journal: self, log, locked: false };
        if let Place::Dir { dir, lock } = &self.place
            && self.demoted.get().is_none()
        {
            let mut lock = lock.lock().unwrap_or_else(PoisonError::into_inner);
            if lock.is_none() {
                create_private_dirs(dir).map_err(|e| self.error(e))?;
                let file = open_private(&dir.join("lock"), false).map_err(|e| self.error(e))?;
                if let Some(why) = file_problem(&dir.join("lock"), &file) {
                    self.demote(why);
                    drop(lock);
                    txn.refresh().map_err(|e| self.error(e))?;
                    return Ok(txn);
                }
                *lock = Some(file);
            }
            if let Some(file) = lock.as_ref() {
                let deadline = std::time::Instant::now() + self.lock_wait;
                let mut pause = std::time::Duration::from_millis(1);
                loop {
                    match file.try_lock() {
                        Ok(()) => break,
                        Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                            std::thread::sleep(pause);
                            pause = (pause * 2).min(std::time::Duration::from_millis(20));
                        }
                        Err(std::fs::TryLockError::WouldBlock) => {
                            return Err(JournalError::Busy { path: dir.display().to_string() });
                        }
                        Err(std::fs::TryLockError::Error(e)) => return Err(self.error(e)),
                    }
                }
                txn.locked = true;
            }
        }
        txn.refresh().map_err(|e| self.error(e))?;
        Ok(txn)
    }
}

impl Journal {
    /// Keeps this journal in memory from now on, for `why`.
    fn demote(&self, why: String) {
        tracing::error!(why, "the change journal is kept in memory for this process");
        let _ = self.demoted.set(why);
    }
}

/// The journal, held for one operation ([`Journal::lock`]).
pub struct Txn<'a> {
    journal: &'a Journal,
    log: MutexGuard<'a, Option<Log>>,
    locked: bool,
}

impl Drop for Txn<'_> {
    fn drop(&mut self) {
        if self.locked
            && let Place::Dir { lock, .. } = &self.journal.place
            && let Some(file) = lock.lock().unwrap_or_else(PoisonError::into_inner).as_ref()
        {
            let _ = file.unlock();
        }
    }
}

impl Txn<'_> {
    fn log(&mut self) -> io::Result<&mut Log> {
        self.log.as_mut().ok_or_else(|| io::Error::other("the journal is not open"))
    }

    /// The journal this holds.
    pub fn journal(&self) -> &Journal {
        self.journal
    }

    /// Every change read, oldest first.
    pub fn changes(&self) -> &[Change] {
        self.log.as_ref().map_or(&[], |log| &log.changes)
    }

    /// The change numbered `seq`.
    pub fn change(&self, seq: u64) -> Option<&Change> {
        let changes = self.changes();
        changes.binary_search_by_key(&seq, |c| c.seq).ok().map(|at| &changes[at])
    }

    /// The highest change number dropped to stay within the bound (0: none).
    pub fn dropped_through(&self) -> u64 {
        self.log.as_ref().map_or(0, |log| log.carry.dropped_through)
    }

    /// The earliest point a revert in a workspace of `roots` can go back to: the highest change
    /// dropped of those made by a server whose roots overlap these (0: none).
    pub fn earliest_point(&self, roots: &[PathBuf]) -> u64 {
        let Some(log) = self.log.as_ref() else { return 0 };
        log.carry
            .dropped
            .iter()
            .filter(|(root, _)| {
                root.as_os_str().is_empty() || roots.iter().any(|r| r.starts_with(root) || root.starts_with(r))
            })
            .map(|(_, seq)| *seq)
            .max()
            .unwrap_or(0)
    }

    /// The number the next change will get, less one: the latest change's.
    pub fn latest_seq(&self) -> u64 {
        self.log.as_ref().map_or(0, |log| log.carry.next_seq.saturating_sub(1))
    }

    /// The id of change `seq` for `if_change`: the journal's own prefix and the number, so an
    /// id made for another journal (or one since deleted) never names a change of this one.
    pub fn id_of(&self, seq: u64) -> String {
        format!("{}-{seq}", self.log.as_ref().map_or("", |log| log.nonce.as_str()))
    }

    /// The change number in `id` (made by [`Txn::id_of`] for this journal), if it is one.
    pub fn seq_of(&self, id: &str) -> Option<u64> {
        let nonce = &self.log.as_ref()?.nonce;
        id.strip_prefix(nonce.as_str())?.strip_prefix('-')?.parse().ok()
    }

    /// The groups that are undone now: taken back by a change that was done and is not itself
    /// taken back whole (a revert that was reverted undoes nothing any more).
    pub fn undone(&self) -> HashSet<(u64, u32)> {
        let mut undone = HashSet::new();
        for change in self.changes().iter().rev() {
            if change.state != State::Done || change.undoes.is_empty() {
                continue;
            }
            let groups = change.groups();
            let taken_back = !groups.is_empty() && groups.iter().all(|g| undone.contains(&(change.seq, *g)));
            if !taken_back {
                undone.extend(change.undoes.iter().copied());
            }
        }
        undone
    }

    /// The earlier logs of this journal found damaged and kept aside.
    pub fn set_aside(&self) -> &[SetAside] {
        self.log.as_ref().map_or(&[], |log| &log.carry.set_aside)
    }

    /// Bytes held by pinned changes not undone.
    pub fn pinned_bytes(&self) -> u64 {
        let undone = self.undone();
        self.changes()
            .iter()
            .filter(|c| c.pinned && c.state == State::Done && !c.groups().iter().all(|g| undone.contains(&(c.seq, *g))))
            .map(Change::payload_bytes)
            .sum()
    }

    /// Bytes a pinned change may still hold: what the bound leaves beside the pinned ones.
    pub fn room_for_pinned(&self) -> u64 {
        self.journal.max_bytes.saturating_sub(self.pinned_bytes())
    }

    /// Brings the log up to date: opened (and made) the first time, read again whole when
    /// another process rewrote it, else read from where this process stopped.
    fn refresh(&mut self) -> io::Result<()> {
        let path = match &self.journal.place {
            Place::Dir { dir, .. } if self.journal.demoted.get().is_none() => dir.join("journal.log"),
            _ => {
                if self.log.is_none() {
                    *self.log = Some(self.new_log(Store::temporary(), Carry::default())?);
                }
                return Ok(());
            }
        };
        let on_disk = match std::fs::metadata(&path) {
            Ok(md) => Some(md),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        let same = match (&*self.log, &on_disk) {
            (Some(log), Some(md)) => {
                let id = log.file.id();
                id.is_some() && id == log.id && md.len() >= log.end && file_id_of_path(&path) == id
            }
            _ => false,
        };
        if same {
            let log = self.log()?;
            let end = log.file.len()?;
            if end <= log.end || read_frames(log, end)? {
                return Ok(());
            }
            if let Some(old) = self.log.take() {
                *self.log = Some(self.replace_damaged(&path, old)?);
                return Ok(());
            }
        }
        let opened = open_private(&path, false)?;
        if let Some(why) = file_problem(&path, &opened) {
            self.journal.demote(why);
            *self.log = Some(self.new_log(Store::temporary(), Carry::default())?);
            return Ok(());
        }
        let file = Store::File(opened);
        let log = if file.len()? == 0 {
            self.new_log(file, Carry::default())?
        } else {
            let mut log = Log::unread(file);
            let end = log.file.len()?;
            let read = read_frames(&mut log, end)?;
            if read && log.end == 0 {
                // Only a torn first frame: the log's making was cut short.
                self.new_log(log.file, Carry::default())?
            } else if read && !log.nonce.is_empty() {
                log
            } else {
                // Damaged, or not a journal this server wrote (its first frame is no header):
                // kept aside for whoever wants to look, and a new one started that numbers on.
                self.replace_damaged(&path, log)?
            }
        };
        *self.log = Some(log);
        Ok(())
    }

    /// A new, empty log in `file`, its header written.
    fn new_log(&self, mut file: Store, carry: Carry) -> io::Result<Log> {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let nonce = format!("{:x}", fingerprint(format!("{}-{nanos}", std::process::id()).as_bytes()));
        let header = Frame::Header { nonce: nonce.clone(), carry: carry.clone() };
        let bytes = frame_bytes(&header, &[])?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&bytes)?;
        Ok(Log {
            id: file.id(),
            file,
            end: bytes.len() as u64,
            nonce,
            changes: Vec::new(),
            carry,
            sessions: std::collections::HashMap::new(),
        })
    }

    /// Appends `frame` with `payloads`; where the payloads start.
    fn append(&mut self, frame: &Frame, payloads: &[&[u8]]) -> io::Result<(u64, u64)> {
        let bytes = frame_bytes(frame, payloads)?;
        let header_len = u64::from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]));
        let log = self.log()?;
        log.file.seek(SeekFrom::Start(log.end))?;
        if let Err(error) = log.file.write_all(&bytes) {
            // A part written would be read as a torn frame: cut it now.
            let _ = log.file.set_len(log.end);
            return Err(error);
        }
        let at = log.end;
        log.end += bytes.len() as u64;
        Ok((at + FRAME_PREFIX + header_len, bytes.len() as u64))
    }

    /// Records `change` as begun, its payloads (one per effect, empty where it has none) with
    /// it; gives its number. Its files are written next, then [`Txn::finish`].
    pub fn begin(&mut self, mut change: Change, payloads: &[&[u8]]) -> Result<u64, JournalError> {
        let (seq, now) = {
            let journal = self.journal;
            let log = self.log().map_err(|e| journal.error(e))?;
            (log.carry.next_seq, std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH))
        };
        change.seq = seq;
        change.session_no = self.session_no(&change.session).map_err(|e| self.journal.error(e))?;
        change.time_ms = now.map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        for (effect, payload) in change.effects.iter_mut().zip(payloads) {
            effect.payload = (payload.len() as u64, fingerprint(payload));
        }
        let frame = Frame::Begin(Box::new(change));
        let (mut at, frame_len) = self.append(&frame, payloads).map_err(|e| self.journal.error(e))?;
        let Frame::Begin(mut change) = frame else {
            return Err(self.journal.error(io::Error::other("not a change")));
        };
        for effect in &mut change.effects {
            effect.payload_at = at;
            at += effect.payload.0;
        }
        change.frame_len = frame_len;
        change.state = State::Pending;
        let journal = self.journal;
        let log = self.log().map_err(|e| journal.error(e))?;
        log.carry.next_seq = seq + 1;
        log.changes.push(*change);
        Ok(seq)
    }

    /// Records the end of change `seq`: done (its files were written) or failed (none stayed).
    pub fn finish(&mut self, seq: u64, done: bool) -> Result<(), JournalError> {
        let frame = if done { Frame::Done { seq } } else { Frame::Failed { seq } };
        let (_, len) = self.append(&frame, &[]).map_err(|e| self.journal.error(e))?;
        let journal = self.journal;
        let log = self.log().map_err(|e| journal.error(e))?;
        if let Some(change) = log.changes.iter_mut().rev().find(|c| c.seq == seq) {
            change.state = if done { State::Done } else { State::Failed };
            change.frame_len += len;
        }
        if log.end > journal.max_bytes || log.changes.len() > journal.max_changes {
            self.compact().map_err(|e| self.journal.error(e))?;
        }
        Ok(())
    }

    /// The payload of `effect` (of change `seq`), checked against its hash.
    pub fn payload(&mut self, seq: u64, effect: &Effect) -> Result<Vec<u8>, JournalError> {
        let journal = self.journal;
        let log = self.log().map_err(|e| journal.error(e))?;
        let len = usize::try_from(effect.payload.0).map_err(|_| JournalError::Damaged { seq })?;
        let mut bytes = vec![0; len];
        log.file.seek(SeekFrom::Start(effect.payload_at)).map_err(|e| self.journal.error(e))?;
        let journal = self.journal;
        let log = self.log().map_err(|e| journal.error(e))?;
        log.file.read_exact(&mut bytes).map_err(|_| JournalError::Damaged { seq })?;
        if fingerprint(&bytes) != effect.payload.1 {
            return Err(JournalError::Damaged { seq });
        }
        Ok(bytes)
    }

    /// The number of `session` (given it at its first change here).
    fn session_no(&mut self, session: &str) -> io::Result<u64> {
        let log = self.log()?;
        if let Some(no) = log.sessions.get(session) {
            return Ok(*no);
        }
        let no = log.carry.next_session.max(1);
        log.carry.next_session = no + 1;
        log.sessions.insert(session.to_owned(), no);
        Ok(no)
    }

    /// The changes begun and not ended: their writer died (see [`plan::settle`]).
    pub(crate) fn pending(&self) -> Vec<u64> {
        self.changes().iter().filter(|c| c.state == State::Pending).map(|c| c.seq).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn effect(path: &str, before: Before, after: Option<&[u8]>) -> Effect {
        Effect {
            path: PathBuf::from(path),
            group: 0,
            before,
            after: after.map(|a| (a.len() as u64, fingerprint(a))),
            payload: (0, 0),
            payload_at: 0,
        }
    }

    fn journal(dir: &Path, max: u64) -> Journal {
        Journal::for_roots(Some(dir), &[PathBuf::from("/nowhere/root")], (max, DEFAULT_MAX_CHANGES), false)
    }

    #[test]
    fn changes_and_their_bytes_read_back_in_another_journal_on_the_same_place() {
        let dir = tempfile::tempdir().unwrap();
        let a = journal(dir.path(), DEFAULT_MAX_BYTES);
        let mut txn = a.lock().unwrap();
        let change =
            Change::new(&Origin::new("t", "s"), Kind::Edit, vec![effect("/r/a", Before::Bytes { mode: 0o644 }, None)]);
        let seq = txn.begin(change, &[b"old bytes"]).unwrap();
        txn.finish(seq, true).unwrap();
        let id = txn.id_of(seq);
        drop(txn);
        let b = journal(dir.path(), DEFAULT_MAX_BYTES);
        let mut txn = b.lock().unwrap();
        assert_eq!(txn.changes().len(), 1);
        assert_eq!(txn.seq_of(&id), Some(seq));
        let change = txn.changes()[0].clone();
        assert_eq!(change.state, State::Done);
        assert_eq!(txn.payload(seq, &change.effects[0]).unwrap(), b"old bytes");
        // A's next change sees B's state: appended after, numbered after.
        let seq2 = txn.begin(Change::new(&Origin::new("t", "s"), Kind::Edit, vec![]), &[]).unwrap();
        txn.finish(seq2, true).unwrap();
        drop(txn);
        let txn = a.lock().unwrap();
        assert_eq!(txn.changes().iter().map(|c| c.seq).collect::<Vec<_>>(), vec![1, 2]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let log = dir_for(dir.path()).join("journal.log");
            assert_eq!(std::fs::metadata(log).unwrap().permissions().mode() & 0o777, 0o600);
        }
    }

    #[test]
    fn a_torn_last_frame_is_cut_off_and_a_begun_change_stays_pending() {
        let dir = tempfile::tempdir().unwrap();
        let a = journal(dir.path(), DEFAULT_MAX_BYTES);
        let mut txn = a.lock().unwrap();
        let seq = txn.begin(Change::new(&Origin::new("t", "s"), Kind::Edit, vec![]), &[]).unwrap();
        txn.finish(seq, true).unwrap();
        let pending = txn.begin(Change::new(&Origin::new("t", "s"), Kind::Edit, vec![]), &[]).unwrap();
        drop(txn);
        let log = dir_for(dir.path()).join("journal.log");
        let good = std::fs::metadata(&log).unwrap().len();
        // Half a frame, as a kill in the middle of a write leaves it.
        let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        file.write_all(&frame_bytes(&Frame::Done { seq: pending }, &[]).unwrap()[..10]).unwrap();
        drop(file);
        let b = journal(dir.path(), DEFAULT_MAX_BYTES);
        let txn = b.lock().unwrap();
        assert_eq!(txn.pending(), vec![pending]);
        assert_eq!(std::fs::metadata(&log).unwrap().len(), good);
    }

    /// A journal of three changes with payloads (one pinned, one pending), and its log's bytes.
    fn small_journal(dir: &Path) -> (Vec<u8>, Vec<String>) {
        let j = journal(dir, DEFAULT_MAX_BYTES);
        let mut txn = j.lock().unwrap();
        let mut pinned = Change::new(
            &Origin::new("delete_file", "s1"),
            Kind::Edit,
            vec![effect("/r/p", Before::Bytes { mode: 0o600 }, None)],
        );
        pinned.pinned = true;
        let seq = txn.begin(pinned, &[b"deleted secret"]).unwrap();
        txn.finish(seq, true).unwrap();
        let e = effect("/r/a", Before::Splice { offset: 2, inserted_len: 3 }, Some(b"abXYZ"));
        let seq = txn.begin(Change::new(&Origin::new("text_editor", "s1"), Kind::Edit, vec![e]), &[b"cd"]).unwrap();
        txn.finish(seq, true).unwrap();
        let e = effect("/r/b", Before::Absent, Some(b"new"));
        txn.begin(Change::new(&Origin::new("text_editor", "s2"), Kind::Edit, vec![e]), &[b""]).unwrap();
        let shown = changes_shown(&txn);
        drop(txn);
        (std::fs::read(dir_for(dir).join("journal.log")).unwrap(), shown)
    }

    /// Each change as read back, with its payloads.
    fn changes_shown(txn: &Txn<'_>) -> Vec<String> {
        let changes = txn.changes().to_vec();
        let mut txn_bytes = Vec::new();
        for change in &changes {
            let mut change = change.clone();
            change.frame_len = 0;
            for effect in &mut change.effects {
                effect.payload_at = 0;
            }
            txn_bytes.push(format!("{change:?}"));
        }
        txn_bytes
    }

    fn write_private(path: &Path, bytes: &[u8]) {
        let mut file = open_private(path, true).unwrap();
        file.write_all(bytes).unwrap();
    }

    /// The log's files after opening the journal of `dir` whose log holds `bytes`: the changes
    /// read back, and what was set aside (its bytes).
    fn reopen(dir: &Path, bytes: &[u8]) -> (Vec<String>, Option<Vec<u8>>, u64) {
        let log = dir_for(dir).join("journal.log");
        let j = journal(dir, DEFAULT_MAX_BYTES);
        write_private(&log, bytes);
        let mut txn = j.lock().unwrap();
        let shown = changes_shown(&txn);
        let aside = txn.set_aside().first().map(|a| std::fs::read(&a.path).unwrap());
        // The journal goes on: a new change gets a number never given before.
        let seq = txn.begin(Change::new(&Origin::new("t", "s"), Kind::Edit, vec![]), &[]).unwrap();
        txn.finish(seq, true).unwrap();
        (shown, aside, seq)
    }

    #[test]
    fn every_flipped_byte_reads_back_the_same_changes_or_sets_the_log_aside_whole() {
        let dir = tempfile::tempdir().unwrap();
        let (bytes, original) = small_journal(dir.path());
        let mut aside_count = 0;
        for at in 0..bytes.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut damaged = bytes.clone();
                damaged[at] ^= flip;
                let case = tempfile::tempdir().unwrap();
                let (shown, aside, seq) = reopen(case.path(), &damaged);
                match aside {
                    Some(kept) => {
                        aside_count += 1;
                        assert_eq!(kept, damaged, "byte {at} ^ {flip:#x}: the damaged log is kept as it was");
                        // What did read back is carried over unchanged, in order (a change whose
                        // end is damaged as begun, settled by its files).
                        let done = |s: &String| s.replace("state: Pending", "state: Done");
                        let shown: Vec<String> = shown.iter().map(done).collect();
                        let original: Vec<String> = original.iter().map(done).collect();
                        assert_eq!(shown[..], original[..shown.len()], "byte {at} ^ {flip:#x}");
                        // Every number a whole frame names is passed (the begun change 3, whose
                        // own record may be the damaged one, never reached its files).
                        assert!(seq >= 3, "byte {at} ^ {flip:#x}: numbering goes on ({seq})");
                    }
                    None => {
                        assert_eq!(shown, original, "byte {at} ^ {flip:#x}: no damage seen, so nothing may differ");
                        assert_eq!(seq, 4);
                    }
                }
            }
        }
        assert!(aside_count > bytes.len() * 2, "nearly every flip is seen ({aside_count})");
    }

    #[test]
    fn every_cut_reads_back_the_whole_frames_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let (bytes, original) = small_journal(dir.path());
        for len in 1..bytes.len() {
            let case = tempfile::tempdir().unwrap();
            let (shown, aside, _) = reopen(case.path(), &bytes[..len]);
            assert!(aside.is_none(), "a cut at {len} is a torn tail, not damage");
            for (got, want) in shown.iter().zip(&original) {
                // A change whose end was cut off reads back begun (settled by its files).
                assert_eq!(got.replace("state: Pending", "state: Done"), want.replace("state: Pending", "state: Done"));
            }
        }
    }

    #[test]
    fn a_damaged_length_in_the_middle_is_not_taken_for_a_torn_tail() {
        let dir = tempfile::tempdir().unwrap();
        let (bytes, original) = small_journal(dir.path());
        // The second frame's payload length, made huge: it would run past the end.
        let header_len = u32::from_le_bytes(bytes[0..4].try_into().unwrap()) as usize;
        let second = FRAME_PREFIX as usize + header_len;
        let mut damaged = bytes.clone();
        damaged[second + 11] ^= 0x40;
        let case = tempfile::tempdir().unwrap();
        let (shown, aside, seq) = reopen(case.path(), &damaged);
        assert_eq!(aside.as_deref(), Some(&damaged[..]), "kept aside whole, not cut");
        assert!(shown.is_empty());
        assert!(seq > 3, "{seq}: numbering does not restart at 1 ({original:?})");
    }

    #[test]
    fn the_bound_drops_the_oldest_but_never_a_pinned_change() {
        let dir = tempfile::tempdir().unwrap();
        let j = journal(dir.path(), 64 * 1024);
        let mut txn = j.lock().unwrap();
        let mut pinned = Change::new(
            &Origin::new("delete_file", "s"),
            Kind::Edit,
            vec![effect("/r/p", Before::Bytes { mode: 0o600 }, None)],
        );
        pinned.pinned = true;
        let first = txn.begin(pinned, &[&[7u8; 1000]]).unwrap();
        txn.finish(first, true).unwrap();
        for _ in 0..200 {
            let e = effect("/r/a", Before::Splice { offset: 0, inserted_len: 0 }, Some(b"x"));
            let seq = txn.begin(Change::new(&Origin::new("t", "s"), Kind::Edit, vec![e]), &[&[1u8; 1000]]).unwrap();
            txn.finish(seq, true).unwrap();
        }
        assert!(txn.dropped_through() > 1, "old changes were dropped");
        assert_eq!(txn.changes()[0].seq, first, "the pinned change stays");
        let effect0 = txn.changes()[0].effects[0].clone();
        assert_eq!(txn.payload(first, &effect0).unwrap(), vec![7u8; 1000]);
        assert_eq!(txn.latest_seq(), 201);
        drop(txn);
        let log = dir_for(dir.path()).join("journal.log");
        assert!(std::fs::metadata(log).unwrap().len() <= 64 * 1024);
        let again = journal(dir.path(), 64 * 1024);
        let txn = again.lock().unwrap();
        assert_eq!(txn.latest_seq(), 201);
        assert!(txn.dropped_through() > 1);
    }

    #[test]
    fn a_journal_held_too_long_by_another_process_is_a_quick_clear_refusal() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = journal(dir.path(), DEFAULT_MAX_BYTES);
        j.lock_wait = std::time::Duration::from_millis(100);
        drop(j.lock().unwrap());
        // Another process's hold: a second open file description of the lock file.
        let other = File::options().write(true).open(dir_for(dir.path()).join("lock")).unwrap();
        other.lock().unwrap();
        assert!(matches!(j.lock(), Err(JournalError::Busy { .. })), "refused, not waited on for ever");
        other.unlock().unwrap();
        assert!(j.lock().is_ok());
    }

    #[test]
    fn the_bound_in_changes_keeps_the_index_small() {
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::for_roots(Some(dir.path()), &[PathBuf::from("/nowhere/root")], (DEFAULT_MAX_BYTES, 40), false);
        let mut txn = j.lock().unwrap();
        for _ in 0..100 {
            let seq = txn.begin(Change::new(&Origin::new("t", "s"), Kind::Edit, vec![]), &[]).unwrap();
            txn.finish(seq, true).unwrap();
        }
        assert!(txn.changes().len() <= 40, "{}", txn.changes().len());
        assert_eq!(txn.changes().last().unwrap().seq, 100);
        assert!(txn.dropped_through() >= 60);
    }

    #[test]
    fn every_root_set_shares_one_journal_and_sessions_keep_their_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let one = [PathBuf::from("/a")];
        let two = [PathBuf::from("/a"), PathBuf::from("/b")];
        let first = Journal::for_roots(Some(dir.path()), &one, (1 << 20, 100), false);
        let second = Journal::for_roots(Some(dir.path()), &two, (1 << 20, 100), false);
        assert_eq!(first.dir(), second.dir());
        let record = |j: &Journal, session: &str| {
            let mut txn = j.lock().unwrap();
            let seq = txn.begin(Change::new(&Origin::new("t", session), Kind::Edit, vec![]), &[]).unwrap();
            txn.finish(seq, true).unwrap();
            seq
        };
        assert_eq!(record(&first, "s1"), 1);
        assert_eq!(record(&second, "s2"), 2);
        assert_eq!(record(&first, "s1"), 3);
        // Read again from the disk: the numbers are the journal's, not the process's.
        let again = Journal::for_roots(Some(dir.path()), &one, (1 << 20, 100), false);
        assert_eq!(record(&again, "s3"), 4);
        let txn = again.lock().unwrap();
        let numbers: Vec<u64> = txn.changes().iter().map(|c| c.session_no).collect();
        assert_eq!(numbers, [1, 2, 1, 3]);
    }

    #[test]
    fn a_dropped_change_moves_the_earliest_point_of_its_roots_only() {
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::for_roots(Some(dir.path()), &[PathBuf::from("/a")], (DEFAULT_MAX_BYTES, 40), false);
        let mut txn = j.lock().unwrap();
        for i in 0..60 {
            let root = if i < 10 { "/a" } else { "/b" };
            let mut change = Change::new(&Origin::new("t", "s"), Kind::Edit, vec![]);
            change.roots = vec![PathBuf::from(root)];
            let seq = txn.begin(change, &[]).unwrap();
            txn.finish(seq, true).unwrap();
        }
        assert!(txn.dropped_through() > 10, "changes of /b were dropped too");
        assert_eq!(txn.earliest_point(&[PathBuf::from("/a")]), 10);
        assert_eq!(txn.earliest_point(&[PathBuf::from("/a/sub")]), 10);
        assert_eq!(txn.earliest_point(&[PathBuf::from("/c")]), 0);
        assert_eq!(txn.earliest_point(&[PathBuf::from("/b")]), txn.dropped_through());
    }

    #[test]
    fn a_place_inside_a_root_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::for_roots(Some(&dir.path().join("state")), &[dir.path().to_path_buf()], (1 << 20, 100), false);
        assert!(j.transient_because().unwrap().contains("inside the workspace"));
        let mut txn = j.lock().unwrap();
        let seq = txn.begin(Change::new(&Origin::new("t", "s"), Kind::Edit, vec![]), &[]).unwrap();
        txn.finish(seq, true).unwrap();
        assert!(!dir.path().join("state").exists());
    }
}
