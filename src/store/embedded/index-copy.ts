/**
 * A copy of an embedded index, for a first index that can start from another's: a
 * linked git worktree's from its main worktree's (indexing/seed.ts). The database is
 * copied through SQLite's backup, a snapshot of one commit even while a run writes
 * the source, and with it the vectors file that commit names (files are written
 * under new names and never changed in place). The copy is made beside the target and
 * renamed into place whole, so that no run meets half of one.
 */
import { constants, copyFileSync, existsSync, lstatSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import {
  checkIndexFiles,
  DATABASE_FILE,
  openForReading,
  prepareDirectory,
  recordLastWriter,
  unchangedSinceLastWriter,
} from './database.js';
import { statIdentity } from './index-files.js';
import { IndexMeta } from './meta.js';
import { checkSchema } from './schema-check.js';
import { SCHEMA_VERSION } from './schema.js';
import { openSqlite, pragmaValue, prepared, setPragma } from './sqlite.js';
import { FILE_PATTERN, fileRecord } from './vector-files.js';

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
    // The source came with a clone as much as the worktree did: links in it are refused, not followed.
    checkIndexFiles(source);
    staging = mkdtempSync(`${target}.copying-`);
    prepareDirectory(staging);
    // A source as its last writer left it, checked page by page when that writer opened it, makes a copy
    // that needs no check of its own: the check grows with the database and would be most of a seeded
    // run (docs/performance.md, "The figures behind the constants").
    const checked = unchangedSinceLastWriter(source);
    // Opened as a search opens it: a read-only connection would leave the WAL's files behind, and the
    // source's next writer would take them for a crash's and check every page.
    const from = openForReading(database);
    try {
      setPragma(from, 'busy_timeout = 10000');
      const schema = pragmaValue(from, 'user_version') as number;
      if (schema > SCHEMA_VERSION)
        return { copied: false, why: `it was written by a newer ocvector (schema ${schema})` };
      checkSchema(from, source, schema);
      await from.backup(join(staging, DATABASE_FILE));
    } finally {
      from.close();
    }
    const copy = openForReading(join(staging, DATABASE_FILE));
    let vectorsFile: string | undefined;
    let recorded: string[];
    let largest: number;
    try {
      recorded = new IndexMeta(copy).vectorsFile.split(' ');
      vectorsFile = recorded[0] || undefined;
      largest = largestVectorsFile(copy);
    } finally {
      copy.close();
    }
    // Without its vectors file the copy would have every element embedded again: no faster than a fresh index.
    if (!vectorsFile) return { copied: false, why: 'it has written no vectors file yet' };
    // A name of ours, in the index directory: never a path ('../payload') to read from or write to.
    if (!FILE_PATTERN.test(vectorsFile))
      return { copied: false, why: `it names its vectors file ${JSON.stringify(vectorsFile)}, not vectors-g<N>.ocvx` };
    const vectorsPath = join(source, vectorsFile);
    const info = lstatSync(vectorsPath);
    if (!info.isFile()) return { copied: false, why: `its vectors file ${vectorsPath} is not a regular file` };
    if (info.size > largest)
      return {
        copied: false,
        why: `its vectors file ${vectorsPath} holds ${info.size} bytes, more than its database's vectors can take (${largest})`,
      };
    // Written by the source index on this machine (its stat, change time included, as recorded): the copy made
    // from it here is as trustworthy, and is recorded so that FAISS reads it in this process. Any other source
    // file's copy is checked in a child process when first read (vector-files.ts), as the source would be.
    const sourceStat = statIdentity(vectorsPath);
    const trusted = recorded[2] !== undefined && recorded[2] === sourceStat;
    // COPYFILE_EXCL: created new in the staging directory, never written through a link.
    const copied = join(staging, vectorsFile);
    copyFileSync(vectorsPath, copied, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    if (trusted && statIdentity(vectorsPath) === sourceStat) recordCopiedFile(join(staging, DATABASE_FILE), copied);
    if (checked && unchangedSinceLastWriter(source)) recordLastWriter(staging);
    renameSync(staging, target);
    return { copied: true };
  } catch (error) {
    return { copied: false, why: (error as Error).message };
  } finally {
    if (staging) rmSync(staging, { recursive: true, force: true });
  }
}

/** Records the copied vectors file, with its own stat, as the one the copied database wrote. */
function recordCopiedFile(database: string, file: string): void {
  const record = fileRecord(file);
  if (record === undefined) return;
  const db = openSqlite(database);
  try {
    new IndexMeta(db).vectorsFile = record;
  } finally {
    db.close();
  }
}

/**
 * The most bytes the vectors file of this database can hold: float32 vectors and their
 * ids for its elements and for those removed since the file was written, twice over, and
 * an IVF index's centroids (planIndex makes at most max(64, about 5.7·√n) lists) and
 * header, with room to spare.
 */
function largestVectorsFile(db: Database.Database): number {
  const dimension = new IndexMeta(db).embedder?.dimension ?? 0;
  const vectors = prepared<[], number>(
    db,
    'SELECT (SELECT count(*) FROM elements) + (SELECT count(*) FROM removed_vectors)',
  )
    .pluck()
    .get()!;
  const perVector = 4 * dimension + 16;
  const lists = 64 + 8 * Math.sqrt(vectors);
  return 1024 * 1024 + (2 * vectors + lists) * perVector;
}
