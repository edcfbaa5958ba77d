// Drives code-server with Anthropic's Claude Code extension and the bridge started with
// `--ide claude-code` (claude-code.sh sets it up). Checks: the extension's lock file appears
// under the test's home; the bridge connects through the Claude Code IDE protocol
// (ide_status), lists what it serves and not the language tools; get_open_editors shows the file
// the user opened; get_diagnostics answers with TypeScript's error, 1-based (also for a file that
// had no tab: opened first); open_diff accepted
// with the diff's ✓ (Accept Proposed Changes) writes the file; rejected with ✕ writes nothing.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: { url: { type: 'string' }, workspace: { type: 'string' }, home: { type: 'string' }, bridge: { type: 'string' }, playwright: { type: 'string' } },
});
const WAIT_MS = Number(process.env.E2E_WAIT_MS ?? 120000);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let failures = 0;
const check = (ok, what, detail = '') => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${ok ? '' : `: ${detail}`}`);
  if (!ok) failures += 1;
};
const fatal = (what) => {
  console.log(`FAIL ${what}`);
  process.exit(1);
};

async function lockFile() {
  const dir = path.join(args.home, '.claude', 'ide');
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    for (const name of await fs.readdir(dir).catch(() => [])) {
      if (!name.endsWith('.lock')) continue;
      try {
        const lock = JSON.parse(await fs.readFile(path.join(dir, name), 'utf8'));
        if (lock.workspaceFolders?.some((f) => path.resolve(f) === path.resolve(args.workspace))) return { name, lock };
      } catch {
        // being written
      }
    }
    await sleep(200);
  }
  return undefined;
}

class Bridge {
  constructor() {
    this.proc = spawn(args.bridge, ['--ide', 'claude-code', '--workspace', args.workspace, '--tool-timeout', '150'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, HOME: args.home, CLAUDE_CONFIG_DIR: '' },
    });
    this.next = 1;
    this.pending = new Map();
    this.stderr = '';
    this.proc.stderr.on('data', (d) => (this.stderr += d));
    createInterface({ input: this.proc.stdout }).on('line', (line) => {
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      const waiter = this.pending.get(message.id);
      if (waiter) {
        this.pending.delete(message.id);
        waiter(message);
      }
    });
  }
  request(method, params = {}) {
    const id = this.next++;
    this.proc.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method}: no answer; stderr: ${this.stderr}`)), WAIT_MS + 30000);
      this.pending.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
    });
  }
  async tool(name, argumentsObject) {
    const answer = await this.request('tools/call', { name, arguments: argumentsObject });
    return answer.result ?? { isError: true, content: [{ text: JSON.stringify(answer.error) }] };
  }
}

const { chromium } = createRequire(import.meta.url)(args.playwright);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
let bridge;
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(args.url, { timeout: WAIT_MS });
  let found = await lockFile();
  if (!found) {
    await page.reload({ timeout: WAIT_MS });
    found = await lockFile();
  }
  if (!found) fatal(`no ~/.claude/ide lock file for ${args.workspace}: the Claude Code extension did not start`);
  check(typeof found.lock.authToken === 'string' && found.lock.authToken.length > 0, `the extension wrote ${found.name} (ideName ${JSON.stringify(found.lock.ideName)})`);

  bridge = new Bridge();
  await bridge.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'claude-code-e2e', version: '1' } });
  bridge.proc.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const status = await bridge.tool('ide_status', {});
  check(status.structuredContent?.protocol === 'claude-code' && status.structuredContent?.connected === true, 'ide_status: connected through the Claude Code IDE protocol', JSON.stringify(status));
  const tools = (await bridge.request('tools/list')).result?.tools?.map((t) => t.name) ?? [];
  check(['get_diagnostics', 'get_open_editors', 'open_diff', 'read_file'].every((t) => tools.includes(t)) && !tools.includes('find_definition'), 'tools/list: what the extension serves, no language tools', JSON.stringify(tools));

  // The user opens a file: the open editors follow.
  const opened = await bridge.tool('open_file', { path: 'src/typed.ts' });
  check(!opened.isError, 'open_file shows src/typed.ts', JSON.stringify(opened));
  let editors;
  for (const deadline = Date.now() + 30000; Date.now() < deadline; await sleep(250)) {
    editors = await bridge.tool('get_open_editors', {});
    if (editors.structuredContent?.editors?.some((e) => e.path === 'src/typed.ts' && e.active)) break;
  }
  check(editors?.structuredContent?.editors?.some((e) => e.path === 'src/typed.ts' && e.active), 'get_open_editors: src/typed.ts is the active tab', JSON.stringify(editors));

  // TypeScript's error, 1-based: line 1, at `n`.
  let diagnostics;
  const started = Date.now();
  for (const deadline = Date.now() + WAIT_MS; Date.now() < deadline; await sleep(500)) {
    diagnostics = await bridge.tool('get_diagnostics', { path: 'src/typed.ts' });
    if ((diagnostics.structuredContent?.diagnostics ?? []).length > 0) break;
  }
  const first = diagnostics?.structuredContent?.diagnostics?.[0];
  check(first?.path === 'src/typed.ts' && first?.line === 1 && first?.severity === 'error', `get_diagnostics: TypeScript's error on line 1 (${Date.now() - started} ms after opening)`, JSON.stringify(diagnostics));

  // A file without a tab: VS Code answers nothing for it, so the bridge opens it first.
  const late = await bridge.tool('get_diagnostics', { path: 'src/late.ts', wait_ms: 30000 });
  const lateFirst = late.structuredContent?.diagnostics?.[0];
  check(lateFirst?.path === 'src/late.ts' && lateFirst?.line === 1 && late.structuredContent?.settled === true, 'get_diagnostics of a file without a tab: opened in the background, then answered', JSON.stringify(late));

  // open_diff accepted through the diff view's ✓.
  const accepted = bridge.tool('open_diff', { path: 'notes.txt', new_text: 'alpha\nBETA\n', wait_ms: 100000 });
  const accept = page.locator('.editor-actions [aria-label*="Accept Proposed Changes"]');
  await accept.first().waitFor({ timeout: WAIT_MS });
  await sleep(500);
  await accept.first().click();
  const acceptedResult = await accepted;
  const notes = await fs.readFile(path.join(args.workspace, 'notes.txt'), 'utf8');
  check(acceptedResult.structuredContent?.status === 'accepted' && notes === 'alpha\nBETA\n', 'open_diff accepted in the diff view: the bridge wrote the file', `${JSON.stringify(acceptedResult)} file: ${JSON.stringify(notes)}`);

  // Rejected through ✕: nothing written.
  const rejected = bridge.tool('open_diff', { path: 'notes.txt', new_text: 'never\n', wait_ms: 100000 });
  const reject = page.locator('.editor-actions [aria-label*="Reject Proposed Changes"]');
  await reject.first().waitFor({ timeout: WAIT_MS });
  await sleep(500);
  await reject.first().click();
  const rejectedResult = await rejected;
  const after = await fs.readFile(path.join(args.workspace, 'notes.txt'), 'utf8');
  check(rejectedResult.structuredContent?.status === 'rejected' && after === 'alpha\nBETA\n', 'open_diff rejected in the diff view: nothing written', JSON.stringify(rejectedResult));
} catch (error) {
  console.log(`FAIL ${error.stack ?? error}`);
  failures += 1;
} finally {
  bridge?.proc.kill();
  await browser.close();
}
if (failures > 0) {
  console.log(`${failures} check(s) failed; bridge stderr:\n${bridge?.stderr ?? ''}`);
  process.exit(1);
}
console.log('all checks passed');
