//! YAML frontmatter: finding it, validating it, reading the few keys the server needs, and
//! adding `source_id` while keeping every other byte of the manuscript.
//!
//! The frontmatter is never re-serialised: comments, quoting, key order and blank lines stay
//! exactly as written. `serde-saphyr` parses it to validate it (and to report a malformed one
//! with its line and column); the text is then edited line-wise (the `source_id:` line is
//! replaced or appended) and the result parsed again to prove that the edit changed nothing
//! else.
//!
//! Scanning thousands of articles must be fast, so [`quick_meta`] reads the common shape of
//! frontmatter (`key: value` lines with plain or simply quoted scalars) without a YAML parser.
//! It is conservative: whenever a line could mean anything else it gives up, and the caller
//! falls back to [`parse_meta`]. A test checks that the two agree on everything the quick
//! reader accepts.

use serde_json::Value;

/// The key that carries the manuscript's identity.
pub const SOURCE_ID_KEY: &str = "source_id";

/// The UTF-8 byte order mark.
const BOM: &str = "\u{feff}";

/// A malformed frontmatter, located in the whole file (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct FrontmatterError {
    /// The line in the file (1-based).
    pub line: usize,
    /// The column in that line (1-based, in characters).
    pub column: usize,
    /// What is wrong, for a person or a model to fix.
    pub message: String,
}

/// A document cut into its parts; concatenating them gives the document back byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts<'a> {
    /// The byte order mark, if the document starts with one (else empty).
    pub bom: &'a str,
    /// The frontmatter block, if the document has one.
    pub frontmatter: Option<Block<'a>>,
    /// Everything after the frontmatter's closing line (the whole document, less the BOM,
    /// when there is no frontmatter).
    pub body: &'a str,
}

/// A frontmatter block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block<'a> {
    /// The opening line with its line break (`---\n`).
    pub open: &'a str,
    /// The YAML between the delimiter lines (each line with its line break).
    pub yaml: &'a str,
    /// The closing line (`---` or `...`) with its line break, if it has one.
    pub close: &'a str,
    /// The file line (1-based) on which [`Block::yaml`] starts.
    pub first_line: usize,
}

/// Where the frontmatter of a (possibly partial) document ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Located {
    /// The document has no frontmatter.
    None,
    /// The frontmatter's YAML is `bytes[yaml_start..yaml_end]`; the closing line ends at
    /// `close_end`.
    Found {
        /// Where the YAML starts (after the opening line).
        yaml_start: usize,
        /// Where the YAML ends (the closing line starts here).
        yaml_end: usize,
        /// Where the closing line (with its line break) ends.
        close_end: usize,
    },
    /// The frontmatter is open and not closed within the bytes given.
    Unclosed,
}

/// Whether `line` (without its line break) is a delimiter line: `---` (or `...` when
/// `dots`), with trailing blanks allowed.
fn is_delimiter(line: &[u8], dots: bool) -> bool {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b' ' | b'\t' | b'\r') {
        end -= 1;
    }
    let line = &line[..end];
    line == b"---" || (dots && line == b"...")
}

/// Finds the frontmatter of `bytes` (the start of a document; the BOM already skipped).
///
/// The document has frontmatter when its first line is `---` and ends with a line break. The
/// frontmatter closes at the next line that is `---` or `...` at column 1.
pub fn locate(bytes: &[u8]) -> Located {
    let Some(first_break) = bytes.iter().position(|&b| b == b'\n') else {
        return Located::None;
    };
    if !is_delimiter(&bytes[..first_break], false) {
        return Located::None;
    }
    let yaml_start = first_break + 1;
    let mut line_start = yaml_start;
    while line_start < bytes.len() {
        let line_end = bytes[line_start..].iter().position(|&b| b == b'\n').map(|i| line_start + i);
        let content_end = line_end.unwrap_or(bytes.len());
        if is_delimiter(&bytes[line_start..content_end], true) {
            let close_end = line_end.map_or(bytes.len(), |e| e + 1);
            return Located::Found { yaml_start, yaml_end: line_start, close_end };
        }
        match line_end {
            Some(e) => line_start = e + 1,
            None => break,
        }
    }
    Located::Unclosed
}

/// Cuts `text` into BOM, frontmatter and body.
pub fn split(text: &str) -> Result<Parts<'_>, FrontmatterError> {
    let (bom, rest) = match text.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => ("", text),
    };
    match locate(rest.as_bytes()) {
        Located::None => Ok(Parts { bom, frontmatter: None, body: rest }),
        Located::Found { yaml_start, yaml_end, close_end } => Ok(Parts {
            bom,
            frontmatter: Some(Block {
                open: &rest[..yaml_start],
                yaml: &rest[yaml_start..yaml_end],
                close: &rest[yaml_end..close_end],
                first_line: 2,
            }),
            body: &rest[close_end..],
        }),
        Located::Unclosed => Err(FrontmatterError {
            line: 1,
            column: 1,
            message: "the frontmatter opened by `---` on line 1 is never closed; add a line `---` after its last \
                      key (or remove the first line if the document has no frontmatter)"
                .to_owned(),
        }),
    }
}

/// What the server reads from a frontmatter.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Meta {
    /// The top-level keys, in order.
    pub keys: Vec<String>,
    /// `title`, when it is a scalar.
    pub title: Option<String>,
    /// `slug`, when it is a scalar.
    pub slug: Option<String>,
    /// `source_id`, when it is a scalar.
    pub source_id: Option<String>,
}

impl Meta {
    fn set(&mut self, key: &str, value: Option<String>) {
        match key {
            "title" => self.title = value,
            "slug" => self.slug = value,
            SOURCE_ID_KEY => self.source_id = value,
            _ => {}
        }
    }
}

/// A scalar's text: strings as they are, numbers and booleans as YAML reads them back.
fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Parses `yaml` (a frontmatter starting on file line `first_line`) with serde-saphyr.
///
/// It must be empty or a mapping; anything else, and any YAML error, is a
/// [`FrontmatterError`] located in the file.
pub fn parse_meta(yaml: &str, first_line: usize) -> Result<Meta, FrontmatterError> {
    let value: Value = serde_saphyr::from_str(yaml).map_err(|e| {
        let (line, column) = e.location().map_or((1, 1), |l| (l.line() as usize, l.column() as usize));
        FrontmatterError {
            line: first_line + line.max(1) - 1,
            column: column.max(1),
            message: yaml_message(&e.to_string()),
        }
    })?;
    match value {
        Value::Null => Ok(Meta::default()),
        Value::Object(map) => {
            let mut meta = Meta { keys: Vec::with_capacity(map.len()), ..Meta::default() };
            for (key, value) in &map {
                meta.keys.push(key.clone());
                meta.set(key, scalar_text(value));
            }
            Ok(meta)
        }
        other => Err(FrontmatterError {
            line: first_line,
            column: 1,
            message: format!(
                "the frontmatter is {}, not a mapping; write it as `key: value` lines",
                match other {
                    Value::Array(_) => "a list",
                    _ => "a single value",
                }
            ),
        }),
    }
}

/// serde-saphyr's message, without its location prefix and source snippet.
fn yaml_message(full: &str) -> String {
    let first = full.lines().next().unwrap_or(full).trim();
    let first = first.strip_prefix("error:").map_or(first, str::trim);
    // "line 3 column 7: message" → "message" (the location is reported separately).
    let message = match first.split_once(": ") {
        Some((head, rest)) if head.starts_with("line ") && head.contains(" column ") => rest,
        _ => first,
    };
    if message.is_empty() { "malformed YAML".to_owned() } else { message.to_owned() }
}

/// Words a plain scalar may not be for the quick reader (booleans, nulls, special floats in
/// YAML 1.1 and 1.2, any case).
const SPECIAL_WORDS: &[&str] = &["true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf", "infinity"];

/// Whether a plain scalar is surely read as a string (not a number, boolean or null) by any
/// YAML 1.1 or 1.2 resolver. `false` means "not sure".
fn plain_is_surely_string(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if unsigned.starts_with('.') || SPECIAL_WORDS.contains(&unsigned) || v.starts_with('~') {
        return false;
    }
    let first = v.chars().next().unwrap_or(' ');
    if first.is_alphabetic() {
        return true;
    }
    // Digits or a sign first: it could be a number unless it has something no number has.
    // Letters in numbers: a radix prefix (`0x`, `0o`, `0b`, then hex digits) and the exponent.
    if unsigned.starts_with("0x") || unsigned.starts_with("0o") || unsigned.starts_with("0b") {
        return false;
    }
    if lower.chars().any(|c| c.is_ascii_alphabetic() && c != 'e') {
        return true;
    }
    let bytes = lower.as_bytes();
    let inner_sign = bytes.iter().enumerate().any(|(i, &b)| i > 0 && matches!(b, b'-' | b'+') && bytes[i - 1] != b'e');
    inner_sign || lower.chars().any(|c| !matches!(c, '0'..='9' | '+' | '-' | '.' | '_' | ':' | 'e'))
}

/// Whether YAML surely reads a plain scalar without error, whatever its type. The only
/// failures of a well-formed plain scalar are floats that are not finite (`1e400`, `.inf`),
/// which serde-saphyr rejects; booleans, nulls, integers and decimals without an exponent
/// are fine.
fn plain_is_safe(v: &str) -> bool {
    if plain_is_surely_string(v) || SPECIAL_WORDS.contains(&v.to_ascii_lowercase().as_str()) {
        return true;
    }
    let digits = v.bytes().filter(u8::is_ascii_digit).count();
    digits <= 300 && v.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'_' | b'.' | b':'))
}

/// Whether `c` may appear in frontmatter as the quick reader sees it (printable, no tab).
fn quick_char_ok(c: char) -> bool {
    !(c < ' '
        || ('\u{7f}'..='\u{9f}').contains(&c)
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'))
}

/// The rest of a line after a value: nothing, or a comment after at least one space.
fn rest_is_comment(rest: &str) -> bool {
    let trimmed = rest.trim_start_matches(' ');
    trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < rest.len())
}

/// A quoted scalar at the start of `v` (`"…"` without escapes or `'…'` with `''`), and what
/// follows it.
fn quick_quoted(v: &str) -> Option<(String, &str)> {
    if let Some(inner) = v.strip_prefix('"') {
        let end = inner.find('"')?;
        let content = &inner[..end];
        if content.contains('\\') {
            return None;
        }
        return Some((content.to_owned(), &inner[end + 1..]));
    }
    let inner = v.strip_prefix('\'')?;
    let mut out = String::new();
    let mut chars = inner.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\'' {
            if chars.peek().is_some_and(|&(_, n)| n == '\'') {
                chars.next();
                out.push('\'');
            } else {
                return Some((out, &inner[i + 1..]));
            }
        } else {
            out.push(c);
        }
    }
    None
}

/// A flow sequence of simple items at the start of `v` (`[a, "b", c]`), and what follows it.
fn quick_flow_seq(v: &str) -> Option<&str> {
    let inner = v.strip_prefix('[')?;
    let end = inner.find(']')?;
    let items = &inner[..end];
    if items.contains(['[', '{', '\\']) {
        return None;
    }
    if !items.trim_matches(' ').is_empty() {
        for item in items.split(',') {
            let item = item.trim_matches(' ');
            if item.starts_with(['"', '\'']) {
                let (_, after) = quick_quoted(item)?;
                if !after.is_empty() {
                    return None;
                }
            } else if !(item.chars().next().is_some_and(char::is_alphanumeric)
                && !item.contains(['#', ':', '"', '\'', '}', ']'])
                && plain_is_safe(item))
            {
                return None;
            }
        }
    }
    Some(&inner[end + 1..])
}

/// Reads the common shape of frontmatter without a YAML parser: top-level `key: value` lines
/// (plain, simply quoted or flow-list values), comments and blank lines. Returns `None` when
/// anything is outside that shape; then [`parse_meta`] decides.
///
/// Whatever it returns is what [`parse_meta`] returns for the same text.
pub fn quick_meta(yaml: &str) -> Option<Meta> {
    let mut meta = Meta::default();
    // Borrowed while reading (the duplicate check); owned once at the end.
    let mut keys: Vec<&str> = Vec::new();
    for raw in yaml.split('\n') {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if !line.chars().all(quick_char_ok) {
            return None;
        }
        let line = line.trim_end_matches(' ');
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let colon = line.find(':')?;
        let key = &line[..colon];
        let key_ok = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && key.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
            && !SPECIAL_WORDS.contains(&key.to_ascii_lowercase().as_str());
        if !key_ok || keys.contains(&key) {
            return None;
        }
        let after = &line[colon + 1..];
        if !after.is_empty() && !after.starts_with(' ') {
            return None;
        }
        let v = after.trim_start_matches(' ');
        let value: Option<String> = if v.is_empty() || v.starts_with('#') {
            None
        } else if v.starts_with(['"', '\'']) {
            let (content, rest) = quick_quoted(v)?;
            if !rest_is_comment(rest) {
                return None;
            }
            Some(content)
        } else if v.starts_with('[') {
            let rest = quick_flow_seq(v)?;
            if !rest_is_comment(rest) {
                return None;
            }
            None
        } else {
            if !v.chars().next().is_some_and(char::is_alphanumeric) {
                return None;
            }
            let text = match v.find(" #") {
                Some(i) => v[..i].trim_end_matches(' '),
                None => v,
            };
            if text.contains(": ") || text.ends_with(':') {
                return None;
            }
            // The keys the server reads must be strings for sure; the others only need to parse.
            let interesting = matches!(key, "title" | "slug" | SOURCE_ID_KEY);
            if interesting && !plain_is_surely_string(text) {
                return None;
            }
            if !interesting && !plain_is_safe(text) {
                return None;
            }
            interesting.then(|| text.to_owned())
        };
        keys.push(key);
        meta.set(key, value);
    }
    meta.keys = keys.into_iter().map(str::to_owned).collect();
    Some(meta)
}

/// Reads a frontmatter: quickly when it has the common shape, else with the YAML parser.
pub fn read_meta(yaml: &str, first_line: usize) -> Result<Meta, FrontmatterError> {
    match quick_meta(yaml) {
        Some(meta) => Ok(meta),
        None => parse_meta(yaml, first_line),
    }
}

/// The value of a top-level `source_id:` line, read as plain text (quotes removed): a hint
/// for frontmatter that does not parse, to recognise whose article it was.
pub fn source_id_hint(yaml: &str) -> Option<String> {
    yaml.split('\n').find_map(|line| {
        let rest = line.strip_prefix(SOURCE_ID_KEY)?.trim_start_matches(' ').strip_prefix(':')?;
        let value = rest.trim().trim_matches(['"', '\'']);
        (!value.is_empty()).then(|| value.to_owned())
    })
}

/// `id` as a YAML scalar: plain when YAML reads it back as the same string, else quoted.
pub fn yaml_scalar(id: &str) -> String {
    let plain = format!("{SOURCE_ID_KEY}: {id}\n");
    match serde_saphyr::from_str::<Value>(&plain) {
        Ok(Value::Object(map)) if map.get(SOURCE_ID_KEY) == Some(&Value::String(id.to_owned())) => id.to_owned(),
        _ => format!("\"{id}\""),
    }
}

/// Whether a line of YAML is a top-level `source_id` key line.
fn is_source_id_line(line: &str) -> bool {
    let rest = ["source_id", "\"source_id\"", "'source_id'"].iter().find_map(|k| line.strip_prefix(k));
    rest.is_some_and(|r| {
        let r = r.trim_start_matches(' ');
        r.starts_with(':') && r[1..].chars().next().is_none_or(|c| matches!(c, ' ' | '\t' | '\r' | '\n'))
    })
}

/// The article for a manuscript: its frontmatter (every key, comment and byte kept) with
/// `source_id: <id>` replacing an existing `source_id` line or appended as the last key, then
/// the body byte for byte. A manuscript without frontmatter gets one holding only
/// `source_id`. The line break style of the manuscript is kept.
///
/// Returns the article and what the manuscript's frontmatter says.
pub fn compose_article(text: &str, id: &str) -> Result<(String, Meta), FrontmatterError> {
    let parts = split(text)?;
    let Some(block) = parts.frontmatter else {
        let nl = if text.find('\n').is_some_and(|i| text[..i].ends_with('\r')) { "\r\n" } else { "\n" };
        let mut out = String::with_capacity(text.len() + 40);
        out.push_str(parts.bom);
        out.push_str("---");
        out.push_str(nl);
        out.push_str(&format!("{SOURCE_ID_KEY}: {}{nl}---{nl}", yaml_scalar(id)));
        out.push_str(parts.body);
        return Ok((out, Meta::default()));
    };
    let before = parse_meta(block.yaml, block.first_line)?;
    let nl = if block.open.ends_with("\r\n") { "\r\n" } else { "\n" };
    let id_line = format!("{SOURCE_ID_KEY}: {}{nl}", yaml_scalar(id));

    let lines: Vec<&str> = block.yaml.split_inclusive('\n').collect();
    let mut yaml = String::with_capacity(block.yaml.len() + id_line.len());
    let mut replaced = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if !replaced && is_source_id_line(line) {
            yaml.push_str(&id_line);
            replaced = true;
            i += 1;
            // The old value's continuation lines (a block scalar, a nested value).
            let mut j = i;
            while j < lines.len() {
                let l = lines[j];
                if l.starts_with([' ', '\t']) {
                    j += 1;
                    i = j;
                } else if l.trim().is_empty() {
                    j += 1;
                } else {
                    break;
                }
            }
            continue;
        }
        yaml.push_str(line);
        i += 1;
    }
    if !replaced {
        yaml.push_str(&id_line);
    }

    let after = parse_meta(&yaml, block.first_line).ok();
    let mut expected = before.keys.clone();
    if !expected.iter().any(|k| k == SOURCE_ID_KEY) {
        expected.push(SOURCE_ID_KEY.to_owned());
    }
    let ok = after.as_ref().is_some_and(|a| a.keys == expected && a.source_id.as_deref() == Some(id));
    if !ok {
        return Err(FrontmatterError {
            line: block.first_line,
            column: 1,
            message: "`source_id` cannot be added to this frontmatter without changing its other keys (a flow \
                      mapping, a merge key or an unusual `source_id` entry?); write the frontmatter as plain \
                      `key: value` lines"
                .to_owned(),
        });
    }
    let mut out = String::with_capacity(text.len() + id_line.len());
    out.push_str(parts.bom);
    out.push_str(block.open);
    out.push_str(&yaml);
    out.push_str(block.close);
    out.push_str(parts.body);
    Ok((out, before))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const ID: &str = "0123456789abcdef";

    #[test]
    fn split_finds_frontmatter_and_keeps_every_byte() {
        let text = "---\ntitle: A\n---\nbody\n---\nmore\n";
        let parts = split(text).unwrap();
        let block = parts.frontmatter.clone().unwrap();
        assert_eq!(block.yaml, "title: A\n");
        assert_eq!(parts.body, "body\n---\nmore\n");
        assert_eq!(format!("{}{}{}{}{}", parts.bom, block.open, block.yaml, block.close, parts.body), text);

        let dots = split("---\r\na: 1\r\n...\r\nx").unwrap();
        assert_eq!(dots.frontmatter.unwrap().close, "...\r\n");
        assert_eq!(dots.body, "x");

        let none = split("# Title\n---\n").unwrap();
        assert!(none.frontmatter.is_none());
        assert_eq!(none.body, "# Title\n---\n");

        let at_eof = split("---\na: 1\n---").unwrap();
        assert_eq!(at_eof.frontmatter.unwrap().close, "---");
        assert_eq!(at_eof.body, "");

        let bom = split("\u{feff}---\na: 1\n---\nb").unwrap();
        assert_eq!(bom.bom, "\u{feff}");
        assert!(bom.frontmatter.is_some());
    }

    #[test]
    fn an_unclosed_frontmatter_is_an_error_on_line_1() {
        let e = split("---\ntitle: A\nbody\n").unwrap_err();
        assert_eq!((e.line, e.column), (1, 1));
        assert!(e.message.contains("never closed"), "{}", e.message);
        // An indented `---` does not close it.
        assert!(split("---\na: |\n  ---\n").is_err());
    }

    #[test]
    fn malformed_yaml_is_located_in_the_file() {
        let text = "---\ntitle: ok\ntags: [unclosed\n---\nbody";
        let block = split(text).unwrap().frontmatter.unwrap();
        let e = parse_meta(block.yaml, block.first_line).unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        assert_eq!(e.column, 7, "{e}");
        assert!(!e.message.contains('\n') && !e.message.starts_with("line"), "{}", e.message);

        let e = parse_meta("a: 1\na: 2\n", 2).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("duplicate"), "{}", e.message);

        let e = parse_meta("- a\n- b\n", 2).unwrap_err();
        assert!(e.message.contains("list"), "{}", e.message);
        assert!(parse_meta("just text", 2).is_err());
    }

    #[test]
    fn parse_reads_keys_in_order_and_scalars() {
        let meta = parse_meta("title: 2024\nslug: \"my-post\"\nz: [1]\nsource_id: abc\n", 2).unwrap();
        assert_eq!(meta.keys, ["title", "slug", "z", "source_id"]);
        assert_eq!(meta.title.as_deref(), Some("2024"));
        assert_eq!(meta.slug.as_deref(), Some("my-post"));
        assert_eq!(meta.source_id.as_deref(), Some("abc"));
        assert_eq!(parse_meta("", 2).unwrap(), Meta::default());
        assert_eq!(parse_meta("# only a comment\n", 2).unwrap(), Meta::default());
    }

    #[test]
    fn quick_reads_the_common_shape() {
        let yaml = "# c\ntitle: \"Hello: world\"\nslug: it's-fine\ndate: 2025-01-01\ntags: [a, b, 日本語]\n\n\
                    source_id: 0123456789abcdef # id\nempty:\nq: 'it''s'\n";
        let meta = quick_meta(yaml).unwrap();
        assert_eq!(meta.keys, ["title", "slug", "date", "tags", "source_id", "empty", "q"]);
        assert_eq!(meta.title.as_deref(), Some("Hello: world"));
        assert_eq!(meta.slug.as_deref(), Some("it's-fine"));
        assert_eq!(meta.source_id.as_deref(), Some(ID));
        assert_eq!(parse_meta(yaml, 2).unwrap(), meta);
        assert_eq!(quick_meta("title: 日本語のタイトル\n").unwrap().title.as_deref(), Some("日本語のタイトル"));
        // Other keys may hold booleans and numbers.
        let typed = "title: T\ndraft: false\nweight: 10\nratio: 0.5\npublished: yes\ntags: [1, true]\n";
        assert_eq!(quick_meta(typed).unwrap(), parse_meta(typed, 2).unwrap());
    }

    #[test]
    fn quick_gives_up_on_anything_unusual() {
        for yaml in [
            "title: 1\n",
            "slug: true\n",
            "a: 1e5\n",
            "a: 1e400\n",
            "a: |\n  x\n",
            "a:\n  - x\n",
            "a: {b: 1}\n",
            "a: &x y\n",
            "a: \"esc\\n\"\n",
            "a: b: c\n",
            "a:b\n",
            "a: .inf\n",
            "a: x\na: y\n",
            "\"a\": x\n",
            "a:\tb\n",
            "- a\n",
            "a: 3e12345678901234\n",
            "source_id: 1234567890123456\n",
            "a: [a, ]\n",
            "yes: x\n",
        ] {
            assert_eq!(quick_meta(yaml), None, "{yaml:?}");
        }
    }

    #[test]
    fn source_id_hint_reads_a_broken_frontmatter() {
        assert_eq!(source_id_hint("title: [broken\nsource_id: \"abc\"\n").as_deref(), Some("abc"));
        assert_eq!(source_id_hint("title: x\n"), None);
    }

    #[test]
    fn yaml_scalar_quotes_ids_yaml_would_read_as_numbers() {
        assert_eq!(yaml_scalar(ID), ID);
        assert_eq!(yaml_scalar("1234567890123456"), "\"1234567890123456\"");
        assert_eq!(yaml_scalar("3e12345678901234"), "\"3e12345678901234\"");
        assert_eq!(yaml_scalar("0b10101010101010"), "\"0b10101010101010\"");
    }

    #[test]
    fn compose_appends_source_id_and_keeps_everything_else() {
        let text = "---\n# a comment\ntitle: 'Quoted'   # trailing\ntags: [x, y]\n\n---\n\nBody *text*\n";
        let article = compose_article(text, ID).unwrap().0;
        assert_eq!(
            article,
            "---\n# a comment\ntitle: 'Quoted'   # trailing\ntags: [x, y]\n\nsource_id: 0123456789abcdef\n---\n\nBody *text*\n"
        );
        // Idempotent: composing the article again gives the same bytes.
        assert_eq!(compose_article(&article, ID).unwrap().0, article);
    }

    #[test]
    fn compose_replaces_an_existing_source_id_in_place() {
        let text = "---\ntitle: A\nsource_id: ffffffffffffffff\ndate: x\n---\nbody";
        assert_eq!(
            compose_article(text, ID).unwrap().0,
            "---\ntitle: A\nsource_id: 0123456789abcdef\ndate: x\n---\nbody"
        );
        let block = "---\nsource_id: |\n  old\n\n  value\nnext: 1\n---\n";
        assert_eq!(compose_article(block, ID).unwrap().0, "---\nsource_id: 0123456789abcdef\nnext: 1\n---\n");
    }

    #[test]
    fn compose_gives_a_manuscript_without_frontmatter_one() {
        assert_eq!(compose_article("# Hi\n", ID).unwrap().0, "---\nsource_id: 0123456789abcdef\n---\n# Hi\n");
        assert_eq!(
            compose_article("# Hi\r\nx", ID).unwrap().0,
            "---\r\nsource_id: 0123456789abcdef\r\n---\r\n# Hi\r\nx"
        );
        assert_eq!(compose_article("", ID).unwrap().0, "---\nsource_id: 0123456789abcdef\n---\n");
        assert_eq!(
            compose_article("\u{feff}body", ID).unwrap().0,
            "\u{feff}---\nsource_id: 0123456789abcdef\n---\nbody"
        );
    }

    #[test]
    fn compose_keeps_crlf_and_the_empty_frontmatter() {
        assert_eq!(
            compose_article("---\r\ntitle: A\r\n---\r\nbody\r\n", ID).unwrap().0,
            "---\r\ntitle: A\r\nsource_id: 0123456789abcdef\r\n---\r\nbody\r\n"
        );
        assert_eq!(compose_article("---\n---\nbody", ID).unwrap().0, "---\nsource_id: 0123456789abcdef\n---\nbody");
    }

    #[test]
    fn compose_refuses_what_it_cannot_edit_safely() {
        let e = compose_article("---\n{title: a}\n---\nbody", ID).unwrap_err();
        assert!(e.message.contains("plain"), "{}", e.message);
        let e = compose_article("---\ntitle: [x\n---\nbody", ID).unwrap_err();
        assert_eq!(e.line, 2);
    }

    /// Lines the generator below combines: the shapes the quick reader takes, and many it
    /// must refuse.
    const LINES: &[&str] = &[
        "title: Hello world",
        "title: \"Quoted: yes\"",
        "title: 'single ''q'''",
        "title: 日本語",
        "title: 2024",
        "title: 1.50",
        "title: true",
        "title: ~",
        "title:",
        "title: a # c",
        "title: a#c",
        "title: C# and F#",
        "title: \"unterminated",
        "title: [a, b]",
        "title: {a: 1}",
        "slug: my-post",
        "slug: \"\"",
        "slug: -x",
        "source_id: 0123456789abcdef",
        "source_id: 1234567890123456",
        "source_id: 3e12345678901234",
        "source_id: 0b10101010101010",
        "source_id: 9e1c0f7a12b3d4e5",
        "source_id: 12e4567890123456",
        "date: 2025-01-01",
        "date: 2025-01-01T10:00:00+09:00",
        "time: 12:30",
        "version: 1.2.3",
        "n: -1",
        "n: +1",
        "n: 0x1F",
        "n: 0o17",
        "n: 1_000",
        "n: .5",
        "n: 1e3",
        "n: -.inf",
        "n: NaN",
        "flag: yes",
        "flag: Off",
        "draft: false",
        "draft: NULL",
        "weight: 10",
        "weight: 0.25",
        "weight: 00",
        "big: 99999999999999999999999",
        "huge: 1e400",
        "huge: 1e-400",
        "huge: 1.5E3",
        "word: nan",
        "word: Inf",
        "clock: 190:20:30",
        "list: [1, 2.5, true, null, 1e400]",
        "list: [.inf]",
        "tags: [a, b, c]",
        "tags: []",
        "tags: [\"x\", 'y']",
        "tags: [a, [b]]",
        "tags: [a, ]",
        "tags: [1, 2]",
        "list:",
        "  - x",
        "  nested: 1",
        "- item",
        "# comment",
        "",
        "   ",
        "a: b: c",
        "a:b",
        "url: http://example.com",
        "path: /usr/bin",
        "ref: *x",
        "anchor: &x 1",
        "tagged: !!str 1",
        "block: |",
        "quote: \"esc \\\" q\"",
        "key with space: 1",
        "\"quoted key\": 1",
        "? complex",
        "yes: 1",
        "x-y_z: value",
        "emoji: 🎉 party",
        "ctrl: a\u{7}b",
        "---",
        "...",
        "title: a\t# tab comment",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Whatever the quick reader accepts, serde-saphyr reads the same way.
        #[test]
        fn quick_agrees_with_saphyr(picks in proptest::collection::vec(0..LINES.len(), 0..8), crlf: bool) {
            let nl = if crlf { "\r\n" } else { "\n" };
            let yaml: String = picks.iter().map(|&i| format!("{}{nl}", LINES[i])).collect();
            if let Some(quick) = quick_meta(&yaml) {
                let parsed = parse_meta(&yaml, 2);
                prop_assert_eq!(parsed, Ok(quick), "yaml: {:?}", yaml);
            }
        }

        /// The same, over lines the quick reader takes one by one (so most cases reach the
        /// comparison, not only those that happen to avoid every unusual line).
        #[test]
        fn quick_agrees_with_saphyr_on_its_own_shapes(picks in proptest::collection::vec(0..LINES.len(), 1..8)) {
            let accepted: Vec<&str> = LINES.iter().copied().filter(|l| quick_meta(&format!("{l}\n")).is_some()).collect();
            prop_assert!(accepted.len() > 20, "the quick reader takes too little: {:?}", accepted);
            let yaml: String = picks.iter().map(|&i| format!("{}\n", accepted[i % accepted.len()])).collect();
            if let Some(quick) = quick_meta(&yaml) {
                prop_assert_eq!(parse_meta(&yaml, 2), Ok(quick), "yaml: {:?}", yaml);
            }
        }

        /// Composing keeps the body byte for byte and is idempotent.
        #[test]
        fn compose_keeps_the_body(picks in proptest::collection::vec(0..LINES.len(), 0..6), body in ".{0,40}") {
            let yaml: String = picks.iter().map(|&i| format!("{}\n", LINES[i])).collect();
            let text = format!("---\n{yaml}---\n{body}");
            if let Ok((article, _)) = compose_article(&text, ID) {
                let tail = format!("---\n{body}");
                prop_assert!(article.ends_with(&tail));
                prop_assert_eq!(compose_article(&article, ID).map(|(a, _)| a), Ok(article.clone()));
                let parts = split(&article).unwrap();
                let block = parts.frontmatter.unwrap();
                let meta = parse_meta(block.yaml, 2).unwrap();
                prop_assert_eq!(meta.source_id.as_deref(), Some(ID));
            }
        }
    }
}
