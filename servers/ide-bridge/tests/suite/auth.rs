//! The WebSocket upgrade: the token (missing, wrong, right), foreign `Origin`s and non-loopback
//! `Host`s, through a raw client and through the bridge.

use mcp_tests::text_of;
use serde_json::json;

use super::{Env, TOKEN, code, refused_status, rt, ws_call, ws_connect};

#[test]
fn a_missing_or_wrong_token_is_401_and_the_right_one_opens_a_session() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "A")]);
    let host = env.host(&ws, &[]);
    rt().block_on(async {
        assert_eq!(refused_status(ws_connect(host.port, &[]).await), 401);
        assert_eq!(refused_status(ws_connect(host.port, &[("Authorization", "Bearer wrong")]).await), 401);
        let almost = format!("Bearer {}", &TOKEN[..TOKEN.len() - 1]);
        assert_eq!(refused_status(ws_connect(host.port, &[("Authorization", &almost)]).await), 401);
        assert_eq!(refused_status(ws_connect(host.port, &[("Authorization", TOKEN)]).await), 401);
        let basic = format!("Basic {TOKEN}");
        assert_eq!(refused_status(ws_connect(host.port, &[("Authorization", &basic)]).await), 401);

        let right = format!("Bearer {TOKEN}");
        let mut session = ws_connect(host.port, &[("Authorization", &right)]).await.unwrap();
        let response = ws_call(&mut session, 1, "fs/read", json!({"path": "a.txt"})).await;
        assert_eq!(response["result"], json!({"content": "A"}));
    });
    assert!(host.stderr().contains("wrong token"), "{}", host.stderr());
}

#[test]
fn a_foreign_origin_is_403_even_with_the_token_and_an_allowed_one_passes() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "A")]);
    // The flag by its older name, kept as an alias of `--allow-origin`.
    let host = env.host(&ws, &["--allowed-origin", "vscode-webview://trusted"]);
    let auth = format!("Bearer {TOKEN}");
    rt().block_on(async {
        for origin in ["https://evil.example", "http://127.0.0.1", "null", "vscode-webview://other"] {
            let status = refused_status(ws_connect(host.port, &[("Authorization", &auth), ("Origin", origin)]).await);
            assert_eq!(status, 403, "{origin}");
        }
        let mut session =
            ws_connect(host.port, &[("Authorization", &auth), ("Origin", "vscode-webview://trusted")]).await.unwrap();
        let response = ws_call(&mut session, 1, "fs/read", json!({"path": "a.txt"})).await;
        assert_eq!(response["result"]["content"], "A");
    });
}

#[test]
fn a_host_header_that_is_not_loopback_is_403() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    let host = env.host(&ws, &[]);
    let auth = format!("Bearer {TOKEN}");
    rt().block_on(async {
        for name in ["evil.example", "127.0.0.1.nip.io", "192.168.1.10"] {
            let value = format!("{name}:{}", host.port);
            let status = refused_status(ws_connect(host.port, &[("Authorization", &auth), ("Host", &value)]).await);
            assert_eq!(status, 403, "{value}");
        }
        let other_port = format!("127.0.0.1:{}", host.port.wrapping_add(1));
        assert_eq!(
            refused_status(ws_connect(host.port, &[("Authorization", &auth), ("Host", &other_port)]).await),
            403
        );
        let localhost = format!("localhost:{}", host.port);
        assert!(ws_connect(host.port, &[("Authorization", &auth), ("Host", &localhost)]).await.is_ok());
    });
}

#[test]
fn the_host_listens_on_loopback_only() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    let host = env.host(&ws, &[]);
    let port = format!(":{:04X}", host.port);
    let mut listeners = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(table).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // local_address, state 0A = LISTEN
            if fields.len() > 3 && fields[1].ends_with(&port) && fields[3] == "0A" {
                listeners.push(fields[1].to_owned());
            }
        }
    }
    assert_eq!(listeners, vec![format!("0100007F{port}")], "the host must listen on 127.0.0.1 only");
}

#[test]
fn a_bridge_with_a_wrong_token_gets_access_denied_and_writes_nothing() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "A")]);
    let host = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &["--url", &host.url(), "--token", "not-the-token"]);
    let result = bridge.call_tool("write_file", json!({"path": "a.txt", "content": "pwned"})).unwrap();
    assert_eq!(code(&result), "ACCESS_DENIED", "{result}");
    assert!(text_of(&result).contains("token"), "{}", text_of(&result));
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "A");
    let result = bridge.call_tool("read_file", json!({"path": "a.txt"})).unwrap();
    assert_eq!(code(&result), "ACCESS_DENIED");
}

#[test]
fn a_bridge_with_the_right_token_reads_and_one_with_a_url_finds_the_token_in_discovery() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "A")]);
    let elsewhere = env.workspace("elsewhere", &[]);
    let host = env.host_without_token(&ws, &[]);
    let mut explicit = env.bridge(&elsewhere, &["--url", &host.url(), "--token", &host.token]);
    assert_eq!(text_of(&explicit.call_tool("read_file", json!({"path": "a.txt"})).unwrap()), "A");
    let mut from_env =
        env.bridge_builder(&elsewhere, &["--url", &host.url()]).env("IDE_BRIDGE_TOKEN", &host.token).spawn().unwrap();
    from_env.initialize().unwrap();
    assert_eq!(text_of(&from_env.call_tool("read_file", json!({"path": "a.txt"})).unwrap()), "A");
    let mut discovered = env.bridge(&elsewhere, &["--url", &host.url()]);
    assert_eq!(text_of(&discovered.call_tool("read_file", json!({"path": "a.txt"})).unwrap()), "A");
}

#[test]
fn a_generated_token_is_128_bits_and_printed_once() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    let host = env.host_without_token(&ws, &[]);
    assert_eq!(host.token.len(), 32);
    assert!(host.token.chars().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(host.stderr().matches(&host.token).count(), 1, "{}", host.stderr());
    let other = env.host_without_token(&ws, &[]);
    assert_ne!(host.token, other.token);
}

/// Sends `request` as raw bytes and returns the status line and the whole answer.
fn raw_http(port: u16, request: &str) -> (String, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(super::WAIT)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    (answer.lines().next().unwrap_or_default().to_owned(), answer)
}

#[test]
fn plain_http_requests_get_the_same_refusals_and_426_with_the_token() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "A")]);
    let host = env.host(&ws, &[]);
    let port = host.port;
    let get = |extra: &str| format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{extra}\r\n");
    let (status, answer) = raw_http(port, &get(""));
    assert_eq!(status, "HTTP/1.1 401 Unauthorized", "{answer}");
    assert!(answer.to_ascii_lowercase().contains("www-authenticate: bearer"), "{answer}");
    let (status, _) = raw_http(port, &get("Authorization: Bearer wrong\r\n"));
    assert_eq!(status, "HTTP/1.1 401 Unauthorized");
    let (status, _) =
        raw_http(port, &get(&format!("Authorization: Bearer {TOKEN}\r\nOrigin: https://evil.example\r\n")));
    assert_eq!(status, "HTTP/1.1 403 Forbidden");
    let (status, answer) = raw_http(port, &format!("GET / HTTP/1.1\r\nHost: evil.example:{port}\r\n\r\n"));
    assert_eq!(status, "HTTP/1.1 403 Forbidden", "{answer}");
    let (status, answer) = raw_http(port, &get(&format!("Authorization: Bearer {TOKEN}\r\n")));
    assert_eq!(status, "HTTP/1.1 426 Upgrade Required", "{answer}");
    assert!(!answer.contains("\"content\""), "no file was served over plain HTTP");
    // Upgrades still go through the WebSocket handshake and its checks.
    rt().block_on(async {
        assert_eq!(refused_status(ws_connect(port, &[]).await), 401);
        let right = format!("Bearer {TOKEN}");
        let mut session = ws_connect(port, &[("Authorization", &right)]).await.unwrap();
        assert_eq!(ws_call(&mut session, 1, "fs/read", json!({"path": "a.txt"})).await["result"]["content"], "A");
    });
}
