/**
 * The small interface between the protocol core and the editor: a {@link Workspace} that lists,
 * stats, reads and writes files by absolute path, and a {@link Notifier} that tells the user.
 *
 * The core decides everything the protocol says (confinement, `.gitignore`, limits, binary
 * detection, error codes); an implementation only performs plain file operations. The extension
 * implements it over `vscode.workspace.fs` (`src/vscode/vscodeWorkspace.ts`); tests and headless
 * use implement it over Node's `fs` (`nodeWorkspace.ts`).
 */

/** What an entry is, the entry itself (a symlink is not followed). */
export type EntryType = 'file' | 'directory' | 'symlink' | 'other';

/** The metadata of one entry. */
export interface EntryStat {
  /** The entry's own type (`symlink` for a link, whatever it points to). */
  type: EntryType;
  /** Size in bytes (of a regular file; anything for the others). */
  size: number;
  /**
   * For a symlink: its target text, exactly as stored (`readlink`). Undefined when the file
   * system cannot tell; the core then refuses to follow the link (fail closed).
   */
  linkTarget?: string;
}

/** One directory entry. */
export interface DirEntry {
  /** The entry's name (one component). */
  name: string;
  /** The entry's own type (a symlink is not followed). */
  type: EntryType;
}

/** Why a file operation failed, in the terms the core maps to wire codes. */
/** `Unavailable`: the editor did not answer (its window is gone; see `VscodeWorkspace`). */
export type FsErrorCode = 'NotFound' | 'NotADirectory' | 'IsADirectory' | 'AccessDenied' | 'Exists' | 'Unavailable' | 'Other';

/** A failed file operation. `message` goes to the log only, never on the wire. */
export class FsError extends Error {
  constructor(
    readonly code: FsErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'FsError';
  }
}

/**
 * The file operations the core needs. Every path is absolute, in the platform's form, and has
 * already been confined by the core; an implementation must not resolve `..` or follow a symlink
 * in the last component except where stated.
 */
export interface Workspace {
  /** The entry at `path` itself (like `lstat`). Throws `FsError('NotFound')` when it is missing. */
  stat(path: string): Promise<EntryStat>;
  /** The entries of the directory `path`, in any order, symlinks not followed. */
  list(path: string): Promise<DirEntry[]>;
  /**
   * The bytes of the regular file `path`. May stop after `maxBytes + 1` bytes: a longer result
   * tells the core that the file is over the limit.
   */
  read(path: string, maxBytes: number): Promise<Uint8Array>;
  /**
   * Replaces (or creates) the regular file `path` with `data`, atomically: readers, and a crash
   * at any moment, see the old content or the new, never a mix. Missing parent directories are
   * created; an existing file keeps its permission bits.
   */
  write(path: string, data: Uint8Array): Promise<void>;
}

/** What a write is about, for the user. */
export interface WriteNotice {
  /** The path relative to the workspace root, as the protocol writes it. */
  path: string;
  /** The bytes of the new content. */
  bytes: number;
  /** Whether the file is new. */
  created: boolean;
  /** The proposed text (what the write would put in the file), for the review before it. */
  content: string;
}

/**
 * Thrown by {@link Notifier.confirmWrite} when no user can answer (the editor window that would
 * ask is gone): the write is refused at once as `UNAVAILABLE` instead of waiting for the bridge's
 * timeout.
 */
export class NoUserError extends Error {}

/** How the core talks to the user. */
/** A code action's command an MCP client asks to run. */
export interface CommandNotice {
  /** The code action's title. */
  title: string;
  /** The command's id (`editor.action.organizeImports`), when the language server names it. */
  command: string;
}

export interface Notifier {
  /**
   * Asks the user whether a write may happen (only when writes need confirmation). Resolves
   * `true` to allow it.
   */
  confirmWrite(notice: WriteNotice): Promise<boolean>;
  /**
   * Asks the user whether a code action's IDE command may run (always: its effect cannot be
   * previewed). Resolves `true` to run it; throws {@link NoUserError} when nobody can answer.
   */
  confirmCommand(notice: CommandNotice): Promise<boolean>;
  /** Tells the user a write happened (every write is shown to the user). */
  didWrite(notice: WriteNotice): void;
  /** A line for the log (never shown to MCP clients). */
  log(level: 'info' | 'warn' | 'error', message: string): void;
}
