/**
 * The extension itself (`extension.ts`) under a stand-in `vscode` module: activation serves the
 * folder with the settings, publishes the discovery file, shows every write, asks with
 * `confirmWrites`, copies the client config, restarts on a setting change, falls back to a free
 * port, refuses a bad token, and cleans up on deactivation.
 */

import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { test, TestContext } from 'node:test';

import { Code, discoverySupported } from '../core';
import { extensionContext, installFakeVscode, registeredCommands, settings, changeSettings, ui, Uri, vscode } from './fakeVscode';
import { RpcClient, tempDir, writeTree } from './helpers';

installFakeVscode();
const extension = require('../extension') as typeof import('../extension');

/** A fresh editor: one folder, these settings, a private discovery directory. */
async function editor(t: TestContext, config: Record<string, unknown>): Promise<{ folder: string; xdg: string }> {
  const folder = await tempDir(t);
  await writeTree(folder, { 'a.txt': 'A' });
  const xdg = await tempDir(t, 'ide-bridge-xdg-');
  process.env.XDG_RUNTIME_DIR = xdg;
  for (const key of Object.keys(settings)) {
    delete settings[key];
  }
  Object.assign(settings, config);
  Object.assign(ui, { messages: [], output: [], opened: [], clipboard: '', answer: () => undefined, onMessage: undefined });
  vscode.workspace.workspaceFolders = [{ uri: Uri.file(folder), name: 'ws', index: 0 }];
  t.after(() => extension.deactivate());
  return { folder, xdg };
}

/** The port and token the Output channel shows. */
function served(): { port: number; token?: string } {
  const serving = [...ui.output].reverse().find((line) => /serving .* on ws:\/\/127\.0\.0\.1:\d+/.test(line));
  assert.ok(serving, `not serving:\n${ui.output.join('\n')}`);
  const port = Number(/:(\d+)$/.exec(serving)?.[1]);
  const token = [...ui.output].reverse().find((line) => line.includes('token: '))?.split('token: ')[1]?.split(' ')[0];
  return { port, token };
}

/** Resolves at the next message the extension shows. */
function nextMessage(): Promise<void> {
  return new Promise((resolve) => (ui.onMessage = resolve));
}

test('activation serves the folder, advertises it, and shows every write', async (t) => {
  const { folder, xdg } = await editor(t, { port: 0 });
  await extension.activate(extensionContext() as never);
  const { port, token } = served();
  assert.match(token ?? '', /^[0-9a-f]{32}$/, 'an empty token setting generates one, shown in the Output channel');

  const discovery = path.join(xdg, 'ide-bridge', `${port}.json`);
  if (discoverySupported()) {
    assert.deepEqual(JSON.parse(await fs.readFile(discovery, 'utf8')), {
      port,
      pid: process.pid,
      workspaceFolders: [folder],
      token,
    });
  }

  const client = await RpcClient.connect(t, `ws://127.0.0.1:${port}`, { token });
  const info = await client.call('host/info');
  assert.equal(info.name, 'mcp-suite.ide-bridge');
  assert.equal(info.version, '0.1.0');
  assert.equal(info.maxFileSize, 102400);
  assert.equal(info.readOnly, false);
  assert.equal((await client.call('fs/read', { path: 'a.txt' })).content, 'A');

  ui.answer = (_text, items) => (items.includes('Open') ? 'Open' : undefined);
  const shown = nextMessage();
  assert.deepEqual(await client.call('fs/write', { path: 'notes/b.txt', content: 'hello' }), { bytes: 5, created: true });
  await shown;
  assert.deepEqual(ui.messages.at(-1), {
    kind: 'info',
    text: 'MCP client created notes/b.txt (5 bytes).',
    modal: false,
    items: ['Open'],
  });
  assert.equal(await fs.readFile(path.join(folder, 'notes/b.txt'), 'utf8'), 'hello');

  await vscode.commands.executeCommand('antigravity.mcp.copyClientConfig');
  assert.deepEqual(JSON.parse(ui.clipboard), {
    mcpServers: {
      'ide-bridge': {
        command: 'mcp-server-ide-bridge',
        args: ['--url', `ws://127.0.0.1:${port}`],
        env: { IDE_BRIDGE_TOKEN: token },
      },
    },
  });

  await extension.deactivate();
  assert.equal((await client.closed).code, 1001);
  await assert.rejects(fs.stat(discovery), 'the discovery file is removed on deactivation');
  await assert.rejects(RpcClient.connect(t, `ws://127.0.0.1:${port}`, { token }));
});

test('confirmWrites shows the diff, then asks: Deny writes nothing, Allow writes', async (t) => {
  const { folder } = await editor(t, { port: 0, confirmWrites: true, token: 'my-configured-token', maxFileSize: 10 });
  await extension.activate(extensionContext() as never);
  const { port, token } = served();
  assert.equal(token, undefined, 'a configured token is not printed');
  const client = await RpcClient.connect(t, `ws://127.0.0.1:${port}`, { token: 'my-configured-token' });
  assert.equal((await client.call('host/info')).maxFileSize, 10);

  ui.answer = (_text, items) => (items.includes('Deny') ? 'Deny' : undefined);
  const diffsBefore = ui.diffs.length;
  const denied = await client.request('fs/write', { path: 'a.txt', content: 'changed' });
  assert.equal(denied.error?.code, Code.ACCESS_DENIED);
  assert.match(denied.error?.message ?? '', /declined the write of `a\.txt`.*nothing was written/);
  // the diff editor: the current file against the proposed text, before the question
  const diff = ui.diffs[diffsBefore];
  assert.ok(diff !== undefined, 'vscode.diff was opened');
  assert.equal(diff.left, `file://${path.join(folder, 'a.txt')}`);
  assert.match(diff.right, /^ide-bridge-proposed:\/\/\/a\.txt\?\d+$/);
  assert.deepEqual([diff.leftText, diff.rightText], ['A', 'changed']);
  const question = ui.messages.find((m) => m.items.includes('Allow'));
  assert.deepEqual(question && { ...question, text: undefined }, { kind: 'warning', text: undefined, modal: false, items: ['Allow', 'Deny'] });
  assert.match(question?.text ?? '', /overwrite a\.txt \(7 bytes\)\. Review the diff/);
  assert.equal(await fs.readFile(path.join(folder, 'a.txt'), 'utf8'), 'A');

  await vscode.commands.executeCommand('antigravity.mcp.copyClientConfig');
  assert.deepEqual(
    JSON.parse(ui.clipboard).mcpServers['ide-bridge'].args,
    ['--url', `ws://127.0.0.1:${port}`, '--request-timeout', '300', '--tool-timeout', '310'],
    'the bridge waits long enough for the user to answer',
  );

  ui.answer = (_text, items) => (items.includes('Allow') ? 'Allow' : undefined);
  assert.deepEqual(await client.call('fs/write', { path: 'a.txt', content: 'changed' }), { bytes: 7, created: false, previous: 'A' });
  assert.equal(await fs.readFile(path.join(folder, 'a.txt'), 'utf8'), 'changed');
  // a new file: an empty document against the proposed text
  assert.deepEqual(await client.call('fs/write', { path: 'fresh.txt', content: 'new!' }), { bytes: 4, created: true });
  const fresh = ui.diffs.at(-1);
  assert.deepEqual(fresh && [fresh.leftText, fresh.rightText], ['', 'new!']);
  assert.match(fresh?.left ?? '', /^ide-bridge-proposed:\/\/\/fresh\.txt\?\d+$/);
  assert.equal(await fs.readFile(path.join(folder, 'fresh.txt'), 'utf8'), 'new!');

  // the window is gone (a crashed browser tab in code-server): its file service and its commands
  // never answer; refused as UNAVAILABLE within the bounds (5 s per file call, 3 s for the diff),
  // without a question nobody could answer, and nothing written
  ui.windowGone = true;
  const asked = ui.messages.length;
  const gone = await client.request('fs/write', { path: 'a.txt', content: 'nope' });
  ui.windowGone = false;
  assert.equal(gone.error?.code, Code.UNAVAILABLE);
  assert.match(gone.error?.message ?? '', /window is not connected|no editor window is connected/);
  assert.equal(ui.messages.length, asked, 'no question was shown');
  assert.equal(await fs.readFile(path.join(folder, 'a.txt'), 'utf8'), 'changed');
  assert.ok(ui.messages.some((m) => m.text === 'MCP client wrote a.txt (7 bytes).'));
});

test('a busy port falls back to a free one; settings changes restart; a bad token does not start', async (t) => {
  const busy = net.createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => busy.close(() => resolve())));
  const busyPort = (busy.address() as net.AddressInfo).port;

  await editor(t, { port: busyPort, token: 'tok' });
  await extension.activate(extensionContext() as never);
  const { port } = served();
  assert.notEqual(port, busyPort);
  assert.ok(ui.messages.some((m) => m.kind === 'warning' && m.text.includes(`port ${busyPort} is in use`)));
  const client = await RpcClient.connect(t, `ws://127.0.0.1:${port}`, { token: 'tok' });
  assert.equal((await client.call('host/info')).readOnly, false);

  changeSettings({ readOnly: true, port: 0 });
  await vscode.commands.executeCommand('antigravity.mcp.restart');
  assert.equal((await client.closed).code, 1001, 'the old server closed its connections');
  const restarted = served();
  const again = await RpcClient.connect(t, `ws://127.0.0.1:${restarted.port}`, { token: 'tok' });
  assert.equal((await again.call('host/info')).readOnly, true);
  assert.equal((await again.request('fs/write', { path: 'x.txt', content: 'x' })).error?.code, Code.READ_ONLY);

  changeSettings({ token: 'has a space' });
  await vscode.commands.executeCommand('antigravity.mcp.restart');
  assert.ok(ui.messages.some((m) => m.kind === 'error' && m.text.includes('antigravity.mcp.token cannot be used')));
  await vscode.commands.executeCommand('antigravity.mcp.copyClientConfig');
  assert.equal(ui.clipboard, '', 'nothing is running, so there is no config to copy');
  await assert.rejects(RpcClient.connect(t, `ws://127.0.0.1:${restarted.port}`, { token: 'tok' }));
});

test('package.json declares the antigravity.mcp settings with their defaults, and activation registers every declared command', async (t) => {
  const manifest = JSON.parse(await fs.readFile(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8'));
  assert.deepEqual(manifest.activationEvents, ['onStartupFinished'], 'activated on startup');
  const properties = manifest.contributes.configuration.properties as Record<string, { type: string; default: unknown }>;
  const declared = Object.fromEntries(Object.entries(properties).map(([key, p]) => [key, [p.type, p.default]]));
  assert.deepEqual(declared, {
    'antigravity.mcp.port': ['number', 8888],
    'antigravity.mcp.token': ['string', ''],
    'antigravity.mcp.readOnly': ['boolean', false],
    'antigravity.mcp.maxFileSize': ['number', 102400],
    'antigravity.mcp.confirmWrites': ['boolean', false],
  });
  const commands = (manifest.contributes.commands as { command: string }[]).map((c) => c.command).sort();
  assert.deepEqual(commands, ['antigravity.mcp.copyClientConfig', 'antigravity.mcp.restart', 'antigravity.mcp.showToken', 'ideBridge.acceptChange', 'ideBridge.rejectChange']);

  await editor(t, { port: 0 });
  await extension.activate(extensionContext() as never);
  for (const command of commands) {
    assert.ok(registeredCommands().includes(command), `${command} is declared but not registered`);
  }
  await assert.rejects(vscode.commands.executeCommand('antigravity.mcp.noSuchCommand'), /not found/);
});

test('"Show Token" shows where the server listens and copies the token or the client config', async (t) => {
  await editor(t, { port: 0 });
  await extension.activate(extensionContext() as never);
  const { port, token } = served();
  assert.ok(token);

  ui.answer = (_text, items) => (items.includes('Copy Token') ? 'Copy Token' : undefined);
  await vscode.commands.executeCommand('antigravity.mcp.showToken');
  const shown = ui.messages.at(-1);
  assert.equal(shown?.kind, 'info');
  assert.match(shown?.text ?? '', new RegExp(`ws://127\\.0\\.0\\.1:${port}`));
  assert.ok(!(shown?.text ?? '').includes(token), 'the token is not put in a notification');
  assert.equal(ui.clipboard, token);
  assert.ok(ui.output.some((line) => line.includes(`token: ${token}`)), 'the token is in the Output channel');

  ui.answer = (_text, items) => (items.includes('Copy Client Config') ? 'Copy Client Config' : undefined);
  await vscode.commands.executeCommand('antigravity.mcp.showToken');
  assert.equal(JSON.parse(ui.clipboard).mcpServers['ide-bridge'].env.IDE_BRIDGE_TOKEN, token);

  await extension.deactivate();
  ui.clipboard = '';
  await vscode.commands.executeCommand('antigravity.mcp.showToken');
  assert.equal(ui.messages.at(-1)?.kind, 'warning', 'not running: says so');
  assert.equal(ui.clipboard, '');
});
