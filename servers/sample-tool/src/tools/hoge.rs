//! `hoge` (spec 004): `{"action": "calc", "args": {"x": 1, "y": 2}}` → `{"value": 3}`.
//!
//! Errors, as the spec classifies them: no input object → `INVALID_INPUT`; `args` missing or
//! `x`/`y` not numbers → `INVALID_ARGS` naming the field; any other action → `UNKNOWN_ACTION`
//! listing the known ones. Integers stay integers (1 + 2 is `3`, not `3.0`); a sum that is not
//! finite is `INVALID_ARGS`.

use std::borrow::Cow;

use mcp_shared::{
    ErrorCode, Tool, ToolContext, ToolOutput,
    reexports::rmcp::model::{JsonObject, ToolAnnotations},
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Number, Value, json};

/// The actions `hoge` knows.
pub const ACTIONS: &[&str] = &["calc"];

/// The input of `hoge`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
pub struct HogeInput {
    /// What to do. `calc` adds `args.x` and `args.y`.
    #[garde(skip)]
    #[schemars(extend("enum" = ["calc"]))]
    pub action: String,
    /// The operands of `calc`.
    #[garde(skip)]
    pub args: Option<CalcArgs>,
}

/// The operands of `calc`.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
pub struct CalcArgs {
    /// The first number.
    #[garde(skip)]
    #[schemars(with = "f64")]
    pub x: Number,
    /// The second number.
    #[garde(skip)]
    #[schemars(with = "f64")]
    pub y: Number,
}

/// The sample tool of spec 004.
pub struct Hoge;

fn invalid_args(message: impl Into<String>) -> ToolOutput {
    ToolOutput::error(ErrorCode::InvalidArgs, message)
}

/// Reads `args.<name>` as a number, or says what is wrong with it.
fn operand(args: &serde_json::Map<String, Value>, name: &str) -> Result<Number, ToolOutput> {
    match args.get(name) {
        Some(Value::Number(n)) => Ok(n.clone()),
        Some(other) => Err(invalid_args(format!(
            "Invalid args: `args.{name}` must be a number, got {}. Example: {{\"action\":\"calc\",\"args\":{{\"x\":1,\"y\":2}}}}.",
            kind(other)
        ))),
        None => Err(invalid_args(format!(
            "Invalid args: `args.{name}` is missing; `calc` needs two numbers. Example: {{\"action\":\"calc\",\"args\":{{\"x\":1,\"y\":2}}}}."
        ))),
    }
}

fn kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.chars().count() <= 40 => format!("the string {s:?}"),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

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
        ToolAnnotations::with_title("Add two numbers")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    }

    fn output_schema(&self) -> Option<std::sync::Arc<JsonObject>> {
        let schema = json!({
            "type": "object",
            "properties": {"value": {"type": "number", "description": "x + y"}},
            "required": ["value"]
        });
        schema.as_object().cloned().map(std::sync::Arc::new)
    }

    /// The spec's own classification of bad input, finer than serde's.
    fn parse(&self, arguments: Option<JsonObject>) -> Result<HogeInput, ToolOutput> {
        let Some(input) = arguments else {
            return Err(ToolOutput::error(
                ErrorCode::InvalidInput,
                "Invalid input: `hoge` takes an object like {\"action\":\"calc\",\"args\":{\"x\":1,\"y\":2}}.",
            ));
        };
        let known = ACTIONS.join(", ");
        let action = match input.get("action") {
            Some(Value::String(a)) if ACTIONS.contains(&a.as_str()) => a.clone(),
            Some(Value::String(a)) => {
                return Err(ToolOutput::error(
                    ErrorCode::UnknownAction,
                    format!("Unknown action {a:?}. Known actions: {known}."),
                ));
            }
            Some(other) => {
                return Err(ToolOutput::error(
                    ErrorCode::UnknownAction,
                    format!("Unknown action: `action` must be a string, got {}. Known actions: {known}.", kind(other)),
                ));
            }
            None => {
                return Err(ToolOutput::error(
                    ErrorCode::UnknownAction,
                    format!("Missing `action`. Known actions: {known}."),
                ));
            }
        };
        let args = match input.get("args") {
            Some(Value::Object(args)) => args,
            Some(other) => {
                return Err(invalid_args(format!(
                    "Invalid args: `args` must be an object with numbers `x` and `y`, got {}.",
                    kind(other)
                )));
            }
            None => {
                return Err(invalid_args(
                    "Invalid args: `args` is missing; `calc` needs {\"x\": <number>, \"y\": <number>}.",
                ));
            }
        };
        let x = operand(args, "x")?;
        let y = operand(args, "y")?;
        Ok(HogeInput { action, args: Some(CalcArgs { x, y }) })
    }

    async fn run(&self, input: HogeInput, _ctx: ToolContext) -> ToolOutput {
        match (input.action.as_str(), input.args) {
            ("calc", Some(CalcArgs { x, y })) => match add(&x, &y) {
                Some(value) => ToolOutput::json(json!({ "value": value })),
                None => invalid_args(format!("Invalid args: {x} + {y} is not a finite number. Use smaller operands.")),
            },
            (action, _) => ToolOutput::error(
                ErrorCode::InternalError,
                format!("Internal error: action {action:?} reached `run` without its arguments."),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use mcp_shared::ContentItem;

    use super::*;

    async fn call(v: Value) -> ToolOutput {
        let args = match v {
            Value::Null => None,
            Value::Object(o) => Some(o),
            other => panic!("test input must be an object or null, got {other}"),
        };
        match Hoge.parse(args) {
            Ok(p) => Hoge.run(p, ToolContext::detached()).await,
            Err(e) => e,
        }
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
}
