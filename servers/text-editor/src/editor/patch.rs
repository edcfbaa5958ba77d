//! Codex's patch format (`*** Begin Patch` … `*** End Patch`), as codex-cli 0.171.0's
//! `apply_patch` program reads and applies it: the grammar with its lenient envelope (markers
//! padded with spaces, a heredoc wrapper), Add / Delete / Update hunks with `*** Move to`,
//! chunks located by `@@` context lines and by their old lines in four passes (exact, trailing
//! whitespace, surrounding whitespace, Unicode punctuation), `*** End of File`, pure additions,
//! each line's own ending kept (a new line takes the file's first ending), and the final newline.
//! The texts are the program's: `Success. Updated the following files:` and its error lines.
//!
//! This module knows nothing of files: [`parse`] reads a patch, [`updated`] computes one
//! file's new text. The editor applies a whole patch all or nothing (`editor/codex.rs`).

/// One operation of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hunk {
    /// `*** Add File: path` and its `+` lines (the file is written whole, replacing any).
    Add {
        /// The path as written.
        path: String,
        /// The text: each `+` line and a line feed.
        contents: String,
    },
    /// `*** Delete File: path`.
    Delete {
        /// The path as written.
        path: String,
    },
    /// `*** Update File: path`, maybe `*** Move to: path`, and its chunks.
    Update {
        /// The path as written.
        path: String,
        /// Where the updated file goes (as written).
        move_to: Option<String>,
        /// The chunks, in order.
        chunks: Vec<Chunk>,
    },
}

impl Hunk {
    /// The path the summary names: the destination of a move.
    pub fn shown_path(&self) -> &str {
        match self {
            Hunk::Add { path, .. } | Hunk::Delete { path } => path,
            Hunk::Update { move_to: Some(to), .. } => to,
            Hunk::Update { path, .. } => path,
        }
    }
}

/// One chunk of an update: the lines it replaces and those it writes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Chunk {
    /// The `@@ line` that narrows where it is (searched for first).
    pub context: Option<String>,
    /// The lines it replaces (context and `-` lines).
    pub old: Vec<String>,
    /// The lines it writes (context and `+` lines).
    pub new: Vec<String>,
    /// Where each context line is in `old` and in `new`: kept in place when written.
    pub context_lines: Vec<(usize, usize)>,
    /// `*** End of File`: `old` ends the file.
    pub end_of_file: bool,
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE_TO: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

/// Why a patch was not read: the program's stderr line (without its line feed).
fn invalid_patch(message: &str) -> String {
    format!("Invalid patch: {message}")
}

fn invalid_hunk(line: usize, message: &str) -> String {
    format!("Invalid patch hunk on line {line}: {message}")
}

/// The hunks of `patch`, or the program's error text.
pub fn parse(patch: &str) -> Result<Vec<Hunk>, String> {
    let lines: Vec<&str> = patch.trim().lines().collect();
    let body = envelope(&lines).or_else(|strict| {
        // A heredoc wrapper (`<<'EOF'` … `EOF`), as some models write the call.
        match lines.as_slice() {
            [first, .., last]
                if matches!(*first, "<<EOF" | "<<'EOF'" | "<<\"EOF\"") && last.ends_with("EOF") && lines.len() >= 4 =>
            {
                envelope(&lines[1..lines.len() - 1])
            }
            _ => Err(strict),
        }
    })?;
    let mut hunks = Vec::new();
    let mut rest = body;
    let mut line = 2;
    while !rest.is_empty() {
        let (hunk, used) = one_hunk(rest, line)?;
        hunks.push(hunk);
        line += used;
        rest = &rest[used..];
    }
    Ok(hunks)
}

/// The lines between the markers, or the program's error text.
fn envelope<'a>(lines: &'a [&'a str]) -> Result<&'a [&'a str], String> {
    let first = lines.first().map(|l| l.trim());
    let last = lines.last().map(|l| l.trim());
    match (first, last) {
        // The first end marker ends the patch: anything after it leaves the last line wrong.
        (Some(BEGIN), Some(END)) if lines.len() >= 2 && !lines[1..lines.len() - 1].iter().any(|l| l.trim() == END) => {
            Ok(&lines[1..lines.len() - 1])
        }
        (Some(first), _) if first != BEGIN => {
            Err(invalid_patch("The first line of the patch must be '*** Begin Patch'"))
        }
        _ => Err(invalid_patch("The last line of the patch must be '*** End Patch'")),
    }
}

/// The hunk at the start of `lines` (numbered from `line`) and how many lines it took.
fn one_hunk(lines: &[&str], line: usize) -> Result<(Hunk, usize), String> {
    let header = lines[0].trim();
    if let Some(path) = header.strip_prefix(ADD) {
        let mut contents = String::new();
        let mut used = 1;
        for added in &lines[1..] {
            let Some(text) = added.strip_prefix('+') else { break };
            contents.push_str(text);
            contents.push('\n');
            used += 1;
        }
        return Ok((Hunk::Add { path: path.to_owned(), contents }, used));
    }
    if let Some(path) = header.strip_prefix(DELETE) {
        return Ok((Hunk::Delete { path: path.to_owned() }, 1));
    }
    if let Some(path) = header.strip_prefix(UPDATE) {
        let mut rest = &lines[1..];
        let mut used = 1;
        let move_to = rest.first().and_then(|l| l.strip_prefix(MOVE_TO)).map(str::to_owned);
        if move_to.is_some() {
            rest = &rest[1..];
            used += 1;
        }
        let mut chunks = Vec::new();
        while !rest.is_empty() {
            if rest[0].trim().is_empty() {
                used += 1;
                rest = &rest[1..];
                continue;
            }
            // Only the next hunk's header ends this one (any other line is a chunk's, or wrong).
            if [ADD, DELETE, UPDATE].iter().any(|header| rest[0].starts_with(header)) {
                break;
            }
            let (chunk, took) = one_chunk(rest, line + used, chunks.is_empty())?;
            chunks.push(chunk);
            used += took;
            rest = &rest[took..];
        }
        if chunks.is_empty() {
            return Err(invalid_hunk(line, &format!("Update file hunk for path '{path}' is empty")));
        }
        return Ok((Hunk::Update { path: path.to_owned(), move_to, chunks }, used));
    }
    Err(invalid_hunk(
        line,
        &format!(
            "'{header}' is not a valid hunk header. Valid hunk headers: '*** Add File: {{path}}', '*** Delete File: {{path}}', '*** Update File: {{path}}'"
        ),
    ))
}

/// The chunk at the start of `lines` (numbered from `line`) and how many lines it took.
fn one_chunk(lines: &[&str], line: usize, first: bool) -> Result<(Chunk, usize), String> {
    // The `@@` line is read without its trailing whitespace.
    let marker = lines[0].trim_end();
    let (context, start) = if marker == "@@" {
        (None, 1)
    } else if let Some(context) = marker.strip_prefix("@@ ") {
        (Some(context.to_owned()), 1)
    } else if first {
        (None, 0)
    } else {
        return Err(invalid_hunk(
            line,
            &format!("Expected update hunk to start with a @@ context marker, got: '{}'", lines[0]),
        ));
    };
    if start >= lines.len() {
        return Err(invalid_hunk(line + 1, "Update hunk does not contain any lines"));
    }
    let mut chunk = Chunk { context, ..Chunk::default() };
    let mut used = 0;
    for text in &lines[start..] {
        if *text == END_OF_FILE {
            if used == 0 {
                return Err(invalid_hunk(line + 1, "Update hunk does not contain any lines"));
            }
            chunk.end_of_file = true;
            used += 1;
            break;
        }
        match text.chars().next() {
            None => {
                chunk.context_lines.push((chunk.old.len(), chunk.new.len()));
                chunk.old.push(String::new());
                chunk.new.push(String::new());
            }
            Some(' ') => {
                chunk.context_lines.push((chunk.old.len(), chunk.new.len()));
                chunk.old.push(text[1..].to_owned());
                chunk.new.push(text[1..].to_owned());
            }
            Some('+') => chunk.new.push(text[1..].to_owned()),
            Some('-') => chunk.old.push(text[1..].to_owned()),
            Some(_) if used == 0 => {
                return Err(invalid_hunk(
                    line + 1,
                    &format!(
                        "Unexpected line found in update hunk: '{text}'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)"
                    ),
                ));
            }
            // The next chunk's (or hunk's) first line.
            Some(_) => break,
        }
        used += 1;
    }
    Ok((chunk, used + start))
}

/// The characters the last pass reads as their ASCII look-alikes.
fn ascii_like(c: char) -> char {
    match c {
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}' | '\u{2212}' => '-',
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
        '\u{00A0}' | '\u{2002}' | '\u{2003}' | '\u{2004}' | '\u{2005}' | '\u{2006}' | '\u{2007}' | '\u{2008}'
        | '\u{2009}' | '\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        other => other,
    }
}

/// How a pass compares a file's line with a patch's.
type Same = fn(&str, &str) -> bool;

/// Where `pattern` first is in `lines` at or after `start` (only at the end, and not before
/// `start`, when `eof`), trying four passes: exact, then without trailing whitespace, then without
/// surrounding whitespace, then with Unicode punctuation read as ASCII.
pub fn seek(lines: &[String], pattern: &[String], start: usize, eof: bool) -> Option<usize> {
    if pattern.is_empty() {
        return Some(start);
    }
    if pattern.len() > lines.len() {
        return None;
    }
    let from = if eof { start.max(lines.len() - pattern.len()) } else { start };
    let last = lines.len() - pattern.len();
    let passes: [Same; 4] = [
        |a, b| a == b,
        |a, b| a.trim_end() == b.trim_end(),
        |a, b| a.trim() == b.trim(),
        |a, b| a.trim().chars().map(ascii_like).eq(b.trim().chars().map(ascii_like)),
    ];
    passes
        .iter()
        .find_map(|same| (from..=last).find(|&at| pattern.iter().enumerate().all(|(i, p)| same(&lines[at + i], p))))
}

/// A line's ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    Lf,
    CrLf,
}

impl Ending {
    fn text(self) -> &'static str {
        match self {
            Ending::Lf => "\n",
            Ending::CrLf => "\r\n",
        }
    }
}

/// A file's lines with their own endings (`None`: the last line has none), and the ending new
/// lines take (the first line's; LF when there is none).
fn split(contents: &str) -> (Vec<(String, Option<Ending>)>, Ending) {
    let mut lines = Vec::new();
    let mut preferred = None;
    let mut start = 0;
    for (at, _) in contents.match_indices('\n') {
        let line = &contents[start..at];
        let (text, ending) = match line.strip_suffix('\r') {
            Some(text) => (text, Ending::CrLf),
            None => (line, Ending::Lf),
        };
        preferred.get_or_insert(ending);
        lines.push((text.to_owned(), Some(ending)));
        start = at + 1;
    }
    if start < contents.len() {
        lines.push((contents[start..].to_owned(), None));
    }
    (lines, preferred.unwrap_or(Ending::Lf))
}

/// `original` with `chunks` applied, or the program's error text (naming the file `shown`).
pub fn updated(original: &str, chunks: &[Chunk], shown: &str) -> Result<String, String> {
    let (lines, preferred) = split(original);
    let texts: Vec<String> = lines.iter().map(|(t, _)| t.clone()).collect();
    let mut replacements: Vec<(usize, usize, Vec<String>)> = Vec::new();
    let mut at = 0;
    for chunk in chunks {
        if let Some(context) = &chunk.context {
            match seek(&texts, std::slice::from_ref(context), at, false) {
                Some(found) => at = found + 1,
                None => return Err(format!("Failed to find context '{context}' in {shown}")),
            }
        }
        if chunk.old.is_empty() {
            replacements.push((texts.len(), 0, chunk.new.clone()));
            continue;
        }
        let mut old: &[String] = &chunk.old;
        let mut new: &[String] = &chunk.new;
        let mut found = seek(&texts, old, at, chunk.end_of_file);
        if found.is_none() && old.last().is_some_and(String::is_empty) {
            // The trailing empty line that stands for the file's final line feed.
            old = &old[..old.len() - 1];
            if new.last().is_some_and(String::is_empty) {
                new = &new[..new.len() - 1];
            }
            found = seek(&texts, old, at, chunk.end_of_file);
        }
        let Some(start) = found else {
            return Err(format!("Failed to find expected lines in {shown}:\n{}", chunk.old.join("\n")));
        };
        // Context lines stay as they are in the file (their text and their ending).
        let (mut old_from, mut new_from) = (0, 0);
        for &(old_context, new_context) in &chunk.context_lines {
            if old_context >= old.len() || new_context >= new.len() {
                break;
            }
            if old_from != old_context || new_from != new_context {
                replacements.push((start + old_from, old_context - old_from, new[new_from..new_context].to_vec()));
            }
            old_from = old_context + 1;
            new_from = new_context + 1;
        }
        if old_from != old.len() || new_from != new.len() {
            replacements.push((start + old_from, old.len() - old_from, new[new_from..].to_vec()));
        }
        at = start + old.len();
    }
    replacements.sort_by_key(|(index, _, _)| *index);
    let mut out: Vec<(String, Option<Ending>)> = Vec::with_capacity(lines.len());
    let mut source = lines.into_iter();
    let mut index = 0;
    for (start, len, new) in replacements {
        if start < index {
            // Overlapping chunks: the program applies them in order of position too.
            continue;
        }
        out.extend(source.by_ref().take(start - index));
        source.by_ref().take(len).for_each(drop);
        out.extend(new.into_iter().map(|text| (text, Some(preferred))));
        index = start + len;
    }
    out.extend(source);
    let mut contents = String::with_capacity(original.len() + 64);
    for (text, ending) in out {
        contents.push_str(&text);
        // An update always ends the file with a line feed (the file's first kind).
        contents.push_str(ending.unwrap_or(preferred).text());
    }
    Ok(contents)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn the_envelope_is_lenient_and_its_errors_are_the_programs() {
        assert_eq!(
            parse("bad"),
            Err("Invalid patch: The first line of the patch must be '*** Begin Patch'".to_owned())
        );
        assert_eq!(
            parse("*** Begin Patch\nbad"),
            Err("Invalid patch: The last line of the patch must be '*** End Patch'".to_owned())
        );
        assert_eq!(parse("  *** Begin Patch \n*** End Patch  \n"), Ok(Vec::new()));
        let wrapped = "<<'EOF'\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\nEOF\n";
        assert_eq!(parse(wrapped), Ok(vec![Hunk::Add { path: "a".into(), contents: "x\n".into() }]));
        assert_eq!(
            parse("*** Begin Patch\n*** Update File: t.py\n*** End Patch"),
            Err("Invalid patch hunk on line 2: Update file hunk for path 't.py' is empty".to_owned())
        );
    }

    #[test]
    fn hunks_chunks_and_moves_are_read() {
        let patch = "*** Begin Patch\n*** Add File: p/add.py\n+abc\n+def\n*** Delete File: p/del.py\n*** Update File: p/up.py\n*** Move to: p/up2.py\n@@ def f():\n-    pass\n+    return 1\n*** End Patch";
        let hunks = parse(patch).unwrap();
        assert_eq!(hunks.len(), 3);
        assert_eq!(hunks[2].shown_path(), "p/up2.py");
        let Hunk::Update { chunks, .. } = &hunks[2] else { panic!() };
        assert_eq!(chunks[0].context.as_deref(), Some("def f():"));
        assert_eq!(
            (chunks[0].old.clone(), chunks[0].new.clone()),
            (strings(&["    pass"]), strings(&["    return 1"]))
        );
    }

    #[test]
    fn the_four_passes_find_what_each_allows() {
        let lines = strings(&["foo   ", "  bar\t", "a \u{2014} \u{201C}b\u{201D}"]);
        assert_eq!(seek(&lines, &strings(&["foo"]), 0, false), Some(0));
        assert_eq!(seek(&lines, &strings(&["bar"]), 0, false), Some(1));
        assert_eq!(seek(&lines, &strings(&["a - \"b\""]), 0, false), Some(2));
        assert_eq!(seek(&lines, &strings(&["x", "y", "z", "w"]), 0, false), None);
    }

    #[test]
    fn each_line_keeps_its_ending_and_the_file_ends_with_one() {
        let mix = "a\nb\r\nc\r\nd";
        let chunk = Chunk { old: strings(&["c"]), new: strings(&["C"]), ..Chunk::default() };
        assert_eq!(updated(mix, &[chunk], "mix.txt").unwrap(), "a\nb\r\nC\nd\n");
        let add = Chunk { new: strings(&["z"]), ..Chunk::default() };
        assert_eq!(updated("a\r\nb\r\n", &[add], "e.txt").unwrap(), "a\r\nb\r\nz\r\n");
        let missing = Chunk { old: strings(&["zzz"]), new: strings(&["B"]), ..Chunk::default() };
        assert_eq!(
            updated("a\n", &[missing], "/r/f.txt"),
            Err("Failed to find expected lines in /r/f.txt:\nzzz".to_owned())
        );
    }
}
