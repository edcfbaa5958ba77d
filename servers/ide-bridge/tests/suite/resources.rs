//! Resources: the `file:///{path}` template, `resources/list` page by page, and
//! `resources/read` with raw or percent-encoded slashes (and absolute paths inside the workspace).

use serde_json::{Value, json};

use super::Env;

#[test]
fn the_template_is_file_path_as_text_plain() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    let mut bridge = env.bridge(&ws, &[]);
    let result = bridge.request("resources/templates/list", json!({})).unwrap();
    let templates = result["result"]["resourceTemplates"].as_array().unwrap();
    assert_eq!(templates.len(), 1);
    assert_eq!(templates[0]["uriTemplate"], "file:///{path}");
    assert_eq!(templates[0]["mimeType"], "text/plain");
}

#[test]
fn without_an_ide_resources_list_is_empty_and_the_tools_are_listed() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "a")]);
    // No host: resources/list must still be a result (Gemini CLI drops a server whose list
    // fails), the tools are listed, and a call says what to do.
    let mut bridge = env.bridge(&ws, &[]);
    let response = bridge.request("resources/list", json!({})).unwrap();
    assert_eq!(response["result"]["resources"], json!([]), "{response}");
    let tools = bridge.request("tools/list", json!({})).unwrap();
    assert_eq!(tools["result"]["tools"].as_array().unwrap().len(), 23, "{tools}");
    let call = bridge.call_tool("read_file", json!({"path": "a.txt"})).unwrap();
    assert_eq!(call["isError"], true, "{call}");
    assert!(mcp_tests::text_of(&call).contains("ide-bridge"), "{call}");
}

#[test]
fn resources_list_pages_through_every_file() {
    let env = Env::new();
    let files: Vec<(String, String)> = (0..450).map(|i| (format!("d{}/f{i:03}.txt", i % 3), String::new())).collect();
    let mut refs: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
    refs.push(("with space & #.txt", "x"));
    refs.push(("ignored.log", "x"));
    refs.push((".gitignore", "*.log\n"));
    let ws = env.workspace("ws", &refs);
    let _host = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    let mut uris = Vec::new();
    let mut cursor: Option<Value> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let response = bridge.request("resources/list", params).unwrap();
        let result = &response["result"];
        pages += 1;
        for r in result["resources"].as_array().unwrap() {
            let uri = r["uri"].as_str().unwrap().to_owned();
            // The IDE's live state comes first, on the first page only.
            if uri.starts_with("ide://") {
                assert_eq!((pages, r["mimeType"].as_str()), (1, Some("application/json")), "{r}");
                continue;
            }
            assert_eq!(r["mimeType"], "text/plain");
            uris.push(uri);
        }
        match result.get("nextCursor") {
            Some(c) if !c.is_null() => cursor = Some(c.clone()),
            _ => break,
        }
    }
    assert_eq!(pages, 3, "450 + 1 files in pages of 200");
    assert_eq!(uris.len(), 451);
    assert!(uris.contains(&"file:///d0/f000.txt".to_owned()));
    assert!(uris.contains(&"file:///with%20space%20&%20%23.txt".to_owned()), "{:?}", &uris[450..]);
    assert!(!uris.iter().any(|u| u.contains("ignored") || u.contains(".gitignore")));
    let bad = bridge.request("resources/list", json!({"cursor": "not-a-cursor"})).unwrap();
    assert_eq!(bad["error"]["code"], -32602);

    let read = bridge.request("resources/read", json!({"uri": "file:///with%20space%20&%20%23.txt"})).unwrap();
    assert_eq!(read["result"]["contents"][0]["text"], "x", "{read}");
}

#[test]
fn resources_read_takes_raw_and_encoded_slashes_and_absolute_paths() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("src/main.rs", "fn main() {}\n")]);
    let _host = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    let absolute = format!("file://{}/src/main.rs", ws.display());
    for uri in ["file:///src/main.rs", "file:///src%2Fmain.rs", "file:///src%2fmain.rs", absolute.as_str()] {
        let response = bridge.request("resources/read", json!({"uri": uri})).unwrap();
        let contents = &response["result"]["contents"];
        assert_eq!(contents[0]["text"], "fn main() {}\n", "{uri}: {response}");
        assert_eq!(contents[0]["mimeType"], "text/plain");
        assert_eq!(contents[0]["uri"], uri);
    }
}

#[test]
fn resources_read_errors_are_json_rpc_errors_with_the_shared_code() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("big.txt", &"x".repeat(200))]);
    let outside = env.workspace("outside", &[("secret.txt", "secret")]);
    let _host = env.host(&ws, &["--max-file-size", "100"]);
    let mut bridge = env.bridge(&ws, &[]);
    let cases = [
        ("file:///missing.txt", "NOT_FOUND"),
        ("file:///big.txt", "FILE_TOO_LARGE"),
        ("file:///..%2Foutside%2Fsecret.txt", "ACCESS_DENIED"),
        ("file:///../outside/secret.txt", "ACCESS_DENIED"),
    ];
    for (uri, expected) in cases {
        let response = bridge.request("resources/read", json!({"uri": uri})).unwrap();
        let error = &response["error"];
        assert_eq!(error["data"]["code"], expected, "{uri}: {response}");
        assert!(!error["message"].as_str().unwrap().contains("secret\n"));
    }
    for uri in ["https://example.com/a", "file:///"] {
        let response = bridge.request("resources/read", json!({"uri": uri})).unwrap();
        assert_eq!(response["error"]["code"], -32602, "{uri}: {response}");
    }
    assert_eq!(std::fs::read_to_string(outside.join("secret.txt")).unwrap(), "secret");
}

#[test]
fn a_missing_resource_is_32002_in_a_session_and_32602_at_2026_07_28() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.txt", "A")]);
    let _host = env.host(&ws, &[]);
    let mut bridge = env.bridge(&ws, &[]);
    let session = bridge.request("resources/read", json!({"uri": "file:///missing.txt"})).unwrap();
    assert_eq!(session["error"]["code"], -32002, "{session}");
    let mut stateless = env.bridge_builder(&ws, &[]).spawn().unwrap();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "resources-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let missing = stateless.request("resources/read", json!({"_meta": meta, "uri": "file:///missing.txt"})).unwrap();
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert_eq!(missing["error"]["data"]["code"], "NOT_FOUND", "{missing}");
    let found = stateless.request("resources/read", json!({"_meta": meta, "uri": "file:///a.txt"})).unwrap();
    assert_eq!(found["result"]["contents"][0]["text"], "A", "{found}");
    assert_eq!(found["result"]["resultType"], "complete", "{found}");
    assert_eq!(found["result"]["ttlMs"], 0, "{found}");
}
