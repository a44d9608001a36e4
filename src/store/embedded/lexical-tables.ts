/**
 * The lexical index, one pair of FTS5 tables per repository (root):
 * `elements_fts_<id>` (names, signatures, descriptions, paths) and
 * `code_fts_<id>` (code). Apart, so that BM25's statistics (how many
 * elements, how long they are, how many hold a term) are the repository's
 * own: a search scoped to one repository of a shared index ranks exactly as
 * that repository indexed alone, and dropping a repository drops its
 * tables. A search over several repositories reads each one's tables.
 *
 * The table names hold only a root id (an integer the store made), never
 * a name given by a user. Their statements are kept like every other
 * (sqlite.ts): a finite set per repository.
 *
 * BM25's statistics stay those of the rows there now: a row leaves with
 * FTS5's 'delete' command, given the texts it was added with (kept,
 * compressed, one blob per file, in `lexical_texts`), which takes its
 * tokens out of the totals. A `contentless_delete` table (schema 6 and before) cannot: it
 * keeps a deleted row in its row count and its tokens in the average
 * length, so an index updated through a history ranked unlike a fresh
 * build of the same tree.
 */
import type Database from 'better-sqlite3';
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import { StoreError } from '../errors.js';
// How FTS5 splits and stems, the same for every table; text/fts-tokens.ts reproduces it for a second store.
import { FTS_TOKENIZE } from '../../text/fts-tokens.js';
import { prepared } from './sqlite.js';

export interface LexicalTableNames {
  elements: string;
  code: string;
}

export function lexicalTables(rootId: number): LexicalTableNames {
  if (!Number.isSafeInteger(rootId) || rootId < 0) throw new RangeError(`not a root id: ${rootId}`);
  return { elements: `elements_fts_${rootId}`, code: `code_fts_${rootId}` };
}

/** The schema version from which a repository's tables take deletes by FTS5's 'delete' command (schema.ts, migration 7). */
export const EXACT_STATISTICS_SCHEMA = 7;

/**
 * Creates a root's tables (contentless: the text lives in `lexical_texts`,
 * compressed, for deletes only), as the schema `version` made them (the
 * current one by default; schema-check.ts asks for older ones).
 */
export function createLexicalTables(db: Database.Database, rootId: number, version?: number): void {
  const { elements, code } = lexicalTables(rootId);
  const deletes = version !== undefined && version < EXACT_STATISTICS_SCHEMA ? ', contentless_delete = 1' : '';
  db.exec(`
    CREATE VIRTUAL TABLE IF NOT EXISTS ${elements} USING fts5(
      name, signature, description, path,
      content = ''${deletes}, tokenize = '${FTS_TOKENIZE}'
    );
    CREATE VIRTUAL TABLE IF NOT EXISTS ${code} USING fts5(
      code,
      content = ''${deletes}, tokenize = '${FTS_TOKENIZE}'
    );`);
}

export function dropLexicalTables(db: Database.Database, rootId: number): void {
  const { elements, code } = lexicalTables(rootId);
  db.exec(`DROP TABLE IF EXISTS ${elements}; DROP TABLE IF EXISTS ${code};`);
}

/** The words of one element, as the lexical index takes them (text/terms.ts lexicalText of each). */
export interface LexicalRow {
  name: string;
  signature: string;
  description: string;
  path: string;
  /** The element's own code, when it has any. */
  code?: string | undefined;
}

/** A file's stored texts, inflated, at most this long: a file the indexer reads is far shorter; a longer blob is not ours. */
const MAX_TEXTS_BYTES = 256 * 1024 * 1024;

/** A file's lexical rows by vector id: the texts each was added to FTS5 with. */
type FileRows = Map<number, LexicalRow>;

/** How a file's elements changed (index-store.ts writeFile), for its lexical rows. */
export interface LexicalChange {
  /** New elements and their rows. */
  added: readonly { id: number; row: LexicalRow }[];
  removed: readonly number[];
  /** Kept elements, each with its row made anew: asked for only where the file has no stored rows (migration 7 emptied its tables). */
  kept: readonly { id: number; row: () => LexicalRow }[];
}

/**
 * Writes and deletes elements' rows in their root's tables, and keeps each
 * file's rows' texts for their deletes: one blob per file (`lexical_texts`),
 * compressed once per write of the file, read once per update that removes
 * some of them.
 */
export class LexicalRows {
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
  }

  /** Brings a file's rows from what it had to what it has now, and stores their texts. */
  writeFile(rootId: number, fileId: number, change: LexicalChange): void {
    const { added, removed, kept } = change;
    const rows: FileRows = new Map();
    if (removed.length + kept.length > 0) {
      // Only lines moved: the rows and their texts stay as they are.
      if (added.length === 0 && removed.length === 0 && this.#hasTexts(fileId)) return;
      const stored = this.#stored(fileId);
      if (stored === undefined)
        // No texts stored: no rows either (migration 7 emptied the tables); the kept elements get theirs again.
        for (const { id, row } of kept) rows.set(id, this.#insert(rootId, id, row()));
      else {
        for (const id of removed) this.#delete(rootId, id, rowOf(stored, id, fileId));
        for (const { id } of kept) rows.set(id, rowOf(stored, id, fileId));
      }
    }
    for (const { id, row } of added) rows.set(id, this.#insert(rootId, id, row));
    this.#store(fileId, rows);
  }

  /** Takes the rows of a file's elements out of their root's tables, and their tokens out of its statistics; the file's texts go, or keep the rest. */
  removeRows(rootId: number, fileId: number, vectorIds: readonly number[]): void {
    const stored = this.#stored(fileId);
    // No texts stored: no rows either (migration 7 emptied the tables).
    if (stored === undefined) return;
    for (const id of vectorIds) {
      this.#delete(rootId, id, rowOf(stored, id, fileId));
      stored.delete(id);
    }
    this.#store(fileId, stored);
  }

  /** Takes elements of any files out (`removeRows`), reading and writing each file's texts once. */
  forget(elements: readonly { id: number; fileId: number; rootId: number }[]): void {
    const byFile = new Map<number, { rootId: number; ids: number[] }>();
    for (const { id, fileId, rootId } of elements) {
      const file = byFile.get(fileId) ?? { rootId, ids: [] };
      file.ids.push(id);
      byFile.set(fileId, file);
    }
    for (const [fileId, { rootId, ids }] of byFile) this.removeRows(rootId, fileId, ids);
  }

  #insert(rootId: number, vectorId: number, row: LexicalRow): LexicalRow {
    const { elements, code } = lexicalTables(rootId);
    prepared(
      this.#db,
      `INSERT INTO ${elements} (rowid, name, signature, description, path) VALUES (?, ?, ?, ?, ?)`,
    ).run(vectorId, row.name, row.signature, row.description, row.path);
    if (row.code) prepared(this.#db, `INSERT INTO ${code} (rowid, code) VALUES (?, ?)`).run(vectorId, row.code);
    return row;
  }

  /** FTS5's 'delete' command: given the texts the row was added with, it takes their tokens out of the totals. */
  #delete(rootId: number, vectorId: number, row: LexicalRow): void {
    const { elements, code } = lexicalTables(rootId);
    prepared(
      this.#db,
      `INSERT INTO ${elements} (${elements}, rowid, name, signature, description, path) VALUES ('delete', ?, ?, ?, ?, ?)`,
    ).run(vectorId, row.name, row.signature, row.description, row.path);
    if (row.code)
      prepared(this.#db, `INSERT INTO ${code} (${code}, rowid, code) VALUES ('delete', ?, ?)`).run(vectorId, row.code);
  }

  #hasTexts(fileId: number): boolean {
    return (
      prepared<[number], number>(this.#db, 'SELECT 1 FROM lexical_texts WHERE file_id = ?').pluck().get(fileId) !==
      undefined
    );
  }

  #stored(fileId: number): FileRows | undefined {
    const packed = prepared<[number], unknown>(this.#db, 'SELECT texts FROM lexical_texts WHERE file_id = ?')
      .pluck()
      .get(fileId);
    return packed === undefined ? undefined : unpackTexts(packed, fileId);
  }

  #store(fileId: number, rows: FileRows): void {
    if (rows.size === 0) prepared(this.#db, 'DELETE FROM lexical_texts WHERE file_id = ?').run(fileId);
    else
      prepared(this.#db, 'INSERT OR REPLACE INTO lexical_texts (file_id, texts) VALUES (?, ?)').run(
        fileId,
        packTexts(rows),
      );
  }
}

/** A file's rows' texts, as one compressed blob: the code is most of it, and compresses several times over. */
function packTexts(rows: FileRows): Buffer {
  const list: (number | string)[][] = [];
  for (const [id, row] of rows) list.push([id, row.name, row.signature, row.description, row.path, row.code ?? '']);
  return deflateRawSync(JSON.stringify(list), {
    // Written for every file of every run, read back only for a delete: speed over size.
    level: constants.Z_BEST_SPEED,
  });
}

/** The texts of a file's stored rows; anything else is a corrupt index (it came from the index file, as data). */
function unpackTexts(packed: unknown, fileId: number): FileRows {
  try {
    if (!Buffer.isBuffer(packed)) throw new TypeError('not a blob');
    const list: unknown = JSON.parse(inflateRawSync(packed, { maxOutputLength: MAX_TEXTS_BYTES }).toString('utf8'));
    if (!Array.isArray(list)) throw new TypeError('not a list of rows');
    const rows: FileRows = new Map();
    for (const entry of list as unknown[]) {
      if (!Array.isArray(entry) || entry.length !== 6) throw new TypeError('a row is not six fields');
      const [id, name, signature, description, path, code] = entry as unknown[];
      if (!Number.isSafeInteger(id) || rows.has(id as number)) throw new TypeError('a row has no id of its own');
      if (![name, signature, description, path, code].every((text) => typeof text === 'string'))
        throw new TypeError('a row has a text that is not a string');
      rows.set(id as number, { name, signature, description, path, code } as LexicalRow);
    }
    return rows;
  } catch (cause) {
    throw corruptTexts(fileId, (cause as Error).message, cause);
  }
}

/** A stored row the file's element needs (its delete, or its keeping); a missing one is a damaged index. */
function rowOf(rows: FileRows, vectorId: number, fileId: number): LexicalRow {
  const row = rows.get(vectorId);
  if (row === undefined) throw corruptTexts(fileId, `no row for element ${vectorId}`);
  return row;
}

function corruptTexts(fileId: number, why: string, cause?: unknown): StoreError {
  return new StoreError(
    `the lexical texts of file ${fileId} cannot be read (${why}): the index is damaged; rebuild it (oc-vector-index --rebuild)`,
    'CORRUPT',
    { cause },
  );
}
