//! Tour of `mcp-server-sample-tool`: the template's `hoge` tool (`calc`: x + y) and
//! `countdown` (progress notifications).

use anyhow::Result;
use serde_json::{Value, json};

use super::Tour;

/// The server's binary (and `serverInfo.name`).
pub const BINARY: &str = "mcp-server-sample-tool";

/// Runs the sample-tool section.
pub fn run(t: &mut Tour) -> Result<()> {
    let mut c = t.spawn(BINARY, &[])?;
    t.initialize(&mut c, BINARY)?;
    t.tools_list(&mut c, &["hoge", "countdown"])?;

    let r = t.call(&mut c, "hoge: calc 1 + 2", "hoge", json!({"action": "calc", "args": {"x": 1, "y": 2}}))?;
    t.expect_structured("calc 1 + 2 is 3", &r, &json!({"value": 3}));

    let r = t.call(
        &mut c,
        "hoge: calc 2.5 + -1 (any JSON numbers)",
        "hoge",
        json!({"action": "calc", "args": {"x": 2.5, "y": -1}}),
    )?;
    let value = crate::result::structured(&r).and_then(|s| s.get("value").and_then(Value::as_f64));
    t.check(
        "calc 2.5 + -1 is 1.5",
        !crate::result::is_error(&r) && value == Some(1.5),
        &format!("structuredContent.value is 1.5; got {value:?}"),
    );

    t.step("countdown: 1 second, with a progress token (the server reports progress)");
    let response = t.request(
        &mut c,
        "tools/call",
        json!({
            "name": "countdown",
            "arguments": {"seconds": 1},
            "_meta": {"progressToken": "tour-countdown"},
        }),
    )?;
    let progress = t
        .last_notifications()
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .filter(|n| n.pointer("/params/progressToken") == Some(&json!("tour-countdown")))
        .count();
    let failed = response.get("result").is_none_or(crate::result::is_error);
    t.check(
        "countdown returns after progress",
        !failed && progress >= 1,
        &format!("a successful result after at least one progress notification; got {progress}"),
    );

    let r =
        t.call(&mut c, "bad call: x is not a number", "hoge", json!({"action": "calc", "args": {"x": "a", "y": 2}}))?;
    t.expect_error("x = \"a\" is INVALID_ARGS", &r, "INVALID_ARGS");

    let r = t.call(&mut c, "bad call: an unknown action", "hoge", json!({"action": "nope"}))?;
    t.expect_error("action \"nope\" is UNKNOWN_ACTION", &r, "UNKNOWN_ACTION");

    t.step("bad call: no arguments at all");
    let response = t.request(&mut c, "tools/call", json!({"name": "hoge"}))?;
    let r = response.get("result").cloned().unwrap_or(Value::Null);
    t.expect_error("no arguments is INVALID_INPUT", &r, "INVALID_INPUT");

    let status = c.wait()?;
    t.check("exits cleanly when stdin closes", status.success(), &format!("exit status 0; got {status}"));
    Ok(())
}
