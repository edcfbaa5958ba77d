"""Codex as the host: `codex app-server` (JSON-RPC on stdio, no model needed) with every server
registered in a scratch CODEX_HOME's config.toml the way the README says, over stdio and, for
sample-tool, over `--http` with a bearer token (`bearer_token_env_var`).

Usage: python3 codex.py CODEX BIN_DIR SCRATCH HTTP_URL TOKEN

Starts a thread (`thread/start`), then checks that `mcpServerStatus/list` shows every server
connected under its binary's name, and that `mcpServer/tool/call` returns, for each server, a
good call's result and a refused call as `isError` with the error code in `structuredContent`.
Prints one line per check on stderr; exits 1 if any failed.
"""

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

CODEX, BIN, SCRATCH, HTTP_URL, TOKEN = sys.argv[1:6]
PROJECT = os.path.join(SCRATCH, "project")
failures = 0


def report(ok: bool, what: str, detail: str = "") -> None:
    global failures
    if not ok:
        failures += 1
    print(f"{'ok  ' if ok else 'FAIL'} Codex: {what}{'' if ok else ': ' + detail}", file=sys.stderr, flush=True)


def toml_string(value: str) -> str:
    return json.dumps(value)


def write_config(home: str) -> None:
    servers = {
        "text-editor": ("mcp-server-text-editor", ["--root", PROJECT]),
        "draft-post": ("mcp-server-draft-post", ["--repo", os.path.join(PROJECT, "blog")]),
        "ide-bridge": ("mcp-server-ide-bridge", ["--workspace", os.path.join(PROJECT, "ws")]),
        "sample-tool": ("mcp-server-sample-tool", []),
    }
    lines = []
    for name, (binary, args) in servers.items():
        lines.append(f"[mcp_servers.{name}]")
        lines.append(f"command = {toml_string(os.path.join(BIN, binary))}")
        lines.append(f"args = [{', '.join(toml_string(a) for a in args)}]")
        lines.append("")
    lines.append("[mcp_servers.sample-http]")
    lines.append(f"url = {toml_string(HTTP_URL)}")
    lines.append('bearer_token_env_var = "MCP_SUITE_TEST_TOKEN"')
    with open(os.path.join(home, "config.toml"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def main() -> None:
    home = os.path.join(SCRATCH, "codex-home")
    os.makedirs(home, exist_ok=True)
    write_config(home)
    with open(os.path.join(PROJECT, "hello.txt"), "w", encoding="utf-8") as f:
        f.write("hello from the project\n")
    env = dict(os.environ, CODEX_HOME=home, HOME=home, MCP_SUITE_TEST_TOKEN=TOKEN)
    log = open(os.path.join(SCRATCH, "codex.log"), "w", encoding="utf-8")
    # Its own process group: the npm `codex` is a Node launcher that runs the native app-server
    # as a child, which must end with it (see `stop`).
    process = subprocess.Popen(
        [CODEX, "app-server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=log,
        env=env,
        cwd=PROJECT,
        text=True,
        start_new_session=True,
    )
    lines: "queue.Queue[str]" = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()

    def request(request_id: int, method: str, params: dict) -> dict:
        process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}) + "\n")
        process.stdin.flush()
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                message = json.loads(lines.get(timeout=max(0.1, deadline - time.monotonic())))
            except queue.Empty:
                break
            if message.get("id") == request_id and ("result" in message or "error" in message):
                return message
        raise RuntimeError(f"no answer to {method} within 90 s")

    try:
        answer = request(1, "initialize", {"clientInfo": {"name": "mcp-suite-hosts", "version": "1"}})
        report("result" in answer, "initialize", json.dumps(answer))
        process.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "initialized"}) + "\n")
        process.stdin.flush()
        answer = request(2, "thread/start", {"cwd": PROJECT})
        thread = answer.get("result", {}).get("thread", {}).get("id")
        report(thread is not None, "thread/start", json.dumps(answer)[:500])
        if thread is None:
            return

        calls = [
            ("text-editor", "text_editor", {"command": "view", "path": os.path.join(PROJECT, "hello.txt")}, None, "hello from the project"),
            ("text-editor", "text_editor", {"command": "view", "path": "/etc/passwd"}, "OUTSIDE_ROOT", "outside"),
            ("draft-post", "list_posts", {"project": "2026-01"}, None, ""),
            ("draft-post", "list_posts", {"project": "../up"}, "INVALID_ARGS", "project"),
            ("ide-bridge", "list_files", {}, "UNAVAILABLE", "IDE"),
            ("sample-tool", "hoge", {"action": "calc", "args": {"x": 1, "y": 2}}, None, "3"),
            ("sample-tool", "hoge", {"action": "mul", "args": {"x": 1, "y": 2}}, "UNKNOWN_ACTION", "calc"),
            ("sample-http", "hoge", {"action": "calc", "args": {"x": 2, "y": 2}}, None, "4"),
        ]
        request_id = 10
        for server, tool, arguments, code, says in calls:
            request_id += 1
            what = f"{server}: {tool} {json.dumps(arguments)}"
            answer = request(request_id, "mcpServer/tool/call", {"threadId": thread, "server": server, "tool": tool, "arguments": arguments})
            result = answer.get("result")
            if result is None:
                report(False, what, json.dumps(answer)[:500])
                continue
            text = "\n".join(item.get("text", "") for item in result.get("content", []))
            got = ((result.get("structuredContent") or {}).get("error") or {}).get("code")
            if code is None:
                report(not result.get("isError") and says in text, what, json.dumps(result)[:500])
            else:
                report(bool(result.get("isError")) and got == code and says in text, what, json.dumps(result)[:500])

        answer = request(3, "mcpServerStatus/list", {"threadId": thread})
        listed = {entry["name"]: entry for entry in answer.get("result", {}).get("data", [])}
        names = {
            "text-editor": "mcp-server-text-editor",
            "draft-post": "mcp-server-draft-post",
            "ide-bridge": "mcp-server-ide-bridge",
            "sample-tool": "mcp-server-sample-tool",
            "sample-http": "mcp-server-sample-tool",
        }
        for name, binary in names.items():
            entry = listed.get(name, {})
            ok = entry.get("runtimeStatus") == "connected" and (entry.get("serverInfo") or {}).get("name") == binary
            report(ok, f"{name}: connected as {binary}", json.dumps(entry)[:300])
    finally:
        stop(process)
        log.close()


def stop(process: subprocess.Popen) -> None:
    """Ends Codex and its native child: stdin closed (it exits on end of input), then, once the
    launcher has exited (or after 10 s), the whole process group killed. Killing only the
    launcher left the child running, still writing its lock files into CODEX_HOME while run.sh
    removed it."""
    try:
        process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # noqa: BLE001 - whatever went wrong is the failure
        report(False, "app-server session", repr(error))
    sys.exit(0 if failures == 0 else 1)
