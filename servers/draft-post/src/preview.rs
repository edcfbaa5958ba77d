//! The MCP Apps views of draft-post: `draft_post`'s article preview and `list_posts`' table (which
//! shows the result's structured content: it needs no data of its own).
//!
//! The preview shows the article as a reader would: its frontmatter as a header (title, date,
//! tags, status), its Markdown rendered here with pulldown-cmark and sanitised with ammonia (raw
//! HTML in a manuscript cannot run: scripts, event handlers and `javascript:` links are removed),
//! the images beside the article inlined as `data:` URIs within a budget (the view may fetch
//! nothing), and for an update the diff against the previous version. A dry run's preview has a
//! **Save draft** button: the same call without `dry_run`.

use std::collections::HashMap;

use base64::Engine as _;
use mcp_shared::view::View;
use pulldown_cmark::{Options, Parser, html};
use serde_json::{Value, json};

use crate::{
    attach::{self, Attachment},
    frontmatter,
    repo::Outcome,
};

/// `draft_post`'s view.
pub static ARTICLE: View =
    View { uri: "ui://draft-post/article", title: "Article preview", body: include_str!("../views/article.html") };

/// `list_posts`' view.
pub static POSTS: View =
    View { uri: "ui://draft-post/posts", title: "Articles", body: include_str!("../views/posts.html") };

/// The most image bytes one preview inlines; the images past it are named instead.
pub const MAX_INLINE_IMAGE_BYTES: usize = 2 * 1024 * 1024;

/// The most bytes of rendered HTML a preview carries.
pub const MAX_HTML_BYTES: usize = 512 * 1024;

/// The preview's data: the article `text` as filed (or as it would be), the images beside it.
pub fn article(outcome: &Outcome, text: &str, attachments: &[Attachment]) -> Value {
    let (fields, body) = match frontmatter::split(text) {
        Ok(parts) => {
            (parts.frontmatter.and_then(|block| frontmatter::values(block.yaml)).unwrap_or_default(), parts.body)
        }
        Err(_) => (serde_json::Map::new(), text),
    };
    let scalar = |key: &str| match fields.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(Value::Bool(b)) => Some(b.to_string()),
        _ => None,
    };
    let tags: Vec<String> = match fields.get("tags") {
        Some(Value::Array(items)) => items.iter().filter_map(|t| t.as_str().map(str::to_owned)).collect(),
        Some(Value::String(s)) => s.split(',').map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()).collect(),
        _ => Vec::new(),
    };
    let status = scalar("status").or_else(|| match fields.get("draft") {
        Some(Value::Bool(true)) => Some("draft".to_owned()),
        Some(Value::Bool(false)) => Some("published".to_owned()),
        _ => None,
    });
    let (html, left_out) = render(body, attachments);
    let mut data = json!({
        "action": outcome.action.as_str(),
        "dryRun": outcome.dry_run,
        "article": outcome.article,
        "title": scalar("title"),
        "date": scalar("date"),
        "status": status,
        "tags": tags,
        "html": html,
        "imagesNotShown": left_out,
        "save": outcome.dry_run,
    });
    if let Some(change) = &outcome.change {
        data["diff"] = json!(change.diff);
    }
    data
}

/// The Markdown `body` as sanitised HTML, its images beside the article inlined (within
/// [`MAX_INLINE_IMAGE_BYTES`]), and the images it could not show.
pub fn render(body: &str, attachments: &[Attachment]) -> (String, Vec<String>) {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS | Options::ENABLE_FOOTNOTES;
    let mut raw = String::with_capacity(body.len() * 3 / 2);
    html::push_html(&mut raw, Parser::new_ext(body, options));
    // The images, in the order the manuscript links them, while the budget lasts.
    let mut inlined: HashMap<String, String> = HashMap::new();
    let mut left_out = Vec::new();
    let mut spent = 0usize;
    for link in attach::image_links(body) {
        let Some(path) = attach::link_path(&link) else {
            left_out.push(link);
            continue;
        };
        match attachments.iter().find(|a| a.path == path) {
            Some(image) if spent + image.bytes.len() <= MAX_INLINE_IMAGE_BYTES && mime(&path).is_some() => {
                spent += image.bytes.len();
                let uri = format!(
                    "data:{};base64,{}",
                    mime(&path).unwrap_or("application/octet-stream"),
                    base64::engine::general_purpose::STANDARD.encode(&image.bytes)
                );
                inlined.insert(path, uri);
            }
            _ => left_out.push(link),
        }
    }
    let mut cleaner = ammonia::Builder::default();
    cleaner.attribute_filter(move |element, attribute, value| match (element, attribute) {
        // An image beside the article becomes its data; any other image keeps only its alt text.
        ("img", "src") => attach::link_path(value).and_then(|path| inlined.get(&path)).map(|uri| uri.clone().into()),
        _ => Some(value.into()),
    });
    let mut clean = cleaner.clean(&raw).to_string();
    if clean.len() > MAX_HTML_BYTES {
        let mut cut = MAX_HTML_BYTES;
        while !clean.is_char_boundary(cut) {
            cut -= 1;
        }
        clean.truncate(cut);
        clean = cleaner.clean(&clean).to_string();
        clean.push_str("<p><em>(The preview is cut here; the article holds the rest.)</em></p>");
    }
    (clean, left_out)
}

/// The MIME type of an image a browser shows from a `data:` URI, by its extension.
fn mime(path: &str) -> Option<&'static str> {
    let ext = path.rsplit('.').next()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "avif" => "image/avif",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png() -> Vec<u8> {
        vec![0x89, b'P', b'N', b'G', 13, 10, 26, 10]
    }

    #[test]
    fn markdown_is_rendered_and_nothing_in_it_can_run() {
        let body = "# Title\n\nText with <script>alert(1)</script> and <img src=x onerror=alert(2)>.\n\n\
                    [a link](javascript:alert(3)) <a href=\"https://example.com\" onclick=\"x()\">ok</a>\n";
        let (html, _) = render(body, &[]);
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        for bad in ["<script", "onerror", "javascript:", "onclick", "alert(1)"] {
            assert!(!html.contains(bad), "{bad} in {html}");
        }
        assert!(html.contains("href=\"https://example.com\""), "{html}");
    }

    #[test]
    fn images_beside_the_article_are_inlined_and_others_named() {
        let attachments = vec![Attachment { path: "img/fig.png".into(), bytes: png() }];
        let body = "![figure](img/fig.png)\n\n![remote](https://example.com/x.png)\n\n![gone](missing.png)\n";
        let (html, left_out) = render(body, &attachments);
        assert!(html.contains("src=\"data:image/png;base64,iVBORw0KGgo=\""), "{html}");
        assert!(!html.contains("example.com/x.png") && !html.contains("missing.png"), "{html}");
        assert_eq!(left_out, vec!["https://example.com/x.png".to_owned(), "missing.png".to_owned()]);
        let big = vec![Attachment { path: "big.png".into(), bytes: vec![0; MAX_INLINE_IMAGE_BYTES + 1] }];
        let (html, left_out) = render("![big](big.png)\n", &big);
        assert!(!html.contains("data:"), "over the budget: named, not inlined");
        assert_eq!(left_out, vec!["big.png".to_owned()]);
    }

    #[test]
    fn the_header_comes_from_the_frontmatter() {
        let outcome = Outcome {
            action: crate::repo::Action::Created,
            project: "2026-11".into(),
            number: 1,
            slug: "hello".into(),
            dir: "projects/2026-11/01-hello".into(),
            article: "projects/2026-11/01-hello/article.md".into(),
            source_id: "0123".into(),
            warnings: Vec::new(),
            change: None,
            attachments: Vec::new(),
            dry_run: true,
        };
        let text =
            "---\ntitle: Hello\ndate: 2026-11-29\ntags: [rust, mcp]\ndraft: true\nsource_id: '0123'\n---\n\n## Intro\n";
        let data = article(&outcome, text, &[]);
        assert_eq!(data["title"], "Hello");
        assert_eq!(data["date"], "2026-11-29");
        assert_eq!(data["tags"], json!(["rust", "mcp"]));
        assert_eq!(data["status"], "draft");
        assert_eq!(data["save"], true);
        assert!(data["html"].as_str().unwrap().contains("<h2>Intro</h2>"));
    }
}
