/**
 * Opens the SQLite database of an index: creates its directory (0700, with
 * a .gitignore so it is never committed) and file (0600), sets WAL, and
 * brings the schema up to date. An index may have come with a clone: one
 * that is a link or holds links (index-files.ts), or whose schema is not
 * ocvector's (schema-check.ts), is refused before SQLite runs anything on it.
 */
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import {
  createExclusive,
  entryAt,
  entryExists,
  makePrivateDirectory,
  readSmallFile,
  replaceFile,
  statIdentity,
  touchPrivateFile,
} from './index-files.js';
import { LOCK_FILE } from './lock.js';
import { migrate } from './migrate.js';
import { checkSchema } from './schema-check.js';
import { SCHEMA_VERSION } from './schema.js';
import { openSqlite, pragmaRows, pragmaValue, setPragma } from './sqlite.js';

export const DATABASE_FILE = 'index.db';
/** The database file's identity when its last writer closed it: while it still matches, the file's pages are the ones that writer left. */
export const CHECKED_FILE = `${DATABASE_FILE}.checked`;
const GITIGNORE_FILE = '.gitignore';
/** The files SQLite keeps beside the database: each must be a regular file, not a link, before SQLite opens it. */
const SQLITE_FILES = [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, `${DATABASE_FILE}-journal`];
/** The index's other files of its own, which must not be links either. */
const OTHER_OWN_FILES = [CHECKED_FILE, GITIGNORE_FILE, LOCK_FILE];

export { StoreError, type StoreErrorCode } from '../errors.js';
import { StoreError } from '../errors.js';

export interface OpenDatabaseOptions {
  readonly?: boolean;
}

export function openDatabase(directory: string, options: OpenDatabaseOptions = {}): Database.Database {
  const path = join(directory, DATABASE_FILE);
  // Read before the chmod below, which moves the file's change time; it follows no link.
  const unchanged = !options.readonly && unchangedSinceLastWriter(directory);
  if (options.readonly) {
    checkIndexFiles(directory);
    if (!entryExists(path)) throw new StoreError(`no index at ${directory}: run oc-vector-index first`, 'NOT_FOUND');
  } else {
    prepareDirectory(directory); // checks the index's files as a reader does
    // Created here so that its mode is ours; SQLite gives -wal and -shm the same mode.
    touchPrivateFile(path, directory);
  }
  let db: Database.Database | undefined;
  try {
    db = options.readonly ? openForReading(path) : openSqlite(path);
    setPragma(db, 'busy_timeout = 10000');
    // Before anything writes: a trigger the file carries would fire inside this process.
    const version = pragmaValue(db, 'user_version') as number;
    if (version <= SCHEMA_VERSION) checkSchema(db, directory, version);
    if (!options.readonly) {
      setPragma(db, 'journal_mode = WAL');
      // WAL + NORMAL: a commit survives a process crash; a power loss may lose the last ones, never corrupt.
      setPragma(db, 'synchronous = NORMAL');
    }
    setPragma(db, 'foreign_keys = ON');
    setPragma(db, 'temp_store = MEMORY');
    // A writer checks the structure of every page first (its cost grows with the file:
    // docs/performance.md, Indexing), unless the file is as the last writer left it: a damaged
    // page would otherwise go unnoticed until a search happens to read it.
    if (!options.readonly && !unchanged) checkStructure(db);
    migrate(db, options.readonly ?? false);
  } catch (error) {
    db?.close();
    if (error instanceof StoreError) throw error;
    const e = error as { code?: string; message: string };
    if (isCorruption(error)) throw damaged(directory, e.message);
    throw new StoreError(`cannot open the index database ${path}: ${e.message}`, 'IO');
  }
  return db;
}

/**
 * Records the database file's identity after a writer closed it: inode,
 * size, modification and change times (a change time cannot be set back,
 * so a file damaged or replaced since never matches).
 */
export function recordLastWriter(directory: string): void {
  try {
    if (entryExists(join(directory, `${DATABASE_FILE}-wal`))) return; // another connection still has it open
    // Renamed over the old record: a link in its place is replaced, never written through.
    const identity = statIdentity(join(directory, DATABASE_FILE));
    if (identity !== undefined) replaceFile(join(directory, CHECKED_FILE), identity);
  } catch {
    // unrecorded: the next writer checks the file
  }
}

/** Whether the database file is exactly as its last writer recorded it (no writer crashed or runs, nothing else touched it). */
export function unchangedSinceLastWriter(directory: string): boolean {
  try {
    if (entryExists(join(directory, `${DATABASE_FILE}-wal`))) return false; // a writer did not close: a crash, or one running
    const identity = statIdentity(join(directory, DATABASE_FILE));
    return identity !== undefined && readSmallFile(join(directory, CHECKED_FILE)) === identity;
  } catch {
    return false;
  }
}

/**
 * Refuses an index whose directory, or any file of its own, is a link (index-files.ts says
 * why), and SQLite's files when they are anything but regular files (a FIFO would block the
 * first read forever), before SQLite opens them.
 */
export function checkIndexFiles(directory: string): void {
  entryAt(directory, directory);
  for (const name of SQLITE_FILES) {
    const path = join(directory, name);
    const info = entryAt(path, directory);
    if (info && !info.isFile()) {
      const kind = info.isFIFO() ? 'a FIFO' : info.isDirectory() ? 'a directory' : 'a special file';
      throw new StoreError(
        `the index file ${path} is ${kind}, not a regular file; remove it and index again`,
        'CORRUPT',
      );
    }
  }
  for (const name of OTHER_OWN_FILES) entryAt(join(directory, name), directory);
}

/** SQLite's answer for a file that is not a database, or one with damaged pages. */
export function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'));
}

/** The error for a damaged index database, saying what to do. */
export function damaged(directory: string, detail: string): StoreError {
  return new StoreError(
    `the index database ${join(directory, DATABASE_FILE)} is damaged (${detail}); delete ${directory} and index again`,
    'CORRUPT',
  );
}

function checkStructure(db: Database.Database): void {
  const problems = pragmaRows<{ quick_check: string }>(db, 'quick_check(5)');
  if (problems.length === 1 && problems[0]!.quick_check === 'ok') return;
  throw Object.assign(new Error(problems.map((row) => row.quick_check.replace(/\s+/g, ' ')).join('; ')), {
    code: 'SQLITE_CORRUPT',
  });
}

/**
 * A reader's connection. SQLite's read-only mode cannot rebuild the WAL
 * index (-shm) that the last writer deletes when it closes, so a reader
 * opening at that moment would fail; a read-write connection with
 * `query_only` can, and still never writes. Truly read-only files fall back
 * to read-only mode.
 */
export function openForReading(path: string): Database.Database {
  let db: Database.Database;
  try {
    db = openSqlite(path, { fileMustExist: true });
  } catch (error) {
    if (
      (error as { code?: string }).code !== 'SQLITE_CANTOPEN' &&
      (error as { code?: string }).code !== 'SQLITE_READONLY'
    )
      throw error;
    return openSqlite(path, { readonly: true, fileMustExist: true });
  }
  setPragma(db, 'query_only = ON');
  return db;
}

/**
 * Creates the index directory, or makes an existing one private (0700), with a .gitignore
 * that keeps it out of commits; refuses one that is a link or holds links of its own names.
 */
export function prepareDirectory(directory: string): void {
  makePrivateDirectory(directory);
  checkIndexFiles(directory);
  createExclusive(join(directory, GITIGNORE_FILE), '# ocvector index: local, never committed\n*\n');
}
