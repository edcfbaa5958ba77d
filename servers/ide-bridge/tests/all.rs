//! End-to-end tests of the IDE bridge: they spawn the real `ide-bridge-host` and
//! `mcp-server-ide-bridge` binaries (and, where a misbehaving host is needed, a scripted one),
//! each test in its own temp dir with its own `XDG_RUNTIME_DIR`.

mod suite;
