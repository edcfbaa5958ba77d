/**
 * The core's {@link IdeState} over the `vscode` API: diagnostics from `languages`, tabs from
 * `window.tabGroups`, the selection of `window.activeTextEditor`, `showTextDocument` for
 * `ide/openFile`, dirty documents' text for `fs/read`, and change events for the notifications.
 *
 * Paths: the core works with the folders' canonical (symlink-resolved) paths; the editor names
 * documents by the folder path it opened. `toCanonical` maps one to the other.
 */

import * as vscode from 'vscode';

import { Change, EditorDiagnostic, EditorSelection, EditorTab, IdeState, Severity } from '../core';

/** After a file's first diagnostics, how long it must stay quiet before its analysis counts as done. */
export const QUIET_MS = 400;

const SEVERITY: Record<number, Severity> = { 0: 'error', 1: 'warning', 2: 'info', 3: 'hint' };

function codeText(code: vscode.Diagnostic['code']): string | undefined {
  if (code === undefined) {
    return undefined;
  }
  return typeof code === 'object' ? String(code.value) : String(code);
}

export class VscodeIde implements IdeState {
  /** Documents whose diagnostics the editor has reported at least once (by URI). */
  private readonly reported = new Set<string>();
  /** When each document's diagnostics were last reported, and when its text last changed. */
  private readonly reportedAt = new Map<string, number>();
  private readonly changedAt = new Map<string, number>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<Change>();

  /**
   * @param toUri the editor's URI of a (canonical) absolute path
   * @param toCanonical the canonical absolute path of a document's URI, if it is a local file
   */
  constructor(
    private readonly toUri: (abs: string) => vscode.Uri,
    private readonly toCanonical: (uri: vscode.Uri) => string | undefined,
  ) {
    this.disposables.push(
      vscode.languages.onDidChangeDiagnostics((event) => {
        for (const uri of event.uris) {
          this.reported.add(uri.toString());
          this.reportedAt.set(uri.toString(), Date.now());
        }
        this.changed.fire('diagnostics');
      }),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length > 0) {
          this.changedAt.set(event.document.uri.toString(), Date.now());
        }
      }),
      vscode.workspace.onDidOpenTextDocument((doc) => this.changedAt.set(doc.uri.toString(), Date.now())),
      vscode.window.onDidChangeTextEditorSelection(() => this.changed.fire('selection')),
      vscode.window.onDidChangeActiveTextEditor(() => this.changed.fire('selection')),
      this.changed,
    );
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) {
      d.dispose();
    }
  }

  private convert(uri: vscode.Uri, d: vscode.Diagnostic): EditorDiagnostic | undefined {
    const abs = this.toCanonical(uri);
    if (abs === undefined) {
      return undefined;
    }
    const source = d.source;
    const code = codeText(d.code);
    return {
      abs,
      line: d.range.start.line + 1,
      column: d.range.start.character + 1,
      endLine: d.range.end.line + 1,
      endColumn: d.range.end.character + 1,
      severity: SEVERITY[d.severity] ?? 'info',
      ...(source === undefined ? {} : { source }),
      ...(code === undefined ? {} : { code }),
      message: d.message,
    };
  }

  private diagnosticsOf(abs: string): EditorDiagnostic[] {
    const uri = this.toUri(abs);
    const out: EditorDiagnostic[] = [];
    for (const d of vscode.languages.getDiagnostics(uri)) {
      const converted = this.convert(uri, d);
      if (converted !== undefined) {
        out.push({ ...converted, abs });
      }
    }
    return out;
  }

  diagnostics(): EditorDiagnostic[] {
    const out: EditorDiagnostic[] = [];
    for (const [uri, list] of vscode.languages.getDiagnostics()) {
      for (const d of list) {
        const converted = this.convert(uri, d);
        if (converted !== undefined) {
          out.push(converted);
        }
      }
    }
    return out;
  }

  /** The tab showing `key` (a URI's text), if any. */
  private tabOf(key: string): vscode.Tab | undefined {
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        if (tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === key) {
          return tab;
        }
      }
    }
    return undefined;
  }

  /**
   * Whether the editor's copy of `uri` is the file's current content, waiting (until `deadline`)
   * for the editor to reload a file changed on disk: a buffer with unsaved changes is current as
   * it is, a file the editor has not loaded is read from disk when opened.
   */
  private async caughtUp(uri: vscode.Uri, key: string, deadline: number): Promise<boolean> {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
    if (doc === undefined || doc.isDirty) {
      return true;
    }
    const bytes = await Promise.resolve(vscode.workspace.fs.readFile(uri)).then(
      (b) => b,
      () => undefined,
    );
    if (bytes === undefined) {
      return true;
    }
    const normal = (text: string) => text.replace(/\r\n/g, '\n');
    const disk = normal(Buffer.from(bytes).toString('utf8'));
    while (!doc.isDirty && normal(doc.getText()) !== disk) {
      if (Date.now() + 50 > deadline) {
        return false;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return true;
  }

  /**
   * The diagnostics of `abs` for its current content (on disk, or its unsaved buffer): when the
   * editor has to reload it, or has not analysed it since it last changed, they are waited for
   * (bounded by `waitMs`); `settled` false when they could not be.
   */
  async analyse(abs: string, waitMs: number): Promise<{ opened: boolean; settled: boolean; diagnostics: EditorDiagnostic[] }> {
    const uri = this.toUri(abs);
    const key = uri.toString();
    const deadline = Date.now() + waitMs;
    const current = await this.caughtUp(uri, key, deadline);
    const fresh = () => this.reported.has(key) && (this.reportedAt.get(key) ?? 0) >= (this.changedAt.get(key) ?? 0);
    const hadTab = this.tabOf(key) !== undefined;
    if (hadTab && fresh()) {
      return { opened: false, settled: current, diagnostics: this.diagnosticsOf(abs) };
    }
    // Wait for a report of the current content, then for the language server to go quiet
    // (TypeScript reports syntax, then semantics, then suggestions, as separate updates).
    const settled = new Promise<boolean>((resolve) => {
      let quiet: NodeJS.Timeout | undefined;
      const timeout = setTimeout(() => finish(this.reported.has(key) && fresh()), Math.max(0, deadline - Date.now()));
      const listener = vscode.languages.onDidChangeDiagnostics((event) => {
        if (event.uris.some((u) => u.toString() === key)) {
          clearTimeout(quiet);
          quiet = setTimeout(() => finish(true), QUIET_MS);
        }
      });
      const finish = (value: boolean) => {
        clearTimeout(timeout);
        clearTimeout(quiet);
        listener.dispose();
        resolve(value);
      };
      // A report that came between the look above and the listener.
      if (hadTab && fresh()) {
        quiet = setTimeout(() => finish(true), QUIET_MS);
      }
    });
    if (hadTab) {
      return { opened: false, settled: (await settled) && current, diagnostics: this.diagnosticsOf(abs) };
    }
    // Language servers analyse what has a tab (VS Code's TypeScript checks only those): a tab
    // is opened without taking the focus, read, and closed again, so the user's editor comes
    // back as it was.
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: true });
    try {
      const done = await settled;
      return { opened: true, settled: done && current, diagnostics: this.diagnosticsOf(abs) };
    } finally {
      const tab = this.tabOf(key);
      if (tab !== undefined) {
        await Promise.resolve(vscode.window.tabGroups.close(tab, true)).then(undefined, () => undefined);
      }
    }
  }

  openEditors(): EditorTab[] {
    const tabs: EditorTab[] = [];
    const groups = vscode.window.tabGroups;
    for (const group of groups.all) {
      for (const tab of group.tabs) {
        if (!(tab.input instanceof vscode.TabInputText)) {
          continue;
        }
        const uri = tab.input.uri;
        const abs = this.toCanonical(uri);
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
        tabs.push({
          abs,
          active: tab.isActive && group === groups.activeTabGroup,
          dirty: tab.isDirty,
          ...(doc === undefined ? {} : { language: doc.languageId }),
        });
      }
    }
    return tabs;
  }

  private selectionOf(editor: vscode.TextEditor | undefined): EditorSelection | undefined {
    if (editor === undefined) {
      return undefined;
    }
    const abs = this.toCanonical(editor.document.uri);
    if (abs === undefined) {
      return undefined;
    }
    const s = editor.selection;
    return {
      abs,
      start: { line: s.start.line + 1, column: s.start.character + 1 },
      end: { line: s.end.line + 1, column: s.end.character + 1 },
      text: editor.document.getText(s),
    };
  }

  selection(): EditorSelection | undefined {
    return this.selectionOf(vscode.window.activeTextEditor);
  }

  async openFile(abs: string, line: number | undefined, endLine: number | undefined, preview: boolean): Promise<EditorSelection | undefined> {
    const doc = await vscode.workspace.openTextDocument(this.toUri(abs));
    let selection: vscode.Range | undefined;
    if (line !== undefined) {
      const last = Math.max(0, doc.lineCount - 1);
      const from = Math.min(line - 1, last);
      const to = Math.min((endLine ?? line) - 1, last);
      selection = new vscode.Range(from, 0, to, endLine === undefined ? 0 : doc.lineAt(to).text.length);
    }
    const editor = await vscode.window.showTextDocument(doc, { preview, preserveFocus: false, ...(selection === undefined ? {} : { selection }) });
    if (selection !== undefined) {
      editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }
    return this.selectionOf(editor);
  }

  unsavedText(abs: string): string | undefined {
    const key = this.toUri(abs).toString();
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
    return doc?.isDirty === true ? doc.getText() : undefined;
  }

  onChange(listener: (change: Change) => void): () => void {
    const subscription = this.changed.event(listener);
    return () => subscription.dispose();
  }
}
