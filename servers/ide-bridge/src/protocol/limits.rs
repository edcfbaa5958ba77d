//! The defaults and limits both sides of the bridge agree on.

/// The default port (the extension's `antigravity.mcp.port`).
pub const DEFAULT_PORT: u16 = 8888;

/// The default largest file a host reads or writes, in bytes (the extension's `antigravity.mcp.maxFileSize`).
pub const DEFAULT_MAX_FILE_SIZE: u64 = 102_400;

/// The default largest WebSocket message a host accepts, in bytes.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 16 * 1024 * 1024;

/// The largest message the bridge accepts from a host, in bytes.
pub const BRIDGE_MAX_MESSAGE_SIZE: usize = 64 * 1024 * 1024;

/// Requests one connection may have in flight at a host; more are refused with
/// [`ErrorCode::Unavailable`]'s wire code.
pub const MAX_IN_FLIGHT: usize = 256;

/// The default cap on the entries one `fs/list` examines.
pub const DEFAULT_MAX_LIST_ENTRIES: usize = 20_000;
