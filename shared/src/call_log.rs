//! The call log (`--audit-log PATH`, `-` for stderr): one JSON line per tool call, for "who
//! called what, when, and how did it end".
//!
//! A line: `{"time","server","tool","arguments_sha256","caller","peer","outcome","duration_ms","traceparent"}`
//! (`peer` and `traceparent` only when known). The arguments are never written, only the
//! first 16 hex digits of the SHA-256 of their JSON text: a call can be matched against what a
//! client says it sent, but no file content, manuscript or secret reaches the log. `caller` is
//! `stdio`, or over HTTP who presented what (`bearer-token`: the holder of `--http-token`;
//! `anonymous`: no token configured).
//!
//! A call never waits for the log: lines go to a bounded queue ([`QUEUE_LINES`]) that one
//! thread of the log's own writes out, each line whole with one `write_all`, to a file opened
//! for appending (`O_APPEND`: other processes appending to the same file do not tear lines
//! either). When the queue is full (a reader of `-` or of a FIFO that does not keep up) a line
//! is dropped and counted; the next line written is preceded by one line saying how many were
//! dropped (`{"time","server","dropped":N}`), and the first drop is also logged once. A FIFO is
//! opened by that thread too, so one without a reader delays no answer. A write that fails is
//! logged once to stderr and the calls are unaffected. Fields a client chooses are bounded: a
//! tool name is cut after [`MAX_FIELD_BYTES`] bytes (with its length), as is the caller.

use std::{
    fs::OpenOptions,
    io::{self, Write},
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
        mpsc::{self, Receiver, SyncSender, TrySendError},
    },
    time::{Duration, Instant},
};

use serde::Serialize;
use sha2::{Digest, Sha256};

/// Lines the queue holds before it drops.
pub const QUEUE_LINES: usize = 8192;

/// The longest client-chosen field written (tool name, caller), in bytes.
pub const MAX_FIELD_BYTES: usize = 128;

/// Where the call log goes.
pub struct CallLog {
    queue: SyncSender<Vec<u8>>,
    server: String,
    shared: Arc<Shared>,
}

/// What the calls and the writer thread share.
#[derive(Default)]
struct Shared {
    /// Lines queued and not yet written.
    pending: AtomicUsize,
    /// Lines dropped since the last notice.
    dropped: AtomicU64,
    /// Whether a write failed (said once).
    failed: AtomicBool,
}

impl std::fmt::Debug for CallLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallLog").field("server", &self.server).finish_non_exhaustive()
    }
}

/// One tool call, as the log records it.
#[derive(Debug, Clone, Default)]
pub struct CallRecord<'a> {
    /// The tool's name as the client sent it.
    pub tool: &'a str,
    /// The arguments' JSON text (digested, never written).
    pub arguments: &'a str,
    /// Who called: `stdio`, `bearer-token`, `anonymous`.
    pub caller: &'a str,
    /// The client's address, over HTTP.
    pub peer: Option<String>,
    /// `OK`, or the error code of the result (`NOT_FOUND`, `TIMEOUT`, ...).
    pub outcome: &'a str,
    /// How long the call took.
    pub duration: Duration,
    /// The W3C `traceparent` the request carried in `_meta`, if any.
    pub traceparent: Option<&'a str>,
}

#[derive(Serialize)]
struct Line<'a> {
    time: String,
    server: &'a str,
    tool: std::borrow::Cow<'a, str>,
    arguments_sha256: String,
    caller: std::borrow::Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    peer: Option<&'a str>,
    outcome: &'a str,
    duration_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    traceparent: Option<&'a str>,
}

/// The line that says how many lines were dropped.
#[derive(Serialize)]
struct Dropped<'a> {
    time: String,
    server: &'a str,
    dropped: u64,
}

/// The first 16 hex digits of the SHA-256 of `text`.
pub fn digest(text: &str) -> String {
    let hash = Sha256::digest(text.as_bytes());
    hash.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// `text`, or its first [`MAX_FIELD_BYTES`] bytes (at a character boundary) followed by
/// `…(N bytes)`.
pub fn bounded(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= MAX_FIELD_BYTES {
        return text.into();
    }
    let mut cut = MAX_FIELD_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…({} bytes)", &text[..cut], text.len()).into()
}

/// Whether `value` is a W3C trace context `traceparent` (`00-<32 hex>-<16 hex>-<2 hex>`), so
/// nothing else a client puts there reaches the log.
pub fn is_traceparent(value: &str) -> bool {
    let parts: Vec<&str> = value.split('-').collect();
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    parts.len() == 4 && hex(parts[0], 2) && hex(parts[1], 32) && hex(parts[2], 16) && hex(parts[3], 2)
}

/// What the writer thread writes to: ready, or a path it opens itself (a FIFO, which would
/// block until a reader comes).
enum Target {
    Ready(Box<dyn Write + Send>),
    Later(PathBuf),
}

fn append(path: &Path) -> io::Result<std::fs::File> {
    OpenOptions::new().create(true).append(true).open(path)
}

impl CallLog {
    /// The log at `spec` (`-`: stderr; else a file, created if missing, appended to) for the
    /// server named `server`. A regular file (or a new one) is opened now, so that a bad path
    /// fails the start; anything else (a FIFO) by the writer thread.
    pub fn open(spec: &Path, server: &str) -> io::Result<CallLog> {
        let target = if spec == Path::new("-") {
            Target::Ready(Box::new(io::stderr()))
        } else {
            match std::fs::metadata(spec) {
                Ok(md) if !md.is_file() && !md.is_dir() => Target::Later(spec.to_owned()),
                _ => Target::Ready(Box::new(append(spec)?)),
            }
        };
        CallLog::start(target, server)
    }

    fn start(target: Target, server: &str) -> io::Result<CallLog> {
        let (queue, lines) = mpsc::sync_channel(QUEUE_LINES);
        let shared = Arc::new(Shared::default());
        let (thread_shared, name) = (Arc::clone(&shared), server.to_owned());
        std::thread::Builder::new()
            .name("call-log".into())
            .spawn(move || write_lines(target, &lines, &thread_shared, &name))?;
        Ok(CallLog { queue, server: server.to_owned(), shared })
    }

    /// Queues the line of `record` (never waits: a full queue drops it, counted).
    pub fn record(&self, record: &CallRecord<'_>) {
        let line = Line {
            time: jiff::Timestamp::now().to_string(),
            server: &self.server,
            tool: bounded(record.tool),
            arguments_sha256: digest(record.arguments),
            caller: bounded(record.caller),
            peer: record.peer.as_deref(),
            outcome: record.outcome,
            duration_ms: (record.duration.as_secs_f64() * 1e6).round() / 1e3,
            traceparent: record.traceparent.filter(|t| is_traceparent(t)),
        };
        let mut text = match serde_json::to_vec(&line) {
            Ok(text) => text,
            Err(error) => {
                tracing::warn!(%error, "cannot format a call log line");
                return;
            }
        };
        text.push(b'\n');
        self.shared.pending.fetch_add(1, Ordering::AcqRel);
        if let Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) = self.queue.try_send(text) {
            self.shared.pending.fetch_sub(1, Ordering::AcqRel);
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Lines dropped and not yet told in the log.
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Waits (at most `max`) until every queued line is written: at exit.
    pub fn drain(&self, max: Duration) {
        let started = Instant::now();
        while self.shared.pending.load(Ordering::Acquire) > 0 && started.elapsed() < max {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// The writer thread: every queued line, whole, until the log is dropped.
fn write_lines(target: Target, lines: &Receiver<Vec<u8>>, shared: &Shared, server: &str) {
    let fail = |error: &io::Error| {
        if !shared.failed.swap(true, Ordering::Relaxed) {
            tracing::error!(%error, "cannot write the call log (--audit-log); calls go on unlogged");
        }
    };
    let mut out = match target {
        Target::Ready(out) => out,
        Target::Later(path) => match append(&path) {
            Ok(file) => Box::new(file),
            Err(error) => {
                fail(&error);
                // Nothing to write to: every line is dropped from here on.
                while lines.recv().is_ok() {
                    shared.pending.fetch_sub(1, Ordering::AcqRel);
                }
                return;
            }
        },
    };
    let mut told = false;
    while let Ok(line) = lines.recv() {
        let dropped = shared.dropped.swap(0, Ordering::Relaxed);
        if dropped > 0 {
            if !told {
                told = true;
                tracing::warn!(
                    dropped,
                    "the call log (--audit-log) is not read fast enough: lines were dropped, each counted in the log"
                );
            }
            let notice = Dropped { time: jiff::Timestamp::now().to_string(), server, dropped };
            if let Ok(mut text) = serde_json::to_vec(&notice) {
                text.push(b'\n');
                if let Err(error) = out.write_all(&text) {
                    fail(&error);
                }
            }
        }
        if let Err(error) = out.write_all(&line).and_then(|()| out.flush()) {
            fail(&error);
        }
        shared.pending.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    impl CallLog {
        /// The log written to `out`.
        fn to_writer(out: Box<dyn Write + Send>, server: &str) -> CallLog {
            CallLog::start(Target::Ready(out), server).unwrap()
        }
    }

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_line_has_the_digest_not_the_arguments() {
        let buf = Buffer::default();
        let log = CallLog::to_writer(Box::new(buf.clone()), "srv");
        let arguments = r#"{"file_text":"the secret content"}"#;
        log.record(&CallRecord {
            tool: "text_editor",
            arguments,
            caller: "stdio",
            outcome: "OK",
            duration: Duration::from_micros(1500),
            traceparent: Some("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
            ..CallRecord::default()
        });
        log.drain(Duration::from_secs(10));
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert!(text.ends_with('\n') && text.lines().count() == 1, "{text}");
        assert!(!text.contains("secret"), "{text}");
        let line: serde_json::Value = serde_json::from_str(text.trim_end()).unwrap();
        assert_eq!(line["server"], "srv");
        assert_eq!(line["tool"], "text_editor");
        assert_eq!(line["arguments_sha256"], digest(arguments));
        assert_eq!(line["arguments_sha256"].as_str().unwrap().len(), 16);
        assert_eq!(line["caller"], "stdio");
        assert_eq!(line["outcome"], "OK");
        assert_eq!(line["duration_ms"], 1.5);
        assert_eq!(line["traceparent"], "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        assert!(line.get("peer").is_none());
        assert!(line["time"].as_str().unwrap().ends_with('Z'));
    }

    #[test]
    fn only_a_well_formed_traceparent_is_kept() {
        assert!(is_traceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
        for bad in [
            "",
            "00-xyz",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            "a\nb",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
        ] {
            assert!(!is_traceparent(bad), "{bad}");
        }
        let buf = Buffer::default();
        let log = CallLog::to_writer(Box::new(buf.clone()), "srv");
        log.record(&CallRecord { tool: "t", traceparent: Some("\u{1b}[31mforged"), ..CallRecord::default() });
        log.drain(Duration::from_secs(10));
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert!(!text.contains("forged"), "{text}");
    }

    #[test]
    fn concurrent_calls_write_whole_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("calls.jsonl");
        let log = Arc::new(CallLog::open(&path, "srv").unwrap());
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let log = Arc::clone(&log);
                std::thread::spawn(move || {
                    for i in 0..200 {
                        let tool = format!("tool-{t}-{i}-{}", "x".repeat(500));
                        log.record(&CallRecord { tool: &tool, outcome: "OK", ..CallRecord::default() });
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        // A failed write (a full disk) is told apart from a torn or lost line.
        log.drain(Duration::from_secs(30));
        assert!(!log.shared.failed.load(Ordering::Relaxed), "a write to the call log failed (is the disk full?)");
        assert_eq!(log.dropped(), 0, "the writer kept up with 1,600 lines");
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 1600, "lines in the log");
        for line in text.lines() {
            let v: serde_json::Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: a torn line: {line:.80}"));
            assert!(v["tool"].as_str().unwrap().starts_with("tool-"));
        }
    }

    /// A writer that blocks until told to go on (a reader that never reads).
    #[derive(Clone)]
    struct Stalled(Arc<(Mutex<bool>, std::sync::Condvar)>, Buffer);

    impl Write for Stalled {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let (open, turn) = &*self.0;
            let mut go = open.lock().unwrap();
            while !*go {
                go = turn.wait(go).unwrap();
            }
            self.1.write(buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A log nobody reads never holds a call up: past the queue, lines are dropped and counted,
    /// and the log says how many once it moves again.
    #[test]
    fn a_stalled_log_drops_and_counts_without_blocking_calls() {
        let buf = Buffer::default();
        let gate = Arc::new((Mutex::new(false), std::sync::Condvar::new()));
        let log = CallLog::to_writer(Box::new(Stalled(Arc::clone(&gate), buf.clone())), "srv");
        let total = QUEUE_LINES + 500;
        for i in 0..total {
            log.record(&CallRecord { tool: &format!("t{i}"), outcome: "OK", ..CallRecord::default() });
        }
        let dropped = log.dropped();
        assert!(dropped >= 499, "{dropped} dropped");
        *gate.0.lock().unwrap() = true;
        gate.1.notify_all();
        log.drain(Duration::from_secs(30));
        log.record(&CallRecord { tool: "after", outcome: "OK", ..CallRecord::default() });
        log.drain(Duration::from_secs(30));
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let told: u64 = lines.iter().filter_map(|l| l["dropped"].as_u64()).sum();
        assert_eq!(told, dropped, "every dropped line is counted in the log");
        let written = lines.iter().filter(|l| l.get("tool").is_some()).count() as u64;
        assert_eq!(written + told, total as u64 + 1);
        assert_eq!(lines.last().unwrap()["tool"], "after");
    }

    #[test]
    fn long_client_chosen_fields_are_cut() {
        let buf = Buffer::default();
        let log = CallLog::to_writer(Box::new(buf.clone()), "srv");
        let name = "é".repeat(1_000_000);
        log.record(&CallRecord {
            tool: &name,
            caller: &"c".repeat(500),
            outcome: "UNKNOWN_TOOL",
            ..CallRecord::default()
        });
        log.drain(Duration::from_secs(10));
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert!(text.len() < 1_000, "{} bytes", text.len());
        let line: serde_json::Value = serde_json::from_str(text.trim_end()).unwrap();
        assert!(line["tool"].as_str().unwrap().ends_with("…(2000000 bytes)"));
        assert!(line["caller"].as_str().unwrap().ends_with("…(500 bytes)"));
    }

    /// A FIFO with no reader: opening the log does not wait for one.
    #[test]
    #[cfg(unix)]
    fn a_fifo_without_a_reader_does_not_block_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("log.fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let log = CallLog::open(&fifo, "srv").unwrap();
        log.record(&CallRecord { tool: "t", outcome: "OK", ..CallRecord::default() });
        // A reader comes: the line arrives.
        let mut reader = std::fs::File::open(&fifo).unwrap();
        let mut line = String::new();
        io::BufRead::read_line(&mut io::BufReader::new(&mut reader), &mut line).unwrap();
        assert!(line.contains(r#""tool":"t""#), "{line}");
    }
}
