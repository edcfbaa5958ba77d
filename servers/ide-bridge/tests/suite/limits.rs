//! The wire's edges: the message size cap, keep-alive pings, a silent peer dropped, and
//! malformed JSON-RPC answered (never a crash).

use std::{
    io::{Read, Write},
    net::TcpStream,
};

use futures::StreamExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::{Message, protocol::frame::coding::CloseCode};

use super::{Env, TOKEN, WAIT, rt, wire_code, ws_authorized, ws_call, ws_recv, ws_send};

#[test]
fn a_message_over_the_cap_closes_the_connection_with_1009_and_the_host_keeps_serving() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "A")]);
    let host = env.host(&ws, &["--max-message-bytes", "4096"]);
    rt().block_on(async {
        let mut raw = ws_authorized(&host).await;
        let big = json!({"jsonrpc": "2.0", "id": 1, "method": "fs/write", "params": {"path": "big.txt", "content": "x".repeat(8192)}});
        ws_send(&mut raw, &big).await;
        let close = loop {
            match tokio::time::timeout(WAIT, raw.next()).await.unwrap() {
                Some(Ok(Message::Close(frame))) => break frame,
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                other => panic!("expected a close frame, got {other:?}"),
            }
        };
        assert_eq!(close.map(|f| f.code), Some(CloseCode::Size));
        let mut again = ws_authorized(&host).await;
        assert_eq!(ws_call(&mut again, 2, "fs/read", json!({"path": "a.txt"})).await["result"]["content"], "A");
        let info = ws_call(&mut again, 3, "host/info", json!({})).await;
        assert_eq!(info["result"]["maxMessageSize"], 4096);
    });
    assert!(!ws.join("big.txt").exists());
}

#[test]
fn the_host_pings_and_drops_a_peer_that_never_answers() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    let host = env.host(&ws, &["--ping-interval", "0.05"]);
    // A hand-made client that completes the upgrade and then never reads nor answers a ping.
    let mut tcp = TcpStream::connect(("127.0.0.1", host.port)).unwrap();
    tcp.set_read_timeout(Some(WAIT)).unwrap();
    let request = format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\
         Authorization: Bearer {TOKEN}\r\n\r\n",
        host.port
    );
    tcp.write_all(request.as_bytes()).unwrap();
    let mut received = Vec::new();
    // Reads until the host closes the TCP connection: the read returns 0 (never the timeout).
    let mut buf = [0u8; 4096];
    loop {
        let n = tcp.read(&mut buf).expect("the host must close the connection of a silent peer");
        if n == 0 {
            break;
        }
        received.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&received);
    assert!(text.starts_with("HTTP/1.1 101"), "{text}");
    let body_start = received.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let frames = &received[body_start..];
    assert!(frames.windows(2).any(|w| w == [0x89, 0x00]), "at least one ping frame: {frames:?}");
    let close = frames.windows(4).any(|w| w[0] == 0x88 && w[2..4] == 1001u16.to_be_bytes());
    assert!(close, "a close frame with code 1001: {frames:?}");
}

#[test]
fn a_peer_that_answers_pings_stays_connected() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "A")]);
    // Long enough that a busy test machine still answers each ping within two intervals.
    let host = env.host(&ws, &["--ping-interval", "0.25"]);
    rt().block_on(async {
        let mut raw = ws_authorized(&host).await;
        let mut pings = 0;
        while pings < 3 {
            match tokio::time::timeout(WAIT, raw.next()).await.unwrap() {
                Some(Ok(Message::Ping(_))) => pings += 1,
                other => panic!("expected pings, got {other:?}"),
            }
        }
        assert_eq!(ws_call(&mut raw, 1, "fs/read", json!({"path": "a.txt"})).await["result"]["content"], "A");
    });
}

#[test]
fn malformed_messages_get_json_rpc_errors_and_the_session_goes_on() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "A")]);
    let host = env.host(&ws, &[]);
    rt().block_on(async {
        let mut raw = ws_authorized(&host).await;
        raw.send_text("{not json").await;
        let r = ws_recv(&mut raw).await;
        assert_eq!((wire_code(&r), r["id"].clone()), (-32700, Value::Null));
        ws_send(&mut raw, &json!([{"jsonrpc": "2.0", "id": 1, "method": "fs/list"}])).await;
        assert_eq!(wire_code(&ws_recv(&mut raw).await), -32600);
        ws_send(&mut raw, &json!({"jsonrpc": "1.0", "id": 2, "method": "fs/list"})).await;
        let r = ws_recv(&mut raw).await;
        assert_eq!((wire_code(&r), r["id"].clone()), (-32600, json!(2)));
        let r = ws_call(&mut raw, 3, "fs/delete", json!({"path": "a.txt"})).await;
        assert_eq!(wire_code(&r), -32601);
        assert!(r["error"]["message"].as_str().unwrap().contains("fs/read"));
        let r = ws_call(&mut raw, 4, "fs/read", json!({})).await;
        assert_eq!(wire_code(&r), -32602);
        assert!(r["error"]["message"].as_str().unwrap().contains("path"));
        let r = ws_call(&mut raw, 5, "fs/read", json!({"path": 7})).await;
        assert_eq!(wire_code(&r), -32602);
        let r = ws_call(&mut raw, 6, "fs/read", json!("a.txt")).await;
        assert_eq!(wire_code(&r), -32602);
        ws_send(&mut raw, &json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 999}})).await;
        ws_send(&mut raw, &json!({"jsonrpc": "2.0", "method": "some/notification"})).await;
        let r = ws_call(&mut raw, 7, "fs/read", json!({"path": "a.txt"})).await;
        assert_eq!(r["result"]["content"], "A", "notifications get no answer: {r}");
        let r = ws_call(&mut raw, 8, "fs/readFile", json!({"path": "a.txt"})).await;
        assert_eq!(r["result"]["content"], "A", "fs/readFile is an alias of fs/read");
    });
}

trait SendText {
    async fn send_text(&mut self, text: &str);
}

impl SendText for super::Ws {
    async fn send_text(&mut self, text: &str) {
        futures::SinkExt::send(self, Message::Text(text.to_owned().into())).await.unwrap();
    }
}
