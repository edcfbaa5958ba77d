//! `code_actions {path, line, end_line?, diagnostic?, wait_ms?}`: the quick fixes and refactorings
//! the IDE's language server offers for a range, each with an id for `apply_code_action`.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolOutput, ToolResult,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use super::lang;
use crate::{
    bridge::Bridge,
    protocol::{CodeAction, CodeActionsResult, METHOD_CODE_ACTIONS},
};

/// The tool's name.
pub const NAME: &str = "code_actions";

/// Declares an input naming a range of a file and optionally the diagnostic to fix (`path`,
/// `line`, `end_line?`, `diagnostic?`, the tool's own fields, `wait_ms?`): `code_actions`' and
/// `apply_code_action`'s, written once (serde's `flatten` cannot refuse unknown fields).
macro_rules! range_params {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$field_meta:meta])* pub $field:ident: $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Debug, serde::Deserialize, schemars::JsonSchema, garde::Validate)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The file, as find_definition's `path`.
            #[garde(length(min = 1))]
            pub path: String,
            /// The range's first line, from 1.
            #[garde(range(min = 1))]
            pub line: u32,
            /// Its last line (default: `line`).
            #[garde(inner(range(min = 1)))]
            #[serde(default)]
            pub end_line: Option<u32>,
            /// Only fixes of diagnostics whose code or message contains this.
            #[garde(inner(length(min = 1, max = 256)))]
            #[serde(default)]
            pub diagnostic: Option<String>,
            $($(#[$field_meta])* pub $field: $ty,)*
            /// Wait for a starting language server, in ms (default 10000, at most 20000).
            #[garde(inner(range(max = $crate::protocol::MAX_LANG_WAIT_MS)))]
            #[serde(default)]
            pub wait_ms: Option<u64>,
        }

        impl $name {
            /// The wire's range (the path made the host's) and the wait.
            pub async fn range(&self, bridge: &$crate::bridge::Bridge) -> ($crate::protocol::CodeActionsParams, u64) {
                let wait = $crate::tools::lang::wait_ms(bridge, self.wait_ms);
                let params = $crate::protocol::CodeActionsParams {
                    path: $crate::tools::host_path(bridge, &self.path).await,
                    line: self.line,
                    end_line: self.end_line,
                    diagnostic: self.diagnostic.clone(),
                    wait_ms: Some(wait),
                };
                (params, wait)
            }

            /// `path:line` or `path:line-end`.
            pub fn shown(&self) -> String {
                match self.end_line.filter(|end| *end != self.line) {
                    Some(end) => format!("{}:{}-{end}", self.path, self.line),
                    None => format!("{}:{}", self.path, self.line),
                }
            }
        }
    };
}

pub(crate) use range_params;

range_params! {
    /// The input of `code_actions`: a range of a file, and optionally the diagnostic to fix.
    pub struct CodeActionsInput {}
}

/// The structured result of `code_actions`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CodeActionsOutput {
    /// The actions: `{id, title, kind, preferred, edit, command, fixes}`.
    pub actions: Vec<CodeAction>,
    /// The file's language id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// How many more actions there were, not listed (the answer's bound).
    #[serde(skip_serializing_if = "is_zero")]
    pub truncated: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// `code_actions`.
#[derive(Debug, Clone)]
pub struct CodeActions {
    bridge: Bridge,
}

impl CodeActions {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        CodeActions { bridge }
    }
}

impl Tool for CodeActions {
    type Params = CodeActionsInput;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("code_actions lists the IDE's quick fixes for lines; apply_code_action previews or applies one.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "The quick fixes and refactorings the IDE's language server offers for lines `line`..`end_line` \
         of `path` (add a missing import, implement an interface, remove what is unused, …), each \
         `[id] title (kind)`. Pass the id to apply_code_action. Needs the VS Code extension."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Code actions")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<CodeActionsOutput>())
    }

    async fn run(&self, input: CodeActionsInput, _ctx: ToolContext) -> ToolResult {
        let (wire, wait) = input.range(&self.bridge).await;
        let result = lang::ask::<_, CodeActionsResult>(&self.bridge, METHOD_CODE_ACTIONS, &wire, wait, NAME).await?;
        if result.loading {
            return Err(lang::still_loading(None, result.language.as_deref(), &input.shown(), wait));
        }
        let mut text = if result.actions.is_empty() {
            format!(
                "No code actions for {}{}.",
                mcp_shared::escape::one_line(&input.shown()),
                input.diagnostic.as_deref().map(|d| format!(" fixing `{}`", mcp_shared::escape::one_line(d))).unwrap_or_default()
            )
        } else {
            format!(
                "{}{} code action(s) for {} (apply one with apply_code_action and its id):",
                result.actions.len(),
                if result.truncated > 0 { "+" } else { "" },
                mcp_shared::escape::one_line(&input.shown())
            )
        };
        for action in &result.actions {
            let mut notes: Vec<String> = action.kind.iter().cloned().collect();
            if action.preferred {
                notes.push("preferred".into());
            }
            if action.command {
                notes.push(
                    if action.edit { "also runs an IDE command, confirmed in the IDE" } else { "runs an IDE command: no preview, confirmed in the IDE" }
                        .into(),
                );
            }
            text.push_str(&format!("\n[{}] {} ({})", action.id, action.title, notes.join("; ")));
            for fix in &action.fixes {
                text.push_str(&format!("\n    fixes: {fix}"));
            }
        }
        if result.truncated > 0 {
            text.push_str(&format!("\n… and {} more, not listed (narrow the lines or pass `diagnostic`).", result.truncated));
        }
        let output = CodeActionsOutput { actions: result.actions, language: result.language, truncated: result.truncated };
        Ok(ToolOutput::text_and_json(text, json!(output)))
    }
}
