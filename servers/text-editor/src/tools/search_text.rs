//! `search_text`: ripgrep's search over the workspace, on ripgrep's own crates (`grep-regex`,
//! `grep-searcher`; `.gitignore` rules through the shared sandbox's walker, which opens every
//! directory and file beneath its parent's handle and never follows a symlink).
//!
//! Output: one line per matching line, `ABSOLUTE_PATH:LINE:TEXT` (context lines
//! `ABSOLUTE_PATH-LINE-TEXT`, groups separated by `--`, as `rg -n --no-heading` prints them),
//! files in path order, at most `limit` matching lines, then one line saying how many more
//! matches (and files) were left out. Hidden files and directories, `.gitignore`d / `.ignore`d
//! paths (also outside a git repository) and binary files (a NUL byte) are skipped, as ripgrep
//! skips them; a file that is not UTF-8 is searched in the encoding the editor detects for it
//! (Latin-1, Shift_JIS, UTF-16, …), so `café` finds `caf\xE9`.

use std::{
    borrow::Cow,
    io::{Read, Seek, SeekFrom},
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicUsize, Ordering},
    },
};

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch};
use ignore::overrides::{Override, OverrideBuilder};
use mcp_shared::{
    ContentItem, ErrorCode, Tool, ToolContext, ToolOutput,
    reexports::rmcp::model::ToolAnnotations,
    sandbox::{FileEntry, Sandbox, SandboxPath, WalkOptions},
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{
    document::{self, TextEncoding},
    error::ToolError,
    workspace::EditorRoots,
};

/// The default `limit`.
pub const DEFAULT_LIMIT: usize = 100;
/// The largest `limit`.
pub const MAX_LIMIT: usize = 1_000;
/// The most context lines.
pub const MAX_CONTEXT: usize = 10;
/// A shown line is cut after this many characters.
pub const MAX_LINE_CHARS: usize = 400;
/// Files handed to a search thread at once, in walk order.
const BATCH: usize = 64;

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

/// The tool.
pub struct SearchText {
    workspace: Arc<EditorRoots>,
}

impl SearchText {
    /// The tool over `workspace`.
    pub fn new(workspace: Arc<EditorRoots>) -> SearchText {
        SearchText { workspace }
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

impl Query {
    /// Checks `input`'s pattern, glob and numbers.
    pub fn new(input: &SearchTextInput) -> Result<Query, ToolError> {
        if input.pattern.is_empty() {
            return Err(ToolError::new(
                ErrorCode::InvalidArgs,
                "`pattern` is empty: give the text or regular expression to look for.",
            ));
        }
        let mut builder = RegexMatcherBuilder::new();
        builder
            .case_insensitive(input.ignore_case.unwrap_or(false))
            .fixed_strings(input.literal.unwrap_or(false))
            .line_terminator(Some(b'\n'));
        let matcher = builder.build(&input.pattern).map_err(|e| {
            ToolError::new(
                ErrorCode::InvalidArgs,
                format!(
                    "`pattern` is not a valid regular expression: {e}. Escape special characters (e.g. `\\(`), or pass `literal: true` to search for the text as it is."
                ),
            )
        })?;
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
        Ok(Query { matcher, context, limit, glob: input.glob.clone().filter(|g| !g.is_empty()) })
    }
}

/// Where to search: the resolved directory or file, and the absolute path it is shown under.
struct Place {
    path: SandboxPath,
    shown: PathBuf,
}

/// The matches of one file, as shown lines; `matches` counts every matching line.
#[derive(Default)]
struct FileResult {
    lines: Vec<String>,
    matches: usize,
}

/// The report of a whole search.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The shown lines.
    pub lines: Vec<String>,
    /// Matching lines in all.
    pub matches: usize,
    /// Files with a match.
    pub files_matched: usize,
    /// Matching lines not shown, and in how many files they are.
    pub more: (usize, usize),
    /// Files searched.
    pub files_searched: usize,
}

/// Searches `places` for `query` (blocking; run it on a blocking thread). The walk runs on this
/// thread and hands batches of files to rayon's threads as it goes, so reading overlaps walking;
/// the batches' results are put back in walk order, so the output is the same on every run.
fn search(sandbox: &Sandbox, places: &[Place], query: &Query) -> Result<Report, ToolError> {
    let mut report = Report::default();
    for place in places {
        let filter = glob_filter(&place.shown, query.glob.as_deref())?;
        let results: Mutex<Vec<(usize, Vec<FileResult>)>> = Mutex::new(Vec::new());
        // Matching lines found so far (any order): later batches keep fewer lines.
        let found = AtomicUsize::new(0);
        let mut searched = 0usize;
        let walked = rayon::in_place_scope(|scope| {
            let mut batch: Vec<(FileEntry, PathBuf)> = Vec::with_capacity(BATCH);
            let mut index = 0usize;
            let (results, found) = (&results, &found);
            let flush = |batch: Vec<(FileEntry, PathBuf)>, index: usize| {
                scope.spawn(move |_| {
                    let keep = query.limit.saturating_sub(found.load(Ordering::Relaxed));
                    let out: Vec<FileResult> =
                        batch.iter().map(|(entry, shown)| search_one(|| entry.open(), shown, query, keep)).collect();
                    found.fetch_add(out.iter().map(|r| r.matches).sum(), Ordering::Relaxed);
                    results.lock().unwrap_or_else(PoisonError::into_inner).push((index, out));
                });
            };
            let walked = sandbox.each_file(&place.path, &WalkOptions::default(), &mut |entry| {
                if filter.as_ref().is_some_and(|o| o.matched(&entry.rel, false).is_ignore()) {
                    return;
                }
                searched += 1;
                let shown = place.shown.join(&entry.rel);
                batch.push((entry, shown));
                if batch.len() == BATCH {
                    flush(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)), index);
                    index += 1;
                }
            });
            if !batch.is_empty() {
                flush(batch, index);
            }
            walked
        });
        match walked {
            Ok(_) => {}
            Err(mcp_shared::sandbox::SandboxError::NotADirectory { .. }) => {
                // A single file: searched whatever its name (as `rg PATTERN FILE`).
                let file = sandbox.open_read(&place.path).map_err(ToolError::from)?;
                report.files_searched += 1;
                let result = search_one(|| file.try_clone(), &place.shown, query, query.limit);
                add(&mut report, result, query);
                continue;
            }
            Err(e) => return Err(e.into()),
        }
        report.files_searched += searched;
        let mut results = results.into_inner().unwrap_or_else(PoisonError::into_inner);
        results.sort_unstable_by_key(|(index, _)| *index);
        for (_, batch) in results {
            for result in batch {
                add(&mut report, result, query);
            }
        }
    }
    Ok(report)
}

impl Report {
    /// Matching lines shown so far.
    fn lines_matched(&self) -> usize {
        self.matches - self.more.0
    }
}

/// Adds one file's result, keeping at most `query.limit` matching lines shown.
fn add(report: &mut Report, result: FileResult, query: &Query) {
    if result.matches == 0 {
        return;
    }
    report.files_matched += 1;
    let room = query.limit.saturating_sub(report.lines_matched());
    let shown_matches = result.matches.min(room).min(count_matching(&result.lines));
    if shown_matches > 0 {
        // Groups of context lines are separated by `--`, also from one file to the next.
        if query.context > 0 && !report.lines.is_empty() {
            report.lines.push("--".into());
        }
        let mut taken = 0;
        for line in result.lines {
            if is_match_line(&line) {
                if taken == shown_matches {
                    break;
                }
                taken += 1;
            }
            report.lines.push(line);
        }
        while report.lines.last().is_some_and(|l| l == "--") {
            report.lines.pop();
        }
    }
    report.matches += result.matches;
    let hidden = result.matches - shown_matches;
    if hidden > 0 {
        report.more.0 += hidden;
        report.more.1 += 1;
    }
}

/// Shown lines are `PATH:N:TEXT` (a match), `PATH-N-TEXT` (context) or `--`; a match line is
/// marked by a NUL we put after the path, removed when rendering.
fn is_match_line(line: &str) -> bool {
    line.contains('\u{0}')
}

fn count_matching(lines: &[String]) -> usize {
    lines.iter().filter(|l| is_match_line(l)).count()
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

/// Searches one file (opened by `open`), keeping at most `keep` matching lines.
fn search_one(
    open: impl FnOnce() -> std::io::Result<std::fs::File>,
    shown: &Path,
    query: &Query,
    keep: usize,
) -> FileResult {
    let Ok(mut file) = open() else { return FileResult::default() };
    // The encoding, from the first bytes (as the editor decides it); binary files are skipped.
    let mut head = [0u8; 8192];
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(_) => return FileResult::default(),
        }
    }
    let Ok(format) = document::sniff(&head[..filled], filled < head.len()) else {
        return FileResult::default();
    };
    if file.seek(SeekFrom::Start(0)).is_err() {
        return FileResult::default();
    }
    let mut builder = SearcherBuilder::new();
    builder
        .line_number(true)
        .before_context(query.context)
        .after_context(query.context)
        .binary_detection(BinaryDetection::quit(b'\x00'));
    if let TextEncoding::Legacy(encoding) = format.encoding
        && let Ok(encoding) = grep_searcher::Encoding::new(encoding.name())
    {
        builder.encoding(Some(encoding));
    }
    let mut searcher = builder.build();
    let mut sink = Collect { shown: shown.display().to_string(), keep, result: FileResult::default() };
    if searcher.search_file(&query.matcher, &file, &mut sink).is_err() {
        return FileResult::default();
    }
    sink.result
}

/// Collects shown lines and counts matches.
struct Collect {
    shown: String,
    keep: usize,
    result: FileResult,
}

impl Collect {
    fn line(&mut self, separator: &str, number: Option<u64>, bytes: &[u8]) {
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_end_matches(['\n', '\r']);
        let cut: Cow<'_, str> = match text.char_indices().nth(MAX_LINE_CHARS) {
            Some((at, _)) => {
                let rest = text[at..].chars().count();
                format!("{}… [{rest} more characters]", &text[..at]).into()
            }
            None => text.into(),
        };
        let marker = if separator == ":" { "\u{0}" } else { "" };
        self.result.lines.push(format!("{}{marker}{separator}{}{separator}{cut}", self.shown, number.unwrap_or(0)));
    }
}

impl Sink for Collect {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        self.result.matches += 1;
        if self.result.matches <= self.keep {
            self.line(":", mat.line_number(), mat.bytes());
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, context: &SinkContext<'_>) -> Result<bool, Self::Error> {
        // Context after the last kept match is still wanted; before a match that is not kept, not.
        let wanted = match context.kind() {
            SinkContextKind::Before => self.result.matches < self.keep,
            _ => self.result.matches <= self.keep,
        };
        if wanted {
            self.line("-", context.line_number(), context.bytes());
        }
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, Self::Error> {
        if self.result.matches < self.keep && !self.result.lines.is_empty() {
            self.result.lines.push("--".into());
        }
        Ok(true)
    }
}

/// The text a model reads.
pub fn render(report: &Report, pattern: &str, scope: &str, limit: usize) -> String {
    if report.matches == 0 {
        return format!(
            "No matches for {pattern:?} in {scope} ({} files searched; hidden, .gitignored and binary files are skipped).",
            report.files_searched
        );
    }
    let mut out = String::new();
    for line in &report.lines {
        out.push_str(&line.replacen('\u{0}', "", 1));
        out.push('\n');
    }
    if report.more.0 > 0 {
        out.push_str(&format!(
            "[{} more matches in {} files not shown: {} matching lines in {} files in all, the first {limit} shown. Narrow `pattern`, `path` or `glob`, or raise `limit` (at most {MAX_LIMIT}).]\n",
            report.more.0, report.more.1, report.matches, report.files_matched
        ));
    }
    out
}

/// The tool's description.
pub const DESCRIPTION: &str = "Search file contents under the workspace, like ripgrep (`rg -n`): a regular expression (Rust regex syntax) or, with `literal: true`, plain text. One line per matching line: `ABSOLUTE_PATH:LINE:TEXT`, files in path order; with `context`, surrounding lines as `ABSOLUTE_PATH-LINE-TEXT` and groups separated by `--`. At most `limit` matching lines (default 100), then a line saying how many more there are. Hidden files, .gitignored paths and binary files are skipped; files in other encodings (Latin-1, Shift_JIS, UTF-16, ...) are searched as text. Use `glob` to pick files (`*.rs`, `src/**/*.ts`) and `path` to search one directory or file.";

impl Tool for SearchText {
    type Params = SearchTextInput;

    fn name(&self) -> Cow<'static, str> {
        "search_text".into()
    }

    fn description(&self) -> Cow<'static, str> {
        DESCRIPTION.into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Search text").read_only(true).destructive(false).idempotent(true).open_world(false)
    }

    async fn run(&self, input: SearchTextInput, ctx: ToolContext) -> ToolOutput {
        let result = async {
            let query = Query::new(&input)?;
            let sandbox = self.workspace.sandbox(&ctx).await?;
            let places = places(&sandbox, input.path.as_deref())?;
            let scope = places.iter().map(|p| p.shown.display().to_string()).collect::<Vec<_>>().join(", ");
            let limit = query.limit;
            let work = tokio::task::spawn_blocking(move || search(&sandbox, &places, &query));
            let report = work.await.map_err(|_| {
                ToolError::new(
                    ErrorCode::InternalError,
                    "The search failed unexpectedly; the server logged the details; retry.",
                )
            })??;
            Ok::<_, ToolError>(render(&report, &input.pattern, &scope, limit))
        }
        .await;
        match result {
            Ok(text) => ToolOutput { content: vec![ContentItem::Text { text }] },
            Err(error) => error.into_output(),
        }
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
    use super::*;

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

    fn run(root: &Path, input: SearchTextInput) -> String {
        let sandbox = Sandbox::new([root]).unwrap();
        let query = Query::new(&input).unwrap();
        let places = places(&sandbox, input.path.as_deref()).unwrap();
        let report = search(&sandbox, &places, &query).unwrap();
        render(&report, &input.pattern, "root", query.limit)
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
}
