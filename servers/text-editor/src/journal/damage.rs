//! A damaged log: set aside whole (renamed, never cut), what read back before the damage
//! carried into a new log that numbers on past every number the damaged one still names.

use std::{
    io::{self, Read, Seek, SeekFrom, Write},
    path::{Path, PathBuf},
};

use super::{Carry, FRAME_PREFIX, Frame, Log, SetAside, State, Store, Txn, frame_bytes, open_private, store};

impl Txn<'_> {
    /// Sets the damaged log at `path` (`old`: what read back of it) aside and starts a new one
    /// there, numbering on from it and naming it.
    pub(super) fn replace_damaged(&mut self, path: &Path, mut old: Log) -> io::Result<Log> {
        let end = old.file.len()?;
        let known = old.carry.next_seq.saturating_sub(1);
        let beyond = store::highest_seq_after(&mut old.file, old.end, end);
        let latest = known.max(beyond);
        // What read back before the damage is carried over, bytes checked: its undo stays.
        let mut carried = Vec::new();
        for change in old.changes.iter().filter(|c| c.state != State::Failed) {
            let mut payloads = Vec::with_capacity(change.effects.len());
            for effect in &change.effects {
                let mut bytes = vec![0u8; usize::try_from(effect.payload.0).map_err(io::Error::other)?];
                old.file.seek(SeekFrom::Start(effect.payload_at))?;
                old.file.read_exact(&mut bytes)?;
                payloads.push(bytes);
            }
            carried.push((change.clone(), payloads));
        }
        // Changes after the damage are unknown: no point before them can be reverted to.
        let dropped_through = if beyond > known { beyond } else { old.carry.dropped_through };
        let mut carry = Carry { dropped_through, next_seq: latest + 1, ..old.carry.clone() };
        if beyond > known {
            // Whose they were is unknown: every workspace's earliest point moves past them (an
            // empty root overlaps every root).
            carry.dropped.push((PathBuf::new(), beyond));
        }
        let sessions = old.sessions.clone();
        drop(old);
        let aside = self.move_aside(path)?;
        let time_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        carry.set_aside.push(SetAside { path: aside, time_ms, readable: carried.len() as u64, latest });
        let mut log = self.new_log(Store::File(open_private(path, false)?), carry)?;
        log.sessions = sessions;
        for (mut change, payloads) in carried {
            let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
            let pending = change.state == State::Pending;
            let mut bytes = frame_bytes(&Frame::Begin(Box::new(change.clone())), &refs)?;
            let header_len = u64::from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]));
            let mut at = log.end + FRAME_PREFIX + header_len;
            for effect in &mut change.effects {
                effect.payload_at = at;
                at += effect.payload.0;
            }
            if !pending {
                bytes.extend_from_slice(&frame_bytes(&Frame::Done { seq: change.seq }, &[])?);
            }
            log.file.seek(SeekFrom::Start(log.end))?;
            log.file.write_all(&bytes)?;
            change.frame_len = bytes.len() as u64;
            log.end += bytes.len() as u64;
            log.changes.push(change);
        }
        Ok(log)
    }

    /// Moves a damaged log at `path` aside (`journal.log.damaged-<seconds>`), so that a new one
    /// starts and nothing of the old one is lost.
    fn move_aside(&self, path: &Path) -> io::Result<PathBuf> {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let aside = path.with_extension(format!("log.damaged-{}", nanos / 1_000_000_000));
        let aside = if aside.exists() { path.with_extension(format!("log.damaged-{nanos}")) } else { aside };
        tracing::error!(
            path = %path.display(),
            aside = %aside.display(),
            "the change journal is damaged (a record does not read back as it was written): it is kept aside and a new one started; the changes it held can no longer be undone from here"
        );
        std::fs::rename(path, &aside)?;
        Ok(aside)
    }
}
