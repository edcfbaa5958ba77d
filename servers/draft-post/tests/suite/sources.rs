//! Where a manuscript may come from: the attack set. Each refused source leaves the repository
//! byte for byte as it was (no article, no lock file, no index), says what a valid source is,
//! and reveals neither whether the refused file exists nor what it holds; a real manuscript in
//! an allowed place still creates, updates and stays idempotent.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    time::Duration,
};

use mcp_tests::{StdioClient, error_code, is_error, structured, text_of};
use serde_json::json;

use super::{BIN, Fixture, call_with_roots, draft_post, id_of, posted};

/// Every entry under `root`, hidden ones included (the lock file and the index too).
fn full_tree(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            if meta.is_dir() {
                out.insert(rel, None);
                stack.push(path);
            } else if meta.file_type().is_symlink() {
                out.insert(rel, Some(std::fs::read_link(&path).unwrap().into_os_string().into_encoded_bytes()));
            } else {
                out.insert(rel, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    out
}

/// The fixture plus a fake home holding the usual secrets, and secrets inside the drafts
/// directory (which is an allowed source directory: the server's working directory).
struct Attack {
    fx: Fixture,
    home: PathBuf,
    _home_dir: tempfile::TempDir,
    outside: tempfile::TempDir,
}

const SECRET: &str = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI";
const KEY: &str = "-----BEGIN OPENSSH PRIVATE KEY-----";

impl Attack {
    fn new() -> Attack {
        let fx = Fixture::new();
        let home_dir = tempfile::tempdir().unwrap();
        let home = home_dir.path().join("someone");
        let put = |path: PathBuf, text: &str| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        put(home.join(".env"), SECRET);
        put(home.join(".ssh/id_ed25519"), KEY);
        put(home.join("notes.md"), "home notes");
        let drafts = fx.root().join("drafts");
        put(drafts.join(".env"), SECRET);
        put(drafts.join(".ssh/id_ed25519"), KEY);
        put(drafts.join(".ssh/key.md"), KEY);
        put(drafts.join(".config/app/notes.md"), SECRET);
        put(drafts.join("id_ed25519"), KEY);
        mcp_tests::os::symlink(home.join(".ssh/id_ed25519"), drafts.join("seed.md")).unwrap();
        mcp_tests::os::symlink(drafts.join("id_ed25519"), drafts.join("seed-key.md")).unwrap();
        mcp_tests::os::symlink(drafts.join(".ssh/key.md"), drafts.join("seed-hidden.md")).unwrap();
        mcp_tests::os::symlink(drafts.join(".config"), drafts.join("config")).unwrap();
        assert!(std::process::Command::new("mkfifo").arg(drafts.join("pipe.md")).status().unwrap().success());
        let outside = tempfile::tempdir().unwrap();
        put(outside.path().join("article.md"), &format!("---\ntitle: x\n---\n{SECRET}\n"));
        Attack { fx, home, _home_dir: home_dir, outside }
    }

    /// The server, started in the fixture's workspace with `HOME` at the fake home.
    fn server(&self, extra: &[&str]) -> StdioClient {
        let mut client = StdioClient::builder(BIN)
            .arg("--repo")
            .arg(self.fx.repo())
            .args(extra)
            .current_dir(self.fx.root())
            .env("HOME", &self.home)
            .env("TZ", "UTC")
            .spawn()
            .unwrap();
        client.initialize().unwrap();
        client
    }
}

/// Calls `draft_post` with `source`; expects a refusal with `code`, the repository unchanged.
fn refused_unchanged(a: &Attack, c: &mut StdioClient, source: &str, code: &str) -> String {
    let before = full_tree(&a.fx.repo());
    let result = c.call_tool("draft_post", json!({"source": source, "project": "2026-01"})).unwrap();
    assert!(is_error(&result), "{source}: should be refused: {result}");
    assert_eq!(error_code(&result).as_deref(), Some(code), "{source}: {result}");
    let message = text_of(&result);
    for leaked in [SECRET, KEY, "root:x:0:0", "PATH="] {
        assert!(!message.contains(leaked), "{source}: the message leaks the content: {message}");
    }
    // No host path but the one the caller sent: not the repository, the source directories or home.
    let rest = message.replace(source, "<source>");
    for host in [a.fx.root(), a.home.as_path()] {
        assert!(!rest.contains(host.to_str().unwrap()), "{source}: the message names {}: {message}", host.display());
    }
    assert_eq!(full_tree(&a.fx.repo()), before, "{source}: the repository changed");
    message
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn the_attack_set_is_refused_and_writes_nothing() {
    let a = Attack::new();
    let drafts = a.fx.root().join("drafts");
    let d = |name: &str| drafts.join(name).display().to_string();
    let h = |name: &str| a.home.join(name).display().to_string();
    let mut c = a.server(&[]);
    // Outside every source directory: the home directory is never one as a whole.
    for source in [
        h(".env"),
        h(".ssh/id_ed25519"),
        h("notes.md"),
        "/etc/passwd".to_owned(),
        "/proc/self/environ".to_owned(),
        a.outside.path().join("article.md").display().to_string(),
        d("seed.md"),
    ] {
        let message = refused_unchanged(&a, &mut c, &source, "OUTSIDE_ROOT");
        assert!(message.contains(".md, .markdown or .mdx") && message.contains("--source-root"), "{message}");
    }
    // Hidden files and directories, also reached through a symlink with an innocent name.
    // `~` is not expanded: `~/.env` is a hidden file under the working directory.
    for source in [
        d(".env"),
        d(".ssh/id_ed25519"),
        d(".ssh/key.md"),
        d(".config/app/notes.md"),
        d("seed-hidden.md"),
        d("config/app/notes.md"),
        "~/.env".to_owned(),
    ] {
        let message = refused_unchanged(&a, &mut c, &source, "ACCESS_DENIED");
        assert!(message.contains("hidden"), "{message}");
    }
    // Not Markdown (by its resolved name), or not a regular file: a FIFO is refused, not waited on.
    refused_unchanged(&a, &mut c, &d("id_ed25519"), "INVALID_ARGS");
    refused_unchanged(&a, &mut c, &d("seed-key.md"), "INVALID_ARGS");
    refused_unchanged(&a, &mut c, &d("pipe.md"), "INVALID_ARGS");
    // No lock file, no index, not even projects/.
    assert!(!a.fx.at("projects").exists());
    // A real manuscript still works.
    let seed = a.fx.draft("real.md", "---\ntitle: Real\n---\nbody\n");
    assert_eq!(posted(&mut c, json!({"source": seed, "project": "2026-01"}))["action"], "created");
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn a_refusal_does_not_say_whether_the_file_exists() {
    let a = Attack::new();
    let mut c = a.server(&[]);
    let drafts = a.fx.root().join("drafts");
    let pairs = [
        (a.outside.path().join("article.md"), a.outside.path().join("missing.md")),
        (a.home.join(".ssh/id_ed25519"), a.home.join(".ssh/id_rsa")),
        (drafts.join(".config/app/notes.md"), drafts.join(".config/app/missing.md")),
        (drafts.join("id_ed25519"), drafts.join("id_rsa")),
    ];
    for (exists, missing) in pairs {
        let (exists, missing) = (exists.display().to_string(), missing.display().to_string());
        let call = |c: &mut StdioClient, source: &str| {
            let result = c.call_tool("draft_post", json!({"source": source})).unwrap();
            (error_code(&result), text_of(&result).replace(source, "<source>"))
        };
        assert_eq!(call(&mut c, &exists), call(&mut c, &missing), "{exists} vs {missing}");
    }
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn source_roots_confine_and_the_drafts_place_is_one_flag_away() {
    let a = Attack::new();
    // The agent writes /path/to/seed.md, then files it: --source-root /path/to.
    let agent = tempfile::tempdir().unwrap();
    let seed = agent.path().join("seed.md");
    std::fs::write(&seed, "---\ntitle: From the agent\n---\nFirst.\n").unwrap();
    let seed = seed.display().to_string();
    let mut c = a.server(&[]);
    refused_unchanged(&a, &mut c, &seed, "OUTSIDE_ROOT");
    let mut c = a.server(&["--source-root", agent.path().to_str().unwrap()]);
    let first = posted(&mut c, json!({"source": seed, "project": "2026-01"}));
    assert_eq!(first["action"], "created");
    assert_eq!(first["source_id"], id_of(&seed));
    std::fs::write(&seed, "---\ntitle: From the agent\n---\nSecond.\n").unwrap();
    let second = posted(&mut c, json!({"source": seed}));
    assert_eq!((second["action"].as_str(), &second["dir"]), (Some("updated"), &first["dir"]));
    assert_eq!(posted(&mut c, json!({"source": seed}))["action"], "unchanged");
    // With --source-root, the defaults no longer apply: drafts/ (the working directory) is out.
    let other = a.fx.draft("other.md", "# other\n");
    refused_unchanged(&a, &mut c, &other, "OUTSIDE_ROOT");
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn a_source_root_that_is_a_symlink_stays_where_it_pointed_at_start() {
    let a = Attack::new();
    let base = a.fx.root();
    std::fs::create_dir(base.join("real-drafts")).unwrap();
    std::fs::write(base.join("real-drafts/ok.md"), "# ok\n").unwrap();
    mcp_tests::os::symlink(base.join("real-drafts"), base.join("drafts-link")).unwrap();
    let link = base.join("drafts-link");
    let mut c = a.server(&["--source-root", link.to_str().unwrap()]);
    let ok = posted(&mut c, json!({"source": link.join("ok.md"), "project": "2026-01"}));
    assert_eq!(ok["source_id"], id_of(base.join("real-drafts/ok.md").to_str().unwrap()), "the canonical path");
    // The link is re-pointed at the secrets: the root stays the directory it named at start.
    std::fs::remove_file(&link).unwrap();
    mcp_tests::os::symlink(a.home.join(".ssh"), &link).unwrap();
    std::fs::write(a.home.join(".ssh/stolen.md"), KEY).unwrap();
    refused_unchanged(&a, &mut c, link.join("stolen.md").to_str().unwrap(), "NOT_FOUND");
    refused_unchanged(&a, &mut c, a.home.join(".ssh/stolen.md").to_str().unwrap(), "OUTSIDE_ROOT");
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn a_source_root_that_is_a_symlink_into_a_hidden_directory_is_not_used() {
    // `--source-root drafts-link` where the link leads to `~/.ssh`: its hidden component comes
    // from the link, not from the name the user gave.
    let a = Attack::new();
    std::fs::write(a.home.join(".ssh/key.md"), KEY).unwrap();
    let link = a.fx.root().join("drafts-link");
    mcp_tests::os::symlink(a.home.join(".ssh"), &link).unwrap();
    let mut c = a.server(&["--source-root", link.to_str().unwrap()]);
    for source in [link.join("key.md"), a.home.join(".ssh/key.md")] {
        let message = refused_unchanged(&a, &mut c, source.to_str().unwrap(), "OUTSIDE_ROOT");
        assert!(message.contains("--source-root"), "{message}");
    }
    assert!(c.wait_for_stderr("leads through a symlink into a hidden directory").is_ok());
    // The same directory named as itself is the user's explicit choice.
    let mut c = a.server(&["--source-root", a.home.join(".ssh").to_str().unwrap()]);
    let result =
        c.call_tool("draft_post", json!({"source": a.home.join(".ssh/key.md"), "project": "2026-01"})).unwrap();
    assert!(!is_error(&result), "{result}");
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn a_path_swapped_for_a_symlink_never_files_the_target() {
    // The deterministic check (a swap exactly between the check and the read) is the unit test
    // of the reader; here the swap races real calls and the property must hold every time.
    let a = Attack::new();
    let drafts = a.fx.root().join("drafts");
    let race = drafts.join("race.md");
    let legit = drafts.join("legit.md");
    std::fs::write(&legit, "# legit\n").unwrap();
    std::fs::copy(&legit, &race).unwrap();
    let mut c = a.server(&[]);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flipper = {
        let (stop, race, key) = (stop.clone(), race.clone(), drafts.join(".ssh/key.md"));
        let tmp = drafts.join("race.tmp");
        std::thread::spawn(move || {
            let mut link = false;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::fs::remove_file(&tmp);
                if link {
                    mcp_tests::os::symlink(&key, &tmp).unwrap();
                } else {
                    std::fs::write(&tmp, "# legit\n").unwrap();
                }
                std::fs::rename(&tmp, &race).unwrap();
                link = !link;
            }
        })
    };
    for _ in 0..150 {
        let result = c.call_tool("draft_post", json!({"source": race, "project": "2026-01"})).unwrap();
        if is_error(&result) {
            let code = error_code(&result).unwrap();
            // Refused as hidden, as changed, or (a symlink seen where a file was) as not a file.
            assert!(["ACCESS_DENIED", "CONFLICT", "INVALID_ARGS"].contains(&code.as_str()), "{result}");
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    flipper.join().unwrap();
    for (path, content) in full_tree(&a.fx.repo()) {
        if let Some(bytes) = content {
            assert!(!String::from_utf8_lossy(&bytes).contains(KEY), "{} holds the key", path.display());
        }
    }
}

fn spawn_with_roots_capability(a: &Attack, extra: &[&str], cwd: &Path) -> StdioClient {
    let mut client = StdioClient::builder(BIN)
        .args(extra)
        .env("RUST_LOG", "mcp_server_draft_post=debug,mcp_shared::client_roots=debug")
        .current_dir(cwd)
        .env("HOME", &a.home)
        .env("TZ", "UTC")
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    let mut params = StdioClient::default_initialize_params();
    params["capabilities"] = json!({"roots": {"listChanged": true}});
    client.initialize_with(params).unwrap();
    client
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn the_clients_roots_narrow_the_source_directories() {
    let a = Attack::new();
    let inner = a.fx.root().join("drafts/inner");
    std::fs::create_dir(&inner).unwrap();
    let inside = a.fx.draft("inner/in.md", "# in\n");
    let outside = a.fx.draft("out.md", "# out\n");
    let repo = a.fx.repo();
    let mut c = spawn_with_roots_capability(&a, &["--repo", repo.to_str().unwrap()], a.fx.root());
    let roots = [inner.as_path()];
    let result = call_with_roots(&mut c, &roots, "draft_post", json!({"source": inside, "project": "2026-01"}));
    assert!(!is_error(&result), "{result}");
    assert_eq!(structured(&result).unwrap()["action"], "created");
    let before = full_tree(&repo);
    let result = call_with_roots(&mut c, &roots, "draft_post", json!({"source": outside, "project": "2026-01"}));
    assert_eq!(error_code(&result).as_deref(), Some("OUTSIDE_ROOT"), "{result}");
    assert_eq!(full_tree(&repo), before);
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn the_home_directory_is_never_a_default_source_directory() {
    // `--repo ~` (an explicit choice) started in `/`: no default place is left for manuscripts.
    let a = Attack::new();
    let seed = a.home.join("notes.md");
    let mut c = StdioClient::builder(BIN)
        .arg("--repo")
        .arg(&a.home)
        .current_dir("/")
        .env("HOME", &a.home)
        .env("TZ", "UTC")
        .spawn()
        .unwrap();
    c.initialize().unwrap();
    let before = full_tree(&a.home);
    let result = c.call_tool("draft_post", json!({"source": seed, "project": "2026-01"})).unwrap();
    assert_eq!(error_code(&result).as_deref(), Some("OUTSIDE_ROOT"), "{result}");
    assert!(text_of(&result).contains("--source-root DIR"), "{result}");
    assert_eq!(full_tree(&a.home), before, "nothing written");
}

#[test]
#[cfg_attr(windows, ignore = "wine shows a symbolic link as its target: on Windows, run with --include-ignored")]
fn changed_client_roots_are_asked_for_again() {
    let a = Attack::new();
    let first = a.fx.root().join("drafts/first");
    let second = a.fx.root().join("drafts/second");
    std::fs::create_dir_all(&first).unwrap();
    std::fs::create_dir_all(&second).unwrap();
    let in_first = a.fx.draft("first/a.md", "# a\n");
    let in_second = a.fx.draft("second/b.md", "# b\n");
    let repo = a.fx.repo();
    let mut c = spawn_with_roots_capability(&a, &["--repo", repo.to_str().unwrap()], a.fx.root());
    let args = |source: &str| json!({"source": source, "project": "2026-01"});
    let result = call_with_roots(&mut c, &[first.as_path()], "draft_post", args(&in_first));
    assert!(!is_error(&result), "{result}");
    // Asked once per session: the same answer holds without a new roots/list.
    let result = call_with_roots(&mut c, &[second.as_path()], "draft_post", args(&in_second));
    assert_eq!(error_code(&result).as_deref(), Some("OUTSIDE_ROOT"), "{result}");
    // The client says its roots changed: the next call asks again.
    c.notify("notifications/roots/list_changed", serde_json::Value::Null).unwrap();
    // Notifications are handled beside requests: wait until this one was.
    c.wait_for_stderr("the client's roots changed").unwrap();
    let result = call_with_roots(&mut c, &[second.as_path()], "draft_post", args(&in_second));
    assert!(!is_error(&result), "{result}");
    let result = call_with_roots(&mut c, &[second.as_path()], "draft_post", args(&in_first));
    assert_eq!(error_code(&result).as_deref(), Some("OUTSIDE_ROOT"), "{result}");
}

/// A blog at `~/blog` with drafts at `~/drafts`: the directory that holds the blog is the home
/// directory, which is never a source directory as a whole; the refusal says so and names the
/// flag to add, and with it the draft is filed.
#[test]
fn the_home_rule_is_named_with_the_flag_that_allows_the_drafts() {
    let fx = Fixture::new();
    let home = fx.root().to_path_buf();
    let draft = fx.draft("seed.md", "# Seed\n");
    let spawn = |extra: &[&str]| {
        let mut client = mcp_tests::StdioClient::builder(BIN)
            .arg("--repo")
            .arg(fx.repo())
            .args(extra)
            .current_dir(&home)
            .env("HOME", &home)
            .spawn()
            .unwrap();
        client.initialize().unwrap();
        client
    };
    let mut c = spawn(&[]);
    let result = draft_post(&mut c, serde_json::json!({"source": draft, "project": "p"}));
    assert_eq!(error_code(&result).as_deref(), Some("OUTSIDE_ROOT"), "{result}");
    let message = text_of(&result);
    assert!(message.contains("not the home directory itself"), "{message}");
    assert!(message.contains("--source-root ~/drafts"), "{message}");
    let drafts = home.join("drafts");
    let mut c = spawn(&["--source-root", drafts.to_str().unwrap()]);
    let result = draft_post(&mut c, serde_json::json!({"source": draft, "project": "p"}));
    assert!(!mcp_tests::is_error(&result), "{result}");
}
