//! `type_hierarchy {path, line, symbol, column?, direction?, depth?, wait_ms?}`: a type's
//! supertypes and subtypes, a few levels deep, from the IDE's language server.

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
    protocol::{HierarchyParams, HierarchyResult, MAX_HIERARCHY_DEPTH, METHOD_TYPE_HIERARCHY},
};

/// The tool's name.
pub const NAME: &str = "type_hierarchy";

/// Which relatives.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TypeDirection {
    /// What it extends or implements.
    Supertypes,
    /// What extends or implements it.
    Subtypes,
    /// Both.
    #[default]
    Both,
}

symbol_params! {
    /// The input of `type_hierarchy`.
    pub struct TypeHierarchyParams {
        /// `supertypes`, `subtypes` or `both` (default).
        #[garde(skip)]
        #[serde(default)]
        pub direction: TypeDirection,
        /// Levels, 1 (default) to 3.
        #[garde(range(min = 1, max = MAX_HIERARCHY_DEPTH))]
        #[serde(default = "one")]
        pub depth: u32,
    }
}

fn one() -> u32 {
    1
}

/// `type_hierarchy`.
#[derive(Debug, Clone)]
pub struct TypeHierarchy {
    bridge: Bridge,
}

impl TypeHierarchy {
    /// The tool over `bridge`.
    pub fn new(bridge: Bridge) -> Self {
        TypeHierarchy { bridge }
    }
}

impl Tool for TypeHierarchy {
    type Params = TypeHierarchyParams;

    fn name(&self) -> Cow<'static, str> {
        NAME.into()
    }

    fn instructions(&self) -> Option<Cow<'static, str>> {
        Some("type_hierarchy lists a type's supertypes and subtypes.".into())
    }

    fn description(&self) -> Cow<'static, str> {
        "A class's or interface's supertypes and subtypes, through the IDE's language server, `depth` \
         levels deep (at most 3). The type is named by its text on `line` of `path`, as find_definition. \
         Where the language server has no type hierarchy, the answer says so. Needs the VS Code extension."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Type hierarchy")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        Some(mcp_shared::schema::output::<HierarchyOutput>())
    }

    async fn run(&self, params: TypeHierarchyParams, _ctx: ToolContext) -> ToolResult {
        let (at, wait) = params.at(&self.bridge).await;
        let direction = match params.direction {
            TypeDirection::Supertypes => "supertypes",
            TypeDirection::Subtypes => "subtypes",
            TypeDirection::Both => "both",
        };
        let wire = HierarchyParams { at, direction: direction.into(), depth: params.depth };
        let result = lang::ask::<_, HierarchyResult>(&self.bridge, METHOD_TYPE_HIERARCHY, &wire, wait, NAME).await?;
        lang::hierarchy_answer("types", &params.path, &params.symbol, params.column.is_some(), result, wait)
    }
}
