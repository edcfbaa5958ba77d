//! `initialize` answered before the async runtime starts (`stdio::early_initialize`), through
//! each of the four real binaries: the same bytes as the answer rmcp gives once the runtime runs
//! (`--no-early-initialize`), written once, and the session goes on as it would have.

use std::{
    io::{Read, Write},
    path::Path,
    process::{Command, Stdio},
};

use super::robustness::servers;

/// What the server wrote to stdout for `input` (written at once, then stdin closed), its lines
/// in order, and whether its log says it answered `initialize` early.
fn run(mut command: Command, input: &str, log: &Path) -> (Vec<String>, bool) {
    let log_file = std::fs::File::create(log).unwrap();
    let mut child = command
        .env("RUST_LOG", "mcp_shared=debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(log_file)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    assert!(child.wait().unwrap().success(), "the server failed; its log: {}", std::fs::read_to_string(log).unwrap());
    let early = std::fs::read_to_string(log).unwrap().contains("answered initialize before the runtime started");
    (out.lines().map(str::to_owned).collect(), early)
}

fn initialize(id: &str, version: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"early-test","version":"1"}}}}}}"#
    )
}

#[test]
fn every_server_answers_initialize_early_with_the_bytes_rmcp_would_write() {
    let dir = tempfile::tempdir().unwrap();
    let rest = concat!(
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":"list","method":"tools/list"}"#,
        "\n"
    );
    let cases = [
        (format!("{}\n{rest}", initialize("0", "2025-11-25")), true),
        (format!("{}\n{rest}", initialize("18446744073709551616", "2024-11-05")), true),
        (format!("{}\n{rest}", initialize("\"é\"", "2026-07-28")), true),
        (format!("{}\n{rest}", initialize("1.0", "2025-06-18")), true),
        (format!("{}\n{rest}", initialize("0", "2025-03-26").replace("\"clientInfo\"", "\"clientInfoo\"")), false),
        (
            format!("{{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}}\n{}\n{rest}", initialize("0", "2025-11-25")),
            false,
        ),
        // A first line that takes several reads (40 KiB), and one past what is read before the
        // runtime (70 KiB): every byte reaches the transport either way.
        (format!("{}\n{rest}", initialize("7", "2025-11-25").replace("early-test", &"e".repeat(40 << 10))), true),
        (format!("{}\n{rest}", initialize("8", "2025-11-25").replace("early-test", &"e".repeat(70 << 10))), false),
    ];
    for (name, _) in servers(dir.path()) {
        for (i, (input, early)) in cases.iter().enumerate() {
            let command = || servers(dir.path()).into_iter().find(|(n, _)| *n == name).unwrap().1;
            let (plain, plain_early) = {
                let mut c = command();
                c.arg("--no-early-initialize");
                run(c, input, &dir.path().join("plain.log"))
            };
            let (fast, fast_early) = run(command(), input, &dir.path().join("fast.log"));
            assert!(!plain_early, "{name}: --no-early-initialize answered early");
            assert_eq!(fast_early, *early, "{name}, case {i}: early answer\n{fast:#?}");
            assert!(!plain.is_empty(), "{name}, case {i}: no answer at all");
            // The first line is the first answer either way; the answers after it may come in
            // either order (rmcp runs requests concurrently).
            assert_eq!(fast.first(), plain.first(), "{name}, case {i}: the first answer");
            let (mut fast_rest, mut plain_rest) = (fast[1..].to_vec(), plain[1..].to_vec());
            fast_rest.sort();
            plain_rest.sort();
            assert_eq!(fast_rest, plain_rest, "{name}, case {i}: the answers after it");
            if *early {
                assert!(plain[0].contains(&format!("\"serverInfo\":{{\"name\":\"{name}\"")), "{}", plain[0]);
                assert_eq!(fast.iter().filter(|l| l.contains("\"serverInfo\"")).count(), 1, "{fast:#?}");
                assert!(fast.iter().any(|l| l.contains("\"id\":\"list\"") && l.contains("\"tools\"")), "{fast:#?}");
            }
        }
    }
}
