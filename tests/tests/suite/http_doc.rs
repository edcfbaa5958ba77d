//! `docs/http.md`'s curl session, run as written (with a free port for 8080) against the real
//! binary: a new user's first HTTP session works by copying it.

use std::{
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use mcp_tests::find_server_binary;

/// The shell block after `<!-- http-session -->` in docs/http.md.
fn session_block() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let doc = std::fs::read_to_string(root.join("docs/http.md")).unwrap();
    let after = doc.split("<!-- http-session -->").nth(1).expect("the marked block");
    let block = after.split("```sh\n").nth(1).unwrap().split("```").next().unwrap();
    block.to_owned()
}

#[test]
fn the_documented_curl_session_works_as_written() {
    if Command::new("curl").arg("--version").output().is_err() {
        panic!("curl is needed to run docs/http.md's session (Debian: apt-get install curl)");
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let address = format!("127.0.0.1:{port}");
    let mut child = Command::new(find_server_binary("mcp-server-sample-tool").unwrap())
        .args(["--http", &address])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(&address).is_err() {
        assert!(Instant::now() < deadline, "the server did not listen");
        std::thread::sleep(Duration::from_millis(20));
    }
    let dir = tempfile::tempdir().unwrap();
    let script = session_block().replace("127.0.0.1:8080", &address);
    let out = Command::new("bash").args(["-euo", "pipefail", "-c", &script]).current_dir(dir.path()).output().unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout.contains(r#""protocolVersion":"2025-11-25""#), "initialize: {stdout}");
    assert!(stdout.contains(r#"\"value\":3"#) || stdout.contains(r#""value":3"#), "the call: {stdout}");
    assert!(stdout.trim_end().ends_with("204"), "the DELETE: {stdout}");
}
