"""The Python SDK client (`mcp`, pinned in requirements.txt) over the interop plan.

Usage: python py_client.py plan.json. Prints one line per check on stdout and exits 1 if any
failed. Nothing of ours goes to stderr: whatever the SDK logs there fails the run (run.mjs). The
checks mirror expect.mjs.
"""

import asyncio
import json
import os
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

failures = 0


def report(ok: bool, what: str, detail: str) -> None:
    global failures
    if not ok:
        failures += 1
    print(f"{'ok  ' if ok else 'FAIL'} [python] {what}{'' if ok else ': ' + detail}", flush=True)


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


async def drive(server: dict, log) -> None:
    env = dict(os.environ)
    env.update(server.get("env") or {})
    params = StdioServerParameters(command=server["command"], args=server["args"], env=env, cwd=server.get("cwd"))
    try:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                names = sorted(t.name for t in listed.tools)
                report(names == sorted(server["tools"]), f"{server['name']}: tools/list", f"got {names}")
                for call in server["calls"]:
                    what = f"{server['name']}: {call['tool']} {json.dumps(call['args'])}"
                    try:
                        result = await session.call_tool(call["tool"], call["args"])
                    except Exception as error:  # noqa: BLE001 - any exception is the failure we look for
                        report(False, what, f"the client raised instead of returning the result: {error!r}")
                        continue
                    text = "\n".join(b.text for b in result.content if getattr(b, "type", None) == "text")
                    problems = expectations(call, bool(result.is_error), text, result.structured_content)
                    report(not problems, what, "; ".join(problems))
    except Exception as error:  # noqa: BLE001
        log.seek(0)
        report(False, f"{server['name']}: session", f"{error!r}\nserver stderr:\n{log.read()}")


async def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        plan = json.load(f)
    for server in plan:
        # The server's own log goes to a file, not to our stderr (which must stay empty).
        with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
            await drive(server, log)
    print(f"[python] {'all checks passed' if failures == 0 else f'{failures} check(s) failed'}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0 if failures == 0 else 1)
