//! Version 4 (`docs/ide-bridge-protocol.md` §4.18–§4.23): the rest of the language server.
//!
//! - `lang/implementations`: where an interface or abstract member is implemented (params
//!   [`SymbolAt`], result [`LocationsResult`]);
//! - `lang/callHierarchy`, `lang/typeHierarchy`: callers and callees, supertypes and subtypes, a
//!   few levels deep, flattened into [`HierarchyItem`]s;
//! - `lang/codeActions`, `lang/applyCodeAction`: the quick fixes and refactorings offered for a
//!   range, each with an id stable while the file is unchanged; one previewed (per-file old and
//!   new text) or applied;
//! - `lang/format`: the editor's own formatter, previewed or applied;
//! - `lang/signatureHelp`: the signatures of the call at a position, the active parameter marked.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    RenameFile, Resolved, SymbolAt,
    untrusted::{
        MAX_ANSWER_BYTES, MAX_TEXT_CHARS, SHORT_TEXT_CHARS, TruncateChars, bound_files, bound_resolved, cut_lines,
        cut_text, fit, shorten, shrink,
    },
};

/// `lang/implementations`: where the symbol is implemented.
pub const METHOD_IMPLEMENTATIONS: &str = "lang/implementations";
/// `lang/callHierarchy`: who calls the symbol, or what it calls.
pub const METHOD_CALL_HIERARCHY: &str = "lang/callHierarchy";
/// `lang/typeHierarchy`: a type's supertypes and subtypes.
pub const METHOD_TYPE_HIERARCHY: &str = "lang/typeHierarchy";
/// `lang/codeActions`: the quick fixes and refactorings for a range.
pub const METHOD_CODE_ACTIONS: &str = "lang/codeActions";
/// `lang/applyCodeAction`: one code action, previewed or applied.
pub const METHOD_APPLY_CODE_ACTION: &str = "lang/applyCodeAction";
/// `lang/format`: the editor's formatting of a file or a range, previewed or applied.
pub const METHOD_FORMAT: &str = "lang/format";
/// `lang/signatureHelp`: the parameters of the call at a position.
pub const METHOD_SIGNATURE_HELP: &str = "lang/signatureHelp";

/// The deepest a hierarchy goes.
pub const MAX_HIERARCHY_DEPTH: u32 = 3;
/// The most items a hierarchy answer carries (the rest counted in `truncated`).
pub const MAX_HIERARCHY_ITEMS: usize = 200;
/// The most code actions an answer carries.
pub const MAX_CODE_ACTIONS: usize = 100;

/// `lang/callHierarchy` and `lang/typeHierarchy` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HierarchyParams {
    /// The function, method or type.
    #[serde(flatten)]
    pub at: SymbolAt,
    /// Calls: `incoming` (callers) or `outgoing` (callees). Types: `supertypes`, `subtypes` or
    /// `both`.
    pub direction: String,
    /// How many levels, 1 to [`MAX_HIERARCHY_DEPTH`].
    pub depth: u32,
}

/// One item of a hierarchy: a caller or callee (where the call is), a supertype or subtype
/// (where it is declared).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HierarchyItem {
    /// `caller`, `callee`, `supertype` or `subtype`.
    pub relation: String,
    /// Its name (the calling or called function, the type).
    pub name: String,
    /// Its kind in lower case (`function`, `method`, `class`, `interface`, …).
    pub kind: String,
    /// The workspace file of the call (or of the type's declaration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A file outside the workspace: its name only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<String>,
    /// The line, from 1.
    pub line: u32,
    /// The column, from 1.
    pub column: u32,
    /// The line's text (workspace files only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Its level: 1 for direct callers, callees, parents or children.
    pub depth: u32,
    /// The item of the level above it (depth 2 and more): whose caller, callee or relative it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub of: Option<String>,
}

/// `lang/callHierarchy` and `lang/typeHierarchy` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HierarchyResult {
    /// The symbol the host looked up.
    pub resolved: Resolved,
    /// Whether the language server knows the symbol as a callable (or a type) at all: false, it
    /// has no hierarchy for it (or none for the language).
    pub found: bool,
    /// The items, level by level.
    pub items: Vec<HierarchyItem>,
    /// How many more there were beyond [`MAX_HIERARCHY_ITEMS`].
    #[serde(default)]
    pub truncated: u64,
    /// The language server was still starting when the wait ran out.
    #[serde(default)]
    pub loading: bool,
}

/// `lang/codeActions` params: a range of a file, and optionally the diagnostic to fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeActionsParams {
    /// The file.
    pub path: String,
    /// The range's first line, from 1.
    pub line: u32,
    /// Its last line (default: `line`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
    /// Only the actions that fix a diagnostic whose code or message contains this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostic: Option<String>,
    /// How long to wait for a language server that is still starting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_ms: Option<u64>,
}

/// One code action the language server offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CodeAction {
    /// Its id: the same for the same action while the file is unchanged (pass it to
    /// `apply_code_action`).
    pub id: String,
    /// What it does, as the IDE shows it.
    pub title: String,
    /// Its kind (`quickfix`, `refactor.extract.function`, `source.organizeImports`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The language server marks it as the preferred fix.
    #[serde(default)]
    pub preferred: bool,
    /// It changes files (previewable).
    pub edit: bool,
    /// It runs an IDE command (its effect cannot be previewed).
    pub command: bool,
    /// The diagnostics it fixes (their messages).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<String>,
}

/// `lang/codeActions` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeActionsResult {
    /// The actions, preferred fixes first.
    pub actions: Vec<CodeAction>,
    /// How many more there were (beyond [`MAX_CODE_ACTIONS`], or the answer's size bound).
    #[serde(default)]
    pub truncated: u64,
    /// The language server was still starting when the wait ran out.
    #[serde(default)]
    pub loading: bool,
    /// The file's language id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

/// `lang/applyCodeAction` params: the range the action was listed for, and its id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplyCodeActionParams {
    /// The range and diagnostic, as `lang/codeActions` was asked.
    #[serde(flatten)]
    pub range: CodeActionsParams,
    /// The action's id.
    pub id: String,
    /// `true`: apply it; `false`: only say what it would change.
    #[serde(default)]
    pub apply: bool,
    /// Save the files it changes (default: they are left unsaved in the editor).
    #[serde(default)]
    pub save: bool,
}

/// `lang/format` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FormatParams {
    /// The file.
    pub path: String,
    /// Only this range's first line (default: the whole file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The range's last line (default: `line`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
    /// `true`: apply and save; `false`: only say what would change.
    #[serde(default)]
    pub apply: bool,
    /// How long to wait for a language server that is still starting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_ms: Option<u64>,
}

/// `lang/applyCodeAction` and `lang/format` result: the files the edit changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EditResult {
    /// The code action's title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The files the edit changes (or changed), by path.
    pub files: Vec<RenameFile>,
    /// The edit was applied.
    #[serde(default)]
    pub applied: bool,
    /// The files were saved.
    #[serde(default)]
    pub saved: bool,
    /// The action runs an IDE command (its effect is not in `files`).
    #[serde(default)]
    pub command: bool,
    /// The command was run.
    #[serde(default)]
    pub ran: bool,
    /// The language server was still starting when the wait ran out (nothing changed).
    #[serde(default)]
    pub loading: bool,
    /// The command the action runs (its id, e.g. `editor.action.organizeImports`), when it runs
    /// one (the extension says it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_name: Option<String>,
    /// Not on the wire: the files the host named outside the workspace (escaped).
    #[serde(skip)]
    pub refused: Vec<String>,
    /// Not on the wire: how many workspace files were left out of `files` (the answer's bound).
    #[serde(skip)]
    pub files_left_out: u64,
}

/// One signature of a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Signature {
    /// The signature as the language shows it (`greet(name: string): string`).
    pub label: String,
    /// Its documentation (Markdown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documentation: Option<String>,
    /// Its parameters' labels (`name: string`).
    pub parameters: Vec<String>,
    /// The parameter the position is in, from 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_parameter: Option<u32>,
}

/// `lang/signatureHelp` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignatureHelpResult {
    /// Where the host found the text on its line (the position is just after it).
    pub resolved: Resolved,
    /// The call's signatures (overloads), empty when the position is not in a call.
    pub signatures: Vec<Signature>,
    /// The signature that fits the call, from 0.
    #[serde(default)]
    pub active_signature: u32,
    /// How many more signatures there were (the answer's bound).
    #[serde(default)]
    pub truncated: u64,
    /// The language server was still starting when the wait ran out.
    #[serde(default)]
    pub loading: bool,
}

impl super::Untrusted for HierarchyResult {
    fn bounded(mut self) -> HierarchyResult {
        bound_resolved(&mut self.resolved);
        if self.items.len() > MAX_HIERARCHY_ITEMS {
            self.truncated = self.truncated.saturating_add((self.items.len() - MAX_HIERARCHY_ITEMS) as u64);
            self.items.truncate(MAX_HIERARCHY_ITEMS);
        }
        for item in &mut self.items {
            // A level is 1 to the deepest asked for: the answer indents by it.
            item.depth = item.depth.clamp(1, MAX_HIERARCHY_DEPTH);
            if let Some(path) = item.path.take_if(|p| !super::is_workspace_path(p)) {
                item.external = Some(path.rsplit(['/', '\\']).next().unwrap_or_default().to_owned());
                item.text = None;
            }
            if let Some(external) = &mut item.external {
                *external = external.rsplit(['/', '\\']).next().unwrap_or_default().to_owned();
                item.text = None;
            }
            for text in [&mut item.name, &mut item.kind, &mut item.relation] {
                cut_text(text);
            }
            for text in [&mut item.text, &mut item.of, &mut item.external, &mut item.path].into_iter().flatten() {
                cut_text(text);
            }
        }
        shrink(&mut self.items, 2, |i, stage| match stage {
            0 => i.text.iter_mut().for_each(shorten),
            _ => i.text = None,
        });
        self.truncated = self.truncated.saturating_add(fit(&mut self.items, MAX_ANSWER_BYTES));
        self
    }
}

impl super::Untrusted for CodeActionsResult {
    fn bounded(mut self) -> CodeActionsResult {
        if self.actions.len() > MAX_CODE_ACTIONS {
            self.truncated = self.truncated.saturating_add((self.actions.len() - MAX_CODE_ACTIONS) as u64);
            self.actions.truncate(MAX_CODE_ACTIONS);
        }
        for action in &mut self.actions {
            for text in [&mut action.id, &mut action.title] {
                cut_text(text);
            }
            action.fixes.truncate(20);
            for text in action.kind.iter_mut().chain(action.fixes.iter_mut()) {
                cut_text(text);
            }
        }
        if let Some(language) = &mut self.language {
            cut_text(language);
        }
        // More actions, each said shorter: a title, its kind and what it fixes in brief.
        shrink(&mut self.actions, 2, |a, stage| {
            if stage == 0 {
                a.fixes.truncate(3);
                a.title.truncate_chars(2 * SHORT_TEXT_CHARS);
                a.kind.iter_mut().chain(a.fixes.iter_mut()).for_each(shorten);
            } else {
                a.fixes.clear();
                shorten(&mut a.title);
            }
        });
        self.truncated = self.truncated.saturating_add(fit(&mut self.actions, MAX_ANSWER_BYTES));
        self
    }
}

impl super::Untrusted for EditResult {
    fn bounded(mut self) -> EditResult {
        self.files_left_out = bound_files(&mut self.files, &mut self.refused);
        for text in [&mut self.title, &mut self.command_name].into_iter().flatten() {
            cut_text(text);
        }
        self
    }
}

impl super::Untrusted for SignatureHelpResult {
    fn bounded(mut self) -> SignatureHelpResult {
        bound_resolved(&mut self.resolved);
        if self.signatures.len() > 20 {
            self.truncated = self.truncated.saturating_add((self.signatures.len() - 20) as u64);
            self.signatures.truncate(20);
        }
        for signature in &mut self.signatures {
            cut_text(&mut signature.label);
            signature.parameters.truncate(64);
            for parameter in &mut signature.parameters {
                cut_text(parameter);
            }
            if let Some(doc) = &mut signature.documentation {
                cut_lines(doc, MAX_TEXT_CHARS * 4);
            }
        }
        shrink(&mut self.signatures, 2, |s, stage| {
            if stage == 0 {
                s.label.truncate_chars(2 * SHORT_TEXT_CHARS);
                s.parameters.iter_mut().chain(s.documentation.iter_mut()).for_each(shorten);
            } else {
                s.documentation = None;
                s.parameters.iter_mut().for_each(|p| p.truncate_chars(SHORT_TEXT_CHARS / 2));
            }
        });
        self.truncated = self.truncated.saturating_add(fit(&mut self.signatures, MAX_ANSWER_BYTES));
        self
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::Untrusted;

    #[test]
    fn params_are_written_as_the_protocol_says() {
        let at = SymbolAt { path: "src/a.ts".into(), line: 2, symbol: "greet".into(), column: None, wait_ms: Some(5) };
        let p = HierarchyParams { at, direction: "incoming".into(), depth: 2 };
        assert_eq!(
            serde_json::to_value(p).unwrap(),
            json!({"path": "src/a.ts", "line": 2, "symbol": "greet", "waitMs": 5, "direction": "incoming", "depth": 2})
        );
        let range = CodeActionsParams { path: "a.ts".into(), line: 1, end_line: None, diagnostic: None, wait_ms: None };
        let apply = ApplyCodeActionParams { range, id: "x1".into(), apply: true, save: false };
        assert_eq!(
            serde_json::to_value(apply).unwrap(),
            json!({"path": "a.ts", "line": 1, "id": "x1", "apply": true, "save": false})
        );
    }

    #[test]
    fn hierarchy_items_outside_the_workspace_are_named_only() {
        let item = |path: &str| HierarchyItem {
            relation: "caller".into(),
            name: "f".into(),
            kind: "function".into(),
            path: Some(path.into()),
            external: None,
            line: 1,
            column: 1,
            text: Some("secret".into()),
            depth: 1,
            of: None,
        };
        let result = HierarchyResult {
            resolved: Resolved::default(),
            found: true,
            items: vec![item("src/a.ts"), item("/etc/passwd"), item("../up.ts")],
            truncated: 0,
            loading: false,
        }
        .bounded();
        assert_eq!(result.items[0].path.as_deref(), Some("src/a.ts"));
        for outside in &result.items[1..] {
            assert!(outside.path.is_none() && outside.text.is_none() && outside.external.is_some(), "{outside:?}");
        }
    }
}
