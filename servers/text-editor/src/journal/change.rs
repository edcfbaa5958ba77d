//! What the journal records: a change, the effect it had on each file, who made it, its fate.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::fingerprint;

/// What a file was before a change, given what it is after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "was", rename_all = "snake_case")]
pub enum Before {
    /// It did not exist (the change created it).
    Absent,
    /// These bytes (the payload), with these permission bits.
    Bytes {
        /// Permission bits.
        mode: u32,
    },
    /// The bytes after, with `inserted_len` bytes at `offset` replaced by the payload.
    Splice {
        /// Where the change starts.
        offset: u64,
        /// How many bytes the change put there.
        inserted_len: u64,
    },
    /// The content `path` has after the change (a move's source), with these permission bits.
    SameAs {
        /// The other path of the change.
        path: PathBuf,
        /// Permission bits.
        mode: u32,
    },
}

/// What a change did to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Effect {
    /// The file (absolute).
    pub path: PathBuf,
    /// Effects of one group are undone together.
    pub group: u32,
    /// What the file was before.
    pub before: Before,
    /// Its length and [`fingerprint`] after; `None`: it did not exist after.
    pub after: Option<(u64, u64)>,
    /// The payload's length and hash.
    #[serde(default)]
    pub payload: (u64, u64),
    /// Where the payload is in the log (set when it is written or read).
    #[serde(skip)]
    pub payload_at: u64,
}

impl Effect {
    /// What a change did to `path`: it was `before`, and is `after` (`None`: absent), in group 0.
    pub fn new(path: PathBuf, before: Before, after: Option<&[u8]>) -> Effect {
        Effect {
            path,
            group: 0,
            before,
            after: after.map(|a| (a.len() as u64, fingerprint(a))),
            payload: (0, 0),
            payload_at: 0,
        }
    }

    /// Whether `current` (`None`: no file) is the file as this change left it.
    pub fn left(&self, current: Option<&[u8]>) -> bool {
        match (self.after, current) {
            (None, None) => true,
            (Some((len, hash)), Some(bytes)) => bytes.len() as u64 == len && fingerprint(bytes) == hash,
            _ => false,
        }
    }
}

/// Who made a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A writing tool's change.
    Edit,
    /// `undo_edit`: it undid the groups it names.
    Undo,
    /// `revert_changes`: it reverted the groups it names.
    Revert,
}

/// Who makes a change: the tool (and command) and the session, as the journal records them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The tool, e.g. `text_editor str_replace`.
    pub tool: String,
    /// The session's label (unique to it: its process, and its HTTP session).
    pub session: String,
    /// The client (its MCP `clientInfo` name and version; empty: it did not say).
    pub client: String,
    /// When the session started (ms since the Unix epoch).
    pub started_ms: u64,
}

impl Origin {
    /// `tool` of `session`, by an unnamed client, started at an unknown time.
    pub fn new(tool: &str, session: &str) -> Origin {
        Origin { tool: tool.to_owned(), session: session.to_owned(), client: String::new(), started_ms: 0 }
    }
}

/// A change's fate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum State {
    /// Begun; its files may or may not be written yet.
    #[default]
    Pending,
    /// Its files were written.
    Done,
    /// Nothing of it stayed.
    Failed,
}

/// One change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// Its number (from 1).
    pub seq: u64,
    /// When, in milliseconds since the Unix epoch.
    pub time_ms: u64,
    /// The tool (and command) that made it, e.g. `text_editor str_replace`.
    pub tool: String,
    /// The session that made it (a label unique to it: its process and HTTP session).
    pub session: String,
    /// The session's number in this journal (from 1; given at its first change).
    #[serde(default)]
    pub session_no: u64,
    /// The client that made it (its MCP `clientInfo`: name and version), if it said.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub client: String,
    /// When its session started, in milliseconds since the Unix epoch.
    #[serde(default)]
    pub session_started_ms: u64,
    /// The roots of the server that made it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roots: Vec<PathBuf>,
    /// What kind of change.
    pub kind: Kind,
    /// Its reply promised an undo (`delete_file`, `move_file`): never dropped while not undone.
    #[serde(default)]
    pub pinned: bool,
    /// The groups it undid or reverted: `(change, group)`.
    #[serde(default)]
    pub undoes: Vec<(u64, u32)>,
    /// Directories it created (deepest first): its undo removes those left empty.
    #[serde(default)]
    pub dirs: Vec<PathBuf>,
    /// What it did to each file.
    pub effects: Vec<Effect>,
    /// Its fate.
    #[serde(skip)]
    pub state: State,
    /// The bytes of its frame in the log.
    #[serde(skip)]
    pub(super) frame_len: u64,
}

impl Change {
    /// A change to be begun by `origin`: `seq`, `time_ms` and `session_no` are set by
    /// [`Txn::begin`](super::Txn::begin), `roots` by the caller.
    pub fn new(origin: &Origin, kind: Kind, effects: Vec<Effect>) -> Change {
        Change {
            seq: 0,
            time_ms: 0,
            tool: origin.tool.clone(),
            session: origin.session.clone(),
            session_no: 0,
            client: origin.client.clone(),
            session_started_ms: origin.started_ms,
            roots: Vec::new(),
            kind,
            pinned: false,
            undoes: Vec::new(),
            dirs: Vec::new(),
            effects,
            state: State::Pending,
            frame_len: 0,
        }
    }

    /// The groups of its effects, in order.
    pub fn groups(&self) -> Vec<u32> {
        let mut groups: Vec<u32> = Vec::new();
        for effect in &self.effects {
            if !groups.contains(&effect.group) {
                groups.push(effect.group);
            }
        }
        groups
    }

    /// Whether it touched `path`.
    pub fn touches(&self, path: &Path) -> bool {
        self.effects.iter().any(|e| e.path == path)
    }

    /// Bytes `payloads` hold (those [`Txn::begin`] would write with it).
    pub fn payload_bytes_of(&self, payloads: &[&[u8]]) -> u64 {
        payloads.iter().map(|p| p.len() as u64).sum()
    }

    /// Bytes its payloads hold.
    pub fn payload_bytes(&self) -> u64 {
        self.effects.iter().map(|e| e.payload.0).sum()
    }
}
