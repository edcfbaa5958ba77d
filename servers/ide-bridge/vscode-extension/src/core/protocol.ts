/**
 * The ide-bridge wire protocol, version 4, as the host speaks it
 * (`servers/ide-bridge/docs/ide-bridge-protocol.md`; the Rust side is `src/protocol/`).
 *
 * JSON-RPC 2.0 over WebSocket text frames. The method names, the error codes and the result
 * shapes here must stay equal to the Rust ones: the cross-language test drives the real
 * `mcp-server-ide-bridge` against this code to keep them so.
 */

import { z } from 'zod';

/**
 * The protocol version reported in `host/info`: 2 adds the `ide/*` methods, the unsaved buffer
 * in `fs/read` and `folder-name/…` paths in multi-root workspaces; 3 adds the `lang/*` methods,
 * `ide/openDiff`, `ide/closeDiffs` and `ide/saveFile`; 4 adds `lang/implementations`,
 * `lang/callHierarchy`, `lang/typeHierarchy`, `lang/codeActions`, `lang/applyCodeAction`,
 * `lang/format` and `lang/signatureHelp`, and diagnostics that have seen the file's current content.
 */
export const PROTOCOL_VERSION = 4;

/** `host/info`: who the host is and its limits. */
export const METHOD_INFO = 'host/info';
/** `fs/list`: the workspace's files. */
export const METHOD_LIST = 'fs/list';
/** `fs/read`: one file's text. */
export const METHOD_READ = 'fs/read';
/** `fs/write`: create or replace one file. */
export const METHOD_WRITE = 'fs/write';
/** `ide/diagnostics`: the language servers' errors and warnings. */
export const METHOD_DIAGNOSTICS = 'ide/diagnostics';
/** `ide/openEditors`: the open tabs. */
export const METHOD_OPEN_EDITORS = 'ide/openEditors';
/** `ide/selection`: the active editor's selection. */
export const METHOD_SELECTION = 'ide/selection';
/** `ide/openFile`: open and reveal a file for the user. */
export const METHOD_OPEN_FILE = 'ide/openFile';
/** Host → bridge notification: the selection or the active editor changed (debounced). */
export const NOTIFY_SELECTION_CHANGED = 'ide/selectionChanged';
/** Host → bridge notification: diagnostics changed (debounced). */
export const NOTIFY_DIAGNOSTICS_CHANGED = 'ide/diagnosticsChanged';
/** The most diagnostics one answer carries. */
export const MAX_DIAGNOSTICS = 500;
/** The default wait for the first diagnostics of a file that had to be opened, in ms. */
export const DEFAULT_DIAGNOSTICS_WAIT_MS = 5000;
/** The longest wait a bridge may ask for, in ms. */
export const MAX_DIAGNOSTICS_WAIT_MS = 30_000;
/** The most selected text an answer carries (UTF-16 code units). */
export const MAX_SELECTION_TEXT = 100_000;
/** `$/cancelRequest`: a notification asking the host to abandon a request. */
export const METHOD_CANCEL = '$/cancelRequest';
/** `lang/definition`: where the symbol is defined (version 3). */
export const METHOD_DEFINITION = 'lang/definition';
/** `lang/references`: where the symbol is used. */
export const METHOD_REFERENCES = 'lang/references';
/** `lang/hover`: the symbol's type and documentation. */
export const METHOD_HOVER = 'lang/hover';
/** `lang/symbols`: a file's outline, or a workspace symbol search. */
export const METHOD_SYMBOLS = 'lang/symbols';
/** `lang/rename`: rename a symbol everywhere, previewed or applied. */
export const METHOD_RENAME = 'lang/rename';
/** `lang/implementations`: where the symbol is implemented (version 4). */
export const METHOD_IMPLEMENTATIONS = 'lang/implementations';
/** `lang/callHierarchy`: who calls the symbol, or what it calls. */
export const METHOD_CALL_HIERARCHY = 'lang/callHierarchy';
/** `lang/typeHierarchy`: a type's supertypes and subtypes. */
export const METHOD_TYPE_HIERARCHY = 'lang/typeHierarchy';
/** `lang/codeActions`: the quick fixes and refactorings for a range. */
export const METHOD_CODE_ACTIONS = 'lang/codeActions';
/** `lang/applyCodeAction`: one code action, previewed or applied. */
export const METHOD_APPLY_CODE_ACTION = 'lang/applyCodeAction';
/** `lang/format`: the editor's formatting of a file or range, previewed or applied. */
export const METHOD_FORMAT = 'lang/format';
/** `lang/signatureHelp`: the parameters of the call at a position. */
export const METHOD_SIGNATURE_HELP = 'lang/signatureHelp';
/** The deepest a hierarchy goes. */
export const MAX_HIERARCHY_DEPTH = 3;
/** The most items a hierarchy answer carries. */
export const MAX_HIERARCHY_ITEMS = 200;
/** The most code actions an answer carries. */
export const MAX_CODE_ACTIONS = 100;
/** `ide/openDiff`: show a proposed change and wait for the user's decision. */
export const METHOD_OPEN_DIFF = 'ide/openDiff';
/** `ide/closeDiffs`: close the diff views the host opened. */
export const METHOD_CLOSE_DIFFS = 'ide/closeDiffs';
/** `ide/saveFile`: save a file's unsaved editor changes. */
export const METHOD_SAVE_FILE = 'ide/saveFile';
/** The default wait for a language server that is still starting, in ms. */
export const DEFAULT_LANG_WAIT_MS = 10_000;
/** The longest such wait a bridge may ask for, in ms. */
export const MAX_LANG_WAIT_MS = 20_000;
/** The most locations or symbols one answer carries. */
export const MAX_LOCATIONS = 500;
/** The longest symbol text a position names. */
export const MAX_SYMBOL_CHARS = 256;
/** The longest line text a location carries. */
export const MAX_LOCATION_TEXT = 400;
/** The default wait for the user's decision on a diff, in ms. */
export const DEFAULT_DIFF_WAIT_MS = 25_000;
/** The longest such wait, in ms. */
export const MAX_DIFF_WAIT_MS = 600_000;

/** Method name aliases hosts accept too (`fs/readFile`, ...: protocol §4.5). */
export const METHOD_ALIASES: Readonly<Record<string, string>> = {
  'fs/readFile': METHOD_READ,
  'fs/writeFile': METHOD_WRITE,
  'fs/listFiles': METHOD_LIST,
};

/** Wire error codes: -32001..-32004 (the IDE bridge's original four), -32005..-32010, JSON-RPC's. */
export const Code = {
  ACCESS_DENIED: -32001,
  FILE_TOO_LARGE: -32002,
  NOT_FOUND: -32003,
  READ_ONLY: -32004,
  BINARY_FILE: -32005,
  ALREADY_EXISTS: -32006,
  CONFLICT: -32007,
  TIMEOUT: -32008,
  CANCELLED: -32009,
  UNAVAILABLE: -32010,
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
} as const;

/** The mcp-suite error code names (`shared/src/error.rs`), sent as `error.data.code`. */
export type SharedCode =
  | 'ACCESS_DENIED'
  | 'FILE_TOO_LARGE'
  | 'NOT_FOUND'
  | 'READ_ONLY'
  | 'BINARY_FILE'
  | 'ALREADY_EXISTS'
  | 'CANCELLED'
  | 'UNAVAILABLE'
  | 'INVALID_ARGS'
  | 'INTERNAL_ERROR';

/** `ErrorCode::bridge_wire_code` of the shared crate, for the codes a host sends. */
const WIRE_CODE: Readonly<Record<SharedCode, number>> = {
  ACCESS_DENIED: Code.ACCESS_DENIED,
  FILE_TOO_LARGE: Code.FILE_TOO_LARGE,
  NOT_FOUND: Code.NOT_FOUND,
  READ_ONLY: Code.READ_ONLY,
  BINARY_FILE: Code.BINARY_FILE,
  ALREADY_EXISTS: Code.ALREADY_EXISTS,
  CANCELLED: Code.CANCELLED,
  UNAVAILABLE: Code.UNAVAILABLE,
  INVALID_ARGS: Code.INVALID_PARAMS,
  INTERNAL_ERROR: Code.INTERNAL_ERROR,
};

/** The default port (`antigravity.mcp.port`). */
export const DEFAULT_PORT = 8888;
/** The default largest file read or written, in bytes (`antigravity.mcp.maxFileSize`). */
export const DEFAULT_MAX_FILE_SIZE = 102_400;
/** The default largest message accepted, in bytes (16 MiB). */
export const DEFAULT_MAX_MESSAGE_SIZE = 16 * 1024 * 1024;
/** The default cap on the entries one `fs/list` examines. */
export const DEFAULT_MAX_LIST_ENTRIES = 20_000;
/** The default keep-alive ping interval; a peer silent for two intervals is dropped. */
export const DEFAULT_PING_INTERVAL_MS = 15_000;
/** Requests one connection may have in flight; more are answered with -32010. */
export const MAX_IN_FLIGHT = 256;
/** Connections served at once; more upgrades are refused with 503. */
export const MAX_CONNECTIONS = 128;
/** The environment variable the bridge reads the token from. */
export const TOKEN_ENV = 'IDE_BRIDGE_TOKEN';

/** A JSON-RPC error as it travels. */
export class WireError extends Error {
  constructor(
    /** The numeric code. */
    readonly code: number,
    message: string,
    /** `{code: "NOT_FOUND"}`: the shared code as a string, for readers. */
    readonly data?: { code: SharedCode },
  ) {
    super(message);
    this.name = 'WireError';
  }

  /** An error for a shared code, with its wire number (as `WireError::new` in Rust). */
  static of(code: SharedCode, message: string): WireError {
    return new WireError(WIRE_CODE[code], message, { code });
  }

  /** An error with a plain JSON-RPC code (as `WireError::rpc` in Rust). */
  static rpc(code: number, message: string): WireError {
    return new WireError(code, message);
  }

  /** The error object of a response. */
  toJSON(): { code: number; message: string; data?: { code: SharedCode } } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** A request id: JSON-RPC allows a number or a string; `null` answers what had no usable id. */
export type Id = number | string | null;

/** A response, as the host writes it. */
export function response(id: Id, outcome: { result: unknown } | { error: WireError }): string {
  return 'result' in outcome
    ? JSON.stringify({ jsonrpc: '2.0', id, result: outcome.result })
    : JSON.stringify({ jsonrpc: '2.0', id, error: outcome.error.toJSON() });
}

/** `fs/list` params. Unknown fields are ignored (stripped), as the protocol requires. */
export const ListParams = z.object({
  /** List the whole tree (files only) instead of one directory's entries. */
  recursive: z.boolean().optional().default(false),
  /** The directory to list, relative to the workspace root (default: the root). */
  path: z.string().nullish(),
});
/** `fs/list` params, parsed. */
export type ListParams = z.infer<typeof ListParams>;

/** `fs/read` params. */
export const ReadParams = z.object({
  /** The file, relative to the workspace root. */
  path: z.string(),
});
/** `fs/read` params, parsed. */
export type ReadParams = z.infer<typeof ReadParams>;

/** `fs/write` params. */
export const WriteParams = z.object({
  /** The file, relative to the workspace root. */
  path: z.string(),
  /** The complete new text of the file. */
  content: z.string(),
});
/** `fs/write` params, parsed. */
export type WriteParams = z.infer<typeof WriteParams>;

/** `ide/diagnostics` params. */
export const DiagnosticsParams = z.object({
  path: z.string().nullish(),
  includeInfo: z.boolean().optional().default(false),
  waitMs: z.number().int().min(0).max(MAX_DIAGNOSTICS_WAIT_MS).nullish(),
});
/** `ide/diagnostics` params, parsed. */
export type DiagnosticsParams = z.infer<typeof DiagnosticsParams>;

/** `ide/openFile` params. */
export const OpenFileParams = z.object({
  path: z.string(),
  line: z.number().int().min(1).nullish(),
  endLine: z.number().int().min(1).nullish(),
  preview: z.boolean().optional().default(false),
});
/** `ide/openFile` params, parsed. */
export type OpenFileParams = z.infer<typeof OpenFileParams>;

const symbolText = z
  .string()
  .min(1)
  .max(MAX_SYMBOL_CHARS)
  .refine((s) => !/[\r\n]/.test(s) && s.trim() === s, { message: 'must be one line without surrounding spaces' });

/** A symbol at a position (`lang/definition`, `lang/hover`). */
export const SymbolAt = z.object({
  path: z.string(),
  line: z.number().int().min(1),
  symbol: symbolText,
  column: z.number().int().min(1).nullish(),
  waitMs: z.number().int().min(0).max(MAX_LANG_WAIT_MS).nullish(),
});
/** A symbol at a position, parsed. */
export type SymbolAt = z.infer<typeof SymbolAt>;

/** `lang/references` params. */
export const ReferencesParams = SymbolAt.extend({ includeDeclaration: z.boolean().optional().default(true) });
/** `lang/references` params, parsed. */
export type ReferencesParams = z.infer<typeof ReferencesParams>;

/** `lang/symbols` params: exactly one of `path` and `query`. */
export const SymbolsParams = z.object({
  path: z.string().nullish(),
  query: z.string().min(1).max(MAX_SYMBOL_CHARS).nullish(),
  waitMs: z.number().int().min(0).max(MAX_LANG_WAIT_MS).nullish(),
});
/** `lang/symbols` params, parsed. */
export type SymbolsParams = z.infer<typeof SymbolsParams>;

/** `lang/rename` params. */
export const RenameParams = SymbolAt.extend({ newName: symbolText, apply: z.boolean().optional().default(false) });
/** `lang/rename` params, parsed. */
export type RenameParams = z.infer<typeof RenameParams>;

/** `lang/callHierarchy` and `lang/typeHierarchy` params. */
export const HierarchyParams = SymbolAt.extend({
  direction: z.enum(['incoming', 'outgoing', 'supertypes', 'subtypes', 'both']),
  depth: z.number().int().min(1).max(MAX_HIERARCHY_DEPTH),
});
/** `lang/callHierarchy` and `lang/typeHierarchy` params, parsed. */
export type HierarchyParams = z.infer<typeof HierarchyParams>;

/** `lang/codeActions` params: a range of a file, and optionally the diagnostic to fix. */
export const CodeActionsParams = z.object({
  path: z.string(),
  line: z.number().int().min(1),
  endLine: z.number().int().min(1).nullish(),
  diagnostic: z.string().max(MAX_SYMBOL_CHARS).nullish(),
  waitMs: z.number().int().min(0).max(MAX_LANG_WAIT_MS).nullish(),
});
/** `lang/codeActions` params, parsed. */
export type CodeActionsParams = z.infer<typeof CodeActionsParams>;

/** `lang/applyCodeAction` params. */
export const ApplyCodeActionParams = CodeActionsParams.extend({
  id: z.string().min(1).max(200),
  apply: z.boolean().optional().default(false),
  save: z.boolean().optional().default(false),
});
/** `lang/applyCodeAction` params, parsed. */
export type ApplyCodeActionParams = z.infer<typeof ApplyCodeActionParams>;

/** `lang/format` params. */
export const FormatParams = z.object({
  path: z.string(),
  line: z.number().int().min(1).nullish(),
  endLine: z.number().int().min(1).nullish(),
  apply: z.boolean().optional().default(false),
  waitMs: z.number().int().min(0).max(MAX_LANG_WAIT_MS).nullish(),
});
/** `lang/format` params, parsed. */
export type FormatParams = z.infer<typeof FormatParams>;

/** `ide/openDiff` params. */
export const OpenDiffParams = z.object({
  path: z.string(),
  newText: z.string(),
  waitMs: z.number().int().min(0).max(MAX_DIFF_WAIT_MS).nullish(),
});
/** `ide/openDiff` params, parsed. */
export type OpenDiffParams = z.infer<typeof OpenDiffParams>;

/** `ide/saveFile` params. */
export const SaveFileParams = z.object({ path: z.string() });
/** `ide/saveFile` params, parsed. */
export type SaveFileParams = z.infer<typeof SaveFileParams>;

/** Where the host found the symbol on its line. */
export interface ResolvedSymbol {
  line: number;
  column: number;
  occurrences: number;
  language?: string;
}

/** A place: a workspace file (with its line's text) or a file outside the workspace (named only). */
export interface Location {
  path?: string;
  external?: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  text?: string;
}

/** `lang/definition` and `lang/references` result. */
export interface LocationsResult {
  resolved: ResolvedSymbol;
  locations: Location[];
  truncated: number;
  loading: boolean;
}

/** `lang/hover` result. */
export interface HoverResult {
  resolved: ResolvedSymbol;
  contents: string[];
  loading: boolean;
}

/** A symbol of an outline or a workspace search. */
export interface SymbolInfo {
  name: string;
  kind: string;
  detail?: string;
  container?: string;
  path?: string;
  line: number;
  endLine: number;
  children?: SymbolInfo[];
}

/** `lang/symbols` result. */
export interface SymbolsResult {
  symbols: SymbolInfo[];
  truncated: number;
  loading: boolean;
  language?: string;
}

/** One file of a rename. */
export interface RenameFile {
  path: string;
  edits: number;
  before?: string;
  after?: string;
}

/** `lang/rename` result. */
export interface RenameResult {
  resolved: ResolvedSymbol;
  files: RenameFile[];
  applied: boolean;
  loading: boolean;
}

/** One item of a hierarchy: a caller or callee (where the call is), a supertype or subtype. */
export interface HierarchyItem {
  relation: 'caller' | 'callee' | 'supertype' | 'subtype';
  name: string;
  kind: string;
  path?: string;
  external?: string;
  line: number;
  column: number;
  text?: string;
  depth: number;
  of?: string;
}

/** `lang/callHierarchy` and `lang/typeHierarchy` result. */
export interface HierarchyResult {
  resolved: ResolvedSymbol;
  found: boolean;
  items: HierarchyItem[];
  truncated: number;
  loading: boolean;
}

/** One code action offered. */
export interface CodeActionInfo {
  id: string;
  title: string;
  kind?: string;
  preferred: boolean;
  edit: boolean;
  command: boolean;
  fixes?: string[];
}

/** `lang/codeActions` result. */
export interface CodeActionsResult {
  actions: CodeActionInfo[];
  loading: boolean;
  language?: string;
}

/** `lang/applyCodeAction` and `lang/format` result. */
export interface EditResult {
  title?: string;
  files: RenameFile[];
  applied: boolean;
  saved: boolean;
  command: boolean;
  /** The command the action runs (its id), when it runs one. */
  commandName?: string;
  ran: boolean;
  loading: boolean;
}

/** One signature of a call. */
export interface SignatureInfo {
  label: string;
  documentation?: string;
  parameters: string[];
  activeParameter?: number;
}

/** `lang/signatureHelp` result. */
export interface SignatureHelpResult {
  resolved: ResolvedSymbol;
  signatures: SignatureInfo[];
  activeSignature: number;
  loading: boolean;
}

/** `ide/openDiff` result. */
export interface OpenDiffResult {
  path: string;
  status: 'accepted' | 'rejected' | 'pending';
  finalText?: string;
  userEdited: boolean;
  created: boolean;
  reused: boolean;
}

/** `ide/closeDiffs` result. */
export interface CloseDiffsResult {
  closed: string[];
}

/** `ide/saveFile` result. */
export interface SaveFileResult {
  path: string;
  saved: boolean;
  open: boolean;
}

/** How severe a diagnostic is. */
export type Severity = 'error' | 'warning' | 'info' | 'hint';

/** A 1-based line and column (UTF-16 code units). */
export interface Position {
  line: number;
  column: number;
}

/** One diagnostic on the wire. */
export interface Diagnostic {
  path: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: Severity;
  source?: string;
  code?: string;
  message: string;
}

/** `ide/diagnostics` result. */
export interface DiagnosticsResult {
  diagnostics: Diagnostic[];
  truncated: number;
  settled: boolean;
  opened: boolean;
}

/** One open tab. */
export interface OpenEditor {
  path: string;
  active: boolean;
  dirty: boolean;
  language?: string;
}

/** `ide/openEditors` result. */
export interface OpenEditorsResult {
  editors: OpenEditor[];
  outside: number;
}

/** The active editor's selection. */
export interface Selection {
  path: string;
  start: Position;
  end: Position;
  text: string;
  textTruncated?: boolean;
}

/** `ide/selection` result. */
export interface SelectionResult {
  selection: Selection | null;
}

/** `ide/openFile` result. */
export interface OpenFileResult {
  path: string;
  selection?: Selection;
}

/** `$/cancelRequest` params. */
export const CancelParams = z.object({ id: z.union([z.number(), z.string()]) });

/** `fs/list` result. */
export interface ListResult {
  /** Paths relative to the workspace root, `/`-separated, sorted; directories end with `/` when not recursive. */
  files: string[];
  /** Whether the listing was cut at the host's entry cap. */
  truncated: boolean;
}

/** `fs/read` result. */
export interface ReadResult {
  /** The file's text, exactly as stored (UTF-8), or the editor's unsaved buffer of it. */
  content: string;
  /** `content` is the editor's buffer with changes not saved to disk. */
  unsaved?: boolean;
}

/** `fs/write` result. */
export interface WriteResult {
  /** Bytes written. */
  bytes: number;
  /** Whether the file did not exist before. */
  created: boolean;
  /**
   * The text the write replaced, when the file existed and was UTF-8 text within `maxFileSize`:
   * the bridge shows the model a bounded diff of it. Optional: without it there is no diff.
   */
  previous?: string;
}

/** `host/info` result. */
export interface HostInfo {
  protocolVersion: number;
  name: string;
  version: string;
  workspaceFolders: string[];
  /** The folders' names: a multi-root workspace addresses folder `n > 0` as `name/path`. */
  folderNames?: string[];
  readOnly: boolean;
  maxFileSize: number;
  maxMessageSize: number;
}

/**
 * Parses `params` (absent or `null` means `{}`) with `schema`, or says which field is wrong in
 * the words serde would use, so both hosts answer alike.
 */
export function parseParams<S extends z.ZodType>(method: string, schema: S, params: unknown): z.infer<S> {
  let value: unknown = params;
  if (value === undefined || value === null) {
    value = {};
  } else if (typeof value !== 'object' || Array.isArray(value)) {
    throw WireError.rpc(Code.INVALID_PARAMS, `invalid params for ${method}: params must be an object`);
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) {
    return parsed.data;
  }
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join('.') ?? '';
  const given = issue !== undefined && issue.path.length > 0 ? (value as Record<string, unknown>)[String(issue.path[0])] : undefined;
  const what =
    given === undefined && field !== ''
      ? `missing field \`${field}\``
      : issue?.code === 'invalid_type'
        ? `invalid type: ${serdeUnexpected(given)}, expected ${serdeExpected(issue.expected)}`
        : `\`${field}\`: ${issue?.message ?? 'invalid'}`;
  throw WireError.of('INVALID_ARGS', `invalid params for ${method}: ${what}`);
}

/** How serde names a JSON value it did not expect (so both hosts word the error alike). */
function serdeUnexpected(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return 'sequence';
  }
  switch (typeof value) {
    case 'string':
      return `string ${JSON.stringify(value)}`;
    case 'boolean':
      return `boolean \`${value}\``;
    case 'number':
      return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``;
    default:
      return 'map';
  }
}

/** How serde names the type it expected. */
function serdeExpected(expected: string): string {
  return { string: 'a string', boolean: 'a boolean', number: 'a number', object: 'a map' }[expected] ?? expected;
}
