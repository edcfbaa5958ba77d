/**
 * The upgrade checks (protocol §2): Host, then Origin, then the bearer token; a refused upgrade
 * gets its status and no session.
 */

import assert from 'node:assert/strict';
import * as http from 'node:http';
import { test } from 'node:test';

import { bearerToken, constantTimeEqual, generateToken, isLoopbackHost, tokenProblem } from '../core';
import { RpcClient, TOKEN, rawUpgrade, startHost, tempDir } from './helpers';

test('loopback Host values, with the listening port or none', () => {
  for (const ok of ['127.0.0.1:8123', '127.0.0.1', 'localhost:8123', 'LOCALHOST', '[::1]:8123', '[::1]']) {
    assert.ok(isLoopbackHost(ok, 8123), ok);
  }
  for (const bad of [
    'evil.com:8123',
    '127.0.0.1:80',
    '127.0.0.1:',
    'localhost.evil.com',
    '127.0.0.1.evil.com:8123',
    '[::2]:8123',
    '[::1',
    '0.0.0.0:8123',
    '',
  ]) {
    assert.ok(!isLoopbackHost(bad, 8123), bad);
  }
});

test('bearer tokens are parsed like the Rust host does', () => {
  assert.equal(bearerToken('Bearer abc'), 'abc');
  assert.equal(bearerToken('bearer  abc '), 'abc');
  assert.equal(bearerToken('Basic abc'), undefined);
  assert.equal(bearerToken('abc'), undefined);
  assert.equal(bearerToken('Bearer '), undefined);
});

test('tokens: constant-time comparison, generation, validation', () => {
  assert.ok(constantTimeEqual('s3cret', 's3cret'));
  assert.ok(!constantTimeEqual('s3cret', 's3cre'));
  assert.ok(!constantTimeEqual('s3cret', 's3creT'));
  assert.ok(!constantTimeEqual('', 'x'));
  const a = generateToken();
  assert.match(a, /^[0-9a-f]{32}$/);
  assert.notEqual(a, generateToken());
  assert.equal(tokenProblem(a), undefined);
  assert.ok(tokenProblem('has space'));
  assert.ok(tokenProblem('tab\there'));
  assert.ok(tokenProblem(''));
});

test('the right token opens a session; a missing or wrong one is 401 without a session', async (t) => {
  const { host, port, url } = await startHost(t, await tempDir(t));
  const okHost = `127.0.0.1:${port}`;
  const accepted = await rawUpgrade(port, { Host: okHost, Authorization: `Bearer ${TOKEN}` });
  assert.equal(accepted.status, 101);
  const lenient = await rawUpgrade(port, { Host: 'localhost', Authorization: `bearer  ${TOKEN} ` });
  assert.equal(lenient.status, 101);

  for (const auth of [undefined, 'Bearer nope', `Basic ${TOKEN}`, TOKEN, `Bearer ${TOKEN.slice(0, -1)}`, 'Bearer ', [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]]) {
    const headers: Record<string, string | string[]> = { Host: okHost };
    if (auth !== undefined) {
      headers.Authorization = auth;
    }
    const refused = await rawUpgrade(port, headers);
    assert.equal(refused.status, 401, JSON.stringify(auth));
    assert.equal(refused.headers['www-authenticate'], 'Bearer realm="ide-bridge"');
    assert.match(refused.headers['content-type'] ?? '', /^text\/plain/);
    assert.ok(refused.body.length > 0);
  }

  // A real client with the wrong token is refused at the upgrade, before any JSON-RPC.
  await assert.rejects(RpcClient.connect(t, url, { token: 'wrong' }), /401/);
  const client = await RpcClient.connect(t, url);
  assert.equal(host.connections, 1, 'only the accepted client has a session');
  assert.equal((await client.call('host/info')).protocolVersion, 4);
});

test('a foreign Origin or a non-loopback Host is 403, even with the right token', async (t) => {
  const { port } = await startHost(t, await tempDir(t), { allowedOrigins: ['vscode-webview://abc'] });
  const auth = `Bearer ${TOKEN}`;
  const okHost = `127.0.0.1:${port}`;
  const status = async (headers: Record<string, string | string[]>) => (await rawUpgrade(port, headers)).status;

  assert.equal(await status({ Host: okHost, Authorization: auth, Origin: 'https://evil.example' }), 403);
  assert.equal(await status({ Host: okHost, Authorization: auth, Origin: 'null' }), 403);
  assert.equal(await status({ Host: okHost, Authorization: auth, Origin: ['vscode-webview://abc', 'vscode-webview://abc'] }), 403);
  assert.equal(await status({ Host: okHost, Authorization: auth, Origin: 'vscode-webview://abc' }), 101);
  assert.equal(await status({ Host: okHost, Authorization: auth, Origin: 'VSCODE-WEBVIEW://ABC' }), 101);
  assert.equal(await status({ Host: `evil.example:${port}`, Authorization: auth }), 403);
  assert.equal(await status({ Host: '127.0.0.1:1', Authorization: auth }), 403);
  assert.equal(await status({ Authorization: auth }), 403, 'no Host header');
  // Host and Origin are checked before the token: a page learns nothing about it.
  assert.equal(await status({ Host: okHost, Origin: 'https://evil.example' }), 403);
});

test('the Origin allow-list is empty by default', async (t) => {
  const { port } = await startHost(t, await tempDir(t));
  const outcome = await rawUpgrade(port, { Host: `127.0.0.1:${port}`, Authorization: `Bearer ${TOKEN}`, Origin: 'http://127.0.0.1' });
  assert.equal(outcome.status, 403);
});

/** A plain HTTP GET (no upgrade) with `headers`: its status and headers. */
function plainGet(port: number, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/', headers, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
    });
    request.on('error', reject);
  });
}

test('plain HTTP requests get the same refusals as upgrades, and 426 when they pass (as ide-bridge-host)', async (t) => {
  const { port, host } = await startHost(t, await tempDir(t));
  const okHost = `127.0.0.1:${port}`;
  const missing = await plainGet(port, { Host: okHost });
  assert.equal(missing.status, 401);
  assert.match(String(missing.headers['www-authenticate']), /^Bearer /);
  assert.equal((await plainGet(port, { Host: okHost, Authorization: 'Bearer wrong' })).status, 401);
  assert.equal((await plainGet(port, { Host: okHost, Authorization: `Bearer ${TOKEN}`, Origin: 'https://evil.example' })).status, 403);
  assert.equal((await plainGet(port, { Host: `evil.example:${port}`, Authorization: `Bearer ${TOKEN}` })).status, 403);
  const right = await plainGet(port, { Host: okHost, Authorization: `Bearer ${TOKEN}` });
  assert.equal(right.status, 426);
  assert.equal(right.headers.upgrade, 'websocket');
  assert.equal(host.connections, 0, 'no session');
});
