//! The log's bytes: where they are kept (a file, or memory), and its frames written and read
//! back (a torn last frame cut off, a damaged one reported).

use std::{
    fs::File,
    io::{self, Read, Seek, SeekFrom, Write},
};

use super::{Carry, FRAME_PREFIX, Frame, Log, MAX_HEADER_BYTES, State, fingerprint};

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

/// The frame's bytes: prefix, header, payloads. The prefix is the header's length (u32), the
/// payloads' length (u64), a check of those two (the low 32 bits of their xxh3) and the
/// header's xxh3 (u64), all little-endian: a damaged length is told from a torn write.
pub(super) fn frame_bytes(frame: &Frame, payloads: &[&[u8]]) -> io::Result<Vec<u8>> {
    let header = serde_json::to_vec(frame).map_err(io::Error::other)?;
    let payload_len: usize = payloads.iter().map(|p| p.len()).sum();
    let mut out = Vec::with_capacity(FRAME_PREFIX as usize + header.len() + payload_len);
    let header_len = u32::try_from(header.len()).map_err(io::Error::other)?;
    out.extend_from_slice(&header_len.to_le_bytes());
    out.extend_from_slice(&(payload_len as u64).to_le_bytes());
    let check = lengths_check(&out[..12]);
    out.extend_from_slice(&check.to_le_bytes());
    out.extend_from_slice(&fingerprint(&header).to_le_bytes());
    out.extend_from_slice(&header);
    for payload in payloads {
        out.extend_from_slice(payload);
    }
    Ok(out)
}

/// The check of a prefix's two lengths.
fn lengths_check(lengths: &[u8]) -> u32 {
    (fingerprint(lengths) & 0xffff_ffff) as u32
}

/// Reads the frames of `log` from `log.end` to `end`. Only a frame that runs past the end (a
/// write cut short: kill -9, a full disk) is a torn tail, and is cut off. `Ok(false)` when
/// anything else does not read back as it was written (a length, a header or a payload whose
/// check fails, a frame that makes no sense where it is): nothing from there on can be trusted,
/// and nothing is cut.
pub(super) fn read_frames(log: &mut Log, end: u64) -> io::Result<bool> {
    let mut reader = io::BufReader::new(&mut log.file);
    reader.seek(SeekFrom::Start(log.end))?;
    let mut at = log.end;
    let mut torn = false;
    let mut damaged = false;
    while at < end {
        let mut prefix = [0u8; FRAME_PREFIX as usize];
        if at + FRAME_PREFIX > end {
            torn = true;
            break;
        }
        reader.read_exact(&mut prefix)?;
        let header_len = u32::from_le_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]);
        let payload_len = u64::from_le_bytes(prefix[4..12].try_into().map_err(io::Error::other)?);
        let check = u32::from_le_bytes(prefix[12..16].try_into().map_err(io::Error::other)?);
        let hash = u64::from_le_bytes(prefix[16..24].try_into().map_err(io::Error::other)?);
        if check != lengths_check(&prefix[..12]) || header_len > MAX_HEADER_BYTES {
            damaged = true;
            break;
        }
        let Some(frame_end) =
            at.checked_add(FRAME_PREFIX + u64::from(header_len)).and_then(|e| e.checked_add(payload_len))
        else {
            damaged = true;
            break;
        };
        if frame_end > end {
            torn = true;
            break;
        }
        let mut header = vec![0u8; header_len as usize];
        reader.read_exact(&mut header)?;
        let Some(frame) =
            (fingerprint(&header) == hash).then(|| serde_json::from_slice::<Frame>(&header).ok()).flatten()
        else {
            damaged = true;
            break;
        };
        let payload_at = at + FRAME_PREFIX + u64::from(header_len);
        let frame_len = frame_end - at;
        let first = at == 0;
        let sane = match &frame {
            Frame::Header { .. } => first && payload_len == 0,
            Frame::Begin(change) => {
                !first
                    && change.effects.iter().map(|e| e.payload.0).try_fold(0u64, u64::checked_add) == Some(payload_len)
            }
            Frame::Done { .. } | Frame::Failed { .. } => !first && payload_len == 0,
        };
        if !sane {
            damaged = true;
            break;
        }
        match frame {
            Frame::Header { nonce, carry } => {
                log.nonce = nonce;
                let next_seq = log.carry.next_seq.max(carry.next_seq);
                log.carry = Carry { next_seq, ..carry };
            }
            Frame::Begin(mut change) => {
                // Every payload read back as it was written (its xxh3 is in the header).
                let mut p = payload_at;
                for effect in &mut change.effects {
                    let len = usize::try_from(effect.payload.0).map_err(io::Error::other)?;
                    let mut bytes = vec![0u8; len];
                    reader.read_exact(&mut bytes)?;
                    if fingerprint(&bytes) != effect.payload.1 {
                        damaged = true;
                        break;
                    }
                    effect.payload_at = p;
                    p += effect.payload.0;
                }
                if damaged {
                    break;
                }
                change.state = State::Pending;
                change.frame_len = frame_len;
                log.carry.next_seq = log.carry.next_seq.max(change.seq + 1);
                if change.session_no > 0 {
                    log.sessions.insert(change.session.clone(), change.session_no);
                    log.carry.next_session = log.carry.next_session.max(change.session_no + 1);
                }
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

/// The highest change number named by any whole frame between `from` and `end` of a damaged log
/// (found by trying every offset: each candidate must pass both checks), so that a new log
/// started after it never gives a number twice. Best effort: 0 when none is found.
pub(super) fn highest_seq_after(file: &mut Store, from: u64, end: u64) -> u64 {
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(from)).is_err() || file.take(end.saturating_sub(from)).read_to_end(&mut bytes).is_err()
    {
        return 0;
    }
    let prefix = FRAME_PREFIX as usize;
    let mut highest = 0;
    for at in 0..bytes.len().saturating_sub(prefix) {
        let p = &bytes[at..at + prefix];
        let check = u32::from_le_bytes([p[12], p[13], p[14], p[15]]);
        if check != lengths_check(&p[..12]) {
            continue;
        }
        let header_len = u32::from_le_bytes([p[0], p[1], p[2], p[3]]) as usize;
        let Some(header) = bytes.get(at + prefix..at + prefix + header_len) else { continue };
        let hash = u64::from_le_bytes([p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23]]);
        if fingerprint(header) != hash {
            continue;
        }
        let seq = match serde_json::from_slice::<Frame>(header) {
            Ok(Frame::Begin(change)) => change.seq,
            Ok(Frame::Done { seq } | Frame::Failed { seq }) => seq,
            Ok(Frame::Header { carry, .. }) => carry.next_seq.saturating_sub(1),
            Err(_) => continue,
        };
        highest = highest.max(seq);
    }
    highest
}
