/**
 * One WebSocket connection at the host: JSON-RPC requests in, responses out, in any order
 * (protocol §3, §5, §6; the Rust side is `src/host/session.rs`).
 *
 * Each request runs on its own as soon as it arrives; its answer is sent when it is done, so a
 * slow read never holds up a fast one. `$/cancelRequest` (or the connection closing) abandons a
 * request whose file operation has not started yet, e.g. a write still waiting for the user's
 * Allow/Deny. A peer that sends nothing at all (not even a pong) for two ping intervals is
 * dropped.
 */

import { WebSocket, type RawData } from 'ws';
import { z } from 'zod';

import { Cancellation, Files, cancelled } from './files';
import { Ide } from './ide';
import { Lang } from './lang';
import { Review } from './review';
import {
  CancelParams,
  Code,
  DiagnosticsParams,
  HostInfo,
  Id,
  ListParams,
  MAX_IN_FLIGHT,
  METHOD_ALIASES,
  METHOD_CANCEL,
  METHOD_DIAGNOSTICS,
  METHOD_INFO,
  METHOD_LIST,
  METHOD_OPEN_EDITORS,
  METHOD_OPEN_FILE,
  METHOD_READ,
  METHOD_SELECTION,
  METHOD_WRITE,
  METHOD_CLOSE_DIFFS,
  METHOD_DEFINITION,
  METHOD_HOVER,
  METHOD_OPEN_DIFF,
  METHOD_REFERENCES,
  METHOD_RENAME,
  METHOD_SAVE_FILE,
  METHOD_IMPLEMENTATIONS,
  METHOD_CALL_HIERARCHY,
  METHOD_TYPE_HIERARCHY,
  METHOD_SIGNATURE_HELP,
  METHOD_CODE_ACTIONS,
  METHOD_APPLY_CODE_ACTION,
  METHOD_FORMAT,
  HierarchyParams,
  CodeActionsParams,
  ApplyCodeActionParams,
  FormatParams,
  METHOD_SYMBOLS,
  OpenDiffParams,
  ReferencesParams,
  RenameParams,
  SaveFileParams,
  SymbolAt,
  SymbolsParams,
  OpenFileParams,
  ReadParams,
  WireError,
  WriteParams,
  parseParams,
  response,
} from './protocol';
import { Notifier } from './workspace';

/** What every session of a host shares. */
export interface SessionContext {
  files: Files;
  ide: Ide;
  lang: Lang;
  review: Review;
  info: HostInfo;
  notifier: Notifier;
  pingIntervalMs: number;
}

/**
 * The fields of a JSON-RPC message that decide what it is. An unusable `id` (not a number or a
 * string) or `method` (not a string) reads as absent, as in the Rust host.
 */
const Envelope = z.object({
  jsonrpc: z.unknown().optional(),
  id: z.union([z.number(), z.string()]).optional().catch(undefined),
  method: z.string().optional().catch(undefined),
  params: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
});

/** A request in flight: cancelled by `$/cancelRequest` or the connection closing. */
class Token implements Cancellation {
  cancelled = false;
}

/** Serves one upgraded connection. */
export class Session {
  private readonly inFlight = new Map<string, Token>();
  private readonly timer: NodeJS.Timeout;
  /** Ping intervals that passed without a message or a pong from the peer. */
  private silentTicks = 0;
  private closed = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly ctx: SessionContext,
  ) {
    ws.on('message', (data, isBinary) => {
      this.silentTicks = 0;
      try {
        this.onMessage(data, isBinary);
      } catch (error) {
        // Never let one message take the editor's extension host down.
        this.send(null, { error: this.wireError(error) });
      }
    });
    ws.on('pong', () => {
      this.silentTicks = 0;
    });
    ws.on('ping', () => {
      this.silentTicks = 0;
    });
    ws.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
        ctx.notifier.log('warn', 'closed a connection that sent a message over the size limit (1009)');
      } else {
        ctx.notifier.log('warn', `connection error: ${error.message}`);
      }
    });
    ws.on('close', () => this.onClose());
    this.timer = setInterval(() => this.tick(), ctx.pingIntervalMs);
    this.timer.unref();
  }

  /** Sends the notification `method` (no params) to the bridge. */
  notify(method: string): void {
    if (!this.closed && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', method, params: {} }));
    }
  }

  /** Closes the connection with `code` (1001 when the host stops). */
  close(code: number, reason: string): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) {
      this.ws.close(code, reason);
    }
  }

  /** Resolves when the connection has closed. */
  closedPromise(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.ws.once('close', () => resolve()));
  }

  private tick(): void {
    this.silentTicks += 1;
    if (this.silentTicks > 2) {
      this.ctx.notifier.log('info', 'closing a connection silent for two ping intervals');
      this.close(1001, 'keep-alive timeout');
      this.ws.terminate();
      return;
    }
    if (this.ws.readyState === WebSocket.OPEN) {
      this.ws.ping();
    }
  }

  private onClose(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const token of this.inFlight.values()) {
      token.cancelled = true;
    }
  }

  private send(id: Id, outcome: { result: unknown } | { error: WireError }): void {
    if (!this.closed && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(response(id, outcome));
    }
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (isBinary) {
      const error = WireError.rpc(
        Code.INVALID_REQUEST,
        'binary frames are not supported; send each JSON-RPC message as one text frame',
      );
      this.send(null, { error });
      return;
    }
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.send(null, { error: WireError.rpc(Code.PARSE_ERROR, 'parse error: the message is not valid JSON') });
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      const message = Array.isArray(value)
        ? 'batches are not supported; send one JSON-RPC request per message'
        : 'invalid request: a JSON-RPC message is an object';
      this.send(null, { error: WireError.rpc(Code.INVALID_REQUEST, message) });
      return;
    }
    const message = Envelope.parse(value);
    const { id, method, params } = message;
    const versionOk = message.jsonrpc === '2.0';
    const isResponse = message.result !== undefined || message.error !== undefined;

    if (id === undefined && method !== undefined && versionOk) {
      this.onNotification(method, params);
    } else if (id !== undefined && method !== undefined && versionOk) {
      this.onRequest(id, method, params);
    } else if (id !== undefined && !isResponse) {
      const reason = versionOk ? 'invalid request: no `method`' : 'invalid request: `jsonrpc` must be "2.0"';
      this.send(id, { error: WireError.rpc(Code.INVALID_REQUEST, reason) });
    } else if (id === undefined && method !== undefined) {
      this.send(null, { error: WireError.rpc(Code.INVALID_REQUEST, 'invalid request: `jsonrpc` must be "2.0"') });
    } else if (id === undefined && !isResponse) {
      this.send(null, { error: WireError.rpc(Code.INVALID_REQUEST, 'invalid request: no `method`') });
    }
    // Anything else is a response; the host sends no requests, so it is ignored.
  }

  private onNotification(method: string, params: unknown): void {
    if (method !== METHOD_CANCEL) {
      return; // Unknown notifications are ignored, as JSON-RPC says.
    }
    const parsed = CancelParams.safeParse(params);
    if (parsed.success) {
      const token = this.inFlight.get(JSON.stringify(parsed.data.id));
      if (token !== undefined) {
        token.cancelled = true;
      }
    }
  }

  private onRequest(id: number | string, method: string, params: unknown): void {
    const key = JSON.stringify(id);
    if (this.inFlight.size >= MAX_IN_FLIGHT) {
      const error = WireError.of(
        'UNAVAILABLE',
        `too many requests in flight on this connection (limit ${MAX_IN_FLIGHT}); wait for answers`,
      );
      this.send(id, { error });
      return;
    }
    if (this.inFlight.has(key)) {
      const error = WireError.rpc(Code.INVALID_REQUEST, `request id ${key} is already in flight on this connection`);
      this.send(id, { error });
      return;
    }
    const token = new Token();
    this.inFlight.set(key, token);
    this.dispatch(method, params, token).then(
      (result) => {
        this.inFlight.delete(key);
        this.send(id, { result });
      },
      (error: unknown) => {
        this.inFlight.delete(key);
        this.send(id, { error: this.wireError(error) });
      },
    );
  }

  private async dispatch(method: string, params: unknown, token: Token): Promise<unknown> {
    const files = this.ctx.files;
    switch (METHOD_ALIASES[method] ?? method) {
      case METHOD_INFO:
        return this.ctx.info;
      case METHOD_LIST: {
        const parsed = parseParams(METHOD_LIST, ListParams, params);
        if (token.cancelled) {
          throw cancelled();
        }
        return files.list(parsed);
      }
      case METHOD_READ: {
        const parsed = parseParams(METHOD_READ, ReadParams, params);
        if (token.cancelled) {
          throw cancelled();
        }
        return files.read(parsed);
      }
      case METHOD_WRITE: {
        const parsed = parseParams(METHOD_WRITE, WriteParams, params);
        if (token.cancelled) {
          throw cancelled();
        }
        return files.write(parsed, token);
      }
      case METHOD_DIAGNOSTICS: {
        const parsed = parseParams(METHOD_DIAGNOSTICS, DiagnosticsParams, params);
        return this.ctx.ide.diagnostics(parsed);
      }
      case METHOD_OPEN_EDITORS:
        return this.ctx.ide.openEditors();
      case METHOD_SELECTION:
        return this.ctx.ide.selection();
      case METHOD_OPEN_FILE: {
        const parsed = parseParams(METHOD_OPEN_FILE, OpenFileParams, params);
        if (token.cancelled) {
          throw cancelled();
        }
        return this.ctx.ide.openFile(parsed);
      }
      case METHOD_DEFINITION:
        return this.ctx.lang.definition(parseParams(METHOD_DEFINITION, SymbolAt, params));
      case METHOD_REFERENCES:
        return this.ctx.lang.references(parseParams(METHOD_REFERENCES, ReferencesParams, params));
      case METHOD_HOVER:
        return this.ctx.lang.hover(parseParams(METHOD_HOVER, SymbolAt, params));
      case METHOD_SYMBOLS:
        return this.ctx.lang.symbols(parseParams(METHOD_SYMBOLS, SymbolsParams, params));
      case METHOD_RENAME: {
        const parsed = parseParams(METHOD_RENAME, RenameParams, params);
        if (token.cancelled) {
          throw cancelled();
        }
        return this.ctx.lang.rename(parsed);
      }
      case METHOD_OPEN_DIFF: {
        const parsed = parseParams(METHOD_OPEN_DIFF, OpenDiffParams, params);
        if (token.cancelled) {
          throw cancelled();
        }
        return this.ctx.review.openDiff(parsed);
      }
      case METHOD_CLOSE_DIFFS:
        return this.ctx.review.closeDiffs();
      case METHOD_SAVE_FILE: {
        const parsed = parseParams(METHOD_SAVE_FILE, SaveFileParams, params);
        if (token.cancelled) {
          throw cancelled();
        }
        return this.ctx.review.saveFile(parsed);
      }
      case METHOD_IMPLEMENTATIONS:
        return this.ctx.lang.implementations(parseParams(METHOD_IMPLEMENTATIONS, SymbolAt, params));
      case METHOD_CALL_HIERARCHY: {
        const parsed = parseParams(METHOD_CALL_HIERARCHY, HierarchyParams, params);
        if (parsed.direction !== 'incoming' && parsed.direction !== 'outgoing') {
          throw WireError.of('INVALID_ARGS', 'invalid params for lang/callHierarchy: `direction` is `incoming` or `outgoing`');
        }
        return this.ctx.lang.hierarchy(parsed, true);
      }
      case METHOD_TYPE_HIERARCHY: {
        const parsed = parseParams(METHOD_TYPE_HIERARCHY, HierarchyParams, params);
        if (parsed.direction === 'incoming' || parsed.direction === 'outgoing') {
          throw WireError.of('INVALID_ARGS', 'invalid params for lang/typeHierarchy: `direction` is `supertypes`, `subtypes` or `both`');
        }
        return this.ctx.lang.hierarchy(parsed, false);
      }
      case METHOD_SIGNATURE_HELP:
        return this.ctx.lang.signatureHelp(parseParams(METHOD_SIGNATURE_HELP, SymbolAt, params));
      case METHOD_CODE_ACTIONS:
        return this.ctx.lang.codeActions(parseParams(METHOD_CODE_ACTIONS, CodeActionsParams, params));
      case METHOD_APPLY_CODE_ACTION: {
        const parsed = parseParams(METHOD_APPLY_CODE_ACTION, ApplyCodeActionParams, params);
        if (token.cancelled) {
          throw cancelled();
        }
        return this.ctx.lang.applyCodeAction(parsed);
      }
      case METHOD_FORMAT: {
        const parsed = parseParams(METHOD_FORMAT, FormatParams, params);
        if (token.cancelled) {
          throw cancelled();
        }
        return this.ctx.lang.format(parsed);
      }
      default:
        throw WireError.rpc(
          Code.METHOD_NOT_FOUND,
          `method \`${method}\` not found; this host knows ${METHOD_INFO}, ${METHOD_LIST}, ${METHOD_READ}, ${METHOD_WRITE}, ${METHOD_DIAGNOSTICS}, ${METHOD_OPEN_EDITORS}, ${METHOD_SELECTION}, ${METHOD_OPEN_FILE}, ${METHOD_DEFINITION}, ${METHOD_REFERENCES}, ${METHOD_HOVER}, ${METHOD_SYMBOLS}, ${METHOD_RENAME}, ${METHOD_IMPLEMENTATIONS}, ${METHOD_CALL_HIERARCHY}, ${METHOD_TYPE_HIERARCHY}, ${METHOD_SIGNATURE_HELP}, ${METHOD_CODE_ACTIONS}, ${METHOD_APPLY_CODE_ACTION}, ${METHOD_FORMAT}, ${METHOD_OPEN_DIFF}, ${METHOD_CLOSE_DIFFS}, ${METHOD_SAVE_FILE}`,
        );
    }
  }

  private wireError(error: unknown): WireError {
    if (error instanceof WireError) {
      return error;
    }
    this.ctx.notifier.log('error', `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return WireError.of('INTERNAL_ERROR', 'internal error in the host; details are in its log');
  }
}
