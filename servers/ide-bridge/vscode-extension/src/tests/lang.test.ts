/**
 * Protocol version 3 through the extension under the stand-in `vscode` module: the language
 * features (`lang/*`) over a scripted language server, the column found from the symbol's text,
 * a language server still starting said as such, files outside the workspace named and never
 * edited; proposed changes in the diff view accepted (with the user's edits), rejected, closed,
 * pending then waited on again; and `ide/saveFile`.
 */

import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { test, TestContext } from 'node:test';

import { Code, findSymbol } from '../core';
import {
  CodeActionKind,
  FakeDocument,
  TabInputText,
  Location,
  MarkdownString,
  Range,
  Uri,
  WorkspaceEdit,
  editorState,
  extensionContext,
  installFakeVscode,
  langServer,
  settings,
  ui,
  vscode,
} from './fakeVscode';
import { RpcClient, tempDir, writeTree } from './helpers';

installFakeVscode();
const extension = require('../extension') as typeof import('../extension');

const TOKEN = 'lang-test-token';
const A = "import { answer } from './b';\nconsole.log(answer, answer);\n";
const B = 'export const answer = 42;\n';

/** An editor on one folder with `src/a.ts` using `answer` of `src/b.ts`, connected. */
async function connected(t: TestContext, extra: Record<string, unknown> = {}): Promise<{ app: string; client: RpcClient }> {
  const root = await tempDir(t);
  const app = path.join(root, 'app');
  await writeTree(app, { 'src/a.ts': A, 'src/b.ts': B, 'notes.txt': '' });
  await writeTree(root, { 'secret.txt': 'outside' });
  process.env.XDG_RUNTIME_DIR = await tempDir(t, 'ide-bridge-xdg-');
  for (const key of Object.keys(settings)) {
    delete settings[key];
  }
  Object.assign(settings, { port: 0, token: TOKEN, ...extra });
  Object.assign(ui, { messages: [], output: [], opened: [], diffs: [], answer: () => undefined, onMessage: undefined });
  Object.assign(editorState, { documents: [], tabs: [], active: undefined });
  Object.assign(langServer, {
    hover: () => [],
    definition: () => [],
    references: () => [],
    documentSymbols: () => [],
    workspaceSymbols: () => [],
    rename: () => undefined,
    applied: [],
  });
  vscode.workspace.workspaceFolders = [{ uri: Uri.file(app), name: 'app', index: 0 }];
  t.after(() => extension.deactivate());
  await extension.activate(extensionContext() as never);
  const serving = ui.output.find((line) => /serving .* on ws:\/\/127\.0\.0\.1:\d+/.test(line)) ?? '';
  const port = Number(/:(\d+)$/.exec(serving)?.[1]);
  const client = await RpcClient.connect(t, `ws://127.0.0.1:${port}`, { token: TOKEN });
  return { app, client };
}

/** A language server that is up: a hover for everything. */
function up(): void {
  langServer.hover = () => [{ contents: [new MarkdownString('```typescript\nconst answer: 42\n```'), 'The answer.'] }];
}

test('findSymbol finds whole words, picks by column, and falls back to substrings', () => {
  assert.deepEqual(findSymbol('console.log(answer, answer);', 'answer'), { column: 13, occurrences: 2 });
  assert.deepEqual(findSymbol('console.log(answer, answer);', 'answer', 20), { column: 21, occurrences: 2 });
  assert.deepEqual(findSymbol('console.log(answer, answer);', 'answer', 15), { column: 13, occurrences: 2 });
  assert.deepEqual(findSymbol('console.log(answer, answer);', 'answer', 99), { column: 21, occurrences: 2 });
  // `answers` and `x_answer` are other names; a whole word wins over them.
  assert.deepEqual(findSymbol('answers(x_answer, answer)', 'answer'), { column: 19, occurrences: 1 });
  assert.deepEqual(findSymbol('answers()', 'answer'), { column: 1, occurrences: 1 });
  // Columns count UTF-16 code units, as editors do.
  assert.deepEqual(findSymbol('const 𝒳 = 1; f(𝒳)', '𝒳', 12), { column: 17, occurrences: 2 });
  assert.deepEqual(findSymbol('a + b', '+'), { column: 3, occurrences: 1 });
  assert.equal(findSymbol('nothing here', 'answer'), undefined);
});

test('lang/definition finds the column from the symbol, names workspace files with their line, externals by name', async (t) => {
  const { app, client } = await connected(t);
  const asked: { uri: string; line: number; character: number }[] = [];
  let starting = 2;
  langServer.hover = (uri, position) => {
    asked.push({ uri: uri.fsPath, line: position.line, character: position.character });
    return starting-- > 0 ? [] : [{ contents: [new MarkdownString('```typescript\nconst answer: 42\n```')] }];
  };
  langServer.definition = () => [
    new Location(Uri.file(path.join(app, 'src/b.ts')), new Range(0, 13, 0, 19)),
    { targetUri: Uri.file('/usr/lib/node_modules/typescript/lib/lib.es5.d.ts'), targetRange: new Range(10, 0, 12, 1), targetSelectionRange: new Range(10, 4, 10, 9) },
  ];
  const result = await client.call('lang/definition', { path: 'src/a.ts', line: 2, symbol: 'answer', column: 20, waitMs: 5000 });
  assert.deepEqual(result, {
    resolved: { line: 2, column: 21, occurrences: 2, language: 'typescript' },
    locations: [
      { path: 'src/b.ts', line: 1, column: 14, endLine: 1, endColumn: 20, text: 'export const answer = 42;' },
      { external: 'lib.es5.d.ts', line: 11, column: 5, endLine: 11, endColumn: 10 },
    ],
    truncated: 0,
    loading: false,
  });
  // Asked at the second occurrence (0-based for the editor), after waiting out the start.
  assert.deepEqual(asked.at(-1), { uri: path.join(app, 'src/a.ts'), line: 1, character: 20 });
  assert.equal(asked.length, 3, 'asked until the language server answered');
});

test('a language server that never answers within the wait is loading, not "nothing found"', async (t) => {
  const { client } = await connected(t);
  langServer.references = () => [];
  let asked = 0;
  langServer.hover = () => {
    asked += 1;
    return [];
  };
  const result = await client.call('lang/references', { path: 'src/a.ts', line: 2, symbol: 'answer', waitMs: 600 });
  assert.equal(result.loading, true);
  assert.deepEqual(result.locations, []);
  assert.ok(asked > 1, 'the language server was asked again while the wait lasted');
  const hover = await client.call('lang/hover', { path: 'src/a.ts', line: 2, symbol: 'answer', waitMs: 0 });
  assert.deepEqual(hover, { resolved: { line: 2, column: 13, occurrences: 2, language: 'typescript' }, contents: [], loading: true });
  // TypeScript's own "(loading...)" hover is loading too.
  langServer.hover = () => [{ contents: ['(loading...)'] }];
  assert.equal((await client.call('lang/hover', { path: 'src/a.ts', line: 2, symbol: 'answer', waitMs: 300 })).loading, true);
  // Once up, its silence is an answer: no wait, no "loading".
  up();
  await client.call('lang/hover', { path: 'src/a.ts', line: 2, symbol: 'answer' });
  langServer.hover = () => [];
  const none = await client.call('lang/references', { path: 'src/a.ts', line: 1, symbol: 'import', waitMs: 20000 });
  assert.deepEqual({ loading: none.loading, locations: none.locations }, { loading: false, locations: [] });
});

test('a language server that has just come up is asked until its answer settles (a project still loading)', async (t) => {
  const { app, client } = await connected(t);
  up();
  const a = Uri.file(path.join(app, 'src/a.ts'));
  const b = Uri.file(path.join(app, 'src/b.ts'));
  // TypeScript's first answer knows one file; the project's comes on the next asks.
  let asks = 0;
  langServer.references = () => {
    asks += 1;
    return asks === 1 ? [new Location(b, new Range(0, 13, 0, 19))] : [new Location(b, new Range(0, 13, 0, 19)), new Location(a, new Range(1, 12, 1, 18))];
  };
  const first = await client.call('lang/references', { path: 'src/b.ts', line: 1, symbol: 'answer' });
  assert.equal(first.locations.length, 2, JSON.stringify(first));
  assert.equal(asks, 3, 'asked until two answers agreed');
  // Warm now: asked once.
  asks = 10;
  const warm = await client.call('lang/references', { path: 'src/b.ts', line: 1, symbol: 'answer' });
  assert.equal(warm.locations.length, 2);
  assert.equal(asks, 11);
});

test('lang/references by file and line, without the declaration when asked; bad positions refused', async (t) => {
  const { app, client } = await connected(t);
  up();
  const a = Uri.file(path.join(app, 'src/a.ts'));
  const b = Uri.file(path.join(app, 'src/b.ts'));
  langServer.definition = () => [new Location(b, new Range(0, 13, 0, 19))];
  langServer.references = () => [new Location(a, new Range(1, 20, 1, 26)), new Location(b, new Range(0, 13, 0, 19)), new Location(a, new Range(1, 12, 1, 18)), new Location(a, new Range(0, 9, 0, 15))];
  const all = await client.call('lang/references', { path: 'src/b.ts', line: 1, symbol: 'answer' });
  assert.deepEqual(all.locations.map((l: { path: string; line: number; column: number }) => `${l.path}:${l.line}:${l.column}`), ['src/a.ts:1:10', 'src/a.ts:2:13', 'src/a.ts:2:21', 'src/b.ts:1:14']);
  assert.equal(all.locations[1].text, 'console.log(answer, answer);');
  const uses = await client.call('lang/references', { path: 'src/b.ts', line: 1, symbol: 'answer', includeDeclaration: false });
  assert.equal(uses.locations.length, 3);

  const missing = await client.request('lang/references', { path: 'src/b.ts', line: 1, symbol: 'question' });
  assert.equal(missing.error?.code, Code.INVALID_PARAMS);
  assert.match(missing.error?.message ?? '', /`question` does not occur on line 1 of `src\/b.ts` \(the line reads: `export const answer = 42;`\)/);
  const past = await client.request('lang/definition', { path: 'src/b.ts', line: 9, symbol: 'answer' });
  assert.match(past.error?.message ?? '', /has 2 lines; line 9 is past its end/);
  for (const bad of ['../secret.txt', '/etc/passwd']) {
    assert.equal((await client.request('lang/hover', { path: bad, line: 1, symbol: 'x' })).error?.code, Code.ACCESS_DENIED, bad);
  }
  assert.equal((await client.request('lang/hover', { path: 'src/nope.ts', line: 1, symbol: 'x' })).error?.code, Code.NOT_FOUND);
  assert.equal((await client.request('lang/hover', { path: 'src', line: 1, symbol: 'x' })).error?.code, Code.INVALID_PARAMS);
  assert.equal((await client.request('lang/hover', { path: 'src/a.ts', line: 0, symbol: 'x' })).error?.code, Code.INVALID_PARAMS);
  assert.equal((await client.request('lang/hover', { path: 'src/a.ts', line: 1, symbol: 'a\nb' })).error?.code, Code.INVALID_PARAMS);
  // Plain text has no language server: said at once, not waited for.
  const plain = await client.request('lang/symbols', { path: 'notes.txt' });
  assert.equal(plain.error?.code, Code.INVALID_PARAMS);
  assert.match(plain.error?.message ?? '', /`notes.txt` is plain text to the editor: no language server reads it/);
});

test('lang/symbols: a file outline, nested; a workspace search without what lies outside', async (t) => {
  const { app, client } = await connected(t);
  langServer.documentSymbols = () => [
    {
      name: 'Greeter',
      kind: 4,
      detail: '',
      range: new Range(0, 0, 8, 1),
      selectionRange: new Range(0, 6, 0, 13),
      children: [{ name: 'greet', kind: 5, detail: '(): string', range: new Range(1, 2, 3, 3), selectionRange: new Range(1, 2, 1, 7), children: [] }],
    },
  ];
  const outline = await client.call('lang/symbols', { path: 'src/a.ts' });
  assert.deepEqual(outline, {
    symbols: [{ name: 'Greeter', kind: 'class', line: 1, endLine: 9, children: [{ name: 'greet', kind: 'method', detail: '(): string', line: 2, endLine: 4 }] }],
    truncated: 0,
    loading: false,
    language: 'typescript',
  });
  langServer.workspaceSymbols = (query) => [
    { name: `${query}er`, kind: 4, containerName: 'a', location: new Location(Uri.file(path.join(app, 'src/a.ts')), new Range(0, 0, 8, 1)) },
    { name: 'GreeterLib', kind: 4, containerName: '', location: new Location(Uri.file('/usr/lib/x.d.ts'), new Range(0, 0, 1, 1)) },
  ];
  const found = await client.call('lang/symbols', { query: 'Greet' });
  assert.deepEqual(found.symbols, [{ name: 'Greeter', kind: 'class', container: 'a', path: 'src/a.ts', line: 1, endLine: 9 }]);
  assert.equal((await client.request('lang/symbols', {})).error?.code, Code.INVALID_PARAMS);
  assert.equal((await client.request('lang/symbols', { path: 'src/a.ts', query: 'x' })).error?.code, Code.INVALID_PARAMS);
  // A file with no symbols yet and a language server never heard from: loading.
  langServer.documentSymbols = () => [];
  const fresh = await client.call('lang/symbols', { path: 'src/b.ts', waitMs: 300 });
  assert.equal(fresh.loading, false, 'typescript answered before: an empty outline is an answer');
});

test('lang/rename previews per file, applies as one edit and saves; never edits outside the workspace', async (t) => {
  const { app, client } = await connected(t);
  up();
  const a = Uri.file(path.join(app, 'src/a.ts'));
  const b = Uri.file(path.join(app, 'src/b.ts'));
  langServer.rename = (_uri, _position, newName) => {
    const edit = new WorkspaceEdit();
    edit.replace(a, new Range(0, 9, 0, 15), newName);
    edit.replace(a, new Range(1, 12, 1, 18), newName);
    edit.replace(a, new Range(1, 20, 1, 26), newName);
    edit.replace(b, new Range(0, 13, 0, 19), newName);
    return edit;
  };
  const preview = await client.call('lang/rename', { path: 'src/b.ts', line: 1, symbol: 'answer', newName: 'reply' });
  assert.equal(preview.applied, false);
  assert.deepEqual(
    preview.files.map((f: { path: string; edits: number; after: string }) => [f.path, f.edits, f.after]),
    [
      ['src/a.ts', 3, "import { reply } from './b';\nconsole.log(reply, reply);\n"],
      ['src/b.ts', 1, 'export const reply = 42;\n'],
    ],
  );
  assert.equal(preview.files[0].before, A);
  assert.equal(langServer.applied.length, 0, 'a preview applies nothing');
  assert.equal(await fs.readFile(path.join(app, 'src/a.ts'), 'utf8'), A);

  const applied = await client.call('lang/rename', { path: 'src/b.ts', line: 1, symbol: 'answer', newName: 'reply', apply: true });
  assert.equal(applied.applied, true);
  assert.equal(langServer.applied.length, 1, 'one workspace edit');
  assert.equal(await fs.readFile(path.join(app, 'src/a.ts'), 'utf8'), "import { reply } from './b';\nconsole.log(reply, reply);\n");
  assert.equal(await fs.readFile(path.join(app, 'src/b.ts'), 'utf8'), 'export const reply = 42;\n');

  // A rename reaching outside the workspace is refused whole.
  langServer.rename = (_uri, _position, newName) => {
    const edit = new WorkspaceEdit();
    edit.replace(b, new Range(0, 13, 0, 18), newName);
    edit.replace(Uri.file(path.join(path.dirname(app), 'secret.txt')), new Range(0, 0, 0, 7), newName);
    return edit;
  };
  const outside = await client.request('lang/rename', { path: 'src/b.ts', line: 1, symbol: 'reply', newName: 'x', apply: true });
  assert.equal(outside.error?.code, Code.ACCESS_DENIED);
  assert.match(outside.error?.message ?? '', /outside the workspace \(secret\.txt\).*nothing was changed/);
  assert.equal(langServer.applied.length, 1);
  langServer.rename = () => {
    throw new Error('You cannot rename this element.');
  };
  const refused = await client.request('lang/rename', { path: 'src/b.ts', line: 1, symbol: 'reply', newName: 'x' });
  assert.equal(refused.error?.code, Code.INVALID_PARAMS);
  assert.match(refused.error?.message ?? '', /cannot rename `reply` there: You cannot rename this element/);
});

test('lang/rename with apply is refused on a read-only workspace before anything is asked', async (t) => {
  const { client } = await connected(t, { readOnly: true });
  const reply = await client.request('lang/rename', { path: 'src/b.ts', line: 1, symbol: 'answer', newName: 'x', apply: true });
  assert.equal(reply.error?.code, Code.READ_ONLY);
});

/** The diff view `ide/openDiff` opened last: its right side's document, once it is there. */
async function proposal(count: number): Promise<FakeDocument> {
  for (let i = 0; i < 200 && ui.diffs.length < count; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(ui.diffs.length, count, 'the diff view opened');
  const right = ui.diffs[count - 1].right;
  assert.match(right, /^ide-bridge-change:/);
  const tab = editorState.tabs.find((t) => 'modified' in t.input && t.input.modified.toString() === right);
  assert.ok(tab !== undefined, 'a diff tab is open');
  return (await vscode.workspace.openTextDocument((tab.input as { modified: Uri }).modified)) as FakeDocument;
}

test('ide/openDiff: accepted with the user edits written, rejected writes nothing, closing rejects', async (t) => {
  const { app, client } = await connected(t);
  // A new file, edited by the user in the diff, then accepted with the title bar's ✓.
  const waiting = client.call('ide/openDiff', { path: 'src/new.ts', newText: 'let x = 1;\n', waitMs: 5000 });
  const doc = await proposal(1);
  assert.equal(ui.diffs[0].leftText, '', 'a new file is compared with nothing');
  assert.equal(ui.diffs[0].rightText, 'let x = 1;\n');
  doc.text = 'let x = 2; // the user\n';
  doc.isDirty = true;
  await vscode.commands.executeCommand('ideBridge.acceptChange');
  assert.deepEqual(await waiting, { path: 'src/new.ts', status: 'accepted', finalText: 'let x = 2; // the user\n', userEdited: true, created: true, reused: false });
  assert.equal(await fs.readFile(path.join(app, 'src/new.ts'), 'utf8'), 'let x = 2; // the user\n');
  assert.equal(editorState.tabs.length, 0, 'the diff closed');

  // An existing file, rejected with the ✕: nothing written.
  const rejected = client.call('ide/openDiff', { path: 'src/b.ts', newText: 'export const answer = 43;\n' });
  await proposal(2);
  assert.equal(ui.diffs[1].left, Uri.file(path.join(app, 'src/b.ts')).toString(), 'compared with the file itself');
  await vscode.commands.executeCommand('ideBridge.rejectChange');
  assert.equal((await rejected).status, 'rejected');
  assert.equal(await fs.readFile(path.join(app, 'src/b.ts'), 'utf8'), B);

  // Saving the proposal (Ctrl+S) accepts it as it is.
  const saved = client.call('ide/openDiff', { path: 'src/b.ts', newText: 'export const answer = 44;\n' });
  await (await proposal(3)).save();
  assert.deepEqual(await saved, { path: 'src/b.ts', status: 'accepted', finalText: 'export const answer = 44;\n', userEdited: false, created: false, reused: false });
  assert.equal(await fs.readFile(path.join(app, 'src/b.ts'), 'utf8'), 'export const answer = 44;\n');

  // Closing the tab rejects.
  const closed = client.call('ide/openDiff', { path: 'src/a.ts', newText: 'x' });
  await proposal(4);
  await vscode.window.tabGroups.close(editorState.tabs[0]);
  assert.equal((await closed).status, 'rejected');
  assert.equal(await fs.readFile(path.join(app, 'src/a.ts'), 'utf8'), A);
});

test('ide/openDiff: pending when the wait runs out, the same proposal waited on again, closeDiffs withdraws', async (t) => {
  const { app, client } = await connected(t);
  const first = await client.call('ide/openDiff', { path: 'src/b.ts', newText: 'export const answer = 1;\n', waitMs: 50 });
  assert.deepEqual(first, { path: 'src/b.ts', status: 'pending', userEdited: false, created: false, reused: false });
  assert.equal(await fs.readFile(path.join(app, 'src/b.ts'), 'utf8'), B, 'pending writes nothing');
  // The user accepts while nobody waits: written then, reported to the next call.
  await proposal(1);
  await vscode.commands.executeCommand('ideBridge.acceptChange');
  for (let i = 0; i < 100 && (await fs.readFile(path.join(app, 'src/b.ts'), 'utf8')) === B; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(await fs.readFile(path.join(app, 'src/b.ts'), 'utf8'), 'export const answer = 1;\n');
  const again = await client.call('ide/openDiff', { path: 'src/b.ts', newText: 'export const answer = 1;\n', waitMs: 50 });
  assert.equal(again.status, 'accepted');
  assert.equal(again.reused, true);
  assert.equal(ui.diffs.length, 1, 'no second diff view');

  // Pending, then withdrawn.
  const later = await client.call('ide/openDiff', { path: 'src/c.ts', newText: 'c', waitMs: 10 });
  assert.equal(later.status, 'pending');
  await proposal(2);
  assert.deepEqual(await client.call('ide/closeDiffs'), { closed: ['src/c.ts'] });
  assert.equal(editorState.tabs.length, 0);
  await assert.rejects(fs.stat(path.join(app, 'src/c.ts')), 'nothing written');
  assert.deepEqual(await client.call('ide/closeDiffs'), { closed: [] });
  // A different proposal for the same file replaces the open one.
  await client.call('ide/openDiff', { path: 'src/a.ts', newText: 'one', waitMs: 10 });
  await client.call('ide/openDiff', { path: 'src/a.ts', newText: 'two', waitMs: 10 });
  assert.equal(editorState.tabs.length, 1, 'the first view was closed');
  assert.deepEqual(await client.call('ide/closeDiffs'), { closed: ['src/a.ts'] });
});

test('ide/openDiff refuses escapes, .git, directories, oversized text and a read-only workspace', async (t) => {
  const { client } = await connected(t);
  for (const [params, code] of [
    [{ path: '../secret.txt', newText: 'x' }, Code.ACCESS_DENIED],
    [{ path: '/etc/passwd', newText: 'x' }, Code.ACCESS_DENIED],
    [{ path: '.git/config', newText: 'x' }, Code.ACCESS_DENIED],
    [{ path: 'src', newText: 'x' }, Code.INVALID_PARAMS],
    [{ path: 'big.ts', newText: 'x'.repeat(200_000) }, Code.FILE_TOO_LARGE],
    [{ path: 'a.ts', newText: 'x', waitMs: 600_001 }, Code.INVALID_PARAMS],
  ] as const) {
    assert.equal((await client.request('ide/openDiff', params)).error?.code, code, JSON.stringify(params).slice(0, 80));
  }
  assert.equal(ui.diffs.length, 0, 'nothing was shown');
});

test('ide/openDiff with no editor window to show the diff is refused quickly, nothing written', async (t) => {
  const { app, client } = await connected(t);
  ui.windowGone = true;
  t.after(() => {
    ui.windowGone = false;
  });
  const reply = await client.request('ide/openDiff', { path: 'src/b.ts', newText: 'x', waitMs: 60000 });
  assert.equal(reply.error?.code, Code.UNAVAILABLE);
  assert.match(reply.error?.message ?? '', /`src\/b.ts`.*window.*nothing was/);
  assert.equal(ui.diffs.length, 0);
  assert.equal(await fs.readFile(path.join(app, 'src/b.ts'), 'utf8'), B);
});

test('ide/openDiff and ide/saveFile are refused on a read-only workspace', async (t) => {
  const { client } = await connected(t, { readOnly: true });
  assert.equal((await client.request('ide/openDiff', { path: 'src/a.ts', newText: 'x' })).error?.code, Code.READ_ONLY);
  assert.equal((await client.request('ide/saveFile', { path: 'src/a.ts' })).error?.code, Code.READ_ONLY);
});

test('ide/saveFile writes the unsaved buffer; a clean or unopened file has nothing to save', async (t) => {
  const { app, client } = await connected(t);
  const doc = (await vscode.workspace.openTextDocument(Uri.file(path.join(app, 'src/a.ts')))) as FakeDocument;
  doc.text = 'typed by the user\n';
  doc.isDirty = true;
  assert.deepEqual(await client.call('ide/saveFile', { path: 'src/a.ts' }), { path: 'src/a.ts', saved: true, open: true });
  assert.equal(await fs.readFile(path.join(app, 'src/a.ts'), 'utf8'), 'typed by the user\n');
  assert.deepEqual(await client.call('ide/saveFile', { path: 'src/a.ts' }), { path: 'src/a.ts', saved: false, open: true });
  assert.deepEqual(await client.call('ide/saveFile', { path: 'src/b.ts' }), { path: 'src/b.ts', saved: false, open: false });
  assert.equal((await client.request('ide/saveFile', { path: '../secret.txt' })).error?.code, Code.ACCESS_DENIED);
  assert.equal((await client.request('ide/saveFile', { path: 'missing.ts' })).error?.code, Code.NOT_FOUND);
});

test('version 4: lang/implementations and lang/callHierarchy name workspace places with their line, the rest by name', async (t) => {
  const { app, client } = await connected(t);
  up();
  const a = Uri.file(path.join(app, 'src/a.ts'));
  const b = Uri.file(path.join(app, 'src/b.ts'));
  langServer.implementations = () => [new Location(b, new Range(0, 13, 0, 19))];
  const found = await client.call('lang/implementations', { path: 'src/a.ts', line: 2, symbol: 'answer' });
  assert.deepEqual(found.locations, [{ path: 'src/b.ts', line: 1, column: 14, endLine: 1, endColumn: 20, text: 'export const answer = 42;' }]);

  const item = (name: string, uri: Uri, line: number) => ({ name, kind: 11, uri, range: new Range(line, 0, line, 9), selectionRange: new Range(line, 0, line, 9) });
  const root = item('answer', b, 0);
  const main = item('main', a, 1);
  const outside = item('lib', Uri.file('/usr/lib/x.d.ts'), 4);
  langServer.prepareCallHierarchy = () => [root];
  langServer.incomingCalls = (of) =>
    of === root
      ? [{ from: main, fromRanges: [new Range(1, 12, 1, 18), new Range(1, 20, 1, 26)] }]
      : of === main
        ? [{ from: outside, fromRanges: [new Range(4, 0, 4, 3)] }, { from: root, fromRanges: [new Range(0, 0, 0, 1)] }]
        : [];
  const callers = await client.call('lang/callHierarchy', { path: 'src/b.ts', line: 1, symbol: 'answer', direction: 'incoming', depth: 3 });
  assert.equal(callers.found, true);
  assert.deepEqual(
    callers.items.map((i: { relation: string; name: string; path?: string; external?: string; line: number; text?: string; depth: number; of?: string }) => [i.relation, i.name, i.path ?? i.external, i.line, i.text, i.depth, i.of]),
    [
      ['caller', 'main', 'src/a.ts', 2, 'console.log(answer, answer);', 1, undefined],
      ['caller', 'main', 'src/a.ts', 2, 'console.log(answer, answer);', 1, undefined],
      ['caller', 'lib', 'x.d.ts', 5, undefined, 2, 'main'],
      ['caller', 'answer', 'src/b.ts', 1, 'export const answer = 42;', 2, 'main'],
    ],
    'each call where it is; an item followed once (answer is not followed again)',
  );
  const bad = await client.request('lang/callHierarchy', { path: 'src/b.ts', line: 1, symbol: 'answer', direction: 'subtypes', depth: 1 });
  assert.equal(bad.error?.code, Code.INVALID_PARAMS);
  langServer.prepareCallHierarchy = () => [];
  const none = await client.call('lang/callHierarchy', { path: 'src/b.ts', line: 1, symbol: 'answer', direction: 'outgoing', depth: 1 });
  assert.deepEqual([none.found, none.items], [false, []]);
});

test('version 4: code actions have ids stable while the file is, the diagnostic picks the fix, and one is previewed then applied unsaved', async (t) => {
  const { app, client } = await connected(t);
  up();
  langServer.documentSymbols = () => [{ name: 'x', kind: 13, range: new Range(0, 0, 0, 1), selectionRange: new Range(0, 0, 0, 1), children: [] }];
  const a = Uri.file(path.join(app, 'src/a.ts'));
  editorState.tabs.push({ input: new TabInputText(a), isActive: false, isDirty: false });
  editorState.diagnostics.set(a.fsPath, [{ range: new Range(1, 0, 1, 5), severity: 0, code: 2304, message: "Cannot find name 'x'." }]);
  langServer.codeActions = () => {
    const edit = new WorkspaceEdit();
    edit.replace(a, new Range(0, 0, 0, 0), "import { x } from './x';\n");
    return [
      { title: 'Add import from "./x"', kind: CodeActionKind.QuickFix, isPreferred: true, edit },
      { title: 'Organize imports', kind: new CodeActionKind('source.organizeImports'), command: { command: 'noop', title: 'Organize imports' } },
    ];
  };
  const listed = await client.call('lang/codeActions', { path: 'src/a.ts', line: 2 });
  const again = await client.call('lang/codeActions', { path: 'src/a.ts', line: 2 });
  assert.deepEqual(listed, again, 'the same ids for the same file');
  assert.equal(listed.actions.length, 2);
  const [fix, organize] = listed.actions;
  assert.match(fix.id, /^[0-9a-f]{8}$/);
  assert.deepEqual([fix.title, fix.kind, fix.preferred, fix.edit, fix.command, fix.fixes], ['Add import from "./x"', 'quickfix', true, true, false, ["Cannot find name 'x'."]]);
  assert.deepEqual([organize.edit, organize.command], [false, true]);
  const only = await client.call('lang/codeActions', { path: 'src/a.ts', line: 2, diagnostic: '2304' });
  assert.deepEqual(only.actions.map((x: { id: string }) => x.id), [fix.id]);

  const preview = await client.call('lang/applyCodeAction', { path: 'src/a.ts', line: 2, id: fix.id });
  assert.equal(preview.applied, false);
  assert.equal(preview.files[0].after, `import { x } from './x';\n${A}`);
  assert.equal(langServer.applied.length, 0, 'a preview applies nothing');
  const applied = await client.call('lang/applyCodeAction', { path: 'src/a.ts', line: 2, id: fix.id, apply: true });
  assert.deepEqual([applied.applied, applied.saved], [true, false]);
  assert.equal(langServer.applied.length, 1);
  assert.equal(await fs.readFile(path.join(app, 'src/a.ts'), 'utf8'), A, 'left unsaved');
  const gone = await client.request('lang/applyCodeAction', { path: 'src/a.ts', line: 2, id: '00000000' });
  assert.equal(gone.error?.code, Code.NOT_FOUND);
  assert.match(gone.error?.message ?? '', /list them again with code_actions/);
});

test('version 4: lang/typeHierarchy gives supertypes and subtypes level by level, or says there is none', async (t) => {
  const { app, client } = await connected(t);
  up();
  const a = Uri.file(path.join(app, 'src/a.ts'));
  const b = Uri.file(path.join(app, 'src/b.ts'));
  const item = (name: string, uri: Uri, line: number) => ({ name, kind: 4, uri, range: new Range(line, 0, line, 9), selectionRange: new Range(line, 0, line, 9) });
  const answer = item('Answer', b, 0);
  const base = item('Base', a, 0);
  const child = item('Child', a, 1);
  const grandchild = item('Grandchild', a, 1);
  langServer.prepareTypeHierarchy = () => [answer];
  langServer.supertypes = (of) => (of === answer ? [base] : []);
  langServer.subtypes = (of) => (of === answer ? [child] : of === child ? [grandchild] : []);
  const both = await client.call('lang/typeHierarchy', { path: 'src/b.ts', line: 1, symbol: 'answer', direction: 'both', depth: 2 });
  assert.deepEqual(
    both.items.map((i: { relation: string; name: string; path: string; line: number; depth: number; of?: string }) => [i.relation, i.name, i.path, i.line, i.depth, i.of]),
    [
      ['supertype', 'Base', 'src/a.ts', 1, 1, undefined],
      ['subtype', 'Child', 'src/a.ts', 2, 1, undefined],
      ['subtype', 'Grandchild', 'src/a.ts', 2, 2, 'Child'],
    ],
  );
  const shallow = await client.call('lang/typeHierarchy', { path: 'src/b.ts', line: 1, symbol: 'answer', direction: 'subtypes', depth: 1 });
  assert.deepEqual(shallow.items.map((i: { name: string }) => i.name), ['Child']);
  const calls = await client.request('lang/typeHierarchy', { path: 'src/b.ts', line: 1, symbol: 'answer', direction: 'incoming', depth: 1 });
  assert.equal(calls.error?.code, Code.INVALID_PARAMS);
  langServer.prepareTypeHierarchy = () => [];
  const none = await client.call('lang/typeHierarchy', { path: 'src/b.ts', line: 1, symbol: 'answer', direction: 'both', depth: 1 });
  assert.deepEqual([none.found, none.items, none.loading], [false, [], false]);
});

test('version 4: a code action command runs only after the user allows it, never read-only; its preview names it', async (t) => {
  const ran: string[] = [];
  const setup = async (extra: Record<string, unknown>) => {
    const { app, client } = await connected(t, extra);
    up();
    langServer.documentSymbols = () => [{ name: 'x', kind: 13, range: new Range(0, 0, 0, 1), selectionRange: new Range(0, 0, 0, 1), children: [] }];
    const a = Uri.file(path.join(app, 'src/a.ts'));
    editorState.tabs.push({ input: new TabInputText(a), isActive: false, isDirty: false });
    vscode.commands.registerCommand('test.sendSequence', (...args: unknown[]) => void ran.push(JSON.stringify(args)));
    langServer.codeActions = () => [
      { title: 'Type into the terminal', kind: CodeActionKind.QuickFix, command: { command: 'test.sendSequence', title: 'x', arguments: ['rm -rf ~\n'] } },
    ];
    const listed = await client.call('lang/codeActions', { path: 'src/a.ts', line: 1 });
    return { client, id: listed.actions[0].id as string };
  };
  // Read-only: refused, nothing run, nobody asked.
  {
    const { client, id } = await setup({ readOnly: true });
    const refused = await client.request('lang/applyCodeAction', { path: 'src/a.ts', line: 1, id, apply: true });
    assert.equal(refused.error?.code, Code.READ_ONLY);
    assert.deepEqual(ran, []);
    assert.equal(ui.messages.filter((m) => m.modal).length, 0);
    await extension.deactivate();
  }
  // The preview names the command and runs nothing; apply asks (a modal); Cancel runs nothing.
  {
    const { client, id } = await setup({});
    const preview = await client.call('lang/applyCodeAction', { path: 'src/a.ts', line: 1, id });
    assert.deepEqual([preview.command, preview.commandName, preview.ran, preview.applied], [true, 'test.sendSequence', false, false]);
    assert.deepEqual(ran, [], 'a preview runs nothing');
    ui.answer = () => undefined;
    const declined = await client.request('lang/applyCodeAction', { path: 'src/a.ts', line: 1, id, apply: true });
    assert.equal(declined.error?.code, Code.ACCESS_DENIED);
    assert.deepEqual(ran, [], 'declined: not run');
    const asked = ui.messages.filter((m) => m.modal);
    assert.equal(asked.length, 1);
    assert.match(asked[0].text, /test\.sendSequence/);
    assert.match(asked[0].text, /Type into the terminal/);
    ui.answer = (_text, items) => (items.includes('Allow') ? 'Allow' : undefined);
    const allowed = await client.call('lang/applyCodeAction', { path: 'src/a.ts', line: 1, id, apply: true });
    assert.deepEqual([allowed.ran, allowed.commandName], [true, 'test.sendSequence']);
    assert.deepEqual(ran, [JSON.stringify(['rm -rf ~\n'])]);
  }
});
