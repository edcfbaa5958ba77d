/**
 * The language servers on the wire (protocol versions 3 and 4, §4.11–§4.15, §4.18–§4.23):
 * `lang/definition`, `lang/references`, `lang/hover`, `lang/symbols`, `lang/rename`;
 * `lang/implementations`, `lang/callHierarchy`, `lang/typeHierarchy`, `lang/signatureHelp`,
 * `lang/codeActions`, `lang/applyCodeAction`, `lang/format`.
 *
 * The editor is behind {@link LangState} (absolute paths, 1-based lines and columns). This module
 * confines every path through the same {@link Files} as `fs/*`, finds the symbol's column on its
 * line (models name a symbol by its text; they get columns wrong), waits (bounded) for a language
 * server that is still starting rather than passing off its silence as "nothing found", writes
 * every path the protocol's way, and names a file outside the workspace folders without its
 * content.
 */

import { createHash } from 'node:crypto';
import * as path from 'node:path';

import { Files } from './files';
import {
  ApplyCodeActionParams,
  CodeActionInfo,
  CodeActionsParams,
  CodeActionsResult,
  DEFAULT_LANG_WAIT_MS,
  EditResult,
  FormatParams,
  HierarchyItem,
  HierarchyParams,
  HierarchyResult,
  MAX_CODE_ACTIONS,
  MAX_HIERARCHY_ITEMS,
  SignatureHelpResult,
  SignatureInfo,
  HoverResult,
  Location,
  LocationsResult,
  MAX_LOCATION_TEXT,
  MAX_LOCATIONS,
  ReferencesParams,
  RenameFile,
  RenameParams,
  RenameResult,
  ResolvedSymbol,
  SymbolAt,
  SymbolInfo,
  SymbolsParams,
  SymbolsResult,
  WireError,
} from './protocol';

/** A place as the editor has it (1-based). `abs` undefined: not a file on this machine. */
export interface EditorLocation {
  abs: string | undefined;
  /** The resource's name for a reader (a file name, or the URI of a virtual document). */
  name: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** A symbol as the editor has it. */
export interface EditorSymbol {
  name: string;
  kind: string;
  detail?: string;
  container?: string;
  /** Workspace search: its file. */
  location?: EditorLocation;
  line: number;
  endLine: number;
  children: EditorSymbol[];
}

/** One file a rename changes, as the editor computed it. */
export interface EditorRenameFile {
  abs: string | undefined;
  name: string;
  edits: number;
  /** The text before and after, when the editor could read it. */
  before?: string;
  after?: string;
}

/** A rename (or any workspace edit) the editor computed and can apply as one edit. */
export interface EditorRename {
  files: EditorRenameFile[];
  /** Applies the edit (one undo in the editor) and, unless `save` is false, saves the files it touched. */
  apply(save?: boolean): Promise<void>;
}

/** An item of a call or type hierarchy as the editor has it; `handle` asks for the next level. */
export interface EditorHierarchyItem {
  name: string;
  kind: string;
  location: EditorLocation;
  handle: unknown;
}

/** One caller or callee, and where its calls are. */
export interface EditorCall {
  item: EditorHierarchyItem;
  sites: EditorLocation[];
}

/** A code action as the editor offers it. */
export interface EditorCodeAction {
  title: string;
  kind?: string;
  preferred: boolean;
  /** The messages of the diagnostics it fixes, and their codes. */
  fixes: { message: string; code?: string }[];
  /** Its edit, when it has one. */
  edit?: EditorRename;
  /** Runs its command, when it has one. */
  run?: () => Promise<void>;
  /** The command's id, when it has one. */
  commandName?: string;
}

/** The editor's language features; the extension implements it over `vscode.execute*Provider`. */
export interface LangState {
  /** The document's text as the editor has it (unsaved changes included), and its language id. */
  document(abs: string): Promise<{ text: string; language: string }>;
  /** The hover's parts as Markdown (empty: none). */
  hover(abs: string, line: number, column: number): Promise<string[]>;
  definition(abs: string, line: number, column: number): Promise<EditorLocation[]>;
  references(abs: string, line: number, column: number, includeDeclaration: boolean): Promise<EditorLocation[]>;
  /** The file's outline. */
  documentSymbols(abs: string): Promise<EditorSymbol[]>;
  /** The workspace's symbols matching `query`. */
  workspaceSymbols(query: string): Promise<EditorSymbol[]>;
  /** The rename's edits; throws an Error with the language server's reason when it cannot. */
  rename(abs: string, line: number, column: number, newName: string): Promise<EditorRename>;
  implementations(abs: string, line: number, column: number): Promise<EditorLocation[]>;
  /** The call hierarchy's roots at the position (empty: none). */
  prepareCallHierarchy(abs: string, line: number, column: number): Promise<EditorHierarchyItem[]>;
  calls(item: EditorHierarchyItem, direction: 'incoming' | 'outgoing'): Promise<EditorCall[]>;
  /** The type hierarchy's roots at the position (empty: none). */
  prepareTypeHierarchy(abs: string, line: number, column: number): Promise<EditorHierarchyItem[]>;
  relatedTypes(item: EditorHierarchyItem, direction: 'supertypes' | 'subtypes'): Promise<EditorHierarchyItem[]>;
  signatureHelp(abs: string, line: number, column: number): Promise<{ signatures: SignatureInfo[]; activeSignature: number } | undefined>;
  /** The code actions for lines `line`..`endLine` (and the diagnostics there). */
  codeActions(abs: string, line: number, endLine: number): Promise<EditorCodeAction[]>;
  /** The formatter's edit of the file (or of lines `line`..`endLine`), undefined when nothing changes. */
  format(abs: string, line?: number, endLine?: number): Promise<EditorRename | undefined>;
}

/** How long to sleep between two asks of a language server that is not ready yet. */
export const POLL_MS = 250;
/** How long apart two answers of a language server that has just come up must agree. */
export const SETTLE_MS = 1000;

const IDENT = /[\p{L}\p{N}_$]/u;

/**
 * Where `symbol` is on `text` (one line): the 1-based UTF-16 column of the occurrence `column`
 * falls in (else the first at or after it, else the last), or of the first without `column`, and
 * how many there are. Occurrences are whole words where the symbol starts or ends with an
 * identifier character; plain substrings when there is no whole-word one.
 */
export function findSymbol(text: string, symbol: string, column?: number): { column: number; occurrences: number } | undefined {
  const all: number[] = [];
  for (let at = text.indexOf(symbol); at >= 0; at = text.indexOf(symbol, at + 1)) {
    all.push(at);
  }
  const whole = all.filter((at) => {
    const before = text[at - 1];
    const after = text[at + symbol.length];
    const startsWord = IDENT.test(symbol[0] ?? '');
    const endsWord = IDENT.test(symbol[symbol.length - 1] ?? '');
    return (!startsWord || before === undefined || !IDENT.test(before)) && (!endsWord || after === undefined || !IDENT.test(after));
  });
  const found = whole.length > 0 ? whole : all;
  if (found.length === 0) {
    return undefined;
  }
  let chosen = found[0];
  if (column !== undefined) {
    const index = column - 1;
    chosen = found.find((at) => index >= at && index < at + symbol.length) ?? found.find((at) => at >= index) ?? found[found.length - 1];
  }
  return { column: chosen + 1, occurrences: found.length };
}

/** Whether a hover says only that the language server is still loading (TypeScript's "(loading...)"). */
function isLoading(contents: string[]): boolean {
  return contents.length > 0 && contents.every((c) => c.trim().length < 40 && /loading/i.test(c));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** The `lang/*` methods over one workspace's {@link Files}. */
export class Lang {
  /** The languages whose server has answered in this host's lifetime: its silence is an answer. */
  private readonly warm = new Set<string>();

  constructor(
    private readonly files: Files,
    private readonly state: LangState | undefined,
  ) {}

  private requireState(): LangState {
    if (this.state === undefined) {
      throw WireError.rpc(-32601, 'this host has no editor, so no language server answers through it');
    }
    return this.state;
  }

  /** The absolute path of a workspace file `shown`, refused as the protocol says. */
  private async file(shown: string): Promise<string> {
    const target = await this.files.resolve(shown, 'read');
    if (target.stat === undefined) {
      throw WireError.of('NOT_FOUND', `\`${shown}\` does not exist`);
    }
    if (target.stat.type !== 'file') {
      throw WireError.of('INVALID_ARGS', `\`${shown}\` is not a file`);
    }
    return target.abs;
  }

  /** The document as the editor has it; plain text is refused: no language server reads it. */
  private async document(abs: string, shown: string): Promise<{ text: string; language: string }> {
    const doc = await this.requireState().document(abs);
    if (doc.language === 'plaintext') {
      throw WireError.of('INVALID_ARGS', `\`${shown}\` is plain text to the editor: no language server reads it; use read_file instead`);
    }
    return doc;
  }

  /** The symbol's position in its document, or the error that says why there is none. */
  private async locate(params: SymbolAt): Promise<{ abs: string; resolved: ResolvedSymbol; language: string }> {
    const abs = await this.file(params.path);
    const { text, language } = await this.document(abs, params.path);
    const lines = text.split(/\r\n|\r|\n/);
    if (params.line > lines.length) {
      throw WireError.of('INVALID_ARGS', `\`${params.path}\` has ${lines.length} lines; line ${params.line} is past its end`);
    }
    const lineText = lines[params.line - 1];
    const found = findSymbol(lineText, params.symbol, params.column ?? undefined);
    if (found === undefined) {
      const shown = lineText.length > 200 ? `${lineText.slice(0, 200)}…` : lineText;
      throw WireError.of(
        'INVALID_ARGS',
        `\`${params.symbol}\` does not occur on line ${params.line} of \`${params.path}\` (the line reads: \`${shown.trim()}\`); check the line number with read_file`,
      );
    }
    return { abs, language, resolved: { line: params.line, column: found.column, occurrences: found.occurrences, language } };
  }

  /**
   * The hover at the position once the language server answers (its first answer also says it
   * is up), or undefined when it was still loading at the deadline. A language that has answered
   * before needs no wait: its empty hover is an answer.
   */
  private async ready(abs: string, resolved: ResolvedSymbol, language: string, waitMs: number): Promise<string[] | undefined> {
    const state = this.requireState();
    const deadline = Date.now() + waitMs;
    for (;;) {
      const contents = await state.hover(abs, resolved.line, resolved.column);
      if (contents.length > 0 && !isLoading(contents)) {
        this.warm.add(language);
        return contents;
      }
      if (contents.length === 0 && this.warm.has(language)) {
        return [];
      }
      if (Date.now() + POLL_MS > deadline) {
        return undefined;
      }
      await sleep(POLL_MS);
    }
  }

  /** Locations the protocol's way: workspace files with their line's text, first; externals named. */
  private async locations(found: EditorLocation[]): Promise<{ locations: Location[]; truncated: number }> {
    const state = this.requireState();
    const texts = new Map<string, string[] | undefined>();
    const inside: Location[] = [];
    const outside: Location[] = [];
    for (const l of found) {
      const shown = l.abs === undefined ? undefined : this.files.confinement.protocolPath(l.abs);
      const span = { line: l.line, column: l.column, endLine: l.endLine, endColumn: l.endColumn };
      if (shown === undefined || l.abs === undefined) {
        outside.push({ external: l.abs === undefined ? l.name : path.basename(l.abs), ...span });
        continue;
      }
      if (!texts.has(l.abs)) {
        texts.set(l.abs, await state.document(l.abs).then((d) => d.text.split(/\r\n|\r|\n/), () => undefined));
      }
      const line = texts.get(l.abs)?.[l.line - 1];
      inside.push({ path: shown, ...span, ...(line === undefined ? {} : { text: line.slice(0, MAX_LOCATION_TEXT) }) });
    }
    inside.sort((a, b) => ((a.path ?? '') < (b.path ?? '') ? -1 : (a.path ?? '') > (b.path ?? '') ? 1 : a.line - b.line || a.column - b.column));
    const seen = new Set<string>();
    const all = [...inside, ...outside].filter((l) => {
      const key = `${l.path ?? l.external}:${l.line}:${l.column}`;
      return seen.has(key) ? false : (seen.add(key), true);
    });
    return { locations: all.slice(0, MAX_LOCATIONS), truncated: Math.max(0, all.length - MAX_LOCATIONS) };
  }

  /**
   * `query`'s answer once it stops changing, when the language server came up during this request
   * (`cold`): one that has just loaded a file may still be loading the rest of its project
   * (TypeScript answers with one file's references first, the whole project's a moment later), so
   * it is asked again every {@link SETTLE_MS} until two answers agree, or the deadline. A language
   * that had answered before is asked once.
   */
  private async settle<T>(cold: boolean, deadline: number, query: () => Promise<T>, key: (answer: T) => string): Promise<T> {
    let answer = await query();
    while (cold && Date.now() + SETTLE_MS <= deadline) {
      await sleep(SETTLE_MS);
      const again = await query();
      const same = key(again) === key(answer);
      answer = again;
      if (same) {
        break;
      }
    }
    return answer;
  }

  /** `lang/definition` and `lang/references`: the symbol, then the locations `query` finds. */
  private async find(
    params: SymbolAt,
    query: (abs: string, resolved: ResolvedSymbol) => Promise<EditorLocation[]>,
  ): Promise<LocationsResult> {
    const deadline = Date.now() + (params.waitMs ?? DEFAULT_LANG_WAIT_MS);
    const { abs, resolved, language } = await this.locate(params);
    const cold = !this.warm.has(language);
    if ((await this.ready(abs, resolved, language, params.waitMs ?? DEFAULT_LANG_WAIT_MS)) === undefined) {
      return { resolved, locations: [], truncated: 0, loading: true };
    }
    const key = (found: EditorLocation[]) => JSON.stringify(found.map((l) => [l.abs, l.name, l.line, l.column]).sort());
    const found = await this.settle(cold, deadline, () => query(abs, resolved), key);
    return { resolved, ...(await this.locations(found)), loading: false };
  }

  /** `lang/definition`. */
  async definition(params: SymbolAt): Promise<LocationsResult> {
    return this.find(params, (abs, r) => this.requireState().definition(abs, r.line, r.column));
  }

  /** `lang/references`. */
  async references(params: ReferencesParams): Promise<LocationsResult> {
    return this.find(params, (abs, r) => this.requireState().references(abs, r.line, r.column, params.includeDeclaration));
  }

  /** `lang/hover`. */
  async hover(params: SymbolAt): Promise<HoverResult> {
    const { abs, resolved, language } = await this.locate(params);
    const contents = await this.ready(abs, resolved, language, params.waitMs ?? DEFAULT_LANG_WAIT_MS);
    return { resolved, contents: contents ?? [], loading: contents === undefined };
  }

  private symbol(s: EditorSymbol, withPath: boolean): SymbolInfo | undefined {
    let shown: string | undefined;
    if (withPath) {
      shown = s.location?.abs === undefined ? undefined : this.files.confinement.protocolPath(s.location.abs);
      if (shown === undefined) {
        return undefined;
      }
    }
    const children = s.children.map((c) => this.symbol(c, false)).filter((c): c is SymbolInfo => c !== undefined);
    return {
      name: s.name,
      kind: s.kind,
      ...(s.detail ? { detail: s.detail } : {}),
      ...(s.container ? { container: s.container } : {}),
      ...(shown === undefined ? {} : { path: shown }),
      line: s.line,
      endLine: s.endLine,
      ...(children.length > 0 ? { children } : {}),
    };
  }

  /** `lang/symbols`: a file's outline (`path`) or a workspace search (`query`). */
  async symbols(params: SymbolsParams): Promise<SymbolsResult> {
    const state = this.requireState();
    const hasPath = params.path !== undefined && params.path !== null;
    const hasQuery = params.query !== undefined && params.query !== null;
    if (hasPath === hasQuery) {
      throw WireError.of('INVALID_ARGS', 'invalid params for lang/symbols: give exactly one of `path` and `query`');
    }
    const deadline = Date.now() + (params.waitMs ?? DEFAULT_LANG_WAIT_MS);
    if (hasPath) {
      const abs = await this.file(params.path as string);
      const { text, language } = await this.document(abs, params.path as string);
      for (;;) {
        const found = await state.documentSymbols(abs);
        if (found.length > 0 || this.warm.has(language) || text.trim() === '') {
          if (found.length > 0) {
            this.warm.add(language);
          }
          const symbols = found.map((s) => this.symbol(s, false)).filter((s): s is SymbolInfo => s !== undefined);
          return { symbols: symbols.slice(0, MAX_LOCATIONS), truncated: Math.max(0, symbols.length - MAX_LOCATIONS), loading: false, language };
        }
        if (Date.now() + POLL_MS > deadline) {
          return { symbols: [], truncated: 0, loading: true, language };
        }
        await sleep(POLL_MS);
      }
    }
    for (;;) {
      const found = await state.workspaceSymbols(params.query as string);
      const symbols = found.map((s) => this.symbol(s, true)).filter((s): s is SymbolInfo => s !== undefined);
      if (found.length > 0 || this.warm.size > 0) {
        symbols.sort((a, b) => ((a.path ?? '') < (b.path ?? '') ? -1 : (a.path ?? '') > (b.path ?? '') ? 1 : a.line - b.line));
        return { symbols: symbols.slice(0, MAX_LOCATIONS), truncated: Math.max(0, symbols.length - MAX_LOCATIONS), loading: false };
      }
      if (Date.now() + POLL_MS > deadline) {
        return { symbols: [], truncated: 0, loading: true };
      }
      await sleep(POLL_MS);
    }
  }

  /** `lang/rename`: the edits per file, applied only with `apply` (and then saved). */
  async rename(params: RenameParams): Promise<RenameResult> {
    if (params.apply && this.files.settings.readOnly) {
      throw WireError.of('READ_ONLY', `the workspace is read-only; nothing was renamed`);
    }
    const deadline = Date.now() + (params.waitMs ?? DEFAULT_LANG_WAIT_MS);
    const { abs, resolved, language } = await this.locate(params);
    const cold = !this.warm.has(language);
    if ((await this.ready(abs, resolved, language, params.waitMs ?? DEFAULT_LANG_WAIT_MS)) === undefined) {
      return { resolved, files: [], applied: false, loading: true };
    }
    let plan: EditorRename;
    try {
      const key = (p: EditorRename) => JSON.stringify(p.files.map((f) => [f.abs, f.name, f.edits]).sort());
      plan = await this.settle(cold, deadline, () => this.requireState().rename(abs, resolved.line, resolved.column, params.newName), key);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw WireError.of('INVALID_ARGS', `the language server cannot rename \`${params.symbol}\` there: ${reason}`);
    }
    const files = this.editFiles(plan, `renaming \`${params.symbol}\``);
    if (params.apply && files.length > 0) {
      await this.applyPlan(plan, files, true, `the rename of \`${params.symbol}\``, `renamed \`${params.symbol}\` to \`${params.newName}\``);
    }
    return { resolved, files, applied: params.apply && files.length > 0, loading: false };
  }

  /** `lang/implementations`. */
  async implementations(params: SymbolAt): Promise<LocationsResult> {
    return this.find(params, (abs, r) => this.requireState().implementations(abs, r.line, r.column));
  }

  /** A hierarchy item the protocol's way: its place in the workspace with its line's text, or named only. */
  private async item(
    relation: HierarchyItem['relation'],
    of: EditorHierarchyItem,
    at: EditorLocation,
    depth: number,
    parent: string | undefined,
    texts: Map<string, string[] | undefined>,
  ): Promise<HierarchyItem> {
    const shown = at.abs === undefined ? undefined : this.files.confinement.protocolPath(at.abs);
    const base = { relation, name: of.name, kind: of.kind, line: at.line, column: at.column, depth, ...(parent === undefined ? {} : { of: parent }) };
    if (shown === undefined || at.abs === undefined) {
      return { ...base, external: at.abs === undefined ? at.name : path.basename(at.abs) };
    }
    if (!texts.has(at.abs)) {
      texts.set(at.abs, await this.requireState().document(at.abs).then((d) => d.text.split(/\r\n|\r|\n/), () => undefined));
    }
    const line = texts.get(at.abs)?.[at.line - 1];
    return { ...base, path: shown, ...(line === undefined ? {} : { text: line.slice(0, MAX_LOCATION_TEXT) }) };
  }

  /** `lang/callHierarchy` and `lang/typeHierarchy`: the items level by level, breadth first, each item once. */
  async hierarchy(params: HierarchyParams, calls: boolean): Promise<HierarchyResult> {
    const state = this.requireState();
    const { abs, resolved, language } = await this.locate(params);
    if ((await this.ready(abs, resolved, language, params.waitMs ?? DEFAULT_LANG_WAIT_MS)) === undefined) {
      return { resolved, found: false, items: [], truncated: 0, loading: true };
    }
    const roots = calls
      ? await state.prepareCallHierarchy(abs, resolved.line, resolved.column)
      : await state.prepareTypeHierarchy(abs, resolved.line, resolved.column);
    if (roots.length === 0) {
      return { resolved, found: false, items: [], truncated: 0, loading: false };
    }
    const directions: ('incoming' | 'outgoing' | 'supertypes' | 'subtypes')[] =
      params.direction === 'both' ? ['supertypes', 'subtypes'] : [params.direction as 'incoming' | 'outgoing' | 'supertypes' | 'subtypes'];
    const relationOf = { incoming: 'caller', outgoing: 'callee', supertypes: 'supertype', subtypes: 'subtype' } as const;
    const items: HierarchyItem[] = [];
    const texts = new Map<string, string[] | undefined>();
    let truncated = 0;
    for (const direction of directions) {
      const seen = new Set(roots.map((r) => `${r.location.abs}:${r.location.line}:${r.name}`));
      let level = roots;
      for (let depth = 1; depth <= params.depth && level.length > 0; depth++) {
        const next: EditorHierarchyItem[] = [];
        for (const parent of level) {
          const found: EditorCall[] =
            direction === 'incoming' || direction === 'outgoing'
              ? await state.calls(parent, direction)
              : (await state.relatedTypes(parent, direction)).map((item) => ({ item, sites: [item.location] }));
          for (const call of found) {
            for (const site of call.sites.length > 0 ? call.sites : [call.item.location]) {
              if (items.length >= MAX_HIERARCHY_ITEMS) {
                truncated += 1;
                continue;
              }
              items.push(await this.item(relationOf[direction], call.item, site, depth, depth > 1 ? parent.name : undefined, texts));
            }
            const key = `${call.item.location.abs}:${call.item.location.line}:${call.item.name}`;
            if (!seen.has(key)) {
              seen.add(key);
              next.push(call.item);
            }
          }
        }
        level = next;
      }
    }
    return { resolved, found: true, items, truncated, loading: false };
  }

  /** `lang/signatureHelp`: at the position just after the symbol's text. */
  async signatureHelp(params: SymbolAt): Promise<SignatureHelpResult> {
    const { abs, resolved, language } = await this.locate(params);
    if ((await this.ready(abs, resolved, language, params.waitMs ?? DEFAULT_LANG_WAIT_MS)) === undefined) {
      return { resolved, signatures: [], activeSignature: 0, loading: true };
    }
    const help = await this.requireState().signatureHelp(abs, resolved.line, resolved.column + params.symbol.length);
    return { resolved, signatures: help?.signatures ?? [], activeSignature: help?.activeSignature ?? 0, loading: false };
  }

  /**
   * Whether the file's language server answers (its outline is the probe), waiting for one that
   * is still starting until `deadline`; a language that has answered before is taken as up.
   */
  private async up(abs: string, language: string, text: string, deadline: number): Promise<boolean> {
    const state = this.requireState();
    for (;;) {
      if (this.warm.has(language) || text.trim() === '' || (await state.documentSymbols(abs)).length > 0) {
        this.warm.add(language);
        return true;
      }
      if (Date.now() + POLL_MS > deadline) {
        return false;
      }
      await sleep(POLL_MS);
    }
  }

  /** The code actions of a range, each with its id (a digest of where it is offered and what it is). */
  private async actionsOf(params: CodeActionsParams): Promise<{ abs: string; language: string; loading: boolean; actions: { info: CodeActionInfo; action: EditorCodeAction }[] }> {
    const abs = await this.file(params.path);
    const { text, language } = await this.document(abs, params.path);
    const deadline = Date.now() + (params.waitMs ?? DEFAULT_LANG_WAIT_MS);
    const endLine = Math.max(params.line, params.endLine ?? params.line);
    if (!(await this.up(abs, language, text, deadline))) {
      return { abs, language, loading: true, actions: [] };
    }
    const found = await this.requireState().codeActions(abs, params.line, endLine);
    const wanted = params.diagnostic ?? undefined;
    const actions = found
      .filter((a) => wanted === undefined || a.fixes.some((f) => f.message.includes(wanted) || (f.code ?? '').includes(wanted)))
      .map((action) => {
        const digest = createHash('sha256').update(`${params.path}\0${params.line}\0${endLine}\0${action.kind ?? ''}\0${action.title}`).digest('hex');
        const info: CodeActionInfo = {
          id: digest.slice(0, 8),
          title: action.title,
          ...(action.kind === undefined ? {} : { kind: action.kind }),
          preferred: action.preferred,
          edit: action.edit !== undefined,
          command: action.run !== undefined,
          ...(action.fixes.length > 0 ? { fixes: action.fixes.map((f) => f.message) } : {}),
        };
        return { info, action };
      });
    actions.sort((a, b) => Number(b.info.preferred) - Number(a.info.preferred));
    return { abs, language, loading: false, actions: actions.slice(0, MAX_CODE_ACTIONS) };
  }

  /** `lang/codeActions`. */
  async codeActions(params: CodeActionsParams): Promise<CodeActionsResult> {
    const { language, loading, actions } = await this.actionsOf(params);
    return { actions: actions.map((a) => a.info), loading, language };
  }

  /** The files of an edit the protocol's way (refused whole when it reaches outside the workspace). */
  private editFiles(plan: EditorRename, what: string): RenameFile[] {
    const files: RenameFile[] = [];
    const outside: string[] = [];
    for (const f of plan.files) {
      const shown = f.abs === undefined ? undefined : this.files.confinement.protocolPath(f.abs);
      if (shown === undefined) {
        outside.push(f.abs === undefined ? f.name : path.basename(f.abs));
        continue;
      }
      const max = this.files.settings.maxFileSize;
      const fits = (t: string | undefined) => t !== undefined && Buffer.byteLength(t, 'utf8') <= max;
      files.push({ path: shown, edits: f.edits, ...(fits(f.before) && fits(f.after) ? { before: f.before, after: f.after } : {}) });
    }
    if (outside.length > 0) {
      throw WireError.of('ACCESS_DENIED', `${what} would also change ${outside.length} file(s) outside the workspace (${outside.slice(0, 5).join(', ')}), which the host never edits; nothing was changed`);
    }
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return files;
  }

  /** Applies `plan` after the user's confirmation (when the workspace asks for it); `done` says it to the user. */
  private async applyPlan(plan: EditorRename, files: RenameFile[], save: boolean, what: string, done: string = what): Promise<void> {
    if (this.files.settings.readOnly) {
      throw WireError.of('READ_ONLY', `the workspace is read-only; ${what} was not applied`);
    }
    await this.files.confirmEdits(files.map((f) => ({ path: f.path, content: f.after })));
    try {
      await plan.apply(save);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw WireError.of('UNAVAILABLE', `the editor could not apply ${what} (${reason}); check the files with read_file before trying again`);
    }
    this.files.announce(files.map((f) => ({ path: f.path, content: f.after ?? '' })), done);
  }

  /** `lang/applyCodeAction`: the action of that id, previewed or applied. */
  async applyCodeAction(params: ApplyCodeActionParams): Promise<EditResult> {
    const { loading, actions } = await this.actionsOf(params);
    if (loading) {
      return { files: [], applied: false, saved: false, command: false, ran: false, loading: true };
    }
    const chosen = actions.find((a) => a.info.id === params.id);
    if (chosen === undefined) {
      const at = params.endLine && params.endLine !== params.line ? `${params.path}:${params.line}-${params.endLine}` : `${params.path}:${params.line}`;
      throw WireError.of('NOT_FOUND', `no code action with id \`${params.id}\` for ${at} (the file may have changed); list them again with code_actions`);
    }
    const { info, action } = chosen;
    const what = `the code action "${info.title}"`;
    const files = action.edit === undefined ? [] : this.editFiles(action.edit, what);
    const commandName = action.run === undefined ? undefined : action.commandName ?? '';
    let applied = false;
    let ran = false;
    if (params.apply) {
      // A command may change anything: never in a read-only workspace, and only once the user
      // has said yes (its effect cannot be previewed), asked before anything is changed.
      if (this.files.settings.readOnly && (action.run !== undefined || files.length > 0)) {
        throw WireError.of('READ_ONLY', `the workspace is read-only; ${what} was not applied and its command was not run`);
      }
      if (action.run !== undefined) {
        await this.files.confirmCommand(info.title, commandName ?? '');
      }
      if (action.edit !== undefined && files.length > 0) {
        await this.applyPlan(action.edit, files, params.save, what);
        applied = true;
      }
      if (action.run !== undefined) {
        await action.run();
        ran = true;
      }
    }
    return {
      title: info.title,
      files,
      applied,
      saved: applied && params.save,
      command: info.command,
      ...(commandName === undefined ? {} : { commandName }),
      ran,
      loading: false,
    };
  }

  /** `lang/format`: the formatter's edit, previewed or applied and saved. */
  async format(params: FormatParams): Promise<EditResult> {
    const abs = await this.file(params.path);
    const { text, language } = await this.document(abs, params.path);
    const deadline = Date.now() + (params.waitMs ?? DEFAULT_LANG_WAIT_MS);
    if (!(await this.up(abs, language, text, deadline))) {
      return { files: [], applied: false, saved: false, command: false, ran: false, loading: true };
    }
    const line = params.line ?? undefined;
    const plan = await this.requireState().format(abs, line, line === undefined ? undefined : Math.max(line, params.endLine ?? line));
    const files = plan === undefined ? [] : this.editFiles(plan, `formatting ${params.path}`);
    let applied = false;
    if (params.apply && plan !== undefined && files.length > 0) {
      await this.applyPlan(plan, files, true, `formatting ${params.path}`);
      applied = true;
    }
    return { files, applied, saved: applied, command: false, ran: false, loading: false };
  }
}
