//! The tour's plumbing, with sections that tour `mcp-baseline`.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::Result;
use mcp_tests::tour::{Section, Tour};
use serde_json::json;

use super::BASELINE;

/// A writer the test can read after the tour owned it.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Buffer {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

fn tour() -> (Tour, Buffer) {
    let buf = Buffer::default();
    let dir = Path::new(BASELINE).parent().unwrap();
    (Tour::new(Box::new(buf.clone()), false).with_bin_dir(dir), buf)
}

fn good(t: &mut Tour) -> Result<()> {
    let mut c = t.spawn("mcp-baseline", &[])?;
    t.initialize(&mut c, "mcp-baseline")?;
    t.tools_list(&mut c, &["echo"])?;
    let r = t.call(&mut c, "echo a long text", "echo", json!({"text": "z".repeat(5000)}))?;
    t.check("echo says ok", mcp_tests::text_of(&r) == "ok", "the text ok");
    let r = t.call(&mut c, "echo a number", "echo", json!({"value": 3}))?;
    t.expect_structured("echo gives the arguments back", &r, &json!({"value": 3}));
    Ok(())
}

fn wrong(t: &mut Tour) -> Result<()> {
    let mut c = t.spawn("mcp-baseline", &[])?;
    t.initialize(&mut c, "some-other-server")?;
    let r = t.call(&mut c, "echo", "echo", json!({}))?;
    t.expect_error("expects an error that does not come", &r, "INVALID_ARGS");
    Ok(())
}

fn broken(t: &mut Tour) -> Result<()> {
    let _c = t.spawn("mcp-no-such-server", &[])?;
    Ok(())
}

#[test]
fn a_passing_section_prints_requests_results_and_checks() {
    let (mut t, buf) = tour();
    let ok = t.run_sections(&[Section { name: "baseline", crate_dir: "tests", run: good }]);
    let text = buf.text();
    assert!(ok, "{text}");
    assert_eq!(t.passed(), 4, "{text}");
    assert!(t.failures().is_empty());
    for shown in [
        "── baseline",
        "$ mcp-baseline",
        "→ initialize",
        "→ tools/call",
        "    echo  ",
        "✓ echo says ok",
        "4 checks passed, 0 failed",
    ] {
        assert!(text.contains(shown), "{shown:?} in {text}");
    }
    // Long strings are cut, and no colours when not asked for.
    assert!(text.contains("more bytes)"), "{text}");
    assert!(!text.contains('\x1b'));
}

#[test]
fn failures_are_counted_and_named_and_missing_crates_skipped() {
    let (mut t, buf) = tour();
    let ok = t.run_sections(&[
        Section { name: "wrong", crate_dir: "tests", run: wrong },
        Section { name: "broken", crate_dir: "tests", run: broken },
        Section { name: "future", crate_dir: "servers/no-such-crate", run: broken },
        Section { name: "fine", crate_dir: "tests", run: good },
    ]);
    let text = buf.text();
    assert!(!ok, "{text}");
    assert_eq!(t.failures().len(), 3, "{text}");
    assert!(t.failures()[0].starts_with("wrong: initialize"), "{:?}", t.failures());
    assert!(t.failures()[1].starts_with("wrong: expects an error"), "{:?}", t.failures());
    assert!(t.failures()[2].starts_with("broken: aborted"), "{:?}", t.failures());
    assert_eq!(t.skipped(), ["future"]);
    assert!(text.contains("skipped: servers/no-such-crate is not in the workspace yet"), "{text}");
    assert!(text.contains("4 checks passed, 3 failed (skipped: future)"), "{text}");
}

#[test]
fn colours_only_when_asked() {
    let buf = Buffer::default();
    let dir = Path::new(BASELINE).parent().unwrap();
    let mut t = Tour::new(Box::new(buf.clone()), true).with_bin_dir(dir);
    assert!(t.run_sections(&[Section { name: "baseline", crate_dir: "tests", run: good }]));
    assert!(buf.text().contains("\x1b[32m"));
}
