//! What the bridge takes from a host, bounded and confined on the bridge's side: an extension is
//! code the bridge does not control, so its answers are held to the protocol's own limits before
//! a model sees them. Lists are cut to [`MAX_LOCATIONS`] / [`MAX_DIAGNOSTICS`] (the rest counted
//! as the protocol counts it), texts to a length, and a path that is not a workspace path (an
//! absolute path, one that climbs out with `..`) is never shown as one: a location there becomes
//! an external file named by its last component, anything else is dropped and counted (a file an
//! edit would change outside the workspace is named in `refused`, so that the answer says so).
//!
//! Every string is shown escaped ([`mcp_shared::escape`]: a newline, NUL or bidirectional control
//! in a name or title can never forge a line of the answer), every number that sizes something
//! the bridge makes is clamped, and every answer is bounded as a whole: its lists are cut to
//! [`MAX_ANSWER_BYTES`] of JSON ([`fit`]), the rest counted in `truncated`.

use mcp_shared::escape;
use serde::Serialize;

use super::{
    DiagnosticsResult, HoverResult, Location, LocationsResult, MAX_DIAGNOSTICS, MAX_LOCATIONS, OpenDiffResult,
    OpenEditorsResult, RenameFile, RenameResult, SelectionResult, Symbol, SymbolsResult,
};

/// The longest line text, name, detail or message kept (characters).
pub const MAX_TEXT_CHARS: usize = 400;
/// The longest hover kept, all parts together (characters).
pub const MAX_HOVER_CHARS: usize = 32_000;
/// The most files a rename lists.
pub const MAX_RENAME_FILES: usize = 500;
/// The largest text of a file a rename shows before and after, or a diff's final text (bytes):
/// past it the text is left out (the change is still reported).
pub const MAX_HOST_TEXT_BYTES: usize = 4 * 1024 * 1024;

/// A host's answer, held to the protocol's bounds.
pub trait Untrusted {
    /// The answer with every list, text and path within bounds.
    fn bounded(self) -> Self;
}

/// Whether `path` is a workspace path as the protocol writes them: relative (`src/a.ts`, or
/// `folder-name/…`), `/`-separated, never climbing out, no NUL, no drive or UNC prefix.
pub fn is_workspace_path(path: &str) -> bool {
    !path.is_empty()
        && !path.contains(['\0', '\\'])
        && !path.starts_with('/')
        && path.as_bytes().get(1).is_none_or(|&b| b != b':')
        && path.split('/').all(|part| part != ".." && !part.is_empty())
}

/// The most JSON one answer's items take (locations, actions, signatures, files, …): past it,
/// the rest is left out and counted. The text a model reads is about as long again.
pub const MAX_ANSWER_BYTES: usize = 48 * 1024;

/// A line's text in a list over [`MAX_ANSWER_BYTES`]: cut to this many characters before any
/// item is left out (the place matters more than the rest of its line).
pub const SHORT_TEXT_CHARS: usize = 80;

/// The longest selection text kept (characters).
pub const MAX_SELECTION_CHARS: usize = 32_000;

/// `text` on one line, escaped, and cut to [`MAX_TEXT_CHARS`].
pub(super) fn cut_text(text: &mut String) {
    escape::one_line_in_place(text);
    cut(text, MAX_TEXT_CHARS);
}

/// Multi-line `text` (Markdown, a message), escaped but for its newlines and tabs, cut to `max`.
pub(super) fn cut_lines(text: &mut String, max: usize) {
    escape::lines_in_place(text);
    cut(text, max);
}

/// Keeps the first items of `items` whose JSON fits in `budget` bytes (at least none, at most
/// all); how many were left out.
pub fn fit<T: Serialize>(items: &mut Vec<T>, budget: usize) -> u64 {
    let mut used = 0usize;
    let keep = items
        .iter()
        .position(|item| {
            used = used.saturating_add(serde_json::to_string(item).map_or(usize::MAX, |s| s.len() + 1));
            used > budget
        })
        .unwrap_or(items.len());
    let left_out = (items.len() - keep) as u64;
    items.truncate(keep);
    left_out
}

/// Whether the JSON of `items` is over `budget` bytes.
pub(super) fn over<T: Serialize>(items: &[T], budget: usize) -> bool {
    serde_json::to_string(items).map_or(true, |s| s.len() > budget)
}

/// Makes `items` shorter, stage after stage (`stage(item, n)` for `n` in `0..stages`), while
/// their JSON is over [`MAX_ANSWER_BYTES`]: the places are kept, what is said of each is cut
/// (then [`fit`] leaves out what still does not fit).
pub(super) fn shrink<T: Serialize>(items: &mut [T], stages: usize, stage: impl Fn(&mut T, usize)) {
    for n in 0..stages {
        if !over(items, MAX_ANSWER_BYTES) {
            return;
        }
        items.iter_mut().for_each(|item| stage(item, n));
    }
}

/// `text` cut to [`SHORT_TEXT_CHARS`] (an answer over its bound keeps more places that way).
pub(super) fn shorten(text: &mut String) {
    cut(text, SHORT_TEXT_CHARS);
}

/// A text cut to a number of characters, an ellipsis marking the cut.
pub(super) trait TruncateChars {
    /// Cuts to `max` characters.
    fn truncate_chars(&mut self, max: usize);
}

impl TruncateChars for String {
    fn truncate_chars(&mut self, max: usize) {
        cut(self, max);
    }
}

/// Where the host found a symbol, its language id escaped.
pub(super) fn bound_resolved(resolved: &mut super::Resolved) {
    if let Some(language) = &mut resolved.language {
        cut_text(language);
    }
}

/// A path the host named outside the workspace, as an answer names it: escaped and cut.
pub(super) fn refused_name(path: &str) -> String {
    let mut shown = path.to_owned();
    cut_text(&mut shown);
    shown
}

/// The files of an edit (a rename, a code action, formatting), held to the protocol: those
/// outside the workspace taken out and named in `refused`, at most [`MAX_RENAME_FILES`] kept
/// (the rest counted in the returned number), texts over [`MAX_HOST_TEXT_BYTES`] left out,
/// paths escaped.
pub(super) fn bound_files(files: &mut Vec<RenameFile>, refused: &mut Vec<String>) -> u64 {
    let mut kept = Vec::with_capacity(files.len().min(MAX_RENAME_FILES));
    for mut file in files.drain(..) {
        if !is_workspace_path(&file.path) {
            if refused.len() < MAX_RENAME_FILES {
                refused.push(refused_name(&file.path));
            }
            continue;
        }
        for text in [&mut file.before, &mut file.after] {
            if text.as_ref().is_some_and(|t| t.len() > MAX_HOST_TEXT_BYTES) {
                *text = None;
            }
        }
        cut_text(&mut file.path);
        kept.push(file);
    }
    let mut left_out = kept.len().saturating_sub(MAX_RENAME_FILES) as u64;
    kept.truncate(MAX_RENAME_FILES);
    *files = kept;
    // The texts are not shown whole (a diff of each is, bounded on its own): only the names
    // and counts count here.
    let mut names: Vec<(&str, u32)> = files.iter().map(|f| (f.path.as_str(), f.edits)).collect();
    // Half the bound: each file's diff is shown beside it.
    left_out += fit(&mut names, MAX_ANSWER_BYTES / 2);
    let keep = names.len();
    files.truncate(keep);
    left_out
}

/// `text` cut to `max` characters (an ellipsis marks the cut).
fn cut(text: &mut String, max: usize) {
    if let Some((at, _)) = text.char_indices().nth(max) {
        text.truncate(at);
        text.push('…');
    }
}

impl Untrusted for Location {
    fn bounded(mut self) -> Location {
        if let Some(path) = self.path.take() {
            if is_workspace_path(&path) {
                self.path = Some(path);
            } else {
                // Not in the workspace: named only, its text never shown.
                let name = path.rsplit(['/', '\\']).next().unwrap_or_default().to_owned();
                self.external = Some(name);
                self.text = None;
            }
        }
        if let Some(external) = &mut self.external {
            let name = external.rsplit(['/', '\\']).next().unwrap_or_default().to_owned();
            *external = name;
            cut_text(external);
            self.text = None;
        }
        for text in [&mut self.path, &mut self.text].into_iter().flatten() {
            cut_text(text);
        }
        self
    }
}

impl Untrusted for LocationsResult {
    fn bounded(mut self) -> LocationsResult {
        bound_resolved(&mut self.resolved);
        if self.locations.len() > MAX_LOCATIONS {
            self.truncated = self.truncated.saturating_add((self.locations.len() - MAX_LOCATIONS) as u64);
            self.locations.truncate(MAX_LOCATIONS);
        }
        self.locations = self.locations.into_iter().map(Untrusted::bounded).collect();
        shrink(&mut self.locations, 3, |l, stage| match stage {
            0 => l.text.iter_mut().for_each(shorten),
            1 => l.text.iter_mut().for_each(|t| cut(t, SHORT_TEXT_CHARS / 2)),
            _ => l.text = None,
        });
        self.truncated = self.truncated.saturating_add(fit(&mut self.locations, MAX_ANSWER_BYTES));
        self
    }
}

impl Untrusted for HoverResult {
    fn bounded(mut self) -> HoverResult {
        bound_resolved(&mut self.resolved);
        let mut room = MAX_HOVER_CHARS;
        self.contents.retain_mut(|part| {
            if room == 0 {
                return false;
            }
            cut_lines(part, room);
            room = room.saturating_sub(part.chars().count());
            true
        });
        self
    }
}

/// Keeps at most `room` symbols of `symbols` (depth first), each bounded; how many were left out.
fn bound_symbols(symbols: &mut Vec<Symbol>, room: &mut usize, depth: usize) -> u64 {
    let mut left_out = 0u64;
    symbols.retain_mut(|symbol| {
        if *room == 0 || symbol.path.as_deref().is_some_and(|p| !is_workspace_path(p)) {
            left_out += 1 + count(&symbol.children);
            return false;
        }
        *room -= 1;
        cut_text(&mut symbol.name);
        cut_text(&mut symbol.kind);
        for text in [&mut symbol.detail, &mut symbol.container, &mut symbol.path].into_iter().flatten() {
            cut_text(text);
        }
        if depth >= 32 {
            left_out += count(&symbol.children);
            symbol.children.clear();
        } else {
            left_out += bound_symbols(&mut symbol.children, room, depth + 1);
        }
        true
    });
    left_out
}

fn count(symbols: &[Symbol]) -> u64 {
    symbols.iter().map(|s| 1 + count(&s.children)).sum()
}

impl Untrusted for SymbolsResult {
    fn bounded(mut self) -> SymbolsResult {
        let mut room = MAX_LOCATIONS;
        let mut left_out = bound_symbols(&mut self.symbols, &mut room, 0);
        let before: Vec<u64> = self.symbols.iter().map(|s| 1 + count(&s.children)).collect();
        fit(&mut self.symbols, MAX_ANSWER_BYTES);
        left_out += before[self.symbols.len()..].iter().sum::<u64>();
        self.truncated = self.truncated.saturating_add(left_out);
        if let Some(language) = &mut self.language {
            cut_text(language);
        }
        self
    }
}

impl Untrusted for RenameResult {
    fn bounded(mut self) -> RenameResult {
        bound_resolved(&mut self.resolved);
        self.files_left_out = bound_files(&mut self.files, &mut self.refused);
        self
    }
}

impl Untrusted for OpenDiffResult {
    fn bounded(mut self) -> OpenDiffResult {
        if self.final_text.as_ref().is_some_and(|t| t.len() > MAX_HOST_TEXT_BYTES) {
            self.final_text = None;
        }
        self
    }
}

impl Untrusted for DiagnosticsResult {
    fn bounded(mut self) -> DiagnosticsResult {
        let before = self.diagnostics.len();
        self.diagnostics.retain(|d| is_workspace_path(&d.path));
        let mut left_out = (before - self.diagnostics.len()) as u64;
        if self.diagnostics.len() > MAX_DIAGNOSTICS {
            left_out += (self.diagnostics.len() - MAX_DIAGNOSTICS) as u64;
            self.diagnostics.truncate(MAX_DIAGNOSTICS);
        }
        for d in &mut self.diagnostics {
            cut_text(&mut d.path);
            cut_lines(&mut d.message, MAX_TEXT_CHARS * 4);
            for text in [&mut d.source, &mut d.code].into_iter().flatten() {
                cut_text(text);
            }
        }
        left_out += fit(&mut self.diagnostics, MAX_ANSWER_BYTES);
        self.truncated = self.truncated.saturating_add(left_out);
        self
    }
}

impl Untrusted for OpenEditorsResult {
    fn bounded(mut self) -> OpenEditorsResult {
        let before = self.editors.len();
        self.editors.retain(|e| is_workspace_path(&e.path));
        let mut outside = (before - self.editors.len()) as u64;
        self.editors.truncate(MAX_LOCATIONS);
        for editor in &mut self.editors {
            cut_text(&mut editor.path);
            if let Some(language) = &mut editor.language {
                cut_text(language);
            }
        }
        fit(&mut self.editors, MAX_ANSWER_BYTES);
        outside = outside.saturating_add(self.outside);
        self.outside = outside;
        self
    }
}

impl Untrusted for SelectionResult {
    fn bounded(mut self) -> SelectionResult {
        if self.selection.as_ref().is_some_and(|s| !is_workspace_path(&s.path)) {
            self.selection = None;
        }
        if let Some(selection) = &mut self.selection {
            cut_text(&mut selection.path);
            if selection.text.chars().nth(MAX_SELECTION_CHARS).is_some() {
                cut(&mut selection.text, MAX_SELECTION_CHARS);
                selection.text_truncated = true;
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Resolved;

    fn location(path: &str) -> Location {
        Location {
            path: Some(path.into()),
            external: None,
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 2,
            text: Some("root:$6$secret".into()),
        }
    }

    #[test]
    fn workspace_paths_are_relative_and_stay_inside() {
        for good in ["a.ts", "src/a.ts", "folder-name/src/a.ts", "a..b/c.ts"] {
            assert!(is_workspace_path(good), "{good}");
        }
        for bad in ["/etc/shadow", "../x", "src/../../x", "C:/x", "c:\\x", "\\\\srv\\x", "", "a\0b", "a//b"] {
            assert!(!is_workspace_path(bad), "{bad:?}");
        }
    }

    #[test]
    fn a_hosts_flood_and_paths_outside_are_held_to_the_protocol() {
        let mut locations: Vec<Location> = (0..100_003).map(|i| location(&format!("src/f{i}.ts"))).collect();
        locations[0] = location("/etc/shadow");
        locations[1] = location("../../home/u/.ssh/id_rsa");
        let result =
            LocationsResult { resolved: Resolved::default(), locations, truncated: 0, loading: false }.bounded();
        assert_eq!((result.locations.len(), result.truncated), (MAX_LOCATIONS, 100_003 - MAX_LOCATIONS as u64));
        for (i, name) in [(0, "shadow"), (1, "id_rsa")] {
            let l = &result.locations[i];
            assert_eq!((l.path.as_deref(), l.external.as_deref(), l.text.as_deref()), (None, Some(name), None));
        }
        let final_text = Some("x".repeat(MAX_HOST_TEXT_BYTES + 1));
        let diff = OpenDiffResult {
            path: "a.ts".into(),
            status: crate::protocol::DiffStatus::Accepted,
            final_text,
            user_edited: false,
            created: false,
            reused: false,
        }
        .bounded();
        assert_eq!(diff.final_text, None);
        let symbols = (0..2000)
            .map(|i| Symbol {
                name: "n".repeat(10_000),
                kind: "function".into(),
                detail: None,
                container: None,
                path: Some(if i == 0 { "/etc/passwd".into() } else { format!("s{i}.ts") }),
                line: 1,
                end_line: 1,
                children: Vec::new(),
            })
            .collect();
        let result = SymbolsResult { symbols, truncated: 0, loading: false, language: None }.bounded();
        // 500 symbols of 400-character names are more than one answer holds: it is cut to its
        // bound, and every symbol left out is counted.
        assert!(result.symbols.len() < MAX_LOCATIONS, "{}", result.symbols.len());
        assert_eq!(result.symbols.len() as u64 + result.truncated, 2000);
        assert!(serde_json::to_string(&result.symbols).unwrap().len() <= MAX_ANSWER_BYTES);
        assert!(
            result
                .symbols
                .iter()
                .all(|s| s.name.chars().count() <= MAX_TEXT_CHARS + 1 && s.path.as_deref() != Some("/etc/passwd"))
        );
    }
}
