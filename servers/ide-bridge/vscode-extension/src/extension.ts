/**
 * The VS Code / Antigravity extension: on startup it serves the open workspace folders to
 * `mcp-server-ide-bridge` over the ide-bridge protocol (a WebSocket on 127.0.0.1), with the
 * settings `antigravity.mcp.*`, and advertises itself in a discovery file.
 *
 * Everything protocol-related is in `core/` (no `vscode` import); this file reads the settings,
 * adapts `vscode.workspace.fs` and the editor's messages to the core, and registers the commands.
 */

import { promises as fs } from 'node:fs';
import * as path from 'node:path';

import * as vscode from 'vscode';

import {
  BridgeHost,
  CommandNotice,
  DEFAULT_MAX_FILE_SIZE,
  DEFAULT_PORT,
  NoUserError,
  Notifier,
  Published,
  TOKEN_ENV,
  WriteNotice,
  discoveryDir,
  discoverySupported,
  generateToken,
  publish,
  tokenProblem,
} from './core';
import { VscodeIde } from './vscode/vscodeIde';
import { ProposalViews, VscodeLang } from './vscode/vscodeLang';
import { VscodeWorkspace } from './vscode/vscodeWorkspace';

const SECTION = 'antigravity.mcp';

/** The extension's settings (`antigravity.mcp.*`). */
interface Settings {
  port: number;
  token: string;
  readOnly: boolean;
  maxFileSize: number;
  confirmWrites: boolean;
}

function readSettings(): Settings {
  const config = vscode.workspace.getConfiguration(SECTION);
  const port = config.get<number>('port', DEFAULT_PORT);
  const maxFileSize = config.get<number>('maxFileSize', DEFAULT_MAX_FILE_SIZE);
  return {
    port: Number.isInteger(port) && port >= 0 && port <= 65535 ? port : DEFAULT_PORT,
    token: (config.get<string>('token', '') ?? '').trim(),
    readOnly: config.get<boolean>('readOnly', false) === true,
    maxFileSize: Number.isInteger(maxFileSize) && maxFileSize >= 1 ? maxFileSize : DEFAULT_MAX_FILE_SIZE,
    confirmWrites: config.get<boolean>('confirmWrites', false) === true,
  };
}

/** What is running. */
interface Running {
  host: BridgeHost;
  ide: VscodeIde;
  published?: Published;
  token: string;
  folders: string[];
  confirmWrites: boolean;
}

/**
 * How long a bridge waits for a write the user must confirm, in seconds: its per-request timeout
 * (`--request-timeout`, 20 s by default) and the per-call timeout of every tool (`--tool-timeout`,
 * 30 s) would otherwise cancel a write the user answers later.
 */
export const CONFIRM_TIMEOUT_SECS = 300;

/** Starts, stops and restarts the host as settings and folders change. */
class Controller implements vscode.Disposable {
  private running: Running | undefined;
  /** Start/stop operations, one at a time. */
  private queue: Promise<void> = Promise.resolve();
  /** The token generated when none is configured, kept for this editor session. */
  private generatedToken: string | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.LogOutputChannel,
    /** The diff views of proposed changes (`ide/openDiff`), for the extension's lifetime. */
    private readonly views: ProposalViews,
  ) {}

  /** Runs `op` after the previous start/stop finished. */
  private serial(op: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(op, op).catch((error: unknown) => {
      this.output.error(`the server could not start: ${String(error)}`);
      void vscode.window.showErrorMessage(`IDE Bridge could not start: ${String(error)}`);
    });
    return this.queue;
  }

  restart(): Promise<void> {
    return this.serial(async () => {
      await this.doStop();
      await this.doStart();
    });
  }

  stop(): Promise<void> {
    return this.serial(() => this.doStop());
  }

  get state(): Running | undefined {
    return this.running;
  }

  /** The local, canonical paths of the folders that can be served. */
  private async folders(): Promise<{ paths: string[]; names: string[]; shown: string[]; base?: vscode.Uri }> {
    const paths: string[] = [];
    const names: string[] = [];
    const shown: string[] = [];
    let base: vscode.Uri | undefined;
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const uri = folder.uri;
      const local = uri.scheme === 'file' || (uri.scheme === 'vscode-remote' && vscode.env.remoteName !== undefined);
      if (!local) {
        this.output.warn(`not serving ${uri.toString()}: only folders on a local disk can be served`);
        continue;
      }
      try {
        const real = await fs.realpath(uri.fsPath);
        if (base !== undefined && base.scheme !== uri.scheme) {
          this.output.warn(`not serving ${uri.toString()}: it is not on the same machine as the first folder`);
          continue;
        }
        base ??= uri;
        paths.push(real);
        names.push(folder.name);
        shown.push(uri.scheme === 'file' ? uri.fsPath : uri.path);
      } catch (error) {
        this.output.warn(`not serving ${uri.fsPath}: ${String(error)}`);
      }
    }
    return { paths, names, shown, base };
  }

  private async doStart(): Promise<void> {
    const settings = readSettings();
    const { paths: folders, names, shown, base } = await this.folders();
    if (folders.length === 0 || base === undefined) {
      this.output.info('no folder is open: the server starts when a folder is opened');
      return;
    }
    let token = settings.token;
    let generated = false;
    if (token === '') {
      this.generatedToken ??= generateToken();
      token = this.generatedToken;
      generated = true;
    } else {
      const problem = tokenProblem(token);
      if (problem !== undefined) {
        this.output.error(`antigravity.mcp.token cannot be used: ${problem}. The server is not started.`);
        void vscode.window.showErrorMessage(`IDE Bridge: antigravity.mcp.token cannot be used: ${problem}.`);
        return;
      }
    }

    const toUri = (abs: string): vscode.Uri => (base.scheme === 'file' ? vscode.Uri.file(abs) : base.with({ path: abs }));
    // The editor names documents under the folder paths it opened; the core uses their real paths.
    const toCanonical = (uri: vscode.Uri): string | undefined => {
      if (uri.scheme !== base.scheme) {
        return undefined;
      }
      const abs = uri.scheme === 'file' ? uri.fsPath : uri.path;
      for (let i = 0; i < shown.length; i += 1) {
        const rel = path.relative(shown[i], abs);
        if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) {
          return rel === '' ? folders[i] : path.join(folders[i], rel);
        }
      }
      return abs;
    };
    const ide = new VscodeIde(toUri, toCanonical);
    const lang = new VscodeLang(toUri, toCanonical, this.views);
    const workspace = new VscodeWorkspace(vscode.workspace.fs, toUri);
    const notifier = new EditorNotifier(this.output, (rel) => vscode.Uri.joinPath(toUri(folders[0]), ...rel.split('/')));
    const extension = this.context.extension;
    const options = {
      workspace,
      folders,
      folderNames: names,
      ide,
      lang,
      review: lang,
      notifier,
      token,
      readOnly: settings.readOnly,
      maxFileSize: settings.maxFileSize,
      confirmWrites: settings.confirmWrites,
      name: extension.id,
      version: String((extension.packageJSON as { version?: unknown }).version ?? '0.0.0'),
    };
    let host: BridgeHost;
    try {
      host = await BridgeHost.listen(options, settings.port);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || settings.port === 0) {
        ide.dispose();
        throw error;
      }
      // Another window (or program) has the port: serve on a free one, found through discovery.
      host = await BridgeHost.listen(options, 0);
      this.output.warn(`port ${settings.port} is in use (another window?); listening on ${host.port} instead`);
      void vscode.window.showWarningMessage(
        `IDE Bridge: port ${settings.port} is in use (another window?), so this window listens on 127.0.0.1:${host.port}. ` +
          'Bridges started with --workspace find it through discovery; "IDE Bridge: Copy MCP Client Config" gives its URL and token.',
      );
    }
    let published: Published | undefined;
    if (discoverySupported()) {
      try {
        published = await publish(discoveryDir(), { port: host.port, pid: process.pid, workspaceFolders: folders, token });
      } catch (error) {
        this.output.warn(`no discovery file (bridges then need --url and --token): ${String(error)}`);
      }
    }
    this.running = { host, ide, published, token, folders, confirmWrites: settings.confirmWrites };
    this.output.info(`serving ${folders.join(', ')} on ws://127.0.0.1:${host.port}`);
    if (generated) {
      this.output.info(`token: ${token} (generated for this session; set antigravity.mcp.token to choose one)`);
    }
    if (published !== undefined) {
      this.output.info(`discovery file: ${published.file}`);
    }
    if (settings.readOnly) {
      this.output.info('read-only: every write from MCP clients is refused');
    }
    if (settings.confirmWrites) {
      this.output.info('every write waits for your Allow or Deny');
    }
  }

  private async doStop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    if (running !== undefined) {
      await running.published?.remove();
      await running.host.close();
      running.ide.dispose();
      this.output.info('stopped');
    }
  }

  /** The client configuration of `mcp-server-ide-bridge` for the running server. */
  clientConfig(): string | undefined {
    const running = this.running;
    if (running === undefined) {
      return undefined;
    }
    const config = {
      mcpServers: {
        'ide-bridge': {
          command: 'mcp-server-ide-bridge',
          args: [
            '--url',
            `ws://127.0.0.1:${running.host.port}`,
            // Time for the user to answer the Allow/Deny question of each write.
            ...(running.confirmWrites
              ? ['--request-timeout', String(CONFIRM_TIMEOUT_SECS), '--tool-timeout', String(CONFIRM_TIMEOUT_SECS + 10)]
              : []),
          ],
          env: { [TOKEN_ENV]: running.token },
        },
      },
    };
    return JSON.stringify(config, null, 2);
  }

  dispose(): void {
    void this.stop();
  }
}

/** The URI scheme of the proposed contents shown in the diff editor before a write. */
export const PROPOSED_SCHEME = 'ide-bridge-proposed';

/**
 * The proposed texts of writes waiting for the user's answer, served to the diff editor as
 * read-only documents (`ide-bridge-proposed:/<path>?<n>`).
 */
class Proposals implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private next = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  /** A document holding `text`, named after `rel`; forgotten with {@link forget}. */
  add(rel: string, text: string): vscode.Uri {
    this.next += 1;
    const uri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${rel}`, query: String(this.next) });
    this.texts.set(uri.toString(), text);
    return uri;
  }

  forget(uri: vscode.Uri): void {
    this.texts.delete(uri.toString());
  }
}

const proposals = new Proposals();

/** How long the editor's window gets to open the diff before it counts as gone. */
export const WINDOW_PROBE_MS = 3000;

/**
 * Whether `call` (a request the editor's window answers) settles within {@link WINDOW_PROBE_MS}.
 * In a remote or browser setup (code-server, VS Code for the Web) a window lost without a goodbye
 * (a crashed tab, a machine gone to sleep) leaves this extension host running for the reconnection
 * grace time, and every request to the window then waits forever; the first one of a write's
 * review doubles as the probe.
 */
async function answeredInTime(call: Thenable<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const answered = await Promise.race([
    Promise.resolve(call).then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), WINDOW_PROBE_MS);
    }),
  ]);
  clearTimeout(timer);
  return answered;
}

/** The editor side of the core's {@link Notifier}: messages, the review of a write, the log. */
class EditorNotifier implements Notifier {
  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly uriOf: (rel: string) => vscode.Uri,
  ) {}

  /**
   * With `confirmWrites`: opens VS Code's diff editor (the current file, or an empty document for
   * a new file, against the proposed text), then asks Allow / Deny in a notification (not a
   * modal, so that the diff can be scrolled while deciding). Dismissing the question denies.
   */
  async confirmWrite(notice: WriteNotice): Promise<boolean> {
    const verb = notice.created ? 'create' : 'overwrite';
    const proposed = proposals.add(notice.path, notice.content);
    const empty = notice.created ? proposals.add(notice.path, '') : undefined;
    try {
      const diff = vscode.commands.executeCommand(
        'vscode.diff',
        empty ?? this.uriOf(notice.path),
        proposed,
        `${notice.path}: ${notice.created ? 'new file' : 'current'} ↔ proposed by an MCP client`,
        { preview: true },
      );
      Promise.resolve(diff).then(undefined, (error: unknown) =>
        this.output.warn(`cannot show the diff of ${notice.path}: ${String(error)}`),
      );
      if (!(await answeredInTime(diff))) {
        throw new NoUserError(`the editor window did not open the diff within ${WINDOW_PROBE_MS / 1000} s`);
      }
      const choice = await vscode.window.showWarningMessage(
        `An MCP client wants to ${verb} ${notice.path} (${notice.bytes} bytes). Review the diff, then allow or deny the write.`,
        'Allow',
        'Deny',
      );
      return choice === 'Allow';
    } finally {
      // Bounded too: with the window gone, closing its tab would wait forever.
      await answeredInTime(this.closeDiff(proposed));
      proposals.forget(proposed);
      if (empty !== undefined) {
        proposals.forget(empty);
      }
    }
  }

  /**
   * A code action's command: asked every time, in a modal dialog (nothing can show what a
   * command will do). Dismissing it denies.
   */
  async confirmCommand(notice: CommandNotice): Promise<boolean> {
    const command = notice.command === '' ? 'an IDE command' : `the IDE command "${notice.command}"`;
    const choice = await vscode.window.showWarningMessage(
      `An MCP client wants to run ${command} of the code action "${notice.title}". Its effect cannot be previewed: it may change files or run tools. Allow it only if you trust it.`,
      { modal: true },
      'Allow',
    );
    return choice === 'Allow';
  }

  /** Closes the diff editor showing `proposed`, if the editor can say which tab that is. */
  private async closeDiff(proposed: vscode.Uri): Promise<void> {
    const groups = vscode.window.tabGroups;
    if (groups === undefined) {
      return;
    }
    const tabs = groups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === proposed.toString());
    if (tabs.length > 0) {
      await groups.close(tabs).then(undefined, () => undefined);
    }
  }

  didWrite(notice: WriteNotice): void {
    const verb = notice.created ? 'created' : 'wrote';
    void vscode.window
      .showInformationMessage(`MCP client ${verb} ${notice.path} (${notice.bytes} bytes).`, 'Open')
      .then((choice) => (choice === 'Open' ? vscode.window.showTextDocument(this.uriOf(notice.path)) : undefined))
      .then(undefined, (error: unknown) => this.output.warn(`cannot open ${notice.path}: ${String(error)}`));
  }

  log(level: 'info' | 'warn' | 'error', message: string): void {
    this.output[level](message);
  }
}

let controller: Controller | undefined;

/** Called by the editor once it has started (`onStartupFinished`). */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('IDE Bridge (MCP)', { log: true });
  const views = new ProposalViews();
  const ctl = new Controller(context, output, views);
  controller = ctl;
  context.subscriptions.push(
    output,
    ctl,
    views,
    vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, proposals),
    vscode.commands.registerCommand('antigravity.mcp.showToken', async () => {
      const running = ctl.state;
      if (running === undefined) {
        void vscode.window.showWarningMessage('IDE Bridge is not running: open a folder (see the "IDE Bridge (MCP)" output).');
        output.show(true);
        return;
      }
      output.info(`ws://127.0.0.1:${running.host.port}, token: ${running.token}`);
      output.show(true);
      const choice = await vscode.window.showInformationMessage(
        `IDE Bridge listens on ws://127.0.0.1:${running.host.port}; the token is in the "IDE Bridge (MCP)" output.`,
        'Copy Token',
        'Copy Client Config',
      );
      if (choice === 'Copy Token') {
        await vscode.env.clipboard.writeText(running.token);
      } else if (choice === 'Copy Client Config') {
        await vscode.commands.executeCommand('antigravity.mcp.copyClientConfig');
      }
    }),
    vscode.commands.registerCommand('antigravity.mcp.copyClientConfig', async () => {
      const config = ctl.clientConfig();
      if (config === undefined) {
        void vscode.window.showWarningMessage('IDE Bridge is not running: open a folder first.');
        return;
      }
      await vscode.env.clipboard.writeText(config);
      void vscode.window.showInformationMessage(
        'Copied the mcp-server-ide-bridge client config (with the token): paste it into claude_desktop_config.json.',
      );
    }),
    vscode.commands.registerCommand('antigravity.mcp.restart', async () => {
      await ctl.restart();
      const running = ctl.state;
      void vscode.window.showInformationMessage(
        running === undefined ? 'IDE Bridge is not running (see its output).' : `IDE Bridge restarted on ws://127.0.0.1:${running.host.port}.`,
      );
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(SECTION)) {
        void ctl.restart();
      }
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void ctl.restart()),
  );
  await ctl.restart();
}

/** Called when the extension is deactivated: the server stops and the discovery file goes. */
export async function deactivate(): Promise<void> {
  await controller?.stop();
  controller = undefined;
}
