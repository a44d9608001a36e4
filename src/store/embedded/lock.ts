/**
 * One writer per index: a lock file holding the owner's pid. A second
 * indexer waits for it (up to a deadline) or fails with a message naming
 * the owner; a lock left by a dead process (killed, crashed) is taken over.
 * Readers never take it: SQLite's WAL lets them read during a write.
 */
import { lstatSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreError } from '../errors.js';
import { readSmallFile } from './index-files.js';

export const LOCK_FILE = 'index.lock';

interface LockOwner {
  pid: number;
  host: string;
  since: number;
}

export interface LockOptions {
  /** How long to wait for another indexer, in ms. Default 0: fail at once. */
  waitMs?: number;
  signal?: AbortSignal;
}

export class WriteLock {
  #released = false;

  private constructor(readonly path: string) {}

  static async acquire(directory: string, options: LockOptions = {}): Promise<WriteLock> {
    const path = join(directory, LOCK_FILE);
    const deadline = Date.now() + (options.waitMs ?? 0);
    const me: LockOwner = { pid: process.pid, host: hostname(), since: Date.now() };
    for (;;) {
      try {
        // 'wx' (O_EXCL): never through a link in its place, which is taken for a stale lock below and removed.
        writeFileSync(path, JSON.stringify(me), { flag: 'wx', mode: 0o600 });
        return new WriteLock(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new StoreError(`cannot create the index lock ${path}: ${(error as Error).message}`, 'IO');
        }
      }
      const owner = readOwner(path);
      if ((!owner && !isFresh(path)) || (owner && isDead(owner))) {
        rmSync(path, { force: true }); // stale: its owner is gone
        continue;
      }
      if (Date.now() >= deadline) {
        const who = owner
          ? `pid ${owner.pid} on ${owner.host}, since ${new Date(owner.since).toISOString()}`
          : 'starting up';
        throw new StoreError(
          `another indexer (${who}) is writing this index; wait for it to finish, or let this run wait for it (oc-vector-index --wait <seconds>; the Indexer's lockWaitMs)`,
          'LOCKED',
        );
      }
      await sleep(
        Math.min(200, Math.max(1, deadline - Date.now())),
        undefined,
        options.signal ? { signal: options.signal } : {},
      );
    }
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    const owner = readOwner(this.path);
    if (owner?.pid === process.pid) rmSync(this.path, { force: true });
  }
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readSmallFile(path) ?? '') as LockOwner;
    return Number.isInteger(owner.pid) ? owner : undefined;
  } catch {
    return undefined; // half-written or unreadable: treated as stale
  }
}

/** A lock file being written by its owner right now reads as empty for a moment. */
function isFresh(path: string): boolean {
  try {
    const info = lstatSync(path);
    return info.isFile() && Date.now() - info.mtimeMs < 2_000;
  } catch {
    return false;
  }
}

function isDead(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return false; // cannot tell: keep waiting
  if (owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
