/**
 * Confinement: a path of the protocol (relative to the first workspace folder, `/`-separated)
 * becomes an absolute path inside the workspace folders, or an error.
 *
 * The same rules as mcp-suite's shared sandbox (`shared/src/sandbox.rs`, `resolve_rel` then
 * `real_at`), so the extension and `ide-bridge-host` agree on every path:
 *
 * 1. Lexically: an empty path or one with a NUL is invalid; an absolute path is outside; `.` is
 *    dropped and `..` applied, and a `..` that leaves the first folder is outside.
 * 2. Then one component at a time against the file system: a symlink is expanded in place
 *    (its target text, never a lookup outside), and every step must stay inside a workspace
 *    folder. A symlink whose target is outside is refused whether the target exists or not.
 *    After a missing component the rest is taken as is (a write creates it), except that a `..`
 *    there is "not found".
 *
 * The comparison is by path components, never by string prefix, against the folders'
 * canonical paths (symlinks resolved when the host started).
 */

import * as path from 'node:path';

import { EntryStat, FsError, Workspace } from './workspace';

/** The most symlinks followed while resolving one path (as Linux's `MAXSYMLINKS`). */
export const MAX_SYMLINKS = 40;

/** Why a path was refused. */
export type PathProblem = 'invalid' | 'outside' | 'notFound' | 'notADirectory' | 'loop';

/** A refused path; `reason` is safe to show (it names nothing of the host). */
export class PathError extends Error {
  constructor(
    readonly problem: PathProblem,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'PathError';
  }
}

/** A confined path. */
export interface Resolved {
  /** The components relative to the first folder, as the caller wrote them, normalised. */
  lexical: string[];
  /** The index of the workspace folder that holds the real path. */
  folder: number;
  /** The real components (symlinks resolved) relative to that folder. */
  canon: string[];
  /** The real absolute path. */
  abs: string;
  /** The entry at `abs` (a final symlink not followed only when asked); undefined when missing. */
  stat?: EntryStat;
}

const isWindows = process.platform === 'win32';

/** Splits a protocol path (or a symlink's target text) into components. */
function split(text: string): string[] {
  return text.split(isWindows ? /[\\/]/ : '/');
}

/** The components of an absolute platform path (`/a/b` → `['a', 'b']`; `C:\a` → `['C:', 'a']`). */
function components(abs: string): string[] {
  return path.resolve(abs).split(path.sep).filter((c) => c !== '');
}

/** Whether `text` is absolute in the platform's terms (or, on Windows, rooted at all). */
function isAbsolute(text: string): boolean {
  return path.isAbsolute(text) || (isWindows && /^[a-zA-Z]:/.test(text));
}

/** Resolves protocol paths against a set of workspace folders. */
export class Confinement {
  private readonly roots: string[][];

  /**
   * @param workspace the file operations (only `stat` is used here)
   * @param folders the workspace folders: absolute, canonical; relative paths resolve against the first
   */
  /** The names a multi-root workspace addresses folders after the first by (`name/path`). */
  readonly names: readonly string[];

  constructor(
    private readonly workspace: Workspace,
    readonly folders: readonly string[],
    names?: readonly string[],
  ) {
    if (folders.length === 0) {
      throw new Error('a host needs at least one workspace folder');
    }
    this.roots = folders.map(components);
    this.names = names !== undefined && names.length === folders.length ? [...names] : folders.map((f) => path.basename(f));
  }

  /**
   * In a multi-root workspace, the folder after the first that `lexical` starts with (by name),
   * so that `name/rest` resolves inside it; a name shadows a same-named directory of the first
   * folder. Undefined for everything else.
   */
  private named(lexical: readonly string[]): number | undefined {
    if (this.folders.length < 2 || lexical.length === 0) {
      return undefined;
    }
    const index = this.names.findIndex((name, i) => i > 0 && name === lexical[0]);
    return index > 0 ? index : undefined;
  }

  /**
   * How the protocol writes the absolute path `abs`: relative to the first folder, or
   * `name/rest` for a later folder of a multi-root workspace (the deepest folder containing it);
   * undefined when it is in no folder.
   */
  protocolPath(abs: string): string | undefined {
    const found = this.locate(abs);
    if (found === undefined) {
      return undefined;
    }
    const parts = found.folder === 0 ? found.rest : [this.names[found.folder], ...found.rest];
    return parts.length === 0 ? '.' : parts.join('/');
  }

  /** The absolute path of `canon` inside folder `folder`. */
  absolute(folder: number, canon: readonly string[]): string {
    return canon.length === 0 ? this.folders[folder] : path.join(this.folders[folder], ...canon);
  }

  /** Step 1: the lexical components of `rel` inside the first folder. */
  lexical(rel: string): string[] {
    if (rel === '') {
      throw new PathError('invalid', 'the path is empty; pass a file or directory path ("." for the root)');
    }
    if (rel.includes('\0')) {
      throw new PathError('invalid', 'the path contains a NUL byte; remove it');
    }
    if (isAbsolute(rel) || rel.startsWith('/')) {
      throw new PathError('outside', 'outside');
    }
    const out: string[] = [];
    for (const part of split(rel)) {
      if (part === '' || part === '.') {
        continue;
      }
      if (part === '..') {
        if (out.pop() === undefined) {
          throw new PathError('outside', 'outside');
        }
        continue;
      }
      if (isWindows && part.includes(':')) {
        throw new PathError('invalid', 'a path component must not contain ":"');
      }
      out.push(part);
    }
    return out;
  }

  /** The deepest folder containing the absolute path `abs`, and the components below it. */
  private locate(abs: string): { folder: number; rest: string[] } | undefined {
    const parts = components(abs);
    let best: { folder: number; rest: string[] } | undefined;
    this.roots.forEach((root, folder) => {
      const inside = root.length <= parts.length && root.every((c, i) => c === parts[i]);
      if (inside && (best === undefined || root.length > this.roots[best.folder].length)) {
        best = { folder, rest: parts.slice(root.length) };
      }
    });
    return best;
  }

  /**
   * Steps 1 and 2: confines `rel`. With `followFinal` false, a symlink as the last component is
   * kept as it is.
   */
  async resolve(rel: string, followFinal = true): Promise<Resolved> {
    const lexical = this.lexical(rel);
    const named = this.named(lexical);
    if (named !== undefined) {
      return { ...(await this.resolveIn(named, lexical.slice(1), followFinal)), lexical };
    }
    return { ...(await this.resolveIn(0, lexical, followFinal)), lexical };
  }

  /**
   * Step 2 alone: resolves `parts` (components, `..` allowed) starting at folder `start`. The
   * result's `lexical` is `parts`.
   */
  async resolveIn(start: number, parts: readonly string[], followFinal = true): Promise<Resolved> {
    const lexical = [...parts];
    let folder = start;
    let canon: string[] = [];
    const queue: string[] = [...parts];
    let links = 0;
    let missing = false;
    while (queue.length > 0) {
      const step = queue.shift() as string;
      if (step === '' || step === '.') {
        continue;
      }
      if (step === '..') {
        if (missing) {
          throw new PathError('notFound', 'not found');
        }
        if (canon.pop() === undefined) {
          // Climbing out of this folder: only into an enclosing workspace folder.
          const found = this.locate(path.dirname(this.folders[folder]));
          if (found === undefined || this.folders[folder] === path.dirname(this.folders[folder])) {
            throw new PathError('outside', 'outside');
          }
          ({ folder, rest: canon } = found);
        }
        continue;
      }
      if (missing) {
        canon.push(step);
        continue;
      }
      const isLast = queue.length === 0;
      const here = this.absolute(folder, [...canon, step]);
      let stat: EntryStat;
      try {
        stat = await this.workspace.stat(here);
      } catch (error) {
        if (error instanceof FsError && error.code === 'NotFound') {
          missing = true;
          canon.push(step);
          continue;
        }
        if (error instanceof FsError && error.code === 'NotADirectory') {
          throw new PathError('notADirectory', 'a parent is not a directory');
        }
        throw error;
      }
      if (stat.type === 'symlink' && (followFinal || !isLast)) {
        links += 1;
        if (links > MAX_SYMLINKS) {
          throw new PathError('loop', `more than ${MAX_SYMLINKS} symlinks (a loop?)`);
        }
        const target = stat.linkTarget;
        if (target === undefined) {
          // The file system cannot say where the link goes: never follow it.
          throw new PathError('outside', 'outside');
        }
        if (target === '') {
          throw new PathError('notFound', 'not found');
        }
        let expansion: string[];
        if (isAbsolute(target)) {
          // Decided from the link's text only: nothing outside is looked up.
          const found = this.locate(target);
          if (found === undefined) {
            throw new PathError('outside', 'outside');
          }
          folder = found.folder;
          canon = [];
          expansion = found.rest;
        } else {
          expansion = split(target);
        }
        queue.unshift(...expansion);
        continue;
      }
      if (!isLast && stat.type !== 'directory') {
        throw new PathError('notADirectory', 'a parent is not a directory');
      }
      canon.push(step);
    }
    const abs = this.absolute(folder, canon);
    let stat: EntryStat | undefined;
    if (!missing) {
      try {
        stat = await this.workspace.stat(abs);
      } catch (error) {
        if (!(error instanceof FsError && error.code === 'NotFound')) {
          throw error;
        }
      }
    }
    return { lexical, folder, canon, abs, stat };
  }
}
