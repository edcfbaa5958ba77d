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

/// A crate's modules: each module's path (`transport::http`) and the production source of its
/// file (from its first `#[cfg(test)]` on: tests may use anything).
struct Crate {
    name: String,
    modules: Vec<(Vec<String>, String)>,
}

/// The crates of the workspace: each library and binary root under `src/`, each integration test
/// root under `tests/`, and the fuzz targets.
fn crates(root: &Path) -> Vec<Crate> {
    let mut found = Vec::new();
    let mut dirs = vec![root.join("shared"), root.join("tests")];
    for server in SERVERS {
        dirs.push(root.join("servers").join(server));
    }
    for dir in dirs {
        let src = dir.join("src");
        for root_file in ["lib.rs", "main.rs"] {
            if src.join(root_file).exists() {
                found.push(crate_at(&format!("{}/src/{root_file}", relative(root, &dir)), &src, root_file));
            }
        }
        for (sub, exclude_root) in [("src/bin", false), ("tests", true)] {
            let Ok(entries) = std::fs::read_dir(dir.join(sub)) else { continue };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.ends_with(".rs") && !(exclude_root && name == "mod.rs") {
                    found.push(crate_at(&format!("{}/{sub}/{name}", relative(root, &dir)), &dir.join(sub), &name));
                }
            }
        }
    }
    found
}

/// `dir` from the repository's root.
fn relative(root: &Path, dir: &Path) -> String {
    dir.strip_prefix(root).unwrap_or(dir).display().to_string()
}

/// The crate whose root is `dir/root_file`: that file and every file its `mod` lines reach.
fn crate_at(name: &str, dir: &Path, root_file: &str) -> Crate {
    let mut modules = Vec::new();
    let mut pending = vec![(Vec::<String>::new(), dir.join(root_file), dir.to_path_buf())];
    while let Some((path, file, children_dir)) = pending.pop() {
        let source = std::fs::read_to_string(&file).unwrap_or_default();
        let production = production(&source);
        for child in declared_modules(&production) {
            let mut child_path = path.clone();
            child_path.push(child.clone());
            let (flat, nested) = (children_dir.join(format!("{child}.rs")), children_dir.join(&child).join("mod.rs"));
            if flat.exists() {
                pending.push((child_path, flat, children_dir.join(&child)));
            } else if nested.exists() {
                pending.push((child_path, nested, children_dir.join(&child)));
            }
        }
        modules.push((path, production));
    }
    Crate { name: name.to_owned(), modules }
}

/// `source` up to its first `#[cfg(test)]`, without comments.
fn production(source: &str) -> String {
    let cut = source.find("#[cfg(test)]").unwrap_or(source.len());
    source[..cut]
        .lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `mod name;` lines of a file (not inline modules).
fn declared_modules(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line
                .strip_prefix("pub mod ")
                .or_else(|| line.strip_prefix("pub(crate) mod "))
                .or_else(|| line.strip_prefix("mod "))?;
            rest.strip_suffix(';').map(|name| name.trim().to_owned())
        })
        .collect()
}

/// Every path a source names from `crate::`, `super::` or `self::`, `use` trees expanded, as
/// segments relative to the crate root (`module` is the file's own module path).
fn referenced_paths(source: &str, module: &[String]) -> Vec<Vec<String>> {
    let bytes: Vec<char> = source.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < bytes.len() {
        let starts_word = i == 0 || !(is_ident(bytes[i - 1]) || bytes[i - 1] == ':');
        let rest: String = bytes[i..bytes.len().min(i + 7)].iter().collect();
        let anchor = ["crate::", "super::", "self::"].into_iter().find(|a| rest.starts_with(a));
        match anchor {
            Some(_) if starts_word => {
                // Read the path (with one level of `{...}` groups, nested ones included) up to
                // what cannot continue it.
                let mut end = i;
                let mut depth = 0;
                while end < bytes.len() {
                    let c = bytes[end];
                    if c == '{' {
                        depth += 1;
                    } else if c == '}' {
                        if depth == 0 {
                            break;
                        }
                        depth -= 1;
                    } else if !(is_ident(c) || c == ':' || (depth > 0 && (c == ',' || c.is_whitespace() || c == '*'))) {
                        break;
                    }
                    end += 1;
                }
                let text: String = bytes[i..end].iter().collect();
                for path in expand_tree(&text) {
                    if let Some(resolved) = resolve(&path, module) {
                        found.push(resolved);
                    }
                }
                i = end.max(i + 1);
            }
            _ => i += 1,
        }
    }
    found
}

/// `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`.
fn expand_tree(text: &str) -> Vec<String> {
    let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = text.find('{') else { return vec![text.trim_end_matches(':').to_owned()] };
    let (prefix, inner) = (&text[..open], &text[open + 1..text.rfind('}').unwrap_or(text.len())]);
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (at, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(|p| expand_tree(p).into_iter().map(move |e| format!("{prefix}{e}")))
        .collect()
}

/// A `crate::`/`super::`/`self::` path as segments from the crate root.
fn resolve(path: &str, module: &[String]) -> Option<Vec<String>> {
    let mut segments = path.split("::").filter(|s| !s.is_empty()).map(str::to_owned);
    let mut base: Vec<String> = match segments.next()?.as_str() {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => module[..module.len().checked_sub(1)?].to_vec(),
        _ => return None,
    };
    for segment in segments {
        if segment == "super" {
            base.pop()?;
        } else if segment != "self" && segment != "*" {
            base.push(segment);
        }
    }
    Some(base)
}

/// The re-exports of a crate (`pub use` and `pub(crate) use` of its own items): the path a name
/// is re-exported under (`["Command"]` for `pub use editor::Command;` at the root) → the path
/// of what it names (`["editor", "Command"]`), so that a use through a re-export counts as a use
/// of the module that defines it.
fn reexports(krate: &Crate) -> std::collections::BTreeMap<Vec<String>, Vec<String>> {
    let known: std::collections::BTreeSet<&Vec<String>> = krate.modules.iter().map(|(p, _)| p).collect();
    let mut aliases = std::collections::BTreeMap::new();
    for (module, source) in &krate.modules {
        let mut rest = source.as_str();
        while let Some(at) = rest.find("pub use ").or_else(|| rest.find("pub(crate) use ")) {
            let after = &rest[at..];
            let start = after.find("use ").unwrap_or(0) + 4;
            let Some(end) = after.find(';') else { break };
            let tree = &after[start..end];
            rest = &after[end..];
            for item in expand_tree(tree) {
                let (path, alias) = match item.split_once(" as ").or_else(|| item.split_once("as")) {
                    Some((path, alias)) if item.contains(" as ") || tree.contains(" as ") => {
                        (path.trim().to_owned(), Some(alias.trim().to_owned()))
                    }
                    _ => (item.clone(), None),
                };
                let target = if ["crate::", "self::", "super::"].iter().any(|a| path.starts_with(a)) {
                    resolve(&path, module)
                } else {
                    // Relative to the module, when it names a child module (not another crate).
                    let mut target = module.clone();
                    target.extend(path.split("::").filter(|s| !s.is_empty()).map(str::to_owned));
                    let child = target[..module.len() + 1.min(target.len() - module.len())].to_vec();
                    known.contains(&child).then_some(target)
                };
                let Some(target) = target else { continue };
                let Some(name) = alias.or_else(|| target.last().cloned()) else { continue };
                if name == "*" || name == "self" {
                    continue;
                }
                let mut key = module.clone();
                key.push(name);
                if key != target {
                    aliases.insert(key, target);
                }
            }
        }
    }
    aliases
}

/// The module cycles of a crate: among the children of one module, `a` uses `b` when a file in
/// `a`'s subtree names anything in `b`'s; a parent and its children may use each other (a type's
/// methods split over child modules), siblings only one way.
fn sibling_cycles(krate: &Crate) -> Vec<String> {
    use std::collections::{BTreeMap, BTreeSet};
    let known: BTreeSet<&Vec<String>> = krate.modules.iter().map(|(p, _)| p).collect();
    // The longest module prefix a path names.
    let module_of = |path: &[String]| -> Vec<String> {
        (0..=path.len()).rev().map(|n| path[..n].to_vec()).find(|p| known.contains(p)).unwrap_or_default()
    };
    // parent -> child -> the children of the same parent it uses.
    let aliases = reexports(krate);
    // A path through a re-export, as the path of what it names.
    let unalias = |path: Vec<String>| -> Vec<String> {
        for n in (1..=path.len()).rev() {
            if let Some(target) = aliases.get(&path[..n]) {
                let mut real = target.clone();
                real.extend_from_slice(&path[n..]);
                return real;
            }
        }
        path
    };
    let mut uses: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (from, source) in &krate.modules {
        for path in referenced_paths(source, from) {
            let to = module_of(&unalias(path));
            // The nearest common ancestor, and the two children of it on each side.
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common < from.len() && common < to.len() {
                uses.entry(from[..common].to_vec())
                    .or_default()
                    .entry(from[common].clone())
                    .or_default()
                    .insert(to[common].clone());
            }
        }
    }
    let mut cycles = Vec::new();
    for (parent, edges) in &uses {
        // Depth-first search for a back edge among the siblings.
        fn visit(
            node: &str,
            edges: &BTreeMap<String, BTreeSet<String>>,
            stack: &mut Vec<String>,
            done: &mut BTreeSet<String>,
            cycles: &mut Vec<Vec<String>>,
        ) {
            if let Some(at) = stack.iter().position(|n| n == node) {
                let mut cycle = stack[at..].to_vec();
                cycle.push(node.to_owned());
                cycles.push(cycle);
                return;
            }
            if !done.insert(node.to_owned()) {
                return;
            }
            stack.push(node.to_owned());
            for next in edges.get(node).into_iter().flatten() {
                visit(next, edges, stack, done, cycles);
            }
            stack.pop();
        }
        let mut found = Vec::new();
        let mut done = BTreeSet::new();
        for start in edges.keys() {
            visit(start, edges, &mut Vec::new(), &mut done, &mut found);
        }
        let at = if parent.is_empty() { "crate".to_owned() } else { parent.join("::") };
        for cycle in found {
            cycles.push(format!("{}: in `{at}`: {}", krate.name, cycle.join(" -> ")));
        }
    }
    cycles
}

#[test]
fn no_crate_has_a_module_cycle() {
    let root = workspace_root();
    let crates = crates(&root);
    assert!(crates.len() >= 10, "found only {} crates", crates.len());
    let modules: usize = crates.iter().map(|c| c.modules.len()).sum();
    assert!(modules > 100, "found only {modules} modules: are the `mod` lines still read?");
    let cycles: Vec<String> = crates.iter().flat_map(sibling_cycles).collect();
    assert!(
        cycles.is_empty(),
        "module cycles (no two modules of one parent may use each other, even through others):\n{}",
        cycles.join("\n")
    );
}

#[test]
fn the_cycle_check_finds_a_cycle_and_resolves_paths() {
    let krate = Crate {
        name: "example".into(),
        modules: vec![
            (vec![], "mod a; mod b; mod c;".into()),
            (vec!["a".into()], "use crate::b::{X, y::Z};".into()),
            (vec!["b".into()], "use super::c::W;".into()),
            (vec!["b".into(), "y".into()], String::new()),
            (vec!["c".into()], "fn f() { crate::a::g(); self::d() }".into()),
        ],
    };
    let cycles = sibling_cycles(&krate);
    assert_eq!(cycles, vec!["example: in `crate`: a -> b -> c -> a".to_owned()]);
    assert_eq!(expand_tree("super::{a, b::{c, d}}"), vec!["super::a", "super::b::c", "super::b::d"]);
    assert_eq!(resolve("super::super::x", &["p".into(), "q".into()]), Some(vec!["x".to_owned()]));
}

#[test]
fn no_module_is_both_a_file_and_a_directory() {
    let root = workspace_root();
    let mut all = Vec::new();
    for dir in ["shared", "servers", "tests"] {
        rust_files(&root.join(dir), &mut all);
    }
    let both: Vec<String> = all
        .iter()
        .filter(|file| file.with_extension("").is_dir())
        .map(|file| file.strip_prefix(&root).unwrap_or(file).display().to_string())
        .collect();
    assert!(both.is_empty(), "`foo.rs` beside a `foo/` (make it `foo/mod.rs`): {both:?}");
}

#[test]
fn the_transport_has_at_most_three_public_modules() {
    let root = workspace_root();
    let mut public = Vec::new();
    let mut files = Vec::new();
    rust_files(&root.join("shared/src/transport"), &mut files);
    for file in files {
        let source = production(&std::fs::read_to_string(&file).unwrap());
        for line in source.lines().map(str::trim) {
            if let Some(name) = line.strip_prefix("pub mod ") {
                public.push(format!("{}: {name}", file.strip_prefix(&root).unwrap().display()));
            }
        }
    }
    assert!(public.len() <= 3, "public modules under shared/src/transport: {public:?}");
}

/// Every `.rs` file the servers ship (the shared crate and each server's `src/`), with its
/// production source.
fn shipping_sources(root: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(&root.join("shared/src"), &mut files);
    for server in SERVERS {
        rust_files(&root.join("servers").join(server).join("src"), &mut files);
    }
    files
        .into_iter()
        .map(|file| {
            let source = production(&std::fs::read_to_string(&file).unwrap());
            (file.strip_prefix(root).unwrap().display().to_string(), source)
        })
        .collect()
}

#[test]
fn shipping_code_has_at_most_four_unsafe_sites_each_with_its_safety_comment() {
    let root = workspace_root();
    let mut sites = Vec::new();
    let mut undocumented = Vec::new();
    for (path, source) in shipping_sources(&root) {
        let raw = std::fs::read_to_string(root.join(&path)).unwrap();
        let raw_lines: Vec<&str> = raw.lines().collect();
        for (at, line) in source.lines().enumerate() {
            let code = line.trim();
            let is_site = ["unsafe {", "unsafe fn", "unsafe impl", "unsafe extern", "#[unsafe("]
                .iter()
                .any(|form| code.contains(form));
            if !is_site {
                continue;
            }
            sites.push(format!("{path}:{}", at + 1));
            // The comment is on one of the few lines above (an attribute may come between).
            let above = raw_lines[at.saturating_sub(4)..at].join("\n");
            if !above.contains("// SAFETY:") {
                undocumented.push(format!("{path}:{}", at + 1));
            }
        }
    }
    assert!(sites.len() <= 4, "unsafe sites in shipping code: {sites:?}");
    assert!(undocumented.is_empty(), "unsafe without a `// SAFETY:` comment above it: {undocumented:?}");
}

#[test]
fn every_server_starts_on_std_s_entry_point() {
    let root = workspace_root();
    let mut found = Vec::new();
    for (path, source) in shipping_sources(&root) {
        for trick in ["no_main", ".init_array", "link_section", "global_allocator", "no_mangle"] {
            if source.contains(trick) {
                found.push(format!("{path}: {trick}"));
            }
        }
    }
    assert!(found.is_empty(), "start-up tricks in shipping code: {found:?}");
}

/// The direct downloads in the README and the install guide can be copied as they are: each names
/// the release of the repository in Cargo.toml (`…/releases/download/vVERSION/`), the address
/// `cargo binstall` uses too.
#[test]
fn the_direct_downloads_name_the_real_release_url() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let field = |name: &str| {
        manifest
            .lines()
            .find_map(|l| l.strip_prefix(name).and_then(|r| r.trim_start().strip_prefix('=')))
            .map(|v| v.trim().trim_matches('"').to_owned())
            .unwrap()
    };
    let base = format!("{}/releases/download/v{}/", field("repository"), field("version"));
    for doc in ["README.md", "docs/install.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        assert!(!text.contains("…/mcp-server"), "{doc}: a download with its host elided");
        let downloads: Vec<&str> =
            text.split(['`', ' ']).filter(|w| w.contains(".tar.gz") || w.ends_with(".zip")).collect();
        assert!(downloads.len() >= 2, "{doc}: {downloads:?}");
        for url in downloads.iter().filter(|w| w.starts_with("http")) {
            assert!(url.starts_with(&base), "{doc}: {url} is not under {base}");
        }
    }
}

/// Every Rust file that can use the library whose sources are `src`, as one text: the other
/// libraries, and every binary (`src/main.rs`, `src/bin/`), test, example and fuzz target.
fn users_of(root: &Path, src: &Path) -> String {
    let mut files = Vec::new();
    for top in ["shared", "servers", "tests", "fuzz"] {
        rust_files(&root.join(top), &mut files);
    }
    files
        .into_iter()
        .filter(|file| !file.starts_with(src) || file.ends_with("main.rs") || file.starts_with(src.join("bin")))
        .map(|file| std::fs::read_to_string(file).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segments of the paths `text` names under `krate`: `krate::a::b` and the top-level
/// items of `krate::{a::{b, c}, d}` (`a`, `d`).
fn used_modules(text: &str, krate: &str) -> BTreeSet<String> {
    let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut used = BTreeSet::new();
    let prefix = format!("{krate}::");
    for (at, _) in text.match_indices(&prefix) {
        let rest = &text[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let (mut depth, mut item) = (0, String::new());
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        used.insert(item.split("::").next().unwrap_or_default().to_owned());
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 || item.is_empty() {
                    item.push(c);
                }
            }
            used.insert(item.split("::").next().unwrap_or_default().to_owned());
        } else {
            used.insert(rest.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or_default().to_owned());
        }
    }
    used
}

/// Each crate exposes only what other crates use: every `pub mod` of a library's `lib.rs` is
/// named, as `crate_name::module`, by another crate (a server's binary, a test, an example, a
/// fuzz target, another library); the rest are private and re-export what is used.
#[test]
fn every_public_module_of_a_library_is_used_by_another_crate() {
    let root = workspace_root();
    let mut libraries = vec![("mcp_shared".to_owned(), root.join("shared/src"))];
    for server in SERVERS {
        libraries
            .push((format!("mcp_server_{}", server.replace('-', "_")), root.join("servers").join(server).join("src")));
    }
    let mut unused = Vec::new();
    for (name, src) in libraries {
        let lib = production(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
        let used = used_modules(&users_of(&root, &src), &name);
        for module in lib.lines().filter_map(|l| l.trim().strip_prefix("pub mod ")?.strip_suffix(';')) {
            if !used.contains(module) {
                unused.push(format!("{name}::{module}"));
            }
        }
    }
    assert!(unused.is_empty(), "public modules no other crate names (make them private): {unused:?}");
    let named = used_modules("use k::{a::{b, c}, d};\nk::e::f();\nk::{g};", "k");
    assert_eq!(named, BTreeSet::from(["a", "d", "e", "g"].map(str::to_owned)));
}
