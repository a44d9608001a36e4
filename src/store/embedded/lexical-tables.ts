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
 */
import type Database from 'better-sqlite3';
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

/** Creates a root's tables (contentless: the text lives in elements and files, or on disk). */
export function createLexicalTables(db: Database.Database, rootId: number): void {
  const { elements, code } = lexicalTables(rootId);
  db.exec(`
    CREATE VIRTUAL TABLE IF NOT EXISTS ${elements} USING fts5(
      name, signature, description, path,
      content = '', contentless_delete = 1, tokenize = '${FTS_TOKENIZE}'
    );
    CREATE VIRTUAL TABLE IF NOT EXISTS ${code} USING fts5(
      code,
      content = '', contentless_delete = 1, tokenize = '${FTS_TOKENIZE}'
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

/** Writes and deletes elements' rows in their root's tables. */
export class LexicalRows {
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
  }

  add(rootId: number, vectorId: number, row: LexicalRow): void {
    const { elements, code } = lexicalTables(rootId);
    prepared(
      this.#db,
      `INSERT INTO ${elements} (rowid, name, signature, description, path) VALUES (?, ?, ?, ?, ?)`,
    ).run(vectorId, row.name, row.signature, row.description, row.path);
    if (row.code) prepared(this.#db, `INSERT INTO ${code} (rowid, code) VALUES (?, ?)`).run(vectorId, row.code);
  }

  remove(rootId: number, vectorId: number): void {
    const { elements, code } = lexicalTables(rootId);
    prepared(this.#db, `DELETE FROM ${elements} WHERE rowid = ?`).run(vectorId);
    prepared(this.#db, `DELETE FROM ${code} WHERE rowid = ?`).run(vectorId);
  }
}
