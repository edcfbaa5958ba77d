/**
 * The core's {@link LangState} and {@link ReviewState} over the `vscode` API: the language
 * features through `vscode.execute*Provider` (the language servers the user's editor already
 * runs), proposed changes in the diff editor, and saving.
 *
 * A proposal's right side lives in an in-memory file system (`ide-bridge-change:`), so the user
 * can edit it like any file; saving it (Ctrl+S) or the ✓ in the editor's title bar accepts the
 * text as it is then, the ✕ or closing the tab rejects it.
 */

import * as path from 'node:path';

import * as vscode from 'vscode';

import {
  Decision,
  DiffView,
  EditorCall,
  EditorCodeAction,
  EditorHierarchyItem,
  EditorLocation,
  EditorRename,
  EditorSymbol,
  LangState,
  ReviewState,
  SignatureInfo,
} from '../core';

/** The scheme of proposed texts. */
export const PROPOSAL_SCHEME = 'ide-bridge-change';
/** The commands of the diff editor's title bar. */
export const ACCEPT_COMMAND = 'ideBridge.acceptChange';
export const REJECT_COMMAND = 'ideBridge.rejectChange';
/** How long a file opened for its code actions may take to get its diagnostics. */
export const ANALYSIS_WAIT_MS = 4000;
/** How long the tab of a file opened for its code actions stays after its last use. */
export const LINGER_MS = 30_000;
/** How long the window may take to open a diff before the proposal is refused as unavailable. */
export const DIFF_PROBE_MS = 5000;

interface OpenProposal {
  right: vscode.Uri;
  left: vscode.Uri;
  decided: boolean;
  decide: (decision: Decision) => void;
}

/** The in-memory files of the proposals (the right sides, and the empty left side of new files). */
class ProposalFs implements vscode.FileSystemProvider {
  private readonly files = new Map<string, { data: Uint8Array; mtime: number }>();
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;

  constructor(private readonly onSaved: (uri: vscode.Uri, data: Uint8Array) => void) {}

  put(uri: vscode.Uri, text: string): void {
    this.files.set(uri.toString(), { data: Buffer.from(text, 'utf8'), mtime: Date.now() });
  }

  remove(uri: vscode.Uri): void {
    this.files.delete(uri.toString());
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const file = this.files.get(uri.toString());
    if (file === undefined) {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    return { type: vscode.FileType.File, ctime: 0, mtime: file.mtime, size: file.data.length };
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  readFile(uri: vscode.Uri): Uint8Array {
    const file = this.files.get(uri.toString());
    if (file === undefined) {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    return file.data;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    if (!this.files.has(uri.toString())) {
      throw vscode.FileSystemError.NoPermissions(uri);
    }
    this.files.set(uri.toString(), { data: content, mtime: Date.now() });
    this.onSaved(uri, content);
  }

  delete(uri: vscode.Uri): void {
    this.files.delete(uri.toString());
  }

  rename(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
}

/**
 * The diff views of proposed changes, for the extension's lifetime: the file system, the title
 * bar's commands, and closed tabs counted as rejections.
 */
export class ProposalViews implements vscode.Disposable {
  private readonly open = new Map<string, OpenProposal>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly fs = new ProposalFs((uri, data) => {
    const proposal = this.open.get(uri.toString());
    if (proposal !== undefined && !proposal.decided) {
      proposal.decide({ accepted: true, text: Buffer.from(data).toString('utf8') });
    }
  });
  private next = 1;

  constructor() {
    this.disposables.push(
      vscode.workspace.registerFileSystemProvider(PROPOSAL_SCHEME, this.fs, { isCaseSensitive: true }),
      vscode.commands.registerCommand(ACCEPT_COMMAND, (uri?: vscode.Uri) => this.fromCommand(uri, true)),
      vscode.commands.registerCommand(REJECT_COMMAND, (uri?: vscode.Uri) => this.fromCommand(uri, false)),
      vscode.window.tabGroups.onDidChangeTabs((event) => {
        for (const tab of event.closed) {
          if (tab.input instanceof vscode.TabInputTextDiff) {
            const proposal = this.open.get(tab.input.modified.toString());
            if (proposal !== undefined && !proposal.decided) {
              proposal.decide({ accepted: false });
            }
          }
        }
      }),
    );
  }

  dispose(): void {
    for (const proposal of this.open.values()) {
      if (!proposal.decided) {
        proposal.decide({ accepted: false });
      }
    }
    for (const d of this.disposables.splice(0)) {
      d.dispose();
    }
  }

  /** The proposal a title-bar command is about: its argument, or the active diff tab's. */
  private async fromCommand(uri: vscode.Uri | undefined, accepted: boolean): Promise<void> {
    let key = uri?.scheme === PROPOSAL_SCHEME ? uri.toString() : undefined;
    if (key === undefined) {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      key = input instanceof vscode.TabInputTextDiff ? input.modified.toString() : undefined;
    }
    const proposal = key === undefined ? undefined : this.open.get(key);
    if (proposal === undefined || proposal.decided) {
      return;
    }
    if (accepted) {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
      proposal.decide({ accepted: true, text: doc !== undefined ? doc.getText() : Buffer.from(this.fs.readFile(proposal.right)).toString('utf8') });
    } else {
      proposal.decide({ accepted: false });
    }
  }

  private tabOf(right: vscode.Uri): vscode.Tab | undefined {
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        if (tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === right.toString()) {
          return tab;
        }
      }
    }
    return undefined;
  }

  /** Closes the view of a decided proposal without asking the user to save anything. */
  private async closeView(proposal: OpenProposal): Promise<void> {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === proposal.right.toString());
    if (doc?.isDirty === true) {
      await doc.save().then(undefined, () => false);
    }
    const tab = this.tabOf(proposal.right);
    if (tab !== undefined) {
      await Promise.resolve(vscode.window.tabGroups.close(tab, true)).then(undefined, () => undefined);
    }
    this.open.delete(proposal.right.toString());
    this.fs.remove(proposal.right);
    if (proposal.left.scheme === PROPOSAL_SCHEME) {
      this.fs.remove(proposal.left);
    }
  }

  /** Shows `left` (the file, or nothing for a new one) against `proposed`. */
  async show(left: vscode.Uri | undefined, proposed: string, shown: string): Promise<DiffView> {
    const n = this.next++;
    const right = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${n}/${shown}` });
    this.fs.put(right, proposed);
    let leftUri = left;
    if (leftUri === undefined) {
      leftUri = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${n}/empty/${shown}` });
      this.fs.put(leftUri, '');
    }
    let resolveDecision: (decision: Decision) => void = () => undefined;
    const decision = new Promise<Decision>((resolve) => {
      resolveDecision = resolve;
    });
    const proposal: OpenProposal = {
      right,
      left: leftUri,
      decided: false,
      decide: (d) => {
        if (proposal.decided) {
          return;
        }
        proposal.decided = true;
        resolveDecision(d);
        void this.closeView(proposal);
      },
    };
    this.open.set(right.toString(), proposal);
    const title = `${path.posix.basename(shown)}: proposed change (✓ or Ctrl+S accepts, ✕ rejects)`;
    // The window opens the diff; with no window (a browser tab closed under code-server), the
    // command never comes back, so it is given a few seconds.
    let timer: NodeJS.Timeout | undefined;
    const opened = await Promise.race([
      Promise.resolve(vscode.commands.executeCommand('vscode.diff', leftUri, right, title, { preview: false })).then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), DIFF_PROBE_MS);
      }),
    ]);
    clearTimeout(timer);
    if (!opened) {
      proposal.decide({ accepted: false });
      throw new Error(`the editor window did not open the diff within ${DIFF_PROBE_MS / 1000} s`);
    }
    return {
      decision,
      close: async () => proposal.decide({ accepted: false }),
    };
  }
}

/** `vscode.SymbolKind`'s name of `kind`, in lower case (`class`, `function`, …). */
function kindName(kind: vscode.SymbolKind): string {
  const name = (vscode.SymbolKind as unknown as Record<number, string | undefined>)[kind];
  return typeof name === 'string' ? name.toLowerCase() : 'symbol';
}

function hoverText(content: vscode.MarkdownString | vscode.MarkedString): string {
  if (typeof content === 'string') {
    return content;
  }
  if (content instanceof vscode.MarkdownString) {
    return content.value;
  }
  if ('language' in content) {
    return `\`\`\`${content.language}\n${content.value}\n\`\`\``;
  }
  return String((content as { value?: unknown }).value ?? '');
}

export class VscodeLang implements LangState, ReviewState {
  /** The tabs opened in the background for code actions, and the timers that close them. */
  private readonly lingering = new Map<string, NodeJS.Timeout>();

  /**
   * @param toUri the editor's URI of a (canonical) absolute path
   * @param toCanonical the canonical absolute path of a document's URI, if it is a local file
   */
  constructor(
    private readonly toUri: (abs: string) => vscode.Uri,
    private readonly toCanonical: (uri: vscode.Uri) => string | undefined,
    private readonly views: ProposalViews,
  ) {}

  private location(uri: vscode.Uri, range: vscode.Range): EditorLocation {
    return {
      abs: this.toCanonical(uri),
      name: path.posix.basename(uri.path),
      line: range.start.line + 1,
      column: range.start.character + 1,
      endLine: range.end.line + 1,
      endColumn: range.end.character + 1,
    };
  }

  private position(line: number, column: number): vscode.Position {
    return new vscode.Position(line - 1, column - 1);
  }

  async document(abs: string): Promise<{ text: string; language: string }> {
    const doc = await vscode.workspace.openTextDocument(this.toUri(abs));
    return { text: doc.getText(), language: doc.languageId };
  }

  async hover(abs: string, line: number, column: number): Promise<string[]> {
    const hovers =
      (await vscode.commands.executeCommand<vscode.Hover[] | undefined>('vscode.executeHoverProvider', this.toUri(abs), this.position(line, column))) ??
      [];
    return hovers.flatMap((h) => h.contents.map(hoverText)).filter((t) => t.trim() !== '');
  }

  async definition(abs: string, line: number, column: number): Promise<EditorLocation[]> {
    const found =
      (await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[] | undefined>(
        'vscode.executeDefinitionProvider',
        this.toUri(abs),
        this.position(line, column),
      )) ?? [];
    return found.map((l) => ('targetUri' in l ? this.location(l.targetUri, l.targetSelectionRange ?? l.targetRange) : this.location(l.uri, l.range)));
  }

  async references(abs: string, line: number, column: number, includeDeclaration: boolean): Promise<EditorLocation[]> {
    const found =
      (await vscode.commands.executeCommand<vscode.Location[] | undefined>('vscode.executeReferenceProvider', this.toUri(abs), this.position(line, column))) ??
      [];
    const all = found.map((l) => this.location(l.uri, l.range));
    if (includeDeclaration) {
      return all;
    }
    const declarations = new Set((await this.definition(abs, line, column)).map((d) => `${d.abs}:${d.line}:${d.column}`));
    return all.filter((l) => !declarations.has(`${l.abs}:${l.line}:${l.column}`));
  }

  private fromDocumentSymbol(s: vscode.DocumentSymbol): EditorSymbol {
    return {
      name: s.name,
      kind: kindName(s.kind),
      ...(s.detail ? { detail: s.detail } : {}),
      line: s.range.start.line + 1,
      endLine: s.range.end.line + 1,
      children: s.children.map((c) => this.fromDocumentSymbol(c)),
    };
  }

  private fromInformation(s: vscode.SymbolInformation): EditorSymbol {
    const range = s.location.range ?? new vscode.Range(0, 0, 0, 0);
    return {
      name: s.name,
      kind: kindName(s.kind),
      ...(s.containerName ? { container: s.containerName } : {}),
      location: this.location(s.location.uri, range),
      line: range.start.line + 1,
      endLine: range.end.line + 1,
      children: [],
    };
  }

  async documentSymbols(abs: string): Promise<EditorSymbol[]> {
    const found =
      (await vscode.commands.executeCommand<(vscode.DocumentSymbol | vscode.SymbolInformation)[] | undefined>(
        'vscode.executeDocumentSymbolProvider',
        this.toUri(abs),
      )) ?? [];
    return found.map((s) => ('children' in s ? this.fromDocumentSymbol(s) : this.fromInformation(s)));
  }

  async workspaceSymbols(query: string): Promise<EditorSymbol[]> {
    const found = (await vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>('vscode.executeWorkspaceSymbolProvider', query)) ?? [];
    return found.map((s) => this.fromInformation(s));
  }

  async rename(abs: string, line: number, column: number, newName: string): Promise<EditorRename> {
    const edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit | undefined>(
      'vscode.executeDocumentRenameProvider',
      this.toUri(abs),
      this.position(line, column),
      newName,
    );
    if (edit === undefined) {
      throw new Error('no rename provider answered for this file');
    }
    return this.plan(edit);
  }

  /** A workspace edit as a plan: each file's text before and after, and the edit to apply. */
  private async plan(edit: vscode.WorkspaceEdit): Promise<EditorRename> {
    const files = [];
    for (const [uri, edits] of edit.entries()) {
      const canonical = this.toCanonical(uri);
      let before: string | undefined;
      let after: string | undefined;
      try {
        const doc = await vscode.workspace.openTextDocument(uri);
        before = doc.getText();
        const sorted = [...edits].sort((a, b) => doc.offsetAt(b.range.start) - doc.offsetAt(a.range.start));
        after = before;
        for (const e of sorted) {
          after = after.slice(0, doc.offsetAt(e.range.start)) + e.newText + after.slice(doc.offsetAt(e.range.end));
        }
      } catch {
        before = undefined;
        after = undefined;
      }
      files.push({ abs: canonical, name: path.posix.basename(uri.path), edits: edits.length, before, after });
    }
    return {
      files,
      apply: async (save = true) => {
        if (!(await vscode.workspace.applyEdit(edit))) {
          throw new Error('the editor refused to apply the edit');
        }
        if (!save) {
          return;
        }
        for (const [uri] of edit.entries()) {
          const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
          if (doc?.isDirty === true) {
            await doc.save();
          }
        }
      },
    };
  }

  async implementations(abs: string, line: number, column: number): Promise<EditorLocation[]> {
    const found =
      (await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[] | undefined>(
        'vscode.executeImplementationProvider',
        this.toUri(abs),
        this.position(line, column),
      )) ?? [];
    return found.map((l) => ('targetUri' in l ? this.location(l.targetUri, l.targetSelectionRange ?? l.targetRange) : this.location(l.uri, l.range)));
  }

  private hierarchyItem(item: vscode.CallHierarchyItem | vscode.TypeHierarchyItem): EditorHierarchyItem {
    return { name: item.name, kind: kindName(item.kind), location: this.location(item.uri, item.selectionRange), handle: item };
  }

  async prepareCallHierarchy(abs: string, line: number, column: number): Promise<EditorHierarchyItem[]> {
    const found =
      (await vscode.commands.executeCommand<vscode.CallHierarchyItem[] | undefined>('vscode.prepareCallHierarchy', this.toUri(abs), this.position(line, column))) ?? [];
    return found.map((i) => this.hierarchyItem(i));
  }

  async calls(item: EditorHierarchyItem, direction: 'incoming' | 'outgoing'): Promise<EditorCall[]> {
    const handle = item.handle as vscode.CallHierarchyItem;
    if (direction === 'incoming') {
      const found = (await vscode.commands.executeCommand<vscode.CallHierarchyIncomingCall[] | undefined>('vscode.provideIncomingCalls', handle)) ?? [];
      return found.map((c) => ({ item: this.hierarchyItem(c.from), sites: c.fromRanges.map((r) => this.location(c.from.uri, r)) }));
    }
    const found = (await vscode.commands.executeCommand<vscode.CallHierarchyOutgoingCall[] | undefined>('vscode.provideOutgoingCalls', handle)) ?? [];
    return found.map((c) => ({ item: this.hierarchyItem(c.to), sites: c.fromRanges.map((r) => this.location(handle.uri, r)) }));
  }

  async prepareTypeHierarchy(abs: string, line: number, column: number): Promise<EditorHierarchyItem[]> {
    const found =
      (await vscode.commands.executeCommand<vscode.TypeHierarchyItem[] | undefined>('vscode.prepareTypeHierarchy', this.toUri(abs), this.position(line, column))) ?? [];
    return found.map((i) => this.hierarchyItem(i));
  }

  async relatedTypes(item: EditorHierarchyItem, direction: 'supertypes' | 'subtypes'): Promise<EditorHierarchyItem[]> {
    const command = direction === 'supertypes' ? 'vscode.provideSupertypes' : 'vscode.provideSubtypes';
    const found = (await vscode.commands.executeCommand<vscode.TypeHierarchyItem[] | undefined>(command, item.handle)) ?? [];
    return found.map((i) => this.hierarchyItem(i));
  }

  async signatureHelp(abs: string, line: number, column: number): Promise<{ signatures: SignatureInfo[]; activeSignature: number } | undefined> {
    const help = await vscode.commands.executeCommand<vscode.SignatureHelp | undefined>(
      'vscode.executeSignatureHelpProvider',
      this.toUri(abs),
      this.position(line, column),
    );
    if (help === undefined) {
      return undefined;
    }
    const text = (d: string | vscode.MarkdownString | undefined) => (d === undefined ? undefined : typeof d === 'string' ? d : d.value);
    const signatures = help.signatures.map((s, i) => {
      const parameters = s.parameters.map((p) => (typeof p.label === 'string' ? p.label : s.label.slice(p.label[0], p.label[1])));
      const active = s.activeParameter ?? (i === help.activeSignature ? help.activeParameter : undefined);
      const documentation = text(s.documentation);
      return { label: s.label, parameters, ...(documentation ? { documentation } : {}), ...(active === undefined ? {} : { activeParameter: active }) };
    });
    return { signatures, activeSignature: help.activeSignature };
  }

  /**
   * Runs `work` while `uri` has a tab and its diagnostics are reported: quick fixes are offered
   * for the diagnostics in the range, and language servers report only on open files. A file
   * without a tab is opened in the background (the focus stays) and closed again after.
   */
  private async withDiagnostics<T>(uri: vscode.Uri, work: () => Promise<T>): Promise<T> {
    const key = uri.toString();
    const tabOf = () =>
      vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === key);
    // A tab this opened stays a while after its last use (a model asks for the actions, then
    // previews and applies one), then closes, unless the user has made it theirs.
    const linger = () => {
      clearTimeout(this.lingering.get(key));
      this.lingering.set(
        key,
        setTimeout(() => {
          this.lingering.delete(key);
          const tab = tabOf();
          if (tab !== undefined && !tab.isActive && !tab.isDirty) {
            void Promise.resolve(vscode.window.tabGroups.close(tab, true)).then(undefined, () => undefined);
          }
        }, LINGER_MS).unref(),
      );
    };
    if (tabOf() !== undefined) {
      if (this.lingering.has(key)) {
        linger();
      }
      return work();
    }
    const reported = new Promise<void>((resolve) => {
      let quiet: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        clearTimeout(quiet);
        listener.dispose();
        resolve();
      };
      const timer = setTimeout(done, ANALYSIS_WAIT_MS);
      const listener = vscode.languages.onDidChangeDiagnostics((event) => {
        if (event.uris.some((u) => u.toString() === key)) {
          clearTimeout(quiet);
          quiet = setTimeout(done, 400);
        }
      });
    });
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: true });
    linger();
    await reported;
    return work();
  }

  async codeActions(abs: string, line: number, endLine: number): Promise<EditorCodeAction[]> {
    const uri = this.toUri(abs);
    return this.withDiagnostics(uri, () => this.actionsAt(uri, line, endLine));
  }

  private async actionsAt(uri: vscode.Uri, line: number, endLine: number): Promise<EditorCodeAction[]> {
    const doc = await vscode.workspace.openTextDocument(uri);
    const last = Math.min(endLine, doc.lineCount) - 1;
    const range = new vscode.Range(line - 1, 0, last, doc.lineAt(Math.max(0, last)).text.length);
    const found =
      (await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[] | undefined>('vscode.executeCodeActionProvider', uri, range, undefined, 50)) ?? [];
    // The diagnostics of the range: what a quick fix that does not name its own fixes.
    const here = vscode.languages.getDiagnostics(uri).filter((d) => d.range.intersection(range) !== undefined);
    const described = (list: readonly vscode.Diagnostic[]) =>
      list.map((d) => ({ message: d.message, ...(d.code === undefined ? {} : { code: typeof d.code === 'object' ? String(d.code.value) : String(d.code) }) }));
    const out: EditorCodeAction[] = [];
    for (const a of found) {
      if (!('title' in a)) {
        continue;
      }
      if ('command' in a && typeof a.command === 'string') {
        const command = a as vscode.Command;
        out.push({ title: command.title, preferred: false, fixes: [], run: async () => void (await vscode.commands.executeCommand(command.command, ...(command.arguments ?? []))), commandName: command.command });
        continue;
      }
      const action = a as vscode.CodeAction;
      if (action.disabled !== undefined) {
        continue;
      }
      const quickFix = action.kind !== undefined && vscode.CodeActionKind.QuickFix.contains(action.kind);
      const fixes = described(action.diagnostics !== undefined && action.diagnostics.length > 0 ? action.diagnostics : quickFix ? here : []);
      const command = action.command;
      out.push({
        title: action.title,
        ...(action.kind === undefined ? {} : { kind: action.kind.value }),
        preferred: action.isPreferred === true,
        fixes,
        ...(action.edit === undefined ? {} : { edit: await this.plan(action.edit) }),
        ...(command === undefined ? {} : { run: async () => void (await vscode.commands.executeCommand(command.command, ...(command.arguments ?? []))), commandName: command.command }),
      });
    }
    return out;
  }

  async format(abs: string, line?: number, endLine?: number): Promise<EditorRename | undefined> {
    const uri = this.toUri(abs);
    const doc = await vscode.workspace.openTextDocument(uri);
    const config = vscode.workspace.getConfiguration('editor', uri);
    const options = { tabSize: config.get<number>('tabSize', 4), insertSpaces: config.get<boolean>('insertSpaces', true) };
    const edits =
      line === undefined
        ? await vscode.commands.executeCommand<vscode.TextEdit[] | undefined>('vscode.executeFormatDocumentProvider', uri, options)
        : await vscode.commands.executeCommand<vscode.TextEdit[] | undefined>(
            'vscode.executeFormatRangeProvider',
            uri,
            new vscode.Range(line - 1, 0, Math.min(endLine ?? line, doc.lineCount) - 1, doc.lineAt(Math.min(endLine ?? line, doc.lineCount) - 1).text.length),
            options,
          );
    if (edits === undefined || edits.length === 0) {
      return undefined;
    }
    const edit = new vscode.WorkspaceEdit();
    edit.set(uri, edits);
    const plan = await this.plan(edit);
    return plan.files.every((f) => f.before !== undefined && f.before === f.after) ? undefined : plan;
  }

  async save(abs: string): Promise<{ saved: boolean; open: boolean; text?: string }> {
    const key = this.toUri(abs).toString();
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
    if (doc === undefined) {
      return { saved: false, open: false };
    }
    if (!doc.isDirty) {
      return { saved: false, open: true };
    }
    const text = doc.getText();
    return { saved: await doc.save(), open: true, text };
  }

  async showDiff(abs: string, exists: boolean, proposed: string, shown: string): Promise<DiffView> {
    return this.views.show(exists ? this.toUri(abs) : undefined, proposed, shown);
  }
}
