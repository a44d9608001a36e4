/**
 * A copy of an embedded index, for a first index that can start from another's: a
 * linked git worktree's from its main worktree's (indexing/seed.ts). The database is
 * copied through SQLite's backup, a snapshot of one commit even while a run writes
 * the source, and with it the vectors file that commit names (files are written
 * under new names and never changed in place). The copy is made beside the target and
 * renamed into place whole, so that no run meets half of one.
 */
import { constants, copyFileSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  DATABASE_FILE,
  openForReading,
  prepareDirectory,
  recordLastWriter,
  unchangedSinceLastWriter,
} from './database.js';
import { IndexMeta } from './meta.js';
import { SCHEMA_VERSION } from './schema.js';
import { pragmaValue, setPragma } from './sqlite.js';

/** Copies the index at `source` to `target`, which must not exist; returns why it did not, leaving nothing there. */
export async function copyIndex(
  source: string,
  target: string,
): Promise<{ copied: true } | { copied: false; why: string }> {
  const database = join(source, DATABASE_FILE);
  if (!existsSync(database)) return { copied: false, why: `${source} holds no index` };
  // Its own name each call: two runs of one process (a watcher, an MCP server's reindex) may copy at once.
  let staging: string | undefined;
  try {
    staging = mkdtempSync(`${target}.copying-`);
    prepareDirectory(staging);
    // A source as its last writer left it, checked page by page when that writer opened it, makes a copy
    // that needs no check of its own (1.5 s of a seeded index of Spring Framework's 183 MB database).
    const checked = unchangedSinceLastWriter(source);
    // Opened as a search opens it: a read-only connection would leave the WAL's files behind, and the
    // source's next writer would take them for a crash's and check every page.
    const from = openForReading(database);
    try {
      setPragma(from, 'busy_timeout = 10000');
      const schema = pragmaValue(from, 'user_version') as number;
      if (schema > SCHEMA_VERSION)
        return { copied: false, why: `it was written by a newer ocvector (schema ${schema})` };
      await from.backup(join(staging, DATABASE_FILE));
    } finally {
      from.close();
    }
    const copy = openForReading(join(staging, DATABASE_FILE));
    let vectorsFile: string | undefined;
    try {
      vectorsFile = new IndexMeta(copy).vectorsFile.split(' ')[0] || undefined;
    } finally {
      copy.close();
    }
    // Without its vectors file the copy would have every element embedded again: no faster than a fresh index.
    if (!vectorsFile) return { copied: false, why: 'it has written no vectors file yet' };
    if (checked && unchangedSinceLastWriter(source)) recordLastWriter(staging);
    copyFileSync(join(source, vectorsFile), join(staging, vectorsFile), constants.COPYFILE_FICLONE);
    renameSync(staging, target);
    return { copied: true };
  } catch (error) {
    return { copied: false, why: (error as Error).message };
  } finally {
    if (staging) rmSync(staging, { recursive: true, force: true });
  }
}
