/**
 * A stand-in for the `vscode` module, just enough of the API that `extension.ts` uses, so that
 * activation, settings, commands, messages and deactivation are tested under plain Node.
 * `installFakeVscode()` makes `require('vscode')` return it.
 */

import Module from 'node:module';
import * as path from 'node:path';

import { FakeVsFs } from './helpers';

/** A `vscode.Uri` of the `file` scheme. */
export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
    readonly query = '',
  ) {}

  static file(fsPath: string): Uri {
    return new Uri('file', fsPath);
  }

  static from(parts: { scheme: string; path?: string; query?: string }): Uri {
    return new Uri(parts.scheme, parts.path ?? '', parts.query ?? '');
  }

  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, path.posix.join(base.path, ...parts));
  }

  get fsPath(): string {
    return this.path;
  }

  with(change: { path?: string }): Uri {
    return new Uri(this.scheme, change.path ?? this.path);
  }

  toString(): string {
    return `${this.scheme}://${this.path}${this.query === '' ? '' : `?${this.query}`}`;
  }
}

type Listener<T> = (event: T) => unknown;

/** An event source, as `vscode.EventEmitter`. */
class Emitter<T> {
  private readonly listeners: Listener<T>[] = [];
  readonly event = (listener: Listener<T>) => {
    this.listeners.push(listener);
    return { dispose: () => this.listeners.splice(this.listeners.indexOf(listener), 1) };
  };
  fire(event: T): void {
    for (const listener of [...this.listeners]) {
      listener(event);
    }
  }
}

/** A `vscode.Position` / `vscode.Range` / `vscode.Selection` (0-based). */
export class Range {
  readonly start: { line: number; character: number };
  readonly end: { line: number; character: number };
  constructor(startLine: number, startCharacter: number, endLine: number, endCharacter: number) {
    this.start = { line: startLine, character: startCharacter };
    this.end = { line: endLine, character: endCharacter };
  }
  /** The ranges' common part, by lines (enough for the tests). */
  intersection(other: Range): Range | undefined {
    return other.end.line < this.start.line || other.start.line > this.end.line ? undefined : this;
  }
}

/** A `vscode.CodeActionKind`. */
export class CodeActionKind {
  static readonly QuickFix = new CodeActionKind('quickfix');
  static readonly Refactor = new CodeActionKind('refactor');
  constructor(readonly value: string) {}
  contains(other: CodeActionKind): boolean {
    return other.value === this.value || other.value.startsWith(`${this.value}.`);
  }
}

/** A `vscode.Position` (0-based). */
export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

/** A `vscode.MarkdownString`. */
export class MarkdownString {
  constructor(readonly value: string) {}
}

/** A `vscode.Location`. */
export class Location {
  constructor(
    readonly uri: Uri,
    readonly range: Range,
  ) {}
}

/** A `vscode.WorkspaceEdit` of text edits. */
export class WorkspaceEdit {
  private readonly edits = new Map<string, { uri: Uri; edits: { range: Range; newText: string }[] }>();
  replace(uri: Uri, range: Range, newText: string): void {
    const entry = this.edits.get(uri.toString()) ?? { uri, edits: [] };
    entry.edits.push({ range, newText });
    this.edits.set(uri.toString(), entry);
  }
  entries(): [Uri, { range: Range; newText: string }[]][] {
    return [...this.edits.values()].map((e) => [e.uri, e.edits]);
  }
}

/** `vscode.SymbolKind`, as the real enum (numbers both ways). */
const SymbolKind: Record<string | number, string | number> = {};
['File', 'Module', 'Namespace', 'Package', 'Class', 'Method', 'Property', 'Field', 'Constructor', 'Enum', 'Interface', 'Function', 'Variable', 'Constant'].forEach((name, i) => {
  SymbolKind[name] = i;
  SymbolKind[i] = name;
});
export { SymbolKind };

/**
 * The fake language server: what the `vscode.execute*Provider` commands answer (tests set it).
 * The defaults answer nothing, as an editor without a language server for the file.
 */
export const langServer = {
  hover: (_uri: Uri, _position: Position): unknown[] => [],
  definition: (_uri: Uri, _position: Position): unknown[] => [],
  references: (_uri: Uri, _position: Position): unknown[] => [],
  documentSymbols: (_uri: Uri): unknown[] => [],
  workspaceSymbols: (_query: string): unknown[] => [],
  rename: (_uri: Uri, _position: Position, _newName: string): WorkspaceEdit | undefined => undefined,
  implementations: (_uri: Uri, _position: Position): unknown[] => [],
  prepareCallHierarchy: (_uri: Uri, _position: Position): unknown[] => [],
  incomingCalls: (_item: unknown): unknown[] => [],
  outgoingCalls: (_item: unknown): unknown[] => [],
  codeActions: (_uri: Uri, _range: Range): unknown[] => [],
  prepareTypeHierarchy: (_uri: Uri, _position: Position): unknown[] => [],
  supertypes: (_item: unknown): unknown[] => [],
  subtypes: (_item: unknown): unknown[] => [],
  /** The edits applied through `workspace.applyEdit`. */
  applied: [] as WorkspaceEdit[],
};

/** A text document the fake editor has loaded. */
export class FakeDocument {
  isDirty = false;
  constructor(
    readonly uri: Uri,
    public text: string,
    readonly languageId: string,
  ) {}
  get lineCount(): number {
    return this.text.split('\n').length;
  }
  offsetAt(p: { line: number; character: number }): number {
    return this.text.split('\n').slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  }
  async save(): Promise<boolean> {
    await saveDocument(this);
    this.isDirty = false;
    return true;
  }
  lineAt(line: number): { text: string } {
    return { text: this.text.split('\n')[line] ?? '' };
  }
  getText(range?: Range): string {
    if (range === undefined) {
      return this.text;
    }
    const lines = this.text.split('\n');
    const offset = (p: { line: number; character: number }) =>
      lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
    return this.text.slice(offset(range.start), offset(range.end));
  }
}

/** A tab of a text editor. */
export class TabInputText {
  constructor(readonly uri: Uri) {}
}
/** A tab of a diff editor. */
export class TabInputTextDiff {
  constructor(
    readonly original: Uri,
    readonly modified: Uri,
  ) {}
}

/** The fake editor's live state: documents, tabs, the active editor, diagnostics. */
export const editorState = {
  documents: [] as FakeDocument[],
  tabs: [] as { input: TabInputText | TabInputTextDiff; isActive: boolean; isDirty: boolean }[],
  active: undefined as undefined | { document: FakeDocument; selection: Range },
  diagnostics: new Map<string, { range: Range; severity: number; source?: string; code?: string | number; message: string }[]>(),
  /** Diagnostics a document gets, by path, when it is opened (as a language server would report). */
  onOpen: new Map<string, { range: Range; severity: number; source?: string; code?: string | number; message: string }[]>(),
};

/** Sets the diagnostics of `fsPath` and tells listeners, as a language server's report does. */
export function setDiagnostics(fsPath: string, list: { range: Range; severity: number; source?: string; code?: string | number; message: string }[]): void {
  editorState.diagnostics.set(fsPath, list);
  diagnosticsChanged.fire({ uris: [Uri.file(fsPath)] });
}

/** Makes `document` the active editor with `selection`, and tells listeners. */
export function activate(document: FakeDocument, selection: Range): void {
  editorState.active = { document, selection };
  selectionChanged.fire({});
}

/** What the extension showed, and how the (simulated) user answers. */
export const ui = {
  messages: [] as { kind: 'info' | 'warning' | 'error'; text: string; modal: boolean; items: string[] }[],
  /** The button the user clicks, per message; undefined dismisses it. */
  answer: (_text: string, _items: string[]): string | undefined => undefined,
  clipboard: '',
  output: [] as string[],
  opened: [] as string[],
  /**
   * The diff editors opened (`vscode.diff`): both sides as URIs and as the text the editor would
   * show (a file's bytes, or what the content provider of its scheme serves at that moment).
   */
  diffs: [] as { left: string; right: string; leftText: string; rightText: string; title: string }[],
  /** The window is gone: calls the window answers never come back. */
  windowGone: false,
  /** Called whenever a message is shown. */
  onMessage: undefined as undefined | (() => void),
};

/** The settings `getConfiguration('antigravity.mcp')` reads. */
export const settings: Record<string, unknown> = {};

const diagnosticsChanged = new Emitter<{ uris: Uri[] }>();
const selectionChanged = new Emitter<unknown>();
const activeChanged = new Emitter<unknown>();
const configurationChanged = new Emitter<{ affectsConfiguration(section: string): boolean }>();
const foldersChanged = new Emitter<unknown>();
const commands = new Map<string, (...args: unknown[]) => unknown>();
const contentProviders = new Map<string, { provideTextDocumentContent(uri: Uri): string }>();
type FsProvider = { readFile(uri: Uri): Uint8Array; writeFile(uri: Uri, content: Uint8Array, options?: unknown): void };
const fsProviders = new Map<string, FsProvider>();
const tabsChanged = new Emitter<{ opened: unknown[]; closed: unknown[]; changed: unknown[] }>();

/** The text the editor would show for `uri`: a file's content, or its scheme's provider's. */
async function documentText(uri: Uri): Promise<string> {
  if (uri.scheme === 'file') {
    return Buffer.from(await fakeFs.readFile(uri.fsPath)).toString('utf8');
  }
  const fsProvider = fsProviders.get(uri.scheme);
  if (fsProvider !== undefined) {
    return Buffer.from(fsProvider.readFile(uri)).toString('utf8');
  }
  const provider = contentProviders.get(uri.scheme);
  if (provider === undefined) {
    throw new Error(`no content provider for the scheme ${uri.scheme}`);
  }
  return provider.provideTextDocumentContent(uri);
}

/** Writes a document's text where it lives: the fake disk, or its scheme's file system. */
async function saveDocument(doc: FakeDocument): Promise<void> {
  const bytes = Buffer.from(doc.text, 'utf8');
  if (doc.uri.scheme === 'file') {
    await fakeFs.writeFile(doc.uri.fsPath, bytes);
    return;
  }
  fsProviders.get(doc.uri.scheme)?.writeFile(doc.uri, bytes, { create: false, overwrite: true });
}

/** Commands the editor itself provides. */
const builtinCommands = new Map<string, (...args: unknown[]) => unknown>([
  ['vscode.executeHoverProvider', (uri: unknown, position: unknown) => langServer.hover(uri as Uri, position as Position)],
  ['vscode.executeDefinitionProvider', (uri: unknown, position: unknown) => langServer.definition(uri as Uri, position as Position)],
  ['vscode.executeReferenceProvider', (uri: unknown, position: unknown) => langServer.references(uri as Uri, position as Position)],
  ['vscode.executeDocumentSymbolProvider', (uri: unknown) => langServer.documentSymbols(uri as Uri)],
  ['vscode.executeWorkspaceSymbolProvider', (query: unknown) => langServer.workspaceSymbols(String(query))],
  ['vscode.executeImplementationProvider', (uri: unknown, position: unknown) => langServer.implementations(uri as Uri, position as Position)],
  ['vscode.prepareCallHierarchy', (uri: unknown, position: unknown) => langServer.prepareCallHierarchy(uri as Uri, position as Position)],
  ['vscode.provideIncomingCalls', (item: unknown) => langServer.incomingCalls(item)],
  ['vscode.provideOutgoingCalls', (item: unknown) => langServer.outgoingCalls(item)],
  ['vscode.prepareTypeHierarchy', (uri: unknown, position: unknown) => langServer.prepareTypeHierarchy(uri as Uri, position as Position)],
  ['vscode.provideSupertypes', (item: unknown) => langServer.supertypes(item)],
  ['vscode.provideSubtypes', (item: unknown) => langServer.subtypes(item)],
  ['vscode.executeCodeActionProvider', (uri: unknown, range: unknown) => langServer.codeActions(uri as Uri, range as Range)],
  [
    'vscode.executeDocumentRenameProvider',
    (uri: unknown, position: unknown, newName: unknown) => langServer.rename(uri as Uri, position as Position, String(newName)),
  ],
  [
    'vscode.diff',
    async (left: unknown, right: unknown, title: unknown) => {
      const [l, r] = [left as Uri, right as Uri];
      if (fsProviders.has(r.scheme)) {
        editorState.tabs.push({ input: new TabInputTextDiff(l, r), isActive: true, isDirty: false });
        tabsChanged.fire({ opened: [editorState.tabs[editorState.tabs.length - 1]], closed: [], changed: [] });
      }
      ui.diffs.push({
        left: l.toString(),
        right: r.toString(),
        leftText: await documentText(l),
        rightText: await documentText(r),
        title: String(title),
      });
      ui.onMessage?.();
    },
  ],
]);

/** The names of the commands registered (and not disposed) so far. */
export function registeredCommands(): string[] {
  return [...commands.keys()].sort();
}

/** Changes settings and tells the extension, as the editor does. */
export function changeSettings(change: Record<string, unknown>): void {
  Object.assign(settings, change);
  configurationChanged.fire({ affectsConfiguration: (section) => section === 'antigravity.mcp' });
}

function show(kind: 'info' | 'warning' | 'error') {
  return (text: string, ...rest: unknown[]): Promise<unknown> => {
    const options = typeof rest[0] === 'object' && rest[0] !== null && !('title' in rest[0]) ? (rest.shift() as { modal?: boolean }) : {};
    const items = rest.map((item) => (typeof item === 'string' ? item : (item as { title: string }).title));
    ui.messages.push({ kind, text, modal: options.modal === true, items });
    ui.onMessage?.();
    const chosen = ui.answer(text, items);
    const item = rest.find((i) => (typeof i === 'string' ? i : (i as { title: string }).title) === chosen);
    return Promise.resolve(item);
  };
}

const fakeFs = new FakeVsFs();

/** `call()`, or a promise that never settles while `ui.windowGone`. */
function windowCall<T>(call: () => Promise<T>): Promise<T> {
  return ui.windowGone ? new Promise<T>(() => undefined) : call();
}

/** The module itself. */
const LANGUAGES: Record<string, string> = { '.ts': 'typescript', '.js': 'javascript', '.md': 'markdown', '.rs': 'rust' };

async function openDocument(uri: Uri): Promise<FakeDocument> {
  const known = editorState.documents.find((d) => d.uri.toString() === uri.toString());
  if (known !== undefined) {
    return known;
  }
  const doc = new FakeDocument(uri, await documentText(uri), LANGUAGES[path.extname(uri.fsPath)] ?? 'plaintext');
  editorState.documents.push(doc);
  const report = editorState.onOpen.get(uri.fsPath);
  if (report !== undefined) {
    setTimeout(() => setDiagnostics(uri.fsPath, report), 20);
  }
  return doc;
}

export const vscode = {
  Uri,
  Range,
  CodeActionKind,
  Position,
  Location,
  MarkdownString,
  WorkspaceEdit,
  SymbolKind,
  Disposable: class {
    constructor(private readonly done: () => void) {}
    dispose(): void {
      this.done();
    }
  },
  FileType: { File: 1, Directory: 2 },
  FileSystemError: {
    FileNotFound: (uri: Uri) => new Error(`not found: ${uri.toString()}`),
    NoPermissions: (uri: Uri) => new Error(`no permissions: ${uri.toString()}`),
  },
  Selection: Range,
  TabInputText,
  TabInputTextDiff,
  TextEditorRevealType: { InCenterIfOutsideViewport: 2 },
  EventEmitter: class<T> extends Emitter<T> {
    dispose(): void {}
  },
  languages: {
    getDiagnostics: (uri?: Uri): unknown => {
      if (uri !== undefined) {
        return editorState.diagnostics.get(uri.fsPath) ?? [];
      }
      return [...editorState.diagnostics].map(([p, list]) => [Uri.file(p), list]);
    },
    onDidChangeDiagnostics: diagnosticsChanged.event,
  },
  env: {
    remoteName: undefined,
    clipboard: {
      writeText: async (text: string) => {
        ui.clipboard = text;
      },
    },
  },
  workspace: {
    workspaceFolders: [] as { uri: Uri; name: string; index: number }[],
    // Documents' texts change only through the scripted editor: nothing to report.
    onDidChangeTextDocument: new Emitter<unknown>().event,
    onDidOpenTextDocument: new Emitter<unknown>().event,
    // The window serves workspace.fs to a remote extension host: with it gone, calls never return.
    fs: {
      stat: (uri: Uri) => windowCall(() => fakeFs.stat(uri.fsPath)),
      readDirectory: (uri: Uri) => windowCall(() => fakeFs.readDirectory(uri.fsPath)),
      readFile: (uri: Uri) => windowCall(() => fakeFs.readFile(uri.fsPath)),
      writeFile: (uri: Uri, content: Uint8Array) => windowCall(() => fakeFs.writeFile(uri.fsPath, content)),
      createDirectory: (uri: Uri) => windowCall(() => fakeFs.createDirectory(uri.fsPath)),
      delete: (uri: Uri) => windowCall(() => fakeFs.delete(uri.fsPath)),
    },
    getConfiguration: (section: string) => ({
      get: <T>(key: string, fallback: T): T => (section === 'antigravity.mcp' && key in settings ? (settings[key] as T) : fallback),
    }),
    registerTextDocumentContentProvider: (scheme: string, provider: { provideTextDocumentContent(uri: Uri): string }) => {
      contentProviders.set(scheme, provider);
      return { dispose: () => contentProviders.delete(scheme) };
    },
    registerFileSystemProvider: (scheme: string, provider: FsProvider) => {
      fsProviders.set(scheme, provider);
      return { dispose: () => fsProviders.delete(scheme) };
    },
    applyEdit: async (edit: WorkspaceEdit) => {
      langServer.applied.push(edit);
      for (const [uri, edits] of edit.entries()) {
        const doc = await openDocument(uri);
        const sorted = [...edits].sort((a, b) => doc.offsetAt(b.range.start) - doc.offsetAt(a.range.start));
        for (const e of sorted) {
          doc.text = doc.text.slice(0, doc.offsetAt(e.range.start)) + e.newText + doc.text.slice(doc.offsetAt(e.range.end));
        }
        doc.isDirty = true;
      }
      return true;
    },
    onDidChangeConfiguration: configurationChanged.event,
    onDidChangeWorkspaceFolders: foldersChanged.event,
    get textDocuments() {
      return editorState.documents;
    },
    openTextDocument: (uri: Uri) => openDocument(uri),
  },
  window: {
    createOutputChannel: () => {
      const line = (level: string) => (message: string) => ui.output.push(`${level}: ${message}`);
      return { info: line('info'), warn: line('warn'), error: line('error'), show: () => undefined, dispose: () => undefined };
    },
    showInformationMessage: show('info'),
    showWarningMessage: show('warning'),
    showErrorMessage: show('error'),
    showTextDocument: async (target: Uri | FakeDocument, options?: { selection?: Range; preview?: boolean }) => {
      const uri = target instanceof FakeDocument ? target.uri : target;
      ui.opened.push(uri.fsPath);
      const document = await openDocument(uri);
      const selection = options?.selection ?? new Range(0, 0, 0, 0);
      for (const tab of editorState.tabs) {
        tab.isActive = false;
      }
      const isTab = (t: (typeof editorState.tabs)[number]) => t.input instanceof TabInputText && t.input.uri.toString() === uri.toString();
      if (!editorState.tabs.some(isTab)) {
        editorState.tabs.push({ input: new TabInputText(uri), isActive: true, isDirty: document.isDirty });
      }
      const tab = editorState.tabs.find(isTab);
      if (tab !== undefined) {
        tab.isActive = true;
      }
      editorState.active = { document, selection };
      activeChanged.fire({});
      return { document, selection, revealRange: () => undefined };
    },
    get activeTextEditor() {
      return editorState.active;
    },
    get tabGroups() {
      const group = { tabs: editorState.tabs, isActive: true, activeTab: editorState.tabs.find((t) => t.isActive) };
      const close = async (tabs: unknown) => {
        const closed: unknown[] = [];
        for (const tab of Array.isArray(tabs) ? tabs : [tabs]) {
          const index = editorState.tabs.indexOf(tab as (typeof editorState.tabs)[number]);
          if (index >= 0) {
            closed.push(...editorState.tabs.splice(index, 1));
          }
        }
        tabsChanged.fire({ opened: [], closed, changed: [] });
        return true;
      };
      return { all: [group], activeTabGroup: group, close, onDidChangeTabs: tabsChanged.event };
    },
    onDidChangeTextEditorSelection: selectionChanged.event,
    onDidChangeActiveTextEditor: activeChanged.event,
  },
  commands: {
    registerCommand: (name: string, run: (...args: unknown[]) => unknown) => {
      commands.set(name, run);
      return { dispose: () => commands.delete(name) };
    },
    executeCommand: async (name: string, ...args: unknown[]) => {
      if (ui.windowGone && builtinCommands.has(name)) {
        // The window runs the editor's own commands: with it gone, the call never comes back.
        return new Promise(() => undefined);
      }
      const run = commands.get(name) ?? builtinCommands.get(name);
      if (run === undefined) {
        // As the editor does: a command nobody registered is an error, not a silent no-op.
        throw new Error(`command '${name}' not found`);
      }
      return run(...args);
    },
  },
};

/** Makes `require('vscode')` return {@link vscode}. */
export function installFakeVscode(): void {
  const mod = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = mod._load;
  mod._load = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? vscode : load.call(this, request, ...rest);
  };
}

/** An `ExtensionContext` with what `activate` uses. */
export function extensionContext(): { subscriptions: { dispose(): unknown }[]; extension: { id: string; packageJSON: unknown } } {
  return { subscriptions: [], extension: { id: 'mcp-suite.ide-bridge', packageJSON: { version: '0.1.0' } } };
}
