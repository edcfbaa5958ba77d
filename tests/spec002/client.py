"""Seed 002's MCP client as the spec writes it: `mcp_config.yaml` with `mcp.server_url`
("http://localhost:PORT", no /mcp) and the token in the environment variable `mcp.api_key_env`,
sent as a static `Authorization: Bearer`, through mcp-use. Lists the tools and calls `hoge`;
then checks that a wrong token is refused. Exit 0 when every step worked.

    python client.py mcp_config.yaml
"""

import asyncio
import os
import sys

import yaml

os.environ.setdefault("MCP_USE_ANONYMIZED_TELEMETRY", "false")
from mcp_use import MCPClient  # noqa: E402


def client_for(config_path, token):
    with open(config_path, encoding="utf-8") as f:
        mcp = yaml.safe_load(f)["mcp"]
    server = {"url": mcp["server_url"], "headers": {"Authorization": f"Bearer {token}"}}
    return MCPClient(config={"mcpServers": {"mcp": server}})


async def main():
    config_path = sys.argv[1]
    with open(config_path, encoding="utf-8") as f:
        env = yaml.safe_load(f)["mcp"]["api_key_env"]
    client = client_for(config_path, os.environ[env])
    session = await client.create_session("mcp")
    tools = await session.list_tools()
    names = sorted(t.name for t in tools)
    assert "hoge" in names, names
    result = await session.call_tool("hoge", {"action": "calc", "args": {"x": 40, "y": 2}})
    assert not result.isError and (result.structuredContent or {}).get("value") == 42, result
    await client.close_all_sessions()
    print(f"spec 002 config: {len(names)} tools at {yaml.safe_load(open(config_path))['mcp']['server_url']}, hoge -> 42")

    wrong = client_for(config_path, "not-the-token")
    try:
        session = await wrong.create_session("mcp")
        await session.list_tools()
        accepted = True
    except Exception:  # mcp-use raises on the 401
        accepted = False
    assert not accepted, "a wrong token was accepted"
    print("spec 002 config: a wrong token is refused")


asyncio.run(main())
