/**
 * The occurrences table (schema 4): each word of each file and its lines,
 * written with the file's elements (read by reference-reader.ts). A file's rows
 * go with it (ON DELETE CASCADE).
 */
import type Database from 'better-sqlite3';
import { prepared } from './sqlite.js';

export class OccurrenceRows {
  readonly #s;

  constructor(db: Database.Database) {
    this.#s = {
      clear: prepared(db, 'DELETE FROM occurrences WHERE file_id = ?'),
      insert: prepared(db, 'INSERT INTO occurrences (word, file_id, lines) VALUES (?, ?, ?)'),
    };
  }

  /** Replaces a file's words with these (word -> encoded lines). */
  replace(fileId: number, occurrences: ReadonlyMap<string, string>): void {
    this.#s.clear.run(fileId);
    for (const [word, lines] of occurrences) this.#s.insert.run(word, fileId, lines);
  }
}
