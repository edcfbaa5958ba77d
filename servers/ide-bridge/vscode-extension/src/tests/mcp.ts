/**
 * Test helpers for the cross-language tests: the Rust binaries built by `cargo build`, and a
 * minimal MCP client over a spawned server's stdio (newline-delimited JSON-RPC).
 */

import assert from 'node:assert/strict';
import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import type { TestContext } from 'node:test';

/** The repository root, from the compiled test (`out/tests/`) of the extension folder. */
const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..', '..');

/**
 * Cargo's `debug` directory: `$CARGO_TARGET_DIR/debug` when that is set (relative to the
 * repository root, as cargo reads it there), else the workspace's `target/debug`.
 */
export function targetDebugDir(env: NodeJS.ProcessEnv = process.env): string {
  const custom = env.CARGO_TARGET_DIR;
  const target = custom !== undefined && custom !== '' ? path.resolve(REPO_ROOT, custom) : path.join(REPO_ROOT, 'target');
  return path.join(target, 'debug');
}

/**
 * The path of a Rust binary of the workspace, or a failure that says how to build it: a
 * cross-language test must never pass without the other side.
 */
export function rustBinary(name: string, crate = 'mcp-server-ide-bridge'): string {
  const file = path.join(targetDebugDir(), process.platform === 'win32' ? `${name}.exe` : name);
  assert.ok(
    existsSync(file),
    `the Rust binary ${file} does not exist: build it with \`cargo build -p ${crate}\` at the repository root ` +
      '(CI runs `cargo test --workspace` first, which builds it), then run `npm test` again',
  );
  return file;
}

/** A JSON-RPC message from the MCP server. */
export type McpMessage = { id?: number | string; result?: any; error?: { code: number; message: string } };

/** An MCP client talking to a spawned server over stdio. */
export class McpClient {
  private nextId = 1;
  private readonly waiting = new Map<number, (message: McpMessage) => void>();
  /** What the server wrote on stderr (its log), for failure messages. */
  stderr = '';
  /** Lines on stdout that were not JSON-RPC (there must be none). */
  readonly junk: string[] = [];
  readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (this.stderr += chunk));
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      let message: McpMessage;
      try {
        message = JSON.parse(line) as McpMessage;
      } catch {
        this.junk.push(line);
        return;
      }
      if (typeof message.id === 'number' && this.waiting.has(message.id)) {
        const resolve = this.waiting.get(message.id) as (m: McpMessage) => void;
        this.waiting.delete(message.id);
        resolve(message);
      }
    });
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** Spawns `binary args` with `env` added, and initializes the MCP session. */
  static async start(t: TestContext, binary: string, args: string[], env: Record<string, string> = {}): Promise<McpClient> {
    const child = spawn(binary, args, {
      env: { ...process.env, RUST_LOG: 'info', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const client = new McpClient(child);
    t.after(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin.end();
        child.kill();
        await client.exited;
      }
    });
    const init = await client.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'vscode-extension-tests', version: '0.0.0' },
    });
    assert.ok(init.result, `initialize failed: ${JSON.stringify(init.error)}\n${client.stderr}`);
    client.notify('notifications/initialized', {});
    return client;
  }

  /** Sends a request and waits for its answer. */
  request(method: string, params: unknown): Promise<McpMessage> {
    const id = this.nextId++;
    const answered = new Promise<McpMessage>((resolve, reject) => {
      this.waiting.set(id, resolve);
      this.exited.then((code) => reject(new Error(`the server exited (${code}) before answering ${method}:\n${this.stderr}`)));
    });
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return answered;
  }

  /** Sends a notification. */
  notify(method: string, params: unknown): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
  }

  /** Calls a tool and returns its `CallToolResult`. */
  async tool(name: string, args: Record<string, unknown>): Promise<any> {
    const reply = await this.request('tools/call', { name, arguments: args });
    assert.ok(reply.result, `tools/call ${name} failed: ${JSON.stringify(reply.error)}\n${this.stderr}`);
    return reply.result;
  }
}

/** The shared error code of a failed tool result (`structuredContent.error.code`). */
export function errorCode(result: any): string | undefined {
  return result?.isError === true ? result.structuredContent?.error?.code : undefined;
}
