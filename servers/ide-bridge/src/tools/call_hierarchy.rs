//! `call_hierarchy {path, line, symbol, column?, direction, depth?, wait_ms?}`: who calls a
//! function, or what it calls, a few levels deep, from the IDE's language server.

use std::borrow::Cow;

use mcp_shared::{
    Tool, ToolContext, ToolResult,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::Deserialize;

use super::lang::{self, HierarchyOutput, symbol_params};
use crate::{
    bridge::Bridge,
    protocol::{HierarchyParams, HierarchyResult, MAX_HIERARCHY_DEPTH, METHOD_CALL_HIERARCHY},
};

/// The tool's name.
pub const NAME: &str = "call_hierarchy";

/// Which calls.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CallDirection {
    /// Who calls it.
    Incoming,
    /// What it calls.
    Outgoing,
}

symbol_params! {
    /// The input of `call_hierarchy`.
    pub struct CallHierarchyParams {
        /// `incoming`: its callers; `outgoing`: what it calls.
        #[garde(skip)]
        pub direction: CallDirection,
        /// Levels, 1 (default) to 3.
        #[garde(range(min = 1, max = MAX_HIERARCHY_DEPTH))]
        #[serde(default = "one")]
        pub depth: u32,
    }
}

fn one() -> u32 {
    1
}

/// `call_hierarchy`.
#[derive(Debug, Clone)]
pub struct CallHierarchy {
    bridge: Bridge,
}

impl CallHierarchy {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        CallHierarchy { bridge }
    }
}

impl Tool for CallHierarchy {
    type Params = CallHierarchyParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("call_hierarchy lists a function's callers or callees.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "Who calls a function (`direction: incoming`) or what it calls (`outgoing`), through the IDE's \
         language server, `depth` levels deep (at most 3, 200 calls). The function is named by its text \
         on `line` of `path`, as find_definition. Each call: path:line where it is, the calling line's \
         text, and who. Needs the VS Code extension."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Call hierarchy")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<HierarchyOutput>())
    }

    async fn run(&self, params: CallHierarchyParams, _ctx: ToolContext) -> ToolResult {
        let (at, wait) = params.at(&self.bridge).await;
        let direction = match params.direction {
            CallDirection::Incoming => "incoming",
            CallDirection::Outgoing => "outgoing",
        };
        let wire = HierarchyParams { at, direction: direction.into(), depth: params.depth };
        let result = lang::ask::<_, HierarchyResult>(&self.bridge, METHOD_CALL_HIERARCHY, &wire, wait, NAME).await?;
        lang::hierarchy_answer("calls", &params.path, &params.symbol, params.column.is_some(), result, wait)
    }
}
