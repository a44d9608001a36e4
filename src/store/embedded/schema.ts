import type Database from 'better-sqlite3';
import { createLexicalTables, dropLexicalTables, lexicalTables } from './lexical-tables.js';
import { defaultRepositoryName } from '../repository-name.js';
import { prepared } from './sqlite.js';

/** A migration: SQL, or work that SQL alone cannot say (a table per row). */
export type Migration = string | ((db: Database.Database) => void);

/**
 * The database schema, as migrations: each entry moves a database from
 * version i to i + 1 inside one transaction. Never edit a shipped entry; add
 * one.
 */
export const MIGRATIONS: readonly Migration[] = [
  /* 1 */ `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

  CREATE TABLE roots (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
  );

  CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    root_id INTEGER NOT NULL REFERENCES roots(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    language TEXT,
    size INTEGER NOT NULL,
    -- -1 when the file changed too close to indexing to trust (see Indexer).
    mtime_ms REAL NOT NULL,
    hash TEXT,
    status TEXT NOT NULL CHECK (status IN ('indexed', 'skipped', 'failed')),
    error TEXT,
    element_count INTEGER NOT NULL DEFAULT 0,
    indexed_at INTEGER NOT NULL,
    UNIQUE (root_id, path)
  );

  -- vector_id is the FAISS id. AUTOINCREMENT: an id is never reused, so a
  -- stale FAISS file can never point at the wrong element.
  CREATE TABLE elements (
    vector_id INTEGER PRIMARY KEY AUTOINCREMENT,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    generation INTEGER NOT NULL,
    element_type TEXT NOT NULL,
    element_name TEXT NOT NULL,
    access TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    signature TEXT NOT NULL,
    description TEXT NOT NULL,
    document_hash TEXT NOT NULL
  );
  CREATE INDEX elements_by_file ON elements(file_id);
  CREATE INDEX elements_by_generation ON elements(generation);

  -- Vectors by (embedder, document): unchanged documents are never re-embedded,
  -- and the FAISS file can be rebuilt from here at any time.
  -- A rowid table: vectors are kilobytes, too large for a WITHOUT ROWID b-tree.
  CREATE TABLE embeddings (
    id INTEGER PRIMARY KEY,
    embedder TEXT NOT NULL,
    document_hash TEXT NOT NULL,
    vector BLOB NOT NULL,
    UNIQUE (embedder, document_hash)
  );

  CREATE TABLE analysis_cache (
    key TEXT PRIMARY KEY,
    answers TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) WITHOUT ROWID;

  -- Vectors removed since the FAISS file was last written: replayed on open.
  CREATE TABLE removed_vectors (
    vector_id INTEGER PRIMARY KEY,
    generation INTEGER NOT NULL
  );

  -- The lexical half of search. Contentless: the text lives in elements/files.
  CREATE VIRTUAL TABLE elements_fts USING fts5(
    name, signature, description, path,
    content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2'
  );
  `,
  /* 2 */ `
  -- The lexical index sees code: every element's own lines, and chunks for
  -- code outside elements, in a table of their own. Apart, so that words
  -- common in code bodies keep their weight (inverse document frequency)
  -- in names and descriptions. Contentless, like elements_fts: code is
  -- indexed, never stored.
  CREATE VIRTUAL TABLE code_fts USING fts5(
    code,
    content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2'
  );

  -- The last segment of an element's name, lower-cased: a symbol query finds its definitions by it.
  ALTER TABLE elements ADD COLUMN short_name TEXT NOT NULL DEFAULT '';
  CREATE INDEX elements_by_short_name ON elements(short_name);

  -- The code that the new lexical index needs is not stored: every file is
  -- read again by the next run, as after a rebuild (the caches are kept).
  DELETE FROM elements;
  DELETE FROM files;
  DELETE FROM removed_vectors;
  UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation';
  INSERT OR REPLACE INTO meta (key, value) SELECT 'rebuilt_at_generation', value FROM meta WHERE key = 'generation';
  `,
  /* 3 */ `
  -- Where an element's lines lie in its file, in bytes ([start_byte, end_byte)):
  -- a search reads only those bytes of an unchanged file for a snippet,
  -- instead of the whole file (a 9 MB bundle took tens of milliseconds a
  -- result). -1 where not known yet (rows written before): the whole file is read.
  ALTER TABLE elements ADD COLUMN start_byte INTEGER NOT NULL DEFAULT -1;
  ALTER TABLE elements ADD COLUMN end_byte INTEGER NOT NULL DEFAULT -1;
  `,
  /* 4 */ `
  -- Where each word occurs, per file: the lines (ascending, 'c' after a line
  -- where the syntax tree calls it), for "where is X used?" (text/occurrences.ts).
  -- Keyed by word first: a lookup reads one run of the b-tree.
  CREATE TABLE occurrences (
    word TEXT NOT NULL,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    lines TEXT NOT NULL,
    PRIMARY KEY (word, file_id)
  ) WITHOUT ROWID;
  CREATE INDEX occurrences_by_file ON occurrences(file_id);

  -- The element around a line is the last one to start at or before it that
  -- ends after it: found by walking this index back from the line.
  CREATE INDEX elements_by_file_line ON elements(file_id, start_line);
  DROP INDEX elements_by_file;

  -- Every file is read again by the next run to record its words (its
  -- elements and vectors are kept: unchanged documents are not embedded again).
  UPDATE files SET hash = NULL;
  `,
  /* 5 */ repositories,
  /* 6 */ `
  -- The secret patterns grew (PGP and other armoured private keys, Vault
  -- tokens, webhook URLs, kubeconfig keys, names ending in "pass"): text an
  -- older ocvector stored and recorded the words of may hold a secret it did
  -- not know. Every file is read again by the next run, and redacted with
  -- today's patterns (elements and vectors of unchanged documents are kept).
  -- mtime_ms -1, as for a racy file: a stat that matches must not pass it
  -- over unread (which left migration 4's files without their words).
  UPDATE files SET hash = NULL, mtime_ms = -1;
  `,
  /* 7 */ exactLexicalStatistics,
];

/**
 * Repositories: every root has a name (unique; its directory's name unless
 * given), the commit and time of its last indexing, and lexical tables of
 * its own (lexical-tables.ts says why). One root keeps its rows: its tables
 * are renamed. Several roots shared one pair of tables, which cannot be
 * split (contentless: the text is not there to copy), so their files are
 * read again by the next run, as after migration 2 (vectors are kept in
 * the embedding cache, and are not computed again).
 */
function repositories(db: Database.Database): void {
  db.exec(`
    ALTER TABLE roots ADD COLUMN name TEXT;
    ALTER TABLE roots ADD COLUMN git_commit TEXT;
    ALTER TABLE roots ADD COLUMN indexed_at INTEGER;`);
  const roots = prepared<[], { id: number; path: string }>(db, 'SELECT id, path FROM roots ORDER BY id').all();
  const taken = new Set<string>();
  for (const root of roots) {
    const base = defaultRepositoryName(root.path);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
    taken.add(name);
    prepared(db, 'UPDATE roots SET name = ? WHERE id = ?').run(name, root.id);
  }
  db.exec('CREATE UNIQUE INDEX roots_by_name ON roots(name)');
  if (roots.length === 1) {
    const own = lexicalTables(roots[0]!.id);
    db.exec(`ALTER TABLE elements_fts RENAME TO ${own.elements}; ALTER TABLE code_fts RENAME TO ${own.code};`);
    return;
  }
  db.exec('DROP TABLE elements_fts; DROP TABLE code_fts;');
  for (const root of roots) {
    dropLexicalTables(db, root.id);
    createLexicalTables(db, root.id, 5);
  }
  if (roots.length > 1)
    db.exec(`
      DELETE FROM elements;
      DELETE FROM files;
      DELETE FROM removed_vectors;
      UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation';
      INSERT OR REPLACE INTO meta (key, value) SELECT 'rebuilt_at_generation', value FROM meta WHERE key = 'generation';`);
}

/**
 * Lexical statistics of the rows there now (lexical-tables.ts): each file's
 * rows' texts kept, compressed in one blob, so that a row's delete takes its
 * tokens out of BM25's totals. The old tables cannot give their rows back (contentless), so they
 * are made again, empty, and every file is read again by the next run, as
 * after migration 6, which gives each element it keeps its lexical row again
 * (elements and vectors are kept). That read also brings every signature and
 * description under the secret rules of the same release (gitleaks' beside
 * ours), which searches do not apply again (search/present.ts).
 */
function exactLexicalStatistics(db: Database.Database): void {
  db.exec(`
    CREATE TABLE lexical_texts (
      file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
      texts BLOB NOT NULL
    );`);
  const roots = prepared<[], number>(db, 'SELECT id FROM roots ORDER BY id').pluck().all();
  for (const rootId of roots) {
    dropLexicalTables(db, rootId);
    createLexicalTables(db, rootId, 7);
  }
  db.exec('UPDATE files SET hash = NULL, mtime_ms = -1');
}

export const SCHEMA_VERSION = MIGRATIONS.length;
