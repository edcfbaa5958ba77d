//! The shared sandbox's path resolution over arbitrary paths, in a root with symlinks that lead
//! out (absolute, relative, through a directory, dangling, a loop): whatever the path, nothing
//! outside the root is read, listed or written.
#![no_main]

use std::{os::unix::fs::symlink, path::PathBuf, sync::OnceLock};

use libfuzzer_sys::fuzz_target;
use mcp_shared::sandbox::{Sandbox, WriteOptions};

const SECRET: &[u8] = b"SECRET-OUTSIDE";

struct Fixture {
    _dir: tempfile::TempDir,
    outside: PathBuf,
    sandbox: Sandbox,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("root");
        let outside = base.join("outside");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::create_dir_all(base.join("root_evil")).unwrap();
        std::fs::write(outside.join("secret"), SECRET).unwrap();
        std::fs::write(base.join("root_evil/secret"), SECRET).unwrap();
        std::fs::write(root.join("sub/inside.txt"), b"inside").unwrap();
        symlink(outside.join("secret"), root.join("abs")).unwrap();
        symlink("../outside/secret", root.join("rel")).unwrap();
        symlink(&outside, root.join("dir")).unwrap();
        symlink("../../outside", root.join("sub/up")).unwrap();
        symlink(outside.join("nope"), root.join("dangling")).unwrap();
        symlink("loop2", root.join("loop1")).unwrap();
        symlink("loop1", root.join("loop2")).unwrap();
        symlink("sub/inside.txt", root.join("ok")).unwrap();
        let sandbox = Sandbox::new([&root]).unwrap();
        Fixture { _dir: dir, outside, sandbox }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(path) = std::str::from_utf8(data) else { return };
    let f = fixture();
    let Ok(p) = f.sandbox.resolve(path) else { return };
    if let Ok(bytes) = f.sandbox.read(&p) {
        assert_ne!(bytes, SECRET, "read outside the root through {path:?}");
    }
    if let Ok(entries) = f.sandbox.read_dir(&p) {
        assert!(!entries.iter().any(|e| e.name == "secret"), "listed outside the root through {path:?}");
    }
    // Writes only where nothing exists yet (the fixture stays as it is), then removed again.
    if !f.sandbox.exists(&p).unwrap_or(true) {
        let options = WriteOptions { fsync: false, ..WriteOptions::default() };
        if f.sandbox.write_atomic(&p, b"x", &options).is_ok() {
            let _ = f.sandbox.remove_file(&p);
        }
    }
    let outside: Vec<_> = std::fs::read_dir(&f.outside).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(outside.len(), 1, "something was written outside the root through {path:?}: {outside:?}");
});
