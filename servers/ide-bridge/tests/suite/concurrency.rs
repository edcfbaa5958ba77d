//! Many requests in flight through one bridge, many bridges and raw clients on one host, answers
//! matched to their requests whatever their order.

use std::collections::HashMap;

use mcp_tests::{is_error, text_of};
use serde_json::json;

use super::{Env, rt, ws_authorized, ws_recv, ws_send};

#[test]
fn sixty_four_requests_in_flight_through_one_bridge_all_get_their_own_answer() {
    let env = Env::new();
    let files: Vec<(String, String)> =
        (0..64).map(|i| (format!("f{i:02}.txt"), format!("content of file {i}\n").repeat(i + 1))).collect();
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
    let ws = env.workspace("ws", &refs);
    let _host = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    let mut expected = HashMap::new();
    for (path, content) in &files {
        let id = bridge.send_request("tools/call", json!({"name": "read_file", "arguments": {"path": path}})).unwrap();
        expected.insert(id, content.clone());
    }
    let writes: Vec<u64> = (0..16)
        .map(|i| {
            bridge
                .send_request(
                    "tools/call",
                    json!({"name": "write_file", "arguments": {"path": format!("out/w{i}.txt"), "content": format!("w{i}")}}),
                )
                .unwrap()
        })
        .collect();
    for (id, content) in expected {
        let response = bridge.wait_response(id).unwrap();
        let result = &response["result"];
        assert!(!is_error(result), "{response}");
        assert_eq!(text_of(result), content);
    }
    for id in writes {
        let response = bridge.wait_response(id).unwrap();
        assert!(!is_error(&response["result"]), "{response}");
    }
    for i in 0..16 {
        assert_eq!(std::fs::read_to_string(ws.join(format!("out/w{i}.txt"))).unwrap(), format!("w{i}"));
    }
}

#[test]
fn several_bridges_share_one_host() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "A")]);
    let _host = env.host(&ws, &[]);
    let mut bridges: Vec<_> = (0..4).map(|_| env.bridge(&ws, &[])).collect();
    for (i, bridge) in bridges.iter_mut().enumerate() {
        let r = bridge.call_tool("write_file", json!({"path": format!("b{i}.txt"), "content": "x"})).unwrap();
        assert!(!is_error(&r), "{r}");
    }
    for bridge in &mut bridges {
        let listed = bridge.call_tool("list_files", json!({"recursive": true})).unwrap();
        assert_eq!(listed["structuredContent"]["files"], json!(["a.txt", "b0.txt", "b1.txt", "b2.txt", "b3.txt"]));
    }
}

#[test]
fn a_raw_client_gets_every_answer_under_its_own_id() {
    let env = Env::new();
    let files: Vec<(String, String)> = (0..50).map(|i| (format!("{i}.txt"), format!("{i}"))).collect();
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
    let ws = env.workspace("ws", &refs);
    let host = env.host(&ws, &[]);
    rt().block_on(async {
        let mut clients = [ws_authorized(&host).await, ws_authorized(&host).await];
        for (c, client) in clients.iter_mut().enumerate() {
            for i in 0..50u64 {
                let id = json!(format!("c{c}-{i}"));
                ws_send(
                    client,
                    &json!({"jsonrpc": "2.0", "id": id, "method": "fs/read", "params": {"path": format!("{i}.txt")}}),
                )
                .await;
            }
        }
        for (c, client) in clients.iter_mut().enumerate() {
            let mut seen = HashMap::new();
            for _ in 0..50 {
                let response = ws_recv(client).await;
                let id = response["id"].as_str().unwrap().to_owned();
                let i: u64 = id.strip_prefix(&format!("c{c}-")).unwrap().parse().unwrap();
                assert_eq!(response["result"]["content"], json!(i.to_string()), "{response}");
                seen.insert(id, ());
            }
            assert_eq!(seen.len(), 50);
        }
    });
}

#[test]
fn more_requests_in_flight_than_the_hosts_per_connection_cap_all_succeed_through_one_bridge() {
    // The host answers requests beyond MAX_IN_FLIGHT on one connection with -32010; the bridge
    // must queue its own excess instead of passing that refusal on to the MCP client.
    let n = mcp_server_ide_bridge::protocol::MAX_IN_FLIGHT + 200;
    let env = Env::new();
    let files: Vec<(String, String)> = (0..n).map(|i| (format!("f{i:03}.txt"), format!("file {i}\n"))).collect();
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
    let ws = env.workspace("ws", &refs);
    let _host = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    let ids: Vec<(u64, &String)> = files
        .iter()
        .map(|(path, content)| {
            let params = json!({"name": "read_file", "arguments": {"path": path}});
            (bridge.send_request("tools/call", params).unwrap(), content)
        })
        .collect();
    for (id, content) in ids {
        let response = bridge.wait_response(id).unwrap();
        let result = &response["result"];
        assert!(!is_error(result), "{response}");
        assert_eq!(&text_of(result), content);
    }
}
