/**
 * Giving the pages of deleted rows back to the file system: after a
 * checkpoint has dropped the vectors' copies from the database
 * (vector-file.ts), most of a first index's file is free pages.
 */
import type Database from 'better-sqlite3';
import { pragmaRows, pragmaValue } from './sqlite.js';

/** Free pages below which a database is not worth rewriting (1 MiB of 4 KiB pages). */
const COMPACT_MIN_FREE_PAGES = 256;

/**
 * Compacts the database when its free pages are over a quarter of it:
 * VACUUM rewrites the whole file, worth it only then, and smaller gaps are
 * reused by later writes. Outside a transaction only. Returns whether it
 * compacted; one that cannot be (another connection writing, no room for
 * the copy VACUUM makes) is left as it is.
 */
export function compactDatabase(db: Database.Database): boolean {
  const free = pragmaValue(db, 'freelist_count') as number;
  const pages = pragmaValue(db, 'page_count') as number;
  if (db.inTransaction || free < COMPACT_MIN_FREE_PAGES || free * 4 < pages) return false;
  try {
    db.exec('VACUUM');
  } catch {
    // Best effort, after the run's data is committed: a VACUUM that fails (another writer, no room for its
    // copy) changes nothing, and the free pages are reused by later writes.
    return false;
  }
  // VACUUM wrote every page through the write-ahead log: give that space back too.
  pragmaRows(db, 'wal_checkpoint(TRUNCATE)');
  return true;
}
