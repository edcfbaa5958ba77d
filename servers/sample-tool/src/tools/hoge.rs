//! `hoge`, the template's sample tool: `{"action": "calc", "args": {"x": 1, "y": 2}}` → `{"value": 3}`.
//!
//! The template of a tool with typed parameters: [`HogeInput`] derives serde (the registry
//! deserialises it and names the failing field), schemars (the input schema) and garde (the
//! rules serde cannot say, here "the sum is finite"); [`HogeOutput`] derives the output schema.
//! Errors, as the template's contract classifies them: no input object → `INVALID_INPUT`; any other action
//! → `UNKNOWN_ACTION` listing the known ones; `args` missing or `x`/`y` not numbers →
//! `INVALID_ARGS` naming the field. Integers stay integers (1 + 2 is `3`, not `3.0`).

use std::{borrow::Cow, sync::Arc};

use mcp_shared::{
    ErrorCode, Tool, ToolContext, ToolError, ToolOutput, ToolResult,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
    registry::parse_params,
    schema,
    view::View,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

/// The input of `hoge`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
pub struct HogeInput {
    /// What to do. `calc` adds `args.x` and `args.y`.
    #[garde(skip)]
    pub action: Action,
    /// The operands of `calc`.
    #[garde(custom(finite_sum))]
    // serde alone would take `[1, 2]` as `{x: 1, y: 2}`; the contract's `args` is an object.
    #[serde(deserialize_with = "mcp_shared::registry::object")]
    pub args: CalcArgs,
}

/// The actions `hoge` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// `args.x + args.y`.
    Calc,
}

impl Action {
    /// Every action, for the message of an unknown one.
    pub const ALL: [Action; 1] = [Action::Calc];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Calc => "calc",
        }
    }
}

/// The operands of `calc`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(expecting = "an object with numbers `x` and `y`")]
pub struct CalcArgs {
    /// The first number.
    #[schemars(with = "f64")]
    pub x: Number,
    /// The second number.
    #[schemars(with = "f64")]
    pub y: Number,
}

/// The structured result of `hoge`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HogeOutput {
    /// `x + y` (an integer when both operands are).
    #[schemars(with = "f64")]
    pub value: Number,
}

/// garde's rule for `args`: a sum JSON can carry (two huge floats overflow to infinity).
fn finite_sum(args: &CalcArgs, _ctx: &()) -> garde::Result {
    match add(&args.x, &args.y) {
        Some(_) => Ok(()),
        None => Err(garde::Error::new(format!("{} + {} is not a finite number; use smaller operands", args.x, args.y))),
    }
}

/// The template's sample tool.
pub struct Hoge;

/// Its MCP Apps view: `x + y = value`, in a chat window that renders views.
static VIEW: View = View { uri: "ui://sample-tool/hoge", title: "Hoge result", body: include_str!("../../views/hoge.html") };

/// `x + y`, keeping integers integral; `None` when the sum is not a finite number.
pub fn add(x: &Number, y: &Number) -> Option<Number> {
    let as_int = |n: &Number| n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from));
    if let (Some(a), Some(b)) = (as_int(x), as_int(y)) {
        let sum = a + b;
        if let Ok(v) = i64::try_from(sum) {
            return Some(Number::from(v));
        }
        if let Ok(v) = u64::try_from(sum) {
            return Some(Number::from(v));
        }
        // Beyond 64 bits: fall through to floating point, as JavaScript would.
    }
    let sum = x.as_f64()? + y.as_f64()?;
    Number::from_f64(sum)
}

/// The contract checks the action before the arguments: another action is `UNKNOWN_ACTION`, whatever
/// else the call carries.
fn check_action(action: Option<&Value>) -> Result<(), ToolError> {
    let known = Action::ALL.map(Action::as_str).join(", ");
    let message = match action {
        Some(value) if Action::deserialize(value).is_ok() => return Ok(()),
        Some(Value::String(a)) => format!("Unknown action {a:?}. Known actions: {known}."),
        Some(other) => format!("Unknown action: `action` must be a string, got {other}. Known actions: {known}."),
        None => format!("Missing `action`. Known actions: {known}."),
    };
    Err(ToolError::new(ErrorCode::UnknownAction, message))
}

impl Tool for Hoge {
    type Params = HogeInput;

    fn name(&self) -> Cow<'static, str> {
        "hoge".into()
    }

    fn description(&self) -> Cow<'static, str> {
        "Sample tool of the mcp-suite template. Action `calc` adds two numbers: \
         {\"action\":\"calc\",\"args\":{\"x\":1,\"y\":2}} returns {\"value\":3}. \
         Integers stay integers."
            .into()
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::with_title("Hoge calculator")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<Arc<JsonObject>> {
        Some(schema::output::<HogeOutput>())
    }

    fn view(&self) -> Option<&'static View> {
        Some(&VIEW)
    }

    /// The shared typed parsing, after the two checks the contract classifies apart: no object at
    /// all is `INVALID_INPUT`, another action `UNKNOWN_ACTION`.
    fn parse(&self, arguments: Option<JsonObject>) -> Result<HogeInput, ToolError> {
        let Some(arguments) = arguments else {
            return Err(ToolError::new(
                ErrorCode::InvalidInput,
                "Invalid input: `hoge` takes an object like {\"action\":\"calc\",\"args\":{\"x\":1,\"y\":2}}.",
            ));
        };
        check_action(arguments.get("action"))?;
        parse_params(&self.name(), Some(arguments))
    }

    async fn run(&self, input: HogeInput, _ctx: ToolContext) -> ToolResult {
        match input.action {
            Action::Calc => match add(&input.args.x, &input.args.y) {
                Some(value) => Ok(ToolOutput::structured(&HogeOutput { value })),
                // garde's `finite_sum` let these operands through, so this is a bug of ours.
                None => Err(ToolError::new(
                    ErrorCode::InternalError,
                    "Internal error: the sum was checked but is not finite.",
                )),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use mcp_shared::ContentItem;
    use serde_json::json;

    use super::*;

    async fn call(v: Value) -> ToolOutput {
        let args = match v {
            Value::Null => None,
            Value::Object(o) => Some(o),
            other => panic!("test input must be an object or null, got {other}"),
        };
        let result = match Hoge.parse(args) {
            Ok(p) => Hoge.run(p, ToolContext::detached()).await,
            Err(e) => Err(e),
        };
        result.unwrap_or_else(ToolError::into_output)
    }

    fn value(out: &ToolOutput) -> Value {
        match &out.content[..] {
            [ContentItem::Json { json }] => json["value"].clone(),
            other => panic!("expected one JSON item, got {other:?}"),
        }
    }

    fn code(out: &ToolOutput) -> ErrorCode {
        out.error_item().map(|e| e.code).unwrap_or_else(|| panic!("expected an error, got {out:?}"))
    }

    #[tokio::test]
    async fn adds_integers_as_integers() {
        let out = call(json!({"action": "calc", "args": {"x": 1, "y": 2}})).await;
        assert_eq!(serde_json::to_string(&value(&out)).unwrap(), "3");
        let out = call(json!({"action": "calc", "args": {"x": -5, "y": 2}})).await;
        assert_eq!(serde_json::to_string(&value(&out)).unwrap(), "-3");
        let out = call(json!({"action": "calc", "args": {"x": i64::MAX, "y": 1}})).await;
        assert_eq!(serde_json::to_string(&value(&out)).unwrap(), "9223372036854775808");
    }

    #[tokio::test]
    async fn adds_floats() {
        let out = call(json!({"action": "calc", "args": {"x": 1.5, "y": 2.25}})).await;
        assert_eq!(value(&out), json!(3.75));
        let out = call(json!({"action": "calc", "args": {"x": 0.1, "y": 0.2}})).await;
        assert_eq!(value(&out).as_f64().unwrap(), 0.1 + 0.2);
    }

    #[tokio::test]
    async fn non_finite_sum_is_invalid_args() {
        let out = call(json!({"action": "calc", "args": {"x": f64::MAX, "y": f64::MAX}})).await;
        assert_eq!(code(&out), ErrorCode::InvalidArgs);
    }

    #[tokio::test]
    async fn classifies_bad_input_as_the_spec_says() {
        assert_eq!(code(&call(Value::Null).await), ErrorCode::InvalidInput);
        assert_eq!(code(&call(json!({"action": "calc"})).await), ErrorCode::InvalidArgs);
        let out = call(json!({"action": "calc", "args": {"x": "1", "y": 2}})).await;
        assert_eq!(code(&out), ErrorCode::InvalidArgs);
        assert!(out.error_item().unwrap().message.contains("args.x"));
        let out = call(json!({"action": "calc", "args": {"x": 1}})).await;
        assert!(out.error_item().unwrap().message.contains("args.y"));
        assert_eq!(code(&call(json!({"action": "calc", "args": [1, 2]})).await), ErrorCode::InvalidArgs);
        let out = call(json!({"action": "mul", "args": {"x": 1, "y": 2}})).await;
        assert_eq!(code(&out), ErrorCode::UnknownAction);
        assert!(out.error_item().unwrap().message.contains("calc"));
        assert_eq!(code(&call(json!({})).await), ErrorCode::UnknownAction);
        assert_eq!(code(&call(json!({"action": 5})).await), ErrorCode::UnknownAction);
    }

    #[tokio::test]
    async fn messages_name_the_field_and_the_known_actions() {
        let message = |out: ToolOutput| out.error_item().map(|e| e.message.clone()).unwrap_or_default();
        assert_eq!(
            message(call(json!({"action": "mul", "args": {"x": 1, "y": 2}})).await),
            "Unknown action \"mul\". Known actions: calc."
        );
        assert_eq!(message(call(json!({"args": {"x": 1, "y": 2}})).await), "Missing `action`. Known actions: calc.");
        let missing_y = message(call(json!({"action": "calc", "args": {"x": 1}})).await);
        assert!(missing_y.contains("field `args.y` is missing"), "{missing_y}");
        let bad_x = message(call(json!({"action": "calc", "args": {"x": "1", "y": 2}})).await);
        assert!(bad_x.contains("field `args.x`"), "{bad_x}");
        let huge = message(call(json!({"action": "calc", "args": {"x": f64::MAX, "y": f64::MAX}})).await);
        assert!(huge.contains("field `args`") && huge.contains("not a finite number"), "{huge}");
    }
}
