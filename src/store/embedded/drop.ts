/**
 * Deletes an index: its database (with SQLite's journal files), its FAISS
 * files, its lock and its .gitignore, then the directory once nothing else
 * is left in it. Anything else found there is left alone and reported, so
 * that a mistyped `--db` never costs a user their files.
 */
import { readdirSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CHECKED_FILE, DATABASE_FILE, StoreError } from './database.js';
import type { DroppedIndex } from '../store.js';
import { entryAt } from './index-files.js';
import { LOCK_FILE, type LockOptions, WriteLock } from './lock.js';

const OWN_FILES = new Set([
  DATABASE_FILE,
  `${DATABASE_FILE}-wal`,
  `${DATABASE_FILE}-shm`,
  `${DATABASE_FILE}-journal`,
  CHECKED_FILE,
  '.gitignore',
]);
const VECTORS_FILE = /^vectors-g\d+\.ocvx(?:\.tmp[\w.-]*)?$/;
/** A record of the last writer that a crash left half made (index-files.ts replaceFile). */
const CHECKED_TEMPORARY = /^index\.db\.checked\.tmp-[\w-]+$/;

/**
 * Waits for no indexer (the write lock, like a run), so that a run is never
 * cut off halfway. Refuses a directory without an index database:
 * StoreError NOT_FOUND.
 */
export async function dropIndex(directory: string, options: LockOptions = {}): Promise<DroppedIndex> {
  // A link in the index directory's place is refused: the files of the directory it points to are not this index's.
  entryAt(directory, directory);
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch (error) {
    throw new StoreError(
      `there is no index at ${directory} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      'NOT_FOUND',
    );
  }
  if (!names.includes(DATABASE_FILE))
    throw new StoreError(`${directory} holds no index (no ${DATABASE_FILE}): nothing was deleted`, 'NOT_FOUND');
  const lock = await WriteLock.acquire(directory, options);
  const removed: string[] = [];
  const kept: string[] = [];
  try {
    for (const name of names) {
      if (name === LOCK_FILE) continue;
      // A link among them is removed itself (rmSync never follows one).
      if (OWN_FILES.has(name) || VECTORS_FILE.test(name) || CHECKED_TEMPORARY.test(name)) {
        rmSync(join(directory, name), { force: true });
        removed.push(name);
      } else kept.push(name);
    }
  } finally {
    lock.release();
  }
  let directoryRemoved = false;
  if (kept.length === 0) {
    try {
      rmdirSync(directory);
      directoryRemoved = true;
    } catch {
      // something appeared meanwhile: the directory stays with it
    }
  }
  return { directory, removed: removed.sort(), kept: kept.sort(), directoryRemoved };
}
