//! What the bridge takes from a host, bounded and confined on the bridge's side: an extension is
//! code the bridge does not control, so its answers are held to the protocol's own limits before
//! a model sees them. Lists are cut to [`MAX_LOCATIONS`] / [`MAX_DIAGNOSTICS`] (the rest counted
//! as the protocol counts it), texts to a length, and a path that is not a workspace path (an
//! absolute path, one that climbs out with `..`) is never shown as one: a location there becomes
//! an external file named by its last component, anything else is dropped and counted.

use super::{
    DiagnosticsResult, HoverResult, Location, LocationsResult, MAX_DIAGNOSTICS, MAX_LOCATIONS, OpenDiffResult,
    RenameResult, Symbol, SymbolsResult,
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

/// `text` cut to [`MAX_TEXT_CHARS`].
pub(super) fn cut_text(text: &mut String) {
    cut(text, MAX_TEXT_CHARS);
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
            cut(external, MAX_TEXT_CHARS);
            self.text = None;
        }
        if let Some(text) = &mut self.text {
            cut(text, MAX_TEXT_CHARS);
        }
        self
    }
}

impl Untrusted for LocationsResult {
    fn bounded(mut self) -> LocationsResult {
        if self.locations.len() > MAX_LOCATIONS {
            self.truncated = self.truncated.saturating_add((self.locations.len() - MAX_LOCATIONS) as u64);
            self.locations.truncate(MAX_LOCATIONS);
        }
        self.locations = self.locations.into_iter().map(Untrusted::bounded).collect();
        self
    }
}

impl Untrusted for HoverResult {
    fn bounded(mut self) -> HoverResult {
        let mut room = MAX_HOVER_CHARS;
        self.contents.retain_mut(|part| {
            if room == 0 {
                return false;
            }
            cut(part, room);
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
        cut(&mut symbol.name, MAX_TEXT_CHARS);
        for text in [&mut symbol.detail, &mut symbol.container].into_iter().flatten() {
            cut(text, MAX_TEXT_CHARS);
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
        let left_out = bound_symbols(&mut self.symbols, &mut room, 0);
        self.truncated = self.truncated.saturating_add(left_out);
        self
    }
}

impl Untrusted for RenameResult {
    fn bounded(mut self) -> RenameResult {
        self.files.retain(|file| is_workspace_path(&file.path));
        self.files.truncate(MAX_RENAME_FILES);
        for file in &mut self.files {
            for text in [&mut file.before, &mut file.after] {
                if text.as_ref().is_some_and(|t| t.len() > MAX_HOST_TEXT_BYTES) {
                    *text = None;
                }
            }
        }
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
            cut(&mut d.message, MAX_TEXT_CHARS * 4);
            for text in [&mut d.source, &mut d.code].into_iter().flatten() {
                cut(text, MAX_TEXT_CHARS);
            }
        }
        self.truncated = self.truncated.saturating_add(left_out);
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
        assert_eq!((result.symbols.len(), result.truncated), (MAX_LOCATIONS, 1500));
        assert!(
            result
                .symbols
                .iter()
                .all(|s| s.name.chars().count() <= MAX_TEXT_CHARS + 1 && s.path.as_deref() != Some("/etc/passwd"))
        );
    }
}
