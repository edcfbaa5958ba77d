#!/usr/bin/env python3
"""Writes an MCP Bundle (.mcpb, Claude Desktop's one-click install) manifest per server.

    python3 dist/mcpb.py --version 0.1.0 --out OUT      # OUT/<name>/manifest.json

A bundle is a zip of the manifest and the binaries; one bundle serves macOS and Linux through
per-platform entries: the binaries sit in server/darwin/ (a universal arm64 + x86_64 file, made
with `lipo` on the macOS runner) and server/linux/ (the static x86_64 file), and
`platform_overrides` picks the one of the running platform. Windows is not listed: the servers
do not build there yet (they use Unix-only file APIs).

Here (Linux) only the manifests are made and `mcpb validate`d by dist/test.sh; the release
workflow packs the bundles once the macOS binaries exist (`mcpb pack`). No bundle has been run in
Claude Desktop by this repository's tests.
"""

import argparse
import json
import os
import sys

REPOSITORY = "https://github.com/mcp-suite/mcp-suite"

# Per server: display name, description, the binary, its args (with user_config substitutions),
# the user_config entries, and the tools it serves (what Claude Desktop shows before install).
SERVERS = {
    "text-editor": {
        "display_name": "Text editor (mcp-suite)",
        "description": "Claude's text editor tool (view, create, str_replace, insert, undo_edit), "
        "confined to one project folder; byte-exact, lossless on encodings and line endings.",
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
        "tools": [("text_editor", "View, create and edit text files: view, create, str_replace, insert, undo_edit.")],
        "prompts": [],
    },
    "draft-post": {
        "display_name": "Draft post (mcp-suite)",
        "description": "Files a Markdown manuscript as projects/<project>/NN-slug/article.md in a blog "
        "repository, idempotently; lists the posts of a project.",
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
        "tools": [
            ("draft_post", "File a manuscript as projects/<project>/NN-slug/article.md (idempotent)."),
            ("list_posts", "List the posts of a project."),
        ],
    },
    "ide-bridge": {
        "display_name": "IDE bridge (mcp-suite)",
        "description": "list_files, read_file and write_file on the workspace open in your IDE, "
        "through the ide-bridge extension (or ide-bridge-host) over an authenticated WebSocket.",
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
        "tools": [
            ("list_files", "List the workspace's files."),
            ("read_file", "Read a workspace file."),
            ("write_file", "Create or replace a workspace file."),
        ],
    },
    "sample-tool": {
        "display_name": "Sample tool (mcp-suite)",
        "description": "The mcp-suite template server: the hoge calculator and a countdown with progress.",
        "binary": "mcp-server-sample-tool",
        "args": [],
        "user_config": {},
        "tools": [("hoge", "Add two numbers (action calc)."), ("countdown", "Count down N seconds, with progress.")],
    },
}


def manifest(short, version):
    s = SERVERS[short]
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
            "entry_point": f"server/darwin/{s['binary']}",
            "mcp_config": {
                "command": f"${{__dirname}}/server/darwin/{s['binary']}",
                "args": s["args"],
                "platform_overrides": {
                    "linux": {"command": f"${{__dirname}}/server/linux/{s['binary']}", "args": s["args"]},
                },
            },
        },
        "tools": [{"name": n, "description": d} for n, d in s["tools"]],
        "compatibility": {"platforms": ["darwin", "linux"]},
    }
    if s["user_config"]:
        data["user_config"] = s["user_config"]
    return data


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    present = sorted(d for d in os.listdir(os.path.join(root, "servers")) if os.path.isfile(os.path.join(root, "servers", d, "Cargo.toml")))
    missing = [d for d in present if d not in SERVERS]
    if missing:
        sys.exit(f"mcpb.py: no bundle description for servers {missing}: add them to SERVERS")
    for short in present:
        folder = os.path.join(args.out, f"mcp-suite-{short}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "manifest.json"), "w") as f:
            json.dump(manifest(short, args.version), f, indent=2)
            f.write("\n")
        print(os.path.join(folder, "manifest.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
