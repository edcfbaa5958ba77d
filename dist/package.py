#!/usr/bin/env python3
"""Packages already built server binaries: release archives, Python wheels, npm packages.

    python3 dist/package.py --bin-dir DIR --target TRIPLE --out OUT [--no-launchers]
    python3 dist/package.py --launchers-only --platforms linux-x64,win32-x64 --out OUT

Nothing here compiles: every package wraps the same binaries (built once by dist/build.sh, or by
the release workflow on each hosted runner), so a wheel or an npm package holds byte for byte the
binary that the chroot test ran. The servers, their binaries, version, license and descriptions
come from `cargo metadata`: a new crate under servers/ is packaged without editing this file.

Per server crate (e.g. mcp-server-text-editor, its `mcp-suite-` name text-editor):
  archives/<crate>-<version>-<target>.tar.gz   the crate's binaries at the top (cargo binstall's
                                               layout, see [package.metadata.binstall]); a .zip
                                               for Windows (the binstall override says so)
  wheels/mcp_suite_<name>-<version>-py3-none-<platform>.whl
                                               the binaries as the wheel's scripts, which is what
                                               maturin's `bindings = "bin"` produces; built here
                                               by the wheel spec because maturin cannot take a
                                               prebuilt binary (it always runs cargo itself)
  npm/mcp-suite-<name>-<npm platform>-<version>.tgz   the platform package: the binaries, os/cpu
  npm/mcp-suite-<name>-<version>.tgz           the launcher: a Node shim per binary that runs the
                                               platform package's binary (optionalDependencies,
                                               the esbuild/biome pattern: nothing is downloaded
                                               at install time)

Only the standard library (Python 3.8+), plus `npm pack` for the npm tarballs.
"""

import argparse
import base64
import csv
import hashlib
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Rust target -> (wheel platform tags, npm platform, executable suffix). The static Linux binary
# runs in an empty root (tested), so it needs no libc: it is tagged for glibc and musl systems.
TARGETS = {
    "x86_64-unknown-linux-gnu": (
        "manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64",
        "linux-x64",
        "",
    ),
    "aarch64-unknown-linux-gnu": (
        "manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64",
        "linux-arm64",
        "",
    ),
    "x86_64-pc-windows-gnu": ("win_amd64", "win32-x64", ".exe"),
    "aarch64-apple-darwin": ("macosx_11_0_arm64", "darwin-arm64", ""),
    "x86_64-apple-darwin": ("macosx_10_12_x86_64", "darwin-x64", ""),
}
NPM_PLATFORMS = {npm: (npm.split("-")[0], npm.split("-")[1]) for _, npm, _ in TARGETS.values()}


def archive_suffix(target):
    """What cargo binstall expects for the target: a zip for Windows, a gzipped tar elsewhere."""
    return ".zip" if "windows" in target else ".tar.gz"
PREFIX = "mcp-server-"


def workspace_packages():
    """The workspace's packages, as `cargo metadata` describes them."""
    out = subprocess.run(
        ["cargo", "metadata", "--no-deps", "--format-version", "1", "--offline"],
        cwd=ROOT,
        check=True,
        stdout=subprocess.PIPE,
    ).stdout
    return json.loads(out)["packages"]


def servers():
    """The server crates (servers/*) from cargo metadata: name, version, bins, license, text."""
    found = []
    for package in workspace_packages():
        rel = os.path.relpath(package["manifest_path"], ROOT)
        if not rel.startswith("servers" + os.sep) or not package["name"].startswith(PREFIX):
            continue
        bins = sorted(t["name"] for t in package["targets"] if "bin" in t["kind"])
        # The server's own binary first (npx and uvx run the first one by default).
        bins.sort(key=lambda b: b != package["name"])
        found.append(
            {
                "crate": package["name"],
                "short": package["name"][len(PREFIX) :],
                "version": package["version"],
                "license": package["license"] or "MIT OR Apache-2.0",
                "description": package["description"] or "",
                "bins": bins,
                "readme": os.path.join(os.path.dirname(rel), "README.md"),
            }
        )
    if not found:
        sys.exit("package.py: cargo metadata lists no servers/* crate")
    return sorted(found, key=lambda s: s["crate"])


def dist_name(server):
    """The PyPI and npm name: mcp-suite-<short> (mcp-server-<short> is taken on npm)."""
    return "mcp-suite-" + server["short"]


def repository():
    for package in workspace_packages():
        if package.get("repository"):
            return package["repository"]
    return "https://github.com/mcp-suite/mcp-suite"


def registry_name(server):
    """The server's name in the official MCP Registry: io.github.<owner>/<server>, the owner
    from the repository URL. The npm packages say it as `mcpName`, the wheels' descriptions as a
    `mcp-name:` line (how the registry proves who owns each package)."""
    parts = repository().rstrip("/").split("/")
    if len(parts) < 5 or parts[2] != "github.com":
        sys.exit(f"package.py: the repository {repository()} is not a GitHub URL: no io.github.<owner> namespace")
    return f"io.github.{parts[3]}/{server['short']}"


def long_description(server, install_lines):
    bins = ", ".join(f"`{b}`" for b in server["bins"])
    return (
        f"# {dist_name(server)}\n\n{server['description']}\n\n"
        f"The native, self-contained `{server['crate']}` server of "
        f"[mcp-suite]({repository()}) ({bins}): no Rust, Node or Python needed at run time.\n\n"
        "```sh\n" + "\n".join(install_lines) + "\n```\n\n"
        f"Flags, tools and client configuration: {repository()}/blob/main/{server['readme']}\n\n"
        f"mcp-name: {registry_name(server)}\n"
    )


def binary_path(bin_dir, name, suffix):
    path = os.path.join(bin_dir, name + suffix)
    if not os.path.isfile(path):
        sys.exit(f"package.py: {path} is missing: build the binaries first (dist/build.sh)")
    return path


# --- archives (cargo binstall) ------------------------------------------------------------------


def tar_info(name, size, mode):
    info = tarfile.TarInfo(name)
    info.size = size
    info.mode = mode
    info.mtime = 0  # reproducible archives
    info.uname = info.gname = ""
    return info


def make_archive(server, target, bin_dir, out):
    _, _, suffix = TARGETS[target]
    path = os.path.join(out, "archives", f"{server['crate']}-{server['version']}-{target}{archive_suffix(target)}")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if path.endswith(".zip"):
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for name in server["bins"]:
                info = zipfile.ZipInfo(name + suffix, date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = (stat.S_IFREG | 0o755) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(binary_path(bin_dir, name, suffix), "rb") as f:
                    zf.writestr(info, f.read())
        return path
    with tarfile.open(path, "w:gz") as tar:
        for name in server["bins"]:
            src = binary_path(bin_dir, name, suffix)
            with open(src, "rb") as f:
                tar.addfile(tar_info(name + suffix, os.path.getsize(src), 0o755), f)
    return path


# --- wheels (https://packaging.python.org/en/latest/specifications/binary-distribution-format/) -


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


# The wheel's one Python file: the package's own command (`mcp-suite-<server>`, what `uvx
# mcp-suite-<server>` and the MCP Registry's PyPI entry run), which runs the server's binary, a
# script of the same wheel. Standard library only.
ALIAS_SHIM = '''"""Runs {binary}, the native server this wheel installs as a script."""

import os
import subprocess
import sys
import sysconfig


def main():
    name = "{binary}" + (".exe" if os.name == "nt" else "")
    places = [os.path.dirname(sys.executable), sysconfig.get_path("scripts")]
    user = sysconfig.get_preferred_scheme("user") if hasattr(sysconfig, "get_preferred_scheme") else None
    if user:
        places.append(sysconfig.get_path("scripts", user))
    for place in places:
        path = os.path.join(place, name)
        if os.path.isfile(path):
            if os.name == "nt":
                sys.exit(subprocess.call([path] + sys.argv[1:]))
            os.execv(path, [path] + sys.argv[1:])
    sys.exit(f"{{name}} is not installed beside this package ({{', '.join(places)}})")
'''


def make_wheel(server, target, bin_dir, out):
    tags, _, suffix = TARGETS[target]
    name = dist_name(server)
    norm = name.replace("-", "_")
    version = server["version"]
    data_dir = f"{norm}-{version}.data"
    info_dir = f"{norm}-{version}.dist-info"
    install = [f"uvx --from {name} {server['bins'][0]} --help", f"pip install {name}"]
    metadata = (
        "Metadata-Version: 2.1\n"
        f"Name: {name}\n"
        f"Version: {version}\n"
        f"Summary: {server['description']}\n"
        f"Home-page: {repository()}\n"
        f"License: {server['license']}\n"
        "Classifier: Programming Language :: Rust\n"
        "Classifier: Environment :: Console\n"
        "Classifier: Topic :: Software Development\n"
        "Description-Content-Type: text/markdown\n"
        "\n" + long_description(server, install)
    )
    wheel = "Wheel-Version: 1.0\nGenerator: mcp-suite dist/package.py\nRoot-Is-Purelib: false\n"
    # The compressed tag set expands to one Tag line per platform.
    for platform in tags.split("."):
        wheel += f"Tag: py3-none-{platform}\n"
    files = []
    for b in server["bins"]:
        with open(binary_path(bin_dir, b, suffix), "rb") as f:
            files.append((f"{data_dir}/scripts/{b}{suffix}", f.read(), 0o755))
    # `mcp-suite-<server>`: the package's own name as a command (see ALIAS_SHIM).
    files.append((f"{norm}/__init__.py", ALIAS_SHIM.format(binary=server["bins"][0]).encode(), 0o644))
    files.append((f"{info_dir}/entry_points.txt", f"[console_scripts]\n{name} = {norm}:main\n".encode(), 0o644))
    files.append((f"{info_dir}/METADATA", metadata.encode(), 0o644))
    files.append((f"{info_dir}/WHEEL", wheel.encode(), 0o644))
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for arcname, data, _ in files:
        writer.writerow([arcname, record_hash(data), len(data)])
    writer.writerow([f"{info_dir}/RECORD", "", ""])
    files.append((f"{info_dir}/RECORD", record.getvalue().encode(), 0o644))

    path = os.path.join(out, "wheels", f"{norm}-{version}-py3-none-{tags}.whl")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for arcname, data, mode in files:
            info = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return path


# --- npm ----------------------------------------------------------------------------------------


def npm_pack(folder, out):
    os.makedirs(out, exist_ok=True)
    result = subprocess.run(
        ["npm", "pack", "--json", "--pack-destination", os.path.abspath(out)],
        cwd=folder,
        check=True,
        stdout=subprocess.PIPE,
    )
    return os.path.join(out, json.loads(result.stdout)[0]["filename"])


def common_fields(server, name):
    return {
        "name": name,
        "version": server["version"],
        "license": server["license"],
        "repository": {"type": "git", "url": "git+" + repository() + ".git"},
        "mcpName": registry_name(server),
    }


def make_npm_platform(server, target, bin_dir, out):
    _, npm_platform, suffix = TARGETS[target]
    os_name, cpu = NPM_PLATFORMS[npm_platform]
    name = f"{dist_name(server)}-{npm_platform}"
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "bin"))
        for b in server["bins"]:
            dest = os.path.join(tmp, "bin", b + suffix)
            shutil.copyfile(binary_path(bin_dir, b, suffix), dest)
            os.chmod(dest, 0o755)
        manifest = common_fields(server, name)
        manifest.update(
            {
                "description": f"The {npm_platform} binary of {dist_name(server)} (installed by it; not used directly).",
                "os": [os_name],
                "cpu": [cpu],
                "files": ["bin"],
                "preferUnplugged": True,
            }
        )
        with open(os.path.join(tmp, "package.json"), "w") as f:
            json.dump(manifest, f, indent=2)
        with open(os.path.join(tmp, "README.md"), "w") as f:
            f.write(f"# {name}\n\nThe {npm_platform} binaries of [{dist_name(server)}]"
                    f"(https://www.npmjs.com/package/{dist_name(server)}); install that package instead.\n")
        return npm_pack(tmp, os.path.join(out, "npm"))


def make_npm_launcher(server, platforms, out):
    name = dist_name(server)
    with open(os.path.join(HERE, "npm", "launcher.js")) as f:
        template = f.read()
    packages = {p: f"{name}-{p}" for p in platforms}
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "bin"))
        bins = {}
        for b in server["bins"]:
            script = (
                template.replace("__BINARY__", json.dumps(b))
                .replace("__PACKAGE__", json.dumps(name))
                .replace("__PLATFORMS__", json.dumps(packages, sort_keys=True))
            )
            dest = os.path.join(tmp, "bin", b + ".js")
            with open(dest, "w") as f:
                f.write(script)
            os.chmod(dest, 0o755)
            bins[b] = f"bin/{b}.js"
        # The package's own name as a command too, for the server: what `npx -y <package>` and
        # the MCP Registry's npm entry run (npx takes the command named like the package).
        bins[name] = bins[server["bins"][0]]
        manifest = common_fields(server, name)
        manifest.update(
            {
                "description": server["description"],
                "keywords": ["mcp", "model-context-protocol", "mcp-server"],
                "bin": bins,
                "files": ["bin"],
                "engines": {"node": ">=16"},
                "optionalDependencies": {pkg: server["version"] for pkg in sorted(packages.values())},
            }
        )
        with open(os.path.join(tmp, "package.json"), "w") as f:
            json.dump(manifest, f, indent=2)
        first = server["bins"][0]
        install = [f"npx -y {name} --help"] if len(server["bins"]) == 1 else [f"npx -y -p {name} {first} --help"]
        with open(os.path.join(tmp, "README.md"), "w") as f:
            f.write(long_description(server, install))
        return npm_pack(tmp, os.path.join(out, "npm"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin-dir", help="the folder holding the built binaries")
    parser.add_argument("--target", choices=sorted(TARGETS), help="the Rust target they were built for")
    parser.add_argument("--out", required=True, help="the output folder (archives/, wheels/, npm/ inside)")
    parser.add_argument("--platforms", help="npm platforms the launchers list (default: --target's)")
    parser.add_argument("--launchers-only", action="store_true", help="only the npm launcher packages")
    parser.add_argument("--no-launchers", action="store_true", help="no npm launcher packages (made once, last)")
    args = parser.parse_args()
    made = []
    all_servers = servers()
    if not args.launchers_only:
        if not args.bin_dir or not args.target:
            parser.error("--bin-dir and --target are needed (or --launchers-only)")
        for server in all_servers:
            made.append(make_archive(server, args.target, args.bin_dir, args.out))
            made.append(make_wheel(server, args.target, args.bin_dir, args.out))
            made.append(make_npm_platform(server, args.target, args.bin_dir, args.out))
    if args.no_launchers:
        platforms = []
    elif args.platforms:
        platforms = args.platforms.split(",")
    elif args.target:
        platforms = [TARGETS[args.target][1]]
    else:
        parser.error("--launchers-only needs --platforms")
    unknown = [p for p in platforms if p not in NPM_PLATFORMS]
    if unknown:
        parser.error(f"unknown npm platforms {unknown}; known: {sorted(NPM_PLATFORMS)}")
    for server in all_servers if platforms else []:
        made.append(make_npm_launcher(server, platforms, args.out))
    for path in made:
        print(f"{os.path.getsize(path):>10}  {os.path.relpath(path, args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
