/**
 * A {@link Workspace} over Node's `fs`: what the core runs on outside the editor (tests, the
 * cross-language test, a headless host in Node).
 */

import { randomBytes } from 'node:crypto';
import { promises as fs, constants as fsConstants } from 'node:fs';
import * as path from 'node:path';

import { DirEntry, EntryStat, EntryType, FsError, Workspace } from './workspace';

/** A Node error as an {@link FsError}. */
export function toFsError(error: unknown): FsError {
  const e = error as NodeJS.ErrnoException;
  const message = e?.message ?? String(error);
  switch (e?.code) {
    case 'ENOENT':
      return new FsError('NotFound', message);
    case 'ENOTDIR':
      return new FsError('NotADirectory', message);
    case 'EISDIR':
      return new FsError('IsADirectory', message);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new FsError('AccessDenied', message);
    case 'EEXIST':
      return new FsError('Exists', message);
    default:
      return new FsError('Other', message);
  }
}

function typeOf(entry: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): EntryType {
  if (entry.isSymbolicLink()) {
    return 'symlink';
  }
  if (entry.isDirectory()) {
    return 'directory';
  }
  return entry.isFile() ? 'file' : 'other';
}

/** Options of {@link NodeWorkspace}. */
export interface NodeWorkspaceOptions {
  /** fsync written files and their directories (default true). */
  fsync?: boolean;
}

/** File operations on the local disk through Node's `fs`. */
export class NodeWorkspace implements Workspace {
  private readonly fsync: boolean;

  constructor(options: NodeWorkspaceOptions = {}) {
    this.fsync = options.fsync ?? true;
  }

  async stat(file: string): Promise<EntryStat> {
    try {
      const stat = await fs.lstat(file);
      const type = typeOf(stat);
      return type === 'symlink' ? { type, size: stat.size, linkTarget: await fs.readlink(file) } : { type, size: stat.size };
    } catch (error) {
      throw toFsError(error);
    }
  }

  async list(dir: string): Promise<DirEntry[]> {
    try {
      const entries = await fs.readdir(dir, { withFileTypes: true, encoding: 'buffer' });
      const out: DirEntry[] = [];
      const decoder = new TextDecoder('utf-8', { fatal: true });
      for (const entry of entries) {
        let name: string;
        try {
          name = decoder.decode(entry.name);
        } catch {
          continue; // A name that is not UTF-8 cannot travel in JSON; skipped, as the Rust host does.
        }
        out.push({ name, type: typeOf(entry) });
      }
      return out;
    } catch (error) {
      throw toFsError(error);
    }
  }

  async read(file: string, maxBytes: number): Promise<Uint8Array> {
    let handle: fs.FileHandle | undefined;
    try {
      // O_NOFOLLOW: the path was confined with its symlinks resolved; a link appearing now is refused.
      handle = await fs.open(file, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0));
      const stat = await handle.stat();
      if (stat.isDirectory()) {
        throw new FsError('IsADirectory', 'is a directory');
      }
      // Up to one byte over the limit: enough to tell the core the file is too large.
      const limit = maxBytes + 1;
      const chunks: Buffer[] = [];
      let total = 0;
      while (total < limit) {
        const want = Math.min(limit - total, Math.max(stat.size + 1 - total, 64 * 1024));
        const chunk = Buffer.alloc(want);
        const { bytesRead } = await handle.read(chunk, 0, want, null);
        if (bytesRead === 0) {
          break;
        }
        chunks.push(chunk.subarray(0, bytesRead));
        total += bytesRead;
      }
      return Buffer.concat(chunks, total);
    } catch (error) {
      throw error instanceof FsError ? error : toFsError(error);
    } finally {
      await handle?.close();
    }
  }

  async write(file: string, data: Uint8Array): Promise<void> {
    const dir = path.dirname(file);
    const temp = path.join(dir, `.${path.basename(file)}.ide-bridge-tmp-${randomBytes(8).toString('hex')}`);
    let handle: fs.FileHandle | undefined;
    try {
      await fs.mkdir(dir, { recursive: true });
      let mode: number | undefined;
      try {
        mode = (await fs.stat(file)).mode & 0o7777;
      } catch {
        mode = undefined;
      }
      handle = await fs.open(temp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, 0o666);
      await handle.writeFile(data);
      if (mode !== undefined) {
        await handle.chmod(mode);
      }
      if (this.fsync) {
        await handle.sync();
      }
      await handle.close();
      handle = undefined;
      await fs.rename(temp, file);
      if (this.fsync) {
        await syncDir(dir);
      }
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await fs.rm(temp, { force: true }).catch(() => undefined);
      throw toFsError(error);
    }
  }
}

/** fsyncs a directory (so a rename in it survives a power loss); best effort where unsupported. */
export async function syncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    // Some platforms (Windows) cannot open or sync a directory.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
