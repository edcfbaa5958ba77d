/**
 * The IDE's live state through the extension (protocol version 2) under the stand-in `vscode`
 * module: diagnostics (with the background open and wait), open editors, the selection,
 * `ide/openFile`, the unsaved buffer in `fs/read`, a two-folder workspace addressed by folder
 * name, the debounced change notifications, and paths outside the workspace refused.
 */

import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test, TestContext } from 'node:test';

import { Code } from '../core';
import { FakeDocument, Range, TabInputText, Uri, activate, editorState, extensionContext, installFakeVscode, setDiagnostics, settings, ui, vscode } from './fakeVscode';
import { RpcClient, tempDir, writeTree } from './helpers';

installFakeVscode();
const extension = require('../extension') as typeof import('../extension');

const TOKEN = 'ide-test-token';

/** An editor on two folders (`app`, and `lib` named `Library`), connected. */
async function connected(t: TestContext): Promise<{ app: string; lib: string; client: RpcClient }> {
  const root = await tempDir(t);
  const app = path.join(root, 'app');
  const lib = path.join(root, 'lib');
  await writeTree(app, { 'src/a.ts': 'const n: number = "x";\n', 'README.md': '# app\n' });
  await writeTree(lib, { 'b.ts': 'export const b = 1;\nexport const c = 2;\nexport const d = 3;\n' });
  await writeTree(root, { 'secret.txt': 'outside' });
  process.env.XDG_RUNTIME_DIR = await tempDir(t, 'ide-bridge-xdg-');
  for (const key of Object.keys(settings)) {
    delete settings[key];
  }
  Object.assign(settings, { port: 0, token: TOKEN });
  Object.assign(ui, { messages: [], output: [], opened: [], answer: () => undefined, onMessage: undefined });
  Object.assign(editorState, { documents: [], tabs: [], active: undefined });
  editorState.diagnostics.clear();
  editorState.onOpen.clear();
  vscode.workspace.workspaceFolders = [
    { uri: Uri.file(app), name: 'app', index: 0 },
    { uri: Uri.file(lib), name: 'Library', index: 1 },
  ];
  t.after(() => extension.deactivate());
  await extension.activate(extensionContext() as never);
  const serving = ui.output.find((line) => /serving .* on ws:\/\/127\.0\.0\.1:\d+/.test(line)) ?? '';
  const port = Number(/:(\d+)$/.exec(serving)?.[1]);
  const client = await RpcClient.connect(t, `ws://127.0.0.1:${port}`, { token: TOKEN });
  return { app, lib, client };
}

const TS2322 = { range: new Range(0, 6, 0, 7), severity: 0, source: 'ts', code: 2322, message: "Type 'string' is not assignable to type 'number'." };

test('host/info says version 4 and names the folders', async (t) => {
  const { app, lib, client } = await connected(t);
  const info = await client.call('host/info');
  assert.equal(info.protocolVersion, 4);
  assert.deepEqual(info.workspaceFolders, [app, lib]);
  assert.deepEqual(info.folderNames, ['app', 'Library']);
});

test('a file not yet open is opened in the background and its first diagnostics awaited', async (t) => {
  const { app, client } = await connected(t);
  editorState.onOpen.set(path.join(app, 'src/a.ts'), [TS2322]);
  const result = await client.call('ide/diagnostics', { path: 'src/a.ts', waitMs: 5000 });
  assert.deepEqual(result, {
    diagnostics: [{ path: 'src/a.ts', line: 1, column: 7, endLine: 1, endColumn: 8, severity: 'error', source: 'ts', code: '2322', message: TS2322.message }],
    truncated: 0,
    settled: true,
    opened: true,
  });
  // A tab was opened for the language server (VS Code's TypeScript checks only files with tabs),
  // and closed again.
  assert.deepEqual(ui.opened, [path.join(app, 'src/a.ts')]);
  assert.deepEqual(editorState.tabs, [], 'the tab opened for the analysis is closed');
  // Reported already, with a tab of the user's: answered at once, nothing opened.
  await client.call('ide/openFile', { path: 'src/a.ts' });
  const again = await client.call('ide/diagnostics', { path: 'src/a.ts' });
  assert.equal(again.opened, false);
  assert.equal(again.diagnostics.length, 1);
  assert.deepEqual(editorState.tabs.length, 1, "the user's tab stays");
  const all = await client.call('ide/diagnostics', {});
  assert.deepEqual(all.diagnostics.map((d: { path: string }) => d.path), ['src/a.ts']);
});

test('a file no language server reports on is answered unsettled after the wait', async (t) => {
  const { client } = await connected(t);
  const result = await client.call('ide/diagnostics', { path: 'README.md', waitMs: 50 });
  assert.deepEqual(result, { diagnostics: [], truncated: 0, settled: false, opened: true });
});

test('severities are filtered, outside files left out, and bad paths refused', async (t) => {
  const { app, lib, client } = await connected(t);
  setDiagnostics(path.join(lib, 'b.ts'), [
    { range: new Range(1, 0, 1, 5), severity: 1, source: 'eslint', code: 'no-unused-vars', message: 'unused' },
    { range: new Range(2, 0, 2, 5), severity: 2, message: 'info' },
    { range: new Range(0, 0, 0, 5), severity: 3, message: 'hint' },
  ]);
  setDiagnostics(path.join(path.dirname(app), 'secret.txt'), [{ range: new Range(0, 0, 0, 1), severity: 0, message: 'outside' }]);
  const plain = await client.call('ide/diagnostics', {});
  assert.deepEqual(plain.diagnostics.map((d: { path: string; severity: string }) => `${d.path}:${d.severity}`), ['Library/b.ts:warning']);
  const all = await client.call('ide/diagnostics', { includeInfo: true });
  assert.deepEqual(all.diagnostics.map((d: { line: number }) => d.line), [1, 2, 3]);
  for (const bad of ['../secret.txt', '/etc/passwd', 'Library/../../secret.txt']) {
    const reply = await client.request('ide/diagnostics', { path: bad });
    assert.equal(reply.error?.code, Code.ACCESS_DENIED, `${bad}: ${JSON.stringify(reply)}`);
  }
  assert.equal((await client.request('ide/diagnostics', { path: 'missing.ts' })).error?.code, Code.NOT_FOUND);
  assert.equal((await client.request('ide/diagnostics', { waitMs: 999999 })).error?.code, Code.INVALID_PARAMS);
});

test('openFile shows the file at its lines; open editors and the selection then name it', async (t) => {
  const { client } = await connected(t);
  assert.deepEqual(await client.call('ide/openEditors'), { editors: [], outside: 0 });
  assert.deepEqual(await client.call('ide/selection'), { selection: null });
  const opened = await client.call('ide/openFile', { path: 'Library/b.ts', line: 2, endLine: 3 });
  assert.deepEqual(opened, {
    path: 'Library/b.ts',
    selection: {
      path: 'Library/b.ts',
      start: { line: 2, column: 1 },
      end: { line: 3, column: 20 },
      text: 'export const c = 2;\nexport const d = 3;',
    },
  });
  assert.deepEqual(await client.call('ide/openEditors'), {
    editors: [{ path: 'Library/b.ts', active: true, dirty: false, language: 'typescript' }],
    outside: 0,
  });
  assert.equal((await client.call('ide/selection')).selection.path, 'Library/b.ts');
  // An untitled document's tab and a file outside the folders are counted, not named.
  editorState.tabs.push({ input: new TabInputText(Uri.from({ scheme: 'untitled', path: 'Untitled-1' })), isActive: false, isDirty: true });
  editorState.tabs.push({ input: new TabInputText(Uri.file('/etc/hosts')), isActive: false, isDirty: false });
  assert.deepEqual(await client.call('ide/openEditors'), {
    editors: [{ path: 'Library/b.ts', active: true, dirty: false, language: 'typescript' }],
    outside: 2,
  });
  editorState.tabs.splice(1);
  // Lines past the end are clamped; a bad range and an escape are refused.
  const clamped = await client.call('ide/openFile', { path: 'src/a.ts', line: 99 });
  assert.equal(clamped.selection.start.line, 2);
  assert.equal((await client.request('ide/openFile', { path: 'src/a.ts', endLine: 2 })).error?.code, Code.INVALID_PARAMS);
  assert.equal((await client.request('ide/openFile', { path: 'src/a.ts', line: 3, endLine: 2 })).error?.code, Code.INVALID_PARAMS);
  assert.equal((await client.request('ide/openFile', { path: '../secret.txt' })).error?.code, Code.ACCESS_DENIED);
});

test('fs/read returns the unsaved buffer of a dirty document, and says so', async (t) => {
  const { app, client } = await connected(t);
  const doc = new FakeDocument(Uri.file(path.join(app, 'src/a.ts')), 'const n: number = 1; // edited\n', 'typescript');
  doc.isDirty = true;
  editorState.documents.push(doc);
  assert.deepEqual(await client.call('fs/read', { path: 'src/a.ts' }), { content: 'const n: number = 1; // edited\n', unsaved: true });
  doc.isDirty = false;
  assert.deepEqual(await client.call('fs/read', { path: 'src/a.ts' }), { content: 'const n: number = "x";\n' });
});

test('fs/list of a multi-root workspace shows every folder by name', async (t) => {
  const { client } = await connected(t);
  assert.deepEqual((await client.call('fs/list', { recursive: false })).files, ['Library/', 'README.md', 'src/']);
  assert.deepEqual((await client.call('fs/list', { recursive: true })).files, ['Library/b.ts', 'README.md', 'src/a.ts']);
  assert.deepEqual((await client.call('fs/list', { path: 'Library' })).files, ['Library/b.ts']);
  assert.equal((await client.call('fs/read', { path: 'Library/b.ts' })).content.startsWith('export const b'), true);
});

test('selection and diagnostics changes are notified, debounced', async (t) => {
  const { app, client } = await connected(t);
  const doc = new FakeDocument(Uri.file(path.join(app, 'README.md')), '# app\n', 'markdown');
  for (let i = 0; i < 5; i += 1) {
    activate(doc, new Range(0, 0, 0, i));
  }
  setDiagnostics(path.join(app, 'README.md'), []);
  const seen: string[] = [];
  const deadline = Date.now() + 3000;
  while (seen.length < 2 && Date.now() < deadline) {
    const message = await Promise.race([client.next(), new Promise<undefined>((r) => setTimeout(() => r(undefined), 1000))]);
    if (message !== undefined && message.id === undefined) {
      seen.push(String(message.method));
    }
  }
  assert.deepEqual(seen.sort(), ['ide/diagnosticsChanged', 'ide/selectionChanged'], 'one notification per kind for a burst');
  const late = await Promise.race([client.next(), new Promise<undefined>((r) => setTimeout(() => r(undefined), 600))]);
  assert.equal(late, undefined, `no more: ${JSON.stringify(late)}`);
});
