//! One file of a search: what it keeps of its matching lines (within the room the search still
//! has), read through a reader the call's cancellation stops.

use std::{
    io::{Read, Seek, SeekFrom},
    path::Path,
};

use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch};
use tokio_util::sync::CancellationToken;

use super::{MAX_LINE_BYTES, MAX_LINE_CHARS, Query, SearchLimits};
use crate::document::{self, TextEncoding};

/// One shown line of a file: a match (`PATH:N:TEXT`), context (`PATH-N-TEXT`) or a group break
/// (`--`). The path is the file's, added when the line is rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Line {
    Match(u64, String),
    Context(u64, String),
    Break,
}

impl Line {
    /// Its characters in the reply, newline included, for a file shown as `path_chars`.
    pub(super) fn chars(&self, path_chars: usize) -> usize {
        match self {
            Line::Match(n, text) | Line::Context(n, text) => path_chars + 3 + digits(*n) + text.chars().count(),
            Line::Break => 3,
        }
    }
}

fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// How much a file may still keep: matching lines, and characters of shown lines.
#[derive(Debug, Clone, Copy)]
pub(super) struct Room {
    pub(super) matches: usize,
    pub(super) chars: usize,
}

/// What one file gave: its shown lines (at most what [`Room`] allowed when it was searched),
/// and every matching line counted.
#[derive(Debug, Default)]
pub(super) struct FileResult {
    pub(super) shown: String,
    pub(super) lines: Vec<Line>,
    pub(super) matches: usize,
    pub(super) skipped: Option<Skipped>,
}

/// Why a file was not searched (to its end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Skipped {
    /// Larger than `--max-file-size`.
    TooLarge,
    /// A line (with its context) longer than [`MAX_LINE_BYTES`]: the search stopped there.
    LongLine,
}

/// A file reader that fails once the call is cancelled (timed out, or the client cancelled), so
/// that a search of a huge file stops within one buffer of the answer.
pub(super) struct Cancellable<R> {
    pub(super) inner: R,
    pub(super) cancel: CancellationToken,
}

impl<R: Read> Read for Cancellable<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.cancel.is_cancelled() {
            return Err(std::io::Error::other("the search was cancelled"));
        }
        self.inner.read(buf)
    }
}

/// Searches one file (opened by `open`), keeping at most what `room` allows.
pub(super) fn search_one(
    open: impl FnOnce() -> std::io::Result<std::fs::File>,
    shown: &Path,
    query: &Query,
    room: Room,
    limits: SearchLimits,
    cancel: &CancellationToken,
) -> FileResult {
    let shown = mcp_shared::sandbox::shown_name(shown.as_os_str()).into_owned();
    let nothing = |skipped| FileResult { skipped, ..FileResult::default() };
    if cancel.is_cancelled() {
        return nothing(None);
    }
    let Ok(mut file) = open() else { return nothing(None) };
    if file.metadata().is_ok_and(|md| md.len() > limits.max_file_size) {
        return nothing(Some(Skipped::TooLarge));
    }
    // The encoding, from the first bytes (as the editor decides it); binary files are skipped.
    let mut head = [0u8; 8192];
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(_) => return nothing(None),
        }
    }
    let Ok(format) = document::sniff(&head[..filled], filled < head.len()) else {
        return nothing(None);
    };
    if file.seek(SeekFrom::Start(0)).is_err() {
        return nothing(None);
    }
    let mut builder = SearcherBuilder::new();
    builder
        .line_number(true)
        .before_context(query.context)
        .after_context(query.context)
        .heap_limit(Some(MAX_LINE_BYTES))
        .binary_detection(BinaryDetection::quit(b'\x00'));
    if let TextEncoding::Legacy(encoding) = format.encoding
        && let Ok(encoding) = grep_searcher::Encoding::new(encoding.name())
    {
        builder.encoding(Some(encoding));
    }
    let mut searcher = builder.build();
    let path_chars = shown.chars().count();
    let mut sink = Collect { path_chars, room, chars: 0, full: false, result: FileResult::default() };
    let reader = Cancellable { inner: file, cancel: cancel.clone() };
    let outcome = searcher.search_reader(&query.matcher, reader, &mut sink);
    let mut result = sink.result;
    result.shown = shown;
    if outcome.is_err() && !cancel.is_cancelled() {
        // The line buffer reached its bound (or the file could not be read on): what was found
        // before stands.
        result.skipped = Some(Skipped::LongLine);
    }
    result
}

/// Collects shown lines while they fit in `room`, and counts every match.
struct Collect {
    path_chars: usize,
    room: Room,
    /// Characters of the lines kept.
    chars: usize,
    /// The room is used up: nothing more is kept (matches are still counted).
    full: bool,
    result: FileResult,
}

impl Collect {
    fn keep(&mut self, is_match: bool, number: Option<u64>, bytes: &[u8]) {
        if self.full {
            return;
        }
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_end_matches(['\n', '\r']);
        let cut = match text.char_indices().nth(MAX_LINE_CHARS) {
            Some((at, _)) => {
                let rest = text[at..].chars().count();
                format!("{}… [{rest} more characters]", &text[..at])
            }
            None => text.to_owned(),
        };
        let number = number.unwrap_or(0);
        let line = if is_match { Line::Match(number, cut) } else { Line::Context(number, cut) };
        let cost = line.chars(self.path_chars);
        if self.chars + cost > self.room.chars {
            self.full = true;
            return;
        }
        self.chars += cost;
        self.result.lines.push(line);
    }
}

impl Sink for Collect {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        self.result.matches += 1;
        if self.result.matches <= self.room.matches {
            self.keep(true, mat.line_number(), mat.bytes());
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, context: &SinkContext<'_>) -> Result<bool, Self::Error> {
        // Context after the last kept match is still wanted; before a match that is not kept, not.
        let wanted = match context.kind() {
            SinkContextKind::Before => self.result.matches < self.room.matches,
            _ => self.result.matches <= self.room.matches,
        };
        if wanted {
            self.keep(false, context.line_number(), context.bytes());
        }
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, Self::Error> {
        if self.result.matches < self.room.matches && !self.result.lines.is_empty() && !self.full {
            self.result.lines.push(Line::Break);
            self.chars += 3;
        }
        Ok(true)
    }
}
