/**
 * The reads "where is X used?" makes (search/references.ts): the files a
 * word occurs in, with their indexed state, and the elements of those
 * files, to name the element around each line.
 */
import type Database from 'better-sqlite3';
import { elementHoldingLine, enclosingElement, type ElementLookups, type EnclosingElement } from '../enclosing.js';
import type { OccurrenceFile } from '../rows.js';
import { prepared } from './sqlite.js';
import type { IndexStore } from './index-store.js';

export type { EnclosingElement } from '../enclosing.js';

const ENCLOSING_COLUMNS = `vector_id AS vectorId, element_type AS type, element_name AS name, start_line AS startLine,
  end_line AS endLine, start_byte AS startByte, end_byte AS endByte`;

export class ReferenceReader {
  readonly #sql;

  constructor(store: IndexStore) {
    const db: Database.Database = store.database;
    this.#sql = {
      files: prepared<[string], OccurrenceFile>(
        db,
        `SELECT o.file_id AS fileId, f.root_id AS rootId, f.path, f.size, f.mtime_ms AS mtimeMs, f.hash, o.lines
         FROM occurrences o JOIN files f ON f.id = o.file_id WHERE o.word = ? ORDER BY f.path`,
      ),
      // The last element to start at or before the line (elements_by_file_line, walked back one step).
      before: prepared<[number, number], EnclosingElement>(
        db,
        `SELECT ${ENCLOSING_COLUMNS} FROM elements WHERE file_id = ? AND start_line <= ? ORDER BY start_line DESC LIMIT 1`,
      ),
      // The first element to start after the line (the one a doc comment above it documents).
      after: prepared<[number, number], EnclosingElement>(
        db,
        `SELECT ${ENCLOSING_COLUMNS} FROM elements WHERE file_id = ? AND start_line > ? ORDER BY start_line LIMIT 1`,
      ),
      // An owner by its qualified name (found through elements_by_short_name), around the line.
      owner: prepared<[string, number, string, number, number], EnclosingElement>(
        db,
        // By name, not by line: the planner would otherwise walk the file's elements up to the line.
        `SELECT ${ENCLOSING_COLUMNS} FROM elements INDEXED BY elements_by_short_name
         WHERE short_name = ? AND file_id = ? AND element_name = ? AND start_line <= ? AND end_line >= ? LIMIT 1`,
      ),
    };
  }

  /** The files `word` (exact case) occurs in, by path. */
  files(word: string): OccurrenceFile[] {
    return this.#sql.files.all(word);
  }

  /**
   * The innermost element around a line of a file, or none at its top level
   * (../enclosing.ts): two or three index lookups, however many elements the
   * file holds.
   */
  around(fileId: number, line: number): EnclosingElement | undefined {
    return enclosingElement(line, this.#lookups(fileId));
  }

  /** The element a line is read with: around it, else the one it documents (../enclosing.ts). */
  holding(fileId: number, line: number): EnclosingElement | undefined {
    return elementHoldingLine(line, this.#lookups(fileId));
  }

  #lookups(fileId: number): ElementLookups {
    return {
      before: (at) => this.#sql.before.get(fileId, at),
      after: (at) => this.#sql.after.get(fileId, at),
      owner: (shortName, name, at) => this.#sql.owner.get(shortName, fileId, name, at, at),
    };
  }
}
