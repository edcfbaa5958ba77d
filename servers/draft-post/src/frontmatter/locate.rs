//! Where a document's frontmatter is: a first line `---`, closed by the next `---` or `...`.

use super::{BOM, FrontmatterError};

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
