#!/usr/bin/env python3
"""dist/registry.py: each server's `server.json` for the official MCP Registry, from the built
artifacts, and the check that they and the artifacts agree.

    python3 dist/registry.py write OUT [--image]   # OUT/registry/<server>/server.json (dist/build.sh;
                                           # --image: list the OCI package though OUT has no image)
    python3 dist/registry.py check OUT     # every server.json against the vendored schema, and
                                           # every ownership marker in the artifacts (dist/test.sh)
    python3 dist/registry.py images        # per server: short name, binary, registry name,
                                           # directory flag (dist/build.sh's per-server images)
    python3 dist/registry.py validate FILE...   # the documents alone against the schema and the
                                           # rules below (the release workflow, before publishing)

OUT is dist/out/mcp-suite-<version>. A server.json names the server in reverse-DNS form
(`io.github.<owner>/<server>`, the owner from the workspace's repository URL) and lists the
packages this build made: npm (`npx`), PyPI (`uvx`), the OCI image and the `.mcpb` bundle with its
`fileSha256` (the bundle as built: the release workflow signs the bundles before it writes these,
since a signature changes the file). Each package says how to run the server: its arguments (the
server's directory flag, a path the user chooses) and environment variables.

`check` validates each document against `dist/registry/server.schema.json`, a byte-exact copy of
the registry's published 2025-12-11 schema (its sha256 is pinned below), and then what the schema
cannot say: the name has one slash, the description at most 100 characters, the version is the
workspace's, each `.mcpb` package's `fileSha256` is the built file's, and every artifact carries the
ownership marker the registry looks for: `mcpName` in each npm package.json, the
`mcp-name: <name>` line in each wheel's description, and the image's
`io.modelcontextprotocol.server.name` label (each server's own image, `mcp-suite-<server>`).
"""

import hashlib
import json
import os
import subprocess
import sys
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mcpb  # noqa: E402  (dist/mcpb.py: each server's title and summary)
import package  # noqa: E402  (dist/package.py: the servers, names and repository)

SCHEMA_PATH = os.path.join(HERE, "registry", "server.schema.json")
SCHEMA_SHA256 = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0"
SCHEMA_ID = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

# What each server needs to run: its directory flag (None: none) and what the flag means.
DIRECTORY = {
    "text-editor": ("--root", "The project folder the editor may read and write (repeatable)."),
    "draft-post": ("--repo", "The blog repository; articles are written under its projects/ folder."),
    "ide-bridge": ("--workspace", "The workspace folder open in the IDE (the bridge finds its host)."),
    "sample-tool": None,
}

# The environment variables every server reads.
ENVIRONMENT = [
    {
        "name": "MCP_HTTP_TOKEN",
        "description": "With --http: the bearer token every HTTP request must carry.",
        "isSecret": True,
        "isRequired": False,
    },
]

# Where the image is published (the release workflow's registry).
IMAGE_REGISTRY = "ghcr.io/mcp-suite"


def registry_name(server):
    return package.registry_name(server)


def image_name(server):
    """The server's own image: the shared image's binaries, its own entry point, labelled with
    its registry name (dist/build.sh)."""
    return f"mcp-suite-{server['short']}"


def arguments(server, container=False):
    directory = DIRECTORY.get(server["short"])
    if not directory:
        return []
    flag, description = directory
    return [
        {
            "type": "named",
            "name": flag,
            "description": description,
            "isRequired": True,
            "format": "filepath",
            # In the image the folder is mounted at /workspace (see runtimeArguments).
            **({"value": "/workspace"} if container else {}),
        }
    ]


def bundle_file(out, server, version):
    return os.path.join(out, "mcpb", f"mcp-suite-{server['short']}-{version}.mcpb")


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def document(server, out, with_image=False):
    version = server["version"]
    name = package.dist_name(server)
    stdio = {"type": "stdio"}
    packages = [
        {
            "registryType": "npm",
            "registryBaseUrl": "https://registry.npmjs.org",
            "identifier": name,
            "version": version,
            "runtimeHint": "npx",
            "transport": stdio,
            "packageArguments": arguments(server),
            "environmentVariables": ENVIRONMENT,
        },
        {
            "registryType": "pypi",
            "registryBaseUrl": "https://pypi.org",
            "identifier": name,
            "version": version,
            "runtimeHint": "uvx",
            "transport": stdio,
            "packageArguments": arguments(server),
            "environmentVariables": ENVIRONMENT,
        },
    ]
    if with_image or os.path.isdir(os.path.join(out, "image")):
        mount = []
        if DIRECTORY.get(server["short"]):
            mount = [
                {"type": "named", "name": "-v", "description": "The folder the server works in, mounted at /workspace.",
                 "isRequired": True, "value": "{folder}:/workspace",
                 "variables": {"folder": {"description": "The folder on this machine.", "format": "filepath", "isRequired": True}}},
            ]
        packages.append(
            {
                "registryType": "oci",
                "identifier": f"{IMAGE_REGISTRY}/{image_name(server)}:{version}",
                "runtimeHint": "docker",
                "transport": stdio,
                "runtimeArguments": mount,
                "packageArguments": arguments(server, container=True),
                "environmentVariables": ENVIRONMENT,
            }
        )
    bundle = bundle_file(out, server, version)
    if os.path.isfile(bundle):
        packages.append(
            {
                "registryType": "mcpb",
                "identifier": f"{package.repository()}/releases/download/v{version}/{os.path.basename(bundle)}",
                "version": version,
                "fileSha256": sha256_of(bundle),
                "transport": stdio,
            }
        )
    return {
        "$schema": SCHEMA_ID,
        "name": registry_name(server),
        "title": mcpb.SERVERS[server["short"]]["display_name"],
        "description": mcpb.SERVERS[server["short"]]["summary"],
        "version": version,
        "websiteUrl": package.repository(),
        "repository": {"url": package.repository(), "source": "github", "subfolder": f"servers/{server['short']}"},
        "packages": packages,
    }


def write(out, with_image=False):
    for server in package.servers():
        folder = os.path.join(out, "registry", server["short"])
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "server.json"), "w") as f:
            json.dump(document(server, out, with_image), f, indent=2)
            f.write("\n")
        print(f"registry.py: {folder}/server.json", file=sys.stderr)


def validator():
    with open(SCHEMA_PATH, "rb") as f:
        raw = f.read()
    if hashlib.sha256(raw).hexdigest() != SCHEMA_SHA256:
        sys.exit(f"registry.py: {SCHEMA_PATH} is not the pinned 2025-12-11 schema (sha256 {SCHEMA_SHA256})")
    try:
        import jsonschema
    except ImportError:
        sys.exit("registry.py: needs the jsonschema package (pip install jsonschema)")
    schema = json.loads(raw)
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)


def check(out):
    problems = []
    validate = validator()
    version = None
    for server in package.servers():
        version = server["version"]
        path = os.path.join(out, "registry", server["short"], "server.json")
        if not os.path.isfile(path):
            problems.append(f"{path}: missing")
            continue
        with open(path) as f:
            doc = json.load(f)
        label = server["short"]
        name = registry_name(server)
        problems += rules(label, doc, validate, name, version)
        for p in doc.get("packages", []):
            if p["registryType"] == "mcpb":
                bundle = bundle_file(out, server, version)
                if not os.path.isfile(bundle):
                    problems.append(f"{label}: the bundle {bundle} is missing")
                elif p.get("fileSha256") != sha256_of(bundle):
                    problems.append(f"{label}: fileSha256 {p.get('fileSha256')} is not {os.path.basename(bundle)}'s")
            if p["registryType"] == "oci":
                problems += check_image(server, name, version, p["identifier"])
        problems += check_npm(out, server, name)
        problems += check_wheels(out, server, name)
    report(problems, f"every server.json valid against the 2025-12-11 schema (sha256 {SCHEMA_SHA256[:12]}...), "
           f"version {version}; markers in every npm package, wheel and image")


def rules(label, doc, validate, name, version):
    """What a document must be: valid against the schema, and what the schema cannot say."""
    problems = []
    for error in sorted(validate.iter_errors(doc), key=str):
        problems.append(f"{label}: schema: {'/'.join(map(str, error.absolute_path)) or '/'}: {error.message}")
    if doc.get("$schema") != SCHEMA_ID:
        problems.append(f"{label}: $schema is {doc.get('$schema')}, not the vendored schema's $id {SCHEMA_ID}")
    if doc.get("name") != name or str(doc.get("name")).count("/") != 1:
        problems.append(f"{label}: name {doc.get('name')}, expected {name} (reverse DNS, one slash)")
    if len(doc.get("description", "")) > 100:
        problems.append(f"{label}: description longer than 100 characters")
    if doc.get("version") != version:
        problems.append(f"{label}: version {doc.get('version')}, the workspace's is {version}")
    kinds = {p["registryType"] for p in doc.get("packages", [])}
    for kind in ("npm", "pypi", "mcpb"):
        if kind not in kinds:
            problems.append(f"{label}: no {kind} package")
    return problems


def validate_files(paths):
    validate = validator()
    servers = {registry_name(s): s for s in package.servers()}
    problems = []
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        server = servers.get(doc.get("name"))
        if server is None:
            problems.append(f"{path}: {doc.get('name')} is none of this workspace's servers")
            continue
        problems += rules(path, doc, validate, doc["name"], server["version"])
    report(problems, f"{len(paths)} server.json valid against the 2025-12-11 schema")


def report(problems, ok):
    if problems:
        print("registry.py: FAILED", file=sys.stderr)
        for p in problems:
            print(f"  - {p}", file=sys.stderr)
        sys.exit(1)
    print(f"registry.py: {ok}", file=sys.stderr)


def check_npm(out, server, name):
    problems = []
    prefix = package.dist_name(server)
    found = 0
    for tgz in sorted(os.listdir(os.path.join(out, "npm"))):
        stem = tgz[: -len(f"-{server['version']}.tgz")]
        if not tgz.endswith(".tgz") or not (stem == prefix or stem.startswith(prefix + "-") and stem[len(prefix) + 1 :] in package.NPM_PLATFORMS):
            continue
        found += 1
        with tarfile.open(os.path.join(out, "npm", tgz)) as t:
            manifest = json.load(t.extractfile("package/package.json"))
        if manifest.get("mcpName") != name:
            problems.append(f"npm {tgz}: mcpName {manifest.get('mcpName')}, expected {name}")
    if not found:
        problems.append(f"npm: no package of {prefix}")
    return problems


def check_wheels(out, server, name):
    problems = []
    norm = package.dist_name(server).replace("-", "_")
    wheels = [w for w in sorted(os.listdir(os.path.join(out, "wheels"))) if w.startswith(f"{norm}-{server['version']}-")]
    if not wheels:
        problems.append(f"pypi: no wheel of {norm}")
    for wheel in wheels:
        with zipfile.ZipFile(os.path.join(out, "wheels", wheel)) as z:
            metadata = z.read(f"{norm}-{server['version']}.dist-info/METADATA").decode()
        if f"mcp-name: {name}" not in metadata.split("\n\n", 1)[-1].splitlines():
            problems.append(f"pypi {wheel}: no `mcp-name: {name}` line in its description")
    return problems


def check_image(server, name, version, identifier):
    """The server's image in local storage carries the label (what the registry reads)."""
    local = f"{image_name(server)}:{version}"
    result = subprocess.run(
        ["podman", "manifest", "inspect", local], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    if result.returncode != 0:
        return [f"oci {identifier}: no image index {local} in local storage"]
    problems = []
    arches = [m["platform"]["architecture"] for m in json.loads(result.stdout).get("manifests", [])]
    if not arches:
        problems.append(f"oci {local}: an empty index")
    for arch in arches:
        label = subprocess.run(
            ["podman", "image", "inspect", "--format", '{{index .Labels "io.modelcontextprotocol.server.name"}}',
             f"{image_name(server)}:{version}-{arch}"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        ).stdout.strip()
        if label != name:
            problems.append(f"oci {local} ({arch}): label io.modelcontextprotocol.server.name is {label!r}, expected {name}")
    return problems


def images():
    for server in package.servers():
        directory = DIRECTORY.get(server["short"])
        print(server["short"], server["bins"][0], registry_name(server), directory[0] if directory else "")


def main():
    args = sys.argv[1:]
    if args == ["images"]:
        return images()
    if len(args) >= 2 and args[0] == "validate":
        return validate_files(args[1:])
    if len(args) in (2, 3) and args[0] == "write" and args[2:] in ([], ["--image"]):
        return write(os.path.abspath(args[1]), with_image=args[2:] == ["--image"])
    if len(args) == 2 and args[0] == "check":
        return check(os.path.abspath(args[1]))
    sys.exit(__doc__)


if __name__ == "__main__":
    main()
