"""draft-post from an agent that does not share the server's disk, as seed 002's coding agent
calls MCP servers over HTTP (mcp-use, the static bearer token of `mcp_config.yaml`), against
`mcp-server-draft-post --http --stateless`: a manuscript filed by content, re-filed with new
content into the same article, a dry run of each, an attachment written, and an attachment path
that leaves the article refused with nothing written. Exit 0 when every step worked.

    python draft_post_remote.py mcp_config.yaml REPO_DIR
"""

import asyncio
import base64
import json
import os
import sys

import yaml

os.environ.setdefault("MCP_USE_ANONYMIZED_TELEMETRY", "false")
from mcp_use import MCPClient  # noqa: E402


def structured(result):
    assert not result.isError, result
    if result.structuredContent is not None:
        return result.structuredContent
    return json.loads(result.content[-1].text)


def files(root):
    out = {}
    for base, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            if not name.startswith("."):
                path = os.path.join(base, name)
                with open(path, "rb") as f:
                    out[os.path.relpath(path, root)] = f.read()
    return out


async def main():
    config_path, repo = sys.argv[1], sys.argv[2]
    with open(config_path, encoding="utf-8") as f:
        mcp = yaml.safe_load(f)["mcp"]
    server = {"url": mcp["server_url"], "headers": {"Authorization": f"Bearer {os.environ[mcp['api_key_env']]}"}}
    client = MCPClient(config={"mcpServers": {"drafts": server}})
    session = await client.create_session("drafts")
    tools = {t.name for t in await session.list_tools()}
    assert "draft_post" in tools, tools

    image = b"\x89PNG\r\n\x1a\nremote figure"
    source = "/workspace/agent/drafts/remote.md"  # the agent's path, in its container
    first = {
        "source": source,
        "project": "2026-11",
        "content": "---\ntitle: From The Agent\n---\nFirst. ![figure](img/fig.png)\n",
        "attachments": [{"path": "img/fig.png", "data": base64.b64encode(image).decode()}],
    }
    before = files(repo)
    dry = structured(await session.call_tool("draft_post", {**first, "dry_run": True}))
    assert dry["dry_run"] is True and dry["action"] == "created", dry
    assert dry["dir"] == "projects/2026-11/01-from-the-agent", dry
    assert files(repo) == before, "a dry run wrote something"

    created = structured(await session.call_tool("draft_post", first))
    assert created["action"] == "created" and "dry_run" not in created, created
    assert created["attachments"] == ["projects/2026-11/01-from-the-agent/img/fig.png"], created
    with open(os.path.join(repo, "projects/2026-11/01-from-the-agent/img/fig.png"), "rb") as f:
        assert f.read() == image

    second = {**first, "content": "---\ntitle: From The Agent\n---\nSecond. ![figure](img/fig.png)\n"}
    dry = structured(await session.call_tool("draft_post", {**second, "dry_run": True}))
    assert dry["action"] == "updated" and dry["dry_run"] is True and "+Second." in dry["diff"], dry
    updated = structured(await session.call_tool("draft_post", second))
    assert updated["action"] == "updated" and updated["dir"] == created["dir"], updated
    assert updated["source_id"] == created["source_id"], updated
    with open(os.path.join(repo, created["article"]), encoding="utf-8") as f:
        assert "Second." in f.read()

    before = files(repo)
    escape = {**second, "attachments": [{"path": "../../escape.png", "data": base64.b64encode(b"x").decode()}]}
    result = await session.call_tool("draft_post", escape)
    assert result.isError, result
    text = result.content[0].text
    assert "attachments[0].path" in text and "nothing was written" in text, text
    assert files(repo) == before, "a refused call wrote something"
    await client.close_all_sessions()
    print("draft-post over --http --stateless through mcp-use: filed by content, re-filed, dry runs, an attachment, an escape refused")


asyncio.run(main())
