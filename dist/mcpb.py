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
"""

import argparse
import json
import os
import shutil
import sys

REPOSITORY = "https://github.com/mcp-suite/mcp-suite"

# Per server: display name, description, the binary, its args (with user_config substitutions),
# the user_config entries, and the tools it serves (what Claude Desktop shows before install).
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
        "tools": [
            ("text_editor", "View, create and edit text files: view, create, str_replace, insert, undo_edit."),
            ("search_text", "Search the project's files for a regex or literal text (ripgrep's search)."),
            ("find_files", "Find files by glob, most recently modified first."),
            ("move_file", "Move or rename a file (undoable)."),
            ("delete_file", "Delete a file (undoable)."),
            ("edit_file", "Make several edits to one file in one call, all or nothing (one undo step)."),
            ("read_files", "Read several files in one call."),
            ("list_tree", "List a directory tree with file sizes."),
        ],
        "prompts": [],
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
        "tools": [
            ("draft_post", "File a manuscript as projects/<project>/NN-slug/article.md (idempotent)."),
            ("list_posts", "List the posts of a project."),
        ],
    },
    "ide-bridge": {
        "display_name": "IDE bridge (mcp-suite)",
        "description": "list_files, read_file and write_file on the workspace open in your IDE, "
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
        "tools": [
            ("list_files", "List the workspace's files."),
            ("read_file", "Read a workspace file."),
            ("write_file", "Create or replace a workspace file."),
            ("get_diagnostics", "The errors and warnings of the IDE's language servers."),
            ("get_open_editors", "The files open in the IDE, and which are unsaved."),
            ("get_selection", "What the user has selected in the IDE."),
            ("open_file", "Show a file to the user in the IDE."),
            ("save_file", "Save a file's unsaved changes in the IDE."),
            ("find_definition", "Go to a symbol's definition, through the IDE's language server."),
            ("find_references", "Find a symbol's references across the workspace."),
            ("describe_symbol", "A symbol's type and documentation (the IDE's hover)."),
            ("list_symbols", "A file's outline, or the workspace's symbols by name."),
            ("rename_symbol", "Rename a symbol everywhere: previewed, or applied as one edit."),
            ("open_diff", "Propose a change in the IDE's diff view; the user accepts or rejects it."),
            ("close_diffs", "Withdraw the proposed changes the user has not decided on."),
        ],
    },
    "sample-tool": {
        "display_name": "Sample tool (mcp-suite)",
        "description": "The mcp-suite template server: the hoge calculator and a countdown with progress.",
        "summary": "The mcp-suite template server: the hoge calculator and a countdown with progress.",
        "binary": "mcp-server-sample-tool",
        "args": [],
        "user_config": {},
        "tools": [("hoge", "Add two numbers (action calc)."), ("countdown", "Count down N seconds, with progress.")],
    },
}


# Claude Desktop's platform -> (the Rust targets whose binaries serve it, in order of preference;
# the executable suffix).
PLATFORMS = {
    "darwin": (["universal-apple-darwin", "aarch64-apple-darwin"], ""),
    "win32": (["x86_64-pc-windows-gnu"], ".exe"),
    "linux": (["x86_64-unknown-linux-gnu"], ""),
}


def manifest(short, version, platforms=tuple(PLATFORMS)):
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
        "tools": [{"name": n, "description": d} for n, d in s["tools"]],
        "compatibility": {"platforms": list(platforms)},
    }
    if s["user_config"]:
        data["user_config"] = s["user_config"]
    return data


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--bin-root", help="OUT/bin: put the binaries of every platform built there in the bundles")
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
        data = manifest(short, args.version, platforms)
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
