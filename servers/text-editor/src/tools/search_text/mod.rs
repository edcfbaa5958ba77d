//! `search_text`: ripgrep's search over the workspace, on ripgrep's own crates (`grep-regex`,
//! `grep-searcher`; `.gitignore` rules through the shared sandbox's walker, which opens every
//! directory and file beneath its parent's handle and never follows a symlink).
//!
//! Output: one line per matching line, `ABSOLUTE_PATH:LINE:TEXT` (context lines
//! `ABSOLUTE_PATH-LINE-TEXT`, groups separated by `--`, as `rg -n --no-heading` prints them),
//! files in path order, at most `limit` matching lines and `--max-output-chars` characters in
//! all, then one line saying how many more matches (and files) were left out, and notes on files
//! not searched (over `--max-file-size`) or searched only up to a line over 4 MiB. Hidden files and directories, `.gitignore`d / `.ignore`d
//! paths (also outside a git repository) and binary files (a NUL byte) are skipped, as ripgrep
//! skips them; a file that is not UTF-8 is searched in the encoding the editor detects for it
//! (Latin-1, Shift_JIS, UTF-16, …), so `café` finds `caf\xE9`.

use std::{
    borrow::Cow,
    path::{Path, PathBuf},
    sync::{Arc, mpsc},
};

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use ignore::overrides::{Override, OverrideBuilder};
use mcp_shared::{
    ErrorCode, Tool, ToolContext, ToolOutput, ToolResult, blocking,
    reexports::rmcp::model::ToolAnnotations,
    sandbox::{FileEntry, Sandbox, SandboxPath, WalkOptions},
};
use rayon::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

mod file;

use file::{FileResult, Line, Room, Skipped, search_one};

use crate::{error::ToolError, workspace::EditorRoots};

/// The default `limit`.
pub const DEFAULT_LIMIT: usize = 100;
/// The largest `limit`.
pub const MAX_LIMIT: usize = 1_000;
/// The most context lines.
pub const MAX_CONTEXT: usize = 10;
/// A shown line is cut after this many characters.
pub const MAX_LINE_CHARS: usize = 400;
/// The longest `pattern` or `glob`, in bytes.
pub const MAX_PATTERN_BYTES: usize = 16 * 1024;
/// The most a compiled pattern may take (regex's NFA), and its lazy DFA's cache per thread: a
/// pattern such as `\w{5000}` is refused at once rather than after seconds and hundreds of MB.
const REGEX_SIZE_LIMIT: usize = 4 * 1024 * 1024;
const REGEX_DFA_LIMIT: usize = 8 * 1024 * 1024;
/// Patterns compiled at once, server-wide (each on a blocking thread, never on the runtime's).
const CONCURRENT_COMPILES: usize = 2;
/// The most a search holds of one line (with its context): a longer line (a minified file, a
/// 200 MB file without a newline) ends that file's search, with a note.
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;
/// The output bound when `--max-output-chars` is 0 (no cut for views): a search's reply is
/// still bounded.
pub const MAX_OUTPUT_CHARS_UNBOUNDED: usize = 1_000_000;
/// Files searched at once, in walk order; the next batch is searched once this one's results
/// are in, so that each file keeps only what can still be shown. Each file of a batch may keep
/// up to the whole output bound, so a large bound (`--max-output-chars 0`) takes smaller
/// batches: a batch holds at most [`BATCH`] × the bound, or [`SMALL_BATCH`] × it past
/// [`LARGE_BOUND`] characters.
const BATCH: usize = 64;
const SMALL_BATCH: usize = 16;
const LARGE_BOUND: usize = 100_000;

/// The search to run. Unknown fields are ignored.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[garde(allow_unvalidated)]
pub struct SearchTextInput {
    /// What to look for: a regular expression in Rust `regex` syntax (as ripgrep's), e.g. `fn\s+main` or `TODO|FIXME`; or the exact text when `literal` is true.
    pub pattern: String,
    /// The directory (or file) to search, absolute or relative to the first root. Default: every root.
    #[serde(default)]
    pub path: Option<String>,
    /// Only files matching this glob, as ripgrep's `-g`: `*.rs` (any depth), `src/**/*.ts`, `!*.min.js` to leave out.
    #[serde(default)]
    pub glob: Option<String>,
    /// Match case-insensitively. Default false.
    #[serde(default)]
    pub ignore_case: Option<bool>,
    /// Take `pattern` as plain text, not a regular expression. Default false.
    #[serde(default)]
    pub literal: Option<bool>,
    /// Lines of context shown before and after each match (0 to 10). Default 0.
    #[serde(default)]
    pub context: Option<u32>,
    /// The most matching lines shown (1 to 1000). Default 100; the rest are counted.
    #[serde(default)]
    pub limit: Option<u32>,
}

/// What bounds a search besides its `limit`: the editor's `--max-output-chars` and
/// `--max-file-size`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchLimits {
    /// The reply's characters (0: [`MAX_OUTPUT_CHARS_UNBOUNDED`]).
    pub max_output_chars: usize,
    /// Larger files are not searched (they are counted in a note).
    pub max_file_size: u64,
}

impl SearchLimits {
    /// The editor's `--max-output-chars` and `--max-file-size`.
    pub fn of(limits: &crate::Limits) -> SearchLimits {
        SearchLimits { max_output_chars: limits.max_output_chars, max_file_size: limits.max_file_size }
    }

    fn output_chars(self) -> usize {
        if self.max_output_chars == 0 { MAX_OUTPUT_CHARS_UNBOUNDED } else { self.max_output_chars }
    }
}

/// The tool.
pub struct SearchText {
    workspace: Arc<EditorRoots>,
    limits: SearchLimits,
    compiles: Arc<Semaphore>,
}

impl SearchText {
    /// The tool over `workspace`, within `limits`.
    pub fn new(workspace: Arc<EditorRoots>, limits: SearchLimits) -> SearchText {
        SearchText { workspace, limits, compiles: Arc::new(Semaphore::new(CONCURRENT_COMPILES)) }
    }
}

/// What a search is asked to do, checked.
#[derive(Clone)]
pub struct Query {
    matcher: RegexMatcher,
    context: usize,
    limit: usize,
    glob: Option<String>,
}

/// `input`'s numbers and lengths, checked before anything is compiled.
fn check_input(input: &SearchTextInput) -> Result<(usize, usize), ToolError> {
    if input.pattern.is_empty() {
        return Err(ToolError::new(
            ErrorCode::InvalidArgs,
            "`pattern` is empty: give the text or regular expression to look for.",
        ));
    }
    for (name, value) in [("pattern", Some(&input.pattern)), ("glob", input.glob.as_ref())] {
        if let Some(value) = value
            && value.len() > MAX_PATTERN_BYTES
        {
            return Err(ToolError::new(
                ErrorCode::InvalidArgs,
                format!(
                    "`{name}` is {} bytes long; at most {MAX_PATTERN_BYTES} are accepted. Search for a shorter, distinctive part.",
                    value.len()
                ),
            ));
        }
    }
    let context = input.context.unwrap_or(0) as usize;
    if context > MAX_CONTEXT {
        return Err(ToolError::new(
            ErrorCode::InvalidArgs,
            format!("`context` is {context}; it must be 0 to {MAX_CONTEXT}."),
        ));
    }
    let limit = input.limit.map_or(DEFAULT_LIMIT, |l| l as usize);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ToolError::new(
            ErrorCode::InvalidArgs,
            format!("`limit` is {limit}; it must be 1 to {MAX_LIMIT}."),
        ));
    }
    Ok((context, limit))
}

impl Query {
    /// Checks `input`'s pattern, glob and numbers, and compiles the pattern (blocking: it may
    /// take up to [`REGEX_SIZE_LIMIT`] of work; run it on a blocking thread).
    pub fn new(input: &SearchTextInput) -> Result<Query, ToolError> {
        let (context, limit) = check_input(input)?;
        let mut builder = RegexMatcherBuilder::new();
        builder
            .case_insensitive(input.ignore_case.unwrap_or(false))
            .fixed_strings(input.literal.unwrap_or(false))
            .size_limit(REGEX_SIZE_LIMIT)
            .dfa_size_limit(REGEX_DFA_LIMIT)
            .line_terminator(Some(b'\n'));
        let matcher = builder.build(&input.pattern).map_err(|e| {
            let text = e.to_string();
            let message = if text.contains("size limit") {
                format!(
                    "`pattern` is too costly to compile: its compiled form would exceed {} MiB. Large repetition counts of classes (`\\w{{5000}}`, `[\\p{{L}}]{{2000}}`) grow it: use a smaller count, an ASCII class such as `[0-9A-Za-z_]`, or `literal: true`.",
                    REGEX_SIZE_LIMIT >> 20
                )
            } else {
                format!(
                    "`pattern` is not a valid regular expression: {text}. Escape special characters (e.g. `\\(`), or pass `literal: true` to search for the text as it is."
                )
            };
            ToolError::new(ErrorCode::InvalidArgs, message)
        })?;
        Ok(Query { matcher, context, limit, glob: input.glob.clone().filter(|g| !g.is_empty()) })
    }
}

/// Where to search: the resolved directory or file, and the absolute path it is shown under.
struct Place {
    path: SandboxPath,
    shown: PathBuf,
}

/// The report of a whole search.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The shown lines, as the reply shows them.
    pub lines: Vec<String>,
    /// Characters of the shown lines, newlines included.
    pub chars: usize,
    /// Matching lines shown.
    pub shown_matches: usize,
    /// Matching lines in all.
    pub matches: usize,
    /// Files with a match.
    pub files_matched: usize,
    /// Matching lines not shown, and in how many files they are.
    pub more: (usize, usize),
    /// Whether the output bound (not `limit`) is what left matches out.
    pub cut_by_size: bool,
    /// Files searched.
    pub files_searched: usize,
    /// Files not searched for being larger than `--max-file-size`.
    pub too_large: usize,
    /// Files whose search stopped at a line longer than [`MAX_LINE_BYTES`].
    pub long_lines: usize,
}

/// Searches `places` for `query` (blocking; run it on a blocking thread), within `limits`,
/// until `cancel` is cancelled (then `Err(CANCELLED)`). The walk runs on a thread of its own
/// and hands batches of files over a channel of two, so reading overlaps walking; each batch is
/// searched on rayon's threads and its results taken in walk order before the next starts, so
/// that the output is the same on every run and each file keeps at most what can still be
/// shown: the memory of a search is bounded by its output bound, whatever the files hold.
fn search(
    sandbox: &Sandbox,
    places: &[Place],
    query: &Query,
    limits: SearchLimits,
    cancel: &CancellationToken,
) -> Result<Report, ToolError> {
    let mut report = Report::default();
    let budget = limits.output_chars();
    let batch_size = if budget > LARGE_BOUND { SMALL_BATCH } else { BATCH };
    for place in places {
        let filter = glob_filter(&place.shown, query.glob.as_deref())?;
        let walked = std::thread::scope(|scope| {
            let (send, batches) = mpsc::sync_channel::<Vec<(FileEntry, PathBuf)>>(2);
            let walker = scope.spawn(|| {
                let send = send;
                let mut batch = Vec::with_capacity(batch_size);
                let walked = sandbox.each_file(&place.path, &WalkOptions::default(), &mut |entry| {
                    if cancel.is_cancelled() {
                        return false;
                    }
                    if filter.as_ref().is_some_and(|o| o.matched(&entry.rel, false).is_ignore()) {
                        return true;
                    }
                    let shown = place.shown.join(&entry.rel);
                    batch.push((entry, shown));
                    if batch.len() < batch_size {
                        return true;
                    }
                    // The searcher is gone (cancelled): stop walking.
                    send.send(std::mem::replace(&mut batch, Vec::with_capacity(batch_size))).is_ok()
                });
                if !batch.is_empty() {
                    let _ = send.send(batch);
                }
                walked
            });
            for batch in batches {
                if cancel.is_cancelled() {
                    break;
                }
                let room = report.room(query, budget);
                report.files_searched += batch.len();
                let results: Vec<FileResult> = batch
                    .par_iter()
                    .map(|(entry, shown)| search_one(|| entry.open(), shown, query, room, limits, cancel))
                    .collect();
                for result in results {
                    report.add(result, query, budget);
                }
            }
            walker.join().unwrap_or(Ok(false))
        });
        match walked {
            Ok(_) => {}
            Err(mcp_shared::sandbox::SandboxError::NotADirectory { .. }) => {
                // A single file: searched whatever its name (as `rg PATTERN FILE`).
                let file = sandbox.open_read(&place.path).map_err(ToolError::from)?;
                report.files_searched += 1;
                let room = report.room(query, budget);
                let result = search_one(|| file.try_clone(), &place.shown, query, room, limits, cancel);
                report.add(result, query, budget);
            }
            Err(e) => return Err(e.into()),
        }
        if cancel.is_cancelled() {
            return Err(ToolError::new(ErrorCode::Cancelled, "The search was cancelled; nothing more was searched."));
        }
    }
    Ok(report)
}

impl Report {
    /// What the next file may keep.
    fn room(&self, query: &Query, budget: usize) -> Room {
        Room {
            matches: query.limit.saturating_sub(self.shown_matches),
            chars: if self.cut_by_size { 0 } else { budget.saturating_sub(self.chars) },
        }
    }

    /// Adds one file's result, keeping at most `query.limit` matching lines and `budget`
    /// characters shown, in walk order.
    fn add(&mut self, result: FileResult, query: &Query, budget: usize) {
        match result.skipped {
            Some(Skipped::TooLarge) => self.too_large += 1,
            Some(Skipped::LongLine) => self.long_lines += 1,
            None => {}
        }
        if result.matches == 0 {
            return;
        }
        self.files_matched += 1;
        self.matches += result.matches;
        let path_chars = result.shown.chars().count();
        let mut shown = 0;
        let mut lines = Vec::new();
        let mut chars = 0;
        // Groups of context lines are separated by `--`, also from one file to the next.
        if query.context > 0 && !self.lines.is_empty() {
            lines.push(Line::Break);
            chars += 3;
        }
        for line in result.lines {
            if matches!(line, Line::Match(..)) && self.shown_matches + shown == query.limit {
                break;
            }
            let cost = line.chars(path_chars);
            if self.cut_by_size || self.chars + chars + cost > budget {
                self.cut_by_size = true;
                break;
            }
            if matches!(line, Line::Match(..)) {
                shown += 1;
            }
            chars += cost;
            lines.push(line);
        }
        // A group never ends with its separator.
        while lines.last() == Some(&Line::Break) {
            lines.pop();
            chars -= 3;
        }
        if shown > 0 {
            for line in lines {
                self.lines.push(match line {
                    Line::Match(n, text) => format!("{}:{n}:{text}", result.shown),
                    Line::Context(n, text) => format!("{}-{n}-{text}", result.shown),
                    Line::Break => "--".to_owned(),
                });
            }
            self.chars += chars;
        }
        self.shown_matches += shown;
        let hidden = result.matches - shown;
        if hidden > 0 {
            self.more.0 += hidden;
            self.more.1 += 1;
        }
    }
}

/// The `glob` filter, as ripgrep's `-g` (gitignore-style: a pattern without `/` matches a name at
/// any depth; `!` leaves out).
fn glob_filter(base: &Path, glob: Option<&str>) -> Result<Option<Override>, ToolError> {
    let Some(glob) = glob else { return Ok(None) };
    let invalid = |e: ignore::Error| {
        ToolError::new(
            ErrorCode::InvalidArgs,
            format!("`glob` {glob:?} is not a valid glob: {e}. Example: `*.rs` or `src/**/*.ts`."),
        )
    };
    let mut builder = OverrideBuilder::new(base);
    builder.add(glob).map_err(invalid)?;
    builder.build().map(Some).map_err(invalid)
}

/// The text a model reads.
pub fn render(report: &Report, pattern: &str, scope: &str, limit: usize, limits: SearchLimits) -> String {
    let mut out = String::new();
    if report.matches == 0 {
        out.push_str(&format!(
            "No matches for {pattern:?} in {scope} ({} files searched; hidden, .gitignored and binary files are skipped).\n",
            report.files_searched
        ));
    }
    for line in &report.lines {
        out.push_str(line);
        out.push('\n');
    }
    if report.more.0 > 0 {
        if report.cut_by_size {
            out.push_str(&format!(
                "[{} more matches in {} files not shown: {} matching lines in {} files in all, the first {} shown before the reply reached its bound of {} characters (--max-output-chars). Narrow `pattern`, `path` or `glob`, or lower `context`.]\n",
                report.more.0,
                report.more.1,
                report.matches,
                report.files_matched,
                report.shown_matches,
                limits.output_chars()
            ));
        } else {
            out.push_str(&format!(
                "[{} more matches in {} files not shown: {} matching lines in {} files in all, the first {limit} shown. Narrow `pattern`, `path` or `glob`, or raise `limit` (at most {MAX_LIMIT}).]\n",
                report.more.0, report.more.1, report.matches, report.files_matched
            ));
        }
    }
    if report.too_large > 0 {
        out.push_str(&format!(
            "[{} files larger than this server's --max-file-size ({} bytes) were not searched. View parts of them with `view_range`.]\n",
            report.too_large, limits.max_file_size
        ));
    }
    if report.long_lines > 0 {
        out.push_str(&format!(
            "[{} files have a line longer than {} MiB (minified or generated text); each was searched up to that line only.]\n",
            report.long_lines,
            MAX_LINE_BYTES >> 20
        ));
    }
    if report.matches == 0 {
        // The old one-line answer had no final newline.
        out.truncate(out.trim_end_matches('\n').len());
    }
    out
}

/// The tool's section of the guide, with `{root}` to fill in.
const GUIDE: &str = r##"
## Finding things: `search_text`

Search file contents like ripgrep. Results are `ABSOLUTE_PATH:LINE:TEXT`, one per matching line.

**Parameters:**
- `pattern`: a regular expression (Rust regex syntax), or plain text with `literal: true` (required)
- `path`: a directory or file to search (default: the whole workspace)
- `glob`: only matching files, e.g. `*.rs` or `src/**/*.ts`
- `ignore_case`, `context` (lines around each match, 0-10), `limit` (default 100)

**Example:**
```json
{"pattern": "fn\s+parse_", "path": "{root}/src", "glob": "*.rs", "context": 2}
```
Then `view` the file at the line it names before editing it.
"##;

/// The tool's description.
pub const DESCRIPTION: &str = "Search file contents under the workspace, like ripgrep (`rg -n`): a regular expression (Rust regex syntax) or, with `literal: true`, plain text. One line per matching line: `ABSOLUTE_PATH:LINE:TEXT`, files in path order; with `context`, surrounding lines as `ABSOLUTE_PATH-LINE-TEXT` and groups separated by `--`. At most `limit` matching lines (default 100), then a line saying how many more there are. Hidden files, .gitignored paths and binary files are skipped; files in other encodings (Latin-1, Shift_JIS, UTF-16, ...) are searched as text. Use `glob` to pick files (`*.rs`, `src/**/*.ts`) and `path` to search one directory or file.";

impl Tool for SearchText {
    type Params = SearchTextInput;

    fn name(&self) -> Cow<'static, str> {
        "search_text".into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("`search_text` searches file contents like ripgrep (regex or `literal`, `glob`, `context`) and answers `PATH:LINE:TEXT` lines.".into())
    }

    fn guide(&self) -> Option<Cow<'static, str>> {
        Some(GUIDE.into())
    }

    fn description(&self) -> Cow<'static, str> {
        DESCRIPTION.into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Search text").read_only(true).destructive(false).idempotent(true).open_world(false)
    }

    async fn run(&self, input: SearchTextInput, ctx: ToolContext) -> ToolResult {
        // Cheap checks first; the pattern is compiled off the runtime's threads, a few at a
        // time, so that costly patterns neither stall other requests nor add up in memory.
        check_input(&input)?;
        let permit = Arc::clone(&self.compiles).acquire_owned().await.map_err(|error| {
            tracing::error!(%error, "the search's compile permits are closed");
            ToolError::new(ErrorCode::InternalError, "The search failed unexpectedly; the server logged the details; retry.")
        })?;
        let (query, input) = blocking("The search", move || {
            let query = Query::new(&input);
            drop(permit);
            (query, input)
        })
        .await?;
        let query = query?;
        let sandbox = self.workspace.sandbox(&ctx).await?;
        let places = places(&sandbox, input.path.as_deref())?;
        let scope = places.iter().map(|p| p.shown.display().to_string()).collect::<Vec<_>>().join(", ");
        let (limit, limits) = (query.limit, self.limits);
        // Cancelled when the call times out or the client cancels it: the walk and the search
        // stop then, not when they are done.
        let cancel = ctx.cancellation().clone();
        let report = blocking("The search", move || search(&sandbox, &places, &query, limits, &cancel)).await??;
        Ok(ToolOutput::text(render(&report, &input.pattern, &scope, limit, limits)))
    }
}

/// The places a call names (`path` resolved in the sandbox, or every root), each with the
/// absolute path it is shown under.
pub fn places_of(sandbox: &Sandbox, path: Option<&str>) -> Result<Vec<(SandboxPath, PathBuf)>, ToolError> {
    Ok(places(sandbox, path)?.into_iter().map(|p| (p.path, p.shown)).collect())
}

/// The places a call names: `path` resolved in the sandbox, or every root.
fn places(sandbox: &Sandbox, path: Option<&str>) -> Result<Vec<Place>, ToolError> {
    match path.filter(|p| !p.is_empty()) {
        Some(raw) => {
            let path = sandbox.resolve(raw)?;
            let shown = path.absolute();
            Ok(vec![Place { path, shown }])
        }
        None => sandbox
            .roots()
            .iter()
            .map(|root| {
                let path = sandbox.resolve(&root.display().to_string())?;
                Ok(Place { shown: root.clone(), path })
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read as _;

    use super::{file::Cancellable, *};

    fn input(pattern: &str) -> SearchTextInput {
        SearchTextInput {
            pattern: pattern.into(),
            path: None,
            glob: None,
            ignore_case: None,
            literal: None,
            context: None,
            limit: None,
        }
    }

    const LIMITS: SearchLimits = SearchLimits { max_output_chars: 16_000, max_file_size: 1 << 20 };

    fn run_with(root: &Path, input: SearchTextInput, limits: SearchLimits) -> String {
        let sandbox = Sandbox::new([root]).unwrap();
        let query = Query::new(&input).unwrap();
        let places = places(&sandbox, input.path.as_deref()).unwrap();
        let report = search(&sandbox, &places, &query, limits, &CancellationToken::new()).unwrap();
        render(&report, &input.pattern, "root", query.limit, limits)
    }

    fn run(root: &Path, input: SearchTextInput) -> String {
        run_with(root, input, LIMITS)
    }

    #[test]
    fn finds_lines_in_path_order_with_context_and_a_limit() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("src/b.rs"), "fn b() {}\nlet x = 1;\nfn c() {}\n").unwrap();
        std::fs::write(root.join("a.rs"), "// nothing to find\n").unwrap();
        let out = run(&root, input(r"fn\s+\w+"));
        let b = root.join("src/b.rs").display().to_string();
        assert_eq!(out, format!("{b}:1:fn b() {{}}\n{b}:3:fn c() {{}}\n"));
        let out = run(&root, SearchTextInput { context: Some(1), limit: Some(1), ..input(r"fn\s+\w+") });
        assert_eq!(
            out,
            format!(
                "{b}:1:fn b() {{}}\n{b}-2-let x = 1;\n[1 more matches in 1 files not shown: 2 matching lines in 1 files in all, the first 1 shown. Narrow `pattern`, `path` or `glob`, or raise `limit` (at most 1000).]\n"
            )
        );
    }

    #[test]
    fn refuses_bad_patterns_and_numbers_with_what_to_do() {
        assert!(Query::new(&input("(")).err().unwrap().message.contains("literal: true"));
        assert!(Query::new(&SearchTextInput { literal: Some(true), ..input("(") }).is_ok());
        assert!(Query::new(&SearchTextInput { limit: Some(0), ..input("x") }).is_err());
        assert!(Query::new(&SearchTextInput { context: Some(11), ..input("x") }).is_err());
        assert!(Query::new(&input("")).is_err());
    }

    #[test]
    fn one_budget_bounds_the_whole_output_and_keeps_walk_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let deep = root.join("a".repeat(200)).join("b".repeat(200));
        std::fs::create_dir_all(&deep).unwrap();
        let text: String = (0..200).map(|i| format!("M line {i}\n")).collect();
        for i in 0..40 {
            std::fs::write(deep.join(format!("f{i:02}.txt")), &text).unwrap();
        }
        let ask = || SearchTextInput { context: Some(10), limit: Some(1000), ..input("M") };
        let small = SearchLimits { max_output_chars: 5_000, ..LIMITS };
        let out = run_with(&root, ask(), small);
        let (shown, note) = out.rsplit_once("\n[").unwrap();
        assert!(shown.chars().count() < 5_000, "{} characters", shown.chars().count());
        assert!(note.contains("reached its bound of 5000 characters (--max-output-chars)"), "{note}");
        assert!(note.contains("8000 matching lines in 40 files in all"), "{note}");
        // The same lines as a search with room for more, cut: walk order, nothing skipped.
        let big = run_with(&root, ask(), SearchLimits { max_output_chars: 0, ..LIMITS });
        assert!(big.starts_with(shown), "the bounded reply is the start of the unbounded one");
        assert!(big.chars().count() <= MAX_OUTPUT_CHARS_UNBOUNDED + 400);
        assert!(big.contains("the first 1000 shown"), "the limit, not the size, cut the unbounded one");
        assert!(shown.starts_with(&format!("{}:1:M line 0\n", deep.join("f00.txt").display())));
    }

    #[test]
    fn files_over_the_size_limit_and_endless_lines_are_noted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("big.txt"), "needle\n".repeat(900_000)).unwrap();
        let mut long = b"needle at the start\n".to_vec();
        long.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        long.extend(b"\nneedle after the long line\n");
        std::fs::write(root.join("long.txt"), long).unwrap();
        let limits = SearchLimits { max_file_size: 6_000_000, ..LIMITS };
        let out = run_with(&root, input("needle"), limits);
        let long = root.join("long.txt").display().to_string();
        assert!(out.starts_with(&format!("{long}:1:needle at the start\n")), "{out}");
        assert!(!out.contains("after the long line"), "{out}");
        assert!(
            out.contains("[1 files larger than this server's --max-file-size (6000000 bytes) were not searched."),
            "{out}"
        );
        assert!(out.contains("[1 files have a line longer than 4 MiB"), "{out}");
        assert!(!out.contains("big.txt"), "{out}");
    }

    #[test]
    fn a_cancelled_search_stops_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.txt"), "needle\n").unwrap();
        let sandbox = Sandbox::new([&root]).unwrap();
        let query = Query::new(&input("needle")).unwrap();
        let places = places(&sandbox, None).unwrap();
        let cancel = CancellationToken::new();
        cancel.cancel();
        let error = search(&sandbox, &places, &query, LIMITS, &cancel).unwrap_err();
        assert_eq!(error.code, ErrorCode::Cancelled);
        // A reader stops at its next read once cancelled.
        let mut reader = Cancellable { inner: &b"abc"[..], cancel };
        assert!(reader.read(&mut [0; 3]).is_err());
    }

    #[test]
    fn costly_and_overlong_patterns_are_refused_with_what_to_do() {
        let error = Query::new(&input(r"\w{5000}")).err().unwrap();
        assert_eq!(error.code, ErrorCode::InvalidArgs);
        assert!(error.message.contains("too costly to compile"), "{}", error.message);
        let error = Query::new(&input(&"a".repeat(MAX_PATTERN_BYTES + 1))).err().unwrap();
        assert!(error.message.contains("at most 16384"), "{}", error.message);
        let error = Query::new(&SearchTextInput { glob: Some("*".repeat(MAX_PATTERN_BYTES + 1)), ..input("x") });
        assert!(error.err().unwrap().message.contains("`glob` is"));
    }
}
