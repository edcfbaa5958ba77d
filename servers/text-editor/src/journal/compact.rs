//! The journal's bound: the log rewritten without its oldest changes, and what the rewrite
//! dropped remembered per root (so a workspace's earliest point moves only for its own changes).

use std::{
    fs::File,
    io::{self, Write},
    path::{Path, PathBuf},
};

use super::{Carry, Change, Frame, Log, State, Store, Txn, frame_bytes, open_private, read_frames};

impl Txn<'_> {
    /// Rewrites the log without the oldest changes, to three quarters of the bounds (bytes and
    /// changes): failed changes go, then the oldest of the rest, except pinned changes not undone.
    pub(super) fn compact(&mut self) -> io::Result<()> {
        let target = self.journal.max_bytes / 4 * 3;
        let target_count = self.journal.max_changes / 4 * 3;
        let undone = self.undone();
        let live_pin = |c: &Change| c.pinned && !c.groups().iter().all(|g| undone.contains(&(c.seq, *g)));
        let log = self.log()?;
        let mut total: u64 = log.changes.iter().filter(|c| c.state == State::Done).map(|c| c.frame_len).sum();
        let mut count = log.changes.iter().filter(|c| c.state == State::Done).count();
        let mut dropped_through = log.carry.dropped_through;
        let mut dropped = log.carry.dropped.clone();
        let mut keep = Vec::new();
        for change in &log.changes {
            if change.state != State::Done {
                continue;
            }
            if (total > target || count > target_count) && !live_pin(change) {
                total -= change.frame_len;
                count -= 1;
                dropped_through = dropped_through.max(change.seq);
                note_dropped(&mut dropped, change);
                continue;
            }
            keep.push(change.clone());
        }
        // The new log, beside the old one, then put in its place.
        let nonce = log.nonce.clone();
        let in_memory = matches!(log.file, Store::Memory(_));
        let carry = Carry { dropped_through, dropped, ..log.carry.clone() };
        let header = Frame::Header { nonce, carry };
        let mut out = match self.journal.dir() {
            Some(dir) => Store::File(open_private(&dir.join("journal.log.new"), true)?),
            None if in_memory => Store::Memory(io::Cursor::new(Vec::new())),
            None => Store::temporary(),
        };
        out.write_all(&frame_bytes(&header, &[])?)?;
        for change in &keep {
            let mut payloads = Vec::with_capacity(change.effects.len());
            for effect in &change.effects {
                payloads.push(self.payload(change.seq, effect).map_err(io::Error::other)?);
            }
            let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
            out.write_all(&frame_bytes(&Frame::Begin(Box::new(change.clone())), &refs)?)?;
            out.write_all(&frame_bytes(&Frame::Done { seq: change.seq }, &[])?)?;
        }
        if self.journal.fsync {
            out.sync()?;
        }
        if let Some(dir) = self.journal.dir() {
            std::fs::rename(dir.join("journal.log.new"), dir.join("journal.log"))?;
            if self.journal.fsync
                && let Ok(handle) = File::open(dir)
            {
                let _ = handle.sync_all();
            }
        }
        tracing::info!(kept = keep.len(), dropped_through, "the change journal was rewritten within its bound");
        let mut log = Log::unread(out);
        let end = log.file.len()?;
        if !read_frames(&mut log, end)? {
            return Err(io::Error::other("the rewritten journal does not read back"));
        }
        *self.log = Some(log);
        Ok(())
    }
}

/// Notes in `dropped` that `change` was dropped: for each root of the server that made it (its
/// files' directories when it names none).
fn note_dropped(dropped: &mut Vec<(PathBuf, u64)>, change: &Change) {
    let roots: Vec<PathBuf> = if change.roots.is_empty() {
        change.effects.iter().filter_map(|e| e.path.parent().map(Path::to_path_buf)).collect()
    } else {
        change.roots.clone()
    };
    for root in roots {
        match dropped.iter_mut().find(|(r, _)| *r == root) {
            Some(entry) => entry.1 = entry.1.max(change.seq),
            None => dropped.push((root, change.seq)),
        }
    }
}
