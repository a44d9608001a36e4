/**
 * The objects an index of this ocvector's schema (SCHEMA_VERSION) holds, as `sqlite_schema`
 * lists them after MIGRATIONS (schema.ts) and one repository's lexical tables (root id 1):
 * what schema-check.ts compares an index with, written out so that opening an index builds
 * no schema in memory first. test/security/sqlite-schema.test.ts builds it from the
 * migrations and finds it equal: a migration that changes the schema changes this list.
 */
export const CURRENT_SCHEMA_ROWS: readonly {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}[] = [
  {
    type: 'table',
    name: 'meta',
    tbl_name: 'meta',
    sql: 'CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID',
  },
  {
    type: 'table',
    name: 'roots',
    tbl_name: 'roots',
    sql: 'CREATE TABLE roots (\n    id INTEGER PRIMARY KEY,\n    path TEXT NOT NULL UNIQUE,\n    created_at INTEGER NOT NULL\n  , name TEXT, git_commit TEXT, indexed_at INTEGER)',
  },
  { type: 'index', name: 'sqlite_autoindex_roots_1', tbl_name: 'roots', sql: null },
  {
    type: 'table',
    name: 'files',
    tbl_name: 'files',
    sql: "CREATE TABLE files (\n    id INTEGER PRIMARY KEY,\n    root_id INTEGER NOT NULL REFERENCES roots(id) ON DELETE CASCADE,\n    path TEXT NOT NULL,\n    language TEXT,\n    size INTEGER NOT NULL,\n    -- -1 when the file changed too close to indexing to trust (see Indexer).\n    mtime_ms REAL NOT NULL,\n    hash TEXT,\n    status TEXT NOT NULL CHECK (status IN ('indexed', 'skipped', 'failed')),\n    error TEXT,\n    element_count INTEGER NOT NULL DEFAULT 0,\n    indexed_at INTEGER NOT NULL,\n    UNIQUE (root_id, path)\n  )",
  },
  { type: 'index', name: 'sqlite_autoindex_files_1', tbl_name: 'files', sql: null },
  {
    type: 'table',
    name: 'elements',
    tbl_name: 'elements',
    sql: "CREATE TABLE elements (\n    vector_id INTEGER PRIMARY KEY AUTOINCREMENT,\n    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,\n    generation INTEGER NOT NULL,\n    element_type TEXT NOT NULL,\n    element_name TEXT NOT NULL,\n    access TEXT NOT NULL,\n    start_line INTEGER NOT NULL,\n    end_line INTEGER NOT NULL,\n    signature TEXT NOT NULL,\n    description TEXT NOT NULL,\n    document_hash TEXT NOT NULL\n  , short_name TEXT NOT NULL DEFAULT '', start_byte INTEGER NOT NULL DEFAULT -1, end_byte INTEGER NOT NULL DEFAULT -1)",
  },
  {
    type: 'table',
    name: 'sqlite_sequence',
    tbl_name: 'sqlite_sequence',
    sql: 'CREATE TABLE sqlite_sequence(name,seq)',
  },
  {
    type: 'index',
    name: 'elements_by_generation',
    tbl_name: 'elements',
    sql: 'CREATE INDEX elements_by_generation ON elements(generation)',
  },
  {
    type: 'table',
    name: 'embeddings',
    tbl_name: 'embeddings',
    sql: 'CREATE TABLE embeddings (\n    id INTEGER PRIMARY KEY,\n    embedder TEXT NOT NULL,\n    document_hash TEXT NOT NULL,\n    vector BLOB NOT NULL,\n    UNIQUE (embedder, document_hash)\n  )',
  },
  { type: 'index', name: 'sqlite_autoindex_embeddings_1', tbl_name: 'embeddings', sql: null },
  {
    type: 'table',
    name: 'analysis_cache',
    tbl_name: 'analysis_cache',
    sql: 'CREATE TABLE analysis_cache (\n    key TEXT PRIMARY KEY,\n    answers TEXT NOT NULL,\n    created_at INTEGER NOT NULL\n  ) WITHOUT ROWID',
  },
  {
    type: 'table',
    name: 'removed_vectors',
    tbl_name: 'removed_vectors',
    sql: 'CREATE TABLE removed_vectors (\n    vector_id INTEGER PRIMARY KEY,\n    generation INTEGER NOT NULL\n  )',
  },
  {
    type: 'index',
    name: 'elements_by_short_name',
    tbl_name: 'elements',
    sql: 'CREATE INDEX elements_by_short_name ON elements(short_name)',
  },
  {
    type: 'table',
    name: 'occurrences',
    tbl_name: 'occurrences',
    sql: 'CREATE TABLE occurrences (\n    word TEXT NOT NULL,\n    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,\n    lines TEXT NOT NULL,\n    PRIMARY KEY (word, file_id)\n  ) WITHOUT ROWID',
  },
  {
    type: 'index',
    name: 'occurrences_by_file',
    tbl_name: 'occurrences',
    sql: 'CREATE INDEX occurrences_by_file ON occurrences(file_id)',
  },
  {
    type: 'index',
    name: 'elements_by_file_line',
    tbl_name: 'elements',
    sql: 'CREATE INDEX elements_by_file_line ON elements(file_id, start_line)',
  },
  { type: 'index', name: 'roots_by_name', tbl_name: 'roots', sql: 'CREATE UNIQUE INDEX roots_by_name ON roots(name)' },
  {
    type: 'table',
    name: 'lexical_texts',
    tbl_name: 'lexical_texts',
    sql: 'CREATE TABLE lexical_texts (\n      file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,\n      texts BLOB NOT NULL\n    )',
  },
  {
    type: 'table',
    name: 'schema_version',
    tbl_name: 'schema_version',
    sql: 'CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at INTEGER NOT NULL)',
  },
  {
    type: 'table',
    name: 'elements_fts_1',
    tbl_name: 'elements_fts_1',
    sql: "CREATE VIRTUAL TABLE elements_fts_1 USING fts5(\n      name, signature, description, path,\n      content = '', tokenize = 'porter unicode61 remove_diacritics 2'\n    )",
  },
  {
    type: 'table',
    name: 'elements_fts_1_data',
    tbl_name: 'elements_fts_1_data',
    sql: "CREATE TABLE 'elements_fts_1_data'(id INTEGER PRIMARY KEY, block BLOB)",
  },
  {
    type: 'table',
    name: 'elements_fts_1_idx',
    tbl_name: 'elements_fts_1_idx',
    sql: "CREATE TABLE 'elements_fts_1_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID",
  },
  {
    type: 'table',
    name: 'elements_fts_1_docsize',
    tbl_name: 'elements_fts_1_docsize',
    sql: "CREATE TABLE 'elements_fts_1_docsize'(id INTEGER PRIMARY KEY, sz BLOB)",
  },
  {
    type: 'table',
    name: 'elements_fts_1_config',
    tbl_name: 'elements_fts_1_config',
    sql: "CREATE TABLE 'elements_fts_1_config'(k PRIMARY KEY, v) WITHOUT ROWID",
  },
  {
    type: 'table',
    name: 'code_fts_1',
    tbl_name: 'code_fts_1',
    sql: "CREATE VIRTUAL TABLE code_fts_1 USING fts5(\n      code,\n      content = '', tokenize = 'porter unicode61 remove_diacritics 2'\n    )",
  },
  {
    type: 'table',
    name: 'code_fts_1_data',
    tbl_name: 'code_fts_1_data',
    sql: "CREATE TABLE 'code_fts_1_data'(id INTEGER PRIMARY KEY, block BLOB)",
  },
  {
    type: 'table',
    name: 'code_fts_1_idx',
    tbl_name: 'code_fts_1_idx',
    sql: "CREATE TABLE 'code_fts_1_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID",
  },
  {
    type: 'table',
    name: 'code_fts_1_docsize',
    tbl_name: 'code_fts_1_docsize',
    sql: "CREATE TABLE 'code_fts_1_docsize'(id INTEGER PRIMARY KEY, sz BLOB)",
  },
  {
    type: 'table',
    name: 'code_fts_1_config',
    tbl_name: 'code_fts_1_config',
    sql: "CREATE TABLE 'code_fts_1_config'(k PRIMARY KEY, v) WITHOUT ROWID",
  },
];
