/**
 * The `.vsix` holds what the extension needs at run time: the files `vsce` would package
 * (`.vscodeignore` leaves out parts of the dependencies) are copied alone into a temporary
 * directory, and the extension is loaded and serves a request from there.
 */

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

import { tempDir } from './helpers';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');

test('the packaged files are enough to load the extension and serve a request', { timeout: 120_000 }, async (t) => {
  const vsce = path.join(EXTENSION_DIR, 'node_modules', '@vscode', 'vsce', 'vsce');
  const { stdout } = await promisify(execFile)(process.execPath, [vsce, 'ls'], { cwd: EXTENSION_DIR });
  const files = stdout.split('\n').filter((line) => line.trim() !== '');
  assert.ok(files.includes('out/extension.js') && files.includes('package.json'), stdout);
  assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('out/tests/') || f.endsWith('.vsix')), 'no sources, tests or packages');
  assert.ok(!files.some((f) => f.startsWith('node_modules/typescript/') || f.startsWith('node_modules/@vscode/')), 'no dev dependencies');

  const copy = await tempDir(t, 'ide-bridge-vsix-');
  for (const file of files) {
    await fs.mkdir(path.dirname(path.join(copy, file)), { recursive: true });
    await fs.copyFile(path.join(EXTENSION_DIR, file), path.join(copy, file));
  }
  const workspace = await tempDir(t);
  await fs.writeFile(path.join(workspace, 'a.txt'), 'A');
  // In a fresh process, so that nothing is loaded from the development tree.
  const script = `
    const Module = require('node:module');
    const load = Module._load;
    Module._load = function (request, ...rest) { return request === 'vscode' ? {} : load.call(this, request, ...rest); };
    const extension = require(${JSON.stringify(path.join(copy, 'out', 'extension.js'))});
    if (typeof extension.activate !== 'function') throw new Error('no activate');
    const core = require(${JSON.stringify(path.join(copy, 'out', 'core', 'index.js'))});
    const { WebSocket } = require(${JSON.stringify(path.join(copy, 'node_modules', 'ws'))});
    (async () => {
      const notifier = { confirmWrite: async () => true, confirmCommand: async () => true, didWrite() {}, log() {} };
      const host = await core.BridgeHost.listen({ workspace: new core.NodeWorkspace(), folders: [${JSON.stringify(workspace)}], notifier, token: 't' }, 0);
      const ws = new WebSocket('ws://127.0.0.1:' + host.port, { headers: { Authorization: 'Bearer t' } });
      await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
      const answers = [];
      ws.on('message', (data) => answers.push(JSON.parse(data.toString())));
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'fs/list', params: { recursive: true } }));
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'fs/read', params: { path: 5 } }));
      while (answers.length < 2) await new Promise((resolve) => ws.once('message', resolve));
      ws.close();
      await host.close();
      process.stdout.write(JSON.stringify(answers.sort((a, b) => a.id - b.id)));
    })().catch((error) => { console.error(error); process.exit(1); });
  `;
  const run = await promisify(execFile)(process.execPath, ['-e', script], { cwd: copy });
  const [listed, invalid] = JSON.parse(run.stdout);
  assert.deepEqual(listed.result, { files: ['a.txt'], truncated: false });
  assert.equal(invalid.error.code, -32602, 'zod validates params in the packaged copy');
  assert.match(invalid.error.message, /invalid type: integer `5`, expected a string/);
});
