//! `ide_status {}`: which IDE the bridge is connected to, through which protocol, and which
//! tools that connection serves.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolOutput, ToolResult,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{
    bridge::{Bridge, Protocol, error::Op},
    protocol::{HostInfo, METHOD_INFO},
};

/// The tool's name.
pub const NAME: &str = "ide_status";

/// The input of `ide_status` (none).
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct IdeStatusParams {}

/// The structured result of `ide_status`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct IdeStatusOutput {
    /// Whether the bridge is connected to an IDE (or ide-bridge-host).
    pub connected: bool,
    /// The IDE's name, as it introduced itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ide: Option<String>,
    /// `mcp-suite` (the ide-bridge extension, or ide-bridge-host), `claude-code` (the Claude
    /// Code IDE protocol) or `gemini` (the Gemini CLI companion).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<Protocol>,
    /// The IDE's WebSocket URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The folders the tools reach (absolute paths).
    pub workspace_folders: Vec<String>,
    /// The bridge's tools this connection serves.
    pub tools: Vec<String>,
    /// The bridge's tools this IDE cannot serve (not listed while it is connected).
    pub unavailable: Vec<String>,
    /// Why there is no connection, and what to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `ide_status`.
#[derive(Debug, Clone)]
pub struct IdeStatus {
    bridge: Bridge,
}

impl IdeStatus {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        IdeStatus { bridge }
    }
}

impl Tool for IdeStatus {
    type Params = IdeStatusParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("ide_status says which IDE is connected and which tools it serves.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "Which IDE the bridge is connected to, through which protocol (`mcp-suite`, `claude-code`, `gemini`), \
         the folders it reaches and the tools it serves: {connected, ide, protocol, url, \
         workspace_folders, tools, unavailable, reason}."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("IDE connection status")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<IdeStatusOutput>())
    }

    async fn run(&self, _params: IdeStatusParams, _ctx: ToolContext) -> ToolResult {
        // Connects first if there is no connection (and says why not, if that fails).
        let asked: Result<HostInfo, _> = self.bridge.request(METHOD_INFO, &serde_json::json!({})).await;
        let error = asked.as_ref().err().map(|e| e.describe(Op::Ide(NAME)).1);
        let conn = self.bridge.current();
        let (tools, unavailable): (Vec<String>, Vec<String>) = match &conn {
            Some(conn) => {
                let (served, not): (Vec<&str>, Vec<&str>) = super::NAMES.iter().partition(|name| conn.offers(name));
                (served.into_iter().map(str::to_owned).collect(), not.into_iter().map(str::to_owned).collect())
            }
            None => (Vec::new(), Vec::new()),
        };
        let output = IdeStatusOutput {
            connected: conn.is_some(),
            ide: conn.as_ref().and_then(|c| c.info()).map(|i| mcp_shared::escape::one_line(&i.name).into_owned()),
            protocol: conn.as_ref().map(|c| c.protocol()),
            url: conn.as_ref().map(|c| c.url().to_owned()),
            workspace_folders: conn.as_ref().map(|c| c.workspace_folders().to_vec()).unwrap_or_default(),
            tools,
            unavailable,
            reason: if conn.is_some() { None } else { error },
        };
        let text = match (&conn, &output.reason) {
            (Some(conn), _) => {
                let mut text = format!(
                    "Connected to {} through {} at {}, reaching {}.",
                    output.ide.as_deref().unwrap_or("the IDE"),
                    conn.protocol().title(),
                    conn.url(),
                    output.workspace_folders.join(", ")
                );
                if !output.unavailable.is_empty() {
                    text.push_str(&format!(
                        " Not served through it: {} (they need VS Code or Antigravity with the ide-bridge extension).",
                        output.unavailable.join(", ")
                    ));
                }
                text
            }
            (None, Some(error)) => format!("Not connected to an IDE. {error}"),
            (None, None) => "Not connected to an IDE.".to_owned(),
        };
        Ok(ToolOutput::text_and_json(text, serde_json::json!(output)))
    }
}
