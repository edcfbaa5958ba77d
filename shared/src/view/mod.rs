//! MCP Apps views (`io.modelcontextprotocol/ui`): a tool that declares a [`View`] is listed with
//! `_meta.ui.resourceUri`, its HTML is served by `resources/read` as one self-contained document
//! (`text/html;profile=mcp-app`), and its results carry the data the view shows in their `_meta`
//! ([`DATA_KEY`]), where the model does not read it: the `content` a model reads is the same
//! with or without a host that renders views.
//!
//! A view is one checked-in HTML fragment (its own style, markup and script), embedded in the
//! binary; [`View::document`] wraps it with what every view shares: the theme (the host's CSS
//! variables, with light and dark fallbacks) and a small client of the host's `postMessage`
//! JSON-RPC (`ui/initialize`, the tool's input and result, `tools/call` through the host,
//! `ui/update-model-context`, size changes). No outside origin, no build step.

use rmcp::model::{MetaObject, ReadResourceResult, ResourceContents};
use serde_json::{Value, json};

/// The extension's identifier, as clients and servers declare it.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of a view's HTML.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The key, in a tool result's `_meta`, of the data its view shows.
pub const DATA_KEY: &str = "mcp-suite/view";

/// The most a view's document may weigh (checked by the tests of every server's views).
pub const MAX_VIEW_BYTES: usize = 150 * 1024;

/// What every view shares: the theme and the page's frame.
const STYLE: &str = include_str!("view.css");

/// What every view shares: the host client and the safe DOM helpers (`ui.*`).
const SCRIPT: &str = include_str!("view.js");

/// A tool's view: its `ui://` URI, the title a host may show, and its HTML fragment.
#[derive(Debug)]
pub struct View {
    /// `ui://<server>/<view>`.
    pub uri: &'static str,
    /// What it shows, in a few words (the document's title).
    pub title: &'static str,
    /// The view's own `<style>`, markup and `<script>` (which calls `ui.start(render)`).
    pub body: &'static str,
}

impl View {
    /// The whole HTML document served for [`Self::uri`].
    pub fn document(&self) -> String {
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n<title>{title}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<script>\n{SCRIPT}</script>\n{body}\n</body>\n</html>\n",
            title = self.title,
            body = self.body,
        )
    }

    /// `resources/read` of the view: the document, asking the host for a border.
    pub fn read(&self) -> ReadResourceResult {
        let mut meta = MetaObject::new();
        meta.0.insert("ui".to_owned(), json!({"prefersBorder": true}));
        let contents = ResourceContents::TextResourceContents {
            uri: self.uri.to_owned(),
            mime_type: Some(MIME_TYPE.to_owned()),
            text: self.document(),
            meta: Some(meta),
        };
        ReadResourceResult::new(vec![contents])
    }
}

/// The SHA-256 of `bytes`, in lowercase hex: what a view's result carries as a file's content
/// and what a writing tool's `if_sha256` is compared with.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// `text` for an error message: its first 80 characters, then `…` if there were more.
pub fn shown_briefly(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(80).collect();
    if chars.next().is_some() { format!("{head}…") } else { head }
}

/// The tool's `_meta` entries that name its view (`ui.resourceUri`, and the flat
/// `ui/resourceUri` hosts read before the extension was stable).
pub fn tool_meta(meta: &mut MetaObject, view: &View) {
    meta.0.insert("ui".to_owned(), json!({"resourceUri": view.uri}));
    meta.0.insert("ui/resourceUri".to_owned(), Value::String(view.uri.to_owned()));
}

/// Removes what [`tool_meta`] added (`--no-views`).
pub fn strip_tool_meta(meta: &mut MetaObject) {
    meta.0.remove("ui");
    meta.0.remove("ui/resourceUri");
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: View = View { uri: "ui://test/sample", title: "Sample", body: "<main id=\"app\"></main>" };

    #[test]
    fn the_document_is_one_self_contained_page() {
        let html = SAMPLE.document();
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("<main id=\"app\"></main>"));
        assert!(html.len() < MAX_VIEW_BYTES);
        for outside in ["http://", "https://", "//cdn", "src=\""] {
            assert!(!html.contains(outside), "{outside}");
        }
        let read = serde_json::to_value(SAMPLE.read()).unwrap();
        assert_eq!(read["contents"][0]["mimeType"], MIME_TYPE);
        assert_eq!(read["contents"][0]["uri"], "ui://test/sample");
        assert_eq!(read["contents"][0]["_meta"]["ui"]["prefersBorder"], true);
    }

    #[test]
    fn hashes_are_sha256_in_lowercase_hex() {
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(shown_briefly("short"), "short");
        assert_eq!(shown_briefly(&"x".repeat(81)), format!("{}…", "x".repeat(80)));
    }

    #[test]
    fn the_tool_meta_is_added_and_removed_whole() {
        let mut meta = MetaObject::new();
        meta.0.insert("other".to_owned(), json!(1));
        tool_meta(&mut meta, &SAMPLE);
        assert_eq!(meta.0.get("ui"), Some(&json!({"resourceUri": "ui://test/sample"})));
        assert_eq!(meta.0.get("ui/resourceUri"), Some(&json!("ui://test/sample")));
        strip_tool_meta(&mut meta);
        assert_eq!(serde_json::to_value(&meta).unwrap(), json!({"other": 1}));
    }
}
