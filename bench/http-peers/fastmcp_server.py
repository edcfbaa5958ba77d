"""The Python peer of the HTTP benchmark: the official MCP Python SDK's FastMCP (mcp 1.x, the
FastMCP most deployed servers run) serving Streamable HTTP with the same trivial tool as
mcp-server-sample-tool's `hoge` (calc: x + y).

    python fastmcp_server.py PORT [--stateless]
"""

import sys

from mcp.server.fastmcp import FastMCP

port = int(sys.argv[1])
stateless = "--stateless" in sys.argv[2:]
mcp = FastMCP("fastmcp-peer", host="127.0.0.1", port=port, stateless_http=stateless, log_level="WARNING")


@mcp.tool()
def hoge(action: str, args: dict) -> dict:
    """The sample tool: {"action": "calc", "args": {"x": 1, "y": 2}} -> {"value": 3}."""
    if action != "calc":
        raise ValueError(f"unknown action {action!r}")
    return {"value": args["x"] + args["y"]}


mcp.run(transport="streamable-http")
