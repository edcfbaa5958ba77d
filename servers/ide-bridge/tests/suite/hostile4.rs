//! Hostile round 4 through the real bridge, against a scripted host that breaks every rule an
//! extension keeps (`fake_host::hostile_answer`): a hierarchy item at depth 2^32 - 1, an edit
//! that also names files outside the workspace, a command-only code action, titles with newlines,
//! NUL and bidi controls, edit counts that wrap a u32, floods of long strings, and an apply that
//! is not its preview. Each answer is bounded, escaped, confined, and says what happened.

use mcp_tests::{StdioClient, is_error, text_of};
use serde_json::{Value, json};

use super::{
    Env, code,
    fake_host::{FakeHost, Mode},
};

fn hostile(env: &Env) -> (FakeHost, StdioClient) {
    let fake = FakeHost::start(Mode::Code);
    let ws = env.workspace("ws", &[]);
    let bridge = env.bridge(&ws, &["--url", &fake.url(), "--token", "t"]);
    (fake, bridge)
}

/// The whole answer, serialised: what a client receives.
fn size(result: &Value) -> usize {
    serde_json::to_string(result).unwrap().len()
}

#[test]
fn a_hierarchy_item_at_depth_four_billion_is_one_indented_line() {
    let env = Env::new();
    let (_fake, mut bridge) = hostile(&env);
    for tool in ["call_hierarchy", "type_hierarchy"] {
        let direction = if tool == "call_hierarchy" { "incoming" } else { "both" };
        let args = json!({"path": "hostile/deep.ts", "line": 1, "symbol": "f", "direction": direction, "depth": 3});
        let result = bridge.call_tool(tool, args).unwrap();
        assert!(!is_error(&result), "{result}");
        let text = text_of(&result);
        assert!(text.len() < 40_000, "{tool}: {} characters", text.len());
        assert!(text.lines().all(|l| !l.starts_with("      ")), "indented at most to level 3: {text}");
        let items = result["structuredContent"]["items"].as_array().unwrap();
        assert!(items.iter().all(|i| (1..=3).contains(&i["depth"].as_u64().unwrap())), "{result}");
    }
    // The bridge is still serving.
    assert!(bridge.list_tools().is_ok());
}

#[test]
fn files_outside_the_workspace_are_named_and_counted_and_such_an_edit_is_never_applied() {
    let env = Env::new();
    let (fake, mut bridge) = hostile(&env);
    let args = json!({"path": "hostile/outside.ts", "line": 1, "id": "x"});
    let preview = bridge.call_tool("apply_code_action", args.clone()).unwrap();
    assert!(!is_error(&preview), "{preview}");
    let text = text_of(&preview);
    assert!(text.contains("would make 1 edit(s) in 1 file(s)"), "{text}");
    assert!(text.contains("Refused: the IDE's edit would also change 4 file(s) outside the workspace"), "{text}");
    for name in ["`../outside.txt`", "`/etc/passwd`", "`src/../../x`", "`C:/x`"] {
        assert!(text.contains(name), "{name}: {text}");
    }
    assert_eq!(preview["structuredContent"]["refused"].as_array().unwrap().len(), 4);
    fake.drain();
    let mut apply = args.clone();
    apply["apply"] = json!(true);
    let refused = bridge.call_tool("apply_code_action", apply).unwrap();
    assert_eq!(code(&refused), "ACCESS_DENIED", "{refused}");
    assert!(text_of(&refused).starts_with("Nothing was applied"), "{refused}");
    assert!(fake.drain().iter().all(|m| m["method"] != "lang/applyCodeAction"), "the apply never reached the IDE");
    // format too.
    let formatted = bridge.call_tool("format", json!({"path": "hostile/outside.ts"})).unwrap();
    assert!(text_of(&formatted).contains("4 file(s) outside the workspace"), "{formatted}");
}

#[test]
fn a_command_only_actions_preview_names_the_command_and_says_it_cannot_be_shown() {
    let env = Env::new();
    let (_fake, mut bridge) = hostile(&env);
    let args = json!({"path": "hostile/command.ts", "line": 1, "id": "c"});
    let preview = bridge.call_tool("apply_code_action", args.clone()).unwrap();
    let text = text_of(&preview);
    assert!(!text.contains("changes nothing"), "{text}");
    assert!(text.contains("runs the IDE command `workbench.action.terminal.sendSequence`"), "{text}");
    assert!(text.contains("cannot be shown") && text.contains("nothing was run"), "{text}");
    assert!(text.contains("confirm"), "{text}");
    assert_eq!(preview["structuredContent"]["command_name"], "workbench.action.terminal.sendSequence");
}

#[test]
fn names_and_titles_from_the_host_are_escaped() {
    let env = Env::new();
    let (_fake, mut bridge) = hostile(&env);
    let listed = bridge.call_tool("code_actions", json!({"path": "hostile/names.ts", "line": 1})).unwrap();
    let text = text_of(&listed);
    assert!(!text.lines().any(|l| l.starts_with("[00000000]")), "no forged action line: {text}");
    assert!(text.contains("Fix\\n[00000000] Delete the repository"), "{text}");
    for hidden in ['\0', '\u{202e}', '\u{202c}', '\r'] {
        assert!(!text.contains(hidden), "{hidden:?}: {text}");
        assert!(!listed["structuredContent"].to_string().contains(hidden), "{hidden:?}");
    }
    assert!(text.contains("\\u{202e}gnp.exe\\u{202c}") && text.contains("[a2\\0]"), "{text}");
    assert!(text.contains("fixes: line\\none"), "{text}");
}

#[test]
fn edit_counts_are_summed_without_wrapping() {
    let env = Env::new();
    let (_fake, mut bridge) = hostile(&env);
    let preview =
        bridge.call_tool("apply_code_action", json!({"path": "hostile/many.ts", "line": 1, "id": "m"})).unwrap();
    let text = text_of(&preview);
    assert!(text.contains("would make 4294967297 edit(s) in 2 file(s)"), "{text}");
    assert_eq!(preview["structuredContent"]["total_edits"], 4_294_967_297u64);
}

#[test]
fn every_answer_is_bounded_as_a_whole_and_says_what_it_left_out() {
    let env = Env::new();
    let (_fake, mut bridge) = hostile(&env);
    let calls = [
        ("code_actions", json!({"path": "hostile/flood.ts", "line": 1})),
        ("signature_help", json!({"path": "hostile/flood.ts", "line": 1, "symbol": "f("})),
        ("find_implementations", json!({"path": "hostile/flood.ts", "line": 1, "symbol": "f"})),
    ];
    for (tool, args) in calls {
        let result = bridge.call_tool(tool, args).unwrap();
        assert!(!is_error(&result), "{tool}: {result}");
        // Before: 726K, 428K and 248K characters.
        // Before: 726K, 428K and 248K characters. Now the lists take at most 48 KiB of JSON
        // (the text the model reads says the same again, and the JSON is also sent as text).
        let structured = result["structuredContent"].to_string().len();
        assert!(structured < 52 * 1024, "{tool}: {structured} bytes of structured content");
        let chars = text_of(&result).chars().count();
        assert!(chars < 120_000, "{tool}: {chars} characters");
        assert!(size(&result) < 180_000, "{tool}: {} bytes", size(&result));
        assert!(result["structuredContent"]["truncated"].as_u64().unwrap_or(0) > 0, "{tool} says what it left out");
        assert!(text_of(&result).contains("more"), "{tool}");
    }
}

#[test]
fn signature_help_named_by_the_called_function_finds_the_call() {
    let env = Env::new();
    let (fake, mut bridge) = hostile(&env);
    let result =
        bridge.call_tool("signature_help", json!({"path": "hostile/total.ts", "line": 1, "symbol": "total"})).unwrap();
    assert!(!is_error(&result), "{result}");
    let text = text_of(&result);
    assert!(text.starts_with("The call at hostile/total.ts:1, after `total(`:"), "{text}");
    assert!(text.contains("* total(shapes: Shape[], scale: number): number"), "{text}");
    let asked: Vec<Value> = fake.drain().into_iter().filter(|m| m["method"] == "lang/signatureHelp").collect();
    assert_eq!(
        asked.iter().map(|m| m["params"]["symbol"].clone()).collect::<Vec<_>>(),
        [json!("total"), json!("total(")]
    );
}

#[test]
fn an_apply_that_is_not_its_preview_is_said_file_by_file() {
    let env = Env::new();
    let (_fake, mut bridge) = hostile(&env);
    for tool in ["apply_code_action", "format"] {
        let mut args = json!({"path": "hostile/swap.ts", "line": 1});
        if tool == "apply_code_action" {
            args["id"] = json!("s");
        }
        let preview = bridge.call_tool(tool, args.clone()).unwrap();
        assert!(text_of(&preview).contains("1 edit(s) in 1 file(s)"), "{preview}");
        args["apply"] = json!(true);
        let applied = bridge.call_tool(tool, args).unwrap();
        let text = text_of(&applied);
        assert!(text.starts_with("Warning: what the IDE applied differs from the preview it gave"), "{tool}: {text}");
        assert!(text.contains("`src/a.ts`: in the preview (1 edit(s)), not in the IDE's change"), "{text}");
        assert!(text.contains("`src/other.ts`: changed by the IDE (99 edit(s)), not in the preview"), "{text}");
        assert!(text.contains("the IDE's change runs a command (`rm`) that the preview did not name"), "{text}");
        assert_eq!(applied["structuredContent"]["differences"].as_array().unwrap().len(), 3, "{applied}");
    }
}

#[test]
fn an_apply_whose_change_moved_since_its_preview_is_refused_and_never_sent() {
    let env = Env::new();
    let (fake, mut bridge) = hostile(&env);
    for tool in ["apply_code_action", "format"] {
        let mut args = json!({"path": "hostile/moving.ts", "line": 1});
        if tool == "apply_code_action" {
            args["id"] = json!("m");
        }
        let preview = bridge.call_tool(tool, args.clone()).unwrap();
        assert!(!is_error(&preview), "{preview}");
        fake.drain();
        args["apply"] = json!(true);
        let refused = bridge.call_tool(tool, args).unwrap();
        assert_eq!(code(&refused), "CONFLICT", "{tool}: {refused}");
        let text = text_of(&refused);
        assert!(
            text.starts_with("Nothing was applied: the change is not the one its preview showed any more"),
            "{text}"
        );
        assert!(text.contains("`src/a.ts`: its text before the change is not the one the preview showed"), "{text}");
        let sent = fake.drain();
        assert!(sent.iter().all(|m| m["params"]["apply"] != true), "{tool}: the apply never reached the IDE: {sent:?}");
    }
}
