//! The log's bytes: where they are kept (a file, or memory), and its frames written and read
//! back (a torn last frame cut off, a damaged one reported).

use std::{
    fs::File,
    io::{self, Read, Seek, SeekFrom, Write},
};

use super::{FRAME_PREFIX, Frame, Log, MAX_HEADER_BYTES, State, fingerprint};

/// Where a log's bytes are: a file, or (no file can be made: an empty chroot, a read-only
/// system) this process's memory, as the undo history used to be.
#[derive(Debug)]
pub(super) enum Store {
    File(File),
    Memory(io::Cursor<Vec<u8>>),
}

impl Store {
    /// An unlinked temporary file, else memory.
    pub(super) fn temporary() -> Store {
        match tempfile::tempfile() {
            Ok(file) => Store::File(file),
            Err(error) => {
                tracing::warn!(%error, "no temporary file for the change journal: it is kept in memory");
                Store::Memory(io::Cursor::new(Vec::new()))
            }
        }
    }

    pub(super) fn len(&self) -> io::Result<u64> {
        match self {
            Store::File(file) => Ok(file.metadata()?.len()),
            Store::Memory(cursor) => Ok(cursor.get_ref().len() as u64),
        }
    }

    pub(super) fn set_len(&mut self, len: u64) -> io::Result<()> {
        match self {
            Store::File(file) => file.set_len(len),
            Store::Memory(cursor) => {
                cursor.get_mut().truncate(usize::try_from(len).map_err(io::Error::other)?);
                Ok(())
            }
        }
    }

    pub(super) fn id(&self) -> Option<mcp_shared::platform::FileId> {
        match self {
            Store::File(file) => mcp_shared::platform::file_id_of(file).ok(),
            Store::Memory(_) => None,
        }
    }

    pub(super) fn sync(&self) -> io::Result<()> {
        match self {
            Store::File(file) => file.sync_all(),
            Store::Memory(_) => Ok(()),
        }
    }
}

impl Read for Store {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Store::File(file) => file.read(buf),
            Store::Memory(cursor) => cursor.read(buf),
        }
    }
}

impl Write for Store {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Store::File(file) => file.write(buf),
            Store::Memory(cursor) => cursor.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Store::File(file) => file.flush(),
            Store::Memory(cursor) => cursor.flush(),
        }
    }
}

impl Seek for Store {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        match self {
            Store::File(file) => file.seek(pos),
            Store::Memory(cursor) => cursor.seek(pos),
        }
    }
}

/// The frame's bytes: prefix, header, payloads.
pub(super) fn frame_bytes(frame: &Frame, payloads: &[&[u8]]) -> io::Result<Vec<u8>> {
    let header = serde_json::to_vec(frame).map_err(io::Error::other)?;
    let payload_len: usize = payloads.iter().map(|p| p.len()).sum();
    let mut out = Vec::with_capacity(FRAME_PREFIX as usize + header.len() + payload_len);
    let header_len = u32::try_from(header.len()).map_err(io::Error::other)?;
    out.extend_from_slice(&header_len.to_le_bytes());
    out.extend_from_slice(&(payload_len as u64).to_le_bytes());
    out.extend_from_slice(&fingerprint(&header).to_le_bytes());
    out.extend_from_slice(&header);
    for payload in payloads {
        out.extend_from_slice(payload);
    }
    Ok(out)
}

/// Reads the frames of `log` from `log.end` to `end`. A torn last frame (one that runs past the
/// end: a write cut short) is cut off. `Ok(false)` when a whole frame does not read back as it
/// was written (the disk damaged it): nothing after it can be trusted.
pub(super) fn read_frames(log: &mut Log, end: u64) -> io::Result<bool> {
    let mut reader = io::BufReader::new(&mut log.file);
    reader.seek(SeekFrom::Start(log.end))?;
    let mut at = log.end;
    let mut torn = false;
    let mut damaged = false;
    while at < end {
        let mut prefix = [0u8; FRAME_PREFIX as usize];
        if at + FRAME_PREFIX > end || reader.read_exact(&mut prefix).is_err() {
            torn = true;
            break;
        }
        let header_len = u32::from_le_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]);
        let payload_len = u64::from_le_bytes(prefix[4..12].try_into().map_err(io::Error::other)?);
        let hash = u64::from_le_bytes(prefix[12..20].try_into().map_err(io::Error::other)?);
        let frame_end = at.checked_add(FRAME_PREFIX + u64::from(header_len)).and_then(|e| e.checked_add(payload_len));
        let Some(frame_end) = frame_end.filter(|e| *e <= end && header_len <= MAX_HEADER_BYTES) else {
            torn = true;
            break;
        };
        let mut header = vec![0u8; header_len as usize];
        if reader.read_exact(&mut header).is_err() {
            torn = true;
            break;
        }
        let Some(frame) =
            (fingerprint(&header) == hash).then(|| serde_json::from_slice::<Frame>(&header).ok()).flatten()
        else {
            damaged = true;
            break;
        };
        let payload_at = at + FRAME_PREFIX + u64::from(header_len);
        reader.seek_relative(i64::try_from(payload_len).map_err(io::Error::other)?)?;
        let frame_len = frame_end - at;
        match frame {
            Frame::Header { nonce, dropped_through, next_seq, .. } => {
                log.nonce = nonce;
                log.dropped_through = dropped_through;
                log.next_seq = log.next_seq.max(next_seq);
            }
            Frame::Begin(mut change) => {
                let mut p = payload_at;
                for effect in &mut change.effects {
                    effect.payload_at = p;
                    p += effect.payload.0;
                }
                change.state = State::Pending;
                change.frame_len = frame_len;
                log.next_seq = log.next_seq.max(change.seq + 1);
                log.changes.push(*change);
            }
            Frame::Done { seq } | Frame::Failed { seq } => {
                let done = matches!(frame, Frame::Done { .. });
                if let Some(change) = log.changes.iter_mut().rev().find(|c| c.seq == seq) {
                    change.state = if done { State::Done } else { State::Failed };
                    change.frame_len += frame_len;
                }
            }
        }
        at = frame_end;
    }
    log.end = at;
    if damaged {
        return Ok(false);
    }
    if torn {
        tracing::warn!(at, "the change journal ended in a torn frame (a write was cut short); it is cut off there");
        drop(reader);
        log.file.set_len(at)?;
    }
    Ok(true)
}
