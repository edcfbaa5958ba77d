//! The keys the server reads from a frontmatter (`title`, `slug`, `source_id`, and `date` and
//! `status` for `list_posts`): with
//! serde-saphyr, which also validates, or with the quick reader for the common shape.

use serde_json::Value;

use super::{FrontmatterError, SOURCE_ID_KEY};

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
    /// `date`, when it is a scalar.
    pub date: Option<String>,
    /// `status`, when it is a scalar.
    pub status: Option<String>,
}

impl Meta {
    fn set(&mut self, key: &str, value: Option<String>) {
        match key {
            "title" => self.title = value,
            "slug" => self.slug = value,
            SOURCE_ID_KEY => self.source_id = value,
            "date" => self.date = value,
            "status" => self.status = value,
            _ => {}
        }
    }
}

/// The keys the server reads, deserialised as text: a plain scalar comes as written.
#[derive(serde::Deserialize)]
struct AsWritten {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    slug: Option<String>,
    #[serde(default)]
    source_id: Option<String>,
    #[serde(default)]
    date: Option<String>,
    #[serde(default)]
    status: Option<String>,
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

/// Every top-level key of a frontmatter and its value, as JSON (for the article preview); `None`
/// when it is not a mapping within the limits.
pub fn values(yaml: &str) -> Option<serde_json::Map<String, Value>> {
    check_limits(yaml, 1).ok()?;
    match serde_saphyr::from_str_with_options(yaml, parse_options()).ok()? {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// Parses `yaml` (a frontmatter starting on file line `first_line`) with serde-saphyr.
///
/// It must be empty or a mapping; anything else, and any YAML error, is a
/// [`FrontmatterError`] located in the file.
pub fn parse_meta(yaml: &str, first_line: usize) -> Result<Meta, FrontmatterError> {
    check_limits(yaml, first_line)?;
    let value: Value = serde_saphyr::from_str_with_options(yaml, parse_options()).map_err(|e| {
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
            let mut typed = false;
            for (key, value) in &map {
                meta.keys.push(key.clone());
                meta.set(key, scalar_text(value));
                typed |= matches!(key.as_str(), "title" | "slug" | SOURCE_ID_KEY | "date" | "status")
                    && matches!(value, Value::Number(_) | Value::Bool(_));
            }
            if typed {
                // `title: No` is the title "No", not `false`; `title: 0x1F` is "0x1F", not 31:
                // the keys the server reads are text, taken as written.
                if let Ok(text) = serde_saphyr::from_str_with_options::<AsWritten>(yaml, parse_options()) {
                    for (key, value) in [
                        ("title", text.title),
                        ("slug", text.slug),
                        (SOURCE_ID_KEY, text.source_id),
                        ("date", text.date),
                        ("status", text.status),
                    ] {
                        if value.is_some() {
                            meta.set(key, value);
                        }
                    }
                }
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
    if check_limits(yaml, 1).is_err() {
        return None;
    }
    let mut meta = Meta::default();
    // Borrowed while reading; owned once at the end.
    let mut keys: Vec<&str> = Vec::new();
    // Duplicate keys are found through a set, so that many keys cost linear time.
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
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
        if !key_ok || !seen.insert(key) {
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
            let interesting = matches!(key, "title" | "slug" | SOURCE_ID_KEY | "date" | "status");
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

/// The largest frontmatter read or filed, in bytes. A frontmatter is a few lines of metadata;
/// this is a hundred times what one needs, and bounds what one manuscript can cost every later
/// call (each scan reads every article's frontmatter).
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// The most top-level keys a frontmatter may have.
pub const MAX_FRONTMATTER_KEYS: usize = 1_000;

/// Refuses a frontmatter over [`MAX_FRONTMATTER_BYTES`] or [`MAX_FRONTMATTER_KEYS`], before any
/// parser allocates for it. Keys are counted as the lines that start a top-level entry (not
/// indented, not a comment, not a list item), which is linear and never fewer than the keys.
pub fn check_limits(yaml: &str, first_line: usize) -> Result<(), FrontmatterError> {
    if yaml.len() > MAX_FRONTMATTER_BYTES {
        return Err(FrontmatterError {
            line: first_line,
            column: 1,
            message: format!(
                "the frontmatter is {} bytes, more than the {MAX_FRONTMATTER_BYTES} this server reads; keep it to \
                 the metadata (title, slug, tags...) and move the rest into the body",
                yaml.len()
            ),
        });
    }
    let keys =
        yaml.split('\n').filter(|line| line.starts_with(|c: char| !c.is_whitespace() && c != '#' && c != '-')).count();
    if keys > MAX_FRONTMATTER_KEYS {
        return Err(FrontmatterError {
            line: first_line,
            column: 1,
            message: format!(
                "the frontmatter has {keys} top-level entries, more than the {MAX_FRONTMATTER_KEYS} this server \
                 reads; keep it to the metadata (title, slug, tags...) and move the rest into the body"
            ),
        });
    }
    Ok(())
}

/// The YAML parser's limits: far above any frontmatter within [`check_limits`], far below what
/// a YAML bomb (aliases of aliases) would expand to, so one is refused after a bounded amount of
/// work and memory.
fn parse_options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_events: 50_000,
            max_nodes: 25_000,
            max_aliases: 200,
            max_anchors: 200,
            max_depth: 64,
            max_total_scalar_bytes: 2 * MAX_FRONTMATTER_BYTES,
            max_recorded_anchor_events: 5_000,
            max_recorded_anchor_bytes: 2 * MAX_FRONTMATTER_BYTES,
        },
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: 5_000,
            max_replay_stack_depth: 16,
        },
    }
}
