//! Nothing outside the roots is read, written, listed or revealed: `..`, absolute paths
//! elsewhere, sibling-prefix roots, symlinks out (file, directory, dangling, intermediate,
//! loop), NUL bytes, and a directory swapped for a symlink while calls run.

use mcp_tests::os::symlink;
use std::{
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
};

use mcp_tests::StdioClient;
use serde_json::{Value, json};

use super::{TOOL, spawn_on};

/// `base/proj` (the root), `base/proj_evil`, `base/outside/secret.txt`, and symlinks in the
/// root that lead out.
struct Fixture {
    _base: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
    client: StdioClient,
}

const SECRET: &[u8] = b"top secret\n";

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("proj");
    std::fs::create_dir_all(root.join("real")).unwrap();
    std::fs::write(root.join("real/inside.txt"), "inside\n").unwrap();
    std::fs::create_dir_all(base.join("proj_evil")).unwrap();
    std::fs::write(base.join("proj_evil/x.txt"), SECRET).unwrap();
    std::fs::create_dir_all(base.join("outside")).unwrap();
    std::fs::write(base.join("outside/secret.txt"), SECRET).unwrap();
    symlink(base.join("outside/secret.txt"), root.join("link_file")).unwrap();
    symlink(base.join("outside"), root.join("link_dir")).unwrap();
    symlink(base.join("outside/nope.txt"), root.join("dangling")).unwrap();
    symlink("../outside/secret.txt", root.join("relative_out")).unwrap();
    symlink("loop2", root.join("loop1")).unwrap();
    symlink("loop1", root.join("loop2")).unwrap();
    symlink("real/inside.txt", root.join("ok_link")).unwrap();
    let client = spawn_on(&root, &[]);
    Fixture { _base: dir, base, root, client }
}

impl Fixture {
    fn call(&mut self, args: Value) -> Value {
        self.client.call_tool(TOOL, args).unwrap()
    }

    /// Every command on `path` fails with `code`, and leaves the outside as it was.
    fn refused_everywhere(&mut self, path: &str, code: &str) -> Vec<String> {
        let mut messages = Vec::new();
        for args in [
            json!({"command": "view", "path": path}),
            json!({"command": "view", "path": path, "view_range": [1, 1]}),
            json!({"command": "create", "path": path, "file_text": "pwned\n"}),
            json!({"command": "str_replace", "path": path, "old_str": "top secret", "new_str": "pwned"}),
            json!({"command": "insert", "path": path, "insert_line": 0, "new_str": "pwned"}),
            json!({"command": "undo_edit", "path": path}),
        ] {
            let result = self.call(args.clone());
            assert!(mcp_tests::is_error(&result), "{args} must fail: {result}");
            assert_eq!(mcp_tests::error_code(&result).as_deref(), Some(code), "{args}: {result}");
            let text = mcp_tests::text_of(&result);
            assert!(!text.contains("top secret"), "{args} leaked the content: {text}");
            messages.push(text);
        }
        self.assert_outside_untouched();
        messages
    }

    fn assert_outside_untouched(&self) {
        assert_eq!(std::fs::read(self.base.join("outside/secret.txt")).unwrap(), SECRET);
        assert_eq!(std::fs::read(self.base.join("proj_evil/x.txt")).unwrap(), SECRET);
        let mut outside: Vec<_> =
            std::fs::read_dir(self.base.join("outside")).unwrap().map(|e| e.unwrap().file_name()).collect();
        outside.sort();
        assert_eq!(outside, vec![std::ffi::OsString::from("secret.txt")]);
        assert_eq!(std::fs::read_dir(self.base.join("proj_evil")).unwrap().count(), 1);
        let mut top: Vec<_> = std::fs::read_dir(&self.base).unwrap().map(|e| e.unwrap().file_name()).collect();
        top.sort();
        assert_eq!(top, ["outside", "proj", "proj_evil"].map(std::ffi::OsString::from).to_vec());
    }

    fn s(&self, p: &Path) -> String {
        p.display().to_string()
    }
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn dot_dot_absolute_elsewhere_and_sibling_prefix_are_outside() {
    let mut f = fixture();
    let root = f.s(&f.root);
    for path in [
        format!("{root}/../outside/secret.txt"),
        "../outside/secret.txt".to_owned(),
        "real/../../outside/secret.txt".to_owned(),
        f.s(&f.base.join("outside/secret.txt")),
        f.s(&f.base.join("proj_evil/x.txt")),
        format!("{root}_evil/x.txt"),
        "/etc/passwd".to_owned(),
        "/".to_owned(),
    ] {
        f.refused_everywhere(&path, "OUTSIDE_ROOT");
    }
    // `..` that stays inside is fine
    let ok = f.call(json!({"command": "view", "path": format!("{root}/real/../real/inside.txt")}));
    assert!(!mcp_tests::is_error(&ok), "{ok}");
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn symlinks_that_lead_out_are_outside() {
    let mut f = fixture();
    let root = f.s(&f.root);
    for path in ["link_file", "link_dir", "link_dir/secret.txt", "link_dir/new.txt", "dangling", "relative_out"] {
        f.refused_everywhere(&format!("{root}/{path}"), "OUTSIDE_ROOT");
        f.refused_everywhere(path, "OUTSIDE_ROOT");
    }
    // a listing of the root shows the links, never what is behind them
    let listing = mcp_tests::text_of(&f.call(json!({"command": "view", "path": root})));
    assert!(listing.contains("/link_dir\n") && !listing.contains("secret"), "{listing}");
    // a link inside the root works
    let ok = f.call(json!({"command": "view", "path": "ok_link"}));
    assert!(mcp_tests::text_of(&ok).contains("\tinside"), "{ok}");
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn a_symlink_loop_is_an_error() {
    let mut f = fixture();
    for args in [
        json!({"command": "view", "path": "loop1"}),
        json!({"command": "create", "path": "loop1/x", "file_text": "x"}),
        json!({"command": "str_replace", "path": "loop2", "old_str": "a", "new_str": "b"}),
    ] {
        let r = f.call(args.clone());
        assert!(mcp_tests::is_error(&r), "{args}: {r}");
    }
    f.assert_outside_untouched();
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn nul_bytes_are_invalid() {
    let mut f = fixture();
    let root = f.s(&f.root);
    let messages =
        f.refused_everywhere(&format!("{root}/real/inside.txt\u{0}../../outside/secret.txt"), "INVALID_ARGS");
    assert!(messages.iter().all(|m| m.contains("NUL")), "{messages:?}");
    f.refused_everywhere("a\u{0}b", "INVALID_ARGS");
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn the_error_does_not_reveal_whether_the_outside_path_exists() {
    let mut f = fixture();
    let base = f.s(&f.base);
    let root = f.s(&f.root);
    std::fs::create_dir(f.root.join("links")).unwrap();
    symlink(f.base.join("outside/secret.txt"), f.root.join("links/existing")).unwrap();
    symlink(f.base.join("outside/missing.txt"), f.root.join("links/missing")).unwrap();
    let pairs = [
        (format!("{base}/outside/secret.txt"), format!("{base}/outside/missing.txt")),
        (format!("{root}/links/existing"), format!("{root}/links/missing")),
        (format!("{root}/../outside/secret.txt"), format!("{root}/../outside/missing.txt")),
    ];
    for (existing, missing) in pairs {
        let a = f.refused_everywhere(&existing, "OUTSIDE_ROOT");
        let b = f.refused_everywhere(&missing, "OUTSIDE_ROOT");
        let a: Vec<String> = a.iter().map(|m| m.replace(&existing, "PATH")).collect();
        let b: Vec<String> = b.iter().map(|m| m.replace(&missing, "PATH")).collect();
        assert_eq!(a, b, "{existing} vs {missing}");
    }
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn a_directory_swapped_for_a_symlink_during_calls_never_lets_a_write_out() {
    let mut f = fixture();
    let dir = f.root.join("swap");
    let parked = f.root.join("swap_parked");
    std::fs::create_dir(&dir).unwrap();
    let link_tmp = f.root.join("swap_link");
    let stop = Arc::new(AtomicBool::new(false));
    let flipper = {
        let (dir, parked, link_tmp, outside, stop) =
            (dir.clone(), parked.clone(), link_tmp.clone(), f.base.join("outside"), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut flips = 0u32;
            while !stop.load(Ordering::Relaxed) && flips < 20_000 {
                // swap: the real directory out, a symlink to the outside in, and back
                let _ = std::fs::rename(&dir, &parked);
                let _ = symlink(&outside, &link_tmp);
                let _ = std::fs::rename(&link_tmp, &dir);
                let _ = std::fs::remove_file(&dir);
                let _ = std::fs::rename(&parked, &dir);
                flips += 1;
            }
        })
    };
    for i in 0..150 {
        let path = format!("swap/f{i}.txt");
        let _ = f.call(json!({"command": "create", "path": path, "file_text": "x\n"}));
        let _ = f.call(json!({"command": "view", "path": "swap/secret.txt"}));
    }
    stop.store(true, Ordering::Relaxed);
    flipper.join().unwrap();
    f.assert_outside_untouched();
}
