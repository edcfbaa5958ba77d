//! Version 3 through the bridge: the language-server tools (`find_definition`,
//! `find_references`, `describe_symbol`, `list_symbols`, `rename_symbol`), the user's approval
//! (`open_diff`, `close_diffs`) and `save_file`, against a scripted version 3 IDE; arguments
//! refused before the IDE is asked; a language server still loading said plainly; and what the
//! headless host and a version 2 extension answer.

use mcp_tests::{is_error, text_of};
use serde_json::{Value, json};

use super::{
    Env, code,
    fake_host::{FakeHost, Mode},
};

fn structured(result: &Value) -> &Value {
    &result["structuredContent"]
}

#[test]
fn the_language_tools_ask_the_ide_and_read_its_answers() {
    let env = Env::new();
    let fake = FakeHost::start(Mode::Lang);
    let ws = env.workspace("ws", &[]);
    let mut bridge = env.bridge(&ws, &["--url", &fake.url(), "--token", "t"]);

    let def =
        bridge.call_tool("find_definition", json!({"path": "/w/app/src/a.ts", "line": 2, "symbol": "answer"})).unwrap();
    assert!(!is_error(&def), "{def}");
    // An absolute path inside the workspace goes as a relative one; the default wait goes along.
    let asked = fake.next("lang/definition");
    assert_eq!(asked["params"], json!({"path": "src/a.ts", "line": 2, "symbol": "answer", "waitMs": 10000}));
    let text = text_of(&def);
    assert!(text.contains("src/b.ts:1:14: export const answer = 42;"), "{text}");
    assert!(text.contains("lib.es5.d.ts:7 (outside the workspace"), "{text}");
    assert!(text.contains("occurs 2 times on that line"), "{text}");
    assert_eq!(
        structured(&def)["locations"][1],
        json!({"external": "lib.es5.d.ts", "line": 7, "column": 1, "endLine": 7, "endColumn": 9})
    );

    let refs = bridge
        .call_tool("find_references", json!({"path": "src/a.ts", "line": 2, "symbol": "answer", "column": 13, "include_declaration": false, "wait_ms": 500}))
        .unwrap();
    let asked = fake.next("lang/references");
    assert_eq!(
        asked["params"],
        json!({"path": "src/a.ts", "line": 2, "symbol": "answer", "column": 13, "waitMs": 500, "includeDeclaration": false})
    );
    let text = text_of(&refs);
    assert!(text.starts_with("2+ reference(s) to `answer` at src/a.ts:2:14:"), "{text}");
    assert!(!text.contains("occurs 2 times"), "a column was given: {text}");
    assert!(text.contains("… and 3 more"), "{text}");
    assert_eq!(structured(&refs)["truncated"], 3);

    let hover =
        bridge.call_tool("describe_symbol", json!({"path": "src/a.ts", "line": 2, "symbol": "answer"})).unwrap();
    assert!(text_of(&hover).contains("const answer: 42"), "{hover}");
    assert_eq!(structured(&hover)["contents"][1], "The answer.");

    let outline = bridge.call_tool("list_symbols", json!({"path": "src/a.ts"})).unwrap();
    let text = text_of(&outline);
    assert!(text.contains("class Greeter  lines 1-9\n  method greet (): string  lines 2-4"), "{text}");
    let found = bridge.call_tool("list_symbols", json!({"query": "Greet"})).unwrap();
    assert!(text_of(&found).contains("class Greeter  src/a.ts:1-9 (in a)"), "{found}");
    assert_eq!(fake.next("lang/symbols")["params"]["path"], "src/a.ts");
    assert_eq!(fake.next("lang/symbols")["params"]["query"], "Greet");

    let preview = bridge
        .call_tool("rename_symbol", json!({"path": "src/a.ts", "line": 2, "symbol": "answer", "new_name": "reply"}))
        .unwrap();
    let text = text_of(&preview);
    assert!(text.contains("would make 2 edit(s) in 2 file(s); nothing was changed"), "{text}");
    assert!(text.contains("-console.log(answer);\n+console.log(reply);"), "{text}");
    assert_eq!(structured(&preview)["applied"], false);
    assert!(structured(&preview)["files"][1].get("diff").is_none(), "no texts, no diff: {preview}");
    assert_eq!(fake.next("lang/rename")["params"]["apply"], false);
    let applied = bridge
        .call_tool(
            "rename_symbol",
            json!({"path": "src/a.ts", "line": 2, "symbol": "answer", "new_name": "reply", "apply": true}),
        )
        .unwrap();
    assert!(text_of(&applied).starts_with("Renamed `answer` at src/a.ts:2:14"), "{applied}");
    assert_eq!(structured(&applied)["total_edits"], 2);
    assert_eq!(fake.next("lang/rename")["params"]["newName"], "reply");
}

#[test]
fn a_language_server_still_loading_is_said_plainly_and_a_missing_symbol_is_the_ides_message() {
    let env = Env::new();
    let fake = FakeHost::start(Mode::Lang);
    let ws = env.workspace("ws", &[]);
    let mut bridge = env.bridge(&ws, &["--url", &fake.url(), "--token", "t"]);
    for tool in ["find_definition", "find_references", "describe_symbol", "rename_symbol"] {
        let mut args = json!({"path": "src/a.ts", "line": 1, "symbol": "loading", "wait_ms": 1500});
        if tool == "rename_symbol" {
            args["new_name"] = json!("x");
        }
        let result = bridge.call_tool(tool, args).unwrap();
        assert_eq!(code(&result), "UNAVAILABLE", "{tool}: {result}");
        let text = text_of(&result);
        assert!(
            text.starts_with("TypeScript is still loading the project")
                && text.contains("1.5 s")
                && text.contains("Retry"),
            "{tool}: {text}"
        );
    }
    let missing =
        bridge.call_tool("find_definition", json!({"path": "src/a.ts", "line": 1, "symbol": "nowhere"})).unwrap();
    assert_eq!(code(&missing), "INVALID_ARGS", "{missing}");
    assert!(text_of(&missing).contains("the line reads"), "{missing}");
}

#[test]
fn the_user_decides_on_a_proposed_change() {
    let env = Env::new();
    let fake = FakeHost::start(Mode::Lang);
    let ws = env.workspace("ws", &[]);
    let mut bridge = env.bridge(&ws, &["--url", &fake.url(), "--token", "t", "--tool-timeout", "30"]);

    let accepted = bridge.call_tool("open_diff", json!({"path": "accept.ts", "new_text": "let a = 1;\n"})).unwrap();
    let s = structured(&accepted);
    assert_eq!((s["status"].as_str(), s["user_edited"].as_bool()), (Some("accepted"), Some(true)), "{accepted}");
    assert_eq!(s["final_text"], "let a = 1;\n// the user's line\n");
    let edits = s["user_edits"].as_str().unwrap();
    assert!(edits.contains("+// the user's line"), "{edits}");
    assert!(text_of(&accepted).contains("after editing it"), "{accepted}");
    // The default wait, within the tool timeout.
    assert_eq!(
        fake.next("ide/openDiff")["params"],
        json!({"path": "accept.ts", "newText": "let a = 1;\n", "waitMs": 25000})
    );

    let rejected = bridge.call_tool("open_diff", json!({"path": "reject.ts", "new_text": "x"})).unwrap();
    assert_eq!(structured(&rejected)["status"], "rejected");
    assert!(text_of(&rejected).contains("nothing was written"), "{rejected}");

    // A wait longer than --tool-timeout allows is cut (and said).
    let pending =
        bridge.call_tool("open_diff", json!({"path": "later.ts", "new_text": "x", "wait_ms": 600000})).unwrap();
    assert_eq!(structured(&pending)["status"], "pending", "{pending}");
    assert!(text_of(&pending).contains("cut to 25 s by the server's --tool-timeout"), "{pending}");
    assert!(text_of(&pending).contains("Call open_diff again with the same path and new_text"), "{pending}");
    fake.next("ide/openDiff");
    assert_eq!(fake.next("ide/openDiff")["params"]["waitMs"], 25000);

    let closed = bridge.call_tool("close_diffs", json!({})).unwrap();
    assert_eq!(structured(&closed)["closed"], json!(["later.ts"]));

    let saved = bridge.call_tool("save_file", json!({"path": "src/a.ts"})).unwrap();
    assert_eq!(structured(&saved), &json!({"path": "src/a.ts", "saved": true, "open": true}));
    let clean = bridge.call_tool("save_file", json!({"path": "src/b.ts"})).unwrap();
    assert!(text_of(&clean).contains("no unsaved changes"), "{clean}");
}

#[test]
fn bad_arguments_are_refused_before_the_ide_is_asked() {
    let env = Env::new();
    let fake = FakeHost::start(Mode::Lang);
    let ws = env.workspace("ws", &[]);
    let mut bridge = env.bridge(&ws, &["--url", &fake.url(), "--token", "t"]);
    for (tool, args) in [
        ("find_definition", json!({"path": "a.ts", "line": 0, "symbol": "x"})),
        ("find_definition", json!({"path": "a.ts", "line": 1, "symbol": ""})),
        ("find_definition", json!({"path": "a.ts", "line": 1, "symbol": "a\nb"})),
        ("find_definition", json!({"path": "a.ts", "line": 1, "symbol": " x"})),
        ("find_definition", json!({"path": "", "line": 1, "symbol": "x"})),
        ("find_definition", json!({"path": "a.ts", "symbol": "x"})),
        ("find_references", json!({"path": "a.ts", "line": 1, "symbol": "x", "column": 0})),
        ("find_references", json!({"path": "a.ts", "line": 1, "symbol": "x", "wait_ms": 20001})),
        ("describe_symbol", json!({"path": "a.ts", "line": 1, "symbol": "x", "extra": true})),
        ("list_symbols", json!({})),
        ("list_symbols", json!({"path": "a.ts", "query": "x"})),
        ("list_symbols", json!({"query": ""})),
        ("rename_symbol", json!({"path": "a.ts", "line": 1, "symbol": "x", "new_name": ""})),
        ("rename_symbol", json!({"path": "a.ts", "line": 1, "symbol": "x", "new_name": "a\nb"})),
        ("rename_symbol", json!({"path": "a.ts", "line": 1, "symbol": "x"})),
        ("open_diff", json!({"path": "a.ts"})),
        ("open_diff", json!({"path": "", "new_text": "x"})),
        ("open_diff", json!({"path": "a.ts", "new_text": "x", "wait_ms": 600001})),
        ("save_file", json!({"path": ""})),
        ("close_diffs", json!({"all": true})),
    ] {
        let result = bridge.call_tool(tool, args.clone()).unwrap();
        assert!(is_error(&result), "{tool} {args}: {result}");
        assert_eq!(code(&result), "INVALID_ARGS", "{tool} {args}: {result}");
    }
    let sent: Vec<Value> = fake
        .drain()
        .into_iter()
        .filter(|m| m["method"].as_str().is_some_and(|m| m.starts_with("lang/") || m.starts_with("ide/")))
        .collect();
    assert!(sent.is_empty(), "nothing reached the host: {sent:?}");
}

#[test]
fn the_headless_host_and_a_version_2_extension_say_what_to_install() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.ts", "export const answer = 42;\n")]);
    let _host = env.host(&ws, &[]);
    let mut headless = env.bridge(&ws, &[]);
    let fake = FakeHost::start(Mode::Ide);
    let mut v2 = env.bridge(&ws, &["--url", &fake.url(), "--token", "t"]);
    let calls = [
        ("find_definition", json!({"path": "a.ts", "line": 1, "symbol": "answer"})),
        ("find_references", json!({"path": "a.ts", "line": 1, "symbol": "answer"})),
        ("describe_symbol", json!({"path": "a.ts", "line": 1, "symbol": "answer"})),
        ("list_symbols", json!({"path": "a.ts"})),
        ("rename_symbol", json!({"path": "a.ts", "line": 1, "symbol": "answer", "new_name": "reply"})),
        ("open_diff", json!({"path": "a.ts", "new_text": "x"})),
        ("close_diffs", json!({})),
        ("save_file", json!({"path": "a.ts"})),
    ];
    for (tool, args) in calls {
        for (who, bridge) in [("headless", &mut headless), ("version 2", &mut v2)] {
            let result = bridge.call_tool(tool, args.clone()).unwrap();
            assert_eq!(code(&result), "UNAVAILABLE", "{who} {tool}: {result}");
            let text = text_of(&result);
            assert!(text.contains(&format!("does not support {tool}")), "{who}: {text}");
            assert!(text.contains("extension 0.3 or later") && text.contains("--install-extension"), "{who}: {text}");
            assert!(text.contains("Do not retry"), "{who}: {text}");
            if who == "headless" {
                assert!(text.contains("headless"), "{text}");
            }
        }
    }
    // Nothing was written by the refused open_diff.
    assert_eq!(std::fs::read_to_string(ws.join("a.ts")).unwrap(), "export const answer = 42;\n");
}

/// An extension is code the bridge does not control: its answers are held to the protocol's
/// bounds on the bridge's side (at most 500 locations, each line's text cut), and a path outside
/// the workspace is never shown as a workspace path nor with its text.
#[test]
fn a_hosts_flood_and_paths_outside_the_workspace_never_reach_the_model() {
    let env = Env::new();
    let fake = FakeHost::start(Mode::Lang);
    let ws = env.workspace("ws", &[]);
    let mut bridge = env.bridge(&ws, &["--url", &fake.url(), "--token", "t"]);
    let refs = bridge.call_tool("find_references", json!({"path": "src/a.ts", "line": 2, "symbol": "flood"})).unwrap();
    assert!(!is_error(&refs), "{refs}");
    let text = text_of(&refs);
    assert!(
        !text.contains("root:$6$") && !text.contains("PRIVATE KEY") && !text.contains("/etc/shadow"),
        "{}",
        &text[..500]
    );
    assert_eq!(structured(&refs)["locations"].as_array().unwrap().len(), 500);
    assert_eq!(structured(&refs)["truncated"], 100_003 - 500);
    assert_eq!(structured(&refs)["locations"][0]["external"], "shadow");
    assert!(serde_json::to_string(&refs).unwrap().len() < 1_000_000, "the answer is bounded");
}
