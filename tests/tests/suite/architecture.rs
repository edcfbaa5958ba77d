//! `docs/architecture.md` stays true: every repository path it names exists, and every type of
//! ours that its module tables place in a file is defined in that file.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
};

use mcp_tests::locate::workspace_root;

/// The directories and files a repository path in the document starts with.
const TOP: &[&str] = &[
    "shared/",
    "servers/",
    "tests/",
    "bench/",
    "dist/",
    "fuzz/",
    "docs/",
    ".ci/",
    ".github/",
    "Containerfile",
    "Cargo.toml",
];

const SERVERS: &[&str] = &["sample-tool", "text-editor", "draft-post", "ide-bridge"];

/// Every `code span` of `text`.
fn spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// `a/{b,c}.rs` → `a/b.rs`, `a/c.rs` (one brace group, as the document writes them).
fn expand(path: &str) -> Vec<String> {
    match (path.find('{'), path.find('}')) {
        (Some(open), Some(close)) if open < close => path[open + 1..close]
            .split(',')
            .map(|alternative| format!("{}{}{}", &path[..open], alternative.trim(), &path[close + 1..]))
            .collect(),
        _ => vec![path.to_owned()],
    }
}

/// The repository paths a span names: `servers/<server>/…` stands for each server's; other
/// `<placeholders>` name no one file.
fn named_paths(span: &str) -> Vec<String> {
    let span = span.trim();
    if !TOP.iter().any(|top| span.starts_with(top)) || span.contains(' ') {
        return Vec::new();
    }
    let per_server: Vec<String> = if span.contains("<server>") {
        SERVERS.iter().map(|server| span.replace("<server>", server)).collect()
    } else {
        vec![span.to_owned()]
    };
    per_server.iter().filter(|p| !p.contains('<')).flat_map(|p| expand(p)).collect()
}

/// Every `.rs` file of the repository's crates (not `target/`, not the fuzz build).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name == "target" || name == "node_modules" || name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            rust_files(&path, out);
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// Whether `source` defines the type `name` (struct, enum, trait, type alias).
fn defines(source: &str, name: &str) -> bool {
    ["struct", "enum", "trait", "type"].iter().any(|kind| {
        source.match_indices(&format!("{kind} {name}")).any(|(at, found)| {
            let after = source[at + found.len()..].chars().next();
            !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    })
}

/// A type name: an upper-case first letter, letters and digits, at least one lower-case letter
/// (`ToolError`, not `INVALID_ARGS`).
fn is_type_name(span: &str) -> bool {
    span.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && span.chars().all(|c| c.is_ascii_alphanumeric())
        && span.chars().any(|c| c.is_ascii_lowercase())
}

#[test]
fn every_path_the_architecture_doc_names_exists() {
    let root = workspace_root();
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let mut missing = BTreeSet::new();
    let mut checked = 0;
    for span in spans(&doc) {
        for path in named_paths(span) {
            checked += 1;
            if !root.join(path.trim_end_matches('/')).exists() {
                missing.insert(path);
            }
        }
    }
    assert!(checked > 40, "the check found only {checked} paths: is the document's form still `a/b.rs`?");
    assert!(missing.is_empty(), "docs/architecture.md names paths that do not exist: {missing:?}");
}

#[test]
fn every_type_the_module_tables_place_is_defined_there() {
    let root = workspace_root();
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let mut all = Vec::new();
    for dir in ["shared", "servers", "tests"] {
        rust_files(&root.join(dir), &mut all);
    }
    let sources: Vec<(PathBuf, String)> =
        all.into_iter().map(|p| (p.clone(), std::fs::read_to_string(&p).unwrap_or_default())).collect();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for row in doc.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split(" | ").collect();
        if cells.len() < 3 {
            continue;
        }
        // The files of the row: its second cell's paths; `sandbox/x.rs` beside `shared/src/sandbox/mod.rs`.
        let mut files: Vec<PathBuf> = Vec::new();
        for span in spans(cells[1]) {
            for path in expand(span) {
                let base = if path.starts_with("shared/") || path.starts_with("servers/") {
                    root.clone()
                } else {
                    root.join("shared/src")
                };
                let full = base.join(&path);
                if full.is_dir() {
                    let mut inside = Vec::new();
                    rust_files(&full, &mut inside);
                    files.extend(inside);
                } else {
                    files.push(full);
                }
            }
        }
        for name in spans(cells[2..].join(" | ").as_str()).into_iter().filter(|s| is_type_name(s)) {
            let ours = sources.iter().any(|(_, source)| defines(source, name));
            if !ours {
                continue; // rmcp's, serde's, … not ours to place
            }
            checked += 1;
            let there = files.iter().any(|file| std::fs::read_to_string(file).is_ok_and(|s| defines(&s, name)));
            if !there {
                let actual: Vec<String> = sources
                    .iter()
                    .filter(|(_, source)| defines(source, name))
                    .map(|(path, _)| path.strip_prefix(&root).unwrap_or(path).display().to_string())
                    .collect();
                wrong.push(format!("`{name}` is placed in {:?} but defined in {actual:?}", cells[1].trim()));
            }
        }
    }
    assert!(checked > 10, "the check found only {checked} types in the module tables");
    assert!(wrong.is_empty(), "docs/architecture.md misplaces types:\n{}", wrong.join("\n"));
}
