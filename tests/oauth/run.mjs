// The OAuth 2.1 resource server of `--http` against a real authorization server: panva's
// oidc-provider on loopback (client credentials, authorization code + PKCE, dynamic client
// registration, resource indicators issuing JWT access tokens with `aud`), and the official
// TypeScript SDK client doing the whole flow headlessly (401 -> protected resource metadata ->
// authorization server metadata -> registration -> authorization code + PKCE -> token -> call).
//
// The server under test is mcp-server-text-editor (its `text_editor` tool writes; `find_files` is
// read-only), from target/debug or MCP_BIN_DIR. Exits non-zero on the first broken case.
//
//   bash tests/oauth/run.sh        (installs the pinned packages, then runs this)

import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

import Provider from 'oidc-provider';
import { generateKeyPair, exportJWK, SignJWT } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../..');
const binDir = resolve(repoRoot, process.env.MCP_BIN_DIR ?? 'target/debug');
const started = Date.now();

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

// --- the authorization server ---------------------------------------------------------------
const asPort = await freePort();
const issuer = `http://127.0.0.1:${asPort}`;
const mcpPort = await freePort();
const resource = `http://127.0.0.1:${mcpPort}/mcp`;

const { privateKey } = await generateKeyPair('ES256', { extractable: true });
const signingJwk = { ...(await exportJWK(privateKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
// Two more keys the provider publishes, for the other accepted algorithms.
const { privateKey: rsaKey } = await generateKeyPair('RS256', { extractable: true });
const rsaJwk = { ...(await exportJWK(rsaKey)), kid: 'r1', alg: 'RS256', use: 'sig' };
const { privateKey: edKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
const edJwk = { ...(await exportJWK(edKey)), kid: 'e1', alg: 'EdDSA', use: 'sig' };

const provider = new Provider(issuer, {
  clients: [
    { client_id: 'svc', client_secret: 'svc-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: 'mcp:read mcp:write' },
    { client_id: 'reader', client_secret: 'reader-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: 'mcp:read' },
  ],
  jwks: { keys: [signingJwk, rsaJwk, edJwk] },
  clientDefaults: { id_token_signed_response_alg: 'ES256' },
  ttl: { AccessToken: 600, ClientCredentials: 600, Grant: 600, Interaction: 600, Session: 600 },
  scopes: ['openid', 'offline_access', 'mcp:read', 'mcp:write'],
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: true },
    clientCredentials: { enabled: true },
    registration: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator) => ({
        scope: 'mcp:read mcp:write',
        audience: indicator,
        accessTokenTTL: 600,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'ES256' } },
      }),
    },
  },
});
provider.on('server_error', (_ctx, err) => console.error('oidc-provider error:', err));
const asServer = provider.listen(asPort);

// --- the MCP server -------------------------------------------------------------------------
const root = mkdtempSync(join(tmpdir(), 'mcp-oauth-'));
const logDir = mkdtempSync(join(tmpdir(), 'mcp-oauth-log-'));
const callLog = join(logDir, 'calls.jsonl');
const server = spawn(join(binDir, 'mcp-server-text-editor'), [
  '--root', root, '--no-fsync',
  '--http', `127.0.0.1:${mcpPort}`,
  '--auth-issuer', issuer,
  '--public-url', resource,
  '--audit-log', callLog,
], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, RUST_LOG: 'info' } });
let serverLog = '';
server.stderr.on('data', (d) => { serverLog += d; });
const cleanup = () => {
  server.kill('SIGKILL');
  asServer.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(logDir, { recursive: true, force: true });
};

async function waitListening() {
  for (let i = 0; i < 200; i++) {
    try {
      const r = await fetch(`http://127.0.0.1:${mcpPort}/healthz`);
      if (r.ok) return;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the server did not start:\n${serverLog}`);
}

const results = [];
async function check(name, fn) {
  try {
    await fn();
    results.push(name);
    console.log(`ok   ${name}`);
  } catch (e) {
    console.log(`FAIL ${name}\n${e.stack ?? e}\n--- server stderr ---\n${serverLog}`);
    cleanup();
    process.exit(1);
  }
}

async function clientCredentials(id, secret, scope, resourceIndicator = resource) {
  const body = new URLSearchParams({ grant_type: 'client_credentials', scope, resource: resourceIndicator });
  const r = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  const json = await r.json();
  assert.equal(r.status, 200, JSON.stringify(json));
  assert.equal(json.access_token.split('.').length, 3, 'a JWT access token');
  return json.access_token;
}

let rpcId = 0;
async function rpc(token, method, params = {}) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  if (token) headers.authorization = `Bearer ${token}`;
  const body = method === 'initialize'
    ? { jsonrpc: '2.0', id: ++rpcId, method, params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'oauth-test', version: '1' } } }
    : { jsonrpc: '2.0', id: ++rpcId, method, params };
  return fetch(resource, { method: 'POST', headers, body: JSON.stringify(body) });
}

// A stateless-style call: initialize, then the call in the same session.
async function callTool(token, name, args) {
  const init = await rpc(token, 'initialize');
  if (init.status !== 200) return { status: init.status, response: init };
  const session = init.headers.get('mcp-session-id');
  await init.text();
  const headers = {
    'content-type': 'application/json', accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25', 'mcp-session-id': session, authorization: `Bearer ${token}`,
  };
  await fetch(resource, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  const r = await fetch(resource, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name, arguments: args } }) });
  return { status: r.status, response: r };
}

async function sign(claims, key = privateKey, kid = 'k1', alg = 'ES256') {
  return new SignJWT(claims).setProtectedHeader({ alg, kid }).sign(key);
}

function challenge(r) {
  return r.headers.get('www-authenticate') ?? '';
}

try {
  await waitListening();

  await check('protected resource metadata names the resource and its authorization server', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const r = await fetch(`http://127.0.0.1:${mcpPort}${path}`);
      assert.equal(r.status, 200, path);
      const doc = await r.json();
      assert.equal(doc.resource, resource);
      assert.deepEqual(doc.authorization_servers, [issuer]);
      assert.deepEqual(doc.scopes_supported, ['mcp:read', 'mcp:write']);
      assert.deepEqual(doc.bearer_methods_supported, ['header']);
    }
  });

  await check('no token: 401 naming the metadata and the scope', async () => {
    const r = await rpc(null, 'initialize');
    assert.equal(r.status, 401);
    const c = challenge(r);
    assert.match(c, /^Bearer /);
    assert.ok(c.includes(`resource_metadata="http://127.0.0.1:${mcpPort}/.well-known/oauth-protected-resource/mcp"`), c);
    assert.ok(c.includes('scope="mcp:read"'), c);
    const body = await r.json();
    assert.equal(body.error, 'invalid_request');
  });

  const full = await clientCredentials('svc', 'svc-secret', 'mcp:read mcp:write');
  await check('a valid token (client credentials, aud = this server): the call works', async () => {
    const { status, response } = await callTool(full, 'text_editor', { command: 'create', path: join(root, 'a.txt'), file_text: 'hello\n' });
    assert.equal(status, 200);
    const text = await response.text();
    assert.ok(text.includes('File created successfully'), text);
    assert.equal(readFileSync(join(root, 'a.txt'), 'utf8'), 'hello\n');
  });

  await check("another resource's token: 401 invalid_token", async () => {
    const other = await clientCredentials('svc', 'svc-secret', 'mcp:read mcp:write', 'http://127.0.0.1:1/other');
    const r = await rpc(other, 'initialize');
    assert.equal(r.status, 401);
    assert.ok(challenge(r).includes('error="invalid_token"'), challenge(r));
    const body = await r.json();
    assert.match(body.error_description, /not issued for this server/);
  });

  await check('an edited signature or payload: 401', async () => {
    const [h, p, s] = full.split('.');
    const flipped = s.slice(0, 10) + (s[10] === 'A' ? 'B' : 'A') + s.slice(11);
    let r = await rpc(`${h}.${p}.${flipped}`, 'initialize');
    assert.equal(r.status, 401);
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    claims.scope = 'mcp:read mcp:write admin';
    const forged = Buffer.from(JSON.stringify(claims)).toString('base64url');
    r = await rpc(`${h}.${forged}.${s}`, 'initialize');
    assert.equal(r.status, 401);
  });

  await check('an expired token (beyond the leeway): 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await sign({ iss: issuer, aud: resource, client_id: 'svc', scope: 'mcp:read mcp:write', iat: now - 600, exp: now - 120 });
    const r = await rpc(expired, 'initialize');
    assert.equal(r.status, 401);
    assert.match((await r.json()).error_description, /expired/);
  });

  await check('another issuer, or a key the authorization server does not publish: 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const wrongIss = await sign({ iss: 'http://127.0.0.1:1', aud: resource, scope: 'mcp:read', iat: now, exp: now + 300 });
    assert.equal((await rpc(wrongIss, 'initialize')).status, 401);
    const { privateKey: stranger } = await generateKeyPair('ES256');
    const unknownKey = await sign({ iss: issuer, aud: resource, scope: 'mcp:read', iat: now, exp: now + 300 }, stranger, 'k-stranger');
    assert.equal((await rpc(unknownKey, 'initialize')).status, 401);
    const sameKidOtherKey = await sign({ iss: issuer, aud: resource, scope: 'mcp:read', iat: now, exp: now + 300 }, stranger, 'k1');
    assert.equal((await rpc(sameKidOtherKey, 'initialize')).status, 401);
  });

  await check('RS256 and EdDSA tokens of the provider\'s other keys work; a key used with another algorithm does not', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: issuer, aud: resource, client_id: 'svc', scope: 'mcp:read', iat: now, exp: now + 300 };
    for (const [key, kid, alg] of [[rsaKey, 'r1', 'RS256'], [edKey, 'e1', 'EdDSA']]) {
      const r = await rpc(await sign(claims, key, kid, alg), 'initialize');
      assert.equal(r.status, 200, `${alg}: ${await r.text()}`);
    }
    // An ES256 signature under the RSA key's kid: the key is for RS256 only, 401.
    const mismatched = await sign(claims, privateKey, 'r1', 'ES256');
    assert.equal((await rpc(mismatched, 'initialize')).status, 401);
  });

  await check('a header marking an extension as critical (crit), or an iat in the future: 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: issuer, aud: resource, client_id: 'svc', scope: 'mcp:read', iat: now, exp: now + 300 };
    const crit = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'k1', crit: ['urn:example:ext'], 'urn:example:ext': 1 })
      .sign(privateKey, { crit: { 'urn:example:ext': true } });
    let r = await rpc(crit, 'initialize');
    assert.equal(r.status, 401);
    assert.match((await r.json()).error_description, /crit/);
    const future = await sign({ ...claims, iat: now + 86400, exp: now + 90000 });
    r = await rpc(future, 'initialize');
    assert.equal(r.status, 401);
    assert.match((await r.json()).error_description, /future/);
    // Within the leeway: a clock a little ahead is fine.
    r = await rpc(await sign({ ...claims, iat: now + 30 }), 'initialize');
    assert.equal(r.status, 200, await r.text());
  });

  await check("a session is its opener's: another principal's valid token gets 404 for it, replays included", async () => {
    const now = Math.floor(Date.now() / 1000);
    const mallory = await sign({ iss: issuer, aud: resource, sub: 'mallory', client_id: 'svc', scope: 'mcp:read mcp:write', iat: now, exp: now + 300 });
    const init = await rpc(full, 'initialize');
    assert.equal(init.status, 200);
    const session = init.headers.get('mcp-session-id');
    assert.ok(session, 'a session id');
    await init.text();
    const headers = (token) => ({
      'content-type': 'application/json', accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25', 'mcp-session-id': session, authorization: `Bearer ${token}`,
    });
    const post = (token, body) => fetch(resource, { method: 'POST', headers: headers(token), body: JSON.stringify(body) });
    assert.equal((await post(full, { jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);
    const call = { jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name: 'find_files', arguments: { pattern: '*.txt' } } };
    let r = await post(full, call);
    assert.equal(r.status, 200);
    const answer = await r.text();
    assert.ok(answer.includes('a.txt'), answer);
    const eventId = /^id: *(.+)$/m.exec(answer)?.[1];
    // Mallory's token is valid, but the session is not Mallory's: as if it did not exist.
    r = await post(mallory, { ...call, id: ++rpcId });
    assert.equal(r.status, 404, await r.text());
    r = await fetch(resource, { method: 'GET', headers: { ...headers(mallory), accept: 'text/event-stream', 'last-event-id': eventId ?? '0' } });
    assert.equal(r.status, 404);
    const replay = await r.text();
    assert.ok(!replay.includes('a.txt'), `nothing of the session's results: ${replay}`);
    r = await fetch(resource, { method: 'DELETE', headers: headers(mallory) });
    assert.equal(r.status, 404);
    // Still the opener's, and working.
    r = await post(full, { ...call, id: ++rpcId });
    assert.equal(r.status, 200);
    assert.ok((await r.text()).includes('a.txt'));
  });

  await check('a token in the URL is refused', async () => {
    const r = await fetch(`${resource}?access_token=${full}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(r.status, 400);
  });

  await check('a read-only token: reading works (a view, read_files, list_tree, a dry run too), writing is 403 insufficient_scope and writes nothing', async () => {
    const reader = await clientCredentials('reader', 'reader-secret', 'mcp:read');
    const ok = await callTool(reader, 'find_files', { pattern: '*.txt' });
    assert.equal(ok.status, 200);
    assert.ok((await ok.response.text()).includes('a.txt'));
    const { status, response } = await callTool(reader, 'text_editor', { command: 'create', path: join(root, 'b.txt'), file_text: 'no\n' });
    assert.equal(status, 403);
    const c = challenge(response);
    assert.ok(c.includes('error="insufficient_scope"') && c.includes('scope="mcp:read mcp:write"'), c);
    assert.equal((await response.json()).error, 'insufficient_scope');
    assert.equal(existsSync(join(root, 'b.txt')), false);
    // The scope is decided per call: what changes nothing needs mcp:read only.
    for (const [tool, args] of [
      ['text_editor', { command: 'view', path: join(root, 'a.txt') }],
      ['search_text', { pattern: 'hello' }],
      ['read_files', { paths: [join(root, 'a.txt')] }],
      ['list_tree', {}],
      ['edit_file', { path: join(root, 'a.txt'), edits: [{ old_str: 'hello', new_str: 'bye' }], dry_run: true }],
    ]) {
      const read = await callTool(reader, tool, args);
      assert.equal(read.status, 200, `${tool} with mcp:read`);
      assert.ok(!(await read.response.text()).includes('"isError":true'), tool);
    }
    for (const [tool, args] of [
      ['edit_file', { path: join(root, 'a.txt'), edits: [{ old_str: 'hello', new_str: 'bye' }] }],
      ['move_file', { source: join(root, 'a.txt'), destination: join(root, 'c.txt') }],
      ['text_editor', { command: 'str_replace', path: join(root, 'a.txt'), old_str: 'hello', new_str: 'bye' }],
    ]) {
      const refused = await callTool(reader, tool, args);
      assert.equal(refused.status, 403, `${tool} with mcp:read`);
      assert.equal((await refused.response.json()).error, 'insufficient_scope');
    }
    assert.equal(readFileSync(join(root, 'a.txt'), 'utf8'), 'hello\n');
  });

  await check('the TypeScript SDK client: 401 -> metadata -> registration -> code + PKCE -> token -> call', async () => {
    let authorizationUrl;
    const store = {};
    const redirectUrl = 'http://127.0.0.1:9/callback';
    const authProvider = {
      get redirectUrl() { return redirectUrl; },
      get clientMetadata() {
        return { client_name: 'mcp-suite oauth test', redirect_uris: [redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
      },
      clientInformation: () => store.client,
      saveClientInformation: (c) => { store.client = c; },
      tokens: () => store.tokens,
      saveTokens: (t) => { store.tokens = t; },
      redirectToAuthorization: (url) => { authorizationUrl = url; },
      saveCodeVerifier: (v) => { store.verifier = v; },
      codeVerifier: () => store.verifier,
    };
    const first = new StreamableHTTPClientTransport(new URL(resource), { authProvider });
    await assert.rejects(new Client({ name: 'oauth-test', version: '1' }).connect(first), UnauthorizedError);
    assert.ok(store.client?.client_id, 'the SDK registered a client dynamically');
    assert.ok(authorizationUrl, 'the SDK asked for the authorization');
    assert.equal(authorizationUrl.searchParams.get('resource'), resource);
    assert.equal(authorizationUrl.searchParams.get('code_challenge_method'), 'S256');

    // The user signs in and consents (oidc-provider's development pages, driven by hand).
    const cookies = new Map();
    const go = async (url, init = {}) => {
      const r = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers ?? {}), cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
      for (const c of r.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const [k, v] = pair.split('=');
        cookies.set(k.trim(), v);
      }
      return r;
    };
    let location = authorizationUrl.href;
    let code;
    for (let step = 0; step < 12 && !code; step++) {
      const r = await go(location);
      const next = r.headers.get('location');
      if (next) {
        const url = new URL(next, issuer);
        if (url.href.startsWith(redirectUrl)) {
          assert.equal(url.searchParams.get('error'), null, url.href);
          code = url.searchParams.get('code');
          break;
        }
        location = url.href;
        continue;
      }
      const html = await r.text();
      const action = html.match(/action="([^"]+)"/)?.[1];
      assert.ok(action, `no form on ${location}: ${html.slice(0, 500)}`);
      const prompt = html.includes('name="login"') ? { prompt: 'login', login: 'alice', password: 'x' } : { prompt: 'consent' };
      const posted = await go(new URL(action, issuer).href, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(prompt) });
      location = new URL(posted.headers.get('location'), issuer).href;
    }
    assert.ok(code, 'an authorization code');
    await first.finishAuth(code);
    assert.ok(store.tokens?.access_token, 'the SDK exchanged the code for a token');

    const client = new Client({ name: 'oauth-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider }));
    const tools = await client.listTools();
    assert.ok(tools.tools.some((t) => t.name === 'text_editor'));
    const result = await client.callTool({ name: 'find_files', arguments: { pattern: '*.txt' } });
    assert.notEqual(result.isError, true, JSON.stringify(result));
    await client.close();
  });

  await check("the call log names each call's token subject", async () => {
    const lines = readFileSync(callLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const svc = lines.find((l) => l.tool === 'text_editor' && l.outcome === 'OK');
    assert.equal(svc?.caller, 'svc', JSON.stringify(lines));
    const alice = lines.find((l) => l.tool === 'find_files' && l.caller === 'alice');
    assert.ok(alice, `the authorization-code call is logged as its user: ${JSON.stringify(lines)}`);
    const byReader = (tool) => lines.filter((l) => l.tool === tool && l.caller === 'reader').length;
    assert.equal(byReader('text_editor'), 1, 'the view ran; the refused writes never did');
    assert.equal(byReader('edit_file'), 1, 'the dry run ran; the refused edit never did');
    assert.equal(byReader('move_file'), 0, 'the refused move never ran');
  });
} finally {
  cleanup();
}
console.log(`oauth: ${results.length} checks passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
