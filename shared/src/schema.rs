//! The JSON Schemas of every tool: standard, flat, and (for outputs) admitting the error result.
//!
//! Hosts do different things with a tool's schemas: the TypeScript SDK 1.x compiles the output
//! schema with ajv (which warns about every format it does not know, such as schemars'
//! `uint64`), model APIs with a restricted dialect (Gemini function declarations, OpenAI strict
//! mode) reject or mangle `$ref`, and a model reads a flat schema more reliably. So every schema
//! a server lists is, whoever wrote it:
//!
//! - **inlined**: no `$ref`, no `$defs` (schemars' `inline_subschemas`, and [`standardise`]
//!   resolves any local `#/$defs/..` reference a hand-written or rmcp-made schema still has);
//! - **standard formats only**: `uint64`, `int32`, `double`, ... are dropped; an unsigned
//!   integer is `"type": "integer"` with `"minimum": 0` (schemars writes the minimum);
//! - **optional means not required**: `Option<T>` is `T`'s schema, left out of `required`, never
//!   `anyOf [T, {"type": "null"}]` nor `"type": [T, "null"]` (and no `"default": null`);
//! - a root of `"type": "object"`.
//!
//! [`input`] and [`output`] generate a type's schema this way (the two serde contracts: what a
//! tool accepts, what it writes); the registry passes every schema through [`standardise`] once
//! more and adds the error branch to output schemas ([`with_error_branch`]), so a tool author
//! cannot forget either. An output type's optional field must be
//! `#[serde(skip_serializing_if = "Option::is_none")]`: its schema says "absent", not "null".

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::{JsonSchema, Schema, generate::SchemaSettings};
use serde_json::{Map, Value, json};

use crate::error::ErrorCode;

/// The schema of what `T` accepts (serde's deserialize contract): a tool's input. A model reads
/// it on every turn, so its root says only what the tool's description does not: no `title` (the
/// Rust type's name), no `description` (the type's documentation), no `$schema` (MCP reads a schema
/// without one as 2020-12, and these use only keywords every draft since 6 reads alike).
pub fn input<T: JsonSchema>() -> Arc<JsonObject> {
    let mut schema = generate::<T>(SchemaSettings::draft2020_12().for_deserialize());
    let root = Arc::make_mut(&mut schema);
    for keyword in ["$schema", "title", "description"] {
        root.remove(keyword);
    }
    schema
}

/// The schema of what `T` writes (serde's serialize contract): a tool's structured output.
///
/// The registry adds the error branch to it (see [`with_error_branch`]).
pub fn output<T: JsonSchema>() -> Arc<JsonObject> {
    generate::<T>(SchemaSettings::draft2020_12().for_serialize())
}

fn generate<T: JsonSchema>(settings: SchemaSettings) -> Arc<JsonObject> {
    let schema = settings.with(|s| s.inline_subschemas = true).into_generator().into_root_schema_for::<T>();
    Arc::new(standardise(schema.to_value()))
}

/// Makes any schema (generated or hand-written) flat and standard, as the module says, with a
/// root of `"type": "object"` (added when the root names no type).
pub fn standardise(schema: Value) -> JsonObject {
    let mut root = match schema {
        Value::Object(map) => map,
        // `true` / `{}` accept anything; a tool's arguments and results are objects.
        _ => Map::new(),
    };
    let defs = root.remove("$defs").or_else(|| root.remove("definitions"));
    let defs = defs.and_then(|d| if let Value::Object(d) = d { Some(d) } else { None }).unwrap_or_default();
    inline_refs(&mut root, &defs, 0);
    clean(&mut root);
    root.entry("type").or_insert_with(|| json!("object"));
    // schemars' own keyword order (`$schema`, `title`, `description`, `type`, ...), whatever
    // order the cleaning left: a diff of `tools/list` then shows only what changed.
    match serde_json::to_value(Schema::from(root.clone())) {
        Ok(Value::Object(ordered)) => ordered,
        _ => root,
    }
}

/// How deep `$ref`s are followed: far beyond any real parameter type; a recursive type stops
/// here (its innermost reference becomes "anything") instead of looping.
const MAX_REF_DEPTH: usize = 16;

/// The keywords whose value is one subschema.
const ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
];
/// The keywords whose value is an array of subschemas.
const MANY: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
/// The keywords whose value maps names to subschemas.
const MAP: &[&str] = &["properties", "patternProperties", "dependentSchemas"];

/// The `format` values JSON Schema defines (draft 2020-12); ajv-formats knows every one.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// The direct subschemas of `schema`, each with its property name when it is one of `properties`.
fn subschemas(schema: &mut JsonObject) -> Vec<(Option<&str>, &mut JsonObject)> {
    let mut found = Vec::new();
    for (key, value) in schema.iter_mut() {
        let key = key.as_str();
        if ONE.contains(&key) {
            found.extend(value.as_object_mut().map(|sub| (None, sub)));
        } else if MANY.contains(&key) {
            if let Value::Array(subs) = value {
                found.extend(subs.iter_mut().filter_map(Value::as_object_mut).map(|sub| (None, sub)));
            }
        } else if MAP.contains(&key)
            && let Value::Object(subs) = value
        {
            let named = key == "properties";
            found.extend(
                subs.iter_mut().filter_map(|(name, sub)| Some((named.then_some(name.as_str()), sub.as_object_mut()?))),
            );
        }
    }
    found
}

/// Replaces every `{"$ref": "#/$defs/X", ..}` by X's schema (the ref's own keywords, such as a
/// field's description, win).
fn inline_refs(schema: &mut JsonObject, defs: &JsonObject, depth: usize) {
    if let Some(Value::String(reference)) = schema.remove("$ref") {
        let name = reference.strip_prefix("#/$defs/").or_else(|| reference.strip_prefix("#/definitions/"));
        match name.and_then(|n| defs.get(n)) {
            Some(Value::Object(target)) if depth < MAX_REF_DEPTH => {
                for (key, value) in target {
                    schema.entry(key.clone()).or_insert_with(|| value.clone());
                }
                inline_refs(schema, defs, depth + 1);
                return;
            }
            // An unknown, external or too deep reference: the subschema accepts anything rather
            // than pointing at nothing.
            _ => tracing::debug!(reference, "schema reference dropped"),
        }
    }
    for (_, sub) in subschemas(schema) {
        inline_refs(sub, defs, depth);
    }
}

/// Whether `schema` only says "null".
fn is_null_only(schema: &Value) -> bool {
    let Some(o) = schema.as_object() else { return false };
    let says_null = o.get("type") == Some(&json!("null")) || o.get("const") == Some(&Value::Null);
    says_null && o.keys().all(|k| matches!(k.as_str(), "type" | "const" | "description" | "title"))
}

/// Cleans `schema` and every subschema: "T or null" becomes T, a non-standard `format` goes.
/// Returns whether `schema` itself admitted null; a property that did leaves `required`.
fn clean(schema: &mut JsonObject) -> bool {
    let mut optional: Vec<String> = Vec::new();
    for (property, sub) in subschemas(schema) {
        if clean(sub)
            && let Some(name) = property
        {
            optional.push(name.to_owned());
        }
    }
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.retain(|r| !r.as_str().is_some_and(|r| optional.iter().any(|o| o == r)));
        if required.is_empty() {
            schema.remove("required");
        }
    }
    if schema.get("format").and_then(Value::as_str).is_some_and(|f| !STANDARD_FORMATS.contains(&f)) {
        schema.remove("format");
    }

    let mut nullable = false;
    if let Some(Value::Array(types)) = schema.get_mut("type") {
        let before = types.len();
        types.retain(|t| t != "null");
        nullable |= types.len() != before;
        if types.len() == 1 {
            let only = types.remove(0);
            schema.insert("type".into(), only);
        }
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = schema.get_mut(key) else { continue };
        let before = branches.len();
        branches.retain(|b| !is_null_only(b));
        if branches.len() == before {
            continue;
        }
        nullable = true;
        if branches.len() == 1 {
            // `{"description": .., "anyOf": [T, null]}` becomes T with that description.
            if let Some(Value::Object(only)) = branches.pop() {
                schema.remove(key);
                for (k, v) in only {
                    schema.entry(k).or_insert(v);
                }
            }
        }
    }
    // schemars writes a documented enum as `oneOf` of `const`s; hosts with a restricted dialect
    // know `enum`, and a model reads the list at a glance (the field's description stays).
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(branches)) = schema.get(key) else { continue };
        let consts: Option<Vec<(Value, Value)>> = branches
            .iter()
            .map(|b| {
                let b = b.as_object()?;
                let only_const = b.keys().all(|k| matches!(k.as_str(), "type" | "const" | "description" | "title"));
                only_const.then(|| Some((b.get("type")?.clone(), b.get("const")?.clone())))?
            })
            .collect();
        let Some(consts) = consts.filter(|c| !c.is_empty()) else { continue };
        let Some((kind, _)) = consts.first().filter(|(t, _)| consts.iter().all(|(k, _)| k == t)).cloned() else {
            continue;
        };
        schema.remove(key);
        schema.insert("type".into(), kind);
        schema.insert("enum".into(), Value::Array(consts.into_iter().map(|(_, c)| c).collect()));
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum") {
        let before = values.len();
        values.retain(|v| !v.is_null());
        nullable |= values.len() != before;
    }
    if nullable && schema.get("default") == Some(&Value::Null) {
        schema.remove("default");
    }
    nullable
}

/// The `{"error": {code, message}}` shape of every error result (see [`crate::output`]).
pub fn error_schema() -> Value {
    let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    json!({
        "description": "Present only when the call failed (isError): the machine-readable code and the message the text block also carries.",
        "type": "object",
        "properties": {
            "code": {"type": "string", "enum": codes},
            "message": {"type": "string"}
        },
        "required": ["code", "message"]
    })
}

/// An output schema that admits the error result too: the success fields stay at the root (a
/// host that shows `properties` shows them), `error` is one more property, and what the success
/// shape requires moves into a branch: `anyOf [ {success requirements}, {"required": ["error"]} ]`.
///
/// Why not `structuredContent` absent on errors: the code would then live elsewhere for tools
/// with a schema than for tools without one, and clients already read
/// `structuredContent.error.code`. This shape validates in ajv (TypeScript SDK 1.x validates an
/// error result against the output schema) and in every 2020-12 validator.
pub fn with_error_branch(schema: JsonObject) -> JsonObject {
    let mut root = standardise(Value::Object(schema));
    if root.get("properties").and_then(|p| p.get("error")).is_some() {
        // Already done (or a tool whose success has an `error` field: leave it as declared).
        return root;
    }
    let mut success = Map::new();
    for key in
        ["required", "anyOf", "oneOf", "allOf", "not", "if", "then", "else", "dependentRequired", "minProperties"]
    {
        if let Some(value) = root.remove(key) {
            success.insert(key.to_owned(), value);
        }
    }
    root.entry("properties").or_insert_with(|| Value::Object(Map::new()));
    if let Some(Value::Object(properties)) = root.get_mut("properties") {
        properties.insert("error".into(), error_schema());
    }
    if !success.is_empty() {
        // Each branch names the properties it requires (as `{}`: their schemas are at the root),
        // so that strict validators (ajv's `strictRequired`) accept the schema too.
        if let Some(Value::Array(required)) = success.get("required") {
            let named: Map<String, Value> =
                required.iter().filter_map(Value::as_str).map(|name| (name.to_owned(), json!({}))).collect();
            success.insert("properties".into(), Value::Object(named));
        }
        root.insert(
            "anyOf".into(),
            json!([Value::Object(success), {"properties": {"error": {}}, "required": ["error"]}]),
        );
    }
    root
}

/// What breaks this module's rules in `schema` (empty when none): a `$ref` or `$defs`, a
/// non-standard `format`, a null union, a root that is not `"type": "object"`. Each problem
/// names its JSON pointer. For tests over a server's `tools/list`.
pub fn problems(schema: &Value) -> Vec<String> {
    let mut found = Vec::new();
    if schema.get("type") != Some(&json!("object")) {
        found.push(format!("the root is not \"type\": \"object\": {:?}", schema.get("type")));
    }
    let mut schema = schema.clone();
    if let Some(root) = schema.as_object_mut() {
        walk_problems(root, "", &mut found);
    }
    found
}

fn walk_problems(schema: &mut JsonObject, at: &str, found: &mut Vec<String>) {
    for key in ["$ref", "$defs", "definitions"] {
        if schema.contains_key(key) {
            found.push(format!("{at}: `{key}`"));
        }
    }
    if let Some(format) = schema.get("format").and_then(Value::as_str)
        && !STANDARD_FORMATS.contains(&format)
    {
        found.push(format!("{at}: non-standard format {format:?}"));
    }
    if schema.get("type").and_then(Value::as_array).is_some_and(|t| t.iter().any(|t| t == "null"))
        || schema.get("type") == Some(&json!("null"))
    {
        found.push(format!("{at}: a null type"));
    }
    for key in ["anyOf", "oneOf"] {
        if schema.get(key).and_then(Value::as_array).is_some_and(|b| b.iter().any(is_null_only)) {
            found.push(format!("{at}: `{key}` with a null branch"));
        }
    }
    if schema.get("enum").and_then(Value::as_array).is_some_and(|e| e.iter().any(Value::is_null)) {
        found.push(format!("{at}: null in `enum`"));
    }
    if schema.get("default") == Some(&Value::Null) {
        found.push(format!("{at}: `\"default\": null`"));
    }
    for (i, (property, sub)) in subschemas(schema).into_iter().enumerate() {
        let at = match property {
            Some(name) => format!("{at}/properties/{name}"),
            None => format!("{at}/{i}"),
        };
        walk_problems(sub, &at, found);
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    use super::*;

    /// A nested type.
    #[derive(Deserialize, Serialize, JsonSchema)]
    struct Point {
        /// Across.
        x: f64,
        /// Down.
        y: i64,
    }

    /// A mode.
    #[derive(Deserialize, Serialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Mode {
        /// Fast.
        Fast,
        /// Slow.
        Slow,
    }

    /// Everything schemars would make non-standard.
    #[derive(Deserialize, Serialize, JsonSchema)]
    struct Params {
        /// A count.
        count: u64,
        /// A small count.
        small: u8,
        /// Maybe a point.
        #[serde(skip_serializing_if = "Option::is_none")]
        at: Option<Point>,
        /// Points.
        points: Vec<Point>,
        /// Maybe a mode.
        #[serde(skip_serializing_if = "Option::is_none")]
        mode: Option<Mode>,
        /// Maybe a name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    }

    #[test]
    fn generated_schemas_are_flat_and_standard() {
        for schema in [input::<Params>(), output::<Params>()] {
            let value = Value::Object((*schema).clone());
            assert_eq!(problems(&value), Vec::<String>::new(), "{value:#}");
            let p = &value["properties"];
            assert_eq!(p["count"], json!({"description": "A count.", "type": "integer", "minimum": 0}));
            assert_eq!(p["small"]["maximum"], 255);
            assert_eq!(p["at"]["type"], "object", "{value:#}");
            assert_eq!(p["at"]["description"], "Maybe a point.");
            assert_eq!(p["at"]["properties"]["x"], json!({"description": "Across.", "type": "number"}));
            assert_eq!(p["points"]["items"]["properties"]["y"], json!({"description": "Down.", "type": "integer"}));
            assert_eq!(p["mode"]["enum"], json!(["fast", "slow"]), "{value:#}");
            assert_eq!(p["mode"]["type"], "string");
            assert_eq!(p["mode"]["description"], "Maybe a mode.");
            assert_eq!(p["name"], json!({"type": "string", "description": "Maybe a name."}));
            assert_eq!(value["required"], json!(["count", "small", "points"]), "{value:#}");
        }
    }

    #[test]
    fn hand_written_schemas_are_standardised_too() {
        let schema = json!({
            "properties": {
                "a": {"$ref": "#/$defs/A", "description": "An A."},
                "b": {"type": ["integer", "null"], "format": "uint32", "default": null},
                "c": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]},
            },
            "required": ["a", "b", "c"],
            "$defs": {"A": {"type": "object", "properties": {"n": {"type": "number", "format": "double"}}}}
        });
        let flat = Value::Object(standardise(schema));
        assert_eq!(problems(&flat), Vec::<String>::new(), "{flat:#}");
        assert_eq!(
            flat,
            json!({
                "type": "object",
                "properties": {
                    "a": {"description": "An A.", "type": "object", "properties": {"n": {"type": "number"}}},
                    "b": {"type": "integer"},
                    "c": {"type": "string", "format": "date-time"},
                },
                "required": ["a"]
            })
        );
    }

    #[test]
    fn problems_finds_every_kind() {
        let bad = json!({
            "type": "array",
            "items": {"$ref": "#/$defs/X"},
            "$defs": {},
            "properties": {"n": {"type": "integer", "format": "uint64"}, "o": {"type": ["string", "null"]}},
            "anyOf": [{"type": "string"}, {"type": "null"}],
        });
        let found = problems(&bad);
        assert_eq!(found.len(), 7, "{found:#?}");
    }

    #[test]
    fn the_error_branch_keeps_the_success_fields_at_the_root() {
        let schema = with_error_branch((*output::<Point>()).clone());
        let value = Value::Object(schema.clone());
        assert_eq!(problems(&value), Vec::<String>::new());
        assert_eq!(value["type"], "object");
        assert_eq!(value["properties"]["x"]["type"], "number");
        assert_eq!(value["properties"]["error"]["required"], json!(["code", "message"]));
        assert_eq!(
            value["anyOf"],
            json!([
                {"required": ["x", "y"], "properties": {"x": {}, "y": {}}},
                {"properties": {"error": {}}, "required": ["error"]}
            ])
        );
        assert!(value.get("required").is_none());
        assert_eq!(with_error_branch(schema.clone()), schema, "applying it twice changes nothing");
    }

    /// Every `tools/list` snapshot of every server (the snapshot tests keep them equal to what
    /// the servers list).
    fn snapshots(dir: &Path, found: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() && path.file_name().is_some_and(|n| n != "target" && n != "node_modules") {
                snapshots(&path, found);
            } else if path.extension().is_some_and(|e| e == "snap") {
                found.push(path);
            }
        }
    }

    #[test]
    fn every_tool_of_every_server_has_a_title_and_lists_flat_standard_schemas_with_the_error_branch() {
        let servers = Path::new(env!("CARGO_MANIFEST_DIR")).join("../servers");
        let mut files = Vec::new();
        snapshots(&servers, &mut files);
        let mut tools = 0;
        let mut listed_servers = 0;
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            // insta's header is between the first two `---` lines.
            let Some(body) = text.splitn(3, "---\n").nth(2) else { continue };
            let Ok(Value::Array(list)) = serde_json::from_str::<Value>(body) else { continue };
            if !list.iter().all(|t| t.get("inputSchema").is_some()) {
                continue;
            }
            listed_servers += 1;
            for tool in list {
                tools += 1;
                let name = format!("{}: {}", file.display(), tool["name"]);
                // Hosts show the title (VS Code) instead of the name.
                assert!(tool["title"].as_str().is_some_and(|t| !t.trim().is_empty()), "{name}: no title");
                assert_eq!(problems(&tool["inputSchema"]), Vec::<String>::new(), "{name} inputSchema");
                if let Some(output) = tool.get("outputSchema") {
                    assert_eq!(problems(output), Vec::<String>::new(), "{name} outputSchema");
                    assert_eq!(output["properties"]["error"], error_schema(), "{name}: no error branch");
                }
            }
        }
        assert!(listed_servers >= 4 && tools >= 7, "{listed_servers} servers, {tools} tools in {files:?}");
    }
}
