//! Version 4 through the bridge: implementations, call and type hierarchies, signature help,
//! code actions (listed, previewed, applied) and formatting, against a scripted version 4 IDE;
//! what the headless host and a version 3 extension answer; and what the bridge's tools cost a
//! model on every turn.

use mcp_tests::{is_error, text_of};
use serde_json::{Value, json};

use super::{
    Env, code,
    fake_host::{FakeHost, Mode},
};

#[test]
fn the_version_4_tools_ask_the_ide_and_answer_path_line_text() {
    let env = Env::new();
    let fake = FakeHost::start(Mode::Code);
    let ws = env.workspace("ws", &[]);
    let mut bridge = env.bridge(&ws, &["--url", &fake.url(), "--token", "t"]);

    let found = bridge
        .call_tool("find_implementations", json!({"path": "src/shape.ts", "line": 1, "symbol": "Shape"}))
        .unwrap();
    assert!(!is_error(&found), "{found}");
    let text = text_of(&found);
    assert!(text.starts_with("2 implementation(s) of `Shape` at src/shape.ts:1:14"), "{text}");
    assert!(text.contains("src/circle.ts:3:14: export class Circle implements Shape {"), "{text}");
    assert_eq!(found["structuredContent"]["locations"].as_array().unwrap().len(), 2);

    let calls = bridge
        .call_tool(
            "call_hierarchy",
            json!({"path": "src/area.ts", "line": 1, "symbol": "area", "direction": "incoming", "depth": 2}),
        )
        .unwrap();
    let asked = fake.next("lang/callHierarchy");
    let asked = &asked["params"];
    assert_eq!((asked["direction"].as_str(), asked["depth"].as_u64()), (Some("incoming"), Some(2)), "{asked}");
    let text = text_of(&calls);
    assert!(text.contains("caller src/app.ts:4: main (function): area(shape);"), "{text}");
    // A caller outside the workspace is named, never shown.
    assert!(
        text.contains("  caller secret.ts:9 (outside the workspace): run (function, of main)")
            && !text.contains("/etc"),
        "{text}"
    );

    let types =
        bridge.call_tool("type_hierarchy", json!({"path": "src/shape.ts", "line": 1, "symbol": "Shape"})).unwrap();
    assert!(!is_error(&types), "{types}");
    assert!(text_of(&types).starts_with("TypeScript gives no type hierarchy for `Shape`"), "{}", text_of(&types));
    assert_eq!(fake.next("lang/typeHierarchy")["params"]["direction"], "both");

    let help =
        bridge.call_tool("signature_help", json!({"path": "src/app.ts", "line": 3, "symbol": "greet('x',"})).unwrap();
    let text = text_of(&help);
    assert!(
        text.contains("* greet(name: string, loud: boolean): string")
            && text.contains("active parameter 2 of 2: `loud: boolean`"),
        "{text}"
    );

    let actions =
        bridge.call_tool("code_actions", json!({"path": "src/app.ts", "line": 1, "diagnostic": "2304"})).unwrap();
    let text = text_of(&actions);
    assert!(text.contains("[a1b2c3d4] Add import from \"./greet\" (quickfix; preferred)"), "{text}");
    assert!(
        text.contains("fixes: Cannot find name 'greet'.") && text.contains("runs an IDE command: no preview"),
        "{text}"
    );
    assert_eq!(fake.next("lang/codeActions")["params"]["diagnostic"], "2304");

    let preview =
        bridge.call_tool("apply_code_action", json!({"path": "src/app.ts", "line": 1, "id": "a1b2c3d4"})).unwrap();
    let text = text_of(&preview);
    assert!(
        text.starts_with(
            "Applying `Add import from \"./greet\"` would make 1 edit(s) in 1 file(s); nothing was changed."
        ),
        "{text}"
    );
    assert!(text.contains("+import { greet } from './greet';"), "{text}");
    let applied = bridge
        .call_tool("apply_code_action", json!({"path": "src/app.ts", "line": 1, "id": "a1b2c3d4", "apply": true}))
        .unwrap();
    assert!(text_of(&applied).contains("left unsaved in the IDE (save_file saves them)"), "{}", text_of(&applied));
    assert_eq!(applied["structuredContent"]["applied"], true);
    let gone = bridge.call_tool("apply_code_action", json!({"path": "src/app.ts", "line": 1, "id": "zzzz"})).unwrap();
    assert_eq!(code(&gone), "NOT_FOUND", "{gone}");
    assert!(text_of(&gone).contains("list them again with code_actions"), "{gone}");

    let formatted = bridge.call_tool("format", json!({"path": "src/app.ts", "apply": true})).unwrap();
    assert!(
        text_of(&formatted).starts_with("Formatting src/app.ts: done, 1 edit(s) in 1 file(s), saved"),
        "{}",
        text_of(&formatted)
    );
}

#[test]
fn bad_arguments_of_the_version_4_tools_never_reach_the_ide() {
    let env = Env::new();
    let fake = FakeHost::start(Mode::Code);
    let ws = env.workspace("ws", &[]);
    let mut bridge = env.bridge(&ws, &["--url", &fake.url(), "--token", "t"]);
    for (tool, args) in [
        ("call_hierarchy", json!({"path": "a.ts", "line": 1, "symbol": "f", "direction": "sideways"})),
        ("call_hierarchy", json!({"path": "a.ts", "line": 1, "symbol": "f", "direction": "incoming", "depth": 4})),
        ("type_hierarchy", json!({"path": "a.ts", "line": 1, "symbol": "T", "depth": 0})),
        ("find_implementations", json!({"path": "a.ts", "line": 0, "symbol": "T"})),
        ("code_actions", json!({"path": "a.ts", "line": 1, "extra": true})),
        ("apply_code_action", json!({"path": "a.ts", "line": 1})),
        ("format", json!({"path": "", "apply": true})),
        ("signature_help", json!({"path": "a.ts", "line": 1, "symbol": " padded "})),
    ] {
        let result = bridge.call_tool(tool, args.clone()).unwrap();
        assert_eq!(code(&result), "INVALID_ARGS", "{tool} {args}: {result}");
    }
    let sent: Vec<Value> =
        fake.drain().into_iter().filter(|m| m["method"].as_str().is_some_and(|m| m.starts_with("lang/"))).collect();
    assert!(sent.is_empty(), "nothing reached the host: {sent:?}");
}

#[test]
fn the_headless_host_and_a_version_3_extension_say_what_to_install() {
    let env = Env::new();
    let ws = env.workspace("ws", &[("a.ts", "export const answer = 42;\n")]);
    let _host = env.host(&ws, &[]);
    let mut headless = env.bridge(&ws, &[]);
    let fake = FakeHost::start(Mode::Lang);
    let mut v3 = env.bridge(&ws, &["--url", &fake.url(), "--token", "t"]);
    let at = json!({"path": "a.ts", "line": 1, "symbol": "answer"});
    let calls = [
        ("find_implementations", at.clone()),
        ("call_hierarchy", json!({"path": "a.ts", "line": 1, "symbol": "answer", "direction": "outgoing"})),
        ("type_hierarchy", at.clone()),
        ("signature_help", at),
        ("code_actions", json!({"path": "a.ts", "line": 1})),
        ("apply_code_action", json!({"path": "a.ts", "line": 1, "id": "x", "apply": true})),
        ("format", json!({"path": "a.ts", "apply": true})),
    ];
    for (tool, args) in calls {
        for (who, bridge) in [("headless", &mut headless), ("version 3", &mut v3)] {
            let result = bridge.call_tool(tool, args.clone()).unwrap();
            assert_eq!(code(&result), "UNAVAILABLE", "{who} {tool}: {result}");
            let text = text_of(&result);
            assert!(text.contains(&format!("does not support {tool}")), "{who}: {text}");
            assert!(text.contains("extension 0.4 or later") && text.contains("Do not retry"), "{who}: {text}");
        }
    }
    assert_eq!(std::fs::read_to_string(ws.join("a.ts")).unwrap(), "export const answer = 42;\n");
}

/// What the bridge costs a model on every turn: its tools' descriptions and input schemas, as
/// `tools/list` sends them, at most 20,000 characters (docs/benchmarks.md gives the figure).
#[test]
fn the_tools_a_model_reads_every_turn_stay_within_20000_characters() {
    let env = Env::new();
    let ws = env.workspace("ws", &[]);
    let mut bridge = env.bridge(&ws, &[]);
    let tools = bridge.list_tools().unwrap();
    assert_eq!(tools.len(), 23);
    let chars: usize = tools
        .iter()
        .map(|t| t["description"].as_str().unwrap().chars().count() + t["inputSchema"].to_string().chars().count())
        .sum();
    assert!(chars <= 20_000, "{chars} characters");
    let mut subset = env.bridge(&ws, &["--tools", "read_file,find_definition"]);
    assert_eq!(subset.tool_names().unwrap(), ["read_file", "find_definition"]);
}
