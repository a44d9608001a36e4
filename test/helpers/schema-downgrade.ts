/**
 * Takes an index back to an older schema, as an older ocvector wrote it,
 * for the tests of the migrations that follow.
 */
import type Database from 'better-sqlite3';
import { createLexicalTables, dropLexicalTables, lexicalTables } from '../../src/store/embedded/lexical-tables.js';
import { prepared, setPragma } from '../../src/store/embedded/sqlite.js';

/**
 * Schema 5 -> 4: repositories lose their names, and the lexical tables are
 * one pair again. With one root its tables are renamed back; with several,
 * the first root's become the shared pair (holding only its rows) and the
 * others' are dropped.
 */
export function undoRepositories(db: Database.Database): void {
  const roots = prepared<[], number>(db, 'SELECT id FROM roots ORDER BY id').pluck().all();
  db.exec(`
    DROP INDEX roots_by_name;
    ALTER TABLE roots DROP COLUMN name;
    ALTER TABLE roots DROP COLUMN git_commit;
    ALTER TABLE roots DROP COLUMN indexed_at;`);
  roots.forEach((id, i) => {
    const own = lexicalTables(id);
    if (i === 0)
      db.exec(`ALTER TABLE ${own.elements} RENAME TO elements_fts; ALTER TABLE ${own.code} RENAME TO code_fts;`);
    else db.exec(`DROP TABLE ${own.elements}; DROP TABLE ${own.code};`);
  });
  setPragma(db, 'user_version = 4');
}

/**
 * Schema 7 -> 6: no texts kept for the lexical rows, and each repository's lexical tables
 * contentless_delete ones again (empty: an older ocvector's rows cannot be made from here, and
 * migration 7 empties them anyway).
 */
export function undoExactLexicalStatistics(db: Database.Database): void {
  const roots = prepared<[], number>(db, 'SELECT id FROM roots ORDER BY id').pluck().all();
  db.exec('DROP TABLE lexical_texts');
  for (const id of roots) {
    dropLexicalTables(db, id);
    createLexicalTables(db, id, 6);
  }
  setPragma(db, 'user_version = 6');
}
