//! The text editor's encoding detection: any bytes it accepts as text come back byte-exact when
//! encoded again (encoding, byte-order mark, line endings and all).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_server_text_editor::document::decode;

fuzz_target!(|data: &[u8]| {
    if let Ok(document) = decode(data.to_vec()) {
        let again = document.encode().expect("a decoded document encodes");
        assert_eq!(again, data, "decode + encode is not lossless");
    }
});
