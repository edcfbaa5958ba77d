//! A server's start on std's entry point: a closed standard stream becomes `/dev/null` (no
//! file opened later can become the JSON-RPC stream), a client that stops reading is an `EPIPE`,
//! not a killed server, the command line reaches clap, and an error from `main` is printed and
//! exits with 1.

use std::{
    io::{BufRead, BufReader, Read, Write},
    os::unix::process::{CommandExt, ExitStatusExt},
    process::{Child, Command, ExitStatus, Stdio},
    time::{Duration, Instant},
};

use super::BIN;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"start","version":"1"}}}"#;

/// The server spawned with the standard stream `fd` closed (not redirected: closed).
fn spawn_with_closed(fd: libc::c_int, configure: impl FnOnce(&mut Command)) -> Child {
    let mut command = Command::new(BIN);
    configure(&mut command);
    #[allow(unsafe_code)]
    // SAFETY: `close` is async-signal-safe, which is all `pre_exec` asks.
    unsafe {
        command.pre_exec(move || {
            libc::close(fd);
            Ok(())
        });
    }
    command.spawn().unwrap()
}

/// The child's exit status, or a failed test if it is still running after 20 s.
fn wait(child: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the server did not exit within 20 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The server started with its stdout (`fd` 1) or stderr (2) closed: once its runtime serves,
/// with the runtime's own descriptors open, `fd` is `/dev/null`, and it exits cleanly at the end
/// of its input.
fn assert_a_closed_output_is_dev_null_while_serving(fd: libc::c_int) {
    let mut child = spawn_with_closed(fd, |c| {
        c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).env("RUST_LOG", "info");
    });
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{INITIALIZE}").unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"ping"}}"#).unwrap();
    stdin.flush().unwrap();
    // The runtime serves once the ping is answered (on stdout), or, with stdout closed, once it
    // writes its start-up log line (on stderr).
    let (open, serving): (Box<dyn Read>, &str) = match fd {
        2 => (Box::new(child.stdout.take().unwrap()), r#""id":2"#),
        _ => (Box::new(child.stderr.take().unwrap()), ""),
    };
    let mut open = BufReader::new(open);
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        assert!(open.read_line(&mut line).unwrap() > 0, "the server ended before serving: {lines:?}");
        let done = line.contains(serving);
        lines.push(line);
        if done {
            break;
        }
    }
    if fd == 2 {
        assert!(lines[0].contains(r#""serverInfo""#), "no initialize answer: {lines:?}");
    }
    let link = std::fs::read_link(format!("/proc/{}/fd/{fd}", child.id())).unwrap();
    assert_eq!(link, std::path::Path::new("/dev/null"), "fd {fd}");
    drop(stdin);
    let status = wait(&mut child);
    let mut rest = String::new();
    open.read_to_string(&mut rest).unwrap();
    assert!(status.success(), "exit {status:?}, then: {lines:?} {rest}");
}

#[test]
fn a_closed_stderr_is_reopened_on_dev_null_and_the_server_answers() {
    assert_a_closed_output_is_dev_null_while_serving(2);
}

#[test]
fn a_closed_stdout_is_reopened_on_dev_null_and_nothing_else_receives_the_answers() {
    assert_a_closed_output_is_dev_null_while_serving(1);
}

#[test]
fn a_closed_stdin_reads_as_the_end_of_input() {
    let mut child = spawn_with_closed(0, |c| {
        c.stdout(Stdio::piped()).stderr(Stdio::piped()).env("RUST_LOG", "debug");
    });
    let status = wait(&mut child);
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let mut log = String::new();
    child.stderr.take().unwrap().read_to_string(&mut log).unwrap();
    assert!(status.success(), "exit {status:?}, stderr: {log}");
    assert_eq!(out, "", "no request, no answer");
    // Read from a closed fd 0 (or from whatever took it), stdin is an error, not an end.
    assert!(!log.contains("ERROR") && !log.contains("os error"), "stdin was not an empty input: {log}");
}

#[test]
fn a_client_that_stops_reading_does_not_kill_the_server_with_sigpipe() {
    let mut child =
        Command::new(BIN).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    drop(child.stdout.take()); // the read end closes: every answer is written into a broken pipe
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{INITIALIZE}").unwrap();
    for id in 2..10 {
        // The server may already be gone (its write failed): then so does this one.
        if writeln!(stdin, r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#).is_err() {
            break;
        }
    }
    drop(stdin);
    let status = wait(&mut child);
    assert_eq!(status.signal(), None, "killed by signal {:?}: SIGPIPE is not ignored", status.signal());
}

#[test]
fn an_error_from_main_is_printed_and_exits_with_1() {
    // The port is taken, so binding it fails in the server's `main`, after clap.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    // Even with RUST_BACKTRACE=1 (common in developers' shells): a user's mistake is no crash.
    let out =
        Command::new(BIN).args(["--http", &addr]).env("RUST_BACKTRACE", "1").stdin(Stdio::null()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    // One line: what went wrong and what to do; no "Caused by:", no backtrace.
    let error = stderr.lines().find(|l| l.starts_with("error: ")).unwrap_or_default();
    assert!(
        error.contains(&addr) && error.contains("the port is in use") && error.contains(":0 for a free one"),
        "{stderr}"
    );
    assert!(!stderr.contains("Caused by") && !stderr.contains("backtrace"), "{stderr}");
    assert_eq!(stderr.lines().filter(|l| l.contains(&addr)).count(), 1, "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn the_command_line_reaches_the_flags() {
    let out = Command::new(BIN).arg("--version").output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("mcp-server-sample-tool {}\n", env!("CARGO_PKG_VERSION")));
    let out = Command::new(BIN).arg("--no-such-flag").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "clap's usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--no-such-flag"));
}
