/**
 * The host's file operations (`fs/list`, `fs/read`, `fs/write`) with the protocol's rules, over
 * any {@link Workspace}. Mirrors `servers/ide-bridge/src/host/fs.rs`: the same checks, in the
 * same order, with the same codes.
 *
 * Error messages name only the path the caller sent, never a host path, a symlink's target or an
 * operating-system error text (those go to the log).
 */

import ignore, { Ignore } from 'ignore';

import { ListParams, ListResult, ReadParams, ReadResult, WireError, WriteParams, WriteResult } from './protocol';
import { Confinement, PathError, Resolved } from './paths';
import { DirEntry, FsError, NoUserError, Notifier, Workspace } from './workspace';

/** The largest `.gitignore` read; the rest of a larger one is ignored. */
const MAX_GITIGNORE_BYTES = 1 << 20;

/** The workspace's limits and switches. */
export interface FileSettings {
  /** Refuse every write (-32004). */
  readOnly: boolean;
  /** The largest file read or written, in bytes (-32002 above it). */
  maxFileSize: number;
  /** The most entries one `fs/list` examines (`truncated` beyond). */
  maxListEntries: number;
  /** Ask the user (through the notifier) before every write. */
  confirmWrites: boolean;
}

/** Lets a request be abandoned until its file operation starts (`$/cancelRequest`). */
export interface Cancellation {
  /** Whether the request was cancelled (or its connection closed). */
  readonly cancelled: boolean;
}

type Op = 'list' | 'read' | 'write';

/** One `.gitignore`, with the directory its patterns are relative to. */
interface Matcher {
  /** The directory of the `.gitignore`, as components relative to its workspace folder. */
  base: string[];
  rules: Ignore;
}

/** Orders paths component by component (a directory's entries right after it). */
function byComponents(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    if (x[i] !== y[i]) {
      return x[i] < y[i] ? -1 : 1;
    }
  }
  return x.length - y.length;
}

/** The protocol's file operations on one workspace. */
export class Files {
  readonly confinement: Confinement;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

  constructor(
    private readonly workspace: Workspace,
    folders: readonly string[],
    readonly settings: FileSettings,
    private readonly notifier: Notifier,
    names?: readonly string[],
    /** The editor's unsaved text of a file (by absolute path), if it has unsaved changes. */
    private readonly unsaved: (abs: string) => string | undefined = () => undefined,
  ) {
    this.confinement = new Confinement(workspace, folders, names);
  }

  /** `fs/list`. */
  async list(params: ListParams): Promise<ListResult> {
    const shown = params.path ?? '.';
    const base = await this.resolve(shown, 'list');
    if (base.stat === undefined) {
      throw WireError.of('NOT_FOUND', `the directory \`${shown}\` does not exist`);
    }
    if (base.stat.type !== 'directory') {
      throw WireError.of('INVALID_ARGS', `\`${shown}\` is a file, not a directory`);
    }
    const walk = new Walk(this, base, params.recursive ? undefined : 1, this.settings.maxListEntries);
    await walk.run();
    const files: string[] = [];
    let truncated = walk.truncated;
    const names = this.confinement.names;
    if (base.lexical.length === 0 && names.length > 1) {
      // A multi-root workspace's root holds its other folders too, by name.
      for (const name of names.slice(1)) {
        if (!params.recursive) {
          files.push(`${name}/`);
          continue;
        }
        const more = await this.list({ recursive: true, path: name }).catch(() => ({ files: [], truncated: false }));
        files.push(...more.files);
        truncated ||= more.truncated;
      }
    }
    for (const entry of walk.entries) {
      const text = [...base.lexical, ...entry.rel].join('/');
      let isDir = entry.type === 'directory';
      if (entry.type === 'symlink') {
        // Listed only if it stays inside and resolves to a file or a directory; never followed.
        try {
          const target = await this.confinement.resolve(text);
          if (target.stat?.type !== 'file' && target.stat?.type !== 'directory') {
            continue;
          }
          isDir = target.stat.type === 'directory';
        } catch {
          continue;
        }
      } else if (entry.type === 'other') {
        isDir = false;
      }
      if (!isDir) {
        files.push(text);
      } else if (!params.recursive) {
        files.push(`${text}/`);
      }
    }
    if (names.length > 1 && base.lexical.length === 0) {
      files.sort(byComponents);
    }
    return { files, truncated };
  }

  /** `fs/read`. */
  async read(params: ReadParams): Promise<ReadResult> {
    const shown = params.path;
    const target = await this.resolve(shown, 'read');
    const stat = target.stat;
    if (stat === undefined) {
      throw WireError.of('NOT_FOUND', `\`${shown}\` does not exist`);
    }
    if (stat.type === 'directory') {
      throw WireError.of('INVALID_ARGS', `\`${shown}\` is a directory, not a file`);
    }
    if (stat.type !== 'file') {
      throw WireError.of('INVALID_ARGS', `invalid path \`${shown}\`: not a regular file (a device, socket or FIFO)`);
    }
    const max = this.settings.maxFileSize;
    const buffer = this.unsaved(target.abs);
    if (buffer !== undefined) {
      // What the user sees in the editor, not yet saved: the limit applies to its UTF-8 bytes.
      const size = Buffer.byteLength(buffer, 'utf8');
      if (size > max) {
        throw tooLargeFile(shown, size, max);
      }
      return { content: buffer, unsaved: true };
    }
    if (stat.size > max) {
      throw tooLargeFile(shown, stat.size, max);
    }
    let bytes: Uint8Array;
    try {
      bytes = await this.workspace.read(target.abs, max);
    } catch (error) {
      throw this.fsError(error, shown, 'read');
    }
    // Checked again on what was read: a file that grew meanwhile is still refused.
    if (bytes.length > max) {
      throw tooLargeFile(shown, bytes.length, max);
    }
    if (bytes.includes(0)) {
      throw WireError.of('BINARY_FILE', `\`${shown}\` is a binary file (${bytes.length} bytes, contains NUL bytes), not text`);
    }
    let content: string;
    try {
      content = this.decoder.decode(bytes);
    } catch {
      throw WireError.of(
        'BINARY_FILE',
        `\`${shown}\` is not UTF-8 text (${bytes.length} bytes): a binary file or another encoding`,
      );
    }
    return { content };
  }

  /**
   * Asks the user about edits the host is about to make (only with `confirmWrites`): each file's
   * new text in turn; refused as a whole (`ACCESS_DENIED`) when the user declines one.
   */
  async confirmEdits(edits: { path: string; content: string | undefined }[]): Promise<void> {
    if (!this.settings.confirmWrites) {
      return;
    }
    for (const edit of edits) {
      const content = edit.content ?? '';
      const notice = { path: edit.path, bytes: Buffer.byteLength(content, 'utf8'), created: false, content };
      let allowed = false;
      try {
        allowed = await this.notifier.confirmWrite(notice);
      } catch (error) {
        if (error instanceof NoUserError) {
          throw WireError.of(
            'UNAVAILABLE',
            `the change to \`${edit.path}\` needs the IDE's user to allow it, and no editor window is connected to ask (${error.message}); nothing was changed`,
          );
        }
        this.notifier.log('warn', `asking the user about a change of ${edit.path} failed: ${String(error)}`);
      }
      if (!allowed) {
        throw WireError.of('ACCESS_DENIED', `the IDE's user declined the change to \`${edit.path}\` after reviewing it; nothing was changed`);
      }
    }
  }

  /**
   * Asks the user whether a code action's command may run (always, whatever `confirmWrites`
   * says: a command's effect cannot be previewed); refused (`ACCESS_DENIED`) when the user
   * declines, `UNAVAILABLE` when nobody can answer.
   */
  async confirmCommand(title: string, command: string): Promise<void> {
    let allowed = false;
    const shown = command === '' ? 'its IDE command' : `the IDE command \`${command}\``;
    try {
      allowed = await this.notifier.confirmCommand({ title, command });
    } catch (error) {
      if (error instanceof NoUserError) {
        throw WireError.of(
          'UNAVAILABLE',
          `the code action "${title}" runs ${shown}, which needs the IDE's user to allow it, and no editor window is connected to ask (${error.message}); nothing was changed`,
        );
      }
      this.notifier.log('warn', `asking the user about the command of "${title}" failed: ${String(error)}`);
    }
    if (!allowed) {
      throw WireError.of('ACCESS_DENIED', `the IDE's user did not allow ${shown} of the code action "${title}"; nothing was changed`);
    }
  }

  /**
   * Tells the user (and the log) that the host changed files by other means than `fs/write`
   * (a rename, a save): each file with its new text.
   */
  announce(files: { path: string; content: string }[], what: string): void {
    this.notifier.log('info', `${what}: ${files.map((f) => f.path).join(', ')}`);
    for (const file of files) {
      this.notifier.didWrite({ path: file.path, bytes: Buffer.byteLength(file.content, 'utf8'), created: false, content: file.content });
    }
  }

  /**
   * Where `fs/write` (or an accepted diff) would write `shown`: confined, not the root, not in
   * `.git`, not a directory or a special file. Nothing is written.
   */
  async writeTarget(shown: string): Promise<Resolved> {
    const target = await this.resolve(shown, 'write');
    if (target.lexical.length === 0) {
      throw WireError.of('INVALID_ARGS', `\`${shown}\` is the workspace root, not a file`);
    }
    const inGit = (parts: string[]) => parts.some((part) => part.toLowerCase() === '.git');
    if (inGit(target.lexical) || inGit(target.canon)) {
      throw WireError.of('ACCESS_DENIED', `\`${shown}\` is inside a .git directory, which the host never writes`);
    }
    if (target.stat?.type === 'directory') {
      throw WireError.of('INVALID_ARGS', `\`${shown}\` is a directory, not a file`);
    }
    if (target.stat !== undefined && target.stat.type !== 'file') {
      throw WireError.of('INVALID_ARGS', `invalid path \`${shown}\`: not a regular file (a device, socket or FIFO)`);
    }
    return target;
  }

  /**
   * `fs/write`: atomic, parents created, the user notified (and asked first with `confirmWrites`,
   * unless `approved`: the user already accepted this very text, in a diff).
   */
  async write(params: WriteParams, cancellation: Cancellation, approved = false): Promise<WriteResult> {
    const shown = params.path;
    if (this.settings.readOnly) {
      throw WireError.of('READ_ONLY', `the workspace is read-only; \`${shown}\` was not written`);
    }
    const data = Buffer.from(params.content, 'utf8');
    const bytes = data.length;
    const max = this.settings.maxFileSize;
    if (bytes > max) {
      throw WireError.of(
        'FILE_TOO_LARGE',
        `the content is ${bytes} bytes, over the host's limit of ${max} bytes (maxFileSize); \`${shown}\` was not written`,
      );
    }
    if (hasLoneSurrogate(params.content)) {
      throw WireError.of(
        'INVALID_ARGS',
        `the content for \`${shown}\` is not valid Unicode (it contains an unpaired surrogate); nothing was written`,
      );
    }
    const target = await this.writeTarget(shown);
    const notice = { path: target.lexical.join('/'), bytes, created: target.stat === undefined, content: params.content };
    // What the write replaces, for the bridge's diff (UTF-8 text within the limit only).
    const previous = target.stat?.type === 'file' ? await this.previousText(target.abs) : undefined;
    if (this.settings.confirmWrites && !approved) {
      let allowed = false;
      try {
        allowed = await this.notifier.confirmWrite(notice);
      } catch (error) {
        if (error instanceof NoUserError) {
          this.notifier.log('warn', `refused a write of ${notice.path}: ${error.message}`);
          throw WireError.of(
            'UNAVAILABLE',
            `the write of \`${shown}\` needs the IDE's user to allow it, and no editor window is connected to ask (${error.message}); nothing was written. Ask the user to open the IDE window, then retry.`,
          );
        }
        this.notifier.log('warn', `asking the user about a write of ${notice.path} failed: ${String(error)}`);
      }
      if (!allowed) {
        throw WireError.of('ACCESS_DENIED', `the IDE's user declined the write of \`${shown}\` after reviewing it; nothing was written`);
      }
    }
    if (cancellation.cancelled) {
      // e.g. the bridge stopped waiting while the user decided: the answer comes too late.
      this.notifier.log('info', `the write of ${notice.path} was cancelled by the client before it started; nothing was written`);
      throw cancelled();
    }
    try {
      await this.workspace.write(target.abs, data);
    } catch (error) {
      throw this.fsError(error, shown, 'write');
    }
    this.notifier.log('info', `wrote ${notice.path} (${bytes} bytes)`);
    this.notifier.didWrite(notice);
    return previous === undefined ? { bytes, created: notice.created } : { bytes, created: notice.created, previous };
  }

  /** The current text of the file `abs`, if it is UTF-8 within `maxFileSize`; else undefined. */
  private async previousText(abs: string): Promise<string | undefined> {
    try {
      const bytes = await this.workspace.read(abs, this.settings.maxFileSize);
      if (bytes.length > this.settings.maxFileSize) {
        return undefined;
      }
      return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      return undefined;
    }
  }

  /** Confines `shown`, with its errors as wire errors. */
  async resolve(shown: string, op: Op): Promise<Resolved> {
    try {
      return await this.confinement.resolve(shown);
    } catch (error) {
      throw this.fsError(error, shown, op);
    }
  }

  /** Reads the `.gitignore` of `dir` (components inside folder `folder`), if there is one. */
  async gitignore(folder: number, dir: string[]): Promise<Matcher | undefined> {
    try {
      // `dir` is real (resolved) already: one lstat tells the usual cases apart. A symlinked
      // .gitignore is resolved like any path, and followed only if it stays inside.
      let real = this.confinement.absolute(folder, [...dir, '.gitignore']);
      const stat = await this.workspace.stat(real);
      if (stat.type === 'symlink') {
        const found = await this.confinement.resolveIn(folder, [...dir, '.gitignore']);
        if (found.stat?.type !== 'file') {
          return undefined;
        }
        real = found.abs;
      } else if (stat.type !== 'file') {
        return undefined;
      }
      const bytes = await this.workspace.read(real, MAX_GITIGNORE_BYTES);
      const text = Buffer.from(bytes.subarray(0, MAX_GITIGNORE_BYTES)).toString('utf8');
      const rules = ignore({ allowRelativePaths: true });
      for (const line of text.split(/\r?\n/)) {
        try {
          rules.add(line);
        } catch {
          // A bad line is skipped, as git does.
        }
      }
      return { base: dir, rules };
    } catch {
      return undefined;
    }
  }

  /** A file-system or path error as a wire error naming only `shown`. */
  fsError(error: unknown, shown: string, op: Op): WireError {
    if (error instanceof WireError) {
      return error;
    }
    if (error instanceof PathError) {
      switch (error.problem) {
        case 'outside':
          return WireError.of('ACCESS_DENIED', `\`${shown}\` is outside the workspace`);
        case 'notFound':
          return WireError.of('NOT_FOUND', op === 'list' ? `the directory \`${shown}\` does not exist` : `\`${shown}\` does not exist`);
        case 'notADirectory':
          return WireError.of(
            'INVALID_ARGS',
            op === 'list' ? `\`${shown}\` is a file, not a directory` : `a parent of \`${shown}\` is a file, not a directory`,
          );
        case 'invalid':
        case 'loop':
          return WireError.of('INVALID_ARGS', `invalid path \`${shown}\`: ${error.reason}`);
      }
    }
    if (error instanceof FsError) {
      switch (error.code) {
        case 'Unavailable':
          return WireError.of(
            'UNAVAILABLE',
            `the IDE did not answer the ${op} of \`${shown}\` (${error.message}): its window is not connected; nothing was changed. Ask the user to open the IDE window, then retry.`,
          );
        case 'NotFound':
          return WireError.of('NOT_FOUND', `\`${shown}\` does not exist`);
        case 'AccessDenied':
          return WireError.of('ACCESS_DENIED', `the file system denied access to \`${shown}\``);
        case 'IsADirectory':
          return WireError.of('INVALID_ARGS', `\`${shown}\` is a directory, not a file`);
        case 'NotADirectory':
          return WireError.of('INVALID_ARGS', `a parent of \`${shown}\` is a file, not a directory`);
        case 'Exists':
          return WireError.of('ALREADY_EXISTS', `\`${shown}\` already exists`);
        case 'Other':
          break;
      }
    }
    this.notifier.log('warn', `${op} of ${shown} failed: ${error instanceof Error ? error.message : String(error)}`);
    return WireError.of('INTERNAL_ERROR', `the file operation on \`${shown}\` failed; details are in the host's log`);
  }

  /** Lists a directory for the walk (errors: nothing listed, as the Rust walker does). */
  async entries(abs: string): Promise<DirEntry[]> {
    try {
      return await this.workspace.list(abs);
    } catch {
      return [];
    }
  }
}

/** One entry found by the walk. */
interface WalkEntry {
  /** Components relative to the walked directory. */
  rel: string[];
  type: DirEntry['type'];
}

/**
 * The recursive listing of `shared/src/sandbox/walk.rs`: hidden entries skipped, `.gitignore`
 * honoured (the walked directory's ancestors' files up to its workspace folder, then each
 * directory's own; a deeper file decides first), entries sorted by name (byte order), symlinks
 * listed but never followed, at most `maxEntries` entries.
 */
class Walk {
  readonly entries: WalkEntry[] = [];
  truncated = false;
  private readonly matchers: Matcher[] = [];

  constructor(
    private readonly files: Files,
    private readonly base: Resolved,
    private readonly maxDepth: number | undefined,
    private readonly maxEntries: number,
  ) {}

  async run(): Promise<void> {
    const { folder, canon } = this.base;
    if (canon.length > 0) {
      for (let depth = 0; depth < canon.length; depth++) {
        const matcher = await this.files.gitignore(folder, canon.slice(0, depth));
        if (matcher !== undefined) {
          this.matchers.push(matcher);
        }
      }
    }
    await this.visit(this.base.abs, [], canon, 0);
  }

  private ignored(virtual: string[], isDir: boolean): boolean {
    for (let i = this.matchers.length - 1; i >= 0; i--) {
      const { base, rules } = this.matchers[i];
      const rel = virtual.slice(base.length).join('/') + (isDir ? '/' : '');
      const found = rules.test(rel);
      if (found.ignored) {
        return true;
      }
      if (found.unignored) {
        return false;
      }
    }
    return false;
  }

  /** Lists `abs` (at `depth`); false once the entry cap is hit. */
  private async visit(abs: string, rel: string[], virtual: string[], depth: number): Promise<boolean> {
    if (this.maxDepth !== undefined && depth >= this.maxDepth) {
      return true;
    }
    const items = (await this.files.entries(abs)).filter((entry) => !entry.name.startsWith('.'));
    items.sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
    const matcher = await this.files.gitignore(this.base.folder, virtual);
    if (matcher !== undefined) {
      this.matchers.push(matcher);
    }
    try {
      for (const item of items) {
        const childVirtual = [...virtual, item.name];
        const isDir = item.type === 'directory';
        if (this.ignored(childVirtual, isDir)) {
          continue;
        }
        if (this.entries.length >= this.maxEntries) {
          this.truncated = true;
          return false;
        }
        const childRel = [...rel, item.name];
        this.entries.push({ rel: childRel, type: item.type });
        if (isDir && !(await this.visit(this.files.confinement.absolute(this.base.folder, childVirtual), childRel, childVirtual, depth + 1))) {
          return false;
        }
      }
      return true;
    } finally {
      if (matcher !== undefined) {
        this.matchers.pop();
      }
    }
  }
}

function tooLargeFile(shown: string, size: number, max: number): WireError {
  return WireError.of('FILE_TOO_LARGE', `\`${shown}\` is ${size} bytes, over the host's limit of ${max} bytes (maxFileSize)`);
}

/** The error of a request abandoned before its file operation started. */
export function cancelled(): WireError {
  return WireError.of('CANCELLED', 'the request was cancelled before it ran; nothing was changed');
}

/** Whether `text` has a UTF-16 surrogate without its pair (it has no UTF-8 form). */
function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}
