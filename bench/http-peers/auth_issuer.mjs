// A stand-in authorization server for bench/http-peers/auth.sh: serves OpenID discovery and a
// JWKS with one ES256 key on 127.0.0.1:PORT, and prints one access token signed with it (for
// RESOURCE, scopes mcp:read mcp:write, valid for an hour), then serves until killed.
//
//   node auth_issuer.mjs PORT RESOURCE
import { createServer } from 'node:http';
import { generateKeyPair, exportJWK, SignJWT } from 'jose';

const [port, resource] = [Number(process.argv[2]), process.argv[3]];
const issuer = `http://127.0.0.1:${port}`;
const { publicKey, privateKey } = await generateKeyPair('ES256');
const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256', use: 'sig' };
const now = Math.floor(Date.now() / 1000);
const token = await new SignJWT({ scope: 'mcp:read mcp:write', client_id: 'bench' })
  .setProtectedHeader({ alg: 'ES256', kid: 'bench' })
  .setIssuer(issuer).setAudience(resource).setSubject('bench').setIssuedAt(now).setExpirationTime(now + 3600)
  .sign(privateKey);
createServer((req, res) => {
  const body = req.url === '/.well-known/openid-configuration'
    ? { issuer, jwks_uri: `${issuer}/jwks` }
    : req.url === '/jwks' ? { keys: [jwk] } : null;
  res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body ?? { error: 'not_found' }));
}).listen(port, '127.0.0.1', () => console.log(token));
