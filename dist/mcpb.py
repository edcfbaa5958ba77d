#!/usr/bin/env python3
"""Writes an MCP Bundle (.mcpb, Claude Desktop's one-click install) per server.

    python3 dist/mcpb.py --version 0.1.0 --out OUT [--bin-root OUT/bin]

Without --bin-root: OUT/<name>/manifest.json only (every platform listed). With it: each bundle
folder also holds the binaries of every platform built under --bin-root (server/win32/ from
x86_64-pc-windows-gnu, server/linux/ from the static x86_64-unknown-linux-gnu build,
server/darwin/ from universal-apple-darwin or aarch64-apple-darwin where those were built), and
the manifest lists exactly those platforms; `platform_overrides` picks the binary of the running
platform. dist/build.sh then packs each folder with the official `mcpb pack`, and dist/test.sh
validates the bundle and starts its Windows binary under wine the way Claude Desktop does (the
manifest's command, ${__dirname} and ${user_config.*} substituted). No bundle has been run in
Claude Desktop itself by this repository's tests.

The manifests' `tools` and `prompts` are read from the servers themselves: each binary built for
this machine (the static x86_64-unknown-linux-gnu build under --bin-root, else --servers DIR,
else target/release or target/debug) is asked for its `tools/list`, `prompts/list` and each
prompt's text over stdio. Nothing here names a tool.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPOSITORY = "https://github.com/mcp-suite/mcp-suite"

# Per server: display name, description, the binary, its args (with user_config substitutions)
# and the user_config entries. The tools and prompts are the binary's own (see `offered`).
SERVERS = {
    "text-editor": {
        "display_name": "Text editor (mcp-suite)",
        "description": "Claude's text editor tool (view, create, str_replace, insert, undo_edit), "
        "confined to one project folder; byte-exact, lossless on encodings and line endings.",
        "summary": "Claude's text editor tool, confined to one project folder: view, create, edit, undo.",
        "binary": "mcp-server-text-editor",
        "args": ["--root", "${user_config.root}"],
        "user_config": {
            "root": {
                "type": "directory",
                "title": "Project folder",
                "description": "The folder the editor may read and write; every path must stay inside it.",
                "required": True,
            }
        },
    },
    "draft-post": {
        "display_name": "Draft post (mcp-suite)",
        "description": "Files a Markdown manuscript as projects/<project>/NN-slug/article.md in a blog "
        "repository, idempotently; lists the posts of a project.",
        "summary": "Files a Markdown manuscript as projects/<project>/NN-slug/article.md, idempotently.",
        "binary": "mcp-server-draft-post",
        "args": ["--repo", "${user_config.repo}"],
        "user_config": {
            "repo": {
                "type": "directory",
                "title": "Blog repository",
                "description": "The repository; articles are written under its projects/ folder.",
                "required": True,
            }
        },
    },
    "ide-bridge": {
        "display_name": "IDE bridge (mcp-suite)",
        "description": "The files, live state and language servers of the workspace open in your IDE, "
        "through the ide-bridge extension (or ide-bridge-host) over an authenticated WebSocket.",
        "summary": "The workspace and live state of your IDE (files, diagnostics, editors) over a WebSocket.",
        "binary": "mcp-server-ide-bridge",
        "args": ["--workspace", "${user_config.workspace}"],
        "user_config": {
            "workspace": {
                "type": "directory",
                "title": "Workspace folder",
                "description": "The folder open in the IDE; the bridge finds the IDE's host serving it.",
                "required": True,
            }
        },
    },
    "sample-tool": {
        "display_name": "Sample tool (mcp-suite)",
        "description": "The mcp-suite template server: a sample calculator and a timer that reports progress.",
        "summary": "The mcp-suite template server: a sample calculator and a timer that reports progress.",
        "binary": "mcp-server-sample-tool",
        "args": [],
        "user_config": {},
    },
}


# Claude Desktop's platform -> (the Rust targets whose binaries serve it, in order of preference;
# the executable suffix).
PLATFORMS = {
    "darwin": (["universal-apple-darwin", "aarch64-apple-darwin"], ""),
    "win32": (["x86_64-pc-windows-gnu"], ".exe"),
    "linux": (["x86_64-unknown-linux-gnu"], ""),
}


def offered(binary):
    """The tools ({name, description}: the first sentence of each) and prompts ({name,
    description, text}) that `binary` lists, asked over stdio in an empty directory."""
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "mcpb.py", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "prompts/list"},
    ]
    answers = _session(binary, lines, 3)
    prompts = answers[3].get("result", {}).get("prompts", []) if "result" in answers[3] else []
    texts = {}
    if prompts:
        gets = [{"jsonrpc": "2.0", "id": 10 + i, "method": "prompts/get", "params": {"name": p["name"]}} for i, p in enumerate(prompts)]
        got = _session(binary, lines[:2] + gets, 10 + len(prompts) - 1)
        for i, p in enumerate(prompts):
            messages = got[10 + i]["result"]["messages"]
            texts[p["name"]] = "\n\n".join(m["content"]["text"] for m in messages)
    first_sentence = lambda text: re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]
    tools = [{"name": t["name"], "description": first_sentence(t.get("description", ""))} for t in answers[2]["result"]["tools"]]
    prompts = [{"name": p["name"], "description": p.get("description", ""), "text": texts[p["name"]]} for p in prompts]
    return tools, prompts


def _session(binary, messages, last_id):
    """The answers, by id, to `messages` sent to `binary` over stdio (stdin closed after the
    answer to `last_id`)."""
    with tempfile.TemporaryDirectory() as empty:
        proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=empty)
        answers = {}
        try:
            for message in messages:
                proc.stdin.write((json.dumps(message) + "\n").encode())
                proc.stdin.flush()
                if "id" not in message:
                    continue
                while message["id"] not in answers:
                    line = proc.stdout.readline()
                    if not line:
                        sys.exit(f"mcpb.py: {binary} ended before answering {message['method']}")
                    answer = json.loads(line)
                    if "id" in answer:
                        answers[answer["id"]] = answer
            return answers
        finally:
            proc.stdin.close()
            proc.wait(timeout=10)


def server_binary(binary, bin_root, servers):
    """The binary of this name that runs here: the static Linux build under --bin-root, else
    --servers, else target/release or target/debug."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    places = [os.path.join(bin_root, "x86_64-unknown-linux-gnu")] if bin_root else []
    places += [servers] if servers else []
    places += [os.path.join(root, "target", "release"), os.path.join(root, "target", "debug")]
    for place in places:
        path = os.path.join(place, binary)
        if os.access(path, os.X_OK):
            return path
    sys.exit(f"mcpb.py: no {binary} that runs here in {places}: build it first (cargo build -p {binary})")


def manifest(short, version, platforms=tuple(PLATFORMS), offers=([], [])):
    s = SERVERS[short]
    command = lambda platform: f"${{__dirname}}/server/{platform}/{s['binary']}{PLATFORMS[platform][1]}"
    first = platforms[0]
    data = {
        "manifest_version": "0.3",
        "name": f"mcp-suite-{short}",
        "display_name": s["display_name"],
        "version": version,
        "description": s["description"],
        "author": {"name": "mcp-suite"},
        "repository": {"type": "git", "url": REPOSITORY},
        "homepage": REPOSITORY,
        "license": "MIT OR Apache-2.0",
        "keywords": ["mcp", "rust"],
        "server": {
            "type": "binary",
            "entry_point": f"server/{first}/{s['binary']}{PLATFORMS[first][1]}",
            "mcp_config": {
                "command": command(first),
                "args": s["args"],
                "platform_overrides": {p: {"command": command(p), "args": s["args"]} for p in platforms[1:]},
            },
        },
        "tools": offers[0],
        "compatibility": {"platforms": list(platforms)},
    }
    if offers[1]:
        data["prompts"] = offers[1]
    if s["user_config"]:
        data["user_config"] = s["user_config"]
    return data


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--bin-root", help="OUT/bin: put the binaries of every platform built there in the bundles")
    parser.add_argument("--servers", help="a directory of server binaries that run here, asked for their tools")
    args = parser.parse_args()
    platforms = list(PLATFORMS)
    if args.bin_root:
        platforms = [p for p, (targets, _) in PLATFORMS.items() if any(os.path.isdir(os.path.join(args.bin_root, t)) for t in targets)]
        if not platforms:
            sys.exit(f"mcpb.py: no binaries of {sorted(PLATFORMS)} under {args.bin_root}")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    present = sorted(d for d in os.listdir(os.path.join(root, "servers")) if os.path.isfile(os.path.join(root, "servers", d, "Cargo.toml")))
    missing = [d for d in present if d not in SERVERS]
    if missing:
        sys.exit(f"mcpb.py: no bundle description for servers {missing}: add them to SERVERS")
    for short in present:
        folder = os.path.join(args.out, f"mcp-suite-{short}")
        os.makedirs(folder, exist_ok=True)
        binary = server_binary(SERVERS[short]["binary"], args.bin_root, args.servers)
        data = manifest(short, args.version, platforms, offered(binary))
        with open(os.path.join(folder, "manifest.json"), "w") as f:
            json.dump(data, f, indent=2)
            f.write("\n")
        if args.bin_root:
            bins = ["mcp-server-ide-bridge", "ide-bridge-host"] if short == "ide-bridge" else [SERVERS[short]["binary"]]
            for platform in platforms:
                targets, ext = PLATFORMS[platform]
                target = next(t for t in targets if os.path.isdir(os.path.join(args.bin_root, t)))
                os.makedirs(os.path.join(folder, "server", platform), exist_ok=True)
                for b in bins:
                    dest = os.path.join(folder, "server", platform, b + ext)
                    shutil.copyfile(os.path.join(args.bin_root, target, b + ext), dest)
                    os.chmod(dest, 0o755)
        print(os.path.join(folder, "manifest.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
