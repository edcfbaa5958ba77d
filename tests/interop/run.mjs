// Interop test: every mcp-suite server driven by the official MCP clients a host ships:
// the TypeScript SDK 1.x (`@modelcontextprotocol/sdk`, which validates even an error result's
// structuredContent against the tool's outputSchema), the TypeScript SDK 2.x
// (`@modelcontextprotocol/client`) and the Python SDK (`mcp`).
//
// This file prepares the servers (temporary project, blog repository, a headless
// `ide-bridge-host` on a private discovery directory), writes the plan (plan.mjs) as JSON, and runs
// one driver process per client over it. A driver fails on any call whose outcome differs from the
// plan (an error path must come back as a result with isError, the server's code and message,
// never a thrown error) and the run fails when a driver writes anything on its stderr (schema
// warnings such as `unknown format "uint64" ignored in schema` land there).
//
// Usage (from the repository root, after `cargo build --workspace` or `cargo test --workspace`):
//   tests/interop/run.sh          # installs the pinned clients, then runs this
//   MCP_BIN_DIR=target/release node tests/interop/run.mjs   # other binaries
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, chmodSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

import { buildPlan } from './plan.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..', '..');
const binDir = resolve(repoRoot, process.env.MCP_BIN_DIR ?? 'target/debug');
const python = process.env.INTEROP_PYTHON ?? join(here, '.venv', 'bin', 'python');

function write(path, text) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
}

/** The host's environment: a private discovery directory, no token (it makes one). */
function hostEnv(xdg) {
    const env = { ...process.env, XDG_RUNTIME_DIR: xdg };
    delete env.IDE_BRIDGE_TOKEN;
    return env;
}

/** Starts the headless workspace host and resolves once it says where it listens. */
function startHost(root, xdg) {
    const child = spawn(join(binDir, 'ide-bridge-host'), ['--root', root, '--port', '0'], {
        env: hostEnv(xdg),
        stdio: ['ignore', 'ignore', 'pipe'],
    });
    const lines = [];
    return new Promise((resolveHost, reject) => {
        const timer = setTimeout(() => reject(new Error(`ide-bridge-host did not start:\n${lines.join('\n')}`)), 30000);
        child.on('error', reject);
        child.on('exit', (code) => reject(new Error(`ide-bridge-host exited (${code}):\n${lines.join('\n')}`)));
        createInterface({ input: child.stderr }).on('line', (line) => {
            lines.push(line);
            if (line.startsWith('ide-bridge-host: listening on ws://')) {
                clearTimeout(timer);
                resolveHost(child);
            }
        });
    });
}

function setUp() {
    const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-interop-')));
    const project = join(tmp, 'project');
    write(join(project, 'src/main.rs'), 'fn main() {\n    println!("hello");\n}\n');
    const repo = join(tmp, 'blog');
    write(join(repo, 'projects/2026-01/01-first/article.md'), '---\ntitle: First\n---\nHello.\n');
    const drafts = join(tmp, 'drafts');
    write(join(drafts, 'interop.md'), '---\ntitle: Interop with every client\n---\nBody.\n');
    const workspace = join(tmp, 'workspace');
    write(join(workspace, 'README.md'), '# demo\n');
    const xdg = join(tmp, 'runtime');
    mkdirSync(xdg, { recursive: true });
    chmodSync(xdg, 0o700);
    return { tmp, project, repo, drafts, workspace, xdg, outside: join(tmp, 'outside.txt') };
}

function runDriver(label, command, args) {
    const started = Date.now();
    const run = spawnSync(command, args, { cwd: here, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const stdout = run.stdout ?? '';
    const stderr = run.stderr ?? '';
    process.stdout.write(stdout);
    const problems = [];
    if (run.error) problems.push(`could not start ${command}: ${run.error.message}`);
    if (run.status !== 0) problems.push(`exit status ${run.status}`);
    if (stderr.trim() !== '') problems.push(`wrote on stderr (schema warnings or errors):\n${stderr}`);
    const verdict = problems.length === 0 ? 'ok' : `FAILED: ${problems.join('; ')}`;
    console.log(`== ${label}: ${verdict} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    return problems.length === 0;
}

async function main() {
    for (const binary of ['mcp-server-sample-tool', 'mcp-server-text-editor', 'mcp-server-draft-post', 'mcp-server-ide-bridge', 'ide-bridge-host']) {
        if (spawnSync(join(binDir, binary), ['--version']).error) {
            throw new Error(`${join(binDir, binary)} is missing: run \`cargo build --workspace\` first (or set MCP_BIN_DIR)`);
        }
    }
    const dirs = setUp();
    const host = await startHost(dirs.workspace, dirs.xdg);
    let ok = true;
    try {
        const planFile = join(dirs.tmp, 'plan.json');
        writeFileSync(planFile, JSON.stringify(buildPlan(binDir, dirs), null, 2));
        ok = runDriver('TypeScript SDK 1.x (@modelcontextprotocol/sdk)', process.execPath, [join(here, 'ts_client.mjs'), 'sdk1', planFile]) && ok;
        ok = runDriver('TypeScript SDK 2.x (@modelcontextprotocol/client)', process.execPath, [join(here, 'ts_client.mjs'), 'sdk2', planFile]) && ok;
        ok = runDriver('TypeScript SDK 2.x, with and without the MCP Apps extension (the same text for the model)', process.execPath, [join(here, 'ts_client.mjs'), 'apps', planFile]) && ok;
        ok = runDriver('Python SDK (mcp)', python, [join(here, 'py_client.py'), planFile]) && ok;
        ok = runDriver('Python SDK (mcp) at 2026-07-28, stdio and HTTP', python, [join(here, 'py_client.py'), '--revision', '2026-07-28', planFile]) && ok;
    } finally {
        host.removeAllListeners('exit');
        host.kill();
        rmSync(dirs.tmp, { recursive: true, force: true });
    }
    console.log(ok ? 'interop: every client accepted every server' : 'interop: FAILED');
    process.exitCode = ok ? 0 : 1;
}

main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
});
