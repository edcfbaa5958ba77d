/**
 * The checks on the WebSocket upgrade request, before any session exists (protocol §2), in the
 * order `ide-bridge-host` makes them (`src/host/handshake.rs`):
 *
 * 1. exactly one `Host` header naming the loopback address (with no port or the listening port)
 *    → else 403, so a DNS-rebinding page cannot reach us under a name of its own;
 * 2. an `Origin` header, if present, on the explicit allow-list (empty by default) → else 403,
 *    so no web page can connect;
 * 3. exactly one `Authorization: Bearer <token>` with the token, compared in constant time
 *    → else 401.
 */

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Why an upgrade was refused: the HTTP status and a one-line reason. */
export interface Refusal {
  status: 401 | 403 | 503;
  reason: string;
}

/** What the host accepts. */
export interface Policy {
  /** The port the host listens on (a `Host` header's port must be this one). */
  port: number;
  /** The bearer token. */
  token: string;
  /** The `Origin` values accepted (exact match, ASCII case-insensitive, a trailing `/` ignored). */
  allowedOrigins: readonly string[];
}

/** All values of header `name` (case-insensitive), duplicates kept (Node merges or drops them). */
function headerValues(request: IncomingMessage, name: string): string[] {
  const values: string[] = [];
  const raw = request.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i].toLowerCase() === name) {
      values.push(raw[i + 1]);
    }
  }
  return values;
}

/** Whether two strings are equal, in time independent of where they differ (and of their lengths). */
export function constantTimeEqual(a: string, b: string): boolean {
  // Hashing first gives equal-length inputs to timingSafeEqual, so not even the length leaks.
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}

/** Whether a `Host` header value names the loopback address, with `port` or no port. */
export function isLoopbackHost(value: string, port: number): boolean {
  const text = value.trim();
  let name: string;
  let portPart: string;
  let bracketed = false;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) {
      return false;
    }
    name = text.slice(1, close);
    portPart = text.slice(close + 1);
    bracketed = true;
  } else {
    const colon = text.indexOf(':');
    name = colon < 0 ? text : text.slice(0, colon);
    portPart = colon < 0 ? '' : text.slice(colon);
  }
  const portOk = portPart === '' || (/^:\d{1,5}$/.test(portPart) && Number(portPart.slice(1)) === port);
  const nameOk = bracketed ? name === '::1' : name === '127.0.0.1' || name.toLowerCase() === 'localhost';
  return portOk && nameOk;
}

/** The token of an `Authorization` value `Bearer <token>` (scheme case-insensitive), if it is one. */
export function bearerToken(value: string): string | undefined {
  const text = value.trim();
  const space = text.indexOf(' ');
  if (space < 0) {
    return undefined;
  }
  if (text.slice(0, space).toLowerCase() !== 'bearer') {
    return undefined;
  }
  return text.slice(space + 1).trim();
}

/** Checks an upgrade request's headers; `undefined` means accepted. */
export function checkUpgrade(policy: Policy, request: IncomingMessage): Refusal | undefined {
  const forbidden = (reason: string): Refusal => ({ status: 403, reason });
  const unauthorized = (reason: string): Refusal => ({ status: 401, reason });

  const hosts = headerValues(request, 'host');
  if (hosts.length === 0) {
    return forbidden('the Host header is missing');
  }
  if (hosts.length > 1) {
    return forbidden('more than one Host header');
  }
  if (!isLoopbackHost(hosts[0], policy.port)) {
    return forbidden('the Host header must be 127.0.0.1, localhost or [::1] with the host\'s port');
  }

  const origins = headerValues(request, 'origin');
  if (origins.length > 1) {
    return forbidden('more than one Origin header');
  }
  if (origins.length === 1) {
    const origin = origins[0].toLowerCase();
    const allowed = policy.allowedOrigins.some((a) => a.replace(/\/+$/, '').toLowerCase() === origin.replace(/\/+$/, ''));
    if (!allowed) {
      return forbidden('this Origin is not allowed: no web page may connect to the IDE bridge');
    }
  }

  const auths = headerValues(request, 'authorization');
  if (auths.length === 0) {
    return unauthorized('missing Authorization: Bearer <token>');
  }
  if (auths.length > 1) {
    return unauthorized('more than one Authorization header');
  }
  const token = bearerToken(auths[0]);
  if (token === undefined) {
    return unauthorized('the Authorization header is not `Bearer <token>`');
  }
  if (!constantTimeEqual(token, policy.token)) {
    return unauthorized('wrong token');
  }
  return undefined;
}

/** A random 128-bit token, as 32 lowercase hex digits (as `ide-bridge-host` generates). */
export function generateToken(): string {
  return randomBytes(16).toString('hex');
}

/** Why a configured token cannot be used, or undefined if it can. */
export function tokenProblem(token: string): string | undefined {
  if (token === '') {
    return 'the token is empty';
  }
  if (/[\s\u0000-\u001f\u007f-\u009f]/u.test(token)) {
    return 'the token must not contain spaces or control characters';
  }
  return undefined;
}
