#!/usr/bin/env python3
"""One real MCP session with an installed server: the end-to-end check of every artifact.

    python3 tests/artifacts/mcp_session.py SERVER --work DIR [--host-work DIR] -- COMMAND [ARGS...]

SERVER is text-editor, draft-post, ide-bridge or sample-tool. COMMAND starts the server as the
artifact installs it (a chroot'ed static binary, `npx`, a wheel's script, ...); the server must be
started on the folder DIR as the server sees it (inside a chroot: the path inside the chroot), and
HOST_WORK is the same folder as this script sees it (default: DIR). The session is: `initialize`,
`tools/list` (the server's tools must be there), one `tools/call` that succeeds and changes or
reads what it should, and one that fails with the documented error code, then stdin is closed and
the server must exit. Any deviation exits non-zero with the reason, so a broken artifact (a
missing binary, a wrong entry point, a missing shared library) fails the test.

For ide-bridge, COMMAND is the bridge; `--host-cmd` starts `ide-bridge-host` (on the same
folder, with `--port` and `--token` appended) and the bridge must be given
`--url ws://127.0.0.1:PORT --token TOKEN`: the words `{PORT}` and `{TOKEN}` in COMMAND and in
`--host-cmd` are replaced by a free port and a fresh token.

Only the standard library: it runs on any CI machine with Python 3.8+.
"""

import argparse
import json
import os
import secrets
import select
import shlex
import signal
import socket
import subprocess
import sys
import time

TIMEOUT = 30.0  # seconds for one answer; a healthy server answers in milliseconds
WINDOWS = False  # --windows: the server is a Windows build (under wine): Windows path cases too


class SessionError(Exception):
    """The server did not behave as an MCP server of this suite must."""


class Session:
    """A JSON-RPC over stdio conversation with one server process."""

    def __init__(self, argv, cwd=None, env=None):
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env
            )
        except OSError as error:
            raise SessionError(f"cannot start {argv[0]}: {error}") from error
        self.next_id = 0
        self.buffer = b""
        self.stderr = b""

    def send(self, message):
        data = (json.dumps(message) + "\n").encode()
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise SessionError(f"the server closed its stdin ({error}){self.tail()}") from error

    def request(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        deadline = time.monotonic() + TIMEOUT
        while True:
            response = self.read_message(deadline, method)
            if response.get("id") == self.next_id and ("result" in response or "error" in response):
                return response
            # Notifications (logging, progress) and server requests are not what we wait for.

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def read_message(self, deadline, method):
        out = self.proc.stdout.fileno()
        err = self.proc.stderr.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SessionError(f"no answer to {method} within {TIMEOUT:.0f} s{self.tail()}")
            ready, _, _ = select.select([out, err], [], [], left)
            if err in ready:
                chunk = os.read(err, 65536)
                self.stderr += chunk
            if out in ready:
                chunk = os.read(out, 65536)
                if not chunk:
                    self.proc.wait(timeout=TIMEOUT)
                    raise SessionError(
                        f"the server exited (status {self.proc.returncode}) before answering {method}{self.tail()}"
                    )
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            return json.loads(line)
        except ValueError as error:
            raise SessionError(f"stdout carried a line that is not JSON-RPC: {line[:200]!r}") from error

    def tail(self):
        try:
            while select.select([self.proc.stderr], [], [], 0.05)[0]:
                chunk = os.read(self.proc.stderr.fileno(), 65536)
                if not chunk:
                    break
                self.stderr += chunk
        except (OSError, ValueError):
            pass
        text = self.stderr.decode(errors="replace").strip()
        return f"\n--- server stderr (last lines) ---\n{text[-2000:]}" if text else ""

    def close(self):
        """Closes stdin: a stdio MCP server must then exit by itself, with status 0."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            status = self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired as error:
            self.proc.kill()
            raise SessionError("the server did not exit after stdin was closed") from error
        if status != 0:
            raise SessionError(f"the server exited with status {status} after stdin was closed{self.tail()}")

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def call(session, name, arguments):
    response = session.request("tools/call", {"name": name, "arguments": arguments})
    if "error" in response:
        raise SessionError(f"tools/call {name} got a JSON-RPC error: {response['error']}")
    return response["result"]


def text_of(result):
    return "".join(block.get("text", "") for block in result.get("content", []) if block.get("type") == "text")


def expect_ok(result, what, contains=None):
    if result.get("isError"):
        raise SessionError(f"{what}: expected success, got an error: {text_of(result)[:500]}")
    if contains is not None and contains not in text_of(result):
        raise SessionError(f"{what}: the result does not contain {contains!r}: {text_of(result)[:500]}")


def expect_error(result, what, code):
    got = ((result.get("structuredContent") or {}).get("error") or {}).get("code")
    if not result.get("isError") or got != code:
        raise SessionError(f"{what}: expected isError with code {code}, got code {got!r}: {text_of(result)[:500]}")


# --- per-server scenarios: (server flags, tools that must be listed, the two calls) -------------


def text_editor(session, work, host_work):
    target = f"{work}/hello.txt"
    host_file = os.path.join(host_work, "hello.txt")
    expect_ok(
        call(session, "text_editor", {"command": "create", "path": target, "file_text": "hello from mcp-suite\r\nbye\r\n"}),
        "text_editor create",
    )
    if read_bytes(host_file) != b"hello from mcp-suite\r\nbye\r\n":
        raise SessionError("text_editor create: the file on disk does not hold the text sent")
    expect_ok(
        call(session, "text_editor", {"command": "str_replace", "path": target, "old_str": "bye", "new_str": "ciao"}),
        "text_editor str_replace",
        "has been edited",
    )
    if read_bytes(host_file) != b"hello from mcp-suite\r\nciao\r\n":
        raise SessionError(f"str_replace: the file on disk is {read_bytes(host_file)!r} (CRLF must be kept)")
    expect_ok(call(session, "text_editor", {"command": "undo_edit", "path": target}), "text_editor undo_edit", "undone")
    if read_bytes(host_file) != b"hello from mcp-suite\r\nbye\r\n":
        raise SessionError(f"undo_edit: the file on disk is {read_bytes(host_file)!r}")
    expect_ok(call(session, "text_editor", {"command": "view", "path": target}), "text_editor view", "hello from")
    expect_error(
        call(session, "text_editor", {"command": "view", "path": "/etc/passwd"}), "view outside the root", "OUTSIDE_ROOT"
    )
    expect_error(
        call(session, "text_editor", {"command": "create", "path": f"{work}/../escaped.txt", "file_text": "x"}),
        "create through ..",
        "OUTSIDE_ROOT",
    )
    if os.path.exists(os.path.join(os.path.dirname(host_work.rstrip("/")), "escaped.txt")):
        raise SessionError("create through ..: a file was written outside the root")
    if WINDOWS:
        for path, code in [
            (r"C:\windows\win.ini", "OUTSIDE_ROOT"),
            (work + r"\..\escaped.txt", "OUTSIDE_ROOT"),
            (f"{work}/CON", "INVALID_ARGS"),
            (f"{work}/nul.txt", "INVALID_ARGS"),
            (f"{work}/hello.txt:stream", "INVALID_ARGS"),
            (f"{work}/trailing. ", "INVALID_ARGS"),
        ]:
            expect_error(
                call(session, "text_editor", {"command": "create", "path": path, "file_text": "x"}),
                f"Windows path {path!r}",
                code,
            )
        left = sorted(os.listdir(host_work))
        if left != ["hello.txt"]:
            raise SessionError(f"refused Windows paths changed the folder: it holds {left}")


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def draft_post(session, work, host_work):
    with open(os.path.join(host_work, "manuscript.md"), "w", encoding="utf-8") as f:
        f.write("# Shipping without a toolchain\n\nOne static binary per server.\n")
    result = call(session, "draft_post", {"source": f"{work}/manuscript.md", "project": "release", "slug": "ship"})
    expect_ok(result, "draft_post")
    article = os.path.join(host_work, "projects", "release", "01-ship", "article.md")
    if not os.path.isfile(article):
        raise SessionError(f"draft_post: {article} was not written: {text_of(result)[:300]}")
    # Idempotent: the same manuscript again updates the same article, never a second one.
    again = call(session, "draft_post", {"source": f"{work}/manuscript.md", "project": "release", "slug": "ship"})
    expect_ok(again, "draft_post again")
    posts = sorted(os.listdir(os.path.join(host_work, "projects", "release")))
    if posts != ["01-ship"]:
        raise SessionError(f"draft_post again: the project holds {posts}, not one article: {text_of(again)[:300]}")
    expect_ok(call(session, "list_posts", {"project": "release"}), "list_posts", "ship")
    expect_error(
        call(session, "draft_post", {"source": f"{work}/no-such-manuscript.md", "project": "release"}),
        "draft_post of a missing manuscript",
        "NOT_FOUND",
    )


def ide_bridge(session, work, host_work):
    with open(os.path.join(host_work, "hello.txt"), "w", encoding="utf-8") as f:
        f.write("hello through the bridge\n")
    # The bridge connects to the host in the background and asks the client to retry meanwhile.
    deadline = time.monotonic() + TIMEOUT
    while True:
        result = call(session, "read_file", {"path": "hello.txt"})
        if not (result.get("isError") and "still connecting" in text_of(result)) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    expect_ok(result, "read_file", "hello through the bridge")
    expect_ok(call(session, "list_files", {}), "list_files", "hello.txt")
    expect_error(call(session, "read_file", {"path": "no-such-file.txt"}), "read_file of a missing file", "NOT_FOUND")


def sample_tool(session, work, host_work):
    expect_ok(call(session, "hoge", {"action": "calc", "args": {"x": 1, "y": 2}}), "hoge calc", "3")
    expect_error(call(session, "hoge", {"action": "nope", "args": {"x": 1, "y": 2}}), "hoge nope", "UNKNOWN_ACTION")


DONE = {
    "text-editor": "create, str_replace and undo_edit byte-exact (CRLF), view, escapes refused",
    "draft-post": "draft_post twice (one article), list_posts, a missing manuscript refused",
    "ide-bridge": "read_file and list_files through a host, a missing file refused",
    "sample-tool": "hoge calc, an unknown action refused",
}

# The tools each scenario calls: tools/list must name them before the scenario starts (the
# bundles' manifests are made from tools/list itself, by dist/mcpb.py).
SCENARIOS = {
    "text-editor": (["text_editor"], text_editor),
    "draft-post": (["draft_post", "list_posts"], draft_post),
    "ide-bridge": (["read_file", "list_files"], ide_bridge),
    "sample-tool": (["hoge"], sample_tool),
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, host_proc):
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if host_proc.poll() is not None:
            err = host_proc.stderr.read().decode(errors="replace")
            raise SessionError(f"ide-bridge-host exited with status {host_proc.returncode}:\n{err[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)  # the host is starting; it has no readiness signal on a pipe we hold
    raise SessionError(f"ide-bridge-host did not listen on 127.0.0.1:{port} within {TIMEOUT:.0f} s")


def run(server, argv, work, host_work, host_cmd, manifest=None):
    tools, scenario = SCENARIOS[server]
    host = None
    if server == "ide-bridge":
        if not host_cmd:
            raise SessionError("ide-bridge needs --host-cmd (the ide-bridge-host command line)")
        port, token = str(free_port()), secrets.token_hex(16)
        fill = lambda words: [w.replace("{PORT}", port).replace("{TOKEN}", token) for w in words]
        argv = fill(argv)
        host_argv = fill(shlex.split(host_cmd))
        try:
            # Its own process group: a launcher (npx) may not pass SIGTERM on to the host it
            # started, and the whole group must go when the test ends.
            host = subprocess.Popen(
                host_argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as error:
            raise SessionError(f"cannot start {host_argv[0]}: {error}") from error
    session = None
    try:
        if host is not None:
            wait_for_port(int(port), host)
        session = Session(argv)
        init = session.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "mcp-suite-artifact-test", "version": "1"},
            },
        )
        if "result" not in init or "serverInfo" not in init["result"]:
            raise SessionError(f"initialize: unexpected answer {init}")
        session.notify("notifications/initialized")
        listed = session.request("tools/list")
        names = [t.get("name") for t in listed.get("result", {}).get("tools", [])]
        missing = [t for t in tools if t not in names]
        if missing:
            raise SessionError(f"tools/list lacks {missing}: got {names}")
        if manifest is not None:
            with open(manifest) as f:
                bundled = [t["name"] for t in json.load(f).get("tools", [])]
            if bundled != names:
                raise SessionError(f"the bundle's manifest lists the tools {bundled}, its server {names}")
        scenario(session, work, host_work)
        session.close()
        info = init["result"]["serverInfo"]
        return f"{info.get('name')} {info.get('version')}: initialize, tools/list, {DONE[server]}" + (
            ", Windows path cases" if WINDOWS and server == "text-editor" else ""
        )
    finally:
        if session is not None:
            session.kill()
        if host is not None:
            stop_group(host)


def stop_group(proc):
    """SIGTERM to the process group of `proc` (a leader), then SIGKILL to whatever is left."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("server", choices=sorted(SCENARIOS))
    parser.add_argument("--work", required=True, help="the work folder as the server sees it")
    parser.add_argument("--host-work", help="the same folder as this script sees it (default: --work)")
    parser.add_argument("--host-cmd", help="ide-bridge only: the ide-bridge-host command line")
    parser.add_argument("--label", default="", help="what is tested, for the report line")
    parser.add_argument("--windows", action="store_true", help="a Windows build: also Windows path cases")
    parser.add_argument("--manifest", help="a bundle's manifest.json: its tools must be the server's tools/list")
    # Everything after `--` is the server's command line, options included.
    own = sys.argv[1:]
    argv = []
    if "--" in own:
        argv = own[own.index("--") + 1 :]
        own = own[: own.index("--")]
    args = parser.parse_args(own)
    global WINDOWS
    WINDOWS = args.windows
    if not argv:
        parser.error("no server command after --")
    try:
        summary = run(args.server, argv, args.work, args.host_work or args.work, args.host_cmd, args.manifest)
    except SessionError as error:
        print(f"FAIL {args.label or args.server}: {error}", file=sys.stderr)
        return 1
    print(f"ok   {args.label or args.server}: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
