//! Where the next connection attempt goes: the `--url` given (a host of our protocol, or an IDE
//! of the Claude Code IDE protocol), or what discovery finds for the workspace folder (our
//! hosts, then Claude Code IDE lock files, then Gemini companions); and, when nothing serves
//! it, a refusal that names the folder, what was found and where it looked.

use std::path::PathBuf;

use tokio_tungstenite::tungstenite::http::Uri;

use super::{BridgeConfig, ConnectError, IdeChoice, Target, claude_code, claude_code::IdeLock};
use crate::discovery;

/// What the next attempt connects to.
pub(super) enum Endpoint {
    /// A host of the bridge's own protocol: its URL, token and discovered folders.
    Host(String, Option<String>, Vec<String>),
    /// An IDE of the Claude Code IDE protocol, for the workspace folder.
    Claude(IdeLock, PathBuf),
    /// A Gemini CLI companion, for the workspace folder.
    Gemini(crate::bridge::gemini::CompanionFile, PathBuf),
}

/// An IDE of the Claude Code IDE protocol at a fixed `--url`: its lock file when there is one.
fn claude_at(config: &BridgeConfig, url: &str) -> Result<IdeLock, ConnectError> {
    let port =
        url.parse::<Uri>().ok().and_then(|u| u.port_u16()).ok_or(ConnectError::BadUrl { url: url.to_owned() })?;
    let locks = claude_code::lock::live_locks(&config.lock_dirs);
    Ok(claude_code::lock::by_port(&locks, port).cloned().unwrap_or_else(|| IdeLock {
        port,
        pid: 0,
        workspace_folders: Vec::new(),
        ide_name: "the IDE".to_owned(),
        auth_token: String::new(),
        path: PathBuf::new(),
        modified: std::time::SystemTime::UNIX_EPOCH,
    }))
}

pub(super) fn endpoint(config: &BridgeConfig) -> Result<Endpoint, ConnectError> {
    match &config.target {
        Target::Url { url, dir, given } if config.ide == IdeChoice::ClaudeCode => {
            let lock = claude_at(config, url)?;
            // The files are confined to the folder, which must lie in one of the IDE's.
            let inside = lock.workspace_folders.iter().any(|f| {
                let folder = std::fs::canonicalize(f).unwrap_or_else(|_| PathBuf::from(f));
                dir.starts_with(&folder)
            });
            if !inside && (!lock.workspace_folders.is_empty() || (!*given && dir.parent().is_none())) {
                return Err(ConnectError::Workspace {
                    url: url.clone(),
                    reason: format!(
                        "{} ({}) is not inside a folder the IDE has open ({}); start the bridge with --workspace DIR inside one of them",
                        mcp_shared::escape::one_line(&dir.display().to_string()),
                        if *given { "--workspace" } else { "the working directory" },
                        mcp_shared::escape::one_line(&lock.workspace_folders.join(", "))
                    ),
                });
            }
            Ok(Endpoint::Claude(lock, dir.clone()))
        }
        Target::Url { url, .. } => {
            let port = url.parse::<Uri>().ok().and_then(|u| u.port_u16());
            let discovered = port.and_then(|port| {
                let hosts = discovery::live_hosts_in(&config.discovery_dirs);
                discovery::by_port(&hosts, port).map(|h| h.record.clone())
            });
            let token = config.token.clone().or_else(|| discovered.as_ref().map(|r| r.token.clone()));
            Ok(Endpoint::Host(url.clone(), token, discovered.map(|r| r.workspace_folders).unwrap_or_default()))
        }
        Target::Discover { dir, given } => {
            let mut live = 0;
            let mut found = Vec::new();
            let mut looked = Vec::new();
            let named = |name: &str, folders: &[String]| {
                format!(
                    "{} (folders: {})",
                    mcp_shared::escape::one_line(name),
                    if folders.is_empty() {
                        "none".to_owned()
                    } else {
                        mcp_shared::escape::one_line(&folders.join(", ")).into_owned()
                    }
                )
            };
            if matches!(config.ide, IdeChoice::Auto | IdeChoice::McpSuite) {
                let hosts = discovery::live_hosts_in(&config.discovery_dirs);
                live += hosts.len();
                looked.extend(config.discovery_dirs.iter().cloned());
                if let Some(host) = discovery::choose(&hosts, dir) {
                    let token = config.token.clone().or_else(|| Some(host.record.token.clone()));
                    return Ok(Endpoint::Host(host.record.url(), token, host.record.workspace_folders.clone()));
                }
                found.extend(hosts.iter().map(|h| named("an ide-bridge host", &h.record.workspace_folders)));
            }
            let mut single_client = None;
            if matches!(config.ide, IdeChoice::Auto | IdeChoice::ClaudeCode) {
                let locks = claude_code::lock::live_locks(&config.lock_dirs);
                live += locks.len();
                looked.extend(config.lock_dirs.iter().cloned());
                let asked = config.ide == IdeChoice::ClaudeCode;
                if let Some(lock) = claude_code::lock::choose(&locks, dir, asked) {
                    return Ok(Endpoint::Claude(lock.clone(), dir.clone()));
                }
                single_client = claude_code::lock::choose(&locks, dir, true)
                    .map(|l| mcp_shared::escape::one_line(&l.ide_name).into_owned());
                found.extend(locks.iter().map(|l| named(&l.ide_name, &l.workspace_folders)));
            }
            if matches!(config.ide, IdeChoice::Auto | IdeChoice::Gemini) {
                let files = crate::bridge::gemini::file::live_companions(&config.companion_dirs);
                live += files.len();
                looked.extend(config.companion_dirs.iter().cloned());
                if let Some(found) = crate::bridge::gemini::file::choose(&files, dir) {
                    return Ok(Endpoint::Gemini(found.clone(), dir.clone()));
                }
                found.extend(files.iter().map(|f| named(&f.ide_name, &f.workspace_folders)));
            }
            Err(ConnectError::NoHost {
                live,
                given: *given,
                ide: config.ide,
                single_client,
                folder: dir.clone(),
                found,
                looked,
            })
        }
    }
}
