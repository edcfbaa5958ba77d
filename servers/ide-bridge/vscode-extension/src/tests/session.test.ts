/**
 * JSON-RPC over the connection (protocol §3–§6): malformed messages, unknown methods, params,
 * concurrency and ids, cancellation, the user's confirmation, limits, keep-alive, shutdown.
 */

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { Code, MAX_IN_FLIGHT } from '../core';
import { RecordingNotifier, RpcClient, startHost, tempDir, writeTree } from './helpers';

/** A notifier whose confirmations wait until `release` is called. */
function gatedNotifier(): { notifier: RecordingNotifier; release: (answer: boolean) => void } {
  const notifier = new RecordingNotifier();
  const pending: ((answer: boolean) => void)[] = [];
  notifier.decide = () => new Promise((resolve) => pending.push(resolve));
  return { notifier, release: (answer) => pending.splice(0).forEach((resolve) => resolve(answer)) };
}

test('host/info reports the protocol version, folders and limits', async (t) => {
  const root = await tempDir(t);
  const { url } = await startHost(t, root, { maxFileSize: 1234, maxMessageSize: 4096 });
  const client = await RpcClient.connect(t, url);
  assert.deepEqual(await client.call('host/info', {}), {
    protocolVersion: 4,
    name: 'test-host',
    version: '0.0.0-test',
    workspaceFolders: [root],
    readOnly: false,
    maxFileSize: 1234,
    maxMessageSize: 4096,
  });
});

test('malformed messages get the JSON-RPC errors and the connection stays open', async (t) => {
  const root = await tempDir(t);
  await writeTree(root, { 'a.txt': 'A' });
  const { url } = await startHost(t, root);
  const client = await RpcClient.connect(t, url);
  const expectNull = async (raw: string, code: number, pattern: RegExp) => {
    client.send(raw);
    const reply = await client.next();
    assert.equal(reply.id, null, raw);
    assert.equal(reply.error?.code, code, raw);
    assert.match(reply.error?.message ?? '', pattern, raw);
  };
  await expectNull('{not json', Code.PARSE_ERROR, /not valid JSON/);
  await expectNull('[{"jsonrpc":"2.0","id":1,"method":"host/info"}]', Code.INVALID_REQUEST, /batches/);
  await expectNull('42', Code.INVALID_REQUEST, /object/);
  await expectNull('{"jsonrpc":"2.0"}', Code.INVALID_REQUEST, /no `method`/);
  await expectNull('{"jsonrpc":"1.0","method":"fs/read"}', Code.INVALID_REQUEST, /"2\.0"/);

  client.send('{"jsonrpc":"2.0","id":7}');
  assert.deepEqual((await client.next()).error?.code, Code.INVALID_REQUEST);
  client.send('{"id":"s","method":"host/info"}');
  const noVersion = await client.next();
  assert.equal(noVersion.id, 's');
  assert.equal(noVersion.error?.code, Code.INVALID_REQUEST);

  client.ws.send(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"host/info"}'), { binary: true });
  const binary = await client.next();
  assert.equal(binary.id, null);
  assert.equal(binary.error?.code, Code.INVALID_REQUEST);

  const unknown = await client.request('fs/delete', { path: 'a.txt' });
  assert.equal(unknown.error?.code, Code.METHOD_NOT_FOUND);
  assert.match(unknown.error?.message ?? '', /fs\/delete.*fs\/read/);

  // Notifications (no id) are never answered: the next message is the answer to the request after them.
  client.send({ jsonrpc: '2.0', method: 'something/unknown', params: {} });
  client.send({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 999 } });
  client.send({ jsonrpc: '2.0', id: null, method: 'fs/read', params: { path: 'a.txt' } });
  client.send({ jsonrpc: '2.0', result: {}, id: 5 });
  client.send({ jsonrpc: '2.0', id: 'after', method: 'fs/read', params: { path: 'a.txt' } });
  const after = await client.next();
  assert.equal(after.id, 'after');
  assert.equal(after.result.content, 'A');
});

test('params are validated and unknown fields ignored', async (t) => {
  const root = await tempDir(t);
  await writeTree(root, { 'a.txt': 'A' });
  const { url } = await startHost(t, root);
  const client = await RpcClient.connect(t, url);
  const missing = await client.request('fs/read', {});
  assert.equal(missing.error?.code, Code.INVALID_PARAMS);
  assert.equal(missing.error?.data?.code, 'INVALID_ARGS');
  assert.match(missing.error?.message ?? '', /`path`/);
  const mistyped = await client.request('fs/read', { path: 3 });
  assert.equal(mistyped.error?.code, Code.INVALID_PARAMS);
  assert.equal((await client.request('fs/list', { recursive: 'yes' })).error?.code, Code.INVALID_PARAMS);
  assert.equal((await client.request('fs/read', ['a.txt'])).error?.code, Code.INVALID_PARAMS);
  assert.equal((await client.call('fs/read', { path: 'a.txt', future: { x: 1 } })).content, 'A');
  assert.deepEqual((await client.call('fs/list')).files, ['a.txt'], 'absent params are {}');
});

test('many requests in flight are all answered, each under its own id', async (t) => {
  const root = await tempDir(t);
  const files = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}.txt`, `content ${i}`]));
  await writeTree(root, files);
  const { url } = await startHost(t, root);
  const clients = [await RpcClient.connect(t, url), await RpcClient.connect(t, url)];
  const replies = await Promise.all(
    Array.from({ length: 120 }, (_, i) => {
      const client = clients[i % 2];
      if (i % 3 === 0) {
        return client.request('fs/list', { recursive: true }, `list-${i}`);
      }
      if (i % 3 === 1) {
        return client.request('fs/read', { path: `f${i % 40}.txt` }, i);
      }
      return client.request('fs/write', { path: `out/w${i}.txt`, content: `w${i}` }, i);
    }),
  );
  replies.forEach((reply, i) => {
    assert.equal(reply.error, undefined, `request ${i}: ${JSON.stringify(reply.error)}`);
    if (i % 3 === 0) {
      assert.equal(reply.result.files.length, 40);
    } else if (i % 3 === 1) {
      assert.equal(reply.result.content, `content ${i % 40}`);
    } else {
      assert.deepEqual(reply.result, { bytes: `w${i}`.length, created: true });
    }
  });
  assert.equal((await fs.readdir(path.join(root, 'out'))).length, 40);
});

test('an id already in flight is refused, and the in-flight cap answers -32010', async (t) => {
  const root = await tempDir(t);
  const { notifier, release } = gatedNotifier();
  const { url } = await startHost(t, root, { notifier, confirmWrites: true });
  const client = await RpcClient.connect(t, url);

  const first = once(notifier, 'asked');
  client.send({ jsonrpc: '2.0', id: 0, method: 'fs/write', params: { path: 'w0.txt', content: 'x' } });
  await first;
  const again = await client.request('host/info', {}, 0);
  assert.equal(again.error?.code, Code.INVALID_REQUEST, 'the duplicate id is answered at once');
  assert.match(again.error?.message ?? '', /already in flight/);

  const asked = new Promise<void>((resolve) => notifier.on('asked', () => notifier.asked.length === MAX_IN_FLIGHT && resolve()));
  for (let i = 1; i < MAX_IN_FLIGHT; i++) {
    client.send({ jsonrpc: '2.0', id: i, method: 'fs/write', params: { path: `w${i}.txt`, content: 'x' } });
  }
  await asked;
  // Every one of them is waiting for the user: the connection is at its cap.
  const over = await client.request('fs/read', { path: 'w0.txt' }, 'over');
  assert.equal(over.error?.code, Code.UNAVAILABLE);
  assert.equal(over.error?.data?.code, 'UNAVAILABLE');
  release(true);
  const answers = await Promise.all(Array.from({ length: MAX_IN_FLIGHT }, (_, i) => client.answer(i)));
  assert.ok(answers.every((a) => a.result?.created === true));
  assert.equal(notifier.writes.length, MAX_IN_FLIGHT);
});

test('confirmWrites: a write waits for Allow, Deny writes nothing, every write is notified', async (t) => {
  const root = await tempDir(t);
  const { notifier, release } = gatedNotifier();
  const { url } = await startHost(t, root, { notifier, confirmWrites: true });
  const client = await RpcClient.connect(t, url);

  let asked = once(notifier, 'asked');
  const allowed = client.request('fs/write', { path: 'yes.txt', content: 'ok' });
  const [notice] = await asked;
  assert.deepEqual(notice, { path: 'yes.txt', bytes: 2, created: true, content: 'ok' });
  await assert.rejects(fs.stat(path.join(root, 'yes.txt')), 'nothing is written before the answer');
  release(true);
  assert.deepEqual((await allowed).result, { bytes: 2, created: true });

  asked = once(notifier, 'asked');
  const denied = client.request('fs/write', { path: 'yes.txt', content: 'changed' });
  await asked;
  release(false);
  const reply = await denied;
  assert.equal(reply.error?.code, Code.ACCESS_DENIED);
  assert.match(reply.error?.message ?? '', /user declined the write/);
  assert.equal(await fs.readFile(path.join(root, 'yes.txt'), 'utf8'), 'ok');
  assert.deepEqual(
    notifier.writes.map((w) => w.path),
    ['yes.txt'],
  );
});

test('$/cancelRequest abandons a write that has not started; nothing is written', async (t) => {
  const root = await tempDir(t);
  const { notifier, release } = gatedNotifier();
  const { url } = await startHost(t, root, { notifier, confirmWrites: true });
  const client = await RpcClient.connect(t, url);

  const asked = once(notifier, 'asked');
  client.send({ jsonrpc: '2.0', id: 9, method: 'fs/write', params: { path: 'late.txt', content: 'x' } });
  await asked;
  client.send({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 9 } });
  // The cancel is handled in order, before this request: then the user allows the write, too late.
  assert.equal((await client.request('host/info', {}, 'sync')).result.protocolVersion, 4);
  release(true);
  const reply = await client.answer(9);
  assert.equal(reply.error?.code, Code.CANCELLED);
  assert.equal(reply.error?.data?.code, 'CANCELLED');
  await assert.rejects(fs.stat(path.join(root, 'late.txt')));
  assert.deepEqual(notifier.writes, []);
});

test('a write waiting for the user is abandoned when its connection closes', async (t) => {
  const root = await tempDir(t);
  const { notifier, release } = gatedNotifier();
  const { host, url } = await startHost(t, root, { notifier, confirmWrites: true });
  const client = await RpcClient.connect(t, url);
  const asked = once(notifier, 'asked');
  client.send({ jsonrpc: '2.0', id: 1, method: 'fs/write', params: { path: 'gone.txt', content: 'x' } });
  await asked;
  client.ws.close();
  await client.closed;
  // The host has seen the close once it is no longer counted.
  while (host.connections > 0) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  release(true);
  // A second client's request is answered after the first client's write has had its chance.
  const other = await RpcClient.connect(t, url);
  await other.call('fs/list');
  await assert.rejects(fs.stat(path.join(root, 'gone.txt')));
  assert.deepEqual(notifier.writes, []);
});

test('a message over maxMessageSize closes the connection with 1009', async (t) => {
  const root = await tempDir(t);
  const { url } = await startHost(t, root, { maxMessageSize: 1024 });
  const client = await RpcClient.connect(t, url);
  client.send({ jsonrpc: '2.0', id: 1, method: 'fs/write', params: { path: 'big.txt', content: 'x'.repeat(2048) } });
  const { code } = await client.closed;
  assert.equal(code, 1009);
  await assert.rejects(fs.stat(path.join(root, 'big.txt')));
});

test('keep-alive: pings are answered, and a peer that never answers is dropped with 1001', async (t) => {
  const root = await tempDir(t);
  const { url } = await startHost(t, root, { pingIntervalMs: 20 });
  const alive = await RpcClient.connect(t, url);
  const silent = await RpcClient.connect(t, url, { autoPong: false });
  const { code, reason } = await silent.closed;
  assert.equal(code, 1001);
  assert.match(reason, /keep-alive/);
  // The answering client has been pinged meanwhile, and is still served.
  let pings = 0;
  alive.ws.on('ping', () => (pings += 1));
  while (pings < 4) {
    await once(alive.ws, 'ping');
  }
  assert.equal((await alive.call('host/info')).protocolVersion, 4);
});

test('stopping the host closes every connection with 1001', async (t) => {
  const root = await tempDir(t);
  const { host, url } = await startHost(t, root);
  const client = await RpcClient.connect(t, url);
  await client.call('host/info');
  await host.close();
  const { code } = await client.closed;
  assert.equal(code, 1001);
  assert.equal(host.connections, 0);
});
