//! [`RawStdio`]: a server's stdio as lines of text, for what [`StdioClient`](crate::StdioClient)
//! cannot show: an answer's exact bytes (an id such as `18446744073709551616` that a JSON
//! number would round), and that every line sent got exactly one line back.

use std::{
    ffi::OsStr,
    io::{BufRead, BufReader, Write},
    path::Path,
    process::{Child, ChildStdin, Command, Stdio},
    sync::mpsc::{self, Receiver},
    thread,
    time::Duration,
};

use anyhow::{Context, Result, bail};

/// A spawned server, its stdin, and its stdout as lines.
pub struct RawStdio {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl RawStdio {
    /// Spawns `program` with `args` in `cwd` (stderr discarded).
    pub fn spawn(program: impl AsRef<OsStr>, args: &[&str], cwd: &Path) -> Result<RawStdio> {
        let mut command = Command::new(program);
        command.args(args).current_dir(cwd);
        RawStdio::start(command)
    }

    /// Spawns `command` as it is set up (arguments, directory, environment), with piped stdin
    /// and stdout and stderr discarded.
    pub fn start(mut command: Command) -> Result<RawStdio> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("cannot spawn the server")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Ok(RawStdio { stdin: child.stdin.take(), child, lines })
    }

    /// Writes `line` and a newline.
    pub fn send(&mut self, line: &str) -> Result<()> {
        self.send_bytes(line.as_bytes())
    }

    /// Writes `bytes` and a newline.
    pub fn send_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        let stdin = self.stdin.as_mut().context("stdin is closed")?;
        stdin.write_all(bytes)?;
        stdin.write_all(b"\n")?;
        stdin.flush()?;
        Ok(())
    }

    /// The next line the server wrote, within `wait`.
    pub fn line(&mut self, wait: Duration) -> Result<String> {
        match self.lines.recv_timeout(wait) {
            Ok(line) => Ok(line),
            Err(_) => bail!("no line from the server within {wait:?}"),
        }
    }

    /// `Some(line)` if the server writes one within `wait`, else `None`.
    pub fn maybe_line(&mut self, wait: Duration) -> Option<String> {
        self.lines.recv_timeout(wait).ok()
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Closes stdin (the server should then exit).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }
}

impl Drop for RawStdio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
