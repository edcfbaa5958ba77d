/**
 * Discovery files (protocol §7; the Rust side is `src/discovery.rs`): how a bridge finds the
 * host of its workspace without a fixed port.
 *
 * A host writes `<dir>/<port>.json` = `{port, pid, workspaceFolders, token}` once it listens and
 * removes it when it stops, where `<dir>` is `$XDG_RUNTIME_DIR/ide-bridge`, or
 * `${TMPDIR:-/tmp}/ide-bridge-<uid>` when `XDG_RUNTIME_DIR` is not set (or not absolute). The
 * directory is private (0700, owned by the user, not a symlink) and each file is 0600, written
 * atomically (temporary file, fsync, rename), because it holds the token. Files of hosts whose
 * process is gone are removed on the way. Windows is not covered by version 1 of the protocol.
 */

import { promises as fs, constants as fsConstants } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The name of the discovery directory under `$XDG_RUNTIME_DIR`. */
export const DIR_NAME = 'ide-bridge';

/** Largest discovery file read (a valid one is a few hundred bytes). */
const MAX_FILE_BYTES = 64 * 1024;

/** What a discovery file holds. */
export interface DiscoveryRecord {
  /** The host's port on 127.0.0.1. */
  port: number;
  /** The host's process id (the editor's extension-host process). */
  pid: number;
  /** The absolute, canonical paths of the workspace folders served. */
  workspaceFolders: string[];
  /** The bearer token of the WebSocket upgrade. */
  token: string;
}

/** The discovery directory for an environment (as `discovery_dir_from` in Rust). */
export function discoveryDirFrom(xdgRuntimeDir: string | undefined, tempDir: string, uid: number): string {
  if (xdgRuntimeDir !== undefined && xdgRuntimeDir !== '' && path.isAbsolute(xdgRuntimeDir)) {
    return path.join(xdgRuntimeDir, DIR_NAME);
  }
  return path.join(tempDir, `${DIR_NAME}-${uid}`);
}

/** Whether discovery is defined on this platform (not on Windows, in version 1). */
export function discoverySupported(): boolean {
  return process.platform !== 'win32' && typeof process.getuid === 'function';
}

/** The discovery directory of this process's environment. */
export function discoveryDir(): string {
  return discoveryDirFrom(process.env.XDG_RUNTIME_DIR, os.tmpdir(), currentUid());
}

function currentUid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : -1;
}

/** Creates `dir` (0700) or checks that it is a private directory of this user, tightening it to 0700. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await fs.mkdir(path.dirname(dir), { recursive: true });
  try {
    await fs.mkdir(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw error;
    }
  }
  const stat = await fs.lstat(dir);
  if (!stat.isDirectory() || stat.uid !== currentUid()) {
    throw new Error(
      `${dir} is not a private directory of this user (it must be a directory, not a symlink, owned by you); remove it or set XDG_RUNTIME_DIR`,
    );
  }
  if ((stat.mode & 0o777) !== 0o700) {
    await fs.chmod(dir, 0o700);
  }
}

/** Whether process `pid` exists and this user may signal it (as `kill(pid, 0)`). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) {
    return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is DiscoveryRecord {
  const r = value as DiscoveryRecord;
  return (
    typeof value === 'object' &&
    value !== null &&
    Number.isInteger(r.port) &&
    r.port >= 0 &&
    r.port <= 65535 &&
    Number.isInteger(r.pid) &&
    r.pid >= 0 &&
    Array.isArray(r.workspaceFolders) &&
    r.workspaceFolders.every((f) => typeof f === 'string') &&
    typeof r.token === 'string'
  );
}

/** Reads one discovery file; undefined when it is unreadable, too large or not a record. */
export async function readRecord(file: string): Promise<DiscoveryRecord | undefined> {
  try {
    const stat = await fs.lstat(file);
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) {
      return undefined;
    }
    const value: unknown = JSON.parse(await fs.readFile(file, 'utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the files in `dir` whose host process is gone (a host killed with SIGKILL). */
export async function sweepStale(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return;
  }
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const file = path.join(dir, name);
    try {
      const owned = (await fs.lstat(file)).uid === currentUid();
      const record = await readRecord(file);
      if (owned && record !== undefined && !pidAlive(record.pid)) {
        await fs.unlink(file);
      }
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
}

/** A published discovery file. */
export class Published {
  private removed = false;

  constructor(
    /** The file's path. */
    readonly file: string,
    private readonly pid: number,
  ) {}

  /** Removes the file, if it is still ours (a later host on the same port may have replaced it). */
  async remove(): Promise<void> {
    if (this.removed) {
      return;
    }
    this.removed = true;
    const record = await readRecord(this.file);
    if (record?.pid === this.pid) {
      await fs.unlink(this.file).catch(() => undefined);
    }
  }
}

/**
 * Writes `record` to `dir/<port>.json` atomically with mode 0600 (the directory is made private
 * first, and files of dead hosts are removed).
 */
export async function publish(dir: string, record: DiscoveryRecord): Promise<Published> {
  await ensurePrivateDir(dir);
  await sweepStale(dir);
  const file = path.join(dir, `${record.port}.json`);
  const temp = path.join(dir, `.${record.port}.json.${record.pid}.tmp`);
  // The same layout as serde_json's pretty printer, so both hosts write the same bytes.
  const bytes = JSON.stringify(record, null, 2);
  await fs.rm(temp, { force: true });
  try {
    const handle = await fs.open(temp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
    const dirHandle = await fs.open(dir, 'r');
    try {
      await dirHandle.sync();
    } finally {
      await dirHandle.close();
    }
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  return new Published(file, record.pid);
}
