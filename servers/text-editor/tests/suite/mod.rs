//! The suites, and a small harness: a server spawned on its own temporary root.

use std::path::{Path, PathBuf};

use mcp_tests::StdioClient;
use serde_json::{Value, json};

mod codex;
mod concurrency;
mod confinement;
mod defaults;
mod encodings;
mod errors;
mod files;
mod first_hour;
mod hostile;
mod hostile5;
mod journal;
mod large;
mod outputs;
mod person;
mod properties;
mod protocol;
#[cfg(unix)]
mod race;
mod reference;
mod replay;
mod roots;
mod scale;
mod search;
mod session;
mod tour;
mod undo;
mod views;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_mcp-server-text-editor");

/// The tool's default name.
pub const TOOL: &str = "text_editor";

/// A server on a fresh temporary root.
pub struct Server {
    /// Keeps the root alive.
    pub _dir: tempfile::TempDir,
    /// The root (canonical).
    pub root: PathBuf,
    /// The client.
    pub client: StdioClient,
}

impl Server {
    /// A server on a fresh root, with the default flags.
    pub fn start() -> Server {
        Server::with_args(&[])
    }

    /// A server on a fresh root with extra flags.
    pub fn with_args(extra: &[&str]) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let client = spawn_on(&root, extra);
        Server { _dir: dir, root, client }
    }

    /// The absolute path (as a string) of `rel` under the root.
    pub fn path(&self, rel: &str) -> String {
        if rel.is_empty() { self.root.display().to_string() } else { format!("{}/{rel}", self.root.display()) }
    }

    /// Writes a file under the root (parents created).
    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) {
        let path = self.root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, bytes).unwrap();
    }

    /// Reads a file under the root.
    pub fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.root.join(rel)).unwrap()
    }

    /// Reads a file under the root as UTF-8.
    pub fn read_string(&self, rel: &str) -> String {
        String::from_utf8(self.read(rel)).unwrap()
    }

    /// Calls the tool with `args`.
    pub fn call(&mut self, args: Value) -> Value {
        self.client.call_tool(TOOL, args).unwrap()
    }

    /// Calls the tool and expects success; the text.
    pub fn ok(&mut self, args: Value) -> String {
        let result = self.call(args.clone());
        assert!(!mcp_tests::is_error(&result), "{args} failed: {result}");
        first_text(&result)
    }

    /// Calls the tool and expects an error with `code`; the message.
    pub fn err(&mut self, args: Value, code: &str) -> String {
        let result = self.call(args.clone());
        assert!(mcp_tests::is_error(&result), "{args} should fail with {code}: {result}");
        assert_eq!(mcp_tests::error_code(&result).as_deref(), Some(code), "{args}: {result}");
        first_text(&result)
    }

    /// `view` of `rel`.
    pub fn view(&mut self, rel: &str) -> String {
        let path = self.path(rel);
        self.ok(json!({"command": "view", "path": path}))
    }
}

/// Spawns the server with `--root root` and `extra`, initialised.
pub fn spawn_on(root: &Path, extra: &[&str]) -> StdioClient {
    let mut args = vec!["--root", root.to_str().unwrap()];
    args.extend_from_slice(extra);
    let mut client = StdioClient::builder(BIN).args(&args).env("XDG_STATE_HOME", state_home(root)).spawn().unwrap();
    client.initialize().unwrap();
    client
}

/// The state directory the servers of these tests on `root` keep their change journal in: one
/// per root (the journal is one for every workspace of a user, and the tests run side by side),
/// outside every root, apart from the user's own.
pub fn state_home(root: &Path) -> PathBuf {
    let key = root
        .display()
        .to_string()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    std::env::temp_dir().join("mcp-suite-tests-state").join(format!("{key:016x}"))
}

/// The first text block of a result (the reference's text; a note may follow).
pub fn first_text(result: &Value) -> String {
    result["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

/// The reference's numbered lines, from `init`.
pub fn numbered(lines: &[&str], init: usize) -> String {
    lines.iter().enumerate().map(|(i, l)| format!("{:6}\t{l}", i + init)).collect::<Vec<_>>().join("\n")
}
