/**
 * The WebSocket server of the protocol, on 127.0.0.1 only: the upgrade is checked
 * (`handshake.ts`) before any session exists, then each connection is served by a
 * {@link Session}. This is the whole host minus the editor: the extension gives it a
 * `vscode.workspace.fs` workspace and a notifier that shows messages; tests give it Node's `fs`.
 */

import * as http from 'node:http';
import type { Duplex } from 'node:stream';

import { WebSocketServer } from 'ws';

import { Files } from './files';
import { Ide, IdeState } from './ide';
import { Lang, LangState } from './lang';
import { Review, ReviewState } from './review';
import { Policy, Refusal, checkUpgrade } from './handshake';
import {
  DEFAULT_MAX_FILE_SIZE,
  DEFAULT_MAX_LIST_ENTRIES,
  DEFAULT_MAX_MESSAGE_SIZE,
  DEFAULT_PING_INTERVAL_MS,
  HostInfo,
  MAX_CONNECTIONS,
  NOTIFY_DIAGNOSTICS_CHANGED,
  NOTIFY_SELECTION_CHANGED,
  PROTOCOL_VERSION,
} from './protocol';
import { Session } from './session';
import { Notifier, Workspace } from './workspace';

/** How long a client may take to send its upgrade request. */
const HANDSHAKE_TIMEOUT_MS = 10_000;

/** Everything a host needs. */
export interface HostOptions {
  /** The file operations. */
  workspace: Workspace;
  /** The workspace folders served: absolute, canonical; relative paths resolve against the first. */
  folders: string[];
  /** The folders' names (a multi-root workspace addresses folder `n > 0` as `name/path`). */
  folderNames?: string[];
  /** The editor's live state; without it, no tabs, no selection, no diagnostics. */
  ide?: IdeState;
  /** The editor's language features (version 3); absent: `lang/*` are unknown methods. */
  lang?: LangState;
  /** The editor's diff views and saving (version 3); absent: unknown methods. */
  review?: ReviewState;
  /** How the host tells the user about writes (and asks, with `confirmWrites`). */
  notifier: Notifier;
  /** The bearer token of the upgrade. */
  token: string;
  /** Refuse every write (-32004). Default false. */
  readOnly?: boolean;
  /** The largest file read or written, in bytes. Default 102400. */
  maxFileSize?: number;
  /** The largest message accepted, in bytes (a larger one closes the connection with 1009). Default 16 MiB. */
  maxMessageSize?: number;
  /** The most entries one `fs/list` examines. Default 20000. */
  maxListEntries?: number;
  /** Ask the user before every write. Default false. */
  confirmWrites?: boolean;
  /** `Origin` values accepted. Default none: no web page may connect. */
  allowedOrigins?: string[];
  /** The keep-alive ping interval. Default 15 s. */
  pingIntervalMs?: number;
  /** The name `host/info` reports. */
  name?: string;
  /** The version `host/info` reports. */
  version?: string;
}

const STATUS_TEXT: Record<Refusal['status'], string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  503: 'Service Unavailable',
};

/** Answers a refused upgrade with its status and a one-line reason, then closes the connection. */
function refuse(socket: Duplex, refusal: Refusal): void {
  const body = `${refusal.reason}\n`;
  const lines = [
    `HTTP/1.1 ${refusal.status} ${STATUS_TEXT[refusal.status]}`,
    'Content-Type: text/plain; charset=utf-8',
    'Connection: close',
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  if (refusal.status === 401) {
    lines.push('WWW-Authenticate: Bearer realm="ide-bridge"');
  }
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** A listening host. */
export class BridgeHost {
  private readonly sessions = new Set<Session>();
  private closing: Promise<void> | undefined;
  /** Stops the change notifications. */
  private unwatch: () => void = () => undefined;

  private constructor(
    private readonly server: http.Server,
    /** The port bound on 127.0.0.1. */
    readonly port: number,
    /** What `host/info` answers. */
    readonly info: HostInfo,
  ) {}

  /** Binds 127.0.0.1:`port` (0 picks a free port) and serves until {@link close}. */
  static async listen(options: HostOptions, port: number): Promise<BridgeHost> {
    const settings = {
      readOnly: options.readOnly ?? false,
      maxFileSize: options.maxFileSize ?? DEFAULT_MAX_FILE_SIZE,
      maxListEntries: Math.max(1, options.maxListEntries ?? DEFAULT_MAX_LIST_ENTRIES),
      confirmWrites: options.confirmWrites ?? false,
    };
    const maxMessageSize = options.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE;
    const notifier = options.notifier;
    const state = options.ide;
    const files = new Files(options.workspace, options.folders, settings, notifier, options.folderNames, (abs) =>
      state?.unsavedText(abs),
    );
    const ide = new Ide(files, state);
    const lang = new Lang(files, options.lang);
    const review = new Review(files, options.review);
    const info: HostInfo = {
      protocolVersion: PROTOCOL_VERSION,
      name: options.name ?? 'ide-bridge-extension',
      version: options.version ?? '0.0.0',
      workspaceFolders: [...options.folders],
      // Only a multi-root workspace needs them (as ide-bridge-host, which serves one folder).
      ...(options.folders.length > 1 ? { folderNames: [...files.confinement.names] } : {}),
      readOnly: settings.readOnly,
      maxFileSize: settings.maxFileSize,
      maxMessageSize,
    };
    const policy: Policy = { port, token: options.token, allowedOrigins: options.allowedOrigins ?? [] };

    const server = http.createServer((request, res) => {
      // Plain HTTP: nothing to see, but the same checks as an upgrade (403, 401), as
      // ide-bridge-host answers; 426 when they pass.
      const refusal = checkUpgrade(policy, request);
      const [status, text] =
        refusal !== undefined ? [refusal.status, refusal.reason] : [426, 'this is the WebSocket endpoint of the IDE bridge'];
      const headers: Record<string, string> = { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' };
      if (status === 401) {
        headers['WWW-Authenticate'] = 'Bearer realm="ide-bridge"';
      } else if (status === 426) {
        headers.Upgrade = 'websocket';
      }
      res.writeHead(status, headers);
      res.end(`${text}\n`);
    });
    server.headersTimeout = HANDSHAKE_TIMEOUT_MS;
    server.requestTimeout = HANDSHAKE_TIMEOUT_MS;
    server.on('clientError', (_error, socket) => socket.destroy());

    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: maxMessageSize,
      perMessageDeflate: false,
      clientTracking: false,
    });

    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    const bound = typeof address === 'object' && address !== null ? address.port : port;
    policy.port = bound;
    const host = new BridgeHost(server, bound, info);
    host.unwatch = ide.watch((change) => {
      const method = change === 'selection' ? NOTIFY_SELECTION_CHANGED : NOTIFY_DIAGNOSTICS_CHANGED;
      for (const session of host.sessions) {
        session.notify(method);
      }
    });

    server.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => socket.destroy());
      if (host.closing !== undefined) {
        socket.destroy();
        return;
      }
      const refusal: Refusal | undefined =
        host.sessions.size >= MAX_CONNECTIONS ? { status: 503, reason: 'too many connections' } : checkUpgrade(policy, request);
      if (refusal !== undefined) {
        notifier.log('warn', `refused a WebSocket upgrade (${refusal.status}): ${refusal.reason}`);
        refuse(socket, refusal);
        return;
      }
      wss.handleUpgrade(request, socket, head, (ws) => {
        const session = new Session(ws, {
          files,
          ide,
          lang,
          review,
          info,
          notifier,
          pingIntervalMs: options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS,
        });
        host.sessions.add(session);
        ws.once('close', () => host.sessions.delete(session));
      });
    });
    return host;
  }

  /** How many connections are open. */
  get connections(): number {
    return this.sessions.size;
  }

  /** Stops listening and closes every connection (close code 1001). */
  close(): Promise<void> {
    if (this.closing === undefined) {
      this.unwatch();
      const sessions = [...this.sessions];
      for (const session of sessions) {
        session.close(1001, 'the host is shutting down');
      }
      const stopped = new Promise<void>((resolve) => this.server.close(() => resolve()));
      this.server.closeIdleConnections();
      this.closing = Promise.all([stopped, ...sessions.map((s) => s.closedPromise())]).then(() => undefined);
    }
    return this.closing;
  }
}
