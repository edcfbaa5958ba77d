//! The top-level scanner against serde: whenever serde reads a JSON object whose `id` is a
//! string or a number, the scanner finds an id, and the bytes it points at are a JSON value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_shared::transport::stdio::{IdKind, id_kind, scan};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let envelope = scan(data);
    if let Some(range) = &envelope.id {
        assert!(range.start <= range.end && range.end <= data.len());
        let raw = &data[range.clone()];
        if id_kind(raw) == IdKind::Usable {
            assert!(serde_json::from_slice::<serde::de::IgnoredAny>(raw).is_ok());
        }
    }
    if let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(data) {
        assert!(envelope.is_object);
        if let Some(Value::String(_) | Value::Number(_)) = map.get("id") {
            let range = envelope.id.expect("serde sees an id the scanner missed");
            // With a duplicate key serde keeps the last, the scanner the first; both are values.
            assert!(serde_json::from_slice::<Value>(&data[range]).is_ok());
        }
        assert_eq!(envelope.has_method, map.contains_key("method"));
    }
});
