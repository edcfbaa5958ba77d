//! What the IDE adapters (the Claude Code IDE protocol's, `claude_code/`, and the Gemini CLI
//! companion's, `gemini/`) share: their params read and results written, the bridge's file
//! methods on disk through the sandbox, and the write of a diff the user accepted, which is made
//! only on the text the diff was made from and never over unsaved edits.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use mcp_shared::ErrorCode;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{
    bridge::RequestError,
    host::fs::{WorkspaceFolder, WorkspaceSettings},
    protocol::{
        self, DEFAULT_MAX_LIST_ENTRIES, ListParams, METHOD_LIST, METHOD_READ, METHOD_WRITE, ReadParams, WireError,
        WriteParams, WriteResult, is_workspace_path,
    },
};

/// The largest file read or written on the IDE's behalf, in bytes.
pub const MAX_FILE_SIZE: u64 = 1024 * 1024;

/// The most of an accepted text an answer gives back when it could not be written.
const MAX_TEXT_GIVEN_BACK: usize = 64 * 1024;

fn bad_params(method: &str, error: impl std::fmt::Display) -> RequestError {
    RequestError::Host(WireError::rpc(protocol::INVALID_PARAMS, format!("{method}: {error}")))
}

pub(crate) fn parse<P: DeserializeOwned>(method: &str, params: Value) -> Result<P, RequestError> {
    serde_json::from_value(params).map_err(|e| bad_params(method, e))
}

pub(crate) fn to_value<T: serde::Serialize>(value: &T) -> Result<Value, RequestError> {
    serde_json::to_value(value).map_err(|e| RequestError::Host(WireError::rpc(protocol::INTERNAL_ERROR, e.to_string())))
}

/// Runs `op` on the workspace folder on a blocking thread (the sandbox is synchronous).
pub(crate) async fn on_disk<T: Send + 'static>(
    folder: &WorkspaceFolder,
    op: impl FnOnce(&WorkspaceFolder) -> Result<T, WireError> + Send + 'static,
) -> Result<T, RequestError> {
    let folder = folder.clone();
    tokio::task::spawn_blocking(move || op(&folder))
        .await
        .map_err(|e| RequestError::Host(WireError::rpc(protocol::INTERNAL_ERROR, e.to_string())))?
        .map_err(RequestError::Host)
}

/// The bridge's file methods (`fs/list`, `fs/read`, `fs/write`) on disk, through the sandbox;
/// `None` for any other method.
pub(crate) async fn files(
    folder: &WorkspaceFolder,
    method: &str,
    params: Value,
) -> Option<Result<Value, RequestError>> {
    Some(match method {
        METHOD_LIST => match parse::<ListParams>(method, params) {
            Ok(params) => on_disk(folder, move |f| f.list(&params)).await.and_then(|r| to_value(&r)),
            Err(e) => Err(e),
        },
        METHOD_READ => match parse::<ReadParams>(method, params) {
            Ok(params) => on_disk(folder, move |f| f.read(&params)).await.and_then(|r| to_value(&r)),
            Err(e) => Err(e),
        },
        METHOD_WRITE => match parse::<WriteParams>(method, params) {
            Ok(params) => on_disk(folder, move |f| f.write(&params)).await.and_then(|r| to_value(&r)),
            Err(e) => Err(e),
        },
        _ => return None,
    })
}

/// The workspace folder an adapter serves: `dir` (the bridge's `--workspace`, inside one of the
/// IDE's folders), with the adapters' limits.
pub(crate) fn workspace(dir: &Path) -> Result<WorkspaceFolder, crate::host::fs::OpenError> {
    let settings = WorkspaceSettings {
        read_only: false,
        max_file_size: MAX_FILE_SIZE,
        max_list_entries: DEFAULT_MAX_LIST_ENTRIES,
        fsync: true,
    };
    WorkspaceFolder::open(dir, settings)
}

/// Writes the text the user accepted in a diff of `path` (`ide` names the IDE), only if the
/// file still holds `base`, the text the diff was made from (`None`: it did not exist), and
/// `dirty` (the editor holds unsaved edits of it) is false. Otherwise nothing is written, the
/// newer file stays as it is, and the error (`CONFLICT`) gives back the text the user accepted.
pub(crate) async fn write_accepted(
    folder: &WorkspaceFolder,
    ide: &str,
    path: &str,
    base: Option<String>,
    dirty: Result<bool, RequestError>,
    final_text: &str,
) -> Result<WriteResult, WireError> {
    let given_back = || {
        let mut cut = final_text.len().min(MAX_TEXT_GIVEN_BACK);
        while !final_text.is_char_boundary(cut) {
            cut -= 1;
        }
        let more = if cut < final_text.len() {
            format!("\n[… {} more bytes]", final_text.len() - cut)
        } else {
            String::new()
        };
        format!("The text the user accepted:\n{}{more}", &final_text[..cut])
    };
    match dirty {
        Ok(false) => {}
        Ok(true) => {
            return Err(WireError::new(
                ErrorCode::Conflict,
                format!(
                    "the user accepted the change to `{path}` in {ide}, but its buffer there has unsaved edits: nothing was written, so that neither overwrites the other. Ask the user to save or discard those edits, then propose the change again. {}",
                    given_back()
                ),
            ));
        }
        Err(error) => {
            return Err(WireError::new(
                ErrorCode::Conflict,
                format!(
                    "the user accepted the change to `{path}` in {ide}, but {ide} could not say whether its buffer has unsaved edits ({error:?}): nothing was written. {}",
                    given_back()
                ),
            ));
        }
    }
    let write = WriteParams { path: path.to_owned(), content: final_text.to_owned() };
    let written = on_disk(folder, move |f| f.write_expecting(&write, base.as_deref())).await;
    match written {
        Ok(result) => Ok(result),
        Err(RequestError::Host(error)) if error.code == i64::from(ErrorCode::Conflict.bridge_wire_code()) => {
            Err(WireError::new(
                ErrorCode::Conflict,
                format!(
                    "the user accepted the change to `{path}` in {ide}, but `{path}` changed after the diff was made from it (an edit in the editor, a formatter, another write): nothing was written, and the newer file is left as it is. Read it again and propose the change anew. {}",
                    given_back()
                ),
            ))
        }
        Err(RequestError::Host(error)) => Err(WireError::new(
            ErrorCode::from_bridge_wire_code(error.code),
            format!(
                "the user accepted the change to `{path}` in {ide}, but the bridge could not write it ({}): the file is unchanged",
                error.message
            ),
        )),
        Err(error) => Err(WireError::new(
            ErrorCode::InternalError,
            format!("writing the accepted change to `{path}` failed ({error:?}): the file is unchanged"),
        )),
    }
}

/// How long the check of a buffer's unsaved edits may take.
pub(crate) const DIRTY_CHECK_TIMEOUT: Duration = Duration::from_secs(5);

/// How the IDE's paths are read back into workspace paths.
#[derive(Debug, Clone)]
pub struct Paths {
    /// The workspace root, as given and as resolved (an IDE may report either).
    roots: Vec<PathBuf>,
}

impl Paths {
    /// Paths under `root` (canonical), also matched as `given`.
    pub fn new(root: &Path, given: &Path) -> Paths {
        let mut roots = vec![root.to_path_buf()];
        if given != root {
            roots.push(given.to_path_buf());
        }
        Paths { roots }
    }

    /// The workspace path of an IDE path (absolute, or a `file://` URI), if it is inside.
    pub fn workspace(&self, ide_path: &str) -> Option<String> {
        let decoded;
        let path = match ide_path.strip_prefix("file://") {
            Some(rest) => {
                decoded = percent_encoding::percent_decode_str(rest).decode_utf8().ok()?.into_owned();
                mcp_shared::platform::path_of_file_uri(&decoded)?
            }
            None => PathBuf::from(ide_path),
        };
        let (root, rel) = self.roots.iter().find_map(|root| path.strip_prefix(root).ok().map(|rel| (root, rel)))?;
        let parts: Vec<&str> = rel.components().map(|c| c.as_os_str().to_str()).collect::<Option<_>>()?;
        let text = parts.join("/");
        // A diff's buffer is named after the file it shows ("a.rs (proposed)"): not a file of
        // the workspace, unless one of that name is on disk.
        if is_diff_buffer(&text) && !root.join(rel).is_file() {
            return None;
        }
        is_workspace_path(&text).then_some(text)
    }
}

/// Whether `name` is what an IDE names a diff's buffer or tab: claudecode.nvim's
/// `<file> (proposed)`, `<file> (NEW FILE - proposed)`, `<file> (NEW FILE)` and `<file> (New)`,
/// the CLI's `✻ [Claude Code] <file> ⧉` tabs.
pub fn is_diff_buffer(name: &str) -> bool {
    const SUFFIXES: [&str; 4] = [" (proposed)", " (NEW FILE - proposed)", " (NEW FILE)", " (New)"];
    SUFFIXES.iter().any(|s| name.ends_with(s)) || name.contains('\u{273b}') || name.contains('\u{29c9}')
}

/// The `file://` URI of an absolute path, as the IDEs take it.
pub fn file_uri(path: &Path) -> String {
    const SET: &percent_encoding::AsciiSet =
        &percent_encoding::NON_ALPHANUMERIC.remove(b'/').remove(b'-').remove(b'_').remove(b'.').remove(b'~');
    let text = path.to_string_lossy().replace('\\', "/");
    let encoded = percent_encoding::utf8_percent_encode(&text, SET).to_string();
    if encoded.starts_with('/') { format!("file://{encoded}") } else { format!("file:///{encoded}") }
}
