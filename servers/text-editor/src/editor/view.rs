//! `view`: a file as `cat -n` shows it (optionally a line range), or a directory two levels
//! deep.
//!
//! Files are streamed: a range of a file of any size is shown without reading more than it
//! needs (and counting lines to the end only when the range must be checked against the
//! length), in a few chunks of memory.

use std::io::{Read, Seek as _};

use mcp_shared::sandbox::{Metadata, WalkOptions};
use serde_json::Value;

use crate::{
    document::{self, StreamDecoder},
    editor::{Editor, Reply, Target, not_text},
    error::{self, ToolError},
    render,
};

/// How much of a file is read at a time.
const CHUNK: usize = 64 * 1024;

/// The most entries a directory view lists.
pub const MAX_DIR_ENTRIES: usize = 1000;

/// A checked `view_range`: 1-based first line, and last line or `-1` for the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Range {
    start: i64,
    end: i64,
}

impl Editor {
    pub(crate) fn view(&self, t: &Target<'_>, view_range: Option<&Value>) -> Result<Reply, ToolError> {
        let Some(md) = self.validate(t)? else {
            return Err(ToolError::new(mcp_shared::ErrorCode::NotFound, render::does_not_exist(t.shown)));
        };
        // As in the reference, an empty list means no range.
        let view_range = view_range.filter(|v| !v.is_null() && v.as_array().is_none_or(|a| !a.is_empty()));
        if md.is_dir {
            if view_range.is_some() {
                return Err(error::invalid(
                    "The `view_range` parameter is not allowed when `path` points to a directory.",
                ));
            }
            return self.view_dir(t);
        }
        let range = view_range.map(parse_range).transpose()?;
        self.view_file(t, &md, range)
    }

    fn view_dir(&self, t: &Target<'_>) -> Result<Reply, ToolError> {
        let options = WalkOptions {
            max_depth: Some(2),
            hidden: false,
            respect_gitignore: true,
            max_entries: Some(MAX_DIR_ENTRIES),
        };
        let walk = t.sandbox.walk(t.path, &options).map_err(|e| t.sandbox_error(e))?;
        let base = t.shown.trim_end_matches('/');
        let mut listing = String::new();
        listing.push_str(base);
        listing.push_str("/\n");
        for entry in &walk.entries {
            listing.push_str(base);
            listing.push('/');
            listing.push_str(&mcp_shared::sandbox::shown_name(entry.rel.as_os_str()));
            if entry.is_dir {
                listing.push('/');
            }
            if entry.unreadable {
                listing.push_str(" (unreadable: permission denied)");
            }
            listing.push('\n');
        }
        if walk.truncated {
            listing.push_str(&format!(
                "<NOTE>Only the first {MAX_DIR_ENTRIES} entries are listed. View a subdirectory to see the rest.</NOTE>\n"
            ));
        }
        let listing = render::maybe_truncate(&listing, self.limits.max_output_chars);
        Ok(Reply::text(format!(
            "Here's the files and directories up to 2 levels deep in {}, excluding hidden items:\n{listing}\n",
            t.shown
        )))
    }

    fn view_file(&self, t: &Target<'_>, md: &Metadata, range: Option<Range>) -> Result<Reply, ToolError> {
        if range.is_none() && md.len > self.limits.max_file_size {
            return Err(self.too_large(t, md.len));
        }
        let file = t.sandbox.open_read(t.path).map_err(|e| t.sandbox_error(e))?;
        if let Some(range) = range.filter(|r| r.start < 0 || r.end < -1) {
            return self.view_from_end(t, md, file, range);
        }
        let range = range.unwrap_or(Range { start: 1, end: -1 });
        let content = self.read_range(t, file, range, md.len)?;
        Ok(Reply::text(render::cat_n(&content, t.shown, to_usize(range.start), self.limits.max_output_chars)))
    }

    /// The lines of `range` joined by `\n` (as the reference's `"\n".join(lines[a:b])`), read
    /// no further than needed; the errors of an invalid range, worded as the reference's.
    /// (`len`: the file's size.)
    fn read_range(&self, t: &Target<'_>, file: std::fs::File, range: Range, len: u64) -> Result<String, ToolError> {
        let mut lines = LineScan::new(range, self.limits.max_output_chars);
        let mut reader = file;
        let mut buf = vec![0u8; CHUNK];
        let mut filled = read_full(&mut reader, &mut buf).map_err(|e| io_error(t, e))?;
        let mut eof = filled < CHUNK;
        let format = document::sniff(&buf[..filled], eof).map_err(|e| not_text(t.shown, &e))?;
        // UTF-8 judged from the start of the file only: the rest may prove it wrong.
        let provisional = !eof && format == document::Format::UTF8;
        let mut decoder = StreamDecoder::new(format);
        let mut piece = String::new();
        let mut first_piece = true;
        loop {
            if let Err(e) = decoder.decode(&buf[..filled], eof, &mut piece) {
                if provisional {
                    return self.read_range_whole(t, reader, range, len);
                }
                return Err(not_text(t.shown, &e));
            }
            if first_piece {
                if document::looks_binary(&piece) {
                    return Err(not_text(t.shown, &document::NotText::Binary));
                }
                first_piece = false;
            }
            lines.feed(&piece, eof);
            if eof || lines.done() {
                break;
            }
            filled = read_full(&mut reader, &mut buf).map_err(|e| io_error(t, e))?;
            eof = filled < CHUNK;
        }
        lines.finish(eof)
    }

    /// [`Editor::read_range`] for a file that looked like UTF-8 at its start but is not: the
    /// whole file decoded as an edit decodes it (e.g. Latin-1 whose first accented letter
    /// comes late), so that view and edits agree. Files over `--max-file-size` stay refused.
    fn read_range_whole(
        &self,
        t: &Target<'_>,
        mut file: std::fs::File,
        range: Range,
        len: u64,
    ) -> Result<String, ToolError> {
        if len > self.limits.max_file_size {
            return Err(not_text(t.shown, &document::NotText::Binary));
        }
        file.seek(std::io::SeekFrom::Start(0)).map_err(|e| io_error(t, e))?;
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        file.take(self.limits.max_file_size).read_to_end(&mut bytes).map_err(|e| io_error(t, e))?;
        let doc = document::decode(bytes).map_err(|e| not_text(t.shown, &e))?;
        let mut lines = LineScan::new(range, self.limits.max_output_chars);
        lines.feed(&doc.text, true);
        lines.finish(true)
    }
}

impl Editor {
    /// A range counted from the end (`[-20, -1]`: the last 20 lines; `-N` is the N-th line from
    /// the end, the trailing newline ending the last line): the file's newlines are counted once
    /// and remembered while it is unchanged ([`LineCounts`]), then the range's first line is
    /// found by reading backwards from the end, so the last lines of a file of any size cost a
    /// few chunks. The lines are numbered and shown exactly as the same range in line numbers.
    fn view_from_end(
        &self,
        t: &Target<'_>,
        md: &Metadata,
        mut file: std::fs::File,
        range: Range,
    ) -> Result<Reply, ToolError> {
        // One snapshot of the file: its first `len` bytes as the open descriptor has them now.
        // Every count and search below stays within them, so lines appended meanwhile are not
        // half counted (they belong to the next view).
        let now = file.metadata().map_err(|e| io_error(t, e))?;
        let len = now.len();
        let stamp = Stamp {
            len,
            modified: now.modified().ok(),
            changed: mcp_shared::platform::change_time(&now),
            id: mcp_shared::platform::file_id_of(&file).ok(),
        };
        let mut head = vec![0u8; CHUNK.min(usize::try_from(len).unwrap_or(CHUNK))];
        let filled = read_full(&mut file, &mut head).map_err(|e| io_error(t, e))?;
        let format = document::sniff(&head[..filled], filled as u64 >= len).map_err(|e| not_text(t.shown, &e))?;
        let ascii_compatible = match format.encoding {
            document::TextEncoding::Utf8 => true,
            document::TextEncoding::Legacy(encoding) => encoding.is_ascii_compatible(),
            _ => false,
        };
        let (newlines, ends_with_newline) = self.line_count(t, &file, &stamp, ascii_compatible)?;
        // Lines as a reader counts them: the text after the last newline, if any, is one more.
        let lines = newlines + u64::from(!ends_with_newline && len > format.bom_len() as u64);
        let from_end = |n: i64| i64::try_from(lines).unwrap_or(i64::MAX).saturating_add(1).saturating_add(n);
        let start = if range.start < 0 { from_end(range.start) } else { range.start };
        let end = if range.end < -1 { from_end(range.end) } else { range.end };
        let shown = render::py_list(&[range.start, range.end]);
        if start < 1 && lines == 0 {
            return Err(error::invalid(format!(
                "Invalid `view_range`: {shown}. {} is empty, so it has no line to count from the end; view it without `view_range`.",
                t.shown
            )));
        }
        if start < 1 {
            return Err(error::invalid(format!(
                "Invalid `view_range`: {shown}. {} has {lines} lines, so a line counted from the end is -1 to -{lines}; `[-{lines}, -1]` is the whole file.",
                t.shown
            )));
        }
        // The reference's count of lines (its `split("\n")`: one more after a final newline).
        let reference_lines = i64::try_from(newlines).unwrap_or(i64::MAX).saturating_add(1);
        if end > reference_lines {
            return Err(error::invalid(format!(
                "Invalid `view_range`: {shown}. Its second element `{end}` should be smaller than the number of lines in the file: `{reference_lines}`"
            )));
        }
        if end != -1 && end < start {
            return Err(error::invalid(format!(
                "Invalid `view_range`: {shown}. It is lines {start} to {end} of {}, and the second should not come before the first.",
                t.shown
            )));
        }
        if !ascii_compatible {
            // UTF-16: no backward search for a newline byte; the lines in line numbers.
            drop(file);
            let file = t.sandbox.open_read(t.path).map_err(|e| t.sandbox_error(e))?;
            let content = self.read_range(t, file, Range { start, end }, md.len.max(len))?;
            return Ok(Reply::text(render::cat_n(&content, t.shown, to_usize(start), self.limits.max_output_chars)));
        }
        // Line `start` begins after the file's (start - 1)-th newline, which is the
        // (newlines - start + 2)-th counted from the end: found reading backwards.
        let before = u64::try_from(start - 1).unwrap_or(0);
        let offset = if before == 0 {
            format.bom_len() as u64
        } else {
            newline_from_end(&mut file, len, newlines - before + 1).map_err(|e| io_error(t, e))?
        };
        file.seek(std::io::SeekFrom::Start(offset)).map_err(|e| io_error(t, e))?;
        let mut file = file.take(len.saturating_sub(offset));
        let relative = Range { start: 1, end: if end == -1 { -1 } else { end - start + 1 } };
        let mut scan = LineScan::new(relative, self.limits.max_output_chars);
        let mut decoder = StreamDecoder::new(document::Format { bom: format.bom && offset == 0, ..format });
        let mut buf = vec![0u8; CHUNK];
        let mut piece = String::new();
        loop {
            let filled = read_full(&mut file, &mut buf).map_err(|e| io_error(t, e))?;
            let eof = filled < CHUNK;
            decoder.decode(&buf[..filled], eof, &mut piece).map_err(|e| not_text(t.shown, &e))?;
            scan.feed(&piece, eof);
            if eof || scan.done() {
                break;
            }
        }
        let content = scan.content;
        Ok(Reply::text(render::cat_n(&content, t.shown, to_usize(start), self.limits.max_output_chars)))
    }

    /// The file's newlines, and whether it ends with one: remembered per file while its size,
    /// modification time and identity stay the same; else counted (one pass of `memchr`).
    fn line_count(
        &self,
        t: &Target<'_>,
        file: &std::fs::File,
        stamp: &Stamp,
        ascii_compatible: bool,
    ) -> Result<(u64, bool), ToolError> {
        let key = crate::editor::history_key(t.path);
        if let Some(known) = self.line_counts().get(&key, stamp) {
            return Ok(known);
        }
        let counted = if ascii_compatible {
            count_newlines(file, stamp.len).map_err(|e| io_error(t, e))?
        } else {
            // UTF-16: count in the decoded text, as a whole view would (within --max-file-size).
            if stamp.len > self.limits.max_file_size {
                return Err(self.too_large(t, stamp.len));
            }
            let bytes = t.sandbox.read(t.path).map_err(|e| t.sandbox_error(e))?;
            let doc = document::decode(bytes).map_err(|e| not_text(t.shown, &e))?;
            let text = doc.text.replace("\r\n", "\n");
            (memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64, text.ends_with('\n'))
        };
        self.line_counts().put(key, *stamp, counted);
        Ok(counted)
    }
}

/// What identifies a file's content for [`LineCounts`]: its size, modification time, inode
/// change time (which, unlike the modification time, no program can set back: an in-place
/// rewrite of the same size that restores the modification time still changes it) and
/// identity (a file replaced by a rename is another file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    changed: Option<(i64, i64)>,
    id: Option<mcp_shared::platform::FileId>,
}

/// The line counts of files viewed from their end, while they are unchanged (at most
/// [`LineCounts::MAX`] files; the oldest go first).
#[derive(Debug, Default)]
pub(crate) struct LineCounts {
    files: std::collections::VecDeque<(std::path::PathBuf, Stamp, (u64, bool))>,
}

impl LineCounts {
    const MAX: usize = 64;

    fn get(&self, key: &std::path::Path, stamp: &Stamp) -> Option<(u64, bool)> {
        // Without an inode change time (Windows), a rewrite could hide behind a restored
        // modification time: count again every time.
        stamp.changed?;
        self.files.iter().find(|(k, s, _)| k == key && s == stamp).map(|(_, _, counted)| *counted)
    }

    fn put(&mut self, key: std::path::PathBuf, stamp: Stamp, counted: (u64, bool)) {
        self.files.retain(|(k, ..)| *k != key);
        if self.files.len() >= Self::MAX {
            self.files.pop_front();
        }
        self.files.push_back((key, stamp, counted));
    }
}

/// Counts the newline bytes of the first `len` bytes of a file, and whether the last of them
/// is one.
fn count_newlines(mut file: &std::fs::File, len: u64) -> std::io::Result<(u64, bool)> {
    file.seek(std::io::SeekFrom::Start(0))?;
    let mut file = file.take(len);
    let mut buf = vec![0u8; 1 << 20];
    let (mut count, mut last) = (0u64, 0u8);
    loop {
        let n = read_full(&mut file, &mut buf)?;
        if n == 0 {
            break;
        }
        count += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        last = buf[n - 1];
        if n < buf.len() {
            break;
        }
    }
    Ok((count, last == b'\n'))
}

/// The offset just after the `nth` newline counted from the end of a file of `len` bytes (the
/// last newline is the 1st).
fn newline_from_end(file: &mut std::fs::File, len: u64, nth: u64) -> std::io::Result<u64> {
    let mut buf = vec![0u8; CHUNK];
    let mut end = len;
    let mut seen = 0u64;
    while end > 0 {
        let start = end.saturating_sub(CHUNK as u64);
        let size = usize::try_from(end - start).unwrap_or(CHUNK);
        file.seek(std::io::SeekFrom::Start(start))?;
        let filled = read_full(file, &mut buf[..size])?;
        for at in memchr::memrchr_iter(b'\n', &buf[..filled]) {
            seen += 1;
            if seen == nth {
                return Ok(start + at as u64 + 1);
            }
        }
        end = start;
    }
    Ok(0)
}

/// Reads until `buf` is full or the file ends; the number of bytes read.
fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

fn io_error(t: &Target<'_>, e: std::io::Error) -> ToolError {
    t.sandbox_error(mcp_shared::sandbox::SandboxError::Io { path: t.shown.to_owned(), kind: e.kind(), source: e })
}

fn to_usize(n: i64) -> usize {
    usize::try_from(n).unwrap_or(1)
}

/// Checks that `view_range` is a list of two integers.
fn parse_range(value: &Value) -> Result<Range, ToolError> {
    let invalid = || error::invalid("Invalid `view_range`. It should be a list of two integers.");
    let items = value.as_array().ok_or_else(invalid)?;
    if items.len() != 2 {
        return Err(invalid());
    }
    let start = as_integer(&items[0]).ok_or_else(invalid)?;
    let end = as_integer(&items[1]).ok_or_else(invalid)?;
    Ok(Range { start, end })
}

/// A JSON integer (an integral float such as `5.0` too).
pub(crate) fn as_integer(value: &Value) -> Option<i64> {
    if let Some(n) = value.as_i64() {
        return Some(n);
    }
    let f = value.as_f64()?;
    (f.fract() == 0.0 && f.abs() < 9.0e15).then_some(f as i64)
}

/// Walks the decoded text of a file line by line (CRLF read as LF), keeping the lines of the
/// range and counting the rest only as long as the range needs checking.
struct LineScan {
    range: Range,
    /// 0-based index of the first line kept (`None`: invalid, the whole file must be counted).
    first: Option<usize>,
    /// 0-based index of the last line kept (`None`: to the end).
    last: Option<usize>,
    /// The line the scan is in (0-based).
    line: usize,
    content: String,
    chars: usize,
    budget: usize,
    /// A CR at the end of the last piece, waiting to see whether a LF follows.
    pending_cr: bool,
}

impl LineScan {
    fn new(range: Range, budget: usize) -> LineScan {
        let first = usize::try_from(range.start - 1).ok();
        let last = if range.end == -1 { None } else { usize::try_from(range.end - 1).ok().or(Some(0)) };
        LineScan { range, first, last, line: 0, content: String::new(), chars: 0, budget, pending_cr: false }
    }

    fn keeps(&self, line: usize) -> bool {
        self.first.is_some_and(|f| line >= f) && self.last.is_none_or(|l| line <= l)
    }

    fn full(&self) -> bool {
        self.budget != 0 && self.chars > self.budget
    }

    /// Whether reading further can change neither the output nor the range check.
    fn done(&self) -> bool {
        let Some(first) = self.first else {
            return false;
        };
        let need = self.last.map_or(first, |l| l.max(first));
        let collected = self.full() || self.last.is_some_and(|l| self.line > l || l < first);
        self.line >= need && collected
    }

    fn feed(&mut self, piece: &str, last_piece: bool) {
        if piece.is_empty() && !last_piece {
            return;
        }
        let mut text = String::new();
        let mut piece = piece;
        if self.pending_cr {
            self.pending_cr = false;
            if !piece.starts_with('\n') {
                text.push('\r');
            }
        }
        if !last_piece && piece.ends_with('\r') {
            self.pending_cr = true;
            piece = &piece[..piece.len() - 1];
        }
        if text.is_empty() && !piece.contains('\r') {
            self.scan(piece);
        } else {
            text.push_str(piece);
            let normalized = text.replace("\r\n", "\n");
            self.scan(&normalized);
        }
    }

    fn scan(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut from = 0;
        while !self.done() {
            if !self.keeps(self.line) || self.full() {
                // Nothing to keep here: count line breaks in bulk up to the next line that
                // matters (the range's first line, or the end of the file).
                let target = match (self.first, self.last) {
                    (Some(first), _) if self.line < first => first,
                    (Some(_), Some(last)) if self.line < last => last,
                    _ => usize::MAX,
                };
                let wanted = target - self.line;
                let mut seen = 0usize;
                for at in memchr::memchr_iter(b'\n', &bytes[from..]) {
                    seen += 1;
                    if seen == wanted {
                        self.line = target;
                        from += at + 1;
                        break;
                    }
                }
                if seen < wanted {
                    self.line += seen;
                    return;
                }
                continue;
            }
            let next = memchr::memchr(b'\n', &bytes[from..]).map(|i| from + i);
            let segment = &text[from..next.unwrap_or(text.len())];
            self.content.push_str(segment);
            if self.budget != 0 {
                // Only a budget needs the count (characters, as Python's `len`).
                self.chars += segment.chars().count();
            }
            let Some(at) = next else {
                return;
            };
            if self.keeps(self.line + 1) && !self.full() {
                self.content.push('\n');
                self.chars += 1;
            }
            self.line += 1;
            from = at + 1;
        }
    }

    /// The content, or the reference's error for a range outside the file.
    fn finish(self, eof: bool) -> Result<String, ToolError> {
        let Range { start, end } = self.range;
        let shown = render::py_list(&[start, end]);
        if eof {
            let lines = self.line as i64 + 1;
            if start < 1 || start > lines {
                return Err(error::invalid(format!(
                    "Invalid `view_range`: {shown}. Its first element `{start}` should be within the range of lines of the file: {}",
                    render::py_list(&[1, lines])
                )));
            }
            if end > lines {
                return Err(error::invalid(format!(
                    "Invalid `view_range`: {shown}. Its second element `{end}` should be smaller than the number of lines in the file: `{lines}`"
                )));
            }
        }
        if end != -1 && end < start {
            return Err(error::invalid(format!(
                "Invalid `view_range`: {shown}. Its second element `{end}` should be larger or equal than its first `{start}`"
            )));
        }
        Ok(self.content)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn scan(text: &str, start: i64, end: i64, budget: usize, chunk: usize) -> Result<String, ToolError> {
        let mut s = LineScan::new(Range { start, end }, budget);
        let pieces: Vec<&str> = {
            let mut v = Vec::new();
            let mut rest = text;
            while !rest.is_empty() {
                let mut cut = chunk.min(rest.len());
                while !rest.is_char_boundary(cut) {
                    cut += 1;
                }
                v.push(&rest[..cut]);
                rest = &rest[cut..];
            }
            v
        };
        let mut eof = pieces.is_empty();
        if pieces.is_empty() {
            s.feed("", true);
        }
        for (i, p) in pieces.iter().enumerate() {
            let last = i + 1 == pieces.len();
            s.feed(p, last);
            eof = last;
            if s.done() && !last {
                eof = false;
                break;
            }
        }
        s.finish(eof)
    }

    fn reference(text: &str, start: i64, end: i64) -> String {
        let lines: Vec<&str> = text.split('\n').collect();
        let from = (start - 1) as usize;
        if end == -1 { lines[from..].join("\n") } else { lines[from..end as usize].join("\n") }
    }

    #[test]
    fn ranges_match_python_slicing_in_any_chunking() {
        let text = "l1\nl2\r\nl3\n\nl5\n";
        let normalized = text.replace("\r\n", "\n");
        for chunk in [1, 2, 3, 5, 100] {
            for (start, end) in [(1, -1), (1, 6), (2, 3), (6, 6), (3, -1), (5, 5)] {
                assert_eq!(
                    scan(text, start, end, 0, chunk).unwrap(),
                    reference(&normalized, start, end),
                    "{start} {end} {chunk}"
                );
            }
        }
    }

    #[test]
    fn range_errors_are_worded_like_the_reference() {
        let text = "a\nb\nc";
        let e = scan(text, 0, 2, 0, 2).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid `view_range`: [0, 2]. Its first element `0` should be within the range of lines of the file: [1, 3]"
        );
        let e = scan(text, 4, 5, 0, 2).unwrap_err();
        assert!(e.message.contains("Its first element `4` should be within the range of lines of the file: [1, 3]"));
        let e = scan(text, 1, 9, 0, 2).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid `view_range`: [1, 9]. Its second element `9` should be smaller than the number of lines in the file: `3`"
        );
        let e = scan(text, 3, 2, 0, 2).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid `view_range`: [3, 2]. Its second element `2` should be larger or equal than its first `3`"
        );
    }

    #[test]
    fn stops_early_once_the_output_is_full() {
        let text = "x".repeat(100) + "\n" + &"y\n".repeat(1000);
        let mut s = LineScan::new(Range { start: 1, end: -1 }, 10);
        s.feed(&text, false);
        assert!(s.done());
        assert!(s.content.len() > 10 && s.content.len() <= 101);
    }

    #[test]
    fn view_range_must_be_two_integers() {
        assert!(parse_range(&json!([1, 2])).is_ok());
        assert!(parse_range(&json!([1.0, 2])).is_ok());
        for bad in [json!([1]), json!([1, 2, 3]), json!(["1", 2]), json!([1.5, 2]), json!("1,2")] {
            assert_eq!(
                parse_range(&bad).unwrap_err().message,
                "Invalid `view_range`. It should be a list of two integers."
            );
        }
    }
}
