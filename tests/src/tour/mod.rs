//! The tour: a real MCP session with every server of the workspace, printed step by step.
//!
//! Each server is one module with a `pub fn run(t: &mut Tour) -> Result<()>`, listed once in
//! [`SECTIONS`]. A section spawns its server ([`Tour::spawn`]), and goes through `initialize`,
//! `tools/list`, a few calls and a bad one, checking each answer ([`Tour::check`] and the
//! `expect_*` helpers). A failed check is recorded and the tour goes on; an `Err` from a section
//! (the server did not start, a request timed out) is recorded as that section's failure.
//! A section whose crate is not in the workspace yet is skipped with a note.
//!
//! Output goes to any writer (stdout for the `tour` binary, a buffer in tests), with ANSI colours
//! only when asked for.

pub mod draft_post;
pub mod ide_bridge;
pub mod sample_tool;
pub mod text_editor;

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::{Value, json};

use crate::client::{ClientBuilder, StdioClient};
use crate::result::{error_code, is_error, structured, text_of};

/// One server's part of the tour.
#[derive(Debug, Clone, Copy)]
pub struct Section {
    /// The heading (the server's short name, e.g. `sample-tool`).
    pub name: &'static str,
    /// The server's crate directory relative to the workspace root; when it has no `Cargo.toml`
    /// the section is skipped.
    pub crate_dir: &'static str,
    /// The section itself.
    pub run: fn(&mut Tour) -> Result<()>,
}

/// Every section, in order. A new server adds its module above and one line here.
pub const SECTIONS: &[Section] = &[
    Section { name: "sample-tool", crate_dir: "servers/sample-tool", run: sample_tool::run },
    Section { name: "ide-bridge", crate_dir: "servers/ide-bridge", run: ide_bridge::run },
    Section { name: "text-editor", crate_dir: "servers/text-editor", run: text_editor::run },
    Section { name: "draft-post", crate_dir: "servers/draft-post", run: draft_post::run },
];

/// Longest string shown in full inside printed JSON.
const MAX_STRING: usize = 240;
/// JSON up to this many characters is printed on one line.
const COMPACT_WIDTH: usize = 100;
/// Most array items shown inside printed JSON.
const MAX_ITEMS: usize = 12;

/// The tour's state: where it prints, and what passed and failed.
pub struct Tour {
    out: Box<dyn Write>,
    color: bool,
    bin_dir: Option<PathBuf>,
    section: String,
    passed: usize,
    failures: Vec<String>,
    skipped: Vec<String>,
    last_notifications: Vec<Value>,
}

impl std::fmt::Debug for Tour {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tour")
            .field("section", &self.section)
            .field("passed", &self.passed)
            .field("failures", &self.failures)
            .finish_non_exhaustive()
    }
}

impl Tour {
    /// A tour printing to `out`, with ANSI colours when `color`.
    pub fn new(out: Box<dyn Write>, color: bool) -> Self {
        Tour {
            out,
            color,
            bin_dir: None,
            section: String::new(),
            passed: 0,
            failures: Vec::new(),
            skipped: Vec::new(),
            last_notifications: Vec::new(),
        }
    }

    /// Looks for server binaries in `dir` instead of with [`crate::find_server_binary`].
    #[must_use]
    pub fn with_bin_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.bin_dir = Some(dir.into());
        self
    }

    /// How many checks passed.
    pub fn passed(&self) -> usize {
        self.passed
    }

    /// The failed checks and sections, as `section: step: why`.
    pub fn failures(&self) -> &[String] {
        &self.failures
    }

    /// Runs one section (`run`) against the binaries in `bin_dir`, its output discarded: the
    /// number of checks that passed, or every failure. Each server's tests use it to prove that
    /// its tour section (the README's first command) still passes.
    pub fn run_quietly(bin_dir: impl Into<PathBuf>, run: fn(&mut Tour) -> Result<()>) -> Result<usize, String> {
        let mut tour = Tour::new(Box::new(std::io::sink()), false).with_bin_dir(bin_dir);
        run(&mut tour).map_err(|e| format!("{e:#}"))?;
        if tour.failures.is_empty() { Ok(tour.passed) } else { Err(tour.failures.join("\n")) }
    }

    /// The sections skipped (their crate is not in the workspace yet).
    pub fn skipped(&self) -> &[String] {
        &self.skipped
    }

    /// Runs `sections` in order: skips those whose crate does not exist, records a section that
    /// returns `Err` as failed, and goes on. Returns whether everything passed.
    pub fn run_sections(&mut self, sections: &[Section]) -> bool {
        let root = crate::locate::workspace_root();
        for s in sections {
            self.heading(s.name);
            if !root.join(s.crate_dir).join("Cargo.toml").is_file() {
                self.skipped.push(s.name.to_owned());
                self.note(&format!("skipped: {} is not in the workspace yet", s.crate_dir));
                continue;
            }
            if let Err(e) = (s.run)(self) {
                let msg = format!("{}: aborted: {e:#}", s.name);
                let line = self.paint("31;1", &format!("✗ {msg}"));
                self.line(&line);
                self.failures.push(msg);
            }
        }
        self.summary()
    }

    /// Prints the summary; returns whether there was no failure.
    pub fn summary(&mut self) -> bool {
        self.line("");
        let ok = self.failures.is_empty();
        let mut text = format!("{} checks passed, {} failed", self.passed, self.failures.len());
        if !self.skipped.is_empty() {
            text.push_str(&format!(" (skipped: {})", self.skipped.join(", ")));
        }
        let text = self.paint(if ok { "32;1" } else { "31;1" }, &text);
        self.line(&text);
        for f in self.failures.clone() {
            let f = self.paint("31", &format!("  ✗ {f}"));
            self.line(&f);
        }
        let _ = self.out.flush();
        ok
    }

    /// Starts a section heading (also the prefix of its failures).
    pub fn heading(&mut self, name: &str) {
        self.section = name.to_owned();
        let rule = "─".repeat(60usize.saturating_sub(name.chars().count() + 4));
        let text = self.paint("1", &format!("── {name} {rule}"));
        self.line("");
        self.line(&text);
    }

    /// Prints a note (a skipped part, an explanation).
    pub fn note(&mut self, text: &str) {
        let text = self.paint("33", &format!("  note: {text}"));
        self.line(&text);
    }

    /// Prints a step title (what the next request shows).
    pub fn step(&mut self, title: &str) {
        let text = self.paint("1", &format!("\n▸ {title}"));
        self.line(&text);
    }

    /// A [`ClientBuilder`] for server binary `name` (found next to the tour, built if needed).
    pub fn builder(&mut self, name: &str) -> Result<ClientBuilder> {
        let path = match &self.bin_dir {
            Some(dir) => {
                let p = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
                anyhow::ensure!(p.is_file(), "no binary `{name}` in {}", dir.display());
                p
            }
            None => crate::locate::find_server_binary(name)?,
        };
        Ok(ClientBuilder::new(path))
    }

    /// Spawns server binary `name` with `args` and prints the command line.
    pub fn spawn(&mut self, name: &str, args: &[&str]) -> Result<StdioClient> {
        let builder = self.builder(name)?.args(args);
        let shown = std::iter::once(name).chain(args.iter().copied()).collect::<Vec<_>>().join(" ");
        let text = self.paint("2", &format!("$ {shown}"));
        self.line(&text);
        builder.spawn().with_context(|| format!("cannot start {name}"))
    }

    /// Sends a request, printing it and its response (and any notification that came before
    /// the response); returns the whole response.
    pub fn request(&mut self, c: &mut StdioClient, method: &str, params: Value) -> Result<Value> {
        self.show_request(method, &params);
        c.take_notifications();
        let response = c.request(method, params)?;
        self.last_notifications = c.take_notifications();
        for n in self.last_notifications.clone() {
            let m = n.get("method").and_then(Value::as_str).unwrap_or("?").to_owned();
            let head = self.paint("35", &format!("⇠ {m}"));
            self.line(&head);
            self.json(n.get("params").unwrap_or(&Value::Null));
        }
        let head = self.paint("32", if response.get("error").is_some() { "← error" } else { "←" });
        self.line(&head);
        let shown = response.get("result").or_else(|| response.get("error")).unwrap_or(&response);
        self.json(shown);
        Ok(response)
    }

    /// The notifications that arrived during the last [`Tour::request`].
    pub fn last_notifications(&self) -> &[Value] {
        &self.last_notifications
    }

    /// `initialize`, printed; checks that `serverInfo.name` is `expected_name`. Returns the result.
    pub fn initialize(&mut self, c: &mut StdioClient, expected_name: &str) -> Result<Value> {
        self.step("initialize");
        let response = self.request(c, "initialize", StdioClient::default_initialize_params())?;
        c.notify("notifications/initialized", Value::Null)?;
        let result = response.get("result").cloned().unwrap_or(Value::Null);
        let name = result.pointer("/serverInfo/name").and_then(Value::as_str).unwrap_or("");
        self.check(
            &format!("initialize: serverInfo.name is {expected_name}"),
            name == expected_name,
            &format!("got {name:?}"),
        );
        Ok(result)
    }

    /// `tools/list`, printed as names and one-line descriptions; checks that every tool of
    /// `expected` is listed. Returns the tools.
    pub fn tools_list(&mut self, c: &mut StdioClient, expected: &[&str]) -> Result<Vec<Value>> {
        self.step("tools/list");
        self.show_request("tools/list", &json!({}));
        let tools = c.list_tools()?;
        let head = self.paint("32", &format!("← {} tools", tools.len()));
        self.line(&head);
        let width = tools.iter().filter_map(|t| t["name"].as_str()).map(str::len).max().unwrap_or(0);
        for t in &tools {
            let name = t["name"].as_str().unwrap_or("?");
            let desc = t["description"].as_str().unwrap_or("").lines().next().unwrap_or("");
            let desc = crate::client::truncate(desc, 100);
            let name = self.paint("1", &format!("{name:width$}"));
            self.line(&format!("    {name}  {desc}"));
        }
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        let missing: Vec<&&str> = expected.iter().filter(|e| !names.contains(e)).collect();
        self.check(
            &format!("tools/list has {}", expected.join(", ")),
            missing.is_empty(),
            &format!("missing: {missing:?}"),
        );
        Ok(tools)
    }

    /// Calls tool `name` with `args` under the step title `title`, printed; returns the `result`
    /// (a JSON-RPC error is an `Err`).
    pub fn call(&mut self, c: &mut StdioClient, title: &str, name: &str, args: Value) -> Result<Value> {
        self.step(title);
        let response = self.request(c, "tools/call", json!({ "name": name, "arguments": args }))?;
        match response.get("result") {
            Some(r) => Ok(r.clone()),
            None => anyhow::bail!("tools/call {name} got a JSON-RPC error: {}", response["error"]),
        }
    }

    /// Checks a successful result whose `structuredContent` equals `expected`.
    pub fn expect_structured(&mut self, step: &str, result: &Value, expected: &Value) {
        let got = structured(result);
        self.check(
            step,
            !is_error(result) && got.as_ref() == Some(expected),
            &format!(
                "structuredContent is {expected}; got {} (isError: {})",
                got.map_or("nothing".to_owned(), |g| g.to_string()),
                is_error(result)
            ),
        );
    }

    /// Checks a failed result (`isError: true`) with error code `code` and a message.
    pub fn expect_error(&mut self, step: &str, result: &Value, code: &str) {
        let got = error_code(result);
        let text = text_of(result);
        self.check(
            step,
            is_error(result) && got.as_deref() == Some(code) && !text.trim().is_empty(),
            &format!(
                "isError with code {code} and a message; got isError {}, code {got:?}, message {:?}",
                is_error(result),
                crate::client::truncate(&text, 200)
            ),
        );
    }

    /// Records a check: `what` says what was expected (and what came, when it failed).
    pub fn check(&mut self, step: &str, ok: bool, what: &str) {
        if ok {
            self.passed += 1;
            let text = self.paint("32", &format!("  ✓ {step}"));
            self.line(&text);
        } else {
            let msg = format!("{}: {step}: {what}", self.section);
            let text = self.paint("31;1", &format!("  ✗ {step}: {what}"));
            self.line(&text);
            self.failures.push(msg);
        }
    }

    fn show_request(&mut self, method: &str, params: &Value) {
        let head = self.paint("36", &format!("→ {method}"));
        self.line(&head);
        if params.as_object().is_some_and(|o| !o.is_empty()) {
            self.json(params);
        }
    }

    /// Prints `value` as JSON, indented, each part on one line when it fits; long strings and
    /// arrays cut.
    fn json(&mut self, value: &Value) {
        let mut lines = Vec::new();
        render(&shorten(value), 2, "", "", &mut lines);
        for l in lines {
            let l = self.paint("2", &l);
            self.line(&l);
        }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }

    fn line(&mut self, text: &str) {
        // A closed stdout (the tour piped into `head`) is not the tour's failure.
        let _ = writeln!(self.out, "{text}");
    }
}

/// Renders `value` at `indent` (in steps of two spaces) after `prefix` (`"key": `) and before
/// `suffix` (`,`): on one line when it fits in [`COMPACT_WIDTH`], else opened up.
fn render(value: &Value, indent: usize, prefix: &str, suffix: &str, lines: &mut Vec<String>) {
    let pad = "  ".repeat(indent);
    let compact = format!("{pad}{prefix}{value}{suffix}");
    let (open, close, items): (&str, &str, Vec<(String, &Value)>) = match value {
        Value::Object(map) if !map.is_empty() => {
            ("{", "}", map.iter().map(|(k, v)| (format!("{}: ", Value::String(k.clone())), v)).collect())
        }
        Value::Array(a) if !a.is_empty() => ("[", "]", a.iter().map(|v| (String::new(), v)).collect()),
        _ => {
            lines.push(compact);
            return;
        }
    };
    if compact.chars().count() <= COMPACT_WIDTH {
        lines.push(compact);
        return;
    }
    lines.push(format!("{pad}{prefix}{open}"));
    let last = items.len().saturating_sub(1);
    for (i, (key, v)) in items.into_iter().enumerate() {
        render(v, indent + 1, &key, if i == last { "" } else { "," }, lines);
    }
    lines.push(format!("{pad}{close}{suffix}"));
}

/// `value` with strings longer than [`MAX_STRING`] and arrays longer than [`MAX_ITEMS`] cut.
fn shorten(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(crate::client::truncate(s, MAX_STRING)),
        Value::Array(items) => {
            let mut v: Vec<Value> = items.iter().take(MAX_ITEMS).map(shorten).collect();
            if items.len() > MAX_ITEMS {
                v.push(json!(format!("… ({} more items)", items.len() - MAX_ITEMS)));
            }
            Value::Array(v)
        }
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), shorten(v))).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorten_cuts_long_strings_and_arrays() {
        let v = json!({"s": "x".repeat(1000), "a": (0..20).collect::<Vec<_>>()});
        let s = shorten(&v);
        assert!(s["s"].as_str().unwrap().len() < 300);
        assert_eq!(s["a"].as_array().unwrap().len(), MAX_ITEMS + 1);
    }
}
