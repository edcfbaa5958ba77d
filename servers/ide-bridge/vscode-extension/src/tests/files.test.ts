/**
 * `fs/list`, `fs/read`, `fs/write` through a real WebSocket, on both workspace implementations
 * (Node's `fs`, and the `vscode.workspace.fs` adapter over a stand-in): `.gitignore` and hidden
 * files, the size limit, binary files, read-only mode, atomic writes, and confinement (`..`,
 * absolute paths, symlinks out).
 */

import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';

import { Code } from '../core';
import { IMPLEMENTATIONS, RpcClient, startHost, tempDir, writeTree } from './helpers';

for (const impl of IMPLEMENTATIONS) {
  describe(`on ${impl.name}`, () => {
    const serve = async (t: Parameters<typeof tempDir>[0], root: string, options = {}) => {
      const host = await startHost(t, root, { workspace: impl.make(), ...options });
      return { ...host, client: await RpcClient.connect(t, host.url) };
    };

    test('fs/list leaves out .gitignored and hidden paths, also outside a git repository', async (t) => {
      const root = await tempDir(t);
      await writeTree(root, {
        '.gitignore': 'target/\n*.log\n!keep.log\n/only-top.txt\n',
        'a.txt': 'x',
        'keep.log': 'x',
        'debug.log': 'x',
        'only-top.txt': 'x',
        'src/main.rs': 'x',
        'src/only-top.txt': 'x',
        'src/deep/x.rs': 'x',
        'src/deep/.gitignore': '*.tmp\n',
        'src/deep/y.tmp': 'x',
        'src/z.tmp': 'x',
        'target/out': 'x',
        '.env': 'x',
        '.git/config': 'x',
        '.hidden/inside.txt': 'x',
        'docs/.secret': 'x',
      });
      await fs.mkdir(path.join(root, 'empty'));
      const { client } = await serve(t, root);

      const all = await client.call('fs/list', { recursive: true });
      assert.deepEqual(all, {
        files: ['a.txt', 'keep.log', 'src/deep/x.rs', 'src/main.rs', 'src/only-top.txt', 'src/z.tmp'],
        truncated: false,
      });
      const top = await client.call('fs/list', { recursive: false });
      assert.deepEqual(top.files, ['a.txt', 'docs/', 'empty/', 'keep.log', 'src/']);
      const sub = await client.call('fs/list', { path: 'src' });
      assert.deepEqual(sub.files, ['src/deep/', 'src/main.rs', 'src/only-top.txt', 'src/z.tmp']);
      const deep = await client.call('fs/list', { path: './src/deep', recursive: true });
      assert.deepEqual(deep.files, ['src/deep/x.rs'], 'the ancestors\' .gitignore files apply too');
      // git's semantics: what is below an ignored directory is ignored, even when it is listed by name.
      assert.deepEqual(await client.call('fs/list', { path: 'target', recursive: true }), { files: [], truncated: false });
      assert.equal((await client.call('fs/read', { path: 'target/out' })).content, 'x', 'ignored files can still be read');
      const aliased = await client.call('fs/listFiles', { recursive: true });
      assert.deepEqual(aliased.files, all.files);

      const notADir = await client.request('fs/list', { path: 'a.txt' });
      assert.equal(notADir.error?.code, Code.INVALID_PARAMS);
      const missing = await client.request('fs/list', { path: 'nope' });
      assert.equal(missing.error?.code, Code.NOT_FOUND);
      assert.equal(missing.error?.data?.code, 'NOT_FOUND');
    });

    test('fs/list stops at the entry cap and says so', async (t) => {
      const root = await tempDir(t);
      await writeTree(root, Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}`, 'x'])));
      const { client } = await serve(t, root, { maxListEntries: 4 });
      const listed = await client.call('fs/list', { recursive: true });
      assert.deepEqual(listed, { files: ['f0', 'f1', 'f2', 'f3'], truncated: true });
    });

    test('fs/read returns the exact text and refuses large, binary, missing and directory paths', async (t) => {
      const root = await tempDir(t);
      await writeTree(root, {
        'ok.txt': 'héllo\r\nno newline at end',
        'bom.txt': '\uFEFFwith BOM\n',
        'max.txt': 'x'.repeat(100),
        'big.txt': 'x'.repeat(101),
        'nul.bin': Buffer.from([0x61, 0x00, 0x62]),
        'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9]),
        '.env': 'SECRET=1\n',
        'dir/inner.txt': 'x',
      });
      const { client } = await serve(t, root, { maxFileSize: 100 });
      assert.equal((await client.call('fs/read', { path: 'ok.txt' })).content, 'héllo\r\nno newline at end');
      assert.equal((await client.call('fs/read', { path: './ok.txt' })).content, 'héllo\r\nno newline at end');
      assert.equal((await client.call('fs/read', { path: 'bom.txt' })).content, '\uFEFFwith BOM\n');
      assert.equal((await client.call('fs/read', { path: 'max.txt' })).content.length, 100, 'exactly maxFileSize is read');
      assert.equal((await client.call('fs/readFile', { path: '.env' })).content, 'SECRET=1\n', 'hidden files can be read');

      const big = await client.request('fs/read', { path: 'big.txt' });
      assert.equal(big.error?.code, Code.FILE_TOO_LARGE);
      assert.match(big.error?.message ?? '', /101 bytes.*100 bytes/);
      for (const binary of ['nul.bin', 'latin1.txt']) {
        const reply = await client.request('fs/read', { path: binary });
        assert.equal(reply.error?.code, Code.BINARY_FILE, binary);
        assert.equal(reply.result, undefined, 'no content at all for a binary file');
        assert.match(reply.error?.message ?? '', /binary|not UTF-8/);
      }
      assert.equal((await client.request('fs/read', { path: 'missing.txt' })).error?.code, Code.NOT_FOUND);
      assert.equal((await client.request('fs/read', { path: 'dir' })).error?.code, Code.INVALID_PARAMS);
      assert.equal((await client.request('fs/read', { path: '' })).error?.code, Code.INVALID_PARAMS);
      assert.equal((await client.request('fs/read', { path: 'a\0b' })).error?.code, Code.INVALID_PARAMS);
    });

    test('fs/write creates parents, replaces atomically, keeps permissions, and notifies', async (t) => {
      const root = await tempDir(t);
      await writeTree(root, { 'script.sh': '#!/bin/sh\n' });
      await fs.chmod(path.join(root, 'script.sh'), 0o750);
      const { client, notifier } = await serve(t, root, { maxFileSize: 100 });

      assert.deepEqual(await client.call('fs/write', { path: 'new/dir/file.txt', content: 'one' }), { bytes: 3, created: true });
      assert.deepEqual(await client.call('fs/writeFile', { path: 'new/dir/file.txt', content: 'twö' }), { bytes: 4, created: false, previous: 'one' });
      assert.equal(await fs.readFile(path.join(root, 'new/dir/file.txt'), 'utf8'), 'twö');
      await client.call('fs/write', { path: 'script.sh', content: '#!/bin/sh\necho hi\n' });
      assert.equal((await fs.stat(path.join(root, 'script.sh'))).mode & 0o777, 0o750);
      assert.deepEqual(
        notifier.writes.map((w) => [w.path, w.bytes, w.created]),
        [
          ['new/dir/file.txt', 3, true],
          ['new/dir/file.txt', 4, false],
          ['script.sh', 18, false],
        ],
      );
      const leftovers = (await fs.readdir(path.join(root, 'new/dir'))).filter((n) => n !== 'file.txt');
      assert.deepEqual(leftovers, [], 'no temporary file left behind');
    });

    test('fs/write refuses what it must, and changes nothing on disk', async (t) => {
      const root = await tempDir(t);
      await writeTree(root, { 'keep.txt': 'keep', 'dir/a.txt': 'a' });
      const { client, notifier } = await serve(t, root, { maxFileSize: 100 });
      const code = async (params: unknown) => (await client.request('fs/write', params)).error?.code;

      assert.equal(await code({ path: 'x.txt', content: 'y'.repeat(101) }), Code.FILE_TOO_LARGE);
      assert.equal(await code({ path: '.git/hooks/pre-commit', content: 'boom' }), Code.ACCESS_DENIED);
      assert.equal(await code({ path: 'sub/.GIT/config', content: 'boom' }), Code.ACCESS_DENIED);
      assert.equal(await code({ path: '.', content: 'x' }), Code.INVALID_PARAMS);
      assert.equal(await code({ path: 'dir', content: 'x' }), Code.INVALID_PARAMS);
      assert.equal(await code({ path: 'keep.txt/child', content: 'x' }), Code.INVALID_PARAMS);
      assert.equal(await code({ path: 'bad.txt', content: 'a\uD800b' }), Code.INVALID_PARAMS);
      assert.equal(await code({ path: 'x.txt' }), Code.INVALID_PARAMS);
      assert.equal(await fs.readFile(path.join(root, 'keep.txt'), 'utf8'), 'keep');
      assert.deepEqual((await fs.readdir(root)).sort(), ['dir', 'keep.txt']);
      assert.deepEqual(notifier.writes, []);
    });

    test('read-only mode refuses every write with -32004', async (t) => {
      const root = await tempDir(t);
      await writeTree(root, { 'a.txt': 'keep' });
      const { client, notifier } = await serve(t, root, { readOnly: true });
      assert.equal((await client.call('host/info')).readOnly, true);
      for (const p of ['a.txt', 'b.txt', '../outside.txt']) {
        const reply = await client.request('fs/write', { path: p, content: 'changed' });
        assert.equal(reply.error?.code, Code.READ_ONLY, p);
        assert.equal(reply.error?.data?.code, 'READ_ONLY');
      }
      assert.equal(await fs.readFile(path.join(root, 'a.txt'), 'utf8'), 'keep');
      assert.deepEqual(await fs.readdir(root), ['a.txt']);
      assert.equal((await client.call('fs/read', { path: 'a.txt' })).content, 'keep', 'reads still work');
      assert.deepEqual(notifier.writes, []);
    });

    test('paths are confined: .., absolute paths and symlinks out are access denied', async (t) => {
      const outer = await tempDir(t);
      const root = path.join(outer, 'ws');
      await writeTree(outer, { 'secret.txt': 'secret', 'ws/inside.txt': 'inside', 'ws/sub/b.txt': 'b' });
      await fs.symlink(path.join(outer, 'secret.txt'), path.join(root, 'link.txt'));
      await fs.symlink(outer, path.join(root, 'out'));
      await fs.symlink('../secret.txt', path.join(root, 'rel-out.txt'));
      await fs.symlink(path.join(outer, 'missing.txt'), path.join(root, 'dangling-out.txt'));
      await fs.symlink('inside.txt', path.join(root, 'good-link.txt'));
      await fs.symlink('sub', path.join(root, 'good-dir'));
      await fs.symlink(path.join(root, 'sub', 'b.txt'), path.join(root, 'abs-inside.txt'));
      await fs.symlink('loop', path.join(root, 'loop'));
      const { client, notifier } = await serve(t, root);

      const escapes = [
        '../secret.txt',
        'sub/../../secret.txt',
        'link.txt',
        'out/secret.txt',
        'rel-out.txt',
        'dangling-out.txt',
        path.join(outer, 'secret.txt'),
        path.join(root, 'inside.txt'),
      ];
      for (const p of escapes) {
        const read = await client.request('fs/read', { path: p });
        assert.equal(read.error?.code, Code.ACCESS_DENIED, `read ${p}`);
        assert.ok(p.startsWith('/') || !read.error?.message.includes(outer), `no host path in: ${read.error?.message}`);
        const write = await client.request('fs/write', { path: p, content: 'pwned' });
        assert.equal(write.error?.code, Code.ACCESS_DENIED, `write ${p}`);
      }
      assert.equal((await client.request('fs/list', { path: '..', recursive: true })).error?.code, Code.ACCESS_DENIED);
      assert.equal((await client.request('fs/list', { path: 'out' })).error?.code, Code.ACCESS_DENIED);
      assert.equal(await fs.readFile(path.join(outer, 'secret.txt'), 'utf8'), 'secret');
      await assert.rejects(fs.stat(path.join(outer, 'missing.txt')), 'nothing created through a dangling link');

      // Symlinks that stay inside are followed; a write goes through the link, which stays a link.
      assert.equal((await client.call('fs/read', { path: 'good-link.txt' })).content, 'inside');
      assert.equal((await client.call('fs/read', { path: 'good-dir/b.txt' })).content, 'b');
      assert.equal((await client.call('fs/read', { path: 'abs-inside.txt' })).content, 'b');
      assert.deepEqual(await client.call('fs/write', { path: 'good-link.txt', content: 'new' }), { bytes: 3, created: false, previous: 'inside' });
      assert.equal(await fs.readFile(path.join(root, 'inside.txt'), 'utf8'), 'new');
      assert.ok((await fs.lstat(path.join(root, 'good-link.txt'))).isSymbolicLink());
      assert.equal((await client.request('fs/read', { path: 'loop' })).error?.code, Code.INVALID_PARAMS);

      // Listing never follows links, and leaves out those that lead outside or nowhere.
      const listed = await client.call('fs/list', { recursive: false });
      assert.deepEqual(listed.files, ['abs-inside.txt', 'good-dir/', 'good-link.txt', 'inside.txt', 'sub/']);
      const all = await client.call('fs/list', { recursive: true });
      assert.deepEqual(all.files, ['abs-inside.txt', 'good-link.txt', 'inside.txt', 'sub/b.txt']);
      assert.deepEqual((await client.call('fs/list', { path: 'good-dir' })).files, ['good-dir/b.txt']);
      assert.deepEqual(
        notifier.writes.map((w) => w.path),
        ['good-link.txt'],
      );
    });
  });
}

test('the vscode.workspace.fs adapter writes through the editor, then commits with one rename', async (t) => {
  const { FakeVsFs } = await import('./helpers');
  const { VscodeWorkspace } = await import('../vscode/vscodeWorkspace');
  const root = await tempDir(t);
  await writeTree(root, { 'a.txt': 'old' });
  const vfs = new FakeVsFs();
  const workspace = new VscodeWorkspace(vfs, (p) => p);
  await workspace.write(path.join(root, 'a.txt'), Buffer.from('new'));
  await workspace.write(path.join(root, 'd/e/b.txt'), Buffer.from('b'));
  assert.equal(await fs.readFile(path.join(root, 'a.txt'), 'utf8'), 'new');
  assert.equal(await fs.readFile(path.join(root, 'd/e/b.txt'), 'utf8'), 'b');
  const writes = vfs.calls.filter((c) => c.startsWith('writeFile '));
  assert.equal(writes.length, 2);
  for (const call of writes) {
    assert.match(path.basename(call), /^\.(a|b)\.txt\.ide-bridge-tmp-[0-9a-f]{16}$/, 'the content goes to a hidden temporary file');
  }
  assert.ok(vfs.calls.includes(`createDirectory ${path.join(root, 'd/e')}`));
  assert.deepEqual((await fs.readdir(root)).sort(), ['a.txt', 'd']);
});
