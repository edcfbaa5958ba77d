//! `signature_help {path, line, symbol, column?, wait_ms?}`: the parameters of the call at a
//! position (just after `symbol`'s text on the line), the active one marked, from the IDE's
//! language server.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolOutput, ToolResult,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use super::lang::{self, SymbolParams};
use crate::{
    bridge::Bridge,
    protocol::{METHOD_SIGNATURE_HELP, Resolved, Signature, SignatureHelpResult, SymbolAt},
};

/// The tool's name.
pub const NAME: &str = "signature_help";

/// The structured result of `signature_help`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SignatureHelpOutput {
    /// The text the position is after.
    pub symbol: String,
    /// Where it was found on the line.
    pub resolved: Resolved,
    /// The call's signatures: `{label, documentation, parameters, activeParameter}`.
    pub signatures: Vec<Signature>,
    /// The signature that fits the call, from 0.
    pub active_signature: u32,
    /// How many more signatures there were, not listed.
    pub truncated: u64,
}

/// `signature_help`.
#[derive(Debug, Clone)]
pub struct SignatureHelp {
    bridge: Bridge,
}

impl SignatureHelp {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        SignatureHelp { bridge }
    }
}

impl Tool for SignatureHelp {
    type Params = SymbolParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("signature_help gives the parameters of a call.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "The parameters of the call at a position, through the IDE's language server, the active one \
         marked. The position is just after `symbol`'s text on `line` of `path`: `greet` or `greet(` for \
         the first argument of `greet(…)`, `greet(a,` for the second. Needs the VS Code extension."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Signature help")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<SignatureHelpOutput>())
    }

    async fn run(&self, params: SymbolParams, _ctx: ToolContext) -> ToolResult {
        let (wire, wait) = params.at(&self.bridge).await;
        let mut result =
            lang::ask::<_, SignatureHelpResult>(&self.bridge, METHOD_SIGNATURE_HELP, &wire, wait, NAME).await?;
        if result.loading {
            let what = format!("`{}` in {}", params.symbol, params.path);
            return Err(lang::still_loading(Some(&result.resolved), None, &what, wait));
        }
        // Named by the called function (`total` on the line of `total(…)`): the call's
        // parentheses start after it, so the position after `total(` is asked for too.
        let mut after = params.symbol.clone();
        if result.signatures.is_empty() && !params.symbol.ends_with(['(', ',']) {
            let called = SymbolAt { symbol: format!("{}(", params.symbol), ..wire };
            if let Ok(inside) =
                lang::ask::<_, SignatureHelpResult>(&self.bridge, METHOD_SIGNATURE_HELP, &called, wait, NAME).await
                && !inside.loading
                && !inside.signatures.is_empty()
            {
                after = called.symbol;
                result = inside;
            }
        }
        let at = format!("{}:{}, after `{after}`", params.path, result.resolved.line);
        let mut text = if result.signatures.is_empty() {
            format!("No signature at {at}: the position is not inside a call's parentheses, nor is `{}` a function called there (name the text up to and including `(`, or `,` for a later argument).", params.symbol)
        } else {
            format!("The call at {at}:")
        };
        for (i, signature) in result.signatures.iter().enumerate() {
            let mark = if i as u32 == result.active_signature { "* " } else { "  " };
            text.push_str(&format!("\n{mark}{}", signature.label));
            if let Some(active) = signature.active_parameter.and_then(|p| signature.parameters.get(p as usize)) {
                text.push_str(&format!(
                    "\n    active parameter {} of {}: `{active}`",
                    signature.active_parameter.unwrap_or(0) + 1,
                    signature.parameters.len()
                ));
            }
            if let Some(doc) = signature.documentation.as_deref().filter(|d| !d.trim().is_empty()) {
                text.push_str(&format!("\n    {}", doc.trim().replace('\n', "\n    ")));
            }
        }
        if result.truncated > 0 {
            text.push_str(&format!("\n… and {} more signature(s), not listed.", result.truncated));
        }
        let output = SignatureHelpOutput {
            symbol: params.symbol,
            resolved: result.resolved,
            signatures: result.signatures,
            active_signature: result.active_signature,
            truncated: result.truncated,
        };
        Ok(ToolOutput::text_and_json(text, json!(output)))
    }
}
