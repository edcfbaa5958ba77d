//! A manuscript's images and attachments: what is written beside its article.
//!
//! - From disk: the relative image links of the manuscript (Markdown `![…](…)`, reference images
//!   included, and HTML `<img src>`; CommonMark, so a link in a code block is no link) that resolve
//!   inside the allowed source directories, not hidden and not through a link leaving them, are
//!   copied beside the article at the same relative path. Any other image link (a URL, an absolute
//!   path, one that climbs out of the article's directory, a hidden or missing file) is left as it
//!   is and named in a warning.
//! - By content: the client sends `attachments: [{path, data}]` (base64), written beside the
//!   article at `path`, which must stay inside the article's directory.
//!
//! Both are bounded per file, in number and in total ([`AttachmentLimits`]); a re-filing overwrites
//! the attachments it names (when their bytes differ) and never deletes other files.

use std::{io::Read, path::Path};

use base64::Engine as _;
use mcp_shared::{
    ErrorCode, ToolError,
    sandbox::{ResolvedKind, SandboxError},
};
use pulldown_cmark::{Event, Parser, Tag};

use crate::{projects::ARTICLE, source::Sources};

/// The default largest attachment, in bytes (`--max-attachment-size`).
pub const DEFAULT_MAX_ATTACHMENT_BYTES: u64 = 8 * 1024 * 1024;

/// The default most bytes of attachments one call writes (`--max-attachments-total`).
pub const DEFAULT_MAX_ATTACHMENTS_TOTAL: u64 = 32 * 1024 * 1024;

/// The most attachments one call writes.
pub const MAX_ATTACHMENTS: usize = 64;

/// The bounds of a call's attachments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttachmentLimits {
    /// The largest one, in bytes.
    pub max_file: u64,
    /// All of a call's, in bytes.
    pub max_total: u64,
}

impl Default for AttachmentLimits {
    fn default() -> Self {
        AttachmentLimits { max_file: DEFAULT_MAX_ATTACHMENT_BYTES, max_total: DEFAULT_MAX_ATTACHMENTS_TOTAL }
    }
}

/// A file to write beside the article.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// Its path relative to the article's directory (`/`-separated, normalised, checked).
    pub path: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// An attachment as a client sends it.
#[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AttachmentInput {
    /// Where it goes, relative to the article's directory, as the manuscript links it: e.g. "img/fig.png" for `![figure](img/fig.png)`. It must stay inside the article's directory (no `..` out of it, no absolute path, no hidden name) and cannot be article.md.
    pub path: String,
    /// Its bytes, base64-encoded (standard alphabet, padding optional).
    pub data: String,
}

/// The longest attachment path, in bytes, and the longest name in it (most file systems' own
/// limit): checked before anything is written, so a path the file system would refuse halfway
/// leaves no directories behind.
const MAX_PATH_BYTES: usize = 1024;
const MAX_NAME_BYTES: usize = 255;

/// The most warnings about image links one answer names; the rest are counted.
pub const MAX_LINK_WARNINGS: usize = 20;

/// `link` (as a manuscript writes it, or an attachment's `path`) as a path inside the article's
/// directory: `/`-separated, `.` removed, `..` resolved; or why it cannot be one: it leaves the
/// directory, is absolute or a URL, names a hidden component, ends in `/` (a directory), is the
/// article itself (in any case: `ARTICLE.MD` is the article on macOS and Windows), or is too
/// long for a file system.
pub fn article_path(link: &str) -> Result<String, &'static str> {
    const OUTSIDE: &str = "it must stay inside the article's directory: a relative path such as \"img/fig.png\", without `..` out of it, a hidden name, or article.md";
    if link.is_empty() || link.contains(['\0', '\\']) || link.starts_with('/') || has_scheme(link) {
        return Err(OUTSIDE);
    }
    if link.ends_with('/') {
        return Err("it ends in `/`, which names a directory, not a file");
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in link.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop().ok_or(OUTSIDE)?;
            }
            hidden if hidden.starts_with('.') => return Err(OUTSIDE),
            long if long.len() > MAX_NAME_BYTES => return Err("a name in it is longer than 255 bytes"),
            name => parts.push(name),
        }
    }
    let path = parts.join("/");
    if path.is_empty() || path.eq_ignore_ascii_case(ARTICLE) {
        return Err(OUTSIDE);
    }
    if path.len() > MAX_PATH_BYTES {
        return Err("it is longer than 1024 bytes");
    }
    Ok(path)
}

/// Why two attachment paths cannot both be written: the same file (names compared without
/// case, as macOS and Windows compare them), or one is a directory on the other's way.
fn clash(a: &str, b: &str) -> Option<&'static str> {
    let (a, b) = (a.to_lowercase(), b.to_lowercase());
    if a == b {
        return Some("names the same file as another attachment (names are compared without case)");
    }
    let (short, long) = if a.len() < b.len() { (&a, &b) } else { (&b, &a) };
    (long.starts_with(short.as_str()) && long.as_bytes().get(short.len()) == Some(&b'/'))
        .then_some("is both a file and a directory on another attachment's way")
}

/// `warnings` with at most [`MAX_LINK_WARNINGS`] named; the rest counted in one more.
pub fn capped(mut warnings: Vec<String>) -> Vec<String> {
    if warnings.len() > MAX_LINK_WARNINGS {
        let more = warnings.len() - MAX_LINK_WARNINGS;
        warnings.truncate(MAX_LINK_WARNINGS);
        warnings
            .push(format!("… and {more} more image links left as they are (the first {MAX_LINK_WARNINGS} are named)"));
    }
    warnings
}

/// Whether `link` starts with a URL scheme (`https:`, `data:`, `mailto:`, a drive letter `C:`).
fn has_scheme(link: &str) -> bool {
    match link.find(':') {
        Some(colon) => {
            let scheme = &link[..colon];
            !scheme.is_empty()
                && !scheme.contains('/')
                && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        }
        None => false,
    }
}

/// The image links of `text`, in order, each once: Markdown images (inline and reference) and
/// the `src` of HTML `<img>` tags; the part before `?` or `#`, percent-decoded.
pub fn image_links(text: &str) -> Vec<String> {
    let mut links: Vec<String> = Vec::new();
    let mut add = |raw: &str| {
        let cut = raw.find(['?', '#']).map_or(raw, |at| &raw[..at]);
        let decoded = percent_decode(cut.trim());
        if !decoded.is_empty() && !links.contains(&decoded) {
            links.push(decoded);
        }
    };
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Image { dest_url, .. }) => add(&dest_url),
            Event::Html(html) | Event::InlineHtml(html) => {
                for src in img_sources(&html) {
                    add(&src);
                }
            }
            _ => {}
        }
    }
    links
}

/// The `src` values of the `<img …>` tags in an HTML fragment.
fn img_sources(html: &str) -> Vec<String> {
    let lower = html.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = lower[from..].find("<img") {
        let start = from + at + 4;
        let end = lower[start..].find('>').map_or(lower.len(), |e| start + e);
        let tag = &html[start..end];
        let tag_lower = &lower[start..end];
        let mut search = 0;
        while let Some(pos) = tag_lower[search..].find("src") {
            let after_name = search + pos + 3;
            let before_ok = search + pos == 0 || tag_lower.as_bytes()[search + pos - 1].is_ascii_whitespace();
            let rest = tag[after_name..].trim_start();
            if before_ok && let Some(value) = rest.strip_prefix('=') {
                let value = value.trim_start();
                let parsed = match value.chars().next() {
                    Some(quote @ ('"' | '\'')) => value[1..].split(quote).next().map(str::to_owned),
                    Some(_) => value.split(|c: char| c.is_ascii_whitespace() || c == '/').next().map(str::to_owned),
                    None => None,
                };
                if let Some(src) = parsed {
                    found.push(src);
                }
                break;
            }
            search = after_name;
        }
        from = end;
    }
    found
}

/// Where an image link points beside the article (`img/a.png`), as the attachments are named;
/// `None` for a URL or a path that cannot sit beside it.
pub fn link_path(raw: &str) -> Option<String> {
    let cut = raw.find(['?', '#']).map_or(raw, |at| &raw[..at]);
    let link = percent_decode(cut.trim());
    if link.is_empty() || has_scheme(&link) || link.starts_with("//") {
        return None;
    }
    article_path(&link).ok()
}

/// `%XX` sequences decoded (invalid ones kept as they are); the result read as UTF-8 (lossy).
fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text).decode_utf8_lossy().into_owned()
}

/// The files a manuscript read from `dir` (its canonical directory) links as images, read through
/// `sources`: what can be copied beside the article, and a warning for each link left as it is.
pub fn from_links(
    sources: &Sources,
    dir: &Path,
    text: &str,
    limits: AttachmentLimits,
) -> (Vec<Attachment>, Vec<String>) {
    let mut attachments = Vec::new();
    let mut warnings = Vec::new();
    let mut total = 0u64;
    for link in image_links(text) {
        if has_scheme(&link) || link.starts_with("//") {
            continue; // A URL: nothing to copy, nothing broken.
        }
        let leave = |why: &str| format!("image link `{link}` left as it is: {why}");
        let path = match article_path(&link) {
            Ok(path) => path,
            Err(why) => {
                warnings.push(leave(&format!("it cannot sit at the same relative path beside the article: {why}")));
                continue;
            }
        };
        // `img/a.png`, `./img/a.png` and `img//a.png` are one file, copied once.
        if attachments.iter().any(|a: &Attachment| a.path == path) {
            continue;
        }
        if let Some(why) = attachments.iter().find_map(|a: &Attachment| clash(&a.path, &path)) {
            warnings.push(leave(&format!("it {why}")));
            continue;
        }
        if attachments.len() >= MAX_ATTACHMENTS {
            warnings.push(leave(&format!("a call copies at most {MAX_ATTACHMENTS} files")));
            continue;
        }
        match read_linked(sources, dir, &path, limits.max_file) {
            Ok(bytes) if total + bytes.len() as u64 > limits.max_total => {
                warnings.push(leave(&format!(
                    "the files copied would pass the limit of {} bytes per call (--max-attachments-total)",
                    limits.max_total
                )));
            }
            Ok(bytes) => {
                total += bytes.len() as u64;
                attachments.push(Attachment { path, bytes });
            }
            Err(why) => warnings.push(leave(&why)),
        }
    }
    (attachments, capped(warnings))
}

/// The bytes of `rel` below the manuscript's directory `dir`, confined as a manuscript is: inside
/// the allowed source directories (symlinks resolved by the sandbox, a link leaving them refused),
/// no hidden component, a regular file within `max` bytes. The error says why not, from the
/// sandbox's own refusal (an I/O failure is also logged with its cause).
fn read_linked(sources: &Sources, dir: &Path, rel: &str, max: u64) -> Result<Vec<u8>, String> {
    let joined = dir.join(rel);
    let joined = joined.to_str().ok_or("its path is not UTF-8")?;
    let roots = &sources.roots;
    let resolved = roots.resolve(joined).and_then(|p| roots.resolve_file(&p)).map_err(|e| not_copied(&e))?;
    if resolved.rel().components().any(|c| c.as_os_str().as_encoded_bytes().starts_with(b".")) {
        return Err("it is, or is reached through, a hidden file or directory".into());
    }
    match resolved.kind() {
        ResolvedKind::File => {}
        ResolvedKind::Missing => return Err("no such file".into()),
        _ => return Err("not a regular file".into()),
    }
    let file = roots.open_resolved(&resolved).map_err(|e| not_copied(&e))?;
    let unreadable = |error: std::io::Error| {
        tracing::warn!(path = joined, %error, "cannot read an image a manuscript links");
        format!("it could not be read ({})", error.kind())
    };
    if file.metadata().map_err(unreadable)?.len() > max {
        return Err("it is larger than the limit per attachment (--max-attachment-size)".into());
    }
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes).map_err(unreadable)?;
    if bytes.len() as u64 > max {
        return Err("it is larger than the limit per attachment (--max-attachment-size)".into());
    }
    Ok(bytes)
}

/// Why the sandbox would not give a linked image: its own cause, never a guess.
fn not_copied(error: &SandboxError) -> String {
    match error {
        SandboxError::OutsideRoot { .. } => {
            "it is outside the allowed source directories (or reached through a link leaving them)".into()
        }
        SandboxError::NotFound { .. } | SandboxError::NotADirectory { .. } => "no such file".into(),
        SandboxError::PermissionDenied { .. } => "the server may not read it (permission denied)".into(),
        SandboxError::InvalidPath { reason, .. } => format!("its path cannot be read: {reason}"),
        SandboxError::Io { path, kind, source } => {
            tracing::warn!(path, %kind, error = %source, "cannot open an image a manuscript links");
            format!("it could not be opened ({kind})")
        }
        other => other.to_string(),
    }
}

/// The attachments a client sent, checked and decoded, all or none: a path that leaves the
/// article's directory, bad base64, or a file or total over its bound refuses the call.
pub fn from_input(inputs: &[AttachmentInput], limits: AttachmentLimits) -> Result<Vec<Attachment>, ToolError> {
    let refuse = |message: String| ToolError::new(ErrorCode::InvalidArgs, format!("{message}; nothing was written."));
    if inputs.len() > MAX_ATTACHMENTS {
        return Err(refuse(format!("{} attachments were sent; a call takes at most {MAX_ATTACHMENTS}", inputs.len())));
    }
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    let mut out: Vec<Attachment> = Vec::with_capacity(inputs.len());
    let mut total = 0u64;
    for (i, input) in inputs.iter().enumerate() {
        let path = article_path(&input.path)
            .map_err(|why| refuse(format!("attachments[{i}].path {:?} cannot be written: {why}", input.path)))?;
        if out.iter().any(|a| a.path == path) {
            return Err(refuse(format!("attachments[{i}].path {:?} is given twice", input.path)));
        }
        if let Some((j, why)) = out.iter().enumerate().find_map(|(j, a)| clash(&a.path, &path).map(|why| (j, why))) {
            return Err(refuse(format!("attachments[{i}].path {:?} {why} (attachments[{j}])", input.path)));
        }
        // Decoded size, before decoding: 3 bytes per 4 characters (whitespace, which MIME
        // line breaks add, is not data).
        let characters = input.data.bytes().filter(|b| !b.is_ascii_whitespace()).count();
        let estimate = (characters as u64 / 4) * 3;
        if estimate > limits.max_file + 3 {
            return Err(refuse(format!(
                "attachments[{i}] ({path}) is about {estimate} bytes, over the limit of {} per attachment (--max-attachment-size)",
                limits.max_file
            )));
        }
        let data: String = input.data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        let bytes = engine
            .decode(data.as_bytes())
            .map_err(|e| refuse(format!("attachments[{i}].data ({path}) is not valid base64: {e}")))?;
        if bytes.len() as u64 > limits.max_file {
            return Err(refuse(format!(
                "attachments[{i}] ({path}) is {} bytes, over the limit of {} per attachment (--max-attachment-size)",
                bytes.len(),
                limits.max_file
            )));
        }
        total += bytes.len() as u64;
        if total > limits.max_total {
            return Err(refuse(format!(
                "the attachments pass the limit of {} bytes per call (--max-attachments-total) at attachments[{i}]",
                limits.max_total
            )));
        }
        out.push(Attachment { path, bytes });
    }
    Ok(out)
}

/// Warnings for the image links of a manuscript sent as content that no attachment provides.
pub fn unprovided_links(text: &str, attachments: &[Attachment]) -> Vec<String> {
    capped(
        image_links(text)
            .into_iter()
            .filter(|link| !has_scheme(link) && !link.starts_with("//"))
            .filter(|link| !article_path(link).is_ok_and(|path| attachments.iter().any(|a| a.path == path)))
            .map(|link| format!("image link `{link}` left as it is: no attachment with that path was sent"))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn article_paths_stay_inside_the_article_directory() {
        assert_eq!(article_path("img/fig.png").as_deref(), Ok("img/fig.png"));
        assert_eq!(article_path("./img/../fig.png").as_deref(), Ok("fig.png"));
        for bad in [
            "../x.png",
            "img/../../x.png",
            "/etc/passwd",
            "C:/x.png",
            "https://e.com/x.png",
            ".hidden/x.png",
            "img/.x.png",
            "article.md",
            "./article.md",
            "ARTICLE.MD",
            "Article.md",
            "img/",
            "",
            "a\\b.png",
            "a\0.png",
        ] {
            assert!(article_path(bad).is_err(), "{bad:?}");
        }
        let deep = format!("{}x.png", "d/".repeat(600));
        assert_eq!(article_path(&deep), Err("it is longer than 1024 bytes"));
        assert!(article_path(&format!("{}.png", "n".repeat(300))).is_err());
    }

    #[test]
    fn image_links_are_found_as_commonmark_and_html_give_them() {
        let text = "# T\n\n![fig](img/fig.png \"title\") and ![ref][r] and [not an image](doc.pdf)\n\n\
                    ```\n![in code](code.png)\n```\n\n<img alt=\"x\" src=\"html.png\"> <IMG SRC='upper.png'/>\n\n\
                    ![dup](img/fig.png) ![space](my%20pic.png?raw=1) ![url](https://e.com/a.png)\n\n[r]: ref.png\n";
        assert_eq!(
            image_links(text),
            vec!["img/fig.png", "ref.png", "html.png", "upper.png", "my pic.png", "https://e.com/a.png"]
        );
    }

    #[test]
    fn client_attachments_are_checked_all_or_none() {
        let limits = AttachmentLimits { max_file: 10, max_total: 14 };
        let ok = AttachmentInput { path: "img/a.bin".into(), data: "aGVsbG8=".into() };
        assert_eq!(
            from_input(std::slice::from_ref(&ok), limits).unwrap(),
            vec![Attachment { path: "img/a.bin".into(), bytes: b"hello".to_vec() }]
        );
        let out = AttachmentInput { path: "../escape.png".into(), data: "aGVsbG8=".into() };
        let error = from_input(&[ok.clone(), out], limits).unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidArgs);
        assert!(
            error.message.contains("attachments[1].path") && error.message.contains("nothing was written"),
            "{}",
            error.message
        );
        let bad = AttachmentInput { path: "b.bin".into(), data: "***".into() };
        assert!(from_input(&[bad], limits).unwrap_err().message.contains("not valid base64"));
        let big = AttachmentInput { path: "c.bin".into(), data: "aGVsbG8gd29ybGQh".into() };
        assert!(from_input(&[big], limits).unwrap_err().message.contains("per attachment"));
        let twice = [
            ok.clone(),
            AttachmentInput { path: "img/b.bin".into(), data: "aGVsbG8=".into() },
            AttachmentInput { path: "img/c.bin".into(), data: "aGVsbG8=".into() },
        ];
        assert!(from_input(&twice, limits).unwrap_err().message.contains("per call"));
        // Whitespace (MIME line breaks) is not counted as data.
        let wrapped = AttachmentInput { path: "d.bin".into(), data: format!("aGVs{}bG8=", "\r\n".repeat(500)) };
        assert_eq!(from_input(&[wrapped], limits).unwrap()[0].bytes, b"hello");
    }

    #[test]
    fn attachments_that_clash_are_refused_before_anything_is_written() {
        let limits = AttachmentLimits::default();
        let input = |path: &str| AttachmentInput { path: path.into(), data: "aGVsbG8=".into() };
        for (a, b) in [("img", "img/fig.png"), ("img/fig.png", "img"), ("Fig.png", "fig.png"), ("x/A", "x/a")] {
            let error = from_input(&[input(a), input(b)], limits).unwrap_err();
            assert!(
                error.message.contains("attachments[1].path") && error.message.contains("(attachments[0])"),
                "{}",
                error.message
            );
        }
        assert_eq!(
            from_input(&[input("img-x"), input("img/fig.png"), input("img")], limits).unwrap_err().code,
            ErrorCode::InvalidArgs
        );
        assert!(from_input(&[input("img.png"), input("img/fig.png")], limits).is_ok());
        let error = from_input(&[input("img/")], limits).unwrap_err();
        assert!(error.message.contains("ends in `/`"), "{}", error.message);
    }

    #[test]
    fn link_warnings_are_bounded_and_one_file_is_copied_once() {
        let text: String = (0..500).map(|i| format!("![m](missing-{i}.png)\n")).collect();
        let warnings = unprovided_links(&text, &[]);
        assert_eq!(warnings.len(), MAX_LINK_WARNINGS + 1);
        assert!(warnings[MAX_LINK_WARNINGS].contains("480 more image links"), "{}", warnings[MAX_LINK_WARNINGS]);
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("img")).unwrap();
        std::fs::write(root.join("img/a.png"), b"png").unwrap();
        let sources = Sources {
            roots: mcp_shared::sandbox::Sandbox::new([&root]).unwrap(),
            base: root.clone(),
            max_bytes: 1 << 20,
        };
        let (attachments, warnings) = from_links(
            &sources,
            &root,
            "![a](img/a.png) ![b](./img/a.png) ![c](img//a.png) ![d](img/%61.png)",
            limits(),
        );
        assert_eq!(attachments.len(), 1, "{attachments:?}");
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    fn limits() -> AttachmentLimits {
        AttachmentLimits::default()
    }

    #[test]
    fn links_without_an_attachment_are_named() {
        let attachments = [Attachment { path: "img/a.png".into(), bytes: vec![] }];
        let warnings =
            unprovided_links("![a](img/a.png) ![b](img/b.png) ![u](https://x/y.png) ![o](../o.png)", &attachments);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("img/b.png") && warnings[1].contains("../o.png"));
    }
}
