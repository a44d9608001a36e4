/**
 * An index database's schema is checked against the one this ocvector makes before
 * anything else runs on it. A database can arrive with a clone, and SQLite runs what its
 * schema holds: a trigger fires inside the indexer's own writes (one committed in an index
 * rewrote the victim's root to /etc), a view answers in place of a table. So every object
 * in `sqlite_schema` must be one that MIGRATIONS (schema.ts) make, statement for
 * statement, and every table and index they make must be there; anything else is refused
 * (StoreError UNTRUSTED), never run.
 *
 * The statements are compared as SQL tokens, not text: an index migrated from an older
 * schema holds the same statements as one made new, but a table renamed by a migration (the
 * lexical tables of migration 5) is stored with its name quoted and its statement's spacing,
 * and the lexical tables of each repository differ only by its root id. The schema of this
 * ocvector's version is written out (schema-reference.ts, checked against the migrations
 * by a test); an older version's, met once before migrating, is built in a database in
 * memory by the same migrations.
 */
import type Database from 'better-sqlite3';
import { join } from 'node:path';
import { StoreError } from '../errors.js';
import { createLexicalTables } from './lexical-tables.js';
import { applyMigrations } from './migrate.js';
import { CURRENT_SCHEMA_ROWS } from './schema-reference.js';
import { SCHEMA_VERSION } from './schema.js';
import { openSqlite, prepared } from './sqlite.js';

type SchemaRow = (typeof CURRENT_SCHEMA_ROWS)[number];

interface ExpectedSchema {
  /** Every object this version makes, by shape. */
  allowed: Set<string>;
  /** The objects every index of this version holds (not a repository's lexical tables), by shape. */
  required: Map<string, SchemaRow>;
  /** The kinds and names of the objects it makes: a refusal says whether it found one of ours, changed. */
  names: Set<string>;
}

const expectedByVersion = new Map<number, ExpectedSchema>();

/** Refuses a database at schema `version` whose objects are not exactly those this ocvector makes at that version. */
export function checkSchema(db: Database.Database, directory: string, version: number): void {
  const expected = expectedSchema(version);
  const present = new Set<string>();
  for (const row of schemaRows(db)) {
    const shape = shapeOf(row);
    if (!expected.allowed.has(shape.shape)) {
      const ours = expected.names.has(`${row.type} ${canonicalName(row.name)}`);
      throw refused(
        directory,
        `${article(row)} ${named(row)} ${ours ? 'unlike the one ocvector makes' : 'that ocvector never makes'}`,
      );
    }
    shapeByText.set(shape.text, shape.shape);
    present.add(shape.shape);
  }
  for (const [shape, row] of expected.required)
    if (!present.has(shape)) throw refused(directory, `no ${named(row)}, which ocvector always makes`);
}

function refused(directory: string, what: string): StoreError {
  return new StoreError(
    `the index database ${join(directory, 'index.db')} holds ${what} (an index is data: ocvector never runs the SQL one carries); delete ${directory} and index again`,
    'UNTRUSTED',
  );
}

function article(row: SchemaRow): string {
  return row.type === 'index' ? 'an' : 'a';
}

/** The object's kind and name, quoted (JSON escapes control characters) and cut short: the name is the index's text. */
function named(row: SchemaRow): string {
  const name = row.name.length > 64 ? `${row.name.slice(0, 64)}…` : row.name;
  return `${row.type} ${JSON.stringify(name)}`;
}

function schemaRows(db: Database.Database): SchemaRow[] {
  return prepared<[], SchemaRow>(db, 'SELECT type, name, tbl_name, sql FROM sqlite_schema').all();
}

/** The objects the migrations make at `version`, with one repository's lexical tables where it keeps them apart. */
export function madeSchemaRows(version: number): SchemaRow[] {
  const db = openSqlite(':memory:');
  try {
    if (version > 0) {
      db.transaction(() => applyMigrations(db, 0, version)).immediate();
      // From the schema that gives each repository its own lexical tables (no shared pair is left), one repository's.
      if (!schemaRows(db).some((row) => row.name === 'elements_fts')) createLexicalTables(db, 1, version);
    }
    return schemaRows(db);
  } finally {
    db.close();
  }
}

function expectedSchema(version: number): ExpectedSchema {
  let expected = expectedByVersion.get(version);
  if (expected) return expected;
  const rows = version === SCHEMA_VERSION ? CURRENT_SCHEMA_ROWS : madeSchemaRows(version);
  expected = { allowed: new Set(), required: new Map(), names: new Set() };
  for (const row of rows) {
    const { shape, text } = shapeOf(row);
    // An index made new holds these texts as they are: its objects need not be taken apart again.
    shapeByText.set(text, shape);
    expected.allowed.add(shape);
    expected.names.add(`${row.type} ${canonicalName(row.name)}`);
    // Optional: a repository's tables (an index may hold none yet), and the migrations' log (older ocvectors kept none).
    if (canonicalName(row.name) === row.name && row.name !== 'schema_version') expected.required.set(shape, row);
  }
  expectedByVersion.set(version, expected);
  return expected;
}

/** A repository's lexical tables (lexical-tables.ts) and FTS5's tables behind them, with the root id left out. */
function canonicalName(name: string): string {
  return name.toLowerCase().replace(/^((?:elements|code)_fts)_\d+(?=$|_)/, '$1_#');
}

/**
 * The shapes of objects already found to be ours, by their text with root ids left out: the
 * lexical tables of each repository of an index share one text, and are taken apart into
 * tokens once.
 */
const shapeByText = new Map<string, string>();

/** What an object is, as a string two objects share exactly when SQLite makes the same object of them. */
function shapeOf(row: SchemaRow): { shape: string; text: string } {
  const text = `${row.type}\0${row.name}\0${row.tbl_name}\0${row.sql === null ? 'n' : `s${row.sql}`}`.replace(
    /\b((?:elements|code)_fts)_\d+/g,
    '$1_#',
  );
  const shape =
    shapeByText.get(text) ??
    JSON.stringify([row.type, canonicalName(row.name), canonicalName(row.tbl_name), statementTokens(row)]);
  return { shape, text };
}

/**
 * One SQL token each, whitespace and comments left out, and the object's own name in place
 * of the token that names it (however quoted). Anything the pattern does not know is a
 * token of one character.
 */
const SQL_TOKEN =
  /\s+|--[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|[xX]'[^']*'|'(?:[^']|'')*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`|\[[^\]]*\]|[A-Za-z_\u0080-\uffff][\w$\u0080-\uffff]*|\d[\w.]*|[\s\S]/gy;
/** The words before the name of the object a CREATE statement makes. */
const BEFORE_NAME = new Set(['create', 'virtual', 'unique', 'temp', 'temporary', 'table', 'index', 'view', 'trigger']);
const IF_NOT_EXISTS = new Set(['if', 'not', 'exists']);

function statementTokens(row: SchemaRow): string[] | null {
  if (row.sql === null) return null; // an index SQLite makes for a table's own UNIQUE or PRIMARY KEY
  const tokens: string[] = [];
  let nameDone = false;
  SQL_TOKEN.lastIndex = 0;
  for (let match = SQL_TOKEN.exec(row.sql); match; match = SQL_TOKEN.exec(row.sql)) {
    const text = match[0];
    if (/^\s/.test(text) || text.startsWith('--') || text.startsWith('/*')) continue;
    const token = tokenOf(text);
    // The object's own name, which FTS5 writes as a literal and a rename quotes: the name SQLite records.
    if (!nameDone && !(BEFORE_NAME.has(token.slice(2)) || IF_NOT_EXISTS.has(token.slice(2)))) {
      nameDone = true;
      tokens.push(`n:${canonicalName(row.name)}`);
      continue;
    }
    tokens.push(token);
  }
  return tokens;
}

/**
 * A token, tagged: `i:` a word (a keyword or an identifier, in lower case), `q:` a quoted
 * identifier (never taken for a keyword: `"PRIMARY"` is a name), `s:` a literal, `p:`
 * anything else.
 */
function tokenOf(text: string): string {
  const first = text[0]!;
  if (first === "'" || ((first === 'x' || first === 'X') && text[1] === "'")) return `s:${text}`;
  if (first === '"' || first === '`') return `q:${canonicalName(text.slice(1, -1).replaceAll(first + first, first))}`;
  if (first === '[') return `q:${canonicalName(text.slice(1, -1))}`;
  if (/[A-Za-z_\u0080-\uffff]/.test(first)) return `i:${canonicalName(text)}`;
  return `p:${text}`;
}
