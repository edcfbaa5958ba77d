/**
 * Test helpers: temporary workspaces, a host on a free port, a notifier that records, a
 * JSON-RPC client over `ws`, raw upgrade requests, and a stand-in for `vscode.workspace.fs`.
 */

import { EventEmitter, once } from 'node:events';
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TestContext } from 'node:test';

import { WebSocket } from 'ws';

import { BridgeHost, CommandNotice, HostOptions, NodeWorkspace, Notifier, Workspace, WriteNotice } from '../core';
import { VsFileSystem, VsFileType, VscodeWorkspace } from '../vscode/vscodeWorkspace';

/** The token of test hosts. */
export const TOKEN = 's3cret-token';

/** A fresh temporary directory (canonical), removed after the test. */
export async function tempDir(t: TestContext, prefix = 'ide-bridge-ext-'): Promise<string> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes `files` (relative path → content) under `root`, creating directories. */
export async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, content);
  }
}

/** A notifier that records writes and log lines, and answers `confirmWrite` with `decide`. */
export class RecordingNotifier extends EventEmitter implements Notifier {
  readonly writes: WriteNotice[] = [];
  readonly asked: WriteNotice[] = [];
  readonly lines: string[] = [];
  decide: (notice: WriteNotice) => Promise<boolean> = () => Promise.resolve(true);
  readonly commands: CommandNotice[] = [];
  decideCommand: (notice: CommandNotice) => Promise<boolean> = () => Promise.resolve(true);

  confirmCommand(notice: CommandNotice): Promise<boolean> {
    this.commands.push(notice);
    return this.decideCommand(notice);
  }

  confirmWrite(notice: WriteNotice): Promise<boolean> {
    this.asked.push(notice);
    const answer = this.decide(notice);
    this.emit('asked', notice);
    return answer;
  }

  didWrite(notice: WriteNotice): void {
    this.writes.push(notice);
  }

  log(level: string, message: string): void {
    this.lines.push(`${level}: ${message}`);
  }
}

/** A stand-in for `vscode.workspace.fs` over Node's `fs`, with the editor's semantics. */
export class FakeVsFs implements VsFileSystem<string> {
  readonly calls: string[] = [];

  private static error(error: unknown): Error {
    const e = error as NodeJS.ErrnoException;
    const codes: Record<string, string> = {
      ENOENT: 'FileNotFound',
      ENOTDIR: 'FileNotADirectory',
      EISDIR: 'FileIsADirectory',
      EEXIST: 'FileExists',
      EACCES: 'NoPermissions',
      EPERM: 'NoPermissions',
    };
    return Object.assign(new Error(e.message), { code: codes[e.code ?? ''] ?? 'Unknown' });
  }

  private static bits(s: { isFile(): boolean; isDirectory(): boolean }): number {
    return s.isFile() ? VsFileType.File : s.isDirectory() ? VsFileType.Directory : VsFileType.Unknown;
  }

  /** As VS Code's disk provider: links are followed, and flagged with `SymbolicLink`. */
  async stat(p: string): Promise<{ type: number; size: number }> {
    try {
      const l = await fs.lstat(p);
      if (!l.isSymbolicLink()) {
        return { type: FakeVsFs.bits(l), size: l.size };
      }
      const target = await fs.stat(p).catch(() => undefined);
      return { type: (target ? FakeVsFs.bits(target) : VsFileType.Unknown) | VsFileType.SymbolicLink, size: target?.size ?? l.size };
    } catch (error) {
      throw FakeVsFs.error(error);
    }
  }

  async readDirectory(p: string): Promise<[string, number][]> {
    try {
      const entries = await fs.readdir(p, { withFileTypes: true });
      return Promise.all(
        entries.map(async (e): Promise<[string, number]> => [
          e.name,
          e.isSymbolicLink() ? (await this.stat(path.join(p, e.name))).type : FakeVsFs.bits(e),
        ]),
      );
    } catch (error) {
      throw FakeVsFs.error(error);
    }
  }

  async readFile(p: string): Promise<Uint8Array> {
    this.calls.push(`readFile ${p}`);
    try {
      return await fs.readFile(p);
    } catch (error) {
      throw FakeVsFs.error(error);
    }
  }

  /** As VS Code: truncates and writes in place (not atomic). */
  async writeFile(p: string, content: Uint8Array): Promise<void> {
    this.calls.push(`writeFile ${p}`);
    try {
      await fs.writeFile(p, content);
    } catch (error) {
      throw FakeVsFs.error(error);
    }
  }

  async createDirectory(p: string): Promise<void> {
    this.calls.push(`createDirectory ${p}`);
    try {
      await fs.mkdir(p, { recursive: true });
    } catch (error) {
      throw FakeVsFs.error(error);
    }
  }

  async delete(p: string): Promise<void> {
    this.calls.push(`delete ${p}`);
    await fs.rm(p, { force: true, recursive: true });
  }
}

/** The two workspace implementations the core runs on. */
export const IMPLEMENTATIONS: { name: string; make: () => Workspace }[] = [
  { name: 'NodeWorkspace', make: () => new NodeWorkspace({ fsync: false }) },
  { name: 'VscodeWorkspace', make: () => new VscodeWorkspace(new FakeVsFs(), (p) => p) },
];

/** A running host and what it was started with. */
export interface TestHost {
  host: BridgeHost;
  root: string;
  notifier: RecordingNotifier;
  port: number;
  url: string;
}

/** Starts a host on a free port serving `root` (closed after the test). */
export async function startHost(
  t: TestContext,
  root: string,
  options: Partial<HostOptions> = {},
): Promise<TestHost> {
  const notifier = (options.notifier as RecordingNotifier | undefined) ?? new RecordingNotifier();
  const host = await BridgeHost.listen(
    {
      workspace: new NodeWorkspace({ fsync: false }),
      folders: [root],
      token: TOKEN,
      name: 'test-host',
      version: '0.0.0-test',
      ...options,
      notifier,
    },
    0,
  );
  t.after(() => host.close());
  return { host, root, notifier, port: host.port, url: `ws://127.0.0.1:${host.port}` };
}

/** A JSON-RPC message as received. */
export type Message = {
  jsonrpc?: string;
  id?: number | string | null;
  method?: string;
  result?: any;
  error?: { code: number; message: string; data?: { code: string } };
};

/** A JSON-RPC client over a WebSocket, keeping messages in arrival order. */
export class RpcClient {
  private readonly inbox: Message[] = [];
  private readonly waiters: (() => void)[] = [];
  private nextId = 1;
  /** The close code and reason, once closed. */
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.inbox.push(JSON.parse(data.toString()) as Message);
      for (const wake of this.waiters.splice(0)) {
        wake();
      }
    });
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  /** Connects with the token (or `headers` replacing the default ones). */
  static async connect(
    t: TestContext,
    url: string,
    options: { token?: string; headers?: Record<string, string>; autoPong?: boolean } = {},
  ): Promise<RpcClient> {
    const headers = options.headers ?? { Authorization: `Bearer ${options.token ?? TOKEN}` };
    const ws = new WebSocket(url, { headers, autoPong: options.autoPong ?? true });
    const client = new RpcClient(ws);
    t.after(() => ws.terminate());
    await once(ws, 'open');
    return client;
  }

  /** Sends a raw text (or an object as JSON). */
  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The next message not yet taken, in arrival order. */
  async next(): Promise<Message> {
    while (this.inbox.length === 0) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return this.inbox.shift() as Message;
  }

  /** The message answering `id` (others stay in the inbox). */
  async answer(id: number | string | null): Promise<Message> {
    for (;;) {
      const index = this.inbox.findIndex((m) => m.id === id);
      if (index >= 0) {
        return this.inbox.splice(index, 1)[0];
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Sends a request and waits for its answer. */
  async request(method: string, params?: unknown, id: number | string = this.nextId++): Promise<Message> {
    this.send({ jsonrpc: '2.0', id, method, params });
    return this.answer(id);
  }

  /** The result of a request, or throws with its error. */
  async call(method: string, params?: unknown): Promise<any> {
    const reply = await this.request(method, params);
    if (reply.error !== undefined) {
      throw new Error(`${method} failed: ${JSON.stringify(reply.error)}`);
    }
    return reply.result;
  }
}

/** What a raw upgrade request got: the status, headers and body of a refusal, or 101. */
export interface UpgradeOutcome {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * Sends a WebSocket upgrade request with exactly `headers` (plus the upgrade headers) and
 * reports the status. `Host` is only sent when given.
 */
export function rawUpgrade(port: number, headers: Record<string, string | string[]>): Promise<UpgradeOutcome> {
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: '127.0.0.1',
      port,
      path: '/',
      setHost: false,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...headers,
      },
    });
    request.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
    });
    request.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    request.on('error', reject);
    request.end();
  });
}
