"""The mcp-use client of bench/http-replicas/run.sh: one MCP session through the load balancer,
CALLS calls of `hoge`, one at a time; after KILL_AT calls it kills one replica (the pid in
KILL_PID) and keeps going. Every call must succeed and return 3; prints a JSON summary.

    python client.py URL CALLS KILL_AT KILL_PID
"""

import asyncio
import json
import os
import signal
import sys
import time

os.environ.setdefault("MCP_USE_ANONYMIZED_TELEMETRY", "false")
from mcp_use import MCPClient  # noqa: E402


async def main():
    url, calls, kill_at, kill_pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    client = MCPClient(config={"mcpServers": {"lb": {"url": url}}})
    session = await client.create_session("lb")
    ok, failed, latencies, errors = 0, 0, [], []
    for i in range(calls):
        if i == kill_at:
            os.kill(kill_pid, signal.SIGKILL)
        t0 = time.perf_counter()
        try:
            result = await session.call_tool("hoge", {"action": "calc", "args": {"x": 1, "y": 2}})
            value = (result.structuredContent or {}).get("value")
            if result.isError or value != 3:
                failed += 1
                errors.append(str(result)[:200])
            else:
                ok += 1
        except Exception as error:  # a failed call is a figure, not a crash
            failed += 1
            errors.append(repr(error)[:200])
        latencies.append((time.perf_counter() - t0) * 1000)
    await client.close_all_sessions()
    latencies.sort()
    print(json.dumps({
        "calls": calls, "ok": ok, "failed": failed, "killed_after": kill_at,
        "p50_ms": latencies[len(latencies) // 2], "p99_ms": latencies[int(len(latencies) * 0.99) - 1],
        "errors": errors[:5],
    }))
    sys.exit(0 if failed == 0 else 1)


asyncio.run(main())
