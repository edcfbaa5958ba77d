/**
 * The discovery file (protocol §7): where it goes, its modes, its content, its removal, and the
 * sweeping of files left by dead hosts.
 */

import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { discoveryDirFrom, discoverySupported, ensurePrivateDir, pidAlive, publish, readRecord, sweepStale } from '../core';
import { tempDir } from './helpers';

const posixOnly = { skip: !discoverySupported() && 'discovery is not defined on Windows (protocol §7)' };

test('the directory is $XDG_RUNTIME_DIR/ide-bridge, else $TMPDIR/ide-bridge-<uid>', () => {
  assert.equal(discoveryDirFrom('/run/user/5', '/tmp', 5), path.join('/run/user/5', 'ide-bridge'));
  assert.equal(discoveryDirFrom(undefined, '/tmp', 5), path.join('/tmp', 'ide-bridge-5'));
  assert.equal(discoveryDirFrom('', '/tmp', 5), path.join('/tmp', 'ide-bridge-5'));
  assert.equal(discoveryDirFrom('relative', '/tmp', 5), path.join('/tmp', 'ide-bridge-5'));
});

test('publish writes a private file atomically, and remove deletes only our own', posixOnly, async (t) => {
  const dir = path.join(await tempDir(t), 'ide-bridge');
  const record = { port: 4242, pid: process.pid, workspaceFolders: ['/w'], token: 't0k' };
  const published = await publish(dir, record);
  assert.equal(published.file, path.join(dir, '4242.json'));
  assert.equal((await fs.stat(dir)).mode & 0o777, 0o700);
  assert.equal((await fs.stat(published.file)).mode & 0o777, 0o600);
  const text = await fs.readFile(published.file, 'utf8');
  assert.deepEqual(JSON.parse(text), record);
  assert.equal(text, '{\n  "port": 4242,\n  "pid": ' + process.pid + ',\n  "workspaceFolders": [\n    "/w"\n  ],\n  "token": "t0k"\n}');
  assert.deepEqual(await fs.readdir(dir), ['4242.json'], 'no temporary file left');
  assert.deepEqual(await readRecord(published.file), record);
  await published.remove();
  assert.deepEqual(await fs.readdir(dir), []);

  // A later host that took the port over keeps its file.
  const mine = await publish(dir, record);
  await fs.writeFile(mine.file, JSON.stringify({ ...record, pid: 1 }));
  await mine.remove();
  assert.deepEqual(await fs.readdir(dir), ['4242.json']);
});

test('a loose directory is tightened to 0700 and a symlink is refused', posixOnly, async (t) => {
  const root = await tempDir(t);
  const dir = path.join(root, 'd');
  await fs.mkdir(dir, { mode: 0o755 });
  await fs.chmod(dir, 0o755);
  await ensurePrivateDir(dir);
  assert.equal((await fs.stat(dir)).mode & 0o777, 0o700);
  const link = path.join(root, 'link');
  await fs.symlink(dir, link);
  await assert.rejects(ensurePrivateDir(link), /not a private directory/);
  await assert.rejects(publish(link, { port: 1, pid: process.pid, workspaceFolders: [], token: 't' }));
  assert.deepEqual(await fs.readdir(dir), [], 'nothing written through the symlink');
});

test('files of dead hosts are swept; live ones and foreign files stay', posixOnly, async (t) => {
  const dir = path.join(await tempDir(t), 'ide-bridge');
  await ensurePrivateDir(dir);
  const dead = { port: 1, pid: 2 ** 31 - 2, workspaceFolders: ['/w'], token: 't' };
  await fs.writeFile(path.join(dir, '1.json'), JSON.stringify(dead));
  await fs.writeFile(path.join(dir, '2.json'), 'not json');
  await fs.writeFile(path.join(dir, '3.json'), JSON.stringify({ ...dead, port: 3, pid: process.pid }));
  assert.ok(!pidAlive(dead.pid));
  assert.ok(pidAlive(process.pid));
  assert.ok(!pidAlive(0));
  await sweepStale(dir);
  assert.deepEqual((await fs.readdir(dir)).sort(), ['2.json', '3.json']);
  // Publishing sweeps too.
  await fs.writeFile(path.join(dir, '1.json'), JSON.stringify(dead));
  const published = await publish(dir, { port: 5, pid: process.pid, workspaceFolders: ['/w'], token: 't' });
  assert.deepEqual((await fs.readdir(dir)).sort(), ['2.json', '3.json', '5.json']);
  await published.remove();
});
