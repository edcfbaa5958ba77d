/**
 * The IDE's live state on the wire (protocol version 2, §4.6–§4.10): `ide/diagnostics`,
 * `ide/openEditors`, `ide/selection`, `ide/openFile`, and the debounced change notifications.
 *
 * The editor is behind {@link IdeState} (absolute paths in, absolute paths out); this module
 * confines every path the bridge sends through the same {@link Files} as `fs/*` and writes every
 * path it returns the protocol's way (relative, `folder-name/…` in a multi-root workspace),
 * leaving out what lies outside the workspace folders. A host without an editor (tests, a
 * headless use) passes no state: no tabs and no selection, and "method not found" with the reason
 * for diagnostics and opening files.
 */

import { Files } from './files';
import {
  Code,
  DEFAULT_DIAGNOSTICS_WAIT_MS,
  Diagnostic,
  DiagnosticsParams,
  DiagnosticsResult,
  MAX_DIAGNOSTICS,
  MAX_SELECTION_TEXT,
  METHOD_OPEN_FILE,
  OpenEditorsResult,
  OpenFileParams,
  OpenFileResult,
  Position,
  Selection,
  SelectionResult,
  Severity,
  WireError,
} from './protocol';

/** A diagnostic as the editor has it (absolute path; lines and columns from 1). */
export interface EditorDiagnostic extends Omit<Diagnostic, 'path'> {
  abs: string;
}

/** A selection as the editor has it. */
export interface EditorSelection {
  abs: string;
  start: Position;
  end: Position;
  text: string;
}

/** An open tab as the editor has it. */
export interface EditorTab {
  /** Undefined: not a file on this machine (an untitled or virtual document). */
  abs: string | undefined;
  active: boolean;
  dirty: boolean;
  language?: string;
}

/** What changed, for the notifications. */
export type Change = 'selection' | 'diagnostics';

/** The editor's live state; the extension implements it over the `vscode` API. */
export interface IdeState {
  /** The diagnostics of every file. */
  diagnostics(): EditorDiagnostic[];
  /**
   * The diagnostics of `abs` once the language servers have analysed it: if the editor has no
   * report on it yet, it is opened in the background (whatever the language servers need to
   * analyse it) and its first report awaited, at most `waitMs`; what was opened for this is
   * closed again. `settled` is false when no report came in time.
   */
  analyse(abs: string, waitMs: number): Promise<{ opened: boolean; settled: boolean; diagnostics: EditorDiagnostic[] }>;
  /** The open text tabs, in the editor's order. */
  openEditors(): EditorTab[];
  /** The active editor's selection, if a text editor is active. */
  selection(): EditorSelection | undefined;
  /** Shows `abs` to the user, lines `line`..`endLine` selected (1-based, clamped to the file). */
  openFile(abs: string, line: number | undefined, endLine: number | undefined, preview: boolean): Promise<EditorSelection | undefined>;
  /** The unsaved text of `abs`, if it is open with unsaved changes. */
  unsavedText(abs: string): string | undefined;
  /** Calls `listener` on every change; returns the unsubscribe function. */
  onChange(listener: (change: Change) => void): () => void;
}

/** How long changes are gathered before one notification goes out. */
export const CHANGE_DEBOUNCE_MS = 300;

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2, hint: 3 };

/** The `ide/*` methods over one workspace's {@link Files}. */
export class Ide {
  constructor(
    private readonly files: Files,
    private readonly state: IdeState | undefined,
  ) {}

  private requireState(what: string): IdeState {
    if (this.state === undefined) {
      throw WireError.rpc(Code.METHOD_NOT_FOUND, `this host has no editor, so it ${what}`);
    }
    return this.state;
  }

  /** The protocol path of `abs`, or undefined when it is outside every folder. */
  private shown(abs: string): string | undefined {
    return this.files.confinement.protocolPath(abs);
  }

  /** `ide/diagnostics`. */
  async diagnostics(params: DiagnosticsParams): Promise<DiagnosticsResult> {
    const state = this.requireState('has no diagnostics');
    let opened = false;
    let settled = true;
    let found: EditorDiagnostic[] | undefined;
    if (params.path !== undefined && params.path !== null) {
      const target = await this.files.resolve(params.path, 'read');
      if (target.stat === undefined) {
        throw WireError.of('NOT_FOUND', `\`${params.path}\` does not exist`);
      }
      if (target.stat.type !== 'file') {
        throw WireError.of('INVALID_ARGS', `\`${params.path}\` is not a file`);
      }
      ({ opened, settled, diagnostics: found } = await state.analyse(target.abs, params.waitMs ?? DEFAULT_DIAGNOSTICS_WAIT_MS));
    }
    const wanted = (s: Severity) => params.includeInfo || s === 'error' || s === 'warning';
    const all: Diagnostic[] = [];
    for (const d of found ?? state.diagnostics()) {
      const path = this.shown(d.abs);
      if (path === undefined || !wanted(d.severity)) {
        continue;
      }
      const { abs: _abs, ...rest } = d;
      all.push({ path, ...rest });
    }
    all.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line || a.column - b.column || RANK[a.severity] - RANK[b.severity]));
    return {
      diagnostics: all.slice(0, MAX_DIAGNOSTICS),
      truncated: Math.max(0, all.length - MAX_DIAGNOSTICS),
      settled,
      opened,
    };
  }

  /** `ide/openEditors`. */
  openEditors(): OpenEditorsResult {
    if (this.state === undefined) {
      return { editors: [], outside: 0 };
    }
    const result: OpenEditorsResult = { editors: [], outside: 0 };
    for (const tab of this.state.openEditors()) {
      const path = tab.abs === undefined ? undefined : this.shown(tab.abs);
      if (path === undefined) {
        result.outside += 1;
        continue;
      }
      result.editors.push({ path, active: tab.active, dirty: tab.dirty, ...(tab.language === undefined ? {} : { language: tab.language }) });
    }
    return result;
  }

  private wire(selection: EditorSelection | undefined): Selection | undefined {
    if (selection === undefined) {
      return undefined;
    }
    const path = this.shown(selection.abs);
    if (path === undefined) {
      return undefined;
    }
    const cut = selection.text.length > MAX_SELECTION_TEXT;
    return {
      path,
      start: selection.start,
      end: selection.end,
      text: cut ? selection.text.slice(0, MAX_SELECTION_TEXT) : selection.text,
      ...(cut ? { textTruncated: true } : {}),
    };
  }

  /** `ide/selection`. */
  selection(): SelectionResult {
    return { selection: this.wire(this.state?.selection()) ?? null };
  }

  /** `ide/openFile`. */
  async openFile(params: OpenFileParams): Promise<OpenFileResult> {
    const state = this.requireState('has no window to show a file in');
    if ((params.endLine ?? undefined) !== undefined && (params.line ?? undefined) === undefined) {
      throw WireError.of('INVALID_ARGS', `invalid params for ${METHOD_OPEN_FILE}: \`endLine\` needs \`line\``);
    }
    if (params.line != null && params.endLine != null && params.endLine < params.line) {
      throw WireError.of('INVALID_ARGS', `invalid params for ${METHOD_OPEN_FILE}: \`endLine\` is before \`line\``);
    }
    const target = await this.files.resolve(params.path, 'read');
    if (target.stat === undefined) {
      throw WireError.of('NOT_FOUND', `\`${params.path}\` does not exist`);
    }
    if (target.stat.type !== 'file') {
      throw WireError.of('INVALID_ARGS', `\`${params.path}\` is not a file`);
    }
    const shown = await state.openFile(target.abs, params.line ?? undefined, params.endLine ?? undefined, params.preview);
    const path = this.shown(target.abs) ?? params.path;
    const selection = params.line != null ? this.wire(shown) : undefined;
    return selection === undefined ? { path } : { path, selection };
  }

  /**
   * Calls `notify` with the notification's method after changes, at most once per
   * {@link CHANGE_DEBOUNCE_MS} for each kind. Returns the function that stops it.
   */
  watch(notify: (change: Change) => void): () => void {
    if (this.state === undefined) {
      return () => undefined;
    }
    const timers = new Map<Change, NodeJS.Timeout>();
    const stop = this.state.onChange((change) => {
      if (timers.has(change)) {
        return;
      }
      const timer = setTimeout(() => {
        timers.delete(change);
        notify(change);
      }, CHANGE_DEBOUNCE_MS);
      timer.unref();
      timers.set(change, timer);
    });
    return () => {
      stop();
      for (const timer of timers.values()) {
        clearTimeout(timer);
      }
      timers.clear();
    };
  }
}
