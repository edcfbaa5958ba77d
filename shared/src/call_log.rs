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
//! Lines from concurrent calls never interleave: each is formatted whole and written with one
//! `write_all` under a lock, to a file opened for appending (`O_APPEND`: other processes appending
//! to the same file do not tear lines either). A write that fails is logged once to stderr and
//! the call is unaffected.

use std::{
    fs::OpenOptions,
    io::{self, Write},
    path::Path,
    sync::{
        Mutex, PoisonError,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use serde::Serialize;
use sha2::{Digest, Sha256};

/// Where the call log goes.
pub struct CallLog {
    out: Mutex<Box<dyn Write + Send>>,
    server: String,
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
    tool: &'a str,
    arguments_sha256: String,
    caller: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    peer: Option<&'a str>,
    outcome: &'a str,
    duration_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    traceparent: Option<&'a str>,
}

/// The first 16 hex digits of the SHA-256 of `text`.
pub fn digest(text: &str) -> String {
    let hash = Sha256::digest(text.as_bytes());
    hash.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// Whether `value` is a W3C trace context `traceparent` (`00-<32 hex>-<16 hex>-<2 hex>`), so
/// nothing else a client puts there reaches the log.
pub fn is_traceparent(value: &str) -> bool {
    let parts: Vec<&str> = value.split('-').collect();
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    parts.len() == 4 && hex(parts[0], 2) && hex(parts[1], 32) && hex(parts[2], 16) && hex(parts[3], 2)
}

impl CallLog {
    /// The log at `spec` (`-`: stderr; else a file, created if missing, appended to) for the
    /// server named `server`.
    pub fn open(spec: &Path, server: &str) -> io::Result<CallLog> {
        let out: Box<dyn Write + Send> = if spec == Path::new("-") {
            Box::new(io::stderr())
        } else {
            Box::new(OpenOptions::new().create(true).append(true).open(spec)?)
        };
        Ok(CallLog::to_writer(out, server))
    }

    /// The log written to `out` (tests).
    pub fn to_writer(out: Box<dyn Write + Send>, server: &str) -> CallLog {
        CallLog { out: Mutex::new(out), server: server.to_owned(), failed: AtomicBool::new(false) }
    }

    /// Appends the line of `record`.
    pub fn record(&self, record: &CallRecord<'_>) {
        let line = Line {
            time: jiff::Timestamp::now().to_string(),
            server: &self.server,
            tool: record.tool,
            arguments_sha256: digest(record.arguments),
            caller: record.caller,
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
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        if let Err(error) = out.write_all(&text).and_then(|()| out.flush())
            && !self.failed.swap(true, Ordering::Relaxed)
        {
            tracing::error!(%error, "cannot write the call log (--audit-log); calls go on unlogged");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
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
        let buf = Shared::default();
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
        let buf = Shared::default();
        let log = CallLog::to_writer(Box::new(buf.clone()), "srv");
        log.record(&CallRecord { tool: "t", traceparent: Some("\u{1b}[31mforged"), ..CallRecord::default() });
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
        assert!(!log.failed.load(Ordering::Relaxed), "a write to the call log failed (is the disk full?)");
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 1600, "lines in the log");
        for line in text.lines() {
            let v: serde_json::Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: a torn line: {line:.80}"));
            assert!(v["tool"].as_str().unwrap().starts_with("tool-"));
        }
    }
}
