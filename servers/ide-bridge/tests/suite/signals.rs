//! SIGTERM stops the host even when nobody reads its stderr any more (a launcher or client that
//! went away): a log line written into the broken pipe must not kill the task that handles the
//! signal.

use std::{
    io::{BufRead, BufReader},
    process::{Command, Stdio},
    sync::mpsc,
};

use super::{Env, HOST, TOKEN, WAIT};

#[test]
fn sigterm_stops_the_host_after_its_stderr_reader_is_gone() {
    let env = Env::new();
    let root = env.workspace("ws", &[("a.txt", "a\n")]);
    // Spawned here, not with `HostProc`, whose thread keeps reading stderr: this test must close
    // the read end of the pipe itself.
    let mut child = Command::new(HOST)
        .arg("--root")
        .arg(&root)
        .args(["--port", "0", "--token", TOKEN, "--no-discovery"])
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("listening on") {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "the host exited before listening");
    }
    drop(stderr); // the read end closes: every later write to stderr fails with EPIPE

    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let (tx, rx) = mpsc::channel();
    let pid = child.id();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    match rx.recv_timeout(WAIT) {
        Ok(exit) => assert!(exit.unwrap().success(), "the host did not exit cleanly on SIGTERM"),
        Err(_) => {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
            panic!("the host ignored SIGTERM once its stderr reader was gone");
        }
    }
}
