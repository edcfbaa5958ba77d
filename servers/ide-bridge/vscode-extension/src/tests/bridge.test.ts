/**
 * Cross-language tests: the extension's core, served under Node on a temporary workspace, driven
 * by the real Rust `mcp-server-ide-bridge` through a real MCP session over stdio; and the same
 * requests sent to the Rust `ide-bridge-host` and to the core, answer for answer. Together they
 * prove that the two sides speak the same protocol.
 *
 * The binaries come from `cargo build -p mcp-server-ide-bridge` (`cargo test --workspace` in CI
 * builds them first); without them these tests fail and say so.
 */

import assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { test, TestContext } from 'node:test';

import { discoveryDirFrom, discoverySupported, publish } from '../core';
import { Message, RpcClient, TOKEN, rawUpgrade, startHost, tempDir, writeTree } from './helpers';
import { McpClient, errorCode, rustBinary } from './mcp';

/** Generous guard so that a hung process fails the test instead of CI (not a time assertion). */
const GUARD = { timeout: 60_000 };

/** The bridge's environment: its own discovery directory, no token from the caller's environment. */
async function bridgeEnv(t: TestContext): Promise<Record<string, string>> {
  return { XDG_RUNTIME_DIR: await tempDir(t, 'ide-bridge-xdg-'), IDE_BRIDGE_TOKEN: '' };
}

async function sampleWorkspace(t: TestContext): Promise<string> {
  const root = await tempDir(t);
  await writeTree(root, {
    'README.md': '# sample\n',
    'src/main.ts': 'export const answer = 42;\r\n',
    'src/util/strings.ts': 'export {};\n',
    '.gitignore': 'dist/\n*.log\n',
    'dist/bundle.js': 'ignored',
    'debug.log': 'ignored',
    '.env': 'SECRET=1\n',
    'big.txt': 'x'.repeat(2000),
    'image.bin': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]),
  });
  return root;
}

test('the Rust bridge lists, reads and writes through the Node host over a real MCP session', GUARD, async (t) => {
  const bridgeBinary = rustBinary('mcp-server-ide-bridge');
  const root = await sampleWorkspace(t);
  const { url, notifier, host } = await startHost(t, root, { maxFileSize: 1000 });
  const mcp = await McpClient.start(t, bridgeBinary, ['--url', url, '--token', TOKEN], await bridgeEnv(t));

  const tools = await mcp.request('tools/list', {});
  const names = (tools.result.tools as { name: string }[]).map((tool) => tool.name).sort();
  assert.deepEqual(names, [
    'apply_code_action',
    'call_hierarchy',
    'close_diffs',
    'code_actions',
    'describe_symbol',
    'find_definition',
    'find_implementations',
    'find_references',
    'format',
    'get_diagnostics',
    'get_open_editors',
    'get_selection',
    'ide_status',
    'list_files',
    'list_symbols',
    'open_diff',
    'open_file',
    'read_file',
    'rename_symbol',
    'save_file',
    'signature_help',
    'type_hierarchy',
    'write_file',
  ]);
  // The core without an editor (protocol version 2): no tabs, no selection; no diagnostics, said plainly.
  assert.deepEqual((await mcp.tool('get_open_editors', {})).structuredContent, { editors: [], outside: 0 });
  assert.deepEqual((await mcp.tool('get_selection', {})).structuredContent, { active: false });
  const diagnostics = await mcp.tool('get_diagnostics', { path: 'README.md' });
  assert.equal(diagnostics.isError, true, JSON.stringify(diagnostics));
  assert.equal(diagnostics.structuredContent?.error?.code, 'UNAVAILABLE', JSON.stringify(diagnostics));
  assert.match(diagnostics.content[0].text, /does not support get_diagnostics \(this host has no editor/);
  // Version 3 without an editor: the language tools and diffs, said plainly with what to install.
  for (const [tool, args] of [
    ['find_references', { path: 'src/main.ts', line: 1, symbol: 'x' }],
    ['open_diff', { path: 'src/main.ts', new_text: 'x' }],
    ['save_file', { path: 'src/main.ts' }],
  ] as const) {
    const refused = await mcp.tool(tool, args);
    assert.equal(refused.structuredContent?.error?.code, 'UNAVAILABLE', JSON.stringify(refused));
    assert.match(refused.content[0].text, new RegExp(`does not support ${tool} \\(this host has no editor.*extension 0\\.3 or later`));
  }

  const all = await mcp.tool('list_files', { recursive: true });
  assert.ok(!all.isError, JSON.stringify(all));
  assert.deepEqual(all.structuredContent, {
    files: ['README.md', 'big.txt', 'image.bin', 'src/main.ts', 'src/util/strings.ts'],
    truncated: false,
  });
  const top = await mcp.tool('list_files', { recursive: false });
  assert.deepEqual(top.structuredContent.files, ['README.md', 'big.txt', 'image.bin', 'src/']);
  const sub = await mcp.tool('list_files', { path: 'src' });
  assert.deepEqual(sub.structuredContent.files, ['src/main.ts', 'src/util/']);

  const read = await mcp.tool('read_file', { path: 'src/main.ts' });
  assert.ok(!read.isError, JSON.stringify(read));
  assert.equal(read.content[0].text, 'export const answer = 42;\r\n', 'the exact text, CRLF kept');
  const absolute = await mcp.tool('read_file', { path: path.join(root, 'README.md') });
  assert.equal(absolute.content[0].text, '# sample\n', 'the bridge maps an absolute path inside host/info\'s folder');

  const created = await mcp.tool('write_file', { path: 'notes/todo.md', content: '- ship it\n' });
  assert.ok(!created.isError, JSON.stringify(created));
  assert.deepEqual(created.structuredContent, { path: 'notes/todo.md', bytes: 10, created: true });
  assert.equal(await fs.readFile(path.join(root, 'notes/todo.md'), 'utf8'), '- ship it\n');
  const replaced = await mcp.tool('write_file', { path: 'notes/todo.md', content: '- shipped ✓\n' });
  assert.deepEqual(replaced.structuredContent, {
    path: 'notes/todo.md',
    bytes: 14,
    created: false,
    lines_added: 1,
    lines_removed: 1,
    diff: '--- a/notes/todo.md\n+++ b/notes/todo.md\n@@ -1 +1 @@\n-- ship it\n+- shipped ✓\n',
    diff_truncated: false,
  }, 'the extension sends the replaced text: the bridge shows the diff');
  assert.deepEqual(
    notifier.writes.map((w) => [w.path, w.bytes, w.created]),
    [
      ['notes/todo.md', 10, true],
      ['notes/todo.md', 14, false],
    ],
    'the user is notified of every write',
  );

  assert.equal(errorCode(await mcp.tool('read_file', { path: 'big.txt' })), 'FILE_TOO_LARGE');
  assert.equal(errorCode(await mcp.tool('read_file', { path: 'image.bin' })), 'BINARY_FILE');
  assert.equal(errorCode(await mcp.tool('read_file', { path: 'missing.txt' })), 'NOT_FOUND');
  assert.equal(errorCode(await mcp.tool('read_file', { path: '../outside.txt' })), 'ACCESS_DENIED');
  assert.equal(errorCode(await mcp.tool('write_file', { path: '../outside.txt', content: 'x' })), 'ACCESS_DENIED');
  assert.equal(errorCode(await mcp.tool('write_file', { path: 'huge.txt', content: 'y'.repeat(1001) })), 'FILE_TOO_LARGE');
  assert.equal(errorCode(await mcp.tool('list_files', { path: 'README.md' })), 'INVALID_ARGS');
  await assert.rejects(fs.stat(path.join(path.dirname(root), 'outside.txt')));

  const resource = await mcp.request('resources/read', { uri: 'file:///src%2Fmain.ts' });
  assert.equal(resource.result?.contents?.[0]?.text, 'export const answer = 42;\r\n', JSON.stringify(resource));
  const resources = await mcp.request('resources/list', {});
  const uris = (resources.result?.resources as { uri: string }[]).map((r) => r.uri);
  assert.ok(uris.includes('file:///README.md') && !uris.some((u) => u.includes('.env')), JSON.stringify(uris));

  assert.deepEqual(mcp.junk, [], 'stdout carries JSON-RPC only');
  assert.equal(host.connections, 1, 'one connection, reused for every call');
});

test('a wrong token is refused at the upgrade, and the bridge reports ACCESS_DENIED', GUARD, async (t) => {
  const bridgeBinary = rustBinary('mcp-server-ide-bridge');
  const root = await sampleWorkspace(t);
  const { url, host, notifier } = await startHost(t, root);
  const mcp = await McpClient.start(t, bridgeBinary, ['--url', url, '--token', 'not-the-token'], await bridgeEnv(t));
  const listed = await mcp.tool('list_files', { recursive: true });
  assert.equal(errorCode(listed), 'ACCESS_DENIED', JSON.stringify(listed));
  assert.match(listed.content[0].text, /401/);
  const written = await mcp.tool('write_file', { path: 'x.txt', content: 'x' });
  assert.equal(errorCode(written), 'ACCESS_DENIED');
  await assert.rejects(fs.stat(path.join(root, 'x.txt')));
  assert.equal(host.connections, 0, 'no session was opened');
  assert.ok(notifier.lines.some((line) => /refused a WebSocket upgrade \(401\)/.test(line)));
});

test('a read-only host: write_file fails with READ_ONLY, and tools/list says so', GUARD, async (t) => {
  const bridgeBinary = rustBinary('mcp-server-ide-bridge');
  const root = await sampleWorkspace(t);
  const { url, notifier } = await startHost(t, root, { readOnly: true });
  const mcp = await McpClient.start(t, bridgeBinary, ['--url', url, '--token', TOKEN], await bridgeEnv(t));
  const read = await mcp.tool('read_file', { path: 'README.md' });
  assert.equal(read.content[0].text, '# sample\n');
  const written = await mcp.tool('write_file', { path: 'README.md', content: 'changed' });
  assert.equal(errorCode(written), 'READ_ONLY', JSON.stringify(written));
  const created = await mcp.tool('write_file', { path: 'new.txt', content: 'new' });
  assert.equal(errorCode(created), 'READ_ONLY');
  assert.equal(await fs.readFile(path.join(root, 'README.md'), 'utf8'), '# sample\n');
  await assert.rejects(fs.stat(path.join(root, 'new.txt')));
  assert.deepEqual(notifier.writes, []);
  // host/info's readOnly reached the bridge: its write_file tool says so.
  const tools = await mcp.request('tools/list', {});
  const writeFile = (tools.result.tools as { name: string; description: string }[]).find((tool) => tool.name === 'write_file');
  assert.match(writeFile?.description ?? '', /READ-ONLY/);
});

test('the bridge finds the Node host through its discovery file', { ...GUARD, skip: !discoverySupported() && 'no discovery on Windows' }, async (t) => {
  const bridgeBinary = rustBinary('mcp-server-ide-bridge');
  const root = await sampleWorkspace(t);
  const { port } = await startHost(t, root);
  const env = await bridgeEnv(t);
  const uid = process.getuid?.() ?? 0;
  const published = await publish(discoveryDirFrom(env.XDG_RUNTIME_DIR, os.tmpdir(), uid), {
    port,
    pid: process.pid,
    workspaceFolders: [root],
    token: TOKEN,
  });
  t.after(() => published.remove());
  // No --url and no --token: both come from the discovery file of the folder holding --workspace.
  const mcp = await McpClient.start(t, bridgeBinary, ['--workspace', path.join(root, 'src')], env);
  const listed = await mcp.tool('list_files', { recursive: true });
  assert.ok(!listed.isError, `${JSON.stringify(listed)}\n${mcp.stderr}`);
  assert.ok(listed.structuredContent.files.includes('src/main.ts'));
});

test('more calls in flight than the Node host takes on one connection all succeed through the Rust bridge', GUARD, async (t) => {
  const bridgeBinary = rustBinary('mcp-server-ide-bridge');
  const root = await tempDir(t);
  const count = 256 + 100; // the core answers more than 256 on one connection with -32010
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    files[`f${i}.txt`] = `file ${i}\n`;
  }
  await writeTree(root, files);
  const { url, host } = await startHost(t, root);
  const mcp = await McpClient.start(t, bridgeBinary, ['--url', url, '--token', TOKEN], await bridgeEnv(t));
  const replies = await Promise.all(
    Object.keys(files).map((file) => mcp.request('tools/call', { name: 'read_file', arguments: { path: file } })),
  );
  replies.forEach((reply, i) => {
    assert.ok(reply.result && !reply.result.isError, JSON.stringify(reply));
    assert.equal(reply.result.content[0].text, `file ${i}\n`);
  });
  assert.equal(host.connections, 1);
});

/** Starts the Rust `ide-bridge-host` on a free port; resolves with its port once it listens. */
async function rustHost(t: TestContext, root: string, args: string[]): Promise<number> {
  const binary = rustBinary('ide-bridge-host');
  const child: ChildProcess = spawn(binary, ['--root', root, '--port', '0', '--token', TOKEN, '--no-discovery', '--no-fsync', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
  const lines = createInterface({ input: child.stderr as NodeJS.ReadableStream });
  let log = '';
  for await (const line of lines) {
    log += `${line}\n`;
    const match = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(line);
    if (match) {
      lines.on('line', () => undefined); // keep draining stderr
      return Number(match[1]);
    }
  }
  throw new Error(`ide-bridge-host exited before listening:\n${log}`);
}

/** The same tree, for each host. */
async function parityTree(t: TestContext): Promise<string> {
  const outer = await tempDir(t);
  const root = path.join(outer, 'ws');
  await writeTree(outer, { 'secret.txt': 'secret' });
  await writeTree(root, {
    '.gitignore': 'target/\n*.log\n!keep.log\n/top-only.txt\n',
    'a.txt': 'A',
    'keep.log': 'k',
    'debug.log': 'd',
    'top-only.txt': 't',
    'src/top-only.txt': 't',
    'src/main.rs': 'fn main() {}\n',
    'src/deep/x.rs': 'x',
    'src/deep/.gitignore': '*.tmp\n',
    'src/deep/y.tmp': 'y',
    'target/out': 'o',
    '.env': 'SECRET=1\n',
    '.hidden/inside.txt': 'h',
    'crlf.txt': 'a\r\nb',
    'bom.txt': '\uFEFFbom',
    'max.txt': 'm'.repeat(100),
    'big.txt': 'b'.repeat(101),
    'nul.bin': Buffer.from([0x61, 0x00]),
    'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9]),
    'dir/file.txt': 'f',
  });
  await fs.mkdir(path.join(root, 'empty'));
  await fs.symlink(path.join(outer, 'secret.txt'), path.join(root, 'link-out.txt'));
  await fs.symlink('../secret.txt', path.join(root, 'rel-out.txt'));
  await fs.symlink(outer, path.join(root, 'dir-out'));
  await fs.symlink(path.join(outer, 'nothing'), path.join(root, 'dangling-out'));
  await fs.symlink('a.txt', path.join(root, 'link-in.txt'));
  await fs.symlink('dir', path.join(root, 'dir-in'));
  return root;
}

/**
 * The requests both hosts answer; then the trees they leave behind are compared too.
 *
 * Left out on purpose: `fs/list {path: "target"}` where `.gitignore` says `target/`. The protocol
 * document asks for git's semantics, under which everything below an ignored directory is
 * ignored, and the extension lists nothing there (`files.test.ts` checks it); `ide-bridge-host`
 * lists the directory's files because it matches each path without its parents.
 */
const PARITY_REQUESTS: [string, unknown][] = [
  ['fs/list', { recursive: true }],
  ['fs/list', { recursive: false }],
  ['fs/list', {}],
  ['fs/list', { path: 'src' }],
  ['fs/list', { path: './src/deep', recursive: true }],
  ['fs/list', { path: 'src/deep' }],
  ['fs/list', { path: '.hidden' }],
  ['fs/list', { path: 'dir-in' }],
  ['fs/list', { path: 'a.txt' }],
  ['fs/list', { path: 'nope' }],
  ['fs/list', { path: '..' }],
  ['fs/list', { path: 'dir-out' }],
  ['fs/listFiles', { recursive: true }],
  ['fs/read', { path: 'a.txt' }],
  ['fs/read', { path: './src/../a.txt' }],
  ['fs/read', { path: 'crlf.txt' }],
  ['fs/read', { path: 'bom.txt' }],
  ['fs/read', { path: 'max.txt' }],
  ['fs/read', { path: 'big.txt' }],
  ['fs/read', { path: 'nul.bin' }],
  ['fs/read', { path: 'latin1.txt' }],
  ['fs/read', { path: '.env' }],
  ['fs/read', { path: 'missing.txt' }],
  ['fs/read', { path: 'dir' }],
  ['fs/read', { path: '' }],
  ['fs/read', { path: '../secret.txt' }],
  ['fs/read', { path: 'src/../../secret.txt' }],
  ['fs/read', { path: 'link-out.txt' }],
  ['fs/read', { path: 'rel-out.txt' }],
  ['fs/read', { path: 'dir-out/secret.txt' }],
  ['fs/read', { path: 'dangling-out' }],
  ['fs/read', { path: 'link-in.txt' }],
  ['fs/read', { path: 'dir-in/file.txt' }],
  ['fs/read', { path: 'a.txt/x' }],
  ['fs/read', {}],
  ['fs/read', { path: 7 }],
  ['fs/read', { path: null }],
  ['fs/read', { path: ['a'] }],
  ['fs/list', { recursive: 'yes' }],
  ['fs/write', { path: 'a.txt', content: 1.5 }],
  ['fs/read', { path: 'target/out' }],
  ['fs/readFile', { path: 'a.txt', unknown: true }],
  ['fs/write', { path: 'new/deep/file.txt', content: 'created' }],
  ['fs/write', { path: 'a.txt', content: 'replaced' }],
  ['fs/write', { path: 'link-in.txt', content: 'through the link' }],
  ['fs/write', { path: 'too-big.txt', content: 'x'.repeat(101) }],
  ['fs/write', { path: '.git/hooks/pre-commit', content: 'boom' }],
  ['fs/write', { path: '.', content: 'x' }],
  ['fs/write', { path: 'dir', content: 'x' }],
  ['fs/write', { path: 'a.txt/child', content: 'x' }],
  ['fs/write', { path: '../escape.txt', content: 'x' }],
  ['fs/write', { path: 'link-out.txt', content: 'x' }],
  ['fs/write', { path: 'dangling-out', content: 'x' }],
  ['fs/write', { path: 'dir-out/x.txt', content: 'x' }],
  ['fs/write', { path: 'x.txt' }],
  ['fs/writeFile', { path: 'alias.txt', content: 'alias' }],
  ['fs/delete', { path: 'a.txt' }],
];

/** A comparable form of an answer: the result, or the error's code, shared code and message. */
function comparable(reply: Message): unknown {
  return reply.error === undefined ? { result: reply.result } : { error: reply.error };
}

/** Every file under `dir` with its content (or link target), for comparing two trees. */
async function snapshot(dir: string, rel = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fs.readdir(path.join(dir, rel), { withFileTypes: true })) {
    const child = path.posix.join(rel, entry.name);
    if (entry.isSymbolicLink()) {
      out[child] = `-> ${await fs.readlink(path.join(dir, child))}`;
    } else if (entry.isDirectory()) {
      Object.assign(out, await snapshot(dir, child), { [`${child}/`]: '' });
    } else {
      out[child] = await fs.readFile(path.join(dir, child), 'latin1');
    }
  }
  return out;
}

test('the Node core and the Rust ide-bridge-host answer the same requests alike', { ...GUARD, skip: process.platform === 'win32' && 'symlinks' }, async (t) => {
  const rustRoot = await parityTree(t);
  const nodeRoot = await parityTree(t);
  const rustPort = await rustHost(t, rustRoot, ['--max-file-size', '100']);
  const { url: nodeUrl } = await startHost(t, nodeRoot, { maxFileSize: 100 });
  const rust = await RpcClient.connect(t, `ws://127.0.0.1:${rustPort}`);
  const node = await RpcClient.connect(t, nodeUrl);

  const differences: string[] = [];
  for (const [method, params] of PARITY_REQUESTS) {
    const expected = comparable(await rust.request(method, params));
    const actual = comparable(await node.request(method, params));
    try {
      assert.deepEqual(actual, expected);
    } catch {
      differences.push(`${method} ${JSON.stringify(params).slice(0, 80)}\n  rust: ${JSON.stringify(expected)}\n  node: ${JSON.stringify(actual)}`);
    }
  }
  for (const raw of ['{oops', '[]', '{"jsonrpc":"2.0"}', '{"jsonrpc":"2.0","id":1}']) {
    rust.send(raw);
    node.send(raw);
    const [expected, actual] = [comparable(await rust.next()), comparable(await node.next())];
    if (JSON.stringify(expected) !== JSON.stringify(actual)) {
      differences.push(`${raw}\n  rust: ${JSON.stringify(expected)}\n  node: ${JSON.stringify(actual)}`);
    }
  }
  assert.deepEqual(differences, [], `the hosts answer differently:\n${differences.join('\n')}`);

  const [rustTree, nodeTree] = [await snapshot(path.dirname(rustRoot)), await snapshot(path.dirname(nodeRoot))];
  const relink = (tree: Record<string, string>, root: string) =>
    JSON.stringify(tree).split(path.dirname(root)).join('<outer>');
  assert.equal(relink(nodeTree, nodeRoot), relink(rustTree, rustRoot), 'both hosts leave the same files behind');

  // The upgrade checks, too.
  const upgrades: Record<string, string | string[]>[] = [
    { Authorization: `Bearer ${TOKEN}` },
    {},
    { Authorization: 'Bearer wrong' },
    { Authorization: `Basic ${TOKEN}` },
    { Authorization: `Bearer ${TOKEN}`, Origin: 'https://evil.example' },
    { Authorization: `Bearer ${TOKEN}`, Origin: 'null' },
    { Authorization: `Bearer ${TOKEN}`, Host: 'evil.example' },
    { Authorization: `Bearer ${TOKEN}`, Host: 'localhost' },
  ];
  for (const headers of upgrades) {
    const statusOf = async (port: number) => (await rawUpgrade(port, { Host: `127.0.0.1:${port}`, ...headers })).status;
    assert.equal(await statusOf(Number(new URL(nodeUrl).port)), await statusOf(rustPort), JSON.stringify(headers));
  }
});
