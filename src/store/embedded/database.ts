/**
 * Opens the SQLite database of an index: creates its directory (0700, with
 * a .gitignore so it is never committed) and file (0600), sets WAL, and
 * brings the schema up to date.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';
import { openSqlite, pragmaRows, pragmaValue, prepared, setPragma } from './sqlite.js';

export const DATABASE_FILE = 'index.db';
/** The database file's identity when its last writer closed it: while it still matches, the file's pages are the ones that writer left. */
export const CHECKED_FILE = `${DATABASE_FILE}.checked`;

export { StoreError, type StoreErrorCode } from '../errors.js';
import { StoreError } from '../errors.js';

export interface OpenDatabaseOptions {
  readonly?: boolean;
}

export function openDatabase(directory: string, options: OpenDatabaseOptions = {}): Database.Database {
  const path = join(directory, DATABASE_FILE);
  refuseSpecialFile(path);
  // Read before the chmod below, which moves the file's change time.
  const unchanged = !options.readonly && unchangedSinceLastWriter(directory);
  if (options.readonly) {
    if (!existsSync(path)) throw new StoreError(`no index at ${directory}: run oc-vector-index first`, 'NOT_FOUND');
  } else {
    prepareDirectory(directory);
    // Created here so that its mode is ours; SQLite gives -wal and -shm the same mode.
    closeSync(openSync(path, 'a', 0o600));
    chmodSync(path, 0o600);
  }
  let db: Database.Database;
  try {
    db = options.readonly ? openForReading(path) : openSqlite(path);
    setPragma(db, 'busy_timeout = 10000');
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
    if (existsSync(join(directory, `${DATABASE_FILE}-wal`))) return; // another connection still has it open
    writeFileSync(join(directory, CHECKED_FILE), fileIdentity(join(directory, DATABASE_FILE)), { mode: 0o600 });
  } catch {
    // unrecorded: the next writer checks the file
  }
}

/** Whether the database file is exactly as its last writer recorded it (no writer crashed or runs, nothing else touched it). */
export function unchangedSinceLastWriter(directory: string): boolean {
  try {
    if (existsSync(join(directory, `${DATABASE_FILE}-wal`))) return false; // a writer did not close: a crash, or one running
    return readFileSync(join(directory, CHECKED_FILE), 'utf8') === fileIdentity(join(directory, DATABASE_FILE));
  } catch {
    return false;
  }
}

function fileIdentity(path: string): string {
  const info = statSync(path, { bigint: true });
  return `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

/** Anything but a regular file (a FIFO would block the first read forever) is refused before SQLite opens it. */
function refuseSpecialFile(path: string): void {
  let kind: string | undefined;
  try {
    const info = statSync(path);
    if (!info.isFile()) kind = info.isFIFO() ? 'a FIFO' : info.isDirectory() ? 'a directory' : 'a special file';
  } catch {
    return; // absent: created (writer) or reported (reader) below
  }
  if (kind)
    throw new StoreError(
      `the index database ${path} is ${kind}, not a regular file; remove it and index again`,
      'CORRUPT',
    );
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

/** Creates the index directory, or makes an existing one private (0700), with a .gitignore that keeps it out of commits. */
export function prepareDirectory(directory: string): void {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  // An existing directory (--db) is made private too: mkdir's mode applies only to one it creates.
  if ((statSync(directory).mode & 0o077) !== 0) chmodSync(directory, 0o700);
  const gitignore = join(directory, '.gitignore');
  if (!existsSync(gitignore))
    writeFileSync(gitignore, '# ocvector index: local, never committed\n*\n', { mode: 0o600 });
}

function migrate(db: Database.Database, readonly: boolean): void {
  const current = pragmaValue(db, 'user_version') as number;
  if (current > SCHEMA_VERSION) {
    throw new StoreError(
      `the index was written by a newer ocvector (schema ${current}, this one knows ${SCHEMA_VERSION}); upgrade ocvector or rebuild the index`,
      'NEWER_SCHEMA',
    );
  }
  if (current === SCHEMA_VERSION) return;
  if (readonly)
    throw new StoreError(
      `the index has schema ${current} and needs migrating to ${SCHEMA_VERSION}: run oc-vector-index once`,
      'OLDER_SCHEMA',
    );
  db.transaction(() => {
    for (let version = current; version < SCHEMA_VERSION; version++) {
      const migration = MIGRATIONS[version]!;
      if (typeof migration === 'string') db.exec(migration);
      else migration(db);
    }
    setPragma(db, `user_version = ${SCHEMA_VERSION}`);
    db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, applied_at INTEGER NOT NULL)');
    prepared(db, 'INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(SCHEMA_VERSION, Date.now());
  }).immediate();
}
