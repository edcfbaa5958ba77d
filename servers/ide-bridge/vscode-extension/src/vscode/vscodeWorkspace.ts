/**
 * The core's {@link Workspace} over `vscode.workspace.fs`, so that reads and writes go through
 * the editor's file service (its file-system providers, remote workspaces, its file watcher
 * seeing every change).
 *
 * Two things the editor's API does not offer are done with Node's `fs` on the same local path:
 *
 * - reading a symlink's target (`readlink`), which confinement needs to refuse links that lead
 *   out of the workspace;
 * - the commit of a write. `workspace.fs.writeFile` truncates the file and writes it in place,
 *   and `workspace.fs.rename(…, {overwrite: true})` deletes the target before renaming, so
 *   neither is atomic. The content is therefore written through `workspace.fs` to a hidden
 *   temporary file beside the target, which then replaces the target with one `rename(2)`:
 *   readers, and a crash, see the old file or the new one, never a mix or no file.
 *
 * Only folders with a local path are served (scheme `file`, or `vscode-remote` when the
 * extension runs in the remote extension host, where that path is local), so both halves see the
 * same files. This module imports only types from `vscode`: it is tested under plain Node with a
 * stand-in for `workspace.fs`.
 */

import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

import { syncDir, toFsError } from '../core/nodeWorkspace';
import { DirEntry, EntryStat, EntryType, FsError, Workspace } from '../core/workspace';

/** `vscode.FileType`'s values (a stable part of the API). */
export const VsFileType = { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 } as const;

/** The part of `vscode.FileSystem` (`vscode.workspace.fs`) used here, over any URI type. */
export interface VsFileSystem<U> {
  stat(uri: U): PromiseLike<{ type: number; size: number }>;
  readDirectory(uri: U): PromiseLike<[string, number][]>;
  readFile(uri: U): PromiseLike<Uint8Array>;
  writeFile(uri: U, content: Uint8Array): PromiseLike<void>;
  createDirectory(uri: U): PromiseLike<void>;
  delete(uri: U, options?: { recursive?: boolean; useTrash?: boolean }): PromiseLike<void>;
}

/**
 * A `vscode.FileSystemError` (its `code` is the error's name, e.g. `FileNotFound`) or a Node
 * error, as an {@link FsError}.
 */
export function vsFsError(error: unknown): FsError {
  if (error instanceof FsError) {
    return error;
  }
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case 'FileNotFound':
    case 'EntryNotFound':
      return new FsError('NotFound', message);
    case 'FileNotADirectory':
    case 'EntryNotADirectory':
      return new FsError('NotADirectory', message);
    case 'FileIsADirectory':
    case 'EntryIsADirectory':
      return new FsError('IsADirectory', message);
    case 'NoPermissions':
      return new FsError('AccessDenied', message);
    case 'FileExists':
    case 'EntryExists':
      return new FsError('Exists', message);
    default:
      return typeof code === 'string' && code.startsWith('E') ? toFsError(error) : new FsError('Other', message);
  }
}

function typeOf(bits: number): EntryType {
  if (bits & VsFileType.SymbolicLink) {
    return 'symlink';
  }
  if (bits & VsFileType.Directory) {
    return 'directory';
  }
  return bits & VsFileType.File ? 'file' : 'other';
}

/** File operations through `vscode.workspace.fs` (see the module comment). */
/** How long one `workspace.fs` call may take before the editor counts as gone. */
export const FS_ANSWER_MS = 5000;

/**
 * `vfs` with every call bounded by `ms`: past it the call fails with `FsError('Unavailable')`.
 * In a browser or remote setup (code-server, VS Code for the Web) the extension host reaches
 * `workspace.fs` through the editor's window; when that window is lost without a goodbye (a
 * crashed tab, a machine gone to sleep) the extension host keeps running for the reconnection
 * grace time and every such call would wait forever.
 */
export function answeringFs<U>(vfs: VsFileSystem<U>, ms = FS_ANSWER_MS): VsFileSystem<U> {
  const bounded = <T>(call: () => PromiseLike<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new FsError('Unavailable', `the editor did not answer a file operation within ${ms / 1000} s`)),
        ms,
      );
      Promise.resolve(call()).then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  return {
    stat: (uri) => bounded(() => vfs.stat(uri)),
    readDirectory: (uri) => bounded(() => vfs.readDirectory(uri)),
    readFile: (uri) => bounded(() => vfs.readFile(uri)),
    writeFile: (uri, content) => bounded(() => vfs.writeFile(uri, content)),
    createDirectory: (uri) => bounded(() => vfs.createDirectory(uri)),
    delete: (uri, options) => bounded(() => vfs.delete(uri, options)),
  };
}

export class VscodeWorkspace<U> implements Workspace {
  private readonly vfs: VsFileSystem<U>;

  /**
   * @param vfs `vscode.workspace.fs` (every call bounded by {@link answeringFs})
   * @param toUri the editor's URI of a local absolute path
   */
  constructor(
    vfs: VsFileSystem<U>,
    private readonly toUri: (absolutePath: string) => U,
    answerMs = FS_ANSWER_MS,
  ) {
    this.vfs = answeringFs(vfs, answerMs);
  }

  async stat(file: string): Promise<EntryStat> {
    let stat: { type: number; size: number };
    try {
      stat = await this.vfs.stat(this.toUri(file));
    } catch (error) {
      throw vsFsError(error);
    }
    const type = typeOf(stat.type);
    if (type !== 'symlink') {
      return { type, size: stat.size };
    }
    // The editor reports links (followed) but not where they go; undefined refuses the link.
    const linkTarget = await fs.readlink(file).catch(() => undefined);
    return { type, size: stat.size, linkTarget };
  }

  async list(dir: string): Promise<DirEntry[]> {
    try {
      const entries = await this.vfs.readDirectory(this.toUri(dir));
      return entries.map(([name, bits]) => ({ name, type: typeOf(bits) }));
    } catch (error) {
      throw vsFsError(error);
    }
  }

  async read(file: string): Promise<Uint8Array> {
    // The core checked the size before and checks the bytes again after.
    try {
      return await this.vfs.readFile(this.toUri(file));
    } catch (error) {
      throw vsFsError(error);
    }
  }

  async write(file: string, data: Uint8Array): Promise<void> {
    const dir = path.dirname(file);
    const temp = path.join(dir, `.${path.basename(file)}.ide-bridge-tmp-${randomBytes(8).toString('hex')}`);
    const tempUri = this.toUri(temp);
    let wroteTemp = false;
    try {
      try {
        await this.vfs.stat(this.toUri(dir));
      } catch (error) {
        if (vsFsError(error).code !== 'NotFound') {
          throw error;
        }
        await this.vfs.createDirectory(this.toUri(dir)); // mkdir -p semantics
      }
      await this.vfs.writeFile(tempUri, data);
      wroteTemp = true;
      const mode = await fs.stat(file).then(
        (s) => s.mode & 0o7777,
        () => undefined,
      );
      if (mode !== undefined) {
        await fs.chmod(temp, mode);
      }
      await fs.rename(temp, file);
      wroteTemp = false;
      await syncDir(dir);
    } catch (error) {
      if (wroteTemp) {
        await Promise.resolve(this.vfs.delete(tempUri, { useTrash: false })).catch(() => undefined);
      }
      throw vsFsError(error);
    }
  }
}
