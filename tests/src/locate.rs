//! Finding the workspace's server binaries, for the tour and the benchmark.
//!
//! A binary is looked for next to the running executable (`target/<profile>/`, or its parent
//! when the executable is a test in `target/<profile>/deps/`). When the program was started by
//! cargo (`CARGO` is set, as `cargo run` does), the workspace's binaries are first built once in
//! the same profile, so that a binary is never older than its source.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use anyhow::{Context, Result, bail};

/// The workspace root (the parent of this crate's directory, as it was when compiled).
pub fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// The directory the running executable's sibling binaries are in: the executable's own
/// directory, or its parent for `deps/` and `examples/` (tests and examples).
pub fn binary_dir() -> Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot find the running executable")?;
    let dir = exe.parent().context("the running executable has no directory")?;
    let name = dir.file_name().and_then(|n| n.to_str());
    if matches!(name, Some("deps" | "examples")) {
        Ok(dir.parent().unwrap_or(dir).to_path_buf())
    } else {
        Ok(dir.to_path_buf())
    }
}

/// Whether the running executable is a test or an example (in `deps/` or `examples/`).
fn running_from_deps() -> bool {
    std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
        .is_some_and(|d| matches!(d.file_name().and_then(|n| n.to_str()), Some("deps" | "examples")))
}

/// The path of binary `name` in `dir`, if it is there.
fn existing(dir: &Path, name: &str) -> Option<PathBuf> {
    let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    path.is_file().then_some(path)
}

/// Which builds were tried already (by `--bin` name; `""` for the whole workspace).
static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Finds the server binary `name` (e.g. `mcp-server-sample-tool`) next to the running executable.
/// When `CARGO` is set (`cargo run`), first builds the workspace's binaries once in the profile of
/// the running executable, so none is stale (falling back to building only that binary, should
/// another crate of the workspace not compile).
///
/// Test executables never build (cargo holds the build directory's lock while tests run): they
/// get an error when the binary is missing.
pub fn find_server_binary(name: &str) -> Result<PathBuf> {
    let dir = binary_dir()?;
    let cargo = std::env::var_os("CARGO").filter(|_| !running_from_deps());
    let Some(cargo) = cargo else {
        return existing(&dir, name)
            .with_context(|| format!("no binary `{name}` in {} (build it with `cargo build --bins`)", dir.display()));
    };
    // Started by `cargo run`: build the workspace's binaries once even when they exist, so that
    // the tour and the benchmark never run a binary older than the source (a no-op when fresh).
    for target in ["", name] {
        let first_time = match BUILT.lock() {
            Ok(mut built) if !built.iter().any(|b| b == target) => {
                built.push(target.to_owned());
                true
            }
            _ => false,
        };
        if first_time {
            let _ = build(&cargo, &dir, target);
            if let Some(p) = existing(&dir, name) {
                return Ok(p);
            }
        }
    }
    existing(&dir, name).with_context(|| {
        format!("no binary `{name}` in {}, even after `cargo build` (is its crate in the workspace?)", dir.display())
    })
}

/// Runs `cargo build` in the profile of `dir` for the whole workspace (`bin == ""`) or one
/// binary. Cargo's progress goes to stderr; its stdout is discarded (stdout may be JSON).
fn build(cargo: &std::ffi::OsStr, dir: &Path, bin: &str) -> Result<()> {
    let root = workspace_root();
    let mut cmd = Command::new(cargo);
    cmd.arg("build").arg("--manifest-path").arg(root.join("Cargo.toml"));
    match dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => {}
        Some("release") => {
            cmd.arg("--release");
        }
        Some(profile) => {
            cmd.args(["--profile", profile]);
        }
    }
    if bin.is_empty() {
        cmd.args(["--workspace", "--bins"]);
    } else {
        cmd.args(["--bin", bin]);
    }
    let status =
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::inherit()).status().context("cannot run cargo")?;
    if !status.success() {
        bail!("cargo build failed ({status})");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_root_has_the_workspace_manifest() {
        assert!(workspace_root().join("Cargo.toml").is_file());
        assert!(workspace_root().join("tests").join("Cargo.toml").is_file());
    }

    #[test]
    fn a_test_never_builds() {
        // Unit tests run from target/<profile>/deps: a missing binary is an error, not a build.
        let err = find_server_binary("mcp-no-such-binary-for-sure").unwrap_err();
        assert!(err.to_string().contains("mcp-no-such-binary-for-sure"), "{err}");
    }
}
