//! What the bridge showed of a change before it was applied: the last previews of `rename_symbol`,
//! `apply_code_action` and `format`, each under the call it answered (its wire params without
//! `apply`, `save` and the wait), so that the apply that follows is held to it. An apply whose
//! preview reached outside the workspace is never sent; before an apply is sent, the change is
//! previewed again, and when the files' texts before or after (their SHA-256) or anything else
//! moved since the preview, nothing is applied; an IDE that then applies something else than it
//! previewed (other files, other edit counts, another text, a command it did not name) is said so
//! in the answer, file by file.

use std::{collections::VecDeque, sync::Mutex};

use serde::Serialize;
use serde_json::Value;

use crate::protocol::RenameFile;

/// How many previews are remembered (the oldest go first).
const KEPT: usize = 32;

/// One file of a preview or of an apply: its path, its edits, the SHA-256 of its text after the
/// change (when the host sent it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// The workspace path (escaped, as shown).
    pub path: String,
    /// How many places change.
    pub edits: u32,
    /// The SHA-256 (hex) of the text before the change.
    pub before: Option<String>,
    /// The SHA-256 (hex) of the text after the change.
    pub after: Option<String>,
}

/// A change as the host described it: its files, the files it named outside the workspace, and
/// the command it runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Described {
    /// The workspace files.
    pub files: Vec<FileChange>,
    /// Files outside the workspace the host named (escaped).
    pub refused: Vec<String>,
    /// It runs an IDE command (`Some("")` when the host did not name it).
    pub command: Option<String>,
}

impl Described {
    /// The description of `files` (bounded already), `refused` and the command.
    pub fn of(files: &[RenameFile], refused: &[String], command: Option<String>) -> Described {
        let files = files
            .iter()
            .map(|f| FileChange {
                path: f.path.clone(),
                edits: f.edits,
                before: f.before.as_deref().map(|t| mcp_shared::view::sha256_hex(t.as_bytes())),
                after: f.after.as_deref().map(|t| mcp_shared::view::sha256_hex(t.as_bytes())),
            })
            .collect();
        Described { files, refused: refused.to_vec(), command }
    }

    /// How what was applied (`self`) differs from `preview`: one line per difference (none: the
    /// same change).
    pub fn differences(&self, preview: &Described) -> Vec<String> {
        let mut out = Vec::new();
        for shown in &preview.files {
            match self.files.iter().find(|f| f.path == shown.path) {
                None => out.push(format!(
                    "`{}`: in the preview ({} edit(s)), not in the IDE's change",
                    shown.path, shown.edits
                )),
                Some(done) if done.edits != shown.edits => out.push(format!(
                    "`{}`: the IDE's change has {} edit(s), the preview showed {}",
                    done.path, done.edits, shown.edits
                )),
                Some(done) if done.before.is_some() && shown.before.is_some() && done.before != shown.before => {
                    out.push(format!("`{}`: its text before the change is not the one the preview showed", done.path))
                }
                Some(done) if done.after.is_some() && shown.after.is_some() && done.after != shown.after => {
                    out.push(format!("`{}`: its text after the change is not the one the preview showed", done.path))
                }
                Some(_) => {}
            }
        }
        for done in self.files.iter().filter(|f| !preview.files.iter().any(|s| s.path == f.path)) {
            out.push(format!("`{}`: changed by the IDE ({} edit(s)), not in the preview", done.path, done.edits));
        }
        for outside in self.refused.iter().filter(|r| !preview.refused.contains(r)) {
            out.push(format!("`{outside}`: outside the workspace, named by the IDE's change, not in the preview"));
        }
        match (&preview.command, &self.command) {
            (None, Some(command)) => out.push(format!(
                "the IDE's change runs a command{} that the preview did not name",
                if command.is_empty() { String::new() } else { format!(" (`{command}`)") }
            )),
            (Some(shown), Some(ran)) if !shown.is_empty() && !ran.is_empty() && shown != ran => {
                out.push(format!("the IDE's change runs the command `{ran}`, the preview named `{shown}`"))
            }
            _ => {}
        }
        out
    }
}

/// The key of a call: the tool and its wire params without what only says whether to apply.
pub fn key_of<P: Serialize>(tool: &str, params: &P) -> String {
    let mut value = serde_json::to_value(params).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        for field in ["apply", "save", "waitMs"] {
            map.remove(field);
        }
    }
    format!("{tool} {value}")
}

/// The last previews, by key.
#[derive(Debug, Default)]
pub struct Previews {
    kept: Mutex<VecDeque<(String, Described)>>,
}

impl Previews {
    /// Remembers what the preview of `key` showed (replacing an older one of the same key).
    pub fn remember(&self, key: String, shown: Described) {
        let mut kept = self.kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.retain(|(k, _)| *k != key);
        if kept.len() >= KEPT {
            kept.pop_front();
        }
        kept.push_back((key, shown));
    }

    /// What the last preview of `key` showed, if it is remembered.
    pub fn recall(&self, key: &str) -> Option<Described> {
        let kept = self.kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.iter().rev().find(|(k, _)| k == key).map(|(_, shown)| shown.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, edits: u32, after: &str) -> RenameFile {
        RenameFile { path: path.into(), edits, before: Some(String::new()), after: Some(after.into()) }
    }

    #[test]
    fn an_apply_is_compared_with_its_preview_file_by_file() {
        let preview = Described::of(&[file("a.ts", 1, "new")], &[], None);
        assert!(preview.differences(&preview).is_empty());
        let other = Described::of(&[file("other.ts", 99, "x")], &[], Some("rm".into()));
        let said = other.differences(&preview);
        assert_eq!(
            said,
            [
                "`a.ts`: in the preview (1 edit(s)), not in the IDE's change",
                "`other.ts`: changed by the IDE (99 edit(s)), not in the preview",
                "the IDE's change runs a command (`rm`) that the preview did not name",
            ]
        );
        let changed = Described::of(&[file("a.ts", 1, "other text")], &[], None);
        assert_eq!(
            changed.differences(&preview),
            ["`a.ts`: its text after the change is not the one the preview showed"]
        );
        let mut moved = file("a.ts", 1, "new");
        moved.before = Some("edited meanwhile".into());
        assert_eq!(
            Described::of(&[moved], &[], None).differences(&preview),
            ["`a.ts`: its text before the change is not the one the preview showed"]
        );
        let more = Described::of(&[file("a.ts", 3, "new")], &["../x".into()], None);
        assert_eq!(more.differences(&preview).len(), 2);
    }

    #[test]
    fn keys_leave_out_apply_and_previews_are_bounded() {
        let a = key_of("format", &serde_json::json!({"path": "a.ts", "apply": false, "waitMs": 5}));
        let b = key_of("format", &serde_json::json!({"path": "a.ts", "apply": true}));
        assert_eq!(a, b);
        let previews = Previews::default();
        for i in 0..(KEPT + 5) {
            previews.remember(format!("k{i}"), Described::default());
        }
        assert!(previews.recall("k0").is_none() && previews.recall(&format!("k{}", KEPT + 4)).is_some());
    }
}
