//! Undo history: per file, a bounded stack of byte-level changes.
//!
//! A record stores only what an edit removed (and where), not the whole file, so a small edit
//! of a large file costs little memory. Each record also stores the length and hash of the
//! file right after the edit: undo refuses (`CONFLICT`) when the file no longer matches, i.e.
//! someone else changed it since. The history is bounded per file by `--undo-depth` and
//! overall by a byte budget; the oldest records go first.
//!
//! Except the records that are the only way back: a deleted file's bytes, a move's way back
//! and the file a move replaced ([`Record::is_pinned`]). Their replies promise an `undo_edit`,
//! so nothing later evicts them; `delete_file` and `move_file` reserve their room before they
//! touch the file ([`History::reserve_pinned`]) and refuse when the budget has none.

use std::{
    collections::{HashMap, VecDeque},
    path::{Path, PathBuf},
};

/// What the stored records may hold in total, in bytes of removed text.
pub const DEFAULT_BUDGET_BYTES: usize = 256 * 1024 * 1024;

/// What an edit did, in the file's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The edit created the file; undo deletes it.
    Created,
    /// `delete_file` removed the file; undo writes `bytes` back with permission bits `mode`.
    Deleted {
        /// The file's whole content.
        bytes: Vec<u8>,
        /// Its permission bits.
        mode: u32,
    },
    /// `move_file` moved the file here from `from` (an absolute path, resolved again through
    /// the sandbox at undo time); undo moves it back, and restores the file it replaced, if any.
    Moved {
        /// Where the file was.
        from: String,
        /// Its permission bits there.
        mode: u32,
        /// The file that was at the destination and was overwritten (content, permission bits).
        overwritten: Option<(Vec<u8>, u32)>,
        /// The directories the move created for the destination (absolute, deepest first):
        /// undo removes those that are empty again.
        created_dirs: Vec<String>,
    },
    /// The edit replaced `removed` at `offset` with `inserted_len` new bytes.
    Splice {
        /// Where the change starts.
        offset: usize,
        /// The bytes the edit removed.
        removed: Vec<u8>,
        /// How many bytes the edit put in their place.
        inserted_len: usize,
    },
}

/// One undoable edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// What the edit did.
    pub change: Change,
    /// The file's length right after the edit.
    pub after_len: u64,
    /// The file's hash ([`fingerprint`]) right after the edit.
    pub after_hash: u64,
    seq: u64,
}

impl Record {
    /// A record of `change` that left the file as `after`.
    pub fn new(change: Change, after: &[u8]) -> Record {
        Record { change, after_len: after.len() as u64, after_hash: fingerprint(after), seq: 0 }
    }

    /// Whether `current` is the file exactly as this edit left it.
    pub fn matches(&self, current: &[u8]) -> bool {
        current.len() as u64 == self.after_len && fingerprint(current) == self.after_hash
    }

    /// The bytes before the edit, given the bytes right after it.
    pub fn reverse(&self, after: &[u8]) -> Option<Vec<u8>> {
        match &self.change {
            Change::Created | Change::Deleted { .. } | Change::Moved { .. } => None,
            Change::Splice { offset, removed, inserted_len } => {
                let end = offset.checked_add(*inserted_len)?;
                let head = after.get(..*offset)?;
                let tail = after.get(end..)?;
                let mut out = Vec::with_capacity(head.len() + removed.len() + tail.len());
                out.extend_from_slice(head);
                out.extend_from_slice(removed);
                out.extend_from_slice(tail);
                Some(out)
            }
        }
    }

    /// Whether this record is the only way back to what was there (a deletion, a move): it is
    /// never evicted to make room for others.
    pub fn is_pinned(&self) -> bool {
        matches!(self.change, Change::Deleted { .. } | Change::Moved { .. })
    }

    fn cost(&self) -> usize {
        match &self.change {
            Change::Created => 0,
            Change::Deleted { bytes, .. } => bytes.len(),
            Change::Moved { overwritten, .. } => overwritten.as_ref().map_or(0, |(bytes, _)| bytes.len()),
            Change::Splice { removed, .. } => removed.len(),
        }
    }
}

/// The change that turns `before` into `after`: their common prefix and suffix are left out.
pub fn diff(before: &[u8], after: &[u8]) -> Change {
    let prefix = common_prefix(before, after);
    let max_suffix = before.len().min(after.len()) - prefix;
    let suffix = common_suffix(&before[before.len() - max_suffix..], &after[after.len() - max_suffix..]);
    Change::Splice {
        offset: prefix,
        removed: before[prefix..before.len() - suffix].to_vec(),
        inserted_len: after.len() - suffix - prefix,
    }
}

/// Compares block by block (memcmp), then byte by byte in the first differing block.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 4096;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 4096;
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut i = 0;
    while i + BLOCK <= n && a[n - i - BLOCK..n - i] == b[n - i - BLOCK..n - i] {
        i += BLOCK;
    }
    while i < n && a[n - i - 1] == b[n - i - 1] {
        i += 1;
    }
    i
}

/// A fast 64-bit hash of a file's bytes (xxh3), to notice changes made by someone else.
pub fn fingerprint(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// The undo stacks of every file.
#[derive(Debug)]
pub struct History {
    files: HashMap<PathBuf, VecDeque<Record>>,
    depth: usize,
    budget: usize,
    used: usize,
    /// Bytes held by pinned records (part of `used`).
    pinned: usize,
    next_seq: u64,
    /// This history's own prefix of change ids: a view made by an earlier process never names
    /// a change of this one.
    nonce: String,
}

impl History {
    /// At most `depth` records per file and `budget` bytes of removed text in all.
    pub fn new(depth: usize, budget: usize) -> History {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let nonce = format!("{:x}", fingerprint(format!("{}-{nanos}", std::process::id()).as_bytes()));
        History { files: HashMap::new(), depth, budget, used: 0, pinned: 0, next_seq: 0, nonce }
    }

    /// Whether undo records are kept at all (`--undo-depth` is not 0).
    pub fn keeps_anything(&self) -> bool {
        self.depth > 0
    }

    /// Bytes a pinned record may still take: what the budget leaves beside the pinned records
    /// held and reserved (unpinned ones are evicted to make room).
    pub fn room_for_pinned(&self) -> usize {
        if self.depth == 0 { 0 } else { self.budget.saturating_sub(self.pinned) }
    }

    /// Reserves `bytes` for a pinned record about to be pushed (the deletion or move is made
    /// between the two, without holding the history's lock); `false`, and nothing reserved,
    /// when there is no room for it.
    pub fn reserve_pinned(&mut self, bytes: usize) -> bool {
        if bytes > self.room_for_pinned() || self.depth == 0 {
            return false;
        }
        self.pinned += bytes;
        true
    }

    /// Gives back a reservation whose record will not be pushed (the operation failed).
    pub fn release_pinned(&mut self, bytes: usize) {
        self.pinned -= bytes.min(self.pinned);
    }

    /// Bytes held by pinned records.
    pub fn pinned_bytes(&self) -> usize {
        self.pinned
    }

    /// The id of a change: what a view names to undo exactly that change (`if_change`).
    fn id_of(&self, record: &Record) -> String {
        format!("{}-{}", self.nonce, record.seq)
    }

    /// The id of the latest change of `key`, if it has one.
    pub fn latest_id(&self, key: &Path) -> Option<String> {
        self.peek(key).map(|record| self.id_of(record))
    }

    /// Records an edit of `key`, and gives its id (`None`: not kept). An unpinned record larger
    /// than the whole budget is not kept, and then neither are the older unpinned records of
    /// that file (they could no longer be reached). A pinned record is kept whatever it costs:
    /// its cost was reserved with [`History::reserve_pinned`].
    pub fn push(&mut self, key: &Path, mut record: Record) -> Option<String> {
        if self.depth == 0 {
            return None;
        }
        let pinned = record.is_pinned();
        if !pinned && record.cost() > self.budget.saturating_sub(self.pinned) {
            tracing::info!(path = %key.display(), bytes = record.cost(), "edit too large to keep for undo");
            self.forget_unpinned(key);
            return None;
        }
        record.seq = self.next_seq;
        let id = self.id_of(&record);
        self.next_seq += 1;
        self.used += record.cost();
        let stack = self.files.entry(key.to_path_buf()).or_default();
        stack.push_back(record);
        if stack.len() > self.depth
            && let Some(at) = stack.iter().position(|r| !r.is_pinned())
            && let Some(dropped) = stack.remove(at)
        {
            self.used -= dropped.cost();
        }
        while self.used > self.budget {
            if !self.evict_oldest() {
                break;
            }
        }
        Some(id)
    }

    /// Takes the most recent record of `key`.
    pub fn pop(&mut self, key: &Path) -> Option<Record> {
        let stack = self.files.get_mut(key)?;
        let record = stack.pop_back()?;
        if stack.is_empty() {
            self.files.remove(key);
        }
        self.used -= record.cost();
        if record.is_pinned() {
            self.pinned -= record.cost();
        }
        Some(record)
    }

    /// The most recent record of `key`, left in place.
    pub fn peek(&self, key: &Path) -> Option<&Record> {
        self.files.get(key)?.back()
    }

    /// Puts back a record taken by [`History::pop`] (the undo failed).
    pub fn restore(&mut self, key: &Path, record: Record) {
        self.used += record.cost();
        if record.is_pinned() {
            self.pinned += record.cost();
        }
        self.files.entry(key.to_path_buf()).or_default().push_back(record);
    }

    /// Forgets the records of `key` that are not pinned.
    fn forget_unpinned(&mut self, key: &Path) {
        let Some(stack) = self.files.get_mut(key) else { return };
        let before = stack.iter().map(Record::cost).sum::<usize>();
        stack.retain(Record::is_pinned);
        self.used -= before - stack.iter().map(Record::cost).sum::<usize>();
        if stack.is_empty() {
            self.files.remove(key);
        }
    }

    /// Evicts the oldest record that is not pinned and holds bytes; `false` when there is none.
    fn evict_oldest(&mut self) -> bool {
        let oldest = self
            .files
            .iter()
            .filter_map(|(key, stack)| {
                let (at, record) = stack.iter().enumerate().find(|(_, r)| !r.is_pinned() && r.cost() > 0)?;
                Some((record.seq, at, key.clone()))
            })
            .min_by_key(|(seq, ..)| *seq);
        let Some((_, at, key)) = oldest else {
            return false;
        };
        let mut freed = 0;
        if let Some(stack) = self.files.get_mut(&key) {
            // The records below it could no longer be reached by undo: they go with it, unless
            // pinned.
            let mut index = 0;
            stack.retain(|r| {
                let keep = index > at || r.is_pinned();
                index += 1;
                if !keep {
                    freed += r.cost();
                }
                keep
            });
            if stack.is_empty() {
                self.files.remove(&key);
            }
        }
        self.used -= freed;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl History {
        /// How many records `key` has.
        fn depth_of(&self, key: &Path) -> usize {
            self.files.get(key).map_or(0, VecDeque::len)
        }

        /// Bytes held by all records.
        fn used_bytes(&self) -> usize {
            self.used
        }
    }

    #[test]
    fn diff_and_reverse_round_trip() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"hello world", b"hello brave world"),
            (b"abc", b""),
            (b"", b"xyz"),
            (b"aaaa", b"aa"),
            (b"same", b"same"),
        ];
        for (before, after) in cases {
            let record = Record::new(diff(before, after), after);
            assert_eq!(record.reverse(after).as_deref(), Some(*before));
            assert!(record.matches(after));
        }
        let big_a = vec![b'x'; 10_000];
        let mut big_b = big_a.clone();
        big_b[5000] = b'y';
        let change = diff(&big_a, &big_b);
        assert_eq!(change, Change::Splice { offset: 5000, removed: vec![b'x'], inserted_len: 1 });
    }

    #[test]
    fn depth_and_budget_bound_the_history() {
        let key = Path::new("/r/a");
        let mut history = History::new(2, 10);
        for i in 0..3u8 {
            history.push(key, Record::new(Change::Splice { offset: 0, removed: vec![i; 3], inserted_len: 0 }, b""));
        }
        assert_eq!(history.depth_of(key), 2);
        assert_eq!(history.used_bytes(), 6);
        // a second file pushes the budget: the oldest record overall goes
        let other = Path::new("/r/b");
        history.push(other, Record::new(Change::Splice { offset: 0, removed: vec![9; 6], inserted_len: 0 }, b""));
        assert_eq!(history.depth_of(key), 1);
        assert!(history.used_bytes() <= 10);
        // too large for the budget: dropped, with the file's older records
        history.push(other, Record::new(Change::Splice { offset: 0, removed: vec![9; 11], inserted_len: 0 }, b""));
        assert_eq!(history.depth_of(other), 0);
        let top = history.pop(key).unwrap();
        assert_eq!(top.change, Change::Splice { offset: 0, removed: vec![2; 3], inserted_len: 0 });
        assert_eq!(history.pop(key), None);
        assert_eq!(history.used_bytes(), 0);
    }

    #[test]
    fn zero_depth_keeps_nothing() {
        let mut history = History::new(0, 100);
        history.push(Path::new("/a"), Record::new(Change::Created, b"x"));
        assert_eq!(history.pop(Path::new("/a")), None);
    }

    fn deleted(size: usize) -> Record {
        Record::new(Change::Deleted { bytes: vec![7; size], mode: 0o644 }, b"")
    }

    /// Five deletions that together pass the budget: none is evicted by the others (each
    /// reply promised an undo); the caller is told there is no room for the last one.
    #[test]
    fn pinned_records_are_never_evicted() {
        let mut history = History::new(4, 100);
        for i in 0..4 {
            assert!(history.reserve_pinned(25));
            history.push(Path::new(&format!("/r/{i}")), deleted(25));
        }
        assert_eq!(history.room_for_pinned(), 0);
        assert!(!history.reserve_pinned(1), "a fifth deletion is refused, not promised");
        // An edit that needs room evicts nothing pinned, and is not kept.
        history.push(
            Path::new("/r/e"),
            Record::new(Change::Splice { offset: 0, removed: vec![1; 5], inserted_len: 0 }, b""),
        );
        assert_eq!(history.depth_of(Path::new("/r/e")), 0);
        for i in 0..4 {
            assert!(history.pop(Path::new(&format!("/r/{i}"))).is_some(), "deletion {i} kept");
        }
        assert_eq!((history.used_bytes(), history.pinned_bytes()), (0, 0));
    }

    #[test]
    fn pinned_records_outlive_depth_and_edits_evicted_around_them() {
        let key = Path::new("/r/a");
        let mut history = History::new(2, 100);
        assert!(history.reserve_pinned(10));
        history.push(key, deleted(10));
        history.push(key, Record::new(Change::Created, b"x"));
        for i in 0..3u8 {
            history.push(key, Record::new(Change::Splice { offset: 0, removed: vec![i; 3], inserted_len: 0 }, b""));
        }
        // Depth 2: the newest edit, and the deletion under it (the older unpinned ones went).
        assert_eq!(history.depth_of(key), 2);
        assert_eq!(
            history.pop(key).unwrap().change,
            Change::Splice { offset: 0, removed: vec![2; 3], inserted_len: 0 }
        );
        assert!(matches!(history.pop(key).unwrap().change, Change::Deleted { .. }));
        // Budget pressure evicts the unpinned edits, oldest first, never the deletion.
        assert!(history.reserve_pinned(60));
        history.push(key, deleted(60));
        history.push(
            Path::new("/r/b"),
            Record::new(Change::Splice { offset: 0, removed: vec![1; 30], inserted_len: 0 }, b""),
        );
        history.push(
            Path::new("/r/c"),
            Record::new(Change::Splice { offset: 0, removed: vec![1; 30], inserted_len: 0 }, b""),
        );
        assert_eq!(history.depth_of(Path::new("/r/b")), 0, "the oldest edit made room");
        assert_eq!(history.depth_of(Path::new("/r/c")), 1);
        assert!(matches!(history.pop(key).unwrap().change, Change::Deleted { .. }));
    }

    #[test]
    fn no_room_for_pinned_records_without_a_history() {
        let mut history = History::new(0, 100);
        assert!(!history.keeps_anything());
        assert!(!history.reserve_pinned(0));
        let mut history = History::new(1, 100);
        assert!(history.reserve_pinned(70) && !history.reserve_pinned(31));
        history.release_pinned(70);
        assert!(history.reserve_pinned(100));
    }
}
