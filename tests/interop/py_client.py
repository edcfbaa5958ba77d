"""The Python SDK client (`mcp`, pinned in requirements.txt) over the interop plan.

Usage: python py_client.py [--revision 2026-07-28] plan.json. Prints one line per check on stdout
and exits 1 if any failed. Nothing of ours goes to stderr: whatever the SDK logs there fails the
run (run.mjs). The checks mirror expect.mjs.

By default the session revisions: `ClientSession.initialize()` over stdio. With `--revision
2026-07-28`, the SDK's `Client` in its default mode, which probes `server/discover` and speaks
the stateless revision when the server offers it (the check fails if it fell back to
`initialize`), over stdio and over Streamable HTTP (each server started with `--http`).
"""

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import warnings

from mcp import ClientSession, StdioServerParameters
from mcp.client.client import Client
from mcp.client.stdio import stdio_client

failures = 0
label = "python"
MODERN = "2026-07-28"


def report(ok: bool, what: str, detail: str) -> None:
    global failures
    if not ok:
        failures += 1
    print(f"{'ok  ' if ok else 'FAIL'} [{label}] {what}{'' if ok else ': ' + detail}", flush=True)


def expectations(call: dict, is_error: bool, text: str, structured) -> list[str]:
    problems = []
    for word in call.get("says", []):
        if word not in text:
            problems.append(f"the text does not mention {json.dumps(word)}: {json.dumps(text)}")
    if call.get("code"):
        if not is_error:
            problems.append(f"expected isError, got a success: {json.dumps(text)}")
        error = (structured or {}).get("error") or {}
        if error.get("code") != call["code"]:
            problems.append(f"expected structuredContent.error.code {call['code']}, got {json.dumps(structured)}")
        if error.get("message") != text:
            problems.append(f"structuredContent.error.message is not the text: {json.dumps(error.get('message'))}")
    else:
        if is_error:
            problems.append(f"expected a success, got an error: {json.dumps(text)}")
        for key, value in call.get("structured", {}).items():
            got = (structured or {}).get(key)
            if got != value:
                problems.append(f"structuredContent.{key}: expected {json.dumps(value)}, got {json.dumps(got)}")
    return problems


async def run_plan(server: dict, session, where: str) -> None:
    """tools/list and every call of the plan through `session` (a ClientSession or a Client)."""
    listed = await session.list_tools()
    names = sorted(t.name for t in listed.tools)
    report(names == sorted(server["tools"]), f"{server['name']}{where}: tools/list", f"got {names}")
    for call in server["calls"]:
        what = f"{server['name']}{where}: {call['tool']} {json.dumps(call['args'])}"
        try:
            result = await session.call_tool(call["tool"], call["args"])
        except Exception as error:  # noqa: BLE001 - any exception is the failure we look for
            report(False, what, f"the client raised instead of returning the result: {error!r}")
            continue
        text = "\n".join(b.text for b in result.content if getattr(b, "type", None) == "text")
        problems = expectations(call, bool(result.is_error), text, result.structured_content)
        report(not problems, what, "; ".join(problems))


def environment(server: dict) -> dict:
    env = dict(os.environ)
    env.update(server.get("env") or {})
    return env


async def drive(server: dict, log) -> None:
    params = StdioServerParameters(
        command=server["command"], args=server["args"], env=environment(server), cwd=server.get("cwd")
    )
    try:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await run_plan(server, session, "")
    except Exception as error:  # noqa: BLE001
        log.seek(0)
        report(False, f"{server['name']}: session", f"{error!r}\nserver stderr:\n{log.read()}")


async def drive_modern(server: dict, log) -> None:
    """The plan at 2026-07-28: over stdio, then over Streamable HTTP."""
    params = StdioServerParameters(
        command=server["command"], args=server["args"], env=environment(server), cwd=server.get("cwd")
    )
    try:
        async with Client(stdio_client(params, errlog=log)) as client:
            version = client.session.protocol_version
            report(version == MODERN, f"{server['name']} (stdio): server/discover", f"negotiated {version}")
            await run_plan(server, client, " (stdio)")
    except Exception as error:  # noqa: BLE001
        log.seek(0)
        report(False, f"{server['name']} (stdio): session", f"{error!r}\nserver stderr:\n{log.read()}")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [server["command"], *server["args"], "--http", f"127.0.0.1:{port}"],
        env=environment(server),
        cwd=server.get("cwd"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("the server did not listen") from None
                await asyncio.sleep(0.05)
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            version = client.session.protocol_version
            report(version == MODERN, f"{server['name']} (HTTP): server/discover", f"negotiated {version}")
            await run_plan(server, client, " (HTTP)")
    except Exception as error:  # noqa: BLE001
        log.seek(0)
        report(False, f"{server['name']} (HTTP): session", f"{error!r}\nserver stderr:\n{log.read()}")
    finally:
        process.terminate()
        process.wait(timeout=20)


async def main() -> None:
    global label
    args = sys.argv[1:]
    modern = args[:2] == ["--revision", MODERN]
    if modern:
        args = args[2:]
        label = f"python {MODERN}"
        # Roots, sampling and logging are deprecated at 2026-07-28; the SDK says so on stderr.
        warnings.simplefilter("ignore")
    with open(args[0], encoding="utf-8") as f:
        plan = json.load(f)
    for server in plan:
        # The server's own log goes to a file, not to our stderr (which must stay empty).
        with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
            await (drive_modern(server, log) if modern else drive(server, log))
    print(f"[{label}] {'all checks passed' if failures == 0 else f'{failures} check(s) failed'}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0 if failures == 0 else 1)
